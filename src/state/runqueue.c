// SPDX-License-Identifier: GPL-2.0
/*
 * Runqueue accounting: every change of a task's state or CPU goes through
 * sr_st_task_move(), which keeps each CPU's nr_running, load weight and
 * PELT-like averages equal to the sum over the tasks counted there.
 */
#include <errno.h>
#include <stdlib.h>
#include "state-priv.h"

/*
 * se.avg as the kernel keeps it: the fractions scaled by weight and capacity
 * (both fractions are in [0, 1]: the signed conversion is exact and cheaper).
 */
void sr_st_task_avgs(struct sr_task *t)
{
	t->v.load_avg = (unsigned long)(int64_t)(t->load_frac * (double)t->v.weight + 0.5);
	t->v.util_avg = (unsigned long)(int64_t)(t->util_frac * (double)SR_CAPACITY_SCALE + 0.5);
	t->v.runnable_avg = (unsigned long)(int64_t)(t->run_frac * (double)SR_CAPACITY_SCALE + 0.5);
}

/* Advance the task's PELT fractions to @now under its current state. */
void sr_st_task_pelt(struct sr_state *s, struct sr_task *t, uint64_t now)
{
	double d, runnable, running;

	if (now <= t->pelt_ts)
		return;
	if (t->pelt_held) {
		t->pelt_ts = now;
		return;
	}
	d = sr_st_decay(s, now - t->pelt_ts);
	runnable = t->state == SR_T_RUNNING || t->state == SR_T_QUEUED;
	running = t->state == SR_T_RUNNING;
	t->load_frac = t->load_frac * d + runnable * (1.0 - d);
	t->run_frac = t->run_frac * d + runnable * (1.0 - d);
	t->util_frac = t->util_frac * d + running * (1.0 - d);
	t->pelt_ts = now;
	sr_st_task_avgs(t);
	t->v.pelt_warm = t->forked || now - t->first_seen >= SR_PELT_WARM_NS;
}

/*
 * The task as the kernel's placement code reads it: a sleeping task's
 * se.avg is what its last dequeue left (select_task_rq_fair() does not
 * decay it on the wake_affine path).
 */
void sr_st_kernel_view(const struct sr_task *t, struct sr_task_view *v)
{
	*v = t->v;	/* into the caller's: returned by value, it was copied twice */
	if (sr_st_sleep_held(t)) {
		v->load_avg = t->sleep_load;
		v->util_avg = t->sleep_util;
		v->runnable_avg = t->sleep_run;
	}
}

/* Close the CPU's time accounting and PELT averages up to @now, not publishing them. */
void sr_st_cpu_close_to(struct sr_state *s, int cpu, uint64_t now)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];

	if (c->since && now > c->since) {
		uint64_t dt = now - c->since;

		if (!c->curr_known || rq->uncertain)
			c->unknown_ns += dt;
		else if (rq->curr_pid == 0)
			c->idle_ns += dt;
		else
			c->busy_ns += dt;
		if (c->curr_known && !rq->uncertain)
			c->nr_running_ns += (double)rq->nr_running * (double)dt;
	}
	if (!c->since || now > c->since)
		c->since = now;
	sr_st_cpu_decay(s, cpu, now);
}

/* Close the CPU's time accounting and PELT averages up to @now. */
void sr_st_cpu_advance(struct sr_state *s, int cpu, uint64_t now)
{
	sr_st_cpu_close(s, cpu, now);
	sr_st_cpu_pelt(s, cpu, now);
}

void sr_st_cpu_advance_all(struct sr_state *s)
{
	for (int c = 0; c < s->cfg.nr_cpus; c++)
		sr_st_cpu_advance(s, c, s->now);
}

/*
 * util_est_update() at a dequeue for sleep (6.1: UTIL_EST with FASTUP; 6.9+
 * keeps only the ewma, which this matches): the ewma jumps up to the util
 * the task had, and moves down a quarter of the way — unless it is within
 * UTIL_EST_MARGIN (1 %) of it, or, from 6.7 (50181c0cff31), the task
 * waited while queued (its runnable_avg above its util by the margin): a
 * util it could not grow is no sample of its size.
 */
#define SR_UTIL_EST_MARGIN	(SR_CAPACITY_SCALE / 100)

static void util_est_update(const struct sr_state *s, struct sr_task *t)
{
	unsigned long util = t->v.util_avg;

	t->ue_last = util;
	if (t->ue_ewma <= util) {
		t->ue_ewma = util;
		t->v.util_est_ewma = util;
		return;
	}
	if (t->ue_ewma - util < SR_UTIL_EST_MARGIN)
		return;
	/* task_runnable(): its se.avg.runnable_avg */
	if (s->cfg.util_est_runnable && util + SR_UTIL_EST_MARGIN < t->v.runnable_avg)
		return;
	t->ue_ewma -= (t->ue_ewma - util) / 4;
	t->v.util_est_ewma = t->ue_ewma;
}

static void util_est_account(struct sr_state *s, struct sr_task *t, int cpu, int sign)
{
	struct sr_rq *rq = &s->rq[cpu];

	if (t->v.policy == SR_SCHED_RT)
		return;
	if (sign > 0) {
		t->ue_contrib = t->ue_ewma > t->ue_last ? t->ue_ewma : t->ue_last;
		rq->util_est += t->ue_contrib;
	} else {
		rq->util_est -= rq->util_est < t->ue_contrib ? rq->util_est : t->ue_contrib;
		t->ue_contrib = 0;
	}
	t->v.util_est = t->ue_contrib;
}

static void sub_clamped(unsigned long *v, unsigned long d)
{
	*v -= *v >= d ? d : *v;
}

/* The queued weight of @t at the level of its group: the root's, or its group's. */
static void weight_account(struct sr_state *s, struct sr_task *t, int cpu, int sign)
{
	struct sr_cpu_state *c = &s->cpu[cpu];

	if (t->grp) {
		sr_st_group_account(s, t, cpu, sign);
		return;
	}
	if (sign > 0)
		c->root_weight += t->v.weight;
	else
		sub_clamped(&c->root_weight, t->v.weight);
}

/*
 * @publish false: the caller publishes @cpu's rq fields again (a kupdate)
 * before anything reads them, so this one would be overwritten unread.
 */
static void rq_account(struct sr_state *s, struct sr_task *t, int cpu, int sign, bool publish)
{
	struct sr_rq *rq;

	if (!sr_st_cpu_ok(s, cpu))
		return;
	s->rq_change_ts = s->now;
	rq = &s->rq[cpu];
	if (publish)
		sr_st_cpu_advance(s, cpu, s->now);
	else
		sr_st_cpu_close(s, cpu, s->now);
	sr_st_rq_touched(s, cpu);
	util_est_account(s, t, cpu, sign);
	if (t->v.policy != SR_SCHED_RT)
		weight_account(s, t, cpu, sign);
	if (sign > 0) {
		sr_st_rq_nr(s, cpu, rq->nr_running + 1);
		if (t->v.policy != SR_SCHED_RT) {
			rq->cfs_nr_running++;
			rq->load_weight += t->v.weight;
		}
		s->cpu[cpu].runnable_load_avg += (double)t->v.load_avg;
	} else {
		if (rq->nr_running)
			sr_st_rq_nr(s, cpu, rq->nr_running - 1);
		if (t->v.policy != SR_SCHED_RT) {
			if (rq->cfs_nr_running)
				rq->cfs_nr_running--;
			sub_clamped(&rq->load_weight, t->v.weight);
		}
		s->cpu[cpu].runnable_load_avg -= (double)t->v.load_avg;
		if (s->cpu[cpu].runnable_load_avg < 0)
			s->cpu[cpu].runnable_load_avg = 0;
	}
}

void sr_st_rq_account(struct sr_state *s, struct sr_task *t, int cpu, int sign)
{
	rq_account(s, t, cpu, sign, true);
}

/*
 * Attach (+1) or detach (-1) @t's load to the cfs_rq of its group on @cpu.
 * @detached: the kernel's cfs_rq lost it in the same update (a queued
 * task's migrating dequeue), so a tick's window cannot still hold it.
 */
static void blocked_load(struct sr_state *s, struct sr_task *t, int cpu, int sign,
			 bool detached)
{
	struct sr_cpu_state *c;

	if (!sr_st_cpu_ok(s, cpu))
		return;
	if (t->grp) {
		sr_st_group_load(s, t, cpu, sign * (double)t->v.load_avg);
		return;
	}
	c = &s->cpu[cpu];
	sr_st_cpu_advance(s, cpu, s->now);
	c->load_avg += sign * (double)t->v.load_avg;
	if (c->load_avg < 0)
		c->load_avg = 0;
	if (sign < 0 && !detached)
		sr_st_cpu_left(s, cpu, (double)t->v.load_avg);
}

void sr_st_blocked_load(struct sr_state *s, struct sr_task *t, int cpu, int sign)
{
	blocked_load(s, t, cpu, sign, false);
}

/*
 * A sleeper moved to @to: the state adds its averages to @to's sums now,
 * the kernel at its enqueue (attach_entity_load_avg() from enqueue_entity(),
 * the se's last_update_time being 0 since migrate_task_rq_fair()); a
 * wakelist delays that to the target's IPI, which under a stalling
 * hypervisor comes milliseconds later.  Until then @to's cpu_load() and
 * cpu_util() leave it out.
 */
static void attach_begin(struct sr_state *s, struct sr_task *t, int to)
{
	struct sr_cpu_state *c = &s->cpu[to];

	c->attach_load += (double)t->v.load_avg;
	c->attach_util += (double)t->v.util_avg;
	c->attach_run += (double)t->v.runnable_avg;
	t->attach_cpu = to;
	t->attach_load = (double)t->v.load_avg;
	t->attach_util = (double)t->v.util_avg;
	t->attach_run = (double)t->v.runnable_avg;
	t->attach_ts = s->now;
}

/*
 * attach_end() of a task attached early: the kernel's sums hold it from now.
 * They hold it whole: migrate_task_rq_fair() zeroes se->avg.last_update_time
 * ("Tell new CPU we are migrated", since 9d89c257dfb9, 4.3), so
 * update_load_avg() at the enqueue skips __update_load_avg_se() and
 * attach_entity_load_avg() adds se->avg as the migration left it, 6.1 and
 * 6.12 alike; the task's averages here are held as well (pelt_held).  The
 * state's sums took them at the move and have decayed them since, by the
 * wakelist's delay (milliseconds on a stalling vCPU): that decay is given
 * back.  A grouped task's load is in its group's sums, which are not
 * followed this closely; its util and runnable are the root's, as here.
 * Against the probes' reads (--probes-measure-only --assume-root-cgroup),
 * idle CPUs' load_avg within 5 %: 40.9 -> 50.1 % (6.1 srrec_rqs),
 * 50.7 -> 59.6 % (6.12 srrec_rqs), 45.3 -> 53.6 % (6.12 SMT srrec_rqs);
 * cpu_load() of prev and this at the select 62.9 -> 63.8 %, 61.6 -> 66.4 %,
 * 61.2 -> 65.1 %.
 */
static void attach_drop(struct sr_state *s, struct sr_task *t)
{
	struct sr_cpu_state *c;
	double d;

	if (sr_st_cpu_ok(s, t->attach_cpu)) {
		c = &s->cpu[t->attach_cpu];
		sr_st_cpu_decay(s, t->attach_cpu, s->now);
		d = s->now > t->attach_ts ? sr_pelt_decay(s->now - t->attach_ts) : 1.0;
		if (!t->grp)
			c->load_avg += t->attach_load * (1.0 - d);
		c->util_avg += t->attach_util * (1.0 - d);
		c->runnable_avg += t->attach_run * (1.0 - d);
		c->attach_load = c->attach_load > t->attach_load * d ? c->attach_load - t->attach_load * d : 0;
		c->attach_util = c->attach_util > t->attach_util * d ? c->attach_util - t->attach_util * d : 0;
		c->attach_run = c->attach_run > t->attach_run * d ? c->attach_run - t->attach_run * d : 0;
	}
	t->attach_cpu = -1;
}

/*
 * Its enqueue (or its leaving before one).  Inline: every move asks, and
 * few tasks are attached early.
 */
static inline void attach_end(struct sr_state *s, struct sr_task *t)
{
	if (t->attach_cpu >= 0)
		attach_drop(s, t);
}

/*
 * The task's contribution leaves @from's sums: a sleeper's by
 * remove_entity_load_avg(), applied at @from's next update; a queued task's
 * (@queued) by detach_entity_load_avg() in the update of its dequeue.
 */
static void pelt_leave(struct sr_state *s, struct sr_task *t, int from, bool queued)
{
	attach_end(s, t);
	blocked_load(s, t, from, -1, queued);
	if (sr_st_cpu_ok(s, from)) {
		struct sr_cpu_state *c = &s->cpu[from];

		c->util_avg -= (double)t->v.util_avg;
		if (c->util_avg < 0)
			c->util_avg = 0;
		c->runnable_avg -= (double)t->v.runnable_avg;
		if (c->runnable_avg < 0)
			c->runnable_avg = 0;
	}
}

/*
 * A dead task's averages leave its CPU (task_dead_fair() ->
 * remove_entity_load_avg()) at that CPU's next update: the switch away
 * from it has run its newidle balance already.  A grouped task leaves its
 * group's sums at once (the group entity's own PELT is not followed).
 */
static void pelt_dead(struct sr_state *s, struct sr_task *t, int cpu)
{
	if (!sr_st_cpu_ok(s, cpu))
		return;
	if (t->grp) {
		pelt_leave(s, t, cpu, false);
		return;
	}
	sr_st_cpu_remove(s, cpu, (double)t->v.load_avg, (double)t->v.util_avg,
			 (double)t->v.runnable_avg);
}

/*
 * A sleeping task moved by its wakeup: migrate_task_rq_fair() syncs its
 * se.avg to the old cfs_rq's last update (sync_entity_load_avg()), not to
 * now — but from 6.0 on, off an idle CPU, migrate_se_pelt_lag() estimates
 * the time since and decays it to now — and enqueue_entity() attaches that
 * average to the new cfs_rq.
 */
static void pelt_sync_to_old(struct sr_state *s, struct sr_task *t, int from)
{
	uint64_t at;
	double d;

	if (!sr_st_sleep_held(t) || !sr_st_cpu_ok(s, from) ||
	    !t->v.weight)
		return;
	at = s->cfg.migrate_pelt_lag && !s->rq[from].curr_pid ? s->now : sr_st_cpu_k_time(s, from);
	at = at > t->sleep_ts ? at : t->sleep_ts;
	d = at > t->sleep_ts ? sr_pelt_decay(at - t->sleep_ts) : 1.0;
	t->load_frac = (double)t->sleep_load / (double)t->v.weight * d;
	t->util_frac = (double)t->sleep_util / (double)SR_CAPACITY_SCALE * d;
	t->run_frac = (double)t->sleep_run / (double)SR_CAPACITY_SCALE * d;
	sr_st_task_avgs(t);
	/* last_update_time is 0 until enqueue_entity() attaches it: no aging */
	t->pelt_held = true;
}

/* @enqueued: a sleeper enqueued on @to at once (sr_st_task_pulled()), not by a wakeup to come */
static void pelt_move(struct sr_state *s, struct sr_task *t, int from, int to, bool enqueued)
{
	if (from == to)
		return;
	pelt_leave(s, t, from, sr_st_on_rq(t->state));
	pelt_sync_to_old(s, t, from);
	t->pelt_held &= !enqueued;
	sr_st_blocked_load(s, t, to, +1);
	if (sr_st_cpu_ok(s, to)) {
		struct sr_cpu_state *c = &s->cpu[to];

		/* unclamped, as cfs_rq->avg.util_avg: cpu_util() caps it where it is read */
		c->util_avg += (double)t->v.util_avg;
		c->runnable_avg += (double)t->v.runnable_avg;
		if (t->state == SR_T_SLEEPING && !enqueued)
			attach_begin(s, t, to);
	}
}

/*
 * The one place a task changes state or CPU: keeps the runqueue sums exact.
 * @update: end with the kupdate of the task's CPU (false: the caller's own
 * follows before anything reads that CPU).  @enqueued: see pelt_move().
 */
static void task_move(struct sr_state *s, struct sr_task *t, enum sr_task_state st, int cpu,
		      bool update, bool enqueued)
{
	bool moved = cpu >= 0 && cpu != t->v.cpu;

	sr_st_task_pelt(s, t, s->now);
	/*
	 * The rq_account() calls publish only what no kupdate below publishes
	 * again: the old CPU's gets one when the task moves or stays alive.
	 */
	if (sr_st_on_rq(t->state))
		rq_account(s, t, t->v.cpu, -1, !moved && st == SR_T_DEAD);
	if (cpu >= 0 && cpu != t->v.cpu && t->state != SR_T_DEAD)
		pelt_move(s, t, t->v.cpu, cpu, enqueued);
	/*
	 * A queued task taken off another CPU (a balancer's pull): its
	 * migrating dequeue is an update of that cfs_rq which detaches it too
	 * (dequeue_entity() adds DO_DETACH, 6.1 and 6.12).
	 */
	if (sr_st_on_rq(t->state) && moved && sr_st_cpu_ok(s, t->v.cpu))
		sr_st_cpu_kupdate(s, t->v.cpu);
	if (st == SR_T_DEAD && t->state != SR_T_DEAD)
		pelt_dead(s, t, cpu >= 0 ? cpu : t->v.cpu);
	if (st == SR_T_SLEEPING && sr_st_on_rq(t->state)) {
		util_est_update(s, t);
		t->sleep_load = t->v.load_avg;
		t->sleep_util = t->v.util_avg;
		t->sleep_run = t->v.runnable_avg;
		t->sleep_ts = s->now;
		t->sleep_known = true;
	}
	t->state = st;
	if (st != SR_T_SLEEPING) {
		t->pelt_held = false;
		attach_end(s, t);	/* enqueued, or dead */
	}
	if (cpu >= 0)
		t->v.cpu = cpu;
	t->v.on_cpu = st == SR_T_RUNNING;
	if (sr_st_on_rq(st))
		rq_account(s, t, t->v.cpu, +1, false);
	/* task_dead_fair() only queues the removal for that CPU's next update */
	if (!update || !sr_st_cpu_ok(s, t->v.cpu) || st == SR_T_DEAD)
		return;
	if (st != SR_T_SLEEPING || enqueued)
		sr_st_cpu_kupdate(s, t->v.cpu);
	else if (moved)
		sr_st_cpu_moved_in(s, t->v.cpu);	/* a wakeup's move: enqueued later */
	else
		sr_st_cpu_kupdate_early(s, t->v.cpu);
}

void sr_st_task_move(struct sr_state *s, struct sr_task *t, enum sr_task_state st, int cpu)
{
	task_move(s, t, st, cpu, true, false);
}

/*
 * A switch's prev leaves @cpu for @st.  @update false: its kupdate of @cpu
 * is left to the switch's own, which follows with nothing between that
 * reads the CPU's averages or changes its sums (switch.c,
 * prev_update_later()): the same update at the same moment.
 */
void sr_st_task_switch_out(struct sr_state *s, struct sr_task *t, enum sr_task_state st, int cpu,
			   bool update)
{
	task_move(s, t, st, cpu, update, false);
}

/*
 * A switch's next task arrives on @cpu: the switch's own kupdate of @cpu
 * (sr_state_event()) comes after it with nothing reading the CPU between,
 * and makes the same update the move's would (same moment, same sums).
 */
void sr_st_task_switch_in(struct sr_state *s, struct sr_task *t, int cpu)
{
	task_move(s, t, SR_T_RUNNING, cpu, false, false);
}

/*
 * A balancer moved @t to @cpu: it moves only queued tasks, so one the trace
 * shows asleep was left queued by 6.12's delayed dequeue, and attach_task()
 * enqueued it there at once (attach_entity_load_avg() from enqueue_entity():
 * last_update_time was 0), an update of that cfs_rq, with no wakeup to wait for.
 */
void sr_st_task_pulled(struct sr_state *s, struct sr_task *t, int cpu)
{
	task_move(s, t, t->state, cpu, true, true);
}

/* A prio change while queued must move the task's weight in the rq sums too. */
void sr_st_task_set_prio(struct sr_state *s, struct sr_task *t, int prio)
{
	bool queued = sr_st_on_rq(t->state);

	if (prio < 0 || prio == t->v.prio)
		return;
	if (queued)
		rq_account(s, t, t->v.cpu, -1, false);	/* published by the +1 */
	t->v.prio = prio;
	t->v.policy = prio < SR_MAX_RT_PRIO ? SR_SCHED_RT : SR_SCHED_NORMAL;
	/* RT prios hide the nice value: se.load.weight is assumed nice 0 (no CFS load). */
	t->v.weight = prio < SR_MAX_RT_PRIO ? SR_NICE_0_LOAD : sr_prio_to_weight(prio);
	if (queued)
		sr_st_rq_account(s, t, t->v.cpu, +1);
}

/*
 * The first record after a lost window on @cpu (its last record before the
 * gap at @after): a task the state has asleep there may have been woken
 * by @cpu itself inside the window — no other CPU recorded its
 * sched_waking — and run, slept, moved or died there unseen (hackbench
 * workers forked on a CPU and asleep a few milliseconds before a window
 * of 73 ms: every one ran and exited in it).  Its own record decides which
 * is likelier: one asleep for less time before the window than the window
 * lasted most likely woke in it, and the blocked average the state keeps
 * for it (update_load_avg() never saw it go) is no longer the kernel's:
 * it leaves the CPU's sums (remove_entity_load_avg(), as for a task gone),
 * and the task's own averages, unknown, restart from zero.  A longer
 * sleeper keeps its place and average.
 */
void sr_st_lost_sleepers(struct sr_state *s, int cpu, uint64_t after)
{
	if (!after)
		return;
	for (size_t i = 0; i < s->tasks.nr_slots; i++) {
		struct sr_task *t = sr_state_task_at(s, i);
		uint64_t from, asleep;

		if (!t || t->state != SR_T_SLEEPING || t->v.cpu != cpu || t->grp || !t->sleep_known)
			continue;
		from = t->sleep_ts > after ? t->sleep_ts : after;
		asleep = after > t->sleep_ts ? after - t->sleep_ts : 0;
		if (s->now - from <= asleep)
			continue;
		sr_st_task_pelt(s, t, s->now);
		pelt_leave(s, t, cpu, false);
		t->load_frac = t->util_frac = t->run_frac = 0;
		t->sleep_load = t->sleep_util = t->sleep_run = 0;
		sr_st_task_avgs(t);
	}
}
