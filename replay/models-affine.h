/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modern wake-affine family: wake_wide() and record_wakee() (3.12 -> 6.18,
 * plus Gorman's unmerged heavy-waker coupling, Oct 2021) and wake_affine() with its helpers
 * (4.14 -> 6.18).  Used by replay/select_task_rq_fair-4.14.c; exported so
 * unit tests and the state code can call the pieces alone.
 *
 * Model functions take the wakeup context and a decision whose trail they
 * append to; they never fail on a context sr_srqf_414_ops has validated.
 */
#ifndef SR_MODELS_AFFINE_H
#define SR_MODELS_AFFINE_H

#include "policy.h"
#include "state.h"

/* "No affine target" from wake_affine_idle()/wake_affine_weight() (nr_cpumask_bits). */
#define SR_WA_NONE	(-1)

/*
 * wake_wide(): true when the wakeup should not be pulled towards the waker.
 * Flips are read from ctx->p and ctx->curr (NULL curr: 0 flips), the factor
 * is sd_llc_size of ctx->this_cpu.  The trail records the comparison; d may
 * be NULL.
 *   _312:  Michael Wang, 3.12 - 4.2 (checked inside wake_affine())
 *   _43:   Mike Galbraith's master/slave form, 4.3 - 6.18
 *   _heavy: "sched/fair: Couple wakee flips with heavy wakers" (never merged), on the wakee_flips_heavy counters
 */
bool sr_wake_wide_312(const struct sr_wake_ctx *ctx, struct sr_decision *d);
bool sr_wake_wide_43(const struct sr_wake_ctx *ctx, struct sr_decision *d);
bool sr_wake_wide_heavy(const struct sr_wake_ctx *ctx, struct sr_decision *d);
/* The variant @pol selects: _heavy under SR_F_WAKEE_HEAVY, else by kver. */
bool sr_wake_wide(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		  struct sr_decision *d);

/*
 * task_h_load(): a task's load as seen from the root cfs_rq of its CPU.
 * @lv lists the cfs_rqs from the root (lv[0]) down to the task's own
 * (lv[nr - 1]); gse_load_avg is the load_avg of the group entity owning that
 * cfs_rq (ignored for the root).  Integer division as in
 * update_cfs_rq_h_load(); nr == 1 is a root-group task.
 */
struct sr_hload_level {
	unsigned long cfs_load_avg;	/* cfs_rq->avg.load_avg */
	unsigned long gse_load_avg;	/* group se->avg.load_avg on this CPU */
	unsigned long h_load;		/* cfs_rq->h_load as cached (level 0: the root's) */
};
unsigned long sr_task_h_load_414(unsigned long se_load_avg, const struct sr_hload_level *lv,
			      int nr);
/* task_h_load(@t) on @cpu as the context shows it: a probe's value, else its group's levels. */
unsigned long sr_task_h_load_ctx(const struct sr_wake_ctx *ctx, const struct sr_task_view *t,
				 int cpu);

/*
 * The affine step, given the lowest SD_WAKE_AFFINE domain @sd of ctx->this_cpu
 * spanning ctx->prev_cpu and the effective @sync (WF_SYNC minus exiting waker).
 * The _idle and _weight helpers return ctx->this_cpu, ctx->prev_cpu (4.16+
 * idle rule only) or SR_WA_NONE; sr_wake_affine_414() returns the CPU the flow
 * continues with (this or prev) and sets d->decided_by.
 *   _414:  4.14 - 4.15, the bool form ("<=", no sync tie-break)
 *   _416:  4.16 - 6.18, the CPU-returning form ("<", sync +1) with the
 *          available_idle_cpu (4.18), prev-idle (5.10) and delayed-dequeue
 *          aware sync (6.16, 6.12.37) steps selected by pol->knobs.kver
 */
int sr_wake_affine_idle_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx, bool sync,
			 struct sr_decision *d);
int sr_wake_affine_idle_416(const struct sr_policy *pol, const struct sr_wake_ctx *ctx, bool sync,
			 struct sr_decision *d);
int sr_wake_affine_weight_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   const struct sr_domain *sd, bool sync, struct sr_decision *d);
int sr_wake_affine_weight_416(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   const struct sr_domain *sd, bool sync, struct sr_decision *d);
int sr_wake_affine_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		    const struct sr_domain *sd, bool sync, struct sr_decision *d);

#endif /* SR_MODELS_AFFINE_H */
