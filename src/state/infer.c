// SPDX-License-Identifier: GPL-2.0
/*
 * Traces with sched_waking and sched_switch but no sched_wakeup (redundant
 * on modern kernels, often left out to save space).  The placement was
 * replayed at the sched_waking as usual; what the kernel chose is inferred:
 *
 *  - the sched_migrate_task that try_to_wake_up()'s set_task_cpu() emits
 *    on the waker's CPU right after select_task_rq(): its dest_cpu;
 *  - else the CPU where the task next switches in.  It was enqueued on
 *    prev then, unless something moved it unseen: a migration from another
 *    CPU first (a balancer pulling the queued task), or a switch-in on
 *    another CPU with no migration recorded.  Those wakeups are marked
 *    uncertain (their CPU is the best guess, not a fact).
 *
 * Until then the task is taken as queued on prev, as the kernel has it.
 * Every such wakeup is marked chosen_inferred.  A wakeup of a task running
 * on another CPU waits for that task's next switch-out: leaving asleep, it
 * may have been a placement after all (sr_st_ttwu_descheduled()).
 */
#include "state-priv.h"

static bool inferring(const struct sr_state *s, const struct sr_task *p)
{
	return s->cfg.infer_chosen && p && p->pending && !p->pend_deferred;
}

/* Close the pending wakeup of @p with @cpu as the kernel's choice, at @ts. */
static int infer_done(struct sr_state *s, struct sr_task *p, int cpu, uint64_t ts,
		      bool uncertain)
{
	struct sr_event ev = p->pend_ev;
	int ret;

	ev.type = SR_EV_WAKEUP;
	ev.ts = ts;
	ev.target_cpu = cpu;
	p->pend_inferred = true;
	p->pend_infer_uncertain = uncertain;
	sr_st_ttwu_unmark(s, p);
	ret = sr_st_emit_wakeup(s, p, &ev, true);
	s->wc.inferred++;
	p->pend_inferred = false;
	p->pend_infer_uncertain = false;
	p->pending = false;
	return ret;
}

/* After sr_st_on_waking(): a placed task is queued on prev until shown otherwise. */
int sr_st_infer_after(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p;

	if (!s->cfg.infer_chosen || ev->type != SR_EV_WAKING)
		return 0;
	p = sr_state_task(s, ev->pid);
	if (!inferring(s, p))
		return 0;
	p->pend_await_switch = p->pend_cls == SR_W_RUNNABLE && p->state == SR_T_RUNNING &&
			       p->v.cpu >= 0 && p->v.cpu != ev->cpu;
	if (p->pend_await_switch)
		return 0;
	/* no selection ran: the wakeup is complete where the task is */
	if (p->pend_cls != SR_W_PLACED)
		return infer_done(s, p, ev->target_cpu, ev->ts, false);
	p->pend_queued_cpu = sr_st_cpu_ok(s, ev->target_cpu) ? ev->target_cpu : -1;
	sr_st_task_move(s, p, SR_T_QUEUED, p->pend_queued_cpu);
	return 0;
}

static int infer_migrate(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	/* try_to_wake_up() runs on the waker's CPU: its first migration is the choice */
	if (ev->cpu == p->pend_cpu && !p->pend_migrations)
		return infer_done(s, p, ev->dest_cpu, ev->ts, false);
	/* another CPU moved it first: it was queued where it was taken from */
	return infer_done(s, p, ev->orig_cpu, ev->ts, true);
}

/*
 * After @p's switch-out (and sr_st_switch_done()): a wakeup that waited
 * for it is a placement now, inferred as any other, or was no placement and
 * is complete on this CPU.
 */
int sr_st_infer_switched_out(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	if (!inferring(s, p) || !p->pend_await_switch)
		return 0;
	p->pend_await_switch = false;
	if (p->pend_cls == SR_W_PLACED) {
		/* queued where it was until shown otherwise, as after any placed waking */
		p->pend_queued_cpu = ev->cpu;
		sr_st_task_move(s, p, SR_T_QUEUED, ev->cpu);
		return 0;
	}
	return infer_done(s, p, ev->cpu, ev->ts, false);
}

/* The trace ends: a wakeup still waiting for its task's switch-out ran no selection. */
int sr_st_infer_finish(struct sr_state *s, struct sr_task *p)
{
	if (!inferring(s, p) || !p->pend_await_switch)
		return 0;
	p->pend_await_switch = false;
	return infer_done(s, p, p->v.cpu, s->now, false);
}

/* Before the usual handler: does this event show where a pending wakeup went? */
int sr_st_infer_before(struct sr_state *s, const struct sr_event *ev)
{
	int pid = ev->type == SR_EV_SWITCH ? ev->next_pid : ev->pid;
	struct sr_task *p;

	if (!s->cfg.infer_chosen)
		return 0;	/* the usual trace: no task lookup per event for nothing */
	p = pid > 0 ? sr_state_task(s, pid) : NULL;
	if (inferring(s, p) && p->pend_await_switch && ev->type == SR_EV_WAKING) {
		/* woken again while it still ran: the first one ran no selection */
		p->pend_await_switch = false;
		return infer_done(s, p, p->v.cpu, ev->ts, false);
	}
	if (!inferring(s, p) || p->pend_cls != SR_W_PLACED)
		return 0;
	switch (ev->type) {
	case SR_EV_SWITCH:
		return infer_done(s, p, ev->cpu, ev->ts, ev->cpu != p->pend_queued_cpu);
	case SR_EV_MIGRATE:
		return infer_migrate(s, p, ev);
	case SR_EV_WAKING:
		/* woken again before it was seen running: its switch-in went unrecorded */
		return infer_done(s, p, p->pend_queued_cpu, ev->ts, true);
	default:
		return 0;
	}
}
