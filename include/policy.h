/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay layer: the policy vtable.  A placement model decides a CPU for one
 * wakeup and records each check it made, in kernel order, as a trail.
 * Named presets bind a model family to a kernel version's knobs.
 *
 * Models read the plain views state.h defines (struct sr_wake_ctx and what
 * it points to), so that the runqueue state hands them over without copying
 * and unit tests can build them by hand.
 */
#ifndef SR_POLICY_H
#define SR_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include "base.h"
#include "state.h"
#include "topology.h"

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
	SR_F_NO_HOT_AFFINE	= 1 << 8,	/* Turner, Jan 2011, unmerged */
	SR_F_HOT_IMBALANCE	= 1 << 9,	/* Turner's alternative, same thread */
	SR_F_WAKEE_HEAVY	= 1 << 10,	/* Gorman, heavy wakers, Oct 2021 */
	SR_F_SIS_SMT_WEIGHT	= 1 << 11,	/* Gorman, proportional to cores, dropped */
	SR_F_LLC_IMBALANCE	= 1 << 12,	/* Wu, LLCs under NUMA, 2025 */
	SR_F_AFFINE_WAKEUPS	= 1 << 13,
};

struct sr_knobs {
	unsigned int kver;		/* SR_KV() of the kernel modelled: selects era variants */
	unsigned int features;		/* enum sr_feature */
	int64_t migration_cost_ns;	/* sysctl_sched_migration_cost */
	int hot_imbalance_pct;		/* SR_F_HOT_IMBALANCE: affine threshold for hot tasks */
	int sis_min_loops;		/* SR_F_SIS_SMT_WEIGHT minimum scan */
	int64_t sis_avg_scan_cost_ns;	/* sd->avg_scan_cost: unobservable, assumed */
	bool autogroup;
	int vcpu_pack;			/* 6.18.44-fc sched_vcpu_pack bit mask; 0: mainline */
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
	SR_BY_NOT_FAIR,			/* an RT/DL/stop wakee: not the fair class's choice */
	SR_BY_VCPU_PACK,		/* the 6.18.44-fc sched_vcpu_pack prologue (vcpu_pack-6.18fc.c) */
	SR_BY_NR_DECIDERS
};

#define SR_STEP_MAXVALS	10
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

/*
 * What select_idle_sibling() leaves behind in the kernel: hints a later
 * wakeup reads.  The state follows the recorded kernel's by feeding back the
 * effects of the answer that matched what the kernel did.
 */
struct sr_sis_fx {
	int target;			/* select_idle_sibling()'s target, -1: not reached */
	int recent_used_cpu;		/* p->recent_used_cpu afterwards (-1: unknown) */
	bool cleared_idle_cores;	/* set_idle_cores(target, false) ran */
	int cpu_no_scan;		/* the answer an nr_idle_scan of 0 gives, when it differs */
	int no_scan_budget;		/* the greatest budget that gives it */
	int cpu_full_scan;		/* the answer a budget of the whole LLC gives, when the
					 * estimate was smaller and it differs */
	int full_scan_budget;		/* the least budget that gives it */
	int cpu_cores_no_scan;		/* the answer has_idle_cores set with a budget of 0
					 * gives, when the state's hint was a clear guess */
	/*
	 * And task_h_load()'s cache: the CPUs whose root h_load it read (the
	 * waker's for current under WF_SYNC, task_cpu(p)), -1 none.
	 */
	int h_load_cpu[2];
	/*
	 * sched_vcpu_pack (replay/vcpu_pack-6.18fc.c): the CPU it packed onto
	 * for room under the utilisation test, and the utilisation that would
	 * have left none (pack_need); the first CPU denied only by what earlier
	 * choices taught (sr_rq.util_taught), and how much less would have let
	 * it in (pack_excess).  -1: none.
	 */
	int pack_cpu, pack_need, pack_tight_cpu, pack_excess;
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
	/* wake_wide()'s answer, and whether the flips' bounds allow the other one */
	bool wide, wide_uncertain;
	/*
	 * The model showed the other wake_wide() answer gives this one and
	 * reads nothing more (the waker on prev): decide() does not replay it.
	 */
	bool wide_alt_same;
	int wide_alt_cpu;		/* choice with the other wake_wide() answer, or -1 */
	/*
	 * current->recent_used_cpu as the fast path left it (4.16 - 5.14: the
	 * waker's CPU under want_affine), -1 untouched; maybe: the other
	 * wake_wide() answer, which the flips allow, would leave it otherwise.
	 */
	int waker_recent_cpu;
	bool waker_recent_maybe;
	/* the answer came before record_wakee() (sched_vcpu_pack): the waker's flips stay */
	bool no_record_wakee;
	struct sr_sis_fx fx, alt_fx;	/* hints left under cpu's and alt_cpu's sync value */
	/*
	 * The inputs deciding an idle_stamp the trace leaves open that could
	 * turn the slow path's pick (replay/idle_stamp.c); decide() replays
	 * with that stamp's other values and counts them if the answer moves.
	 */
	unsigned int stamp_turns;
	struct sr_trail trail;
	/* replay/policy.c: the answers one decide()'s runs share; NULL outside it */
	struct sr_sis_memo *sis_memo;
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
	/* the label everywhere: the preset or release with its overrides, e.g.
	 * "linux-6.1:WA_IDLE=0", so that two variants of one preset stay apart */
	char name[192];
	const char *preset;		/* the preset whose model and defaults it runs */
	const char *kernel_range;	/* e.g. "6.0-6.5" */
	const struct sr_policy_ops *ops;
	struct sr_knobs knobs;
};

/*
 * Trail helpers: append a step; values follow as (name, value) pairs.  With
 * the trail off (bulk replay) sr_trail_add() returns NULL, which the value
 * helpers accept: models never dereference a step themselves.
 */
struct sr_step *sr_trail_append(struct sr_trail *t, const char *fn, const char *check,
				const char *result, int cpu);
void sr_step_add(struct sr_step *s, const char *name, int64_t v, bool is_unsigned);

/* Inline: a placement makes dozens of these calls, and in bulk replay every one is a no-op. */
static inline struct sr_step *sr_trail_add(struct sr_trail *t, const char *fn,
					   const char *check, const char *result, int cpu)
{
	return t && !t->off ? sr_trail_append(t, fn, check, result, cpu) : NULL;
}

static inline void sr_step_val(struct sr_step *s, const char *name, int64_t v)
{
	if (s)
		sr_step_add(s, name, v, false);
}

static inline void sr_step_uval(struct sr_step *s, const char *name, uint64_t v)
{
	if (s)
		sr_step_add(s, name, (int64_t)v, true);
}

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
/*
 * What the state follows of the reference's answer @d (replay/policy.c):
 * each WF_SYNC value's CPU and the hints it left, for src/state/follow.c.
 */
struct sr_ref;
void sr_policy_ref(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		   const struct sr_decision *d, struct sr_ref *ref);

/*
 * For explaining one wakeup: @pol's answer under each WF_SYNC value the
 * trace leaves open, each with its full trail.  One answer (@d[0]) when
 * ctx->sync is known; two (@d[0] without WF_SYNC, @d[1] with) when it is
 * not.  An answer the model refused has cpu -1.  Returns how many answers,
 * or -EINVAL.
 */
int sr_policy_decide_each(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			  struct sr_decision d[2]);

const char *sr_decider_name(enum sr_decider by);
const char *sr_dep_name(enum sr_dep dep);
/* What the input is and why the trace leaves it open, in a few words (explain's text). */
const char *sr_dep_gloss(enum sr_dep dep);
/* The names of the sr_dep bits set in @deps, as a JSON array. */
json_t *sr_deps_json(unsigned int deps);

/* ------------------------------------------------------------ presets */

/*
 * Named policies: a kernel version (optionally plus an unmerged patch) as a
 * model family (ops), the kernel version it selects variants by, and the
 * sched_features / sysctl values of that kernel.  Users pick one with a spec
 * "NAME[:KNOB=VALUE,...]", where NAME is a preset ("linux-6.1",
 * "linux-5.16+wakee-heavy") or a bare release ("6.1.12", "6.1.0-27-amd64",
 * "linux-6.3"): the nearest unpatched preset at or below it, with kver set to
 * the release's own major.minor so the era variants follow the real kernel.
 */
struct sr_preset {
	const char *name;		/* "linux-6.1", "linux-2.6.38+no-hot-affine" */
	const char *kernel_range;	/* releases it stands for, e.g. "6.1-6.5" */
	const char *parts;		/* which model functions, by era */
	const char *description;	/* one line */
	bool patched;			/* carries an unmerged patch: never picked for a release */
	const struct sr_policy_ops *ops;
	struct sr_knobs knobs;
};

enum sr_knob_kind {
	SR_KNOB_FEATURE,		/* a bit of sr_knobs.features; values 0/1 */
	SR_KNOB_INT,			/* an integer field of struct sr_knobs */
};

struct sr_knob_desc {
	const char *name;		/* as written in a spec: "WA_BIAS", "migration_cost" */
	enum sr_knob_kind kind;
	unsigned int feature;		/* SR_KNOB_FEATURE: enum sr_feature bit */
	size_t offset;			/* SR_KNOB_INT: offsetof(struct sr_knobs, field) */
	size_t size;			/* SR_KNOB_INT: sizeof the field (bool, int, int64_t) */
	int64_t min, max;		/* accepted values */
	unsigned int kver_min;		/* the knob exists (and a model reads it) in */
	unsigned int kver_max;		/*   kernels kver_min..kver_max (0: no upper end) */
	const char *description;
};

/* Presets and knobs in listing order; _at() returns NULL past the end. */
size_t sr_preset_count(void);
const struct sr_preset *sr_preset_at(size_t i);
const struct sr_preset *sr_preset_find(const char *name);
size_t sr_knob_count(void);
const struct sr_knob_desc *sr_knob_at(size_t i);
const struct sr_knob_desc *sr_knob_find(const char *name);

/* Whether @k exists for a policy modelling kernel @kver. */
bool sr_knob_applies(const struct sr_knob_desc *k, unsigned int kver);
/* Current value of @k in @knobs (features as 0/1).  0 or -EINVAL. */
int sr_knob_get(const struct sr_knobs *knobs, const struct sr_knob_desc *k, int64_t *val);
/* Set @k in @knobs (features take 0/1).  0, or -EINVAL when @v is out of range. */
int sr_knob_set(struct sr_knobs *knobs, const struct sr_knob_desc *k, int64_t v);

/*
 * Fill @pol from a spec such as "linux-6.1:WA_BIAS=0,migration_cost=250000".
 * Unknown preset or knob, a knob absent from that kernel, a value out of
 * range or malformed: -EINVAL, @pol untouched.
 */
int sr_policy_from_spec(struct sr_policy *pol, const char *spec);
/* The same, saying in @err (may be NULL) which part is wrong and why. */
int sr_policy_parse(struct sr_policy *pol, const char *spec, struct sr_err *err);

/*
 * The unpatched preset a `uname -r` release maps to ("6.18.44-fc-v782" ->
 * "linux-6.18", "2.6.38-rc1" -> "linux-2.6.38"), or NULL when it is older
 * than anything modelled or falls in a gap (3.1 - 4.13).
 */
const char *sr_preset_for_release(const char *uname_release);

/* ------------------------------------------------------------ load-balancer verdicts */

/*
 * Not placement models but the same kernel era's load-balancer arithmetic,
 * replayed by analyses on migrations the trace shows
 * (replay/llc_imbalance-wu-2025.c).
 */

/*
 * Load-balancer group types, in the kernel's order (6.6+; smt_balance is
 * absent before and never produced by the slow path).
 */
enum sr_group_type {
	SR_GROUP_HAS_SPARE,
	SR_GROUP_FULLY_BUSY,
	SR_GROUP_MISFIT_TASK,
	SR_GROUP_SMT_BALANCE,
	SR_GROUP_ASYM_PACKING,
	SR_GROUP_IMBALANCED,
	SR_GROUP_OVERLOADED,
};

/* sg_lb_stats as calculate_imbalance() reads them. */
struct sr_lb_group {
	unsigned int sum_nr_running;
	unsigned int idle_cpus;
	unsigned int group_weight;
	unsigned int cores;		/* sched_group->cores (6.6+); 0: group_weight */
	unsigned long group_capacity;
	unsigned long group_util;
	unsigned long group_runnable;
	bool type_given;		/* use @type instead of group_classify() */
	enum sr_group_type type;
};

/* One load-balance decision between the local and the busiest group of a domain. */
struct sr_llc_imb_in {
	unsigned int kver;		/* base kernel, >= 6.0 */
	struct sr_lb_group local, busiest;
	unsigned int sd_flags;		/* env->sd->flags */
	unsigned int sd_span_weight;
	unsigned int imbalance_pct;
	unsigned int imb_numa_nr;	/* env->sd->imb_numa_nr (SD_NUMA sd only) */
	bool has_child;
	unsigned int child_flags, child_span_weight;
	bool has_parent;
	unsigned int parent_flags;
	bool prefer_sibling;		/* sds->prefer_sibling: child has SD_PREFER_SIBLING */
	bool dst_idle;			/* env->idle != CPU_NOT_IDLE */
};

struct sr_llc_imb_verdict {
	enum sr_group_type local_type, busiest_type;
	bool reached;			/* the group_has_spare branch holding Wu's block ran */
	bool wu_applies;		/* child SD_SHARE_LLC, parent SD_NUMA, llc_nr > 1 */
	long imbalance;			/* before Wu's block and the final >>= 1 */
	int llc_nr, imb_nr;
	long mainline;			/* env->imbalance the kernel ends with */
	long patched;			/* the same with Wu's patch */
	bool kept;			/* mainline migrates, the patch keeps the imbalance */
	struct sr_trail trail;
};

/*
 * calculate_imbalance() of 6.x with and without Jianyong Wu's "sched/fair:
 * allow imbalance between LLCs under NUMA" (May 2025, never merged).  Pure;
 * returns 0, or -EINVAL on a NULL argument, kver < 6.0 or a zero
 * capacity/weight.
 */
int sr_llc_imbalance_wu(const struct sr_llc_imb_in *in, struct sr_llc_imb_verdict *v);

/* Fill @in's domain fields for level @level of @cpu (local/busiest untouched). */
int sr_llc_imb_domain(const struct sr_topo *t, int cpu, int level, unsigned int kver,
		      struct sr_llc_imb_in *in);

/* group_classify() of the 5.7+ balancer for the types plain statistics decide. */
enum sr_group_type sr_group_classify(unsigned int imbalance_pct, const struct sr_lb_group *g);

#endif /* SR_POLICY_H */


