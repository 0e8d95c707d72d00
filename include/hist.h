/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fixed-size log-linear histogram of nanosecond values: 16 buckets per
 * power of two, so a reported percentile is within 1/16 (6.25 %) of the
 * true value, in O(1) memory however long the trace.
 */
#ifndef SR_HIST_H
#define SR_HIST_H

#include <jansson.h>
#include <stdint.h>

#define SR_HIST_SUB	16
#define SR_HIST_BUCKETS	(SR_HIST_SUB + (64 - 4) * SR_HIST_SUB)

struct sr_hist {
	uint64_t count, sum, min, max;
	uint32_t b[SR_HIST_BUCKETS];
};

void sr_hist_add(struct sr_hist *h, uint64_t v);
/* Upper bound of the bucket holding the p-th percentile (0 < p <= 100), clamped to max. */
uint64_t sr_hist_pct(const struct sr_hist *h, double p);
/* {"count", "mean_ns", "min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"}; nulls when empty. */
json_t *sr_hist_json(const struct sr_hist *h);

#endif /* SR_HIST_H */
