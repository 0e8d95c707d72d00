// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/sched/fair.c: select_task_rq_fair(), 4.14 - 6.18.2, wrapped in
 * kernel/sched/core.c: select_task_rq() (4.4+: the class hook only for tasks
 * allowed on more than one CPU; select_fallback_rq() for a disallowed result).
 *
 * Wakeups: wake_wide() (wake_wide-4.3.c), wake_cap() (4.14 - 5.6, asymmetric
 * capacity only), the for_each_domain() walk for the lowest SD_WAKE_AFFINE
 * domain spanning prev (SD_LOAD_BALANCE still tested up to 5.9), wake_affine()
 * (wake_affine-4.14.c) when this != prev, then select_idle_sibling().
 * Fork/exec and any level with the wakeup's balance flag: find_idlest_cpu().
 *
 * Not modelled, unobservable in a trace or absent from the topologies we
 * build: WF_CURRENT_CPU (6.4+), find_energy_efficient_cpu() (EAS, 5.0+),
 * migration-disabled tasks (5.11+).  record_wakee() runs in the state, before
 * this (see models-affine.h).  4.16 - 5.14 also set the waker's own
 * recent_used_cpu in the fast path (32e839dda3ba, until 89aafd67f28c "Use
 * prev instead of new target as recent_used_cpu"): the decision says what it
 * left, the state keeps it.
 */
#include <errno.h>
#include "models.h"
#include "models-affine.h"

/* Capacity margin of wake_cap(): the task must fit in 80% of min_cap. */
#define SR_CAPACITY_MARGIN	1280UL

static int ctx_check(const struct sr_wake_ctx *ctx)
{
	int n;

	if (!ctx->topo || !ctx->rq || !ctx->p || !ctx->topo->cpu)
		return -EINVAL;
	n = ctx->topo->nr_cpus;
	/* 0 <= cpu < n as one unsigned compare each: this runs 2.4 times a placement */
	if ((unsigned int)ctx->this_cpu >= (unsigned int)n ||
	    (unsigned int)ctx->prev_cpu >= (unsigned int)n)
		return -EINVAL;
	if (ctx->kind != SR_WAKE_TTWU && ctx->kind != SR_WAKE_FORK && ctx->kind != SR_WAKE_EXEC)
		return -EINVAL;
	if (ctx->allowed) {
		int first = sr_mask_first(ctx->allowed);

		if (first < 0 || first >= n)
			return -EINVAL;
	}
	return 0;
}

static bool cpu_allowed(const struct sr_wake_ctx *ctx, int cpu)
{
	return !ctx->allowed || sr_mask_test(ctx->allowed, cpu);
}

/* p->nr_cpus_allowed: the mask when known, else the view's count (0: all). */
static int nr_cpus_allowed(const struct sr_wake_ctx *ctx)
{
	if (ctx->allowed)
		return sr_mask_weight(ctx->allowed);
	return ctx->p->nr_cpus_allowed ? ctx->p->nr_cpus_allowed : ctx->topo->nr_cpus;
}

static unsigned int sd_flag_of(enum sr_wake_kind kind)
{
	if (kind == SR_WAKE_FORK)
		return SD_BALANCE_FORK;
	if (kind == SR_WAKE_EXEC)
		return SD_BALANCE_EXEC;
	return SD_BALANCE_WAKE;
}

/* sync = WF_SYNC, minus an exiting waker from 4.16 (it will not sleep on us). */
static bool srqf_sync(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		      struct sr_decision *d)
{
	bool wf_sync = ctx->sync == SR_YES;
	bool exiting = ctx->curr && ctx->curr->exiting;
	bool new = pol->knobs.kver >= SR_KV(4, 16);
	bool sync = wf_sync && !(new && exiting);
	struct sr_step *s;

	s = sr_trail_add(&d->trail, "select_task_rq_fair",
			 new ? "(wake_flags & WF_SYNC) && !(current->flags & PF_EXITING)"
			     : "wake_flags & WF_SYNC", sync ? "sync" : "no sync", ctx->this_cpu);
	sr_step_val(s, "wf_sync", wf_sync);
	sr_step_val(s, "exiting", exiting);
	return sync;
}

static bool topo_asym(const struct sr_wake_ctx *ctx)
{
	const struct sr_cpu_topo *c = &ctx->topo->cpu[ctx->this_cpu];

	for (int i = 0; i < c->nr_levels; i++)
		if (c->sd[i].flags & SD_ASYM_CPUCAPACITY)
			return true;
	return false;
}

/*
 * wake_cap(), 4.14 - 5.6: no affine wakeup when the smaller of the two CPUs is
 * well below the biggest and the task does not fit it.  On symmetric machines
 * capacity_orig is equal everywhere and it returns 0; on asymmetric ones
 * sr_rq.capacity stands in for capacity_orig_of() and util_avg for util_est.
 */
static bool wake_cap_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			 struct sr_decision *d)
{
	long min_cap = SR_CAPACITY_SCALE, max_cap = SR_CAPACITY_SCALE;
	unsigned long util = ctx->p->util_avg;
	bool cap = false, fits_form = pol->knobs.kver >= SR_KV(4, 20);
	struct sr_step *s;

	if (pol->knobs.kver >= SR_KV(5, 7))
		return false;
	if (topo_asym(ctx)) {
		min_cap = (long)ctx->rq[ctx->prev_cpu].capacity;
		if ((long)ctx->rq[ctx->this_cpu].capacity < min_cap)
			min_cap = (long)ctx->rq[ctx->this_cpu].capacity;
		max_cap = 0;
		for (int i = 0; i < ctx->topo->nr_cpus; i++)
			if ((long)ctx->rq[i].capacity > max_cap)
				max_cap = (long)ctx->rq[i].capacity;
	}
	s = sr_trail_add(&d->trail, "wake_cap", "max_cap - min_cap < max_cap >> 3",
			 max_cap - min_cap < max_cap >> 3 ? "0" : "next", -1);
	sr_step_val(s, "min_cap", min_cap);
	sr_step_val(s, "max_cap", max_cap);
	if (max_cap - min_cap < max_cap >> 3)
		return false;
	if (fits_form)
		cap = !((unsigned long)min_cap * 1024 > util * SR_CAPACITY_MARGIN);
	else
		cap = (unsigned long)min_cap * 1024 < util * SR_CAPACITY_MARGIN;
	s = sr_trail_add(&d->trail, "wake_cap",
			 fits_form ? "!task_fits_capacity(p, min_cap)"
				   : "min_cap * 1024 < task_util(p) * capacity_margin",
			 cap ? "1" : "0", -1);
	sr_step_val(s, "min_cap", min_cap);
	sr_step_uval(s, "task_util", util);
	return cap;
}

/* want_affine and the inputs it adds under the other wake_wide() answer. */
struct wide_other {
	bool want_affine;
	unsigned int depends;
};

/*
 * want_affine for a wakeup; sets *why to the reason when it is false, and
 * *o to what the other wake_wide() answer would give here.
 */
static bool srqf_want_affine(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			     struct sr_decision *d, enum sr_decider *why, struct wide_other *o)
{
	bool wide = sr_wake_wide(pol, ctx, d);
	bool cap = wake_cap_414(pol, ctx, d);
	bool allowed = cpu_allowed(ctx, ctx->this_cpu);
	bool want = !wide && !cap && allowed;
	struct sr_step *s;

	s = sr_trail_add(&d->trail, "select_task_rq_fair",
			 "!wake_wide(p) && !wake_cap(p, cpu, prev_cpu) && "
			 "cpumask_test_cpu(cpu, p->cpus_ptr)", want ? "want_affine" : "no affine",
			 ctx->this_cpu);
	sr_step_val(s, "wake_wide", wide);
	sr_step_val(s, "wake_cap", cap);
	sr_step_val(s, "cpu_allowed", allowed);
	o->want_affine = wide && !cap && allowed;
	o->depends = !wide ? ctx->unknown & SR_DEP_TOPOLOGY :
		     !cap && !allowed ? ctx->unknown & SR_DEP_AFFINITY : 0;
	*why = SR_BY_NONE;
	if (wide) {
		*why = SR_BY_WAKE_WIDE;
		d->depends |= ctx->unknown & SR_DEP_TOPOLOGY;	/* sd_llc_size */
	} else if (!cap && !allowed) {
		*why = SR_BY_NOT_ALLOWED;
		d->depends |= ctx->unknown & SR_DEP_AFFINITY;
	}
	return want;
}

static const char *walk_result(bool affine, bool has_flag, bool want_affine)
{
	if (affine)
		return "affine domain";
	if (has_flag)
		return "sd = tmp";
	return want_affine ? "next" : "break";
}

/*
 * for_each_domain(cpu, tmp): the lowest SD_WAKE_AFFINE level spanning prev
 * (*affine), else the highest level of the run carrying @sd_flag (return).
 */
static int srqf_walk(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     unsigned int sd_flag, bool want_affine, int *affine, struct sr_trail *t)
{
	const struct sr_cpu_topo *c = &ctx->topo->cpu[ctx->this_cpu];
	int sd = -1;

	*affine = -1;
	for (int i = 0; i < c->nr_levels; i++) {
		const struct sr_domain *tmp = &c->sd[i];
		bool wa = tmp->flags & SD_WAKE_AFFINE;
		bool span = sr_mask_test(&tmp->span, ctx->prev_cpu);
		bool has_flag = tmp->flags & sd_flag;
		struct sr_step *s;

		if (pol->knobs.kver < SR_KV(5, 10) && !(tmp->flags & SD_LOAD_BALANCE))
			break;
		/* forks and execs never want affine: only the balance flag decides */
		s = sr_trail_add(t, "select_task_rq_fair", want_affine ?
				 "want_affine && (tmp->flags & SD_WAKE_AFFINE) && "
				 "cpumask_test_cpu(prev_cpu, sched_domain_span(tmp))" :
				 "tmp->flags & sd_flag",
				 walk_result(want_affine && wa && span, has_flag, want_affine), -1);
		sr_step_val(s, "level", i);
		sr_step_uval(s, "span_weight", tmp->span_weight);
		sr_step_val(s, "wake_affine", wa);
		sr_step_val(s, "prev_in_span", span);
		sr_step_val(s, "has_sd_flag", has_flag);
		if (want_affine && wa && span) {
			*affine = i;
			return -1;	/* prefer wake_affine over balance flags */
		}
		if (has_flag)
			sd = i;
		else if (!want_affine)
			break;
	}
	return sd;
}

/* The affine step at level @lvl; returns new_cpu for select_idle_sibling(). */
static int srqf_affine(const struct sr_policy *pol, const struct sr_wake_ctx *ctx, int lvl,
		       bool sync, struct sr_decision *d)
{
	const struct sr_domain *sd = &ctx->topo->cpu[ctx->this_cpu].sd[lvl];
	struct sr_step *s;

	s = sr_trail_add(&d->trail, "select_task_rq_fair", "cpu != prev_cpu",
			 ctx->this_cpu != ctx->prev_cpu ? "wake_affine" : "skip", ctx->prev_cpu);
	sr_step_val(s, "cpu", ctx->this_cpu);
	sr_step_val(s, "prev_cpu", ctx->prev_cpu);
	if (ctx->this_cpu == ctx->prev_cpu) {
		d->decided_by = SR_BY_SAME_CPU;
		return ctx->prev_cpu;
	}
	d->sync_used = true;	/* WF_SYNC matters only to wake_affine() */
	return sr_wake_affine_414(pol, ctx, sd, sync, d);
}

/* 4.16 - 5.14, after select_idle_sibling(): "if (want_affine) current->recent_used_cpu = cpu". */
static void waker_recent_416(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			     bool want_affine, struct sr_decision *d)
{
	struct sr_step *s;

	if (pol->knobs.kver < SR_KV(4, 16) || pol->knobs.kver >= SR_KV(5, 15))
		return;
	s = sr_trail_add(&d->trail, "select_task_rq_fair",
			 "want_affine -> current->recent_used_cpu = cpu", want_affine ? "set" : "kept",
			 ctx->this_cpu);
	sr_step_val(s, "want_affine", want_affine);
	if (want_affine)
		d->waker_recent_cpu = ctx->this_cpu;
	d->waker_recent_maybe = d->wide_uncertain;
}

/*
 * Whether the other wake_wide() answer, which the flips' bounds allow
 * (d->wide_uncertain), ends in this run's select_idle_sibling(prev, prev)
 * reading no input this run did not: decide() then need not replay it.
 * With the waker on prev, wake_affine() is never asked (srqf_affine()) and
 * WF_SYNC not read, so only the walk and want_affine's own inputs differ.
 */
static bool wide_alt_same(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			  unsigned int sd_flag, const struct wide_other *o,
			  const struct sr_decision *d)
{
	unsigned int deps = o->depends;
	int affine;

	if (ctx->this_cpu != ctx->prev_cpu || d->sync_used)
		return false;
	if (srqf_walk(pol, ctx, sd_flag, o->want_affine, &affine, NULL) >= 0)
		return false;	/* the slow path instead */
	if (o->want_affine && affine < 0)
		deps |= ctx->unknown & SR_DEP_TOPOLOGY;	/* no affine domain */
	return !(deps & ~d->depends);
}

static int select_task_rq_fair_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
				   struct sr_decision *d)
{
	bool wakeup = ctx->kind == SR_WAKE_TTWU, want_affine = false, sync = false;
	enum sr_decider why = SR_BY_NONE;
	int new_cpu = ctx->prev_cpu, sd, affine;
	struct wide_other other = { 0 };

	if (wakeup)
		sync = srqf_sync(pol, ctx, d);
	new_cpu = sr_vcpu_pack(pol, ctx, sync, d);
	if (new_cpu >= 0)
		return new_cpu;
	new_cpu = ctx->prev_cpu;
	if (wakeup) {
		want_affine = srqf_want_affine(pol, ctx, d, &why, &other);
	}
	sd = srqf_walk(pol, ctx, sd_flag_of(ctx->kind), want_affine, &affine, &d->trail);
	if (affine >= 0) {
		new_cpu = srqf_affine(pol, ctx, affine, sync, d);
	} else if (want_affine) {
		why = SR_BY_NO_AFFINE_DOMAIN;	/* e.g. far NUMA nodes */
		d->depends |= ctx->unknown & SR_DEP_TOPOLOGY;
	}
	if (sd >= 0) {
		d->decided_by = SR_BY_SLOW_PATH;
		return sr_find_idlest_cpu(pol, ctx, sd, ctx->prev_cpu, d);
	}
	if (!wakeup)
		return new_cpu;
	if (affine < 0)
		d->decided_by = why;
	new_cpu = sr_select_idle_sibling(pol, ctx, ctx->prev_cpu, new_cpu, d);
	waker_recent_416(pol, ctx, want_affine, d);
	if (d->wide_uncertain)
		d->wide_alt_same = wide_alt_same(pol, ctx, SD_BALANCE_WAKE, &other, d);
	return new_cpu;
}

/* select_fallback_rq(task_cpu(p)): an allowed CPU of prev's node first, else any. */
static int select_fallback_rq_414(const struct sr_wake_ctx *ctx, int cpu, struct sr_decision *d)
{
	const struct sr_topo *t = ctx->topo;
	int node = t->cpu[ctx->prev_cpu].node, dest = -1, i;
	struct sr_step *s;

	for (i = 0; i < t->nr_cpus && dest < 0; i++)
		if (t->cpu[i].node == node && cpu_allowed(ctx, i))
			dest = i;
	for (i = 0; i < t->nr_cpus && dest < 0; i++)
		if (cpu_allowed(ctx, i))
			dest = i;
	s = sr_trail_add(&d->trail, "select_task_rq", "!is_cpu_allowed(p, cpu)",
			 "select_fallback_rq", dest);
	sr_step_val(s, "cpu", cpu);
	sr_step_val(s, "node", node);
	d->decided_by = SR_BY_NOT_ALLOWED;
	return dest;
}

/* core.c select_task_rq(): a task allowed on one CPU never reaches the class. */
static int select_task_rq_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			      struct sr_decision *d)
{
	int nr = nr_cpus_allowed(ctx), cpu;
	struct sr_step *s;

	/* sched_exec() calls the class hook directly. */
	if (ctx->kind != SR_WAKE_EXEC) {
		s = sr_trail_add(&d->trail, "select_task_rq", "p->nr_cpus_allowed > 1",
				 nr > 1 ? "select_task_rq_fair" : "cpumask_any(p->cpus_ptr)", -1);
		sr_step_val(s, "nr_cpus_allowed", nr);
		if (nr <= 1) {
			d->decided_by = SR_BY_NOT_ALLOWED;
			d->depends |= ctx->unknown & SR_DEP_AFFINITY;
			return ctx->allowed ? sr_mask_first(ctx->allowed) : ctx->prev_cpu;
		}
	}
	cpu = select_task_rq_fair_414(pol, ctx, d);
	if (cpu < 0 || ctx->kind == SR_WAKE_EXEC || cpu_allowed(ctx, cpu))
		return cpu;
	return select_fallback_rq_414(ctx, cpu, d);
}

static int srqf_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		    struct sr_decision *d)
{
	int ret, cpu;

	if (!pol || !ctx || !d)
		return -EINVAL;
	ret = ctx_check(ctx);
	if (ret)
		return ret;
	cpu = select_task_rq_414(pol, ctx, d);
	if (cpu < 0)
		return cpu;
	if (cpu >= ctx->topo->nr_cpus)
		return -ERANGE;
	d->cpu = cpu;
	return 0;
}

const struct sr_policy_ops sr_srqf_414_ops = {
	.name = "select_task_rq_fair-4.14",
	.select_task_rq = srqf_414,
};
