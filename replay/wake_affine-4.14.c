// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/sched/fair.c: wake_affine(), wake_affine_idle(), wake_affine_weight()
 * and task_h_load(), as rewritten for 4.14 and kept through 6.18.2.
 *
 *   *_414()  4.14 - 4.15: bool form, "this_eff_load <= prev_eff_load",
 *            idle_cpu(this) alone makes the wakeup affine.
 *   *_416()  4.16 - 6.18: returns a CPU, strict "<", sync adds 1 to prev_eff_load,
 *            the idle-waker rule needs a shared LLC and prefers an idle prev;
 *            by pol->knobs.kver:
 *              4.18  available_idle_cpu() replaces idle_cpu()        [U; V 4.19]
 *              5.10  final "prev idle -> prev" rule                  [R 5.9 -> 5.11]
 *              6.16  sync test ignores delayed-dequeue entities      [V 6.18, not 6.12.0;
 *                    upstream aa3ee4f0b754 (v6.16-rc1), backported to 6.12.37]
 *
 * cpu_load(): runnable_load_avg up to 5.6 (target_load()/source_load() with
 * wake_idx 0, then cpu_runnable_load()), cfs_rq.avg.load_avg from 5.7.
 * task_h_load() descends from the root cfs_rq to the task's group (the
 * state's task groups, one level); the answer depends on SR_DEP_CGROUP when
 * the state only assumed the membership or the group's shares.
 */
#include <limits.h>
#include "models-affine.h"

/* idle_cpu(), 4.14 - 6.18: idle task current, nothing queued, no wakeup in flight. */
static bool idle_cpu_414(const struct sr_rq *rq)
{
	return sr_rq_idle(rq);
}

/* The idle test wake_affine_idle() uses: vCPU preemption counts from 4.18. */
static bool wa_idle(const struct sr_policy *pol, const struct sr_rq *rq)
{
	if (pol->knobs.kver < SR_KV(4, 18))
		return idle_cpu_414(rq);
	return idle_cpu_414(rq) && !rq->vcpu_preempted;
}

/* A true available_idle_cpu() could have been false on a preempted vCPU. */
static void dep_idle(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     struct sr_decision *d)
{
	if (pol->knobs.kver >= SR_KV(4, 18))
		d->depends |= ctx->unknown & SR_DEP_VCPU;
}

/*
 * cpu_load() of the era: runnable-only PELT up to 5.6, blocked load
 * included since; on a CPU busy when the trace began, with the guess of
 * what its past holds (sr_rq.pelt_pre_load).
 */
static unsigned long wa_cpu_load(const struct sr_policy *pol, const struct sr_rq *rq)
{
	if (pol->knobs.kver < SR_KV(5, 7))
		return rq->runnable_load_avg;
	return rq->load_avg + rq->pelt_pre_load;
}

unsigned long sr_task_h_load_414(unsigned long se_load_avg, const struct sr_hload_level *lv,
			      int nr)
{
	unsigned long h_load;

	if (!lv || nr < 1)
		return se_load_avg;
	h_load = lv[0].h_load;
	for (int i = 1; i < nr; i++)
		h_load = h_load * lv[i].gse_load_avg / (lv[i - 1].cfs_load_avg + 1);
	return se_load_avg * h_load / (lv[nr - 1].cfs_load_avg + 1);
}

/*
 * task_h_load(t) for a task on @cpu: the kernel's value when a probe
 * recorded it; else from the root cfs_rq down to the task's group's
 * (one level: nested groups are seen flat).  A root task's h_load is the
 * one update_cfs_rq_h_load() cached at the jiffy's first call (its
 * last_h_load_update, since commit 685207963be9 "sched: Move h_load
 * calculation to task_h_load()", 3.12), divided by the load_avg of now; a
 * group's is cached per group, which the state does not follow.
 */
static bool in_group(const struct sr_task_view *t, int cpu)
{
	return t->tg && cpu < t->tg->nr_cpus;
}

unsigned long sr_task_h_load_ctx(const struct sr_wake_ctx *ctx, const struct sr_task_view *t,
				 int cpu)
{
	const struct sr_rq *rq = &ctx->rq[cpu];
	struct sr_hload_level lv[2] = { {
		.cfs_load_avg = rq->load_avg,
		.h_load = rq->h_load_cached ? rq->h_load : rq->load_avg,
	} };

	if (!t)
		return 0;	/* no view of current: the idle task carries no load */
	if (t->h_load_known)
		return t->h_load;	/* the kernel's own, from a probe */
	if (!in_group(t, cpu))
		return sr_task_h_load_414(t->load_avg, lv, 1);
	lv[0].h_load = rq->load_avg;
	lv[1].cfs_load_avg = t->tg->cpu[cpu].load_avg;
	lv[1].gse_load_avg = t->tg->cpu[cpu].se_load_avg;
	return sr_task_h_load_414(t->load_avg, lv, 2);
}

/*
 * The root h_load sr_task_h_load_ctx() scaled a root task by on @cpu, when
 * the jiffy's cached value is not the cfs_rq's load of now (else ULONG_MAX):
 * the steps show it, or their task_load would not follow from the loads.
 */
static unsigned long cached_h_load(const struct sr_wake_ctx *ctx, const struct sr_task_view *t,
				   int cpu)
{
	const struct sr_rq *rq = &ctx->rq[cpu];

	if (!t || t->h_load_known || in_group(t, cpu) || !rq->h_load_cached ||
	    rq->h_load == rq->load_avg)
		return ULONG_MAX;
	return rq->h_load;
}

/* task_cpu(p): the cfs_rq p's h_load is read from. */
static int wakee_cpu(const struct sr_wake_ctx *ctx)
{
	int cpu = ctx->p->cpu;

	return (unsigned int)cpu < (unsigned int)ctx->topo->nr_cpus ? cpu : ctx->prev_cpu;
}

/* bias = 100 + (imbalance_pct - 100) / 2, in unsigned int as sd->imbalance_pct is. */
static unsigned int wa_bias(const struct sr_policy *pol, const struct sr_domain *sd)
{
	if (!(pol->knobs.features & SR_F_WA_BIAS))
		return 1;
	return 100 + (sd->imbalance_pct - 100) / 2;
}

int sr_wake_affine_idle_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx, bool sync,
			 struct sr_decision *d)
{
	const struct sr_rq *rq = &ctx->rq[ctx->this_cpu];
	bool idle = idle_cpu_414(rq), one = rq->nr_running == 1;
	struct sr_step *s;

	s = sr_trail_add(&d->trail, "wake_affine_idle", "idle_cpu(this_cpu)",
			 idle ? "affine" : "next", ctx->this_cpu);
	sr_step_uval(s, "nr_running", rq->nr_running);
	sr_step_val(s, "curr_pid", rq->curr_pid);
	if (idle) {
		d->decided_by = SR_BY_IDLE_WAKER;
		return ctx->this_cpu;
	}
	s = sr_trail_add(&d->trail, "wake_affine_idle", "sync && cpu_rq(this_cpu)->nr_running == 1",
			 sync && one ? "affine" : "none", ctx->this_cpu);
	sr_step_val(s, "sync", sync);
	sr_step_uval(s, "nr_running", rq->nr_running);
	if (!sync || !one)
		return SR_WA_NONE;
	d->decided_by = SR_BY_SYNC;
	return ctx->this_cpu;
}

/* The idle-waker rule of 4.16+: only within an LLC, and an idle prev wins. */
static int wa_idle_waker_416(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			     struct sr_decision *d)
{
	int this = ctx->this_cpu, prev = ctx->prev_cpu;
	bool avail = pol->knobs.kver >= SR_KV(4, 18);
	bool idle = wa_idle(pol, &ctx->rq[this]);
	bool share = sr_cpus_share_cache(ctx->topo, this, prev);
	bool prev_idle;
	struct sr_step *s;

	s = sr_trail_add(&d->trail, "wake_affine_idle", avail ?
			 "available_idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev_cpu)" :
			 "idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev_cpu)",
			 idle && share ? "idle waker" : "next", this);
	sr_step_val(s, "this_idle", idle);
	sr_step_val(s, "share_cache", share);
	if (idle)
		d->depends |= ctx->unknown & SR_DEP_TOPOLOGY;
	if (!idle || !share)
		return SR_WA_NONE;
	prev_idle = wa_idle(pol, &ctx->rq[prev]);
	s = sr_trail_add(&d->trail, "wake_affine_idle",
			 avail ? "available_idle_cpu(prev_cpu)" : "idle_cpu(prev_cpu)",
			 prev_idle ? "prev" : "this", prev_idle ? prev : this);
	sr_step_uval(s, "prev_nr_running", ctx->rq[prev].nr_running);
	dep_idle(pol, ctx, d);
	d->decided_by = prev_idle ? SR_BY_IDLE_PREV : SR_BY_IDLE_WAKER;
	return prev_idle ? prev : this;
}

/*
 * The sync test.  sr_rq.nr_running counts what the trace shows runnable, i.e.
 * without delayed-dequeue entities: what 6.16+ and 6.12.37+ compare (commit
 * aa3ee4f0b754 "sched/fair: Fixup wake_up_sync() vs DELAYED_DEQUEUE", v6.16-rc1,
 * in Debian's 6.12.117 among others).  6.12.0 - 6.12.36 and 6.13 - 6.15 count
 * the delayed ones: the rq->maybe_delayed dependency below covers them too,
 * and the 6.12 preset's trail names the LTS form (the release's sublevel is
 * not kept, so 6.12.y before the backport reads the same).  Still, on 6.12.117 under QEMU, hackbench pipe wakeups that the
 * kernel's own WF_SYNC (probe traces) and this runqueue say pass went to
 * the waker's CPU only 113 times in 272: unexplained, so a pass where
 * tasks slept on this CPU while another was runnable (rq->maybe_delayed)
 * depends on SR_DEP_DELAYED_DEQUEUE on every 6.12+ kernel.
 */
static bool wa_sync_one_416(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			    bool sync, struct sr_decision *d)
{
	const struct sr_rq *rq = &ctx->rq[ctx->this_cpu];
	bool delayed_aware = pol->knobs.kver >= SR_KV(6, 16) ||
			     (pol->knobs.kver >= SR_KV(6, 12) && pol->knobs.kver < SR_KV(6, 13));
	bool pass = sync && rq->nr_running == 1;
	struct sr_step *s;

	s = sr_trail_add(&d->trail, "wake_affine_idle",
			 delayed_aware ? "sync && rq->nr_running - cfs_h_nr_delayed(rq) == 1"
				       : "sync && cpu_rq(this_cpu)->nr_running == 1",
			 pass ? "this" : "next", ctx->this_cpu);
	sr_step_val(s, "sync", sync);
	sr_step_uval(s, "nr_running", rq->nr_running);
	if (pass && rq->maybe_delayed && pol->knobs.kver >= SR_KV(6, 12))
		d->depends |= ctx->unknown & SR_DEP_DELAYED_DEQUEUE;
	return pass;
}

int sr_wake_affine_idle_416(const struct sr_policy *pol, const struct sr_wake_ctx *ctx, bool sync,
			 struct sr_decision *d)
{
	int prev = ctx->prev_cpu, cpu;
	bool prev_idle;
	struct sr_step *s;

	cpu = wa_idle_waker_416(pol, ctx, d);
	if (cpu != SR_WA_NONE)
		return cpu;
	if (wa_sync_one_416(pol, ctx, sync, d)) {
		d->decided_by = SR_BY_SYNC;
		return ctx->this_cpu;
	}
	if (pol->knobs.kver < SR_KV(5, 10))
		return SR_WA_NONE;
	/* 5.10+: an idle prev keeps the task whatever the LLC relation. */
	prev_idle = wa_idle(pol, &ctx->rq[prev]);
	s = sr_trail_add(&d->trail, "wake_affine_idle", "available_idle_cpu(prev_cpu)",
			 prev_idle ? "prev" : "none", prev);
	sr_step_uval(s, "prev_nr_running", ctx->rq[prev].nr_running);
	sr_step_val(s, "prev_curr_pid", ctx->rq[prev].curr_pid);
	if (!prev_idle)
		return SR_WA_NONE;
	dep_idle(pol, ctx, d);
	d->decided_by = SR_BY_IDLE_PREV;
	return prev;
}

/*
 * Inputs of the weight test the trace cannot pin down.  Task groups'
 * loads are the state's approximation of calc_group_shares() and the
 * group entities' PELT: a comparison that reads them is never certain.
 */
static void dep_weight(const struct sr_wake_ctx *ctx, struct sr_decision *d)
{
	d->depends |= ctx->unknown & (SR_DEP_CGROUP | SR_DEP_PELT_WARMUP);
	if (ctx->rq[ctx->this_cpu].pelt_cold || ctx->rq[ctx->prev_cpu].pelt_cold)
		d->depends |= SR_DEP_PELT_WARMUP;
	if (ctx->p->tg || (ctx->curr && ctx->curr->tg) ||
	    ctx->rq[ctx->this_cpu].group_load_avg || ctx->rq[ctx->prev_cpu].group_load_avg)
		d->depends |= SR_DEP_CGROUP;
}

/*
 * The four loads the weight test reads are the state's PELT estimates:
 * each may be off by ctx->load_error_pct either way (measured against the
 * kernel's own numbers on probe traces: probes.cpu_load_error).  Since the
 * test subtracts (this - current, prev - task), a small error on an input
 * can be a large one on a side, so the band is carried through the
 * arithmetic: the answer depends on the estimate when the box of inputs
 * holds a point where the kernel answers the other way.
 */
struct wa_in {
	unsigned long this_load, cur_load, task_load, prev_load;	/* cur_load 0 without sync */
	unsigned long prev_stale;	/* prev_load had no assumed nohz update run (else equal) */
	unsigned long cur_h_load, task_h_load;	/* cached root h_load read, or ULONG_MAX */
	unsigned long cap_this, cap_prev;
	unsigned int bias;		/* 100 + (imbalance_pct - 100) / 2, or 1 without WA_BIAS */
	bool wa_bias, sync, le;
};

/* affine at a point of the box, in the kernel's order of tests (ties: see wa_weight_eff()) */
static bool wa_affine_at(const struct wa_in *in, double tl, double cl, double kl, double pl)
{
	double te, pe;

	if (in->sync && cl > tl)
		return true;
	te = (tl - cl + kl) * (in->wa_bias ? 100.0 : 1.0) * (double)in->cap_prev;
	pe = (pl - kl) * (double)in->bias * (double)in->cap_this;
	return in->le || in->sync ? te <= pe : te < pe;
}

/* The corner of the box that favours the other answer, prev's load taken as @pl. */
static bool band_turns(const struct wa_in *in, bool affine, double up, double pl)
{
	double dn = 1.0 / up;
	double tl = (double)in->this_load, cl = (double)in->cur_load, kl = (double)in->task_load;

	/* it moves each input one way */
	if (affine)
		return !wa_affine_at(in, tl * up, cl * dn, kl * up, pl * dn);
	return wa_affine_at(in, tl * dn, cl * up, kl * dn, pl * up);
}

static void dep_weight_band(const struct wa_in *in, bool affine, unsigned int pct,
			    struct sr_decision *d)
{
	double up = 1.0 + pct / 100.0;

	if (!pct)
		return;
	/* ... and for an idle prev whose blocked load the kernel may not have brought down */
	if (band_turns(in, affine, up, (double)in->prev_load) ||
	    (in->prev_stale != in->prev_load && band_turns(in, affine, up, (double)in->prev_stale)))
		d->depends |= SR_DEP_LOAD_ESTIMATE;
}

/*
 * The sync shortcut and subtraction shared by both forms.  Returns true when
 * current alone outweighs this CPU (affine at once); else *this_load is reduced.
 */
static bool wa_weight_sync(const struct wa_in *in, int this_cpu, int64_t *this_load,
			   struct sr_decision *d)
{
	struct sr_step *s;
	bool heavier;

	if (!in->sync)
		return false;
	/* unsigned long vs s64: compared as unsigned, as in the kernel */
	heavier = in->cur_load > (unsigned long)*this_load;
	s = sr_trail_add(&d->trail, "wake_affine_weight", "current_load > this_eff_load",
			 heavier ? "this" : "subtract", this_cpu);
	sr_step_uval(s, "current_load", in->cur_load);
	if (in->cur_h_load != ULONG_MAX)
		sr_step_uval(s, "this_h_load", in->cur_h_load);
	sr_step_val(s, "this_eff_load", *this_load);
	*this_load = (int64_t)((uint64_t)*this_load - in->cur_load);
	return heavier;
}

/*
 * Both sides of the weight test with the kernel's wrapping s64 arithmetic;
 * @in->le selects the 4.14 "<=" form (no sync tie-break).  True: affine.
 */
static bool wa_weight_eff(const struct sr_wake_ctx *ctx, const struct wa_in *in,
			  int64_t this_load, struct sr_decision *d)
{
	int this = ctx->this_cpu, prev = ctx->prev_cpu;
	int64_t te, pe;
	uint64_t t, p;
	bool affine;
	struct sr_step *s;

	t = (uint64_t)this_load + in->task_load;
	if (in->wa_bias)
		t *= 100;
	t *= in->cap_prev;
	p = (uint64_t)in->prev_load - in->task_load;
	p *= in->bias;
	p *= in->cap_this;
	if (in->sync && !in->le)
		p += 1;		/* 4.16+: a sync tie goes to the waker's CPU */
	te = (int64_t)t;
	pe = (int64_t)p;
	affine = in->le ? te <= pe : te < pe;
	s = sr_trail_add(&d->trail, "wake_affine_weight",
			 in->le ? "this_eff_load <= prev_eff_load" : "this_eff_load < prev_eff_load",
			 affine ? "this" : "none", affine ? this : prev);
	sr_step_val(s, "this_eff_load", te);
	sr_step_val(s, "prev_eff_load", pe);
	sr_step_val(s, "this_load", this_load);
	sr_step_uval(s, "prev_load", in->prev_load);
	if (in->prev_stale != in->prev_load)	/* the update read may not have run */
		sr_step_uval(s, "prev_load_last_seen", in->prev_stale);
	sr_step_uval(s, "task_load", in->task_load);
	if (in->task_h_load != ULONG_MAX)
		sr_step_uval(s, "task_cpu_h_load", in->task_h_load);
	sr_step_uval(s, "bias", in->bias);
	sr_step_uval(s, "capacity_this", in->cap_this);
	sr_step_uval(s, "capacity_prev", in->cap_prev);
	if (in->wa_bias)
		d->depends |= ctx->unknown & SR_DEP_TOPOLOGY;	/* imbalance_pct */
	return affine;
}

/* The inputs of the weight test, read once: the test and its band use them. */
static struct wa_in wa_inputs(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			      const struct sr_domain *sd, bool sync, bool le)
{
	int this = ctx->this_cpu, prev = ctx->prev_cpu;
	unsigned long prev_load = wa_cpu_load(pol, &ctx->rq[prev]);

	return (struct wa_in){
		.this_load = wa_cpu_load(pol, &ctx->rq[this]),
		.cur_load = sync ? sr_task_h_load_ctx(ctx, ctx->curr, this) : 0,
		.task_load = sr_task_h_load_ctx(ctx, ctx->p, wakee_cpu(ctx)),
		.cur_h_load = sync ? cached_h_load(ctx, ctx->curr, this) : ULONG_MAX,
		.task_h_load = cached_h_load(ctx, ctx->p, wakee_cpu(ctx)),
		.prev_load = prev_load,
		/* blocked load is in cpu_load() from 5.7 */
		.prev_stale = ctx->rq[prev].load_refreshed && pol->knobs.kver >= SR_KV(5, 7) ?
			      ctx->rq[prev].load_avg_unrefreshed : prev_load,
		.cap_this = ctx->rq[this].capacity,
		.cap_prev = ctx->rq[prev].capacity,
		.bias = wa_bias(pol, sd),
		.wa_bias = pol->knobs.features & SR_F_WA_BIAS,
		.sync = sync, .le = le,
	};
}

static int wa_weight(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     const struct sr_domain *sd, bool sync, struct sr_decision *d, bool le)
{
	struct wa_in in;
	int64_t this_load;
	bool affine;

	if (!sd)
		return SR_WA_NONE;
	dep_weight(ctx, d);
	in = wa_inputs(pol, ctx, sd, sync, le);
	this_load = (int64_t)in.this_load;
	/* task_h_load(current) first; task_h_load(p) only past the sync return */
	if (sync && ctx->curr)
		d->fx.h_load_cpu[0] = ctx->this_cpu;
	if (wa_weight_sync(&in, ctx->this_cpu, &this_load, d)) {
		dep_weight_band(&in, true, ctx->load_error_pct, d);
		d->decided_by = SR_BY_SYNC;
		return ctx->this_cpu;
	}
	d->fx.h_load_cpu[1] = wakee_cpu(ctx);
	affine = wa_weight_eff(ctx, &in, this_load, d);
	dep_weight_band(&in, affine, ctx->load_error_pct, d);
	d->decided_by = SR_BY_WEIGHT;
	return affine ? ctx->this_cpu : SR_WA_NONE;
}

int sr_wake_affine_weight_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   const struct sr_domain *sd, bool sync, struct sr_decision *d)
{
	return wa_weight(pol, ctx, sd, sync, d, true);
}

int sr_wake_affine_weight_416(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   const struct sr_domain *sd, bool sync, struct sr_decision *d)
{
	return wa_weight(pol, ctx, sd, sync, d, false);
}

/* How wake_affine() maps its result; 6.8's form only changed schedstats [R 6.0 -> 6.8]. */
static const char *wa_final_check(unsigned int kver)
{
	if (kver < SR_KV(4, 16))
		return "affine ? this_cpu : prev_cpu";
	if (kver < SR_KV(6, 8))
		return "target == nr_cpumask_bits ? prev_cpu : target";
	return "target != this_cpu ? prev_cpu : this_cpu";
}

int sr_wake_affine_414(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		    const struct sr_domain *sd, bool sync, struct sr_decision *d)
{
	bool old = pol->knobs.kver < SR_KV(4, 16);
	unsigned int f = pol->knobs.features;
	int target = SR_WA_NONE, cpu;
	struct sr_step *s;

	if (f & SR_F_WA_IDLE)
		target = old ? sr_wake_affine_idle_414(pol, ctx, sync, d)
			     : sr_wake_affine_idle_416(pol, ctx, sync, d);
	if ((f & SR_F_WA_WEIGHT) && target == SR_WA_NONE)
		target = old ? sr_wake_affine_weight_414(pol, ctx, sd, sync, d)
			     : sr_wake_affine_weight_416(pol, ctx, sd, sync, d);
	cpu = target == SR_WA_NONE ? ctx->prev_cpu : target;
	/* Both runqueues were read: either may not have been re-established. */
	if (ctx->rq[ctx->this_cpu].uncertain || ctx->rq[ctx->prev_cpu].uncertain)
		d->depends |= SR_DEP_LOST_EVENTS;
	s = sr_trail_add(&d->trail, "wake_affine", wa_final_check(pol->knobs.kver),
			 cpu == ctx->this_cpu ? "this" : "prev", cpu);
	sr_step_val(s, "wa_idle", !!(f & SR_F_WA_IDLE));
	sr_step_val(s, "wa_weight", !!(f & SR_F_WA_WEIGHT));
	return cpu;
}
