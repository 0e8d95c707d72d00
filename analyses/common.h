/* SPDX-License-Identifier: GPL-2.0 */
/* Private to analyses/: small helpers several analyses share. */
#ifndef SR_AN_COMMON_H
#define SR_AN_COMMON_H

#include "analysis.h"

/*
 * How CPU @a stands to CPU @b: "same_cpu", "same_core" (SMT siblings),
 * "same_llc", "cross_llc", "cross_node", or "unknown" for a CPU outside the
 * topology.
 */
const char *sr_an_relation(const struct sr_topo *t, int a, int b);
/* The same for a label beside a CPU: "SMT sibling", "same LLC", "other LLC", "other node". */
const char *sr_an_rel_short(const struct sr_topo *t, int a, int b);

/* One placement a number leads to: what a person needs to find it again. */
struct sr_an_ref {
	uint64_t index;			/* wakeup number (explain --wakeup) */
	uint64_t ts, wait;		/* sched_waking, and waking -> switch-in */
	int pid;
	char comm[SR_COMM_LEN];
	int16_t cpu, prev_cpu, waker_cpu, ran_on;
};

/* The placement @t's note describes, switched in on @cpu at @ts. */
void sr_an_ref_fill(struct sr_an_ref *r, const struct sr_task *t, int cpu, uint64_t ts);
/* {wakeup, pid, comm, ts_ns, time, wait_ns, cpu, prev_cpu, waker_cpu, ran_on}. */
json_t *sr_an_ref_json(const struct sr_an_ref *r);
/* "271.742924123": seconds as trace-cmd report prints them (and --at takes). */
void sr_an_fmt_time(uint64_t ns, char *buf, size_t size);

/* The @n largest-wait references seen, as a min-heap on wait. */
struct sr_an_worst {
	struct sr_an_ref *r;
	int n, cap;
};

int sr_an_worst_init(struct sr_an_worst *w, int cap);
void sr_an_worst_add(struct sr_an_worst *w, const struct sr_an_ref *r);
/* Sort the kept ones, worst first (once, at the end). */
void sr_an_worst_sort(struct sr_an_worst *w);
void sr_an_worst_free(struct sr_an_worst *w);

/*
 * "Always prev" as the yardstick of a model on a trace: a model that picks
 * the kernel's CPU less often than keeping every task on its prev CPU would
 * (by more than half a point, over 20 answers or more) lacks something the
 * kernel decided with — an input the trace does not hold, or a kernel other
 * than the one its release names — and its explanations are not the
 * kernel's reasons.  @prev: of the @answered wakeups, those the kernel kept.
 */
bool sr_an_below_prev(uint64_t match, uint64_t answered, uint64_t prev);

#endif /* SR_AN_COMMON_H */
