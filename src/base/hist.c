// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram: see include/base.h. */
#include "base.h"

static unsigned int bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < SR_HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);	/* 2^e <= v, e >= 4 */
	return SR_HIST_SUB + (e - 4) * SR_HIST_SUB + (unsigned int)((v >> (e - 4)) & 15);
}

/* Largest value that falls in bucket @i. */
static uint64_t bucket_top(unsigned int i)
{
	unsigned int e, sub;

	if (i < SR_HIST_SUB)
		return i;
	e = (i - SR_HIST_SUB) / SR_HIST_SUB + 4;
	sub = (i - SR_HIST_SUB) % SR_HIST_SUB;
	return ((uint64_t)(16 + sub + 1) << (e - 4)) - 1;
}

void sr_hist_add(struct sr_hist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->b[bucket_of(v)]++;
}

uint64_t sr_hist_pct(const struct sr_hist *h, double p)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	want = (uint64_t)((double)h->count * p / 100.0 + 0.999999);
	if (want < 1)
		want = 1;
	for (unsigned int i = 0; i < SR_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return bucket_top(i) < h->max ? bucket_top(i) : h->max;
	}
	return h->max;
}

json_t *sr_hist_json(const struct sr_hist *h)
{
	if (!h->count)
		return json_pack("{s:i, s:n, s:n, s:n, s:n, s:n, s:n}", "count", 0, "mean_ns",
				 "min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns");
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "count", (json_int_t)h->count,
			 "mean_ns", (json_int_t)(h->sum / h->count),
			 "min_ns", (json_int_t)h->min,
			 "p50_ns", (json_int_t)sr_hist_pct(h, 50),
			 "p90_ns", (json_int_t)sr_hist_pct(h, 90),
			 "p99_ns", (json_int_t)sr_hist_pct(h, 99),
			 "max_ns", (json_int_t)h->max);
}
