// SPDX-License-Identifier: GPL-2.0
/*
 * rq->idle_stamp, which find_idlest_group_cpu() (sched_balance_find_dst_group_cpu()
 * from 6.12) reads to prefer the most recently idled CPU.  sched_balance_newidle()
 * (newidle_balance() before 6.10) stamps it with rq_clock() on the way to idle,
 * unless a wakeup is pending (5.13+); ttwu_do_activate() clears it, forks and
 * migrations keep it.  The trace shows the switch to idle, which is not always
 * where the kernel stamped (kernel/sched/{core,fair}.c, 6.12 - 6.18):
 *
 *  - a switch to idle from a stop/DL/RT task leaves the stamp as it was while
 *    sleepers are still queued for DELAY_DEQUEUE (sr_st_idle_stamp_switch());
 *  - a sleeper still queued moved onto an idle CPU makes it pick again, which
 *    stamps it with no sched_switch (sr_st_idle_stamp_pulled()).
 *
 * Where the trace leaves the stamp open the state keeps the range it lies in
 * and the input that decides it; the slow path's model says when the range
 * could turn its choice.
 */
#include "state-priv.h"

void sr_st_idle_stamp(struct sr_state *s, int cpu, bool set, uint64_t ts)
{
	struct sr_rq *rq = &s->rq[cpu];

	/* 5.13+ (9c9f520a1467): newidle balance returns before stamping */
	if (set && rq->ttwu_pending && !s->cfg.newidle_stamps_pending)
		return;
	rq->idle_stamp = set ? ts : 0;
	rq->idle_stamp_known = true;
	rq->idle_stamp_dep = 0;
}

/* The kernel's stamp is in [@lo, @hi], @dep deciding which; models read @stamp. */
static void stamp_open(struct sr_rq *rq, uint64_t stamp, uint64_t lo, uint64_t hi,
		       unsigned int dep)
{
	rq->idle_stamp = stamp;
	rq->idle_stamp_known = true;
	rq->idle_stamp_lo = lo;
	rq->idle_stamp_hi = hi;
	rq->idle_stamp_dep = dep;
}

/*
 * The switch to idle on @ev->cpu, from @ev->pid at priority @ev->prio.
 *
 * 6.12+: for a prev of a class above fair (the stopper, a DL or RT task)
 * __pick_next_task() skips its fair fast path ("!sched_class_above(
 * prev->sched_class, &fair_sched_class) && rq->nr_running ==
 * rq->cfs.h_nr_running") and calls prev_balance(), which runs balance_fair():
 * "if (sched_fair_runnable(rq)) return 1;" (rq->cfs.nr_running > 0,
 * 924e2904da9b) before "return sched_balance_newidle(rq, rf) != 0;".  With
 * nothing runnable the fair entities still queued are sleepers kept for
 * their negative lag (DELAY_DEQUEUE, 152e11f6df29): then no newidle balance,
 * and pick_next_task_fair(rq, prev, NULL) dequeues them and returns NULL at
 * "if (!rf) return NULL;", before its own sched_balance_newidle().  The
 * stamp stays what it was: 0 after a wakeup, as when a task exec'd and its
 * stopper (migration/N, woken onto the CPU) moved it away next to a sleeping
 * kworker.  Which sleepers were kept no event shows: the stamp is the old
 * one or this switch's, read as this switch's (on the fixtures the kernel's
 * choice agreed with that in 27 of the 30 forks it turned).  A fair prev
 * takes the fast path, whose pick stamps after dequeuing them, and 6.1 has
 * no delayed sleepers (its balance_fair() tests rq->nr_running, 0 here).
 */
void sr_st_idle_stamp_switch(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_rq *rq = &s->rq[ev->cpu];
	uint64_t old = rq->idle_stamp;

	if (!s->cfg.delayed_dequeue || ev->prio >= SR_MAX_RT_PRIO || !rq->maybe_delayed ||
	    (rq->ttwu_pending && !s->cfg.newidle_stamps_pending)) {
		sr_st_idle_stamp(s, ev->cpu, true, ev->ts);
		return;
	}
	/* an old one from before the trace: anything earlier */
	if (!rq->idle_stamp_known)
		old = 0;
	else if (rq->idle_stamp_dep && rq->idle_stamp_lo < old)
		old = rq->idle_stamp_lo;
	stamp_open(rq, ev->ts, old, ev->ts,
		   rq->idle_stamp_dep | SR_DEP_DELAYED_DEQUEUE);
}

/*
 * @p, asleep and not being woken, moved onto idle @cpu at @ts by a balancer:
 * it was still queued for DELAY_DEQUEUE (6.12+; a balancer moves only
 * queued tasks), and stays delayed there (dequeue_entity() without
 * DEQUEUE_SLEEP keeps se->sched_delayed).  attach_task()'s wakeup_preempt()
 * reschedules the idle CPU; __schedule(SM_IDLE) returns early only when
 * "!rq->nr_running" (3dcac251b066), which counts it, so the fair fast path's
 * pick_next_task_fair(rq, prev, rf)
 * dequeues it and, with nothing left, sched_balance_newidle() stamps the
 * CPU at rq_clock() of that __schedule(): after @ts, by as long as the
 * balance and the way back to the idle loop took, and with prev == next no
 * sched_switch shows it.  The stamp is @ts or later, up to the CPU's next
 * record (sr_st_idle_stamp_bound()); not cleared, as a pull of a runnable
 * task leaves it.
 */
bool sr_st_idle_stamp_pulled(struct sr_state *s, const struct sr_task *p, int cpu, uint64_t ts)
{
	struct sr_rq *rq = &s->rq[cpu];

	if (!s->cfg.delayed_dequeue || p->state != SR_T_SLEEPING || p->pending ||
	    !s->cpu[cpu].curr_known || rq->curr_pid || rq->nr_running)
		return false;
	if (rq->ttwu_pending && !s->cfg.newidle_stamps_pending)
		return true;	/* newidle returns before stamping: as it was */
	stamp_open(rq, ts, ts, SR_STAMP_OPEN, SR_DEP_IDLE_STAMP);
	return true;
}
