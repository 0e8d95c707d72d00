// SPDX-License-Identifier: GPL-2.0
/* Policy plumbing: trails, the sync fan-out, names for reports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "models.h"

struct sr_step *sr_trail_append(struct sr_trail *t, const char *fn, const char *check,
				const char *result, int cpu)
{
	struct sr_step *s;

	/* A full trail reuses its last slot so the final step is never lost. */
	if (t->n >= SR_TRAIL_MAX) {
		t->truncated = true;
		s = &t->steps[SR_TRAIL_MAX - 1];
	} else {
		s = &t->steps[t->n++];
	}
	s->fn = fn;
	s->check = check;
	s->result = result;
	s->cpu = cpu;
	s->nvals = 0;
	return s;
}

void sr_step_add(struct sr_step *s, const char *name, int64_t v, bool is_unsigned)
{
	if (s->nvals >= SR_STEP_MAXVALS)
		return;
	s->vals[s->nvals].name = name;
	s->vals[s->nvals].v = v;
	s->vals[s->nvals].is_unsigned = is_unsigned;
	s->nvals++;
}

/* Only the header is reset: a trail's steps are written before they are read. */
void sr_decision_reset(struct sr_decision *d, bool quiet)
{
	d->cpu = -1;
	d->alt_cpu = -1;
	d->sync_assumed = false;
	d->sync_used = false;
	d->decided_by = SR_BY_NONE;
	d->depends = 0;
	d->determined = false;
	d->wide = d->wide_uncertain = d->wide_alt_same = false;
	d->wide_alt_cpu = -1;
	d->waker_recent_cpu = -1;
	d->waker_recent_maybe = false;
	d->no_record_wakee = false;
	d->fx = (struct sr_sis_fx){ .target = -1, .recent_used_cpu = -1, .cpu_no_scan = -1,
				  .cpu_full_scan = -1, .cpu_cores_no_scan = -1, .h_load_cpu = { -1, -1 },
				  .pack_cpu = -1, .pack_tight_cpu = -1 };
	d->alt_fx = d->fx;
	d->stamp_turns = 0;
	d->trail.n = 0;
	d->trail.truncated = false;
	d->trail.off = quiet;
	d->sis_memo = NULL;
}

/*
 * One run of the model under @sync, set in @c: the caller's own copy of the
 * context, which its runs share (a copy per run cost more than the run's
 * bookkeeping).  @memo: the answers this decide()'s runs share.
 */
static int decide_once(const struct sr_policy *pol, struct sr_wake_ctx *c,
		       enum sr_tristate sync, struct sr_decision *d, bool quiet,
		       struct sr_sis_memo *memo)
{
	int ret;

	c->sync = sync;
	sr_decision_reset(d, quiet);
	d->sis_memo = memo;
	ret = pol->ops->select_task_rq(pol, c, d);
	if (!ret)
		sr_select_task_rq_allowed(c, d);
	return ret;
}

/* Inputs every answer depends on when the context lacks them, whatever decided it. */
#define SR_DEP_ANY_ANSWER	(SR_DEP_LOST_EVENTS | SR_DEP_DECISION_TIME | SR_DEP_KERNEL_PATCHES)

/* An RT/DL/stop wakee: select_task_rq() asks its own class, which is not modelled. */
static int not_fair(struct sr_decision *d, bool quiet)
{
	sr_decision_reset(d, quiet);
	sr_trail_add(&d->trail, "select_task_rq", "p->sched_class == &fair_sched_class",
		     "another class: select_task_rq_rt/dl() is not modelled", -1);
	d->decided_by = SR_BY_NOT_FAIR;
	return 0;
}

/*
 * core.c select_task_rq() asks no class about a task allowed on one CPU
 * (and select_task_rq_rt()/_stop() of every era return task_cpu(p) for
 * one): an RT or stop wakee bound to its CPU, such as migration/N, stays.
 */
static int pinned_not_fair(const struct sr_wake_ctx *ctx, struct sr_decision *d, bool quiet)
{
	struct sr_step *s;

	sr_decision_reset(d, quiet);
	d->cpu = ctx->allowed ? sr_mask_first(ctx->allowed) : ctx->prev_cpu;
	s = sr_trail_add(&d->trail, "select_task_rq", "p->nr_cpus_allowed > 1",
			 "cpumask_any(p->cpus_ptr): the class is not asked", d->cpu);
	sr_step_val(s, "nr_cpus_allowed", 1);
	sr_select_task_rq_allowed(ctx, d);
	d->alt_cpu = d->cpu;
	d->decided_by = SR_BY_NOT_ALLOWED;
	d->depends = ctx->unknown & (SR_DEP_AFFINITY | SR_DEP_ANY_ANSWER);
	d->determined = d->depends == 0;
	return 0;
}

/*
 * wake_wide() read counters the trace does not pin (inherited from before
 * it, or a decay a tick from ours): replay with the other answer, under
 * the primary sync value and, when the trace does not record WF_SYNC, the
 * other one too — the wide road may never read sync while the affine one
 * turns on it (wake_affine_idle()'s sync test), so only the pair of
 * unknowns together can move the task.  The input matters if the CPU
 * changes; that answer's own unknowns always.
 */
static int wide_alt(const struct sr_policy *pol, struct sr_wake_ctx *c,
		    enum sr_tristate sync, struct sr_decision *d, unsigned int dep,
		    struct sr_decision *alt)
{
	int ret = decide_once(pol, c, sync, alt, true, d->sis_memo);

	if (ret)
		return ret;
	d->depends |= alt->depends | alt->stamp_turns;
	if (alt->cpu != d->cpu) {
		d->depends |= dep;
		d->wide_alt_cpu = alt->cpu;	/* the evidence weigh_wide() learns from */
	}
	return 0;
}

/*
 * Under the other wake_wide() answer, the CPU for each WF_SYNC value: the
 * flips matter where it differs from that value's own answer (d->cpu,
 * d->alt_cpu), WF_SYNC where the two differ from each other (decide() has
 * compared d->cpu and d->alt_cpu).  A wide road that never read sync gives
 * one CPU for both: the flips alone move the task there, not the flag
 * (6.12 hackbench: WF_SYNC and none both put the wakee on the waker's CPU,
 * wide on prev; labelled sync, 829 of the sync class's 3,155 misses).
 * @c: decide()'s copy of ctx, its force_wide set here and put back.
 */
static int wide_what_if(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			struct sr_wake_ctx *c, struct sr_decision *d)
{
	struct sr_decision alt;
	enum sr_tristate primary;
	int ret, cpu;

	if (!d->wide_uncertain || d->wide_alt_same)
		return 0;
	c->force_wide = d->wide ? -1 : 1;
	primary = ctx->sync != SR_UNKNOWN ? ctx->sync : d->sync_assumed ? SR_YES : SR_NO;
	ret = wide_alt(pol, c, primary, d, SR_DEP_WAKEE_FLIPS, &alt);
	if (!ret && ctx->sync == SR_UNKNOWN && alt.sync_used) {
		cpu = alt.cpu;
		ret = decide_once(pol, c, primary == SR_YES ? SR_NO : SR_YES, &alt, true,
				  d->sis_memo);
		if (!ret) {
			d->depends |= alt.depends | alt.stamp_turns;
			if (alt.cpu != cpu)
				d->depends |= SR_DEP_SYNC;
		}
	}
	c->force_wide = ctx->force_wide;
	if (ret || ctx->sync != SR_UNKNOWN)
		return ret;
	if (alt.cpu != d->alt_cpu)
		d->depends |= SR_DEP_WAKEE_FLIPS;
	return 0;
}

/*
 * The replay of a what-if about another wakeup's timing, on the runqueues
 * the caller edited in ctx->rq_scratch: if the answer moves, it depends on
 * when that wakeup reached its CPU.  @memo: NULL where the edit is one the
 * select_idle_sibling() memo's key does not see.
 */
static int concurrent_alt(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			  struct sr_decision *d, struct sr_sis_memo *memo)
{
	struct sr_wake_ctx c = *ctx;
	struct sr_decision alt;
	enum sr_tristate sync;
	int ret;

	c.rq = ctx->rq_scratch;
	c.in_flight = NULL;
	c.wl_doubt = NULL;
	sync = ctx->sync != SR_UNKNOWN ? ctx->sync : d->sync_assumed ? SR_YES : SR_NO;
	ret = decide_once(pol, &c, sync, &alt, true, memo);
	if (!ret && alt.cpu != d->cpu)
		d->depends |= SR_DEP_CONCURRENT;
	return ret;
}

/*
 * Another wakeup was being enqueued on some CPUs at this moment: replay
 * with those runqueues holding it (its ttwu_do_activate() done) and, if the
 * answer moves, the kernel's could have too.
 */
static int flight_what_if(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			  struct sr_decision *d)
{
	int cpu;

	if (!ctx->in_flight || !ctx->rq_scratch || sr_mask_first(ctx->in_flight) < 0)
		return 0;
	memcpy(ctx->rq_scratch, ctx->rq, (size_t)ctx->topo->nr_cpus * sizeof(*ctx->rq));
	sr_for_each_cpu(cpu, ctx->in_flight)
		if (cpu < ctx->topo->nr_cpus) {
			ctx->rq_scratch[cpu].nr_running++;
			ctx->rq_scratch[cpu].cfs_nr_running++;
		}
	return concurrent_alt(pol, ctx, d, d->sis_memo);
}

/*
 * Wakelists the state took as filled before the kernel is shown to have
 * queued them: replay with them empty (the memo's key does not hold
 * ttwu_pending) and, if the answer moves, it depends on when that other
 * wakeup was queued.
 */
static int wakelist_what_if(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			    struct sr_decision *d)
{
	int cpu;

	if (!ctx->wl_doubt || !ctx->rq_scratch || (d->depends & SR_DEP_CONCURRENT) ||
	    sr_mask_first(ctx->wl_doubt) < 0)
		return 0;
	memcpy(ctx->rq_scratch, ctx->rq, (size_t)ctx->topo->nr_cpus * sizeof(*ctx->rq));
	sr_for_each_cpu(cpu, ctx->wl_doubt)
		if (cpu < ctx->topo->nr_cpus)
			ctx->rq_scratch[cpu].ttwu_pending = false;
	return concurrent_alt(pol, ctx, d, NULL);
}

/*
 * An idle CPU's stamp the trace leaves open (src/state/stamp.c) could turn
 * the slow path's pick (d->stamp_turns): replay with the open stamps at
 * each value where a comparison can flip (replay/idle_stamp.c), and count
 * the inputs deciding them if the answer moves.  Past the grid's limits
 * they count.
 */
static int stamp_what_if(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			 struct sr_decision *d)
{
	struct sr_wake_ctx c;
	struct sr_stamp_grid g;
	struct sr_decision alt;
	enum sr_tristate sync;
	int ret;

	if (!d->stamp_turns)
		return 0;
	if (!ctx->rq_scratch || !sr_stamp_grid_init(&g, ctx)) {
		d->depends |= d->stamp_turns;
		return 0;
	}
	if (!g.n)
		return 0;	/* no open stamp orders otherwise: as read */
	c = *ctx;
	c.rq = ctx->rq_scratch;
	sync = ctx->sync != SR_UNKNOWN ? ctx->sync : d->sync_assumed ? SR_YES : SR_NO;
	for (bool first = true; sr_stamp_grid_next(&g, ctx, first); first = false) {
		/* no memo: its answers are keyed by the scratch runqueues, changed here */
		ret = decide_once(pol, &c, sync, &alt, true, NULL);
		if (ret)
			return ret;
		if (alt.cpu != d->cpu) {
			d->depends |= d->stamp_turns;
			break;
		}
	}
	return 0;
}

static int decide(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		  struct sr_decision *d, bool quiet, bool share)
{
	struct sr_sis_memo memo, *shared = share ? &memo : NULL;
	enum sr_tristate guess;
	struct sr_decision alt;
	struct sr_wake_ctx c;
	int ret;

	if (!pol || !pol->ops || !pol->ops->select_task_rq || !ctx || !d)
		return -EINVAL;
	c = *ctx;	/* the runs below set its sync (and force_wide); the what-ifs read ctx's */
	memo.n = 0;	/* the entries are written before they are read */
	if (ctx->p && ctx->p->policy == SR_SCHED_RT)
		return ctx->p->nr_cpus_allowed == 1 ? pinned_not_fair(ctx, d, quiet)
						    : not_fair(d, quiet);
	if (ctx->sync != SR_UNKNOWN) {
		ret = decide_once(pol, &c, ctx->sync, d, quiet, shared);
		d->sync_assumed = false;
		goto out;
	}
	guess = ctx->sync_guess == SR_YES ? SR_YES : SR_NO;
	ret = decide_once(pol, &c, guess, d, quiet, shared);
	if (ret) {
		d->sis_memo = NULL;
		return ret;
	}
	d->sync_assumed = guess == SR_YES;
	if (!d->sync_used) {
		d->alt_cpu = d->cpu;	/* the model never read WF_SYNC: same either way */
		d->alt_fx = d->fx;
		goto out;
	}
	/* The trail of the other run is not kept: only its answer matters here. */
	ret = decide_once(pol, &c, guess == SR_YES ? SR_NO : SR_YES, &alt, true, shared);
	if (!ret) {
		d->alt_cpu = alt.cpu;
		d->alt_fx = alt.fx;
		if (alt.cpu != d->cpu)
			d->depends |= SR_DEP_SYNC;
		d->depends |= alt.depends | alt.stamp_turns;
	}
out:
	if (!ret)
		ret = wide_what_if(pol, ctx, &c, d);
	if (!ret)
		ret = flight_what_if(pol, ctx, d);
	if (!ret)
		ret = wakelist_what_if(pol, ctx, d);
	if (!ret)
		ret = stamp_what_if(pol, ctx, d);
	d->depends |= ctx->unknown & SR_DEP_ANY_ANSWER;
	d->determined = d->depends == 0;
	d->sis_memo = NULL;
	return ret;
}

int sr_policy_decide(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     struct sr_decision *d)
{
	return decide(pol, ctx, d, false, true);
}

int sr_policy_decide_quiet(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   struct sr_decision *d)
{
	return decide(pol, ctx, d, true, true);
}

int sr_policy_decide_unshared(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			      struct sr_decision *d)
{
	return decide(pol, ctx, d, true, false);
}

int sr_policy_decide_each(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			  struct sr_decision d[2])
{
	static const enum sr_tristate both[2] = { SR_NO, SR_YES };
	int n = ctx && ctx->sync == SR_UNKNOWN ? 2 : 1;

	if (!ctx || !d)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		struct sr_wake_ctx c = *ctx;

		if (n == 2)
			c.sync = both[i];
		if (decide(pol, &c, &d[i], false, true))
			d[i].cpu = -1;
	}
	return n;
}

/*
 * What the state learns from the reference's answer @d (the recorded
 * kernel's own model, @pol) once the kernel's choice is known
 * (src/state/follow.c): each WF_SYNC value's CPU and the hints it left.
 */
void sr_policy_ref(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		   const struct sr_decision *d, struct sr_ref *ref)
{
	int k = d->sync_assumed ? 1 : 0;
	const struct sr_sis_fx *fx[2];

	if (d->cpu < 0)
		return;
	fx[k] = &d->fx;
	fx[!k] = &d->alt_fx;
	ref->valid = true;
	ref->cpu[k] = (int16_t)d->cpu;
	ref->cpu[!k] = (int16_t)(ctx->sync == SR_UNKNOWN ? d->alt_cpu : d->cpu);
	for (int i = 0; i < 2; i++) {
		ref->recent_used_cpu[i] = (int16_t)fx[i]->recent_used_cpu;
		ref->cleared_idle_cores[i] = (int16_t)(fx[i]->cleared_idle_cores &&
			fx[i]->target >= 0 ? ctx->topo->cpu[fx[i]->target].llc_id : -1);
		ref->no_scan_cpu[i] = (int16_t)fx[i]->cpu_no_scan;
		ref->no_scan_budget[i] = (int16_t)fx[i]->no_scan_budget;
		ref->full_scan_cpu[i] = (int16_t)fx[i]->cpu_full_scan;
		ref->full_scan_budget[i] = (int16_t)fx[i]->full_scan_budget;
		ref->cores_no_scan_cpu[i] = (int16_t)fx[i]->cpu_cores_no_scan;
		ref->scan_llc[i] = (int16_t)(fx[i]->target >= 0 ?
					     ctx->topo->cpu[fx[i]->target].llc_id : -1);
		ref->pack_cpu[i] = (int16_t)fx[i]->pack_cpu;
		ref->pack_need[i] = fx[i]->pack_need;
		ref->pack_tight_cpu[i] = (int16_t)fx[i]->pack_tight_cpu;
		ref->pack_excess[i] = fx[i]->pack_excess;
	}
	ref->stores_prev = pol->knobs.kver >= SR_KV(5, 15);
	/* flips that allowed either wake_wide() answer: the kernel's choice tells (hints.c) */
	ref->wide_alt_cpu = (int16_t)d->wide_alt_cpu;
	ref->primary_wide = d->wide;
	ref->no_record_wakee = d->no_record_wakee;
	ref->pack_doubt = d->depends & (SR_DEP_CONCURRENT | SR_DEP_DECISION_TIME |
					SR_DEP_LOST_EVENTS);
	ref->wide_factor = (uint16_t)sr_llc_size(ctx->topo, ctx->this_cpu);
	ref->h_load_cpu[0] = (int16_t)d->fx.h_load_cpu[0];
	ref->h_load_cpu[1] = (int16_t)d->fx.h_load_cpu[1];
	ref->waker_recent_cpu = (int16_t)d->waker_recent_cpu;
	ref->waker_recent_maybe = d->waker_recent_maybe;
}

static const char *const decider_names[SR_BY_NR_DECIDERS] = {
	[SR_BY_NONE] = "none",
	[SR_BY_NOT_ALLOWED] = "not_allowed",
	[SR_BY_NO_AFFINE_DOMAIN] = "no_affine_domain",
	[SR_BY_SAME_CPU] = "waker_is_prev",
	[SR_BY_WAKE_WIDE] = "wake_wide",
	[SR_BY_IDLE_WAKER] = "idle_waker",
	[SR_BY_IDLE_PREV] = "idle_prev",
	[SR_BY_SYNC] = "sync",
	[SR_BY_WEIGHT] = "weight",
	[SR_BY_TASK_HOT] = "task_hot",
	[SR_BY_SIS_TARGET] = "sis_target",
	[SR_BY_SIS_PREV] = "sis_prev",
	[SR_BY_SIS_RECENT] = "sis_recent_used_cpu",
	[SR_BY_SIS_CORE] = "sis_idle_core",
	[SR_BY_SIS_CPU] = "sis_idle_cpu",
	[SR_BY_SIS_SMT] = "sis_idle_smt",
	[SR_BY_SLOW_PATH] = "find_idlest",
	[SR_BY_NOT_FAIR] = "not_fair_class",
	[SR_BY_VCPU_PACK] = "vcpu_pack",
};

const char *sr_decider_name(enum sr_decider by)
{
	if ((unsigned int)by >= SR_BY_NR_DECIDERS)
		return "invalid";
	return decider_names[by];
}

const char *sr_dep_name(enum sr_dep dep)
{
	switch (dep) {
	case SR_DEP_SYNC: return "sync";
	case SR_DEP_CGROUP: return "cgroup_shares";
	case SR_DEP_PELT_WARMUP: return "pelt_warmup";
	case SR_DEP_DELAYED_DEQUEUE: return "delayed_dequeue";
	case SR_DEP_VCPU: return "vcpu_preemption";
	case SR_DEP_LOST_EVENTS: return "lost_events";
	case SR_DEP_TOPOLOGY: return "topology_assumed";
	case SR_DEP_SCAN_COST: return "scan_cost";
	case SR_DEP_IDLE_HINT: return "idle_hint";
	case SR_DEP_AFFINITY: return "affinity";
	case SR_DEP_RECENT_CPU: return "recent_used_cpu";
	case SR_DEP_IDLE_STAMP: return "idle_stamp";
	case SR_DEP_LOAD_ESTIMATE: return "load_estimate";
	case SR_DEP_WAKEE_FLIPS: return "wakee_flips";
	case SR_DEP_DECISION_TIME: return "decision_time";
	case SR_DEP_CONCURRENT: return "concurrent_wakeup";
	case SR_DEP_KERNEL_PATCHES: return "kernel_patches";
	case SR_DEP_IDLE_STATE: return "idle_state";
	case SR_DEP_SILENT_CPU: return "silent_cpu";
	}
	return "invalid";
}

/* One line a reader of explain can act on: what the input is, and why it is unknown. */
const char *sr_dep_gloss(enum sr_dep dep)
{
	switch (dep) {
	case SR_DEP_SYNC: return "whether the waker passed WF_SYNC (no event records the flag)";
	case SR_DEP_CGROUP: return "task group shares, which scale task_h_load() and cpu_load()";
	case SR_DEP_PELT_WARMUP: return "PELT averages of a task or CPU seen too briefly to settle";
	case SR_DEP_DELAYED_DEQUEUE:
		return "sleepers 6.12+ may keep queued (DELAY_DEQUEUE), counted in nr_running";
	case SR_DEP_VCPU: return "whether the host had preempted a vCPU (vcpu_is_preempted())";
	case SR_DEP_LOST_EVENTS: return "events lost nearby: some runqueue is uncertain";
	case SR_DEP_TOPOLOGY: return "the machine's topology, assumed flat (pass --topology)";
	case SR_DEP_SCAN_COST: return "the idle scan's budget (avg_scan_cost against avg_idle)";
	case SR_DEP_IDLE_HINT: return "the LLC's idle hints (has_idle_cores, nr_idle_scan)";
	case SR_DEP_AFFINITY: return "the task's allowed CPUs";
	case SR_DEP_RECENT_CPU: return "p->recent_used_cpu, set before the trace began";
	case SR_DEP_IDLE_STAMP: return "when the idle CPUs were stamped idle (rq->idle_stamp)";
	case SR_DEP_LOAD_ESTIMATE: return "a load comparison closer than the reconstruction's error";
	case SR_DEP_WAKEE_FLIPS:
		return "wake_wide()'s wakee_flips, inherited or decayed at an unseen jiffy";
	case SR_DEP_DECISION_TIME:
		return "the moment of the selection, which the trace does not pin, runqueues changing "
		       "meanwhile";
	case SR_DEP_CONCURRENT: return "another wakeup being enqueued on a CPU the answer read";
	case SR_DEP_KERNEL_PATCHES: return "scheduler patches of this kernel that no model has";
	case SR_DEP_IDLE_STATE: return "the idle CPUs' cpuidle states (their exit latency)";
	case SR_DEP_SILENT_CPU:
		return "whether a CPU without any event in the trace was idle or ran one task throughout";
	}
	return "invalid";
}

json_t *sr_deps_json(unsigned int deps)
{
	json_t *a = json_array();

	for (int bit = 0; a && bit < SR_NR_DEPS; bit++)
		if (deps & (1u << bit))
			json_array_append_new(a, json_string(sr_dep_name(1u << bit)));
	return a;
}
