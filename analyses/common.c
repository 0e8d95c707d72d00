// SPDX-License-Identifier: GPL-2.0
/* Small helpers several analyses share. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

const char *sr_an_relation(const struct sr_topo *t, int a, int b)
{
	if (a < 0 || b < 0 || a >= t->nr_cpus || b >= t->nr_cpus)
		return "unknown";
	if (a == b)
		return "same_cpu";
	return sr_relation_name(sr_topo_relation(t, a, b));
}

const char *sr_an_rel_short(const struct sr_topo *t, int a, int b)
{
	static const char *const names[SR_REL_NR] = {
		"SMT sibling", "same LLC", "other LLC", "other node",
	};

	if (a < 0 || b < 0 || a >= t->nr_cpus || b >= t->nr_cpus)
		return "";
	return a == b ? "same CPU" : names[sr_topo_relation(t, a, b)];
}

void sr_an_ref_fill(struct sr_an_ref *r, const struct sr_task *t, int cpu, uint64_t ts)
{
	const struct sr_wake_note *n = &t->note;

	*r = (struct sr_an_ref){
		.index = n->index, .ts = n->ts, .wait = ts >= n->ts ? ts - n->ts : 0,
		.pid = t->v.pid, .cpu = n->cpu, .prev_cpu = n->prev_cpu,
		.waker_cpu = n->waker_cpu, .ran_on = (int16_t)cpu,
	};
	memcpy(r->comm, t->comm, SR_COMM_LEN);
}

void sr_an_fmt_time(uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
}

json_t *sr_an_ref_json(const struct sr_an_ref *r)
{
	char when[32];

	sr_an_fmt_time(r->ts, when, sizeof(when));
	return json_pack("{s:I, s:i, s:o, s:I, s:s, s:I, s:i, s:i, s:i, s:i}",
			 "wakeup", (json_int_t)r->index, "pid", r->pid, "comm", sr_json_str(r->comm),
			 "ts_ns", (json_int_t)r->ts, "time", when, "wait_ns", (json_int_t)r->wait,
			 "cpu", r->cpu, "prev_cpu", r->prev_cpu, "waker_cpu", r->waker_cpu,
			 "ran_on", r->ran_on);
}

int sr_an_worst_init(struct sr_an_worst *w, int cap)
{
	w->n = 0;
	w->cap = cap;
	w->r = calloc(cap > 0 ? (size_t)cap : 1, sizeof(*w->r));
	return w->r ? 0 : -ENOMEM;
}

static void swap(struct sr_an_ref *a, struct sr_an_ref *b)
{
	struct sr_an_ref t = *a;

	*a = *b;
	*b = t;
}

/* A smaller wait, or the same wait later: ties keep the earlier wakeup. */
static bool less(const struct sr_an_ref *a, const struct sr_an_ref *b)
{
	return a->wait < b->wait || (a->wait == b->wait && a->index > b->index);
}

static void sift_down(struct sr_an_worst *w, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < w->n && less(&w->r[l], &w->r[m]))
			m = l;
		if (r < w->n && less(&w->r[r], &w->r[m]))
			m = r;
		if (m == i)
			return;
		swap(&w->r[i], &w->r[m]);
		i = m;
	}
}

void sr_an_worst_add(struct sr_an_worst *w, const struct sr_an_ref *r)
{
	int i;

	if (w->cap <= 0)
		return;
	if (w->n == w->cap) {
		if (!less(&w->r[0], r))
			return;
		w->r[0] = *r;
		sift_down(w, 0);
		return;
	}
	i = w->n++;
	w->r[i] = *r;
	while (i && less(&w->r[i], &w->r[(i - 1) / 2])) {
		swap(&w->r[i], &w->r[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static int worst_first(const void *x, const void *y)
{
	const struct sr_an_ref *a = x, *b = y;

	return less(a, b) ? 1 : less(b, a) ? -1 : 0;
}

void sr_an_worst_sort(struct sr_an_worst *w)
{
	qsort(w->r, (size_t)w->n, sizeof(*w->r), worst_first);
}

void sr_an_worst_free(struct sr_an_worst *w)
{
	free(w->r);
	w->r = NULL;
}

#define BELOW_PREV_MIN		20
#define BELOW_PREV_POINTS	0.5

bool sr_an_below_prev(uint64_t match, uint64_t answered, uint64_t prev)
{
	return answered >= BELOW_PREV_MIN &&
	       100.0 * (double)match / (double)answered <
	       100.0 * (double)prev / (double)answered - BELOW_PREV_POINTS;
}
