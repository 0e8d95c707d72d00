/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cross-file contract between the placement models in replay/.  Each
 * family's own helpers live in its own header (models-*.h).
 */
#ifndef SR_MODELS_H
#define SR_MODELS_H

#include "policy.h"

/* replay/select_task_rq_fair-2.6.37.c: the 2.6.37 - 3.0 wakeup path. */
extern const struct sr_policy_ops sr_srqf_2637_ops;	/* 2.6.37: S/rw/s effective_load */
extern const struct sr_policy_ops sr_srqf_2638_ops;	/* 2.6.38-3.0: Turner effective_load,
							 * + NO_HOT_AFFINE / HOT_IMBALANCE */

/* replay/select_task_rq_fair-4.14.c: the 4.14 - 6.18 wakeup path (variants by knobs.kver). */
extern const struct sr_policy_ops sr_srqf_414_ops;

/*
 * replay/vcpu_pack-6.18fc.c: the sched_vcpu_pack prologue of the 6.18.44-fc
 * guest kernel (pol->knobs.vcpu_pack); the CPU it settles on, or -1.
 */
int sr_vcpu_pack(const struct sr_policy *pol, const struct sr_wake_ctx *ctx, bool sync,
		 struct sr_decision *d);

/* replay/naive.c: version-less baselines (fidelity reports compare against them). */
extern const struct sr_policy_ops sr_naive_prev_ops;
extern const struct sr_policy_ops sr_naive_waker_ops;
extern const struct sr_policy_ops sr_naive_idle_first_ops;

/*
 * replay/select_idle_sibling-*.c, dispatching on pol->knobs.kver and features:
 * 4.9-5.11 multi-pass, 5.12-5.19 single pass (+ SR_F_SIS_SMT_WEIGHT), 6.0+ SIS_UTIL.
 * Returns the CPU chosen; appends its steps to d->trail and sets d->decided_by
 * when it settles the answer.
 */
int sr_select_idle_sibling(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   int prev, int target, struct sr_decision *d);

/*
 * One decide()'s select_idle_sibling() answers (replay/policy.c owns it,
 * d->sis_memo lends it).  The runs of one placement (the other WF_SYNC
 * value, the wake_wide and concurrent-wakeup what-ifs) often ask again on
 * the same runqueues with the same prev and target: nothing else they vary
 * reaches select_idle_sibling(), so a quiet run takes the answer, its
 * dependencies and its hints from here instead of scanning again.
 */
#define SR_SIS_MEMO	4

struct sr_sis_memo {
	int n;
	struct sr_sis_answer {
		const struct sr_rq *rq;		/* the runqueues asked about */
		int prev, target;
		int cpu;
		enum sr_decider by;
		unsigned int depends;		/* what select_idle_sibling() added */
		struct sr_sis_fx fx;		/* its hints (h_load_cpu is not its) */
	} a[SR_SIS_MEMO];
};

/* A decision's header as a run starts it (@quiet: no trail kept). */
void sr_decision_reset(struct sr_decision *d, bool quiet);

/* sr_policy_decide_quiet() with every run asking select_idle_sibling() anew (tests). */
int sr_policy_decide_unshared(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			      struct sr_decision *d);

/*
 * replay/find_idlest_cpu-*.c: the fork/exec slow path from domain level
 * @sd_level of ctx->this_cpu downwards (find_idlest_group/find_idlest_cpu,
 * NUMA imbalance rules by kver).  Returns the CPU chosen.
 */
int sr_find_idlest_cpu(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		       int sd_level, int prev, struct sr_decision *d);

/*
 * replay/idle_stamp.c: the values at which idle stamps the trace leaves open
 * (sr_rq.idle_stamp_dep) can change a slow-path answer.  Between two
 * consecutive ones among 0, 1, every idle CPU's known stamp and every open
 * range's ends, and one past each, no "rq->idle_stamp > latest_idle_timestamp"
 * of find_idlest_group_cpu() flips (equal stamps go to the CPU scanned
 * first).  The grid holds each open CPU whose range holds such a bound and
 * its values; decide() replays every combination on ctx->rq_scratch.
 */
#define SR_STAMP_OPEN_MAX	4
#define SR_STAMP_VALUES		32
#define SR_STAMP_RUNS		512

struct sr_stamp_grid {
	int n, cpu[SR_STAMP_OPEN_MAX];
	int nv[SR_STAMP_OPEN_MAX], at[SR_STAMP_OPEN_MAX];
	uint64_t v[SR_STAMP_OPEN_MAX][SR_STAMP_VALUES];
};

/* Fill @g from ctx; false past the limits (the answer must count the stamps). */
bool sr_stamp_grid_init(struct sr_stamp_grid *g, const struct sr_wake_ctx *ctx);
/* Put the next combination into ctx->rq_scratch (@first: the first); false after the last. */
bool sr_stamp_grid_next(struct sr_stamp_grid *g, const struct sr_wake_ctx *ctx, bool first);

/*
 * select_task_rq()'s is_cpu_allowed() test of the class's answer d->cpu,
 * select_fallback_rq() when it fails (replay/select_fallback_rq-4.17.c).
 */
void sr_select_task_rq_allowed(const struct sr_wake_ctx *ctx, struct sr_decision *d);

#endif /* SR_MODELS_H */
