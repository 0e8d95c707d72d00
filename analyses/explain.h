/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to analyses/explain*.c: the one wakeup explain keeps, rendered as
 * JSON (explain.c, the report's "explain" section) and as text
 * (explain-text.c) from the same struct.
 */
#ifndef SR_EXPLAIN_H
#define SR_EXPLAIN_H

#include "analysis.h"

/* Placed wakeups and how often each policy, and "always prev", picked the kernel's CPU. */
struct sr_explain_record {
	uint64_t placed, prev;
	uint64_t answered[SR_MAX_POLICIES], match[SR_MAX_POLICIES];
};

struct sr_explain_cand {
	bool valid, has_ctx, has_curr, ran;
	uint64_t ts;
	/* at the placement: the sched_waking, or the kernel's select_task_rq_fair() (probes) */
	uint64_t placed_ts;
	struct sr_rq *rq;		/* nr_cpus copies */
	struct sr_task_view p, curr;
	int this_cpu, prev_cpu;
	bool has_allowed;		/* p->cpus_ptr was known (affinity), not every CPU */
	struct sr_cpumask allowed;
	unsigned int unknown;
	/* per policy: one answer, or one per WF_SYNC value when the trace cannot tell */
	struct sr_decision dec[SR_MAX_POLICIES][2];
	int nr_dec[SR_MAX_POLICIES];
	enum sr_tristate sync_guess;	/* the value the analyses' primary answer assumes */
	enum sr_tristate sync_fact;	/* WF_SYNC recorded by a probe, else SR_UNKNOWN */
	enum sr_sync_source sync_source;
	/* at the sched_wakeup */
	struct sr_wakeup w;
	char comm[SR_COMM_LEN], target_comm[SR_COMM_LEN];
	/* the wakeup in flight that may have been seen (concurrent_wakeup), pid 0: none */
	struct sr_conc_by conc;
	char conc_comm[SR_COMM_LEN];
	int target_curr;
	unsigned int target_nr;
	/* at the switch-in */
	uint64_t run_ts;
	int run_cpu;
	struct sr_explain_record before;	/* the trace's placed wakeups before this one */
};

struct sr_explain {
	int pid;
	int64_t at;
	uint64_t index;			/* --wakeup N: find its pid and time */
	int nr_cpus;
	struct sr_explain_cand *scratch, *best;
	struct sr_explain_cand *exec_scratch;	/* an exec's context, until it completes */
	struct sr_explain_record record;	/* every placed wakeup so far */
};

/* The answer the analyses' primary replay gives for policy @i. */
static inline const struct sr_decision *sr_explain_primary(const struct sr_explain_cand *c, int i)
{
	return c->nr_dec[i] == 2 && c->sync_guess == SR_YES ? &c->dec[i][1] : &c->dec[i][0];
}

/* The wakee's p->cpus_ptr as a CPU list (free() it), or NULL: every CPU, or no memory. */
char *sr_explain_allowed_list(const struct sr_explain_cand *c);

/* The role of prev_cpu: a wakeup's prev, a fork's parent CPU, an exec's own CPU. */
static inline const char *sr_explain_prev_role(const struct sr_explain_cand *c)
{
	return c->w.kind == SR_WAKE_FORK ? "parent" : c->w.kind == SR_WAKE_EXEC ? "task_cpu" : "prev";
}

/* The kernel function at the placement's moment, as the pictures label it. */
static inline const char *sr_explain_moment(const struct sr_explain_cand *c)
{
	return c->w.kind == SR_WAKE_FORK ? "wake_up_new_task" :
	       c->w.kind == SR_WAKE_EXEC ? "sched_exec" : "sched_waking";
}

/* "fork" or "exec" for those placements, else the wakeup's class ("placed", "runnable", ...). */
static inline const char *sr_explain_class(const struct sr_explain_cand *c)
{
	return c->w.kind != SR_WAKE_TTWU ? sr_wake_kind_name(c->w.kind) : sr_wclass_name(c->w.cls);
}

/* Why a descheduling wakee went to its CPU's wakelist (JSON on_cpu_wakelist), or NULL. */
static inline const char *sr_explain_wakelist(enum sr_wakelist_why why)
{
	static const char *const names[] = {
		[SR_WL_IDLE] = "left_idle", [SR_WL_OTHER_LLC] = "other_llc",
		[SR_WL_WAKER_WENT_ON] = "waker_went_on", [SR_WL_ONE_OTHER] = "one_other",
	};

	return why > SR_WL_NONE && why <= SR_WL_ONE_OTHER ? names[why] : NULL;
}

/* CPUs shown: waker, prev, chosen, and every policy's answer. */
bool sr_explain_mattered(const struct sr_explain_cand *c, int cpu, int nr_policies);

#endif /* SR_EXPLAIN_H */
