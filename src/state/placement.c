// SPDX-License-Identifier: GPL-2.0
/*
 * One placement replayed: the context select_task_rq_fair() (or
 * wake_up_new_task(), sched_exec()) would read — the runqueues of the CPUs
 * it looks at brought up to date, the task as the kernel holds it, the CPUs
 * it may use, the inputs the trace leaves open — handed to the policies,
 * and what their answers teach the state taken back.  Wakeups, forks and
 * execs (wakeup.c, exec.c) come here.
 */
#include <errno.h>
#include <stdlib.h>
#include "state-priv.h"

/*
 * A probe recorded the wakeup's WF_SYNC: unless only measuring, the
 * waker's evidence learns it and the models read it as a fact.
 */
static void probe_sync(struct sr_state *s, struct sr_task *p, struct sr_task *waker,
		       struct sr_wake_ctx *ctx)
{
	enum sr_tristate truth = ctx->kind == SR_WAKE_TTWU ? sr_st_probe_sync(s, p) : SR_UNKNOWN;

	if (truth == SR_UNKNOWN)
		return;
	if (s->cfg.probes_measure_only)
		return;
	sr_st_sync_learn(s, waker, p, truth == SR_YES);
	ctx->sync = truth;
	ctx->sync_guess = truth;
	ctx->sync_source = SR_SYNC_SRC_PROBE;
}

/*
 * Bring up to date what the models read.  A wakeup reads this CPU's and
 * prev's LLCs only (wake_affine(), select_idle_sibling() of either), unless
 * a domain balances on wakeups (SD_BALANCE_WAKE: the slow path) or task
 * groups spread the load over every CPU; a fork or exec reads the machine
 * (find_idlest_group()).  The same in every mode, so that explain and
 * analyze compute one answer.
 */
static void refresh(struct sr_state *s, enum sr_wake_kind kind, int this_cpu, int prev,
		    uint64_t since)
{
	const struct sr_topo *t = s->cfg.topo;
	int c;

	if (kind != SR_WAKE_TTWU || s->nr_groups || s->wake_balance ||
	    !sr_st_cpu_ok(s, this_cpu)) {
		sr_st_cpu_advance_all(s);
		sr_st_groups_fill(s);
		sr_st_fill_llc_hints(s, -1, -1, since);
		return;
	}
	sr_for_each_cpu(c, &t->cpu[this_cpu].llc)
		sr_st_cpu_advance(s, c, s->now);
	if (t->cpu[prev].llc_id != t->cpu[this_cpu].llc_id)
		sr_for_each_cpu(c, &t->cpu[prev].llc)
			sr_st_cpu_advance(s, c, s->now);
	sr_st_fill_llc_hints(s, this_cpu, prev, since);
}

/*
 * The CPUs @p may be placed on.  wake_up_new_task() reads the cpus_mask
 * dup_task_struct() copied from the parent: a mask of the child's own (the
 * snapshot's: a thread's pthread_setaffinity_np(), taskset's) is set once
 * the child runs, so its fork is placed under its parent's.  A task
 * allowed one CPU is bound there (a per-CPU kthread only once it has slept:
 * kthread_bind() follows its creation).
 */
static const struct sr_cpumask *placement_mask(const struct sr_state *s, const struct sr_task *p,
					       enum sr_wake_kind kind, int *nr_allowed)
{
	const struct sr_cpumask *m = p->parent_allowed;

	*nr_allowed = p->v.nr_cpus_allowed;
	if (kind == SR_WAKE_FORK && p->own_allowed && p->allowed == p->own_allowed) {
		*nr_allowed = m ? sr_mask_weight(m) : 0;
		return *nr_allowed == 1 ? &s->one_cpu[sr_mask_first(m)] : m;
	}
	if (p->bound_cpu >= 0 && (kind != SR_WAKE_FORK || !p->kthread_bound))
		return &s->one_cpu[p->bound_cpu];
	return p->allowed;
}

/* CPUs busy when the trace began read as cold until their warm-up is over (sr_rq.pelt_cold). */
static void warm_up(struct sr_state *s)
{
	if (!s->pelt_cold_until)
		return;
	for (int c = 0; c < s->cfg.nr_cpus; c++)
		s->rq[c].pelt_cold = s->now < s->cpu[c].pelt_known_ts;
	if (s->now >= s->pelt_cold_until)
		s->pelt_cold_until = 0;
}

/*
 * An answer on a CPU without any event in the trace took it idle, and one
 * where such a CPU, allowed to the task, is held busy (follow.c,
 * sr_st_follow_silent()) took that guess: both depend on silent_cpu.
 */
static void silent_depends(const struct sr_state *s, struct sr_brief *dec,
			   const struct sr_cpumask *allowed)
{
	if (!s->nr_silent || !dec)
		return;
	if (allowed ? sr_mask_intersects(&s->silent_busy, allowed) :
		      sr_mask_weight(&s->silent_busy) > 0) {
		sr_st_dec_depends(s, dec, SR_DEP_SILENT_CPU);
		return;
	}
	for (int i = 0; i < s->cfg.nr_policies; i++) {
		int cpu = dec[i].cpu;

		if (sr_st_cpu_ok(s, cpu) && s->rq[cpu].silent) {
			dec[i].depends |= SR_DEP_SILENT_CPU;
			dec[i].determined = false;
		}
	}
}

/*
 * Run the policies at the moment of a placement, their answers into *@decp.
 * Wakeups: this_cpu is the waking CPU and prev the task's CPU.  Forks
 * (wake_up_new_task()): both are the parent's CPU, where sched_fork() put
 * the child, and there is no sync.  Execs (sched_exec()): both are the
 * task's own CPU, where it runs.
 */
int sr_st_run_placement_by(struct sr_state *s, struct sr_task *p, struct sr_task *waker,
			   const struct sr_event *ev, enum sr_wake_kind kind, int prev,
			   struct sr_brief **decp, unsigned int unknown)
{
	struct sr_task_view pv;
	struct sr_wake_ctx ctx;
	struct sr_ref ref = { .valid = false };
	int ret;

	if (!s->cfg.hooks.placement || !s->cfg.nr_policies || !sr_st_cpu_ok(s, prev))
		return 0;	/* --policy none: before the context is built */
	ctx = (struct sr_wake_ctx){
		.now = s->now, .ts = ev->ts, .kind = kind, .this_cpu = ev->cpu, .prev_cpu = prev,
		.sync = kind == SR_WAKE_TTWU ? SR_UNKNOWN : SR_NO, .p = &pv,
		.rq = s->rq, .rq_scratch = s->rq_scratch, .llc = s->llc, .topo = s->cfg.topo,
		.in_task = !ev->irq_context,
		.load_error_pct = SR_LOAD_ERROR_PCT,
		.curr_percpu_kthread = waker && waker->kthread_bound,
	};
	ctx.sync_guess = kind == SR_WAKE_TTWU ? sr_st_sync_guess(s, waker, p, ev, &ctx.sync_source) :
						SR_NO;
	if (!*decp) {
		*decp = calloc(s->cfg.nr_policies, sizeof(**decp));
		if (!*decp)
			return -ENOMEM;
	}
	p->pend_placed_ts = s->now;
	warm_up(s);
	refresh(s, kind, ev->cpu, prev, p->probe.valid ? p->probe.ts : UINT64_MAX);
	if (kind == SR_WAKE_TTWU)
		sr_st_probe_cpu_loads(s, p, ev->cpu);
	/* the family share of both counts: a replay ahead of the probe's record_wakee() needs it */
	sr_st_flips_sync(s, p);
	sr_st_flips_sync(s, waker);
	if (waker) {
		sr_st_task_pelt(s, waker, s->now);
		ctx.curr = &waker->v;
	}
	sr_st_kernel_view(p, &pv);	/* after the waker's update: an exec's task is the waker */
	ctx.allowed = placement_mask(s, p, kind, &pv.nr_cpus_allowed);
	p->own_unset &= kind != SR_WAKE_TTWU;	/* its first wakeup: the mask of its own is set */
	/*
	 * A per-CPU kthread is named at its fork but bound only once it sleeps
	 * (kthread_create_on_cpu(): kthread_bind() after the creation): its
	 * wake_up_new_task() may place it anywhere kthreadd may run.
	 */
	if (kind == SR_WAKE_FORK && p->kthread_bound)
		pv.nr_cpus_allowed = 0;
	ctx.unknown = SR_DEP_IDLE_HINT | SR_DEP_SCAN_COST | unknown;
	if (!sr_st_group_known(s, p) || (waker && waker->v.pid > 0 && !sr_st_group_known(s, waker)))
		ctx.unknown |= SR_DEP_CGROUP;
	if (!p->v.pelt_warm || (waker && !waker->v.pelt_warm))
		ctx.unknown |= SR_DEP_PELT_WARMUP;
	if (s->cfg.topo->source == SR_TOPO_ASSUMED_FLAT)
		ctx.unknown |= SR_DEP_TOPOLOGY;
	if (s->nr_doubtful)	/* some rq uncertain or idle_unrecorded */
		ctx.unknown |= SR_DEP_LOST_EVENTS;
	if (sr_st_flights(s))
		ctx.in_flight = &s->flight_mask;
	if (sr_st_wl_doubts(s))
		ctx.wl_doubt = &s->wl_doubt_mask;
	if (sr_st_met_lost_window(ev, ev->ts))
		ctx.unknown |= SR_DEP_LOST_EVENTS;
	if (s->cfg.delayed_dequeue)
		ctx.unknown |= SR_DEP_DELAYED_DEQUEUE;
	if (s->cfg.kernel_patched)
		ctx.unknown |= SR_DEP_KERNEL_PATCHES;
	if (s->cfg.idle_states)
		ctx.unknown |= SR_DEP_IDLE_STATE;
	if (s->hotplugged) {
		ctx.inactive = &s->inactive;
		ctx.offline = &s->offline;
		ctx.p_percpu_kthread = p->kthread_bound;
	}
	p->pend_guess = ctx.sync_guess;
	probe_sync(s, p, waker, &ctx);
	ret = s->cfg.hooks.placement(s->cfg.hooks.data, &ctx, *decp, &ref);
	if (kind == SR_WAKE_TTWU && waker != p)
		sr_st_waker_recent(waker, &ref, ev->cpu);
	sr_st_conc_hold(s, p, *decp, kind);
	if (kind == SR_WAKE_TTWU)
		sr_st_idle_watch(s, p);
	/*
	 * 6.12+: a task that slept next to a runnable one may have stayed
	 * queued (a delayed dequeue): then ttwu_runnable() kept it, no CPU
	 * was selected at all.
	 */
	if (kind == SR_WAKE_TTWU && p->pend_descheduled && s->cfg.delayed_dequeue)
		sr_st_dec_depends(s, *decp, SR_DEP_DELAYED_DEQUEUE);
	silent_depends(s, *decp, ctx.allowed);
	p->pend_ref = ref;
	for (int i = 0; ref.valid && i < 2; i++)
		if (sr_st_cpu_ok(s, ref.h_load_cpu[i]))
			sr_st_h_load_read(s, ref.h_load_cpu[i]);
	sr_st_probe_done(p, waker);
	return ret;
}

int sr_st_run_placement(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
			enum sr_wake_kind kind, int prev, struct sr_brief **decp, unsigned int unknown)
{
	return sr_st_run_placement_by(s, p, sr_st_waker(s, ev->common_pid, ev->cpu), ev, kind, prev,
				      decp, unknown);
}
