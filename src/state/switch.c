// SPDX-License-Identifier: GPL-2.0
/*
 * sched_switch, and the rules that resynchronise the state when the trace
 * and the state disagree about which task runs on a CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include "state-priv.h"

/*
 * DELAY_DEQUEUE (6.12+): a task that sleeps while another is runnable here
 * stays queued if its lag is negative, until picked.  Count it as possibly
 * delayed until the CPU goes idle or the task wakes.
 */
void sr_st_delayed_mark(struct sr_state *s, struct sr_task *t, int cpu)
{
	sr_st_delayed_clear(s, t);
	if (!s->cfg.delayed_dequeue || t->v.policy == SR_SCHED_RT || !s->rq[cpu].cfs_nr_running)
		return;
	t->delayed_cpu = cpu;
	t->delayed_gen = s->cpu[cpu].idle_gen;
	s->rq[cpu].maybe_delayed++;
}

void sr_st_delayed_clear(struct sr_state *s, struct sr_task *t)
{
	int cpu = t->delayed_cpu;

	t->delayed_cpu = -1;
	if (!sr_st_cpu_ok(s, cpu) || t->delayed_gen != s->cpu[cpu].idle_gen)
		return;
	if (s->rq[cpu].maybe_delayed)
		s->rq[cpu].maybe_delayed--;
}

/* An idle switch proves the runqueue empty: drop what we still count there. */
static void resync_idle(struct sr_state *s, int cpu)
{
	if (!s->rq[cpu].nr_running)
		return;
	for (size_t i = 0; i < s->tasks.nr_slots; i++) {
		struct sr_task *t = sr_state_task_at(s, i);

		if (t && sr_st_on_rq(t->state) && t->v.cpu == cpu) {
			sr_st_task_move(s, t, SR_T_UNKNOWN, -1);
			s->cpu[cpu].resyncs++;
		}
	}
	sr_st_rq_touched(s, cpu);
	sr_st_rq_nr(s, cpu, 0);
	s->rq[cpu].cfs_nr_running = 0;
	s->rq[cpu].load_weight = 0;
}

/*
 * Every sched event names the task current on its CPU (common_pid).  When
 * that is not the task we saw switched in, a switch was not recorded: the
 * task we had loses its state (its switch-out is unknown) and the one
 * named becomes current, from an unknown time on.
 */
void sr_st_resync_curr(struct sr_state *s, int cpu, int pid)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];
	struct sr_task *t = pid > 0 ? sr_st_task_get(s, pid) : NULL;

	/* the time since the last update is unknown */
	sr_st_rq_doubt(s, cpu, true, rq->idle_unrecorded);
	c->idle_mismatches += rq->curr_pid == 0 && pid > 0;
	sr_st_cpu_advance(s, cpu, s->now);
	c->mismatches++;
	if (c->curr && c->curr->state == SR_T_RUNNING && c->curr->v.cpu == cpu)
		sr_st_task_move(s, c->curr, SR_T_UNKNOWN, -1);
	if (t) {
		sr_st_task_move(s, t, SR_T_RUNNING, cpu);
		t->last_in = s->now;
		t->note.pending_run = false;	/* its switch-in time is unknown */
	}
	c->curr = t;
	sr_st_rq_touched(s, cpu);
	rq->curr_pid = t ? pid : 0;
	sr_st_idle_track(s, cpu);
	rq->curr_policy = t ? t->v.policy : SR_SCHED_NORMAL;
	rq->idle_since = t ? 0 : s->now;
	sr_st_rq_doubt(s, cpu, false, t ? false : rq->idle_unrecorded);
}

/*
 * The switch's CPU closes its time and averages under the task that ran.
 * Its rq fields need no publishing here: sr_state_event()'s kupdate ends
 * every switch, and the only readers before it, the placements a
 * switch-out may run, come after prev's move to the runqueue or to sleep,
 * which ends in a kupdate.  Without prev, nothing reads them before that
 * last kupdate.  A pending RCU tick update (c->rcu_tick) runs inside the
 * publishing, at its own time: then, and for a dying prev, as before.
 */
static void close_cpu(struct sr_state *s, const struct sr_event *ev, const struct sr_task *prev,
		      const struct sr_task *next)
{
	bool moved_later = prev ? ev->prev_state != SR_PS_DEAD : next != NULL;

	if (moved_later && !s->cpu[ev->cpu].rcu_tick)
		sr_st_cpu_close(s, ev->cpu, s->now);
	else
		sr_st_cpu_advance(s, ev->cpu, s->now);
}

/*
 * Whether prev's move may leave its CPU's kupdate to the switch's own
 * (sr_state_event(), after this handler), which then makes the same
 * update at the same moment: nothing between may read the CPU's averages
 * or change its sums.  Not when a wakeup waiting for prev to leave selects
 * a CPU as this one goes idle (sr_st_ttwu_descheduled()), nor when next
 * arrives from elsewhere: its load would join the sums before the removed
 * load leaves them, and the doubles would round apart.  A dead prev has
 * no kupdate to leave.  This saves a kupdate on most switches.
 */
static bool prev_update_later(const struct sr_event *ev, const struct sr_task *next)
{
	if (ev->prev_state == SR_PS_DEAD || (ev->prev_state == SR_PS_SLEEPING && ev->next_pid == 0))
		return false;
	return !next || next->v.cpu == ev->cpu || next->state == SR_T_DEAD;
}

int sr_st_on_switch(struct sr_state *s, const struct sr_event *ev, struct sr_task *prev,
		    struct sr_task *next)
{
	struct sr_cpu_state *c = &s->cpu[ev->cpu];
	struct sr_rq *rq = &s->rq[ev->cpu];
	int ret = 0;

	/* The task we saw switched in is not the one switching out: rule 1. */
	if (c->curr_known && rq->curr_pid != (ev->pid > 0 ? ev->pid : 0))
		sr_st_resync_curr(s, ev->cpu, ev->pid);
	c->switches++;
	close_cpu(s, ev, prev, next);
	if (prev) {
		static const enum sr_task_state to[] = {
			[SR_PS_RUNNING] = SR_T_QUEUED, [SR_PS_SLEEPING] = SR_T_SLEEPING,
			[SR_PS_DEAD] = SR_T_DEAD,
		};
		bool update = !prev_update_later(ev, next);

		sr_st_set_comm(s, prev, ev->comm);
		sr_st_task_set_prio(s, prev, ev->prio);
		if (prev->state == SR_T_RUNNING && prev->v.cpu == ev->cpu)
			prev->runtime += ev->ts - prev->last_in;
		if (ev->prev_state == SR_PS_SLEEPING)
			sr_st_dequeued_by_waking(s, prev, ev->cpu, update);
		else
			sr_st_task_switch_out(s, prev, to[ev->prev_state], ev->cpu, update);
		if (ev->prev_state == SR_PS_SLEEPING)
			sr_st_delayed_mark(s, prev, ev->cpu);
		/* a wakeup waiting for it to leave the CPU: its wakelist now, before idle */
		if (ev->prev_state == SR_PS_SLEEPING && ev->next_pid == 0)
			ret = sr_st_ttwu_descheduled(s, prev, ev->cpu, true);
		prev->v.last_switch_out = ev->ts;
		prev->v.exec_start = ev->ts;
		prev->last_out_cpu = ev->cpu;
		sr_st_exec_switch_out(s, prev, ev);
	}
	if (ev->next_pid == 0) {
		if (rq->curr_pid || !c->curr_known) {
			rq->idle_since = ev->ts;
			sr_st_idle_stamp_switch(s, ev);
		}
		resync_idle(s, ev->cpu);
		/* picking idle dequeued every delayed entity */
		c->idle_gen++;
		rq->maybe_delayed = 0;
	} else if (rq->idle_since) {
		if (ev->ts > rq->idle_since) {
			int64_t delta = (int64_t)(ev->ts - rq->idle_since);
			int64_t avg = (int64_t)rq->avg_idle;

			/* update_avg(): avg += (sample - avg) / 8, capped like the kernel. */
			avg += (delta - avg) / 8;
			rq->avg_idle = avg > (int64_t)AVG_IDLE_MAX_NS ? AVG_IDLE_MAX_NS : (uint64_t)avg;
		}
		rq->idle_since = 0;
	}
	if (next) {
		sr_st_set_comm(s, next, ev->next_comm);
		sr_st_affinity_seen(s, next, ev->cpu);
		sr_st_task_set_prio(s, next, ev->next_prio);
		sr_st_task_switch_in(s, next, ev->cpu);
		next->last_in = ev->ts;
		next->v.exec_start = ev->ts;
		sr_st_exec_slice(next, ev->cpu);
		if (next->note.pending_run && s->cfg.hooks.run)
			ret = s->cfg.hooks.run(s->cfg.hooks.data, next, ev->cpu, ev->ts);
		next->note.pending_run = false;
	}
	c->curr = next;
	c->curr_known = true;
	sr_st_rq_touched(s, ev->cpu);
	rq->curr_pid = ev->next_pid > 0 ? ev->next_pid : 0;
	sr_st_idle_track(s, ev->cpu);
	rq->curr_policy = next ? next->v.policy : SR_SCHED_NORMAL;
	/*
	 * A CPU whose switches out of idle keep going unrecorded (a task seen
	 * switching out from what we took for idle, on one switch in 20): its
	 * idle periods are not known to be idle.
	 */
	sr_st_rq_doubt(s, ev->cpu, false, ev->next_pid == 0 && c->idle_mismatches >= 8 &&
		       c->idle_mismatches * 20 >= c->switches);
	if (ev->next_pid == 0) {
		sr_st_update_idle_core(s, ev->cpu);
		sr_st_idle_soon(s, ev->cpu);
	}
	return ret;
}

/*
 * After the switch and the CPU's update: a wakeup that waited for the task
 * switched out to leave the CPU selects a CPU now, with the next task
 * running there (sr_st_ttwu_descheduled()).
 */
int sr_st_switch_done(struct sr_state *s, const struct sr_event *ev, struct sr_task *prev)
{
	int ret = prev && ev->prev_state == SR_PS_SLEEPING && ev->next_pid != 0 ?
		  sr_st_ttwu_descheduled(s, prev, ev->cpu, false) : 0;

	sr_st_fork_clock_skip(s, ev);
	return ret ? ret : sr_st_exec_first_run(s, ev);
}
