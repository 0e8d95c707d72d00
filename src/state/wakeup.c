// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeups: each sched_waking opens a wakeup, classified by the task's state
 * (a sleeping task is placed: the policies run now, on the context the
 * kernel's select_task_rq_fair() would read); the next sched_wakeup of the
 * same pid closes it with the CPU the kernel chose.  Fork placements
 * (sched_wakeup_new) are replayed too and reported apart.
 */
#include <errno.h>
#include <stdlib.h>
#include "state-priv.h"

static enum sr_wclass classify(const struct sr_task *t)
{
	switch (t->state) {
	case SR_T_SLEEPING:
		return SR_W_PLACED;
	case SR_T_RUNNING:
	case SR_T_QUEUED:
		return SR_W_RUNNABLE;
	default:
		return SR_W_UNKNOWN;
	}
}

/* record_wakee() as the kernel does it; the heavy-waker counters first (they share the stamp). */
void sr_st_track_wakee(struct sr_state *s, struct sr_task *waker, struct sr_task *p, int cpu)
{
	uint64_t jiffies = sr_st_jiffies(s);
	int llc = sr_llc_size(s->cfg.topo, cpu);
	uint64_t stamp = waker->v.wakee_flip_decay_ts;

	sr_st_flips_sync(s, waker);
	sr_st_flips_sync(s, p);
	sr_record_wakee_heavy(&waker->v, &p->v, jiffies, (unsigned int)s->cfg.hz, llc);
	sr_record_wakee(&waker->v, &p->v, jiffies, (unsigned int)s->cfg.hz, llc);
	if (waker->v.wakee_flip_decay_ts != stamp)
		sr_st_flips_halved(waker);
}

/*
 * ttwu_queue(): a wakeup to another CPU that is idle (6.0+, f3dd3f674555) or in another
 * LLC goes through that CPU's wakelist, and the target reads as busy
 * (rq->ttwu_pending) until it runs the list and emits sched_wakeup there
 * — milliseconds on an overcommitted VM.  Until a sched_migrate_task names
 * the target, the task is assumed to stay on prev.
 */
void sr_st_ttwu_unmark(struct sr_state *s, struct sr_task *p)
{
	int cpu = p->pend_ttwu_cpu;

	sr_st_flight_unmark(s, p);
	if (cpu < 0)
		return;
	p->pend_ttwu_cpu = -1;
	s->rq_changed_ts = s->now;	/* idle_cpu() reads it: exec.c */
	if (s->cpu[cpu].ttwu_pending) {
		s->nr_wl--;
		if (!--s->cpu[cpu].ttwu_pending)
			s->rq[cpu].ttwu_pending = false;
	}
}

/* @p waits on @cpu's wakelist (after sr_st_ttwu_unmark()). */
static void wakelist_mark(struct sr_state *s, struct sr_task *p, int cpu)
{
	p->pend_ttwu_cpu = cpu;
	s->rq_changed_ts = s->now;
	s->cpu[cpu].ttwu_pending++;
	s->cpu[cpu].wl_pid = p->v.pid;
	s->nr_wl++;
	s->rq[cpu].ttwu_pending = true;
}

/*
 * @p's try_to_wake_up() returned on its waker's CPU with no sched_wakeup:
 * ttwu_queue() did not enqueue it there and then (ttwu_do_activate() emits
 * sched_wakeup at once), it queued it on the target's wakelist — the target
 * had nothing running when ttwu_queue_cond() read it (6.0+), though its
 * sched_switch to idle came later.  The target reads busy (ttwu_pending)
 * until its own sched_wakeup, not only for a flight's millisecond.
 */
void sr_st_ttwu_went_remote(struct sr_state *s, struct sr_task *p)
{
	int cpu = p->pend_flight_cpu;

	if (cpu < 0 || cpu == p->pend_cpu || p->pend_ttwu_cpu >= 0)
		return;
	sr_st_flight_unmark(s, p);
	wakelist_mark(s, p, cpu);
}

static void ttwu_mark(struct sr_state *s, struct sr_task *p, int waker_cpu, int target)
{
	const struct sr_rq *rq;

	sr_st_ttwu_unmark(s, p);
	if (!sr_st_cpu_ok(s, target) || !sr_st_cpu_ok(s, waker_cpu))
		return;
	rq = &s->rq[target];
	if (target == waker_cpu ||
	    ((rq->curr_pid || rq->nr_running || !s->cfg.ttwu_idle_wakelist) &&
	     sr_cpus_share_cache(s->cfg.topo, waker_cpu, target))) {
		sr_st_flight_mark(s, p, target);
		return;
	}
	wakelist_mark(s, p, target);
}

/*
 * record_wakee() runs inside select_task_rq_fair() only: not for a task
 * pinned to one CPU (4.9+) nor for another class's task.
 */
static bool reaches_fair_class(const struct sr_task *p)
{
	return p->bound_cpu < 0 && p->v.policy != SR_SCHED_RT;
}

/*
 * sr_st_place_deferred() with the waker of p->pend_ev found already.  The
 * placement reads p->pend_ev in place (only a sched_waking or a deschedule
 * writes it, never a placement): a copy was 240 bytes a wakeup.
 */
static int place_deferred(struct sr_state *s, struct sr_task *p, struct sr_task *waker)
{
	const struct sr_event *ev = &p->pend_ev;
	int cpu = ev->cpu, target = ev->target_cpu;
	int ret;

	p->pend_deferred = false;
	ret = sr_st_run_placement_by(s, p, waker, ev, SR_WAKE_TTWU, target, &p->dec, 0);
	if (p->probe.valid && p->probe.ret_cpu >= 0 && p->probe.ret_cpu != target)
		sr_st_ttwu_unmark(s, p);
	else
		ttwu_mark(s, p, cpu, target);
	return ret;
}

/* What record_wakee() changes on the waker and (heavy coupling) the wakee. */
struct flips_saved {
	unsigned int flips, min, max, heavy, wakee_heavy;
	uint64_t decay_ts;
	int last_wakee;
};

static void flips_save(const struct sr_task *w, const struct sr_task *p, struct flips_saved *f)
{
	*f = (struct flips_saved){ w->v.wakee_flips, w->v.wakee_flips_min, w->v.wakee_flips_max,
				   w->v.wakee_flips_heavy, p->v.wakee_flips_heavy,
				   w->v.wakee_flip_decay_ts, w->v.last_wakee };
}

/*
 * The 6.18.44-fc sched_vcpu_pack prologue answers before record_wakee():
 * the kernel left the waker's flips as they were (a halving it did not
 * make stays undone in the family's books: the next record_wakee() makes it).
 */
static void flips_restore(struct sr_task *w, struct sr_task *p, const struct flips_saved *f)
{
	w->v.wakee_flips = f->flips;
	w->v.wakee_flips_min = f->min;
	w->v.wakee_flips_max = f->max;
	w->v.wakee_flips_heavy = f->heavy;
	p->v.wakee_flips_heavy = f->wakee_heavy;
	w->v.wakee_flip_decay_ts = f->decay_ts;
	w->v.last_wakee = f->last_wakee;
}

/*
 * select_task_rq_fair() runs for @p's pending wakeup: record_wakee() for
 * its waker, then the replay — at once, or at the kernel's own call that
 * a probe trace shows (with its record_wakee() as well).
 */
static int select_begins(struct sr_state *s, struct sr_task *p)
{
	struct sr_task *waker = sr_st_waker(s, p->pend_waker, p->pend_cpu);
	bool tracked = waker && waker != p && reaches_fair_class(p) && !s->cfg.has_select_probe;
	struct flips_saved saved;
	int ret;

	if (tracked) {
		flips_save(waker, p, &saved);
		sr_st_track_wakee(s, waker, p, p->pend_cpu);
	}
	p->pend_deferred = true;
	p->probe.valid = false;
	if (s->cfg.has_select_probe && !s->cfg.probes_measure_only)
		return 0;
	ret = place_deferred(s, p, waker);
	if (tracked && p->pend_ref.valid && p->pend_ref.no_record_wakee)
		flips_restore(waker, p, &saved);
	return ret;
}

/*
 * A task first seen at its sched_waking, most likely asleep (below): before
 * DELAY_DEQUEUE (6.12, 152e11f6df29) select_task_rq_fair() ran, and its
 * record_wakee() (3.12 - 6.11): the waker's flip, or the halving that sets
 * its decay phase.  Since, it may be a delayed sleeper ttwu_runnable()
 * wakes with no selection: counted there, 6.12 lost 569 placed wakeups
 * (only where a migration proved the selection: 3).  make fidelity 6.1 +8.
 */
static void unknown_selected(struct sr_state *s, struct sr_task *p)
{
	struct sr_task *waker;

	if (s->cfg.delayed_dequeue || s->cfg.has_select_probe || !reaches_fair_class(p))
		return;
	waker = sr_st_waker(s, p->pend_waker, p->pend_cpu);
	if (waker && waker != p)
		sr_st_track_wakee(s, waker, p, p->pend_cpu);
}

int sr_st_on_waking(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = sr_st_task_get(s, ev->pid);
	int ret;

	if (!p)
		return 0;
	/* a task stopping itself: sched_exec() has just chosen (exec.c) */
	ret = sr_st_exec_self_stop(s, ev);
	if (ret)
		return ret;
	sr_st_ttwu_unmark(s, p);
	sr_st_delayed_clear(s, p);
	p->pend_deferred = false;
	if (p->pending)
		s->wc.unpaired++;
	sr_st_set_comm(s, p, ev->comm);
	sr_st_task_set_prio(s, p, ev->prio);
	sr_st_task_pelt(s, p, s->now);
	p->pending = true;
	p->pend_ts = ev->ts;
	p->pend_cpu = ev->cpu;
	p->pend_prev = ev->target_cpu;
	p->pend_waker = ev->common_pid;
	p->pend_cls = classify(p);
	p->pend_guess = SR_UNKNOWN;
	p->pend_migrations = 0;
	p->pend_prev_idle = sr_st_cpu_ok(s, ev->target_cpu) && !s->rq[ev->target_cpu].curr_pid &&
			    !s->rq[ev->target_cpu].nr_running;
	p->pend_ref.valid = false;
	p->pend_followed = false;
	p->pend_wl_shown = false;
	p->pend_ev = *ev;		/* a running task's wakeup may become a placement */
	p->pend_descheduled = false;
	p->pend_wakelist = SR_WL_NONE;
	if (p->pend_cls == SR_W_PLACED)
		ret = select_begins(s, p);
	s->cpu[ev->cpu].ttwu_pid = p->pend_cls == SR_W_PLACED ? p->v.pid : -1;
	/*
	 * A task first seen now (it predates the trace, or lost events hid it)
	 * is most likely asleep: ttwu_queue() queues it to prev's wakelist as a
	 * placed wakeup (rq->ttwu_pending, read by idle_cpu()) until its
	 * sched_wakeup or a sched_migrate_task naming another target.  64-vCPU
	 * 6.12 srrec_scan-own.dat 96.5 -> 98.2 %; make fidelity 6.12 +42, 6.1 +9.
	 */
	if (p->pend_cls == SR_W_UNKNOWN) {
		unknown_selected(s, p);
		ttwu_mark(s, p, ev->cpu, ev->target_cpu);
	}
	if (p->pend_ttwu_cpu < 0 && p->pend_flight_cpu < 0)
		sr_st_flight_mark(s, p, ev->target_cpu);
	return ret;
}

/*
 * The deferred placement replays; the task is then taken to be queued to
 * prev.  Not when a probe's srqf_ret named another CPU: try_to_wake_up()
 * queues the task to the CPU it selected (ttwu_queue() after
 * set_task_cpu(); rq->ttwu_pending, 126c2092e5c8, is that CPU's), so
 * nothing waits on prev, and the target is marked at the
 * sched_migrate_task — which a vCPU stalled in between delays by
 * milliseconds.
 */
int sr_st_place_deferred(struct sr_state *s, struct sr_task *p)
{
	return place_deferred(s, p, sr_st_waker(s, p->pend_ev.common_pid, p->pend_ev.cpu));
}

/*
 * A wakeup that came while its task ran on @cpu, the task then going to
 * sleep there: try_to_wake_up() found it dequeued but still on the CPU
 * (p->on_cpu).  Since 5.8 (commit 2ebb17717550) it goes to that CPU's
 * wakelist, with no select_task_rq(), when the CPU is left with nothing
 * to run or is in another LLC (ttwu_queue_cond()): the CPU reads busy
 * (rq->ttwu_pending) until it runs the list and emits the sched_wakeup.
 * Otherwise the waker waits for the switch and selects a CPU then: a
 * placement, replayed now from the waker's CPU.
 *
 * ttwu_queue_cond() reads nr_running at the waking, not at the switch: a
 * task pulled in later by the newidle balance of the very schedule() that
 * switches the wakee out is not there yet.  A waker that waits spins with
 * interrupts off, so its CPU records nothing until the switch; one that
 * recorded something since the sched_waking did not wait (on the 6.12
 * probe traces, all 22 such wakeups had no select_task_rq_fair()).
 * 5.8 - 5.19 took the wakelist with at most one other task there
 * ("nr_running <= 1", until 28156108fecb in 6.0): the one it switched to.
 */
static enum sr_wakelist_why wakelist_why(const struct sr_state *s, const struct sr_task *p,
					 int cpu, bool left_idle)
{
	if (!s->cfg.ttwu_on_cpu)
		return SR_WL_NONE;
	if (left_idle)
		return SR_WL_IDLE;
	if (!sr_cpus_share_cache(s->cfg.topo, p->pend_cpu, cpu))
		return SR_WL_OTHER_LLC;
	if (s->cpu[p->pend_cpu].last_ts > p->pend_ts)
		return SR_WL_WAKER_WENT_ON;
	if (!s->cfg.ttwu_idle_wakelist && s->rq[cpu].nr_running <= 1)
		return SR_WL_ONE_OTHER;
	return SR_WL_NONE;
}

int sr_st_ttwu_descheduled(struct sr_state *s, struct sr_task *p, int cpu, bool left_idle)
{
	if (!p->pending || p->pend_cls != SR_W_RUNNABLE || p->pend_cpu == cpu ||
	    !sr_st_cpu_ok(s, p->pend_cpu))
		return 0;
	p->pend_wakelist = wakelist_why(s, p, cpu, left_idle);
	if (p->pend_wakelist != SR_WL_NONE) {
		sr_st_ttwu_unmark(s, p);
		wakelist_mark(s, p, cpu);
		return 0;
	}
	p->pend_cls = SR_W_PLACED;
	p->pend_descheduled = true;
	p->pend_prev = cpu;
	p->pend_ev.target_cpu = cpu;
	return select_begins(s, p);
}

/*
 * A deferred placement whose srqf never came.  A fair task free to move,
 * woken where it slept: try_to_wake_up() found it still queued
 * (ttwu_runnable()) or still switching out (the p->on_cpu wakelist) and
 * selected no CPU — on 6.12+ mostly a delayed dequeue (a task that slept
 * with negative lag stays queued until picked), which the trace cannot
 * tell from a dequeue.  It is no placement.  Otherwise (pinned, another
 * class, a lost record, or the task moved) replay it now.  @cpu: where it
 * was woken, -1 a migration.
 */
static int place_late(struct sr_state *s, struct sr_task *p, int cpu)
{
	if (!p->pending || !p->pend_deferred)
		return 0;
	if (cpu >= 0 && cpu == p->pend_prev && p->pend_cls == SR_W_PLACED &&
	    reaches_fair_class(p) && !sr_st_met_lost_window(&p->pend_ev, p->pend_ts)) {
		p->pend_deferred = false;
		p->pend_cls = SR_W_RUNNABLE;
		s->probes.runnable_without_select++;
		return 0;
	}
	s->probes.without_select++;
	return sr_st_place_deferred(s, p);
}

int sr_st_emit_wakeup(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
		      bool paired)
{
	struct sr_wakeup w = {
		.ts = paired ? p->pend_ts : ev->ts, .ts_wakeup = ev->ts, .task = p,
		.cpu = ev->target_cpu, .paired = paired, .since_out = -1,
	};

	if (paired) {
		w.waker_cpu = p->pend_cpu;
		w.waker_pid = p->pend_waker;
		w.prev_cpu = p->pend_prev;
		w.cls = p->pend_cls;
		w.nr_migrations = p->pend_migrations;
		w.prev_idle = p->pend_prev_idle;
		w.dec = p->dec;
		w.nr_dec = p->dec && w.cls == SR_W_PLACED ? s->cfg.nr_policies : 0;
	} else {
		w.waker_cpu = ev->cpu;
		w.waker_pid = ev->common_pid;
		w.prev_cpu = p->last_out_cpu;
		w.cls = w.prev_cpu < 0 ? SR_W_UNKNOWN : classify(p);
		s->wc.standalone++;
	}
	w.in_lost_window = sr_st_met_lost_window(ev, w.ts);
	w.uncertain = sr_st_cpu_uncertain(s, w.waker_cpu) || sr_st_cpu_uncertain(s, w.cpu) ||
		      sr_st_cpu_uncertain(s, w.prev_cpu) || p->pend_infer_uncertain ||
		      w.in_lost_window;
	w.chosen_inferred = p->pend_inferred;	/* infer.c: no sched_wakeup in the trace */
	w.after_switch = p->pend_descheduled;
	w.wakelist = paired ? p->pend_wakelist : SR_WL_NONE;
	w.target_idle = sr_st_cpu_ok(s, w.cpu) && !s->rq[w.cpu].curr_pid;
	s->wc.cls[w.cls]++;
	if (w.uncertain)
		s->wc.uncertain++;
	if (w.in_lost_window)
		s->wc.in_lost_window++;
	else
		s->wc.outside_cls[w.cls]++;
	if (w.cls == SR_W_PLACED) {
		if (w.cpu == w.prev_cpu)
			w.actual = SR_O_PREV;
		else if (w.cpu == w.waker_cpu)
			w.actual = SR_O_WAKER;
		else
			w.actual = SR_O_OTHER;
		s->wc.actual[w.actual]++;
		if (!w.in_lost_window)
			s->wc.outside_actual[w.actual]++;
		w.index = ++s->nr_placed;
		if (paired && !p->pend_followed)
			sr_st_follow_ref(s, p, sr_st_waker(s, w.waker_pid, w.waker_cpu), w.cpu,
					 w.prev_cpu, w.waker_cpu);
		if (p->v.last_switch_out && w.ts >= p->v.last_switch_out) {
			w.since_out = (int64_t)(w.ts - p->v.last_switch_out);
			w.hot = w.since_out < s->cfg.migration_cost_ns;
		}
		if (w.hot) {
			s->wc.placed_hot++;
			if (w.actual == SR_O_WAKER)
				s->wc.affine_hot++;
		}
	}
	p->note = (struct sr_wake_note){
		.ts = w.ts, .ts_wakeup = w.ts_wakeup, .index = w.index, .cpu = (int16_t)w.cpu,
		.prev_cpu = (int16_t)w.prev_cpu, .waker_cpu = (int16_t)w.waker_cpu,
		.cls = (uint8_t)w.cls, .actual = (uint8_t)w.actual, .target_idle = w.target_idle,
		.hot = w.hot, .pending_run = true,
	};
	if (!s->cfg.hooks.wakeup)
		return 0;
	return s->cfg.hooks.wakeup(s->cfg.hooks.data, &w);
}

/*
 * A wakeup of @cpu's current task (it set itself to sleep and had not yet
 * called schedule()): ttwu_runnable() (kernel/sched/core.c, 6.1 and 6.12)
 * only sets it TASK_RUNNING again.  It stays cfs_rq->curr, its util keeps
 * growing, and nothing updates the cfs_rq: check_preempt_wakeup() (6.1) /
 * wakeup_preempt() (6.12) is not reached or returns at se == pse.
 */
static bool still_running(const struct sr_state *s, const struct sr_task *p, int cpu)
{
	return p->state == SR_T_RUNNING && sr_st_cpu_ok(s, cpu) && p->v.cpu == cpu &&
	       s->rq[cpu].curr_pid == p->v.pid;
}

int sr_st_on_wakeup(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = sr_st_task_get(s, ev->pid);
	int ret = 0, flew;

	if (!p)
		return 0;
	ret = place_late(s, p, ev->target_cpu);
	if (ret)
		return ret;
	sr_st_select_gap(s, p, ev);
	if (ev->cpu != p->pend_cpu)
		sr_st_select_returned(s, p, ev);
	flew = p->pending ? p->pend_flight_cpu : -1;
	sr_st_ttwu_unmark(s, p);
	sr_st_conc_enqueued(s, p, flew);
	sr_st_task_set_prio(s, p, ev->prio);
	/* ttwu_do_activate() on the target clears its idle_stamp */
	if (sr_st_cpu_ok(s, ev->target_cpu))
		sr_st_idle_stamp(s, ev->target_cpu, false, ev->ts);
	if (p->pending) {
		/* emitted by the target itself: it ran its wakelist (an IPI) */
		if (ev->cpu != p->pend_cpu && ev->cpu == ev->target_cpu &&
		    !sr_st_met_lost_window(ev, p->pend_ts))
			sr_st_ipi_delivered(s, p->pend_ts, ev->ts);
		ret = sr_st_emit_wakeup(s, p, ev, true);
		sr_st_probe_check(s, p, ev->target_cpu);
		p->pending = false;
	} else if (s->cfg.has_waking) {
		s->wc.unpaired++;
		p->note.pending_run = false;
	} else {
		ret = sr_st_emit_wakeup(s, p, ev, false);
	}
	if (still_running(s, p, ev->target_cpu))
		return ret;
	sr_st_task_move(s, p, SR_T_QUEUED, sr_st_cpu_ok(s, ev->target_cpu) ? ev->target_cpu : -1);
	return ret;
}

/*
 * wake_up_new_task() selects somewhere between sched_process_fork and
 * sched_wakeup_new (or, on a probe trace, from its srqf on); the replay
 * reads the runqueues at the end.  A slow guest's vCPU can stall in
 * between for milliseconds: if any runqueue changed meanwhile, the kernel
 * may have read the older one.
 */
static unsigned int fork_window(const struct sr_state *s, const struct sr_task *p)
{
	uint64_t since = p->probe.valid ? p->probe.ts : p->first_seen;

	if (!p->forked)
		return 0;
	return s->rq_changed_ts > since ? SR_DEP_DECISION_TIME : 0;
}

/* A fork placement, replayed like a wakeup but reported apart (kind SR_WAKE_FORK). */
static int emit_fork(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	struct sr_wakeup w = {
		.ts = ev->ts, .ts_wakeup = ev->ts, .task = p, .kind = SR_WAKE_FORK,
		.waker_cpu = ev->cpu, .waker_pid = ev->common_pid, .prev_cpu = ev->cpu,
		.cpu = ev->target_cpu, .cls = SR_W_NR, .since_out = -1,
		.dec = p->dec, .nr_dec = p->dec ? s->cfg.nr_policies : 0,
	};
	int ret;

	w.in_lost_window = sr_st_met_lost_window(ev, ev->ts);
	w.uncertain = sr_st_cpu_uncertain(s, w.waker_cpu) || sr_st_cpu_uncertain(s, w.cpu) ||
		      w.in_lost_window;
	w.target_idle = sr_st_cpu_ok(s, w.cpu) && !s->rq[w.cpu].curr_pid;
	/* forks share the placement numbering, so that one number names any placement */
	w.index = ++s->nr_placed;
	ret = sr_st_run_placement(s, p, ev, SR_WAKE_FORK, ev->cpu, &p->dec, fork_window(s, p));
	if (!ret)
		sr_st_follow_silent(s, &p->pend_ref, ev->target_cpu);
	p->note = (struct sr_wake_note){ .ts = ev->ts, .ts_wakeup = ev->ts, .index = w.index,
		.cpu = (int16_t)ev->target_cpu, .prev_cpu = (int16_t)ev->cpu,
		.waker_cpu = (int16_t)ev->cpu, .cls = SR_W_NR, .pending_run = true };
	if (ret || !s->cfg.hooks.wakeup)
		return ret;
	w.dec = p->dec;
	w.nr_dec = p->dec ? s->cfg.nr_policies : 0;
	return s->cfg.hooks.wakeup(s->cfg.hooks.data, &w);
}

/*
 * post_init_entity_util_avg() (fair.c, the same in 6.1 and 6.12): a new
 * task's util is its share by weight of the chosen CPU's cfs util, capped
 * at half the spare capacity (all of that cap when the CPU's util is 0),
 * and its runnable_avg the same.
 * On a CPU busy when the trace began the state's util is still warming up,
 * but it is the best estimate there is: leaving the child at 0 made its CPU
 * look the least used to every later fork (make fidelity: forks on 6.1
 * 87.5 -> 89.2 %, the SMT machine's 35.9 -> 59.9 %; 6.12 +46 forks).
 */
static void post_init_util(struct sr_state *s, struct sr_task *p, int cpu)
{
	const struct sr_rq *rq;
	double cap, util;

	if (!sr_st_cpu_ok(s, cpu) || p->v.policy == SR_SCHED_RT)
		return;
	sr_st_cpu_advance(s, cpu, s->now);
	rq = &s->rq[cpu];
	cap = rq->util_avg < SR_CAPACITY_SCALE ? (double)(SR_CAPACITY_SCALE - rq->util_avg) / 2 : 0;
	util = rq->util_avg ? (double)rq->util_avg * (double)p->v.weight /
			      (double)(rq->load_avg + 1) : cap;
	p->util_frac = (util < cap ? util : cap) / (double)SR_CAPACITY_SCALE;
	p->run_frac = p->util_frac;	/* sa->runnable_avg = sa->util_avg (5.7+) */
	sr_st_task_avgs(p);
}

int sr_st_on_wakeup_new(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = sr_st_task_get(s, ev->pid);
	int ret;

	s->wc.wakeup_new++;
	if (!p)
		return 0;
	sr_st_set_comm(s, p, ev->comm);
	sr_st_task_set_prio(s, p, ev->prio);
	p->fork_idle_ts = sr_st_cpu_ok(s, ev->target_cpu) && !s->rq[ev->target_cpu].curr_pid &&
			  !s->rq[ev->target_cpu].nr_running ? ev->ts : 0;
	/* init_entity_runnable_average(): a new task starts at full load. */
	if (p->forked) {
		p->load_frac = 1.0;
		post_init_util(s, p, ev->target_cpu);
	}
	/* wake_up_new_task(): recent_used_cpu is the CPU sched_fork() put it on */
	p->v.recent_used_cpu = ev->cpu;
	ret = emit_fork(s, p, ev);
	sr_st_probe_check(s, p, ev->target_cpu);
	sr_st_task_move(s, p, SR_T_QUEUED, sr_st_cpu_ok(s, ev->target_cpu) ? ev->target_cpu : -1);
	return ret;
}

/*
 * A forked child's first switch-in on the CPU that was idle when
 * wake_up_new_task() enqueued it there.  That enqueue's wakeup_preempt()
 * (check_preempt_curr() before 6.7) resched the idle task, which is queued
 * (init_idle(): on_rq = TASK_ON_RQ_QUEUED), so it asked rq_clock_skip_update();
 * the idle CPU's __schedule() promotes that to RQCF_ACT_SKIP and its
 * update_rq_clock() keeps the clock of the enqueue (kernel/sched/core.c,
 * 6.1 and 6.12; 9edfbfed3f54 "sched/core: Rework rq->clock update skips",
 * 4.1).  set_next_entity() thus updates nothing, and the next update counts
 * the whole wait since the enqueue as running: util_avg grows with
 * runnable_avg.  On a slow guest an idle vCPU takes milliseconds to come
 * to the IPI: probe traces (rqs) read the child's CPU after its first
 * sleep with util_avg == runnable_avg, where counting the wait as waiting
 * left util 10-20 % low, and the forks after it chose by util.
 */
void sr_st_fork_clock_skip(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = s->cpu[ev->cpu].curr;
	uint64_t t0;
	double gain;

	if (!p || !p->fork_idle_ts)
		return;
	t0 = p->fork_idle_ts;
	p->fork_idle_ts = 0;		/* its first switch-in only */
	if (ev->pid != 0 || p->v.cpu != ev->cpu || p->state != SR_T_RUNNING ||
	    p->v.policy == SR_SCHED_RT || s->rq[ev->cpu].nr_running != 1 || ev->ts <= t0)
		return;
	sr_st_task_pelt(s, p, s->now);
	gain = 1.0 - sr_pelt_decay(ev->ts - t0);
	p->util_frac = p->util_frac + gain < 1.0 ? p->util_frac + gain : 1.0;
	sr_st_task_avgs(p);
	sr_st_cpu_advance(s, ev->cpu, s->now);
	s->cpu[ev->cpu].util_avg += gain * SR_CAPACITY_SCALE;
	sr_st_cpu_kupdate(s, ev->cpu);
}

int sr_st_on_migrate(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = sr_st_task_get(s, ev->pid);
	int ret;

	if (!p || !sr_st_cpu_ok(s, ev->dest_cpu))
		return 0;
	sr_st_exec_migrated(s, p, ev);
	ret = place_late(s, p, -1);
	if (ret)
		return ret;
	sr_st_select_gap(s, p, ev);
	sr_st_task_set_prio(s, p, ev->prio);
	/*
	 * A CPU pulling a task for itself (newidle balance) clears its
	 * idle_stamp; a delayed sleeper moved onto an idle CPU renews it.
	 */
	if (!sr_st_idle_stamp_pulled(s, p, ev->dest_cpu, ev->ts) && !p->pending &&
	    ev->cpu == ev->dest_cpu)
		sr_st_idle_stamp(s, ev->dest_cpu, false, ev->ts);
	/*
	 * Emitted on the waker's CPU right after selection: now the target is
	 * known.  Elsewhere a balancer moved the task, still queued while its
	 * waker waited (6.12+: a delayed dequeue): no selection yet.
	 */
	if (p->pending && ev->cpu == p->pend_cpu) {
		p->pend_migrations++;
		sr_st_conc_selected(s, p);
		sr_st_follow_early(s, p, ev->dest_cpu);
		if (p->pend_ttwu_cpu >= 0 || p->pend_flight_cpu >= 0 || p->pend_cls == SR_W_PLACED)
			ttwu_mark(s, p, p->pend_cpu, ev->dest_cpu);
	}
	if (p->pending) {
		sr_st_task_move(s, p, p->state, ev->dest_cpu);
		return 0;
	}
	sr_st_task_pulled(s, p, ev->dest_cpu);
	/* a balancer's move: the analyses read both sides' groups (work-conservation.c) */
	sr_st_cpu_advance_all(s);
	return 0;
}
