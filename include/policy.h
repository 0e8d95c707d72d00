/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy vtable: a placement model decides a CPU for one wakeup and
 * records each check it made, in kernel order, as a trail.
 *
 * Models read plain views (struct sr_rq, struct sr_task_view) so that
 * the runqueue state can hand them over without copying and unit tests
 * can build them by hand.
 */
#ifndef SR_POLICY_H
#define SR_POLICY_H

#include <stdint.h>
#include "sr.h"
#include "topology.h"

/* One CPU's runqueue as a model sees it at the moment of the wakeup. */
struct sr_rq {
	int curr_pid;			/* 0: the idle task runs */
	int curr_policy;		/* enum sr_sched_policy of curr */
	unsigned int nr_running;	/* tasks on the rq, curr included, all classes */
	unsigned int cfs_nr_running;	/* CFS tasks only */
	unsigned int idle_nr_running;	/* SCHED_IDLE tasks among them */
	unsigned long load_weight;	/* Σ weight of queued CFS tasks incl. curr (rq.load.weight) */
	unsigned long load_avg;		/* PELT cfs_rq.avg.load_avg, blocked load included */
	unsigned long runnable_load_avg;/* PELT of enqueued entities only (≤ 5.6) */
	unsigned long util_avg;
	unsigned long capacity;		/* capacity_of() / power_of(); 1024 when unknown */
	uint64_t idle_since;		/* ns when curr became idle; 0 when busy */
	uint64_t avg_idle;		/* rq->avg_idle estimate, ns */
	bool ttwu_pending;		/* a wakeup is in flight to this CPU */
	bool vcpu_preempted;		/* unknowable from a trace; false */
	bool uncertain;			/* state not re-established after lost events */
};

enum sr_sched_policy {
	SR_SCHED_NORMAL,
	SR_SCHED_BATCH,
	SR_SCHED_IDLE,
	SR_SCHED_RT,			/* FIFO/RR/DL: prio < 100 */
};

/* Task group the task belongs to, for the 2.6.38 effective_load() and task_h_load(). */
struct sr_tg;

/* A task (wakee or waker) as a model sees it. */
struct sr_task_view {
	int pid;
	int prio;			/* kernel prio: 120 + nice for CFS */
	enum sr_sched_policy policy;
	unsigned long weight;		/* se.load.weight, scaled down (nice 0 = 1024) */
	unsigned long load_avg;		/* PELT se.avg.load_avg approximation */
	unsigned long util_avg;
	bool pelt_warm;			/* observed long enough for PELT to converge */
	int cpu;			/* task_cpu() */
	bool on_cpu;			/* currently running */
	uint64_t exec_start;		/* last time it started or stopped running (ns) */
	uint64_t last_switch_out;	/* ns; 0 if never seen */
	/* record_wakee() bookkeeping, as the kernel keeps it on the task */
	unsigned int wakee_flips;
	uint64_t wakee_flip_decay_ts;	/* in jiffies, like the kernel */
	int last_wakee;			/* pid, 0 if none */
	/* The same counter evolved by seed 002's record_wakee (heavy wakers pass flips on). */
	unsigned int wakee_flips_heavy;
	int recent_used_cpu;		/* -1 if unknown */
	int nr_cpus_allowed;		/* 0: unknown, assume all */
	bool exiting;			/* PF_EXITING (current) */
	const struct sr_tg *tg;		/* NULL: root group (or unknown, see deps) */
};

/* Per-LLC lazy hints (sd_llc_shared). */
struct sr_llc_view {
	bool has_idle_cores;
	int nr_idle_scan;		/* SIS_UTIL budget; -1 unknown */
};

/* WF_SYNC is not in a trace: it is a tri-state input. */
enum sr_tristate { SR_NO = 0, SR_YES = 1, SR_UNKNOWN = 2 };

enum sr_wake_kind { SR_WAKE_TTWU, SR_WAKE_FORK, SR_WAKE_EXEC };

/*
 * Knobs: sched_features and sysctls a preset fixes and the user may
 * override (--policy NAME:KNOB=VALUE,...).  Units as the kernel uses them.
 */
enum sr_feature {
	SR_F_WA_IDLE		= 1 << 0,
	SR_F_WA_WEIGHT		= 1 << 1,
	SR_F_WA_BIAS		= 1 << 2,
	SR_F_SIS_PROP		= 1 << 3,
	SR_F_SIS_UTIL		= 1 << 4,
	SR_F_SIS_AVG_CPU	= 1 << 5,
	SR_F_TTWU_QUEUE		= 1 << 6,
	SR_F_LB_BIAS		= 1 << 7,
	SR_F_NO_HOT_AFFINE	= 1 << 8,	/* seed 000 patch 3/3 */
	SR_F_HOT_IMBALANCE	= 1 << 9,	/* Turner's alternative, same thread */
	SR_F_WAKEE_HEAVY	= 1 << 10,	/* seed 002 */
	SR_F_SIS_SMT_WEIGHT	= 1 << 11,	/* seed 003 patch 3 (dropped) */
	SR_F_LLC_IMBALANCE	= 1 << 12,	/* seed 001 */
	SR_F_AFFINE_WAKEUPS	= 1 << 13,
};

#define SR_KV(major, minor) (((major) << 16) | ((minor) << 8))

struct sr_knobs {
	unsigned int kver;		/* SR_KV() of the kernel modelled: selects era variants */
	unsigned int features;		/* enum sr_feature */
	int64_t migration_cost_ns;	/* sysctl_sched_migration_cost */
	int hot_imbalance_pct;		/* SR_F_HOT_IMBALANCE: affine threshold for hot tasks */
	int sis_min_loops;		/* SR_F_SIS_SMT_WEIGHT minimum scan */
	int64_t sis_avg_scan_cost_ns;	/* sd->avg_scan_cost: unobservable, assumed */
	bool autogroup;
};

/* Inputs the trace cannot show; a decision lists those its result depends on. */
enum sr_dep {
	SR_DEP_SYNC		= 1 << 0,
	SR_DEP_CGROUP		= 1 << 1,	/* shares unknown: root group assumed */
	SR_DEP_PELT_WARMUP	= 1 << 2,
	SR_DEP_DELAYED_DEQUEUE	= 1 << 3,	/* 6.12+ */
	SR_DEP_VCPU		= 1 << 4,
	SR_DEP_LOST_EVENTS	= 1 << 5,
	SR_DEP_TOPOLOGY		= 1 << 6,	/* topology assumed, not recorded */
	SR_DEP_SCAN_COST	= 1 << 7,	/* SIS_PROP avg_scan_cost / avg_idle */
	SR_DEP_IDLE_HINT	= 1 << 8,	/* has_idle_cores / nr_idle_scan */
	SR_DEP_AFFINITY		= 1 << 9,	/* cpus_allowed unknown */
};

/* What settled the decision, for divergence breakdowns. */
enum sr_decider {
	SR_BY_NONE,
	SR_BY_NOT_ALLOWED,		/* pinned / waker CPU not allowed */
	SR_BY_NO_AFFINE_DOMAIN,
	SR_BY_SAME_CPU,			/* waker == prev */
	SR_BY_WAKE_WIDE,
	SR_BY_IDLE_WAKER,		/* wake_affine_idle picked this */
	SR_BY_IDLE_PREV,
	SR_BY_SYNC,
	SR_BY_WEIGHT,			/* wake_affine / wake_affine_weight load test */
	SR_BY_TASK_HOT,			/* NO_HOT_AFFINE or hot imbalance */
	SR_BY_SIS_TARGET,		/* select_idle_sibling kept target */
	SR_BY_SIS_PREV,
	SR_BY_SIS_RECENT,
	SR_BY_SIS_CORE,
	SR_BY_SIS_CPU,
	SR_BY_SIS_SMT,
	SR_BY_SLOW_PATH,		/* find_idlest_* */
	SR_BY_NR_DECIDERS
};

#define SR_STEP_MAXVALS	8
#define SR_TRAIL_MAX	64

struct sr_val {
	const char *name;
	int64_t v;
	bool is_unsigned;		/* print v as uint64_t (2.6.37 wraps) */
};

/* One check of the kernel's, with the numbers it compared and the branch taken. */
struct sr_step {
	const char *fn;			/* kernel function, e.g. "wake_affine_weight" */
	const char *check;		/* the comparison, e.g. "this_eff_load < prev_eff_load" */
	const char *result;		/* the branch taken, e.g. "affine" */
	int cpu;			/* CPU the step chose or concerns, -1 if none */
	int nvals;
	struct sr_val vals[SR_STEP_MAXVALS];
};

struct sr_trail {
	int n;
	bool truncated;
	bool off;			/* record nothing: sr_trail_add() returns NULL */
	struct sr_step steps[SR_TRAIL_MAX];
};

struct sr_decision {
	int cpu;			/* chosen CPU under the primary assumption */
	int alt_cpu;			/* choice under the other sync value, or -1 */
	bool sync_assumed;		/* the primary answer assumes WF_SYNC */
	bool sync_used;			/* set by a model whose answer read WF_SYNC; when not,
					 * the other value is not replayed (same answer) */
	enum sr_decider decided_by;
	unsigned int depends;		/* enum sr_dep the result depends on */
	bool determined;		/* depends == 0 */
	struct sr_trail trail;
};

/* Everything a model may read about one wakeup. */
struct sr_wake_ctx {
	uint64_t now;			/* ns */
	enum sr_wake_kind kind;
	int this_cpu;			/* waker CPU: smp_processor_id() */
	int prev_cpu;			/* task_cpu(p) / p->wake_cpu */
	enum sr_tristate sync;
	const struct sr_task_view *p;	/* wakee */
	const struct sr_task_view *curr;/* waker (current on this_cpu); may be NULL (irq) */
	const struct sr_rq *rq;		/* nr_cpus entries, indexed by CPU */
	const struct sr_llc_view *llc;	/* indexed by CPU (each CPU's LLC); may be NULL */
	const struct sr_cpumask *allowed;/* p->cpus_ptr; NULL: all CPUs */
	const struct sr_topo *topo;
	/*
	 * When sync is SR_UNKNOWN, the value the decision's primary answer
	 * assumes (the other value's answer goes to alt_cpu): a guess from how
	 * the wakeup was issued, never a fact.
	 */
	enum sr_tristate sync_guess;
	/*
	 * enum sr_dep inputs the state could not supply (PELT not warm, cgroup
	 * unknown, topology assumed...).  A model adds one to d->depends only
	 * when its answer actually used that input; LOST_EVENTS always counts.
	 */
	unsigned int unknown;
};

struct sr_policy;

struct sr_policy_ops {
	const char *name;		/* model family, e.g. "select_task_rq_fair-2.6.38" */
	/*
	 * Decide a CPU for ctx with a definite sync value (ctx->sync != SR_UNKNOWN).
	 * Fill d->cpu, d->decided_by, d->depends (excluding SYNC) and d->trail.
	 * Returns 0 or -errno.
	 */
	int (*select_task_rq)(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			      struct sr_decision *d);
};

struct sr_policy {
	char name[64];			/* preset name, e.g. "linux-6.1" */
	const char *kernel_range;	/* e.g. "6.0-6.5" */
	const struct sr_policy_ops *ops;
	struct sr_knobs knobs;
};

/*
 * Trail helpers: append a step; values follow as (name, value) pairs.  With
 * the trail off (bulk replay) sr_trail_add() returns NULL, which the value
 * helpers accept: models never dereference a step themselves.
 */
struct sr_step *sr_trail_add(struct sr_trail *t, const char *fn, const char *check,
			     const char *result, int cpu);
void sr_step_val(struct sr_step *s, const char *name, int64_t v);
void sr_step_uval(struct sr_step *s, const char *name, uint64_t v);

/*
 * Run @pol on @ctx.  When ctx->sync is SR_UNKNOWN the model runs under both
 * values: d->cpu is the answer under ctx->sync_guess (SR_NO unless it says
 * SR_YES; trail included), d->alt_cpu the other one, and SR_DEP_SYNC is set
 * when they differ.
 */
int sr_policy_decide(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     struct sr_decision *d);
/* The same without recording trails: for replaying every wakeup of a trace. */
int sr_policy_decide_quiet(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   struct sr_decision *d);

const char *sr_decider_name(enum sr_decider by);
const char *sr_dep_name(enum sr_dep dep);

#endif /* SR_POLICY_H */
