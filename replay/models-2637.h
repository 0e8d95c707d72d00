/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 2.6.37 - 3.0 wakeup models (replay/ *-2.6.37.c, *-2.6.38.c):
 * cross-file declarations and the group-scheduling input they read.
 *
 * Every function appends its checks to a trail in kernel order and
 * returns a negative errno on bad input.
 */
#ifndef SR_MODELS_2637_H
#define SR_MODELS_2637_H

#include "models.h"

#define SR_MIN_SHARES		2L		/* MIN_SHARES, 2.6.37 and 2.6.38 */
#define SR_TG_MAX_DEPTH		16		/* guards a cyclic ->parent chain */
/* Idle threads keep the nice-0 se.load.weight inherited from init_task. */
#define SR_IDLE_TASK_WEIGHT	SR_NICE_0_LOAD

/*
 * effective_load(tg, cpu, wl, wg): root-level load change on @cpu when @wl
 * of weight joins @tg there and the group's total weight changes by @wg.
 * *@res receives the kernel's long.  0 or -EINVAL / -EOVERFLOW.
 */
int sr_effective_load_2637(const struct sr_tg *tg, int cpu, long wl, long wg, long *res,
			struct sr_trail *t);
int sr_effective_load_2638(const struct sr_tg *tg, int cpu, long wl, long wg, long *res,
			struct sr_trail *t);

/*
 * wake_affine(sd, p, sync) with ctx->this_cpu as smp_processor_id() and
 * ctx->prev_cpu as task_cpu(p): 1 affine, 0 not, or -errno.  Sets
 * d->decided_by and adds to d->depends.  _2637 keeps the loads unsigned
 * long; _2638 (also 3.0) makes them s64 and tests this_load > 0.
 */
int sr_wake_affine_2637(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     const struct sr_domain *sd, struct sr_decision *d);
int sr_wake_affine_2638(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     const struct sr_domain *sd, struct sr_decision *d);

/* What task_hot() reads about a task, as the load balancer or the wake path sees it. */
struct sr_hot_in {
	enum sr_sched_policy policy;
	uint64_t exec_start;		/* p->se.exec_start: last time it ran (ns) */
	bool next_buddy;		/* p is cfs_rq_of(p)->next: unobservable */
	bool last_buddy;		/* p is cfs_rq_of(p)->last: unobservable */
	bool buddy_assumed;		/* the buddy bits are assumed: say so in the trail */
	unsigned int dst_nr_running;	/* this_rq()->nr_running; env->dst_rq's from 4.4 */
	unsigned int sd_flags;		/* balancing domain's flags (5.10 SMT rule), or 0 */
};

/* task_hot(p, now): 1 hot, 0 cold, -EINVAL for a migration_cost no sysctl accepts. */
int sr_task_hot_2638(const struct sr_policy *pol, const struct sr_hot_in *in, uint64_t now,
		  struct sr_trail *t);
/*
 * task_hot_lazy(p) of Turner's NO_HOT_AFFINE patch (Jan 2011, unmerged): task_hot() at the stale
 * @clock_task of task_rq(p); only if that says hot, at the updated @now.
 */
int sr_task_hot_lazy_2638(const struct sr_policy *pol, const struct sr_hot_in *in,
		       uint64_t clock_task, uint64_t now, struct sr_trail *t);
/* task_hot_lazy() of the wakee of @ctx, marking the wake-path assumptions. */
int sr_task_hot_lazy_wakee_2638(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			     struct sr_decision *d);
/* The cache-hot tail of can_migrate_task(): 1 if the balancer may move the task. */
int sr_can_migrate_task_hot_2637(int hot, unsigned int nr_balance_failed,
			      unsigned int cache_nice_tries, struct sr_trail *t);

/* select_idle_sibling(p, target) of 2.6.36 - 3.0: the CPU chosen, or -errno. */
int sr_select_idle_sibling_2637(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			     int target, struct sr_decision *d);

/* --- rq accessors of this era; each notes lost-event state it had to read --- */

static inline void sr2637_note_rq(const struct sr_wake_ctx *ctx, struct sr_decision *d, int cpu)
{
	if (ctx->rq[cpu].uncertain)
		d->depends |= SR_DEP_LOST_EVENTS;
}

/* idle_cpu(): rq->curr == rq->idle only, 2.6.37 - 3.0. */
static inline bool idle_cpu_2637(const struct sr_wake_ctx *ctx, struct sr_decision *d, int cpu)
{
	sr2637_note_rq(ctx, d, cpu);
	return ctx->rq[cpu].curr_pid == 0;
}

/* weighted_cpuload() = rq->load.weight; with wake_idx 0 also source_load/target_load. */
static inline unsigned long weighted_cpuload_2637(const struct sr_wake_ctx *ctx,
						  struct sr_decision *d, int cpu)
{
	sr2637_note_rq(ctx, d, cpu);
	return ctx->rq[cpu].load_weight;
}

static inline unsigned long power_of_2637(const struct sr_wake_ctx *ctx, int cpu)
{
	return ctx->rq[cpu].capacity;
}

static inline bool sr2637_allowed(const struct sr_wake_ctx *ctx, int cpu)
{
	return !ctx->allowed || sr_mask_test(ctx->allowed, cpu);
}

static inline bool sr2637_cpu_valid(const struct sr_wake_ctx *ctx, int cpu)
{
	return cpu >= 0 && cpu < ctx->topo->nr_cpus;
}

#endif /* SR_MODELS_2637_H */
