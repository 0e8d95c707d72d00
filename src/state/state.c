// SPDX-License-Identifier: GPL-2.0
/*
 * Runqueue state machine: one handler per tracepoint, as perf sched does.
 *
 * Counting rule: a task contributes to its CPU's nr_running and load
 * weight while it is RUNNING or QUEUED there.  A switch to the idle task
 * proves the runqueue empty, so stale entries (lost events, missed
 * migrations) are dropped there; a CPU with lost events stays uncertain
 * until its next sched_switch.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "state.h"
#include "state.h"

#define PELT_HALFLIFE_NS	33554432.0	/* 32 periods of 1024 * 1024 ns */
#define PELT_WARM_NS		362000000ULL	/* LOAD_AVG_MAX_N = 345 periods */
#define AVG_IDLE_MAX_NS		1000000ULL	/* 2 * max_idle_balance_cost default */

double sr_pelt_decay(uint64_t dt)
{
	return exp2(-(double)dt / PELT_HALFLIFE_NS);
}

/* ---------------------------------------------------------------- tasks */

static size_t pid_hash(int pid, size_t slots)
{
	return ((uint32_t)pid * 2654435761u) & (slots - 1);
}

struct sr_task *sr_state_task(const struct sr_state *s, int pid)
{
	size_t i;

	if (pid <= 0)
		return NULL;
	for (i = pid_hash(pid, s->nr_slots); s->tasks[i]; i = (i + 1) & (s->nr_slots - 1))
		if (s->tasks[i]->v.pid == pid)
			return s->tasks[i];
	return NULL;
}

static int grow_tasks(struct sr_state *s)
{
	size_t n = s->nr_slots * 2;
	struct sr_task **t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_slots; i++) {
		size_t j;

		if (!s->tasks[i])
			continue;
		for (j = pid_hash(s->tasks[i]->v.pid, n); t[j]; j = (j + 1) & (n - 1))
			;
		t[j] = s->tasks[i];
	}
	free(s->tasks);
	s->tasks = t;
	s->nr_slots = n;
	return 0;
}

static void task_reset(struct sr_task *t, int pid, uint64_t now)
{
	struct sr_brief *dec = t->dec;

	memset(t, 0, sizeof(*t));
	t->dec = dec;
	t->v.pid = pid;
	t->v.prio = 120;
	t->v.weight = SR_NICE_0_LOAD;
	t->v.cpu = -1;
	t->v.recent_used_cpu = -1;
	t->last_out_cpu = -1;
	t->pend_ttwu_cpu = -1;
	t->first_seen = now;
	t->pelt_ts = now;
}

/* Find or create the task for @pid; NULL for the idle task or on ENOMEM. */
static struct sr_task *task_get(struct sr_state *s, int pid)
{
	struct sr_task *t = sr_state_task(s, pid);
	size_t i;

	if (t || pid <= 0)
		return t;
	if ((s->nr_tasks + 1) * 2 > s->nr_slots && grow_tasks(s))
		return NULL;
	t = malloc(sizeof(*t));
	if (!t)
		return NULL;
	t->dec = NULL;
	task_reset(t, pid, s->now);
	for (i = pid_hash(pid, s->nr_slots); s->tasks[i]; i = (i + 1) & (s->nr_slots - 1))
		;
	s->tasks[i] = t;
	s->nr_tasks++;
	return t;
}


/* Advance the task's PELT fractions to @now under its current state. */
static void task_pelt(struct sr_state *s, struct sr_task *t, uint64_t now)
{
	double d, runnable, running;

	if (now <= t->pelt_ts)
		return;
	d = sr_pelt_decay(now - t->pelt_ts);
	runnable = t->state == SR_T_RUNNING || t->state == SR_T_QUEUED;
	running = t->state == SR_T_RUNNING;
	t->load_frac = t->load_frac * d + runnable * (1.0 - d);
	t->util_frac = t->util_frac * d + running * (1.0 - d);
	t->pelt_ts = now;
	t->v.load_avg = (unsigned long)(t->load_frac * (double)t->v.weight + 0.5);
	t->v.util_avg = (unsigned long)(t->util_frac * 1024.0 + 0.5);
	t->v.pelt_warm = t->forked || now - t->first_seen >= PELT_WARM_NS;
}

/* ----------------------------------------------------------------- CPUs */

static bool cpu_ok(const struct sr_state *s, int cpu)
{
	return cpu >= 0 && cpu < s->cfg.nr_cpus;
}

/* Close the CPU's time accounting and PELT averages up to @now. */
static void cpu_advance(struct sr_state *s, int cpu, uint64_t now)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];
	double d;

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
	if (c->pelt_ts && now > c->pelt_ts) {
		d = sr_pelt_decay(now - c->pelt_ts);
		c->load_avg = c->load_avg * d + (double)rq->load_weight * (1.0 - d);
		c->runnable_avg = c->runnable_avg * d + (double)rq->load_weight * (1.0 - d);
		c->util_avg = c->util_avg * d + (rq->curr_pid ? 1024.0 : 0.0) * (1.0 - d);
	}
	if (!c->pelt_ts || now > c->pelt_ts)
		c->pelt_ts = now;
	rq->load_avg = c->load_avg > 0 ? (unsigned long)(c->load_avg + 0.5) : 0;
	rq->runnable_load_avg = c->runnable_avg > 0 ? (unsigned long)(c->runnable_avg + 0.5) : 0;
	rq->util_avg = (unsigned long)(c->util_avg + 0.5);
}

static bool on_rq(enum sr_task_state st)
{
	return st == SR_T_RUNNING || st == SR_T_QUEUED;
}

static void rq_account(struct sr_state *s, struct sr_task *t, int cpu, int sign)
{
	struct sr_rq *rq;

	if (!cpu_ok(s, cpu))
		return;
	rq = &s->rq[cpu];
	cpu_advance(s, cpu, s->now);
	if (sign > 0) {
		rq->nr_running++;
		if (t->v.policy != SR_SCHED_RT) {
			rq->cfs_nr_running++;
			rq->load_weight += t->v.weight;
		}
		s->cpu[cpu].runnable_avg += (double)t->v.load_avg;
	} else {
		if (rq->nr_running)
			rq->nr_running--;
		if (t->v.policy != SR_SCHED_RT) {
			if (rq->cfs_nr_running)
				rq->cfs_nr_running--;
			rq->load_weight -= rq->load_weight >= t->v.weight ? t->v.weight :
					   rq->load_weight;
		}
		s->cpu[cpu].runnable_avg -= (double)t->v.load_avg;
		if (s->cpu[cpu].runnable_avg < 0)
			s->cpu[cpu].runnable_avg = 0;
	}
}

/* Move a task's blocked/attached PELT load between CPUs (attach/detach). */
static void pelt_move(struct sr_state *s, struct sr_task *t, int from, int to)
{
	if (from == to)
		return;
	if (cpu_ok(s, from)) {
		cpu_advance(s, from, s->now);
		s->cpu[from].load_avg -= (double)t->v.load_avg;
		if (s->cpu[from].load_avg < 0)
			s->cpu[from].load_avg = 0;
	}
	if (cpu_ok(s, to)) {
		cpu_advance(s, to, s->now);
		s->cpu[to].load_avg += (double)t->v.load_avg;
	}
}

/* The one place a task changes state or CPU: keeps the runqueue sums exact. */
static void task_move(struct sr_state *s, struct sr_task *t, enum sr_task_state st, int cpu)
{
	task_pelt(s, t, s->now);
	if (on_rq(t->state))
		rq_account(s, t, t->v.cpu, -1);
	if (cpu >= 0 && cpu != t->v.cpu)
		pelt_move(s, t, t->v.cpu, cpu);
	t->state = st;
	if (cpu >= 0)
		t->v.cpu = cpu;
	t->v.on_cpu = st == SR_T_RUNNING;
	if (on_rq(st))
		rq_account(s, t, t->v.cpu, +1);
}

/* A prio change while queued must move the task's weight in the rq sums too. */
static void task_set_prio(struct sr_state *s, struct sr_task *t, int prio)
{
	bool queued = on_rq(t->state);

	if (prio < 0 || prio == t->v.prio)
		return;
	if (queued)
		rq_account(s, t, t->v.cpu, -1);
	t->v.prio = prio;
	t->v.policy = prio < 100 ? SR_SCHED_RT : SR_SCHED_NORMAL;
	/* RT prios hide the nice value: se.load.weight is assumed nice 0 (no CFS load). */
	t->v.weight = prio < 100 ? SR_NICE_0_LOAD : sr_prio_to_weight(prio);
	if (queued)
		rq_account(s, t, t->v.cpu, +1);
}

/* ------------------------------------------------------------ wakeups */

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

/* record_wakee() as the kernel does it, seed 002's counters first (they share the stamp). */
static void track_wakee(struct sr_state *s, struct sr_task *waker, struct sr_task *p, int cpu)
{
	uint64_t jiffies = s->now / (1000000000ULL / (uint64_t)s->cfg.hz);
	int llc = sr_llc_size(s->cfg.topo, cpu);

	sr_record_wakee_heavy(&waker->v, &p->v, jiffies, (unsigned int)s->cfg.hz, llc);
	sr_record_wakee(&waker->v, &p->v, jiffies, (unsigned int)s->cfg.hz, llc);
}

/*
 * ttwu_queue(): a wakeup to another CPU that is idle (6.0+) or in another
 * LLC goes through that CPU's wakelist, and the target reads as busy
 * (rq->ttwu_pending) until it runs the list and emits sched_wakeup there
 * — milliseconds on an overcommitted VM.  Until a sched_migrate_task names
 * the target, the task is assumed to stay on prev.
 */
static void ttwu_unmark(struct sr_state *s, struct sr_task *p)
{
	int cpu = p->pend_ttwu_cpu;

	if (cpu < 0)
		return;
	p->pend_ttwu_cpu = -1;
	if (s->cpu[cpu].ttwu_pending && !--s->cpu[cpu].ttwu_pending)
		s->rq[cpu].ttwu_pending = false;
}

static void ttwu_mark(struct sr_state *s, struct sr_task *p, int waker_cpu, int target)
{
	const struct sr_rq *rq;

	ttwu_unmark(s, p);
	if (!cpu_ok(s, target) || !cpu_ok(s, waker_cpu) || target == waker_cpu)
		return;
	rq = &s->rq[target];
	if ((rq->curr_pid || rq->nr_running) && sr_cpus_share_cache(s->cfg.topo, waker_cpu, target))
		return;
	p->pend_ttwu_cpu = target;
	s->cpu[target].ttwu_pending++;
	s->rq[target].ttwu_pending = true;
}

static bool cpu_uncertain(const struct sr_state *s, int cpu)
{
	return cpu_ok(s, cpu) && s->rq[cpu].uncertain;
}

/* has_idle_cores per LLC, as the kernel's hint would read when exact. */
static void fill_llc_hints(struct sr_state *s)
{
	const struct sr_topo *topo = s->cfg.topo;

	for (int cpu = 0; cpu < s->cfg.nr_cpus; cpu++) {
		bool idle_core = false;
		int c, o;

		if (topo->cpu[cpu].llc_id != cpu)
			continue;
		sr_for_each_cpu(c, &topo->cpu[cpu].llc) {
			bool all = true;

			sr_for_each_cpu(o, &topo->cpu[c].smt)
				if (s->rq[o].curr_pid || s->rq[o].nr_running)
					all = false;
			if (all) {
				idle_core = true;
				break;
			}
		}
		sr_for_each_cpu(c, &topo->cpu[cpu].llc) {
			s->llc[c].has_idle_cores = idle_core;
			s->llc[c].nr_idle_scan = -1;
		}
	}
}

/*
 * Run the policies at the moment of a placement.  Wakeups: this_cpu is the
 * waking CPU and prev the task's CPU.  Forks (wake_up_new_task()): both are
 * the parent's CPU, where sched_fork() put the child, and there is no sync.
 */
static int run_placement(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
			 enum sr_wake_kind kind, int prev)
{
	struct sr_task *waker = task_get(s, ev->common_pid);
	struct sr_wake_ctx ctx = {
		.now = ev->ts, .kind = kind, .this_cpu = ev->cpu, .prev_cpu = prev,
		.sync = kind == SR_WAKE_TTWU ? SR_UNKNOWN : SR_NO, .p = &p->v,
		.rq = s->rq, .llc = s->llc, .topo = s->cfg.topo,
		/*
		 * WF_SYNC comes from the *_sync wait-queue wakeups: a task writing
		 * to a pipe or socket.  Interrupts, timers and the idle task rarely
		 * issue them, so guess sync for task-context wakeups by a task.
		 */
		.sync_guess = ev->common_pid > 0 && !ev->irq_context ? SR_YES : SR_NO,
	};

	if (!s->cfg.hooks.placement || !s->cfg.nr_policies || !cpu_ok(s, prev))
		return 0;
	if (!p->dec) {
		p->dec = calloc(s->cfg.nr_policies, sizeof(*p->dec));
		if (!p->dec)
			return -ENOMEM;
	}
	for (int c = 0; c < s->cfg.nr_cpus; c++)
		cpu_advance(s, c, s->now);
	/* has_idle_cores only matters where SMT exists (sched_smt_active()) */
	if (s->cfg.topo->smt_max > 1)
		fill_llc_hints(s);
	if (waker) {
		task_pelt(s, waker, s->now);
		ctx.curr = &waker->v;
	}
	ctx.unknown = SR_DEP_IDLE_HINT | SR_DEP_SCAN_COST;
	if (!s->cfg.root_cgroup)
		ctx.unknown |= SR_DEP_CGROUP;
	if (!p->v.pelt_warm || (waker && !waker->v.pelt_warm))
		ctx.unknown |= SR_DEP_PELT_WARMUP;
	if (s->cfg.topo->source == SR_TOPO_ASSUMED_FLAT)
		ctx.unknown |= SR_DEP_TOPOLOGY;
	for (int c = 0; c < s->cfg.nr_cpus; c++)
		if (s->rq[c].uncertain)
			ctx.unknown |= SR_DEP_LOST_EVENTS;
	return s->cfg.hooks.placement(s->cfg.hooks.data, &ctx, p->dec);
}

static int on_waking(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = task_get(s, ev->pid);
	int ret = 0;

	if (!p)
		return 0;
	ttwu_unmark(s, p);
	if (p->pending)
		s->wc.unpaired++;
	task_set_prio(s, p, ev->prio);
	task_pelt(s, p, s->now);
	p->pending = true;
	p->pend_ts = ev->ts;
	p->pend_cpu = ev->cpu;
	p->pend_prev = ev->target_cpu;
	p->pend_waker = ev->common_pid;
	p->pend_cls = classify(p);
	p->pend_migrations = 0;
	p->pend_prev_idle = cpu_ok(s, ev->target_cpu) && !s->rq[ev->target_cpu].curr_pid &&
			    !s->rq[ev->target_cpu].nr_running;
	if (p->pend_cls == SR_W_PLACED) {
		struct sr_task *waker = task_get(s, ev->common_pid);

		if (waker && waker != p)
			track_wakee(s, waker, p, ev->cpu);
		ret = run_placement(s, p, ev, SR_WAKE_TTWU, ev->target_cpu);
		ttwu_mark(s, p, ev->cpu, ev->target_cpu);
	}
	return ret;
}

static int emit_wakeup(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
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
	w.uncertain = cpu_uncertain(s, w.waker_cpu) || cpu_uncertain(s, w.cpu) ||
		      cpu_uncertain(s, w.prev_cpu);
	w.target_idle = cpu_ok(s, w.cpu) && !s->rq[w.cpu].curr_pid;
	s->wc.cls[w.cls]++;
	if (w.uncertain)
		s->wc.uncertain++;
	if (w.cls == SR_W_PLACED) {
		if (w.cpu == w.prev_cpu)
			w.actual = SR_O_PREV;
		else if (w.cpu == w.waker_cpu)
			w.actual = SR_O_WAKER;
		else
			w.actual = SR_O_OTHER;
		s->wc.actual[w.actual]++;
		w.index = ++s->nr_placed;
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

static int on_wakeup(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = task_get(s, ev->pid);
	int ret = 0;

	if (!p)
		return 0;
	ttwu_unmark(s, p);
	task_set_prio(s, p, ev->prio);
	if (p->pending) {
		ret = emit_wakeup(s, p, ev, true);
		p->pending = false;
	} else if (s->cfg.has_waking) {
		s->wc.unpaired++;
		p->note.pending_run = false;
	} else {
		ret = emit_wakeup(s, p, ev, false);
	}
	task_move(s, p, SR_T_QUEUED, cpu_ok(s, ev->target_cpu) ? ev->target_cpu : -1);
	return ret;
}

/* A fork placement, replayed like a wakeup but reported apart (w.fork). */
static int emit_fork(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	struct sr_wakeup w = {
		.ts = ev->ts, .ts_wakeup = ev->ts, .task = p, .fork = true,
		.waker_cpu = ev->cpu, .waker_pid = ev->common_pid, .prev_cpu = ev->cpu,
		.cpu = ev->target_cpu, .cls = SR_W_NR, .since_out = -1,
		.dec = p->dec, .nr_dec = p->dec ? s->cfg.nr_policies : 0,
	};
	int ret;

	w.uncertain = cpu_uncertain(s, w.waker_cpu) || cpu_uncertain(s, w.cpu);
	w.target_idle = cpu_ok(s, w.cpu) && !s->rq[w.cpu].curr_pid;
	ret = run_placement(s, p, ev, SR_WAKE_FORK, ev->cpu);
	if (ret || !p->dec || !s->cfg.hooks.wakeup)
		return ret;
	w.dec = p->dec;
	w.nr_dec = s->cfg.nr_policies;
	return s->cfg.hooks.wakeup(s->cfg.hooks.data, &w);
}

static int on_wakeup_new(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = task_get(s, ev->pid);
	int ret;

	s->wc.wakeup_new++;
	if (!p)
		return 0;
	task_set_prio(s, p, ev->prio);
	/* init_entity_runnable_average(): a new task starts at full load. */
	if (p->forked)
		p->load_frac = 1.0;
	ret = emit_fork(s, p, ev);
	p->note = (struct sr_wake_note){ .ts = ev->ts, .ts_wakeup = ev->ts,
		.cpu = (int16_t)ev->target_cpu, .prev_cpu = -1, .waker_cpu = (int16_t)ev->cpu,
		.cls = SR_W_NR, .pending_run = false };
	task_move(s, p, SR_T_QUEUED, cpu_ok(s, ev->target_cpu) ? ev->target_cpu : -1);
	return ret;
}

/* ------------------------------------------------------- other handlers */

/* An idle switch proves the runqueue empty: drop what we still count there. */
static void resync_idle(struct sr_state *s, int cpu)
{
	if (!s->rq[cpu].nr_running)
		return;
	for (size_t i = 0; i < s->nr_slots; i++) {
		struct sr_task *t = s->tasks[i];

		if (t && on_rq(t->state) && t->v.cpu == cpu) {
			task_move(s, t, SR_T_UNKNOWN, -1);
			s->cpu[cpu].resyncs++;
		}
	}
	s->rq[cpu].nr_running = 0;
	s->rq[cpu].cfs_nr_running = 0;
	s->rq[cpu].load_weight = 0;
}

/*
 * Every sched event names the task current on its CPU (common_pid).  When
 * that is not the task we saw switched in, a switch was not recorded: the
 * task we had loses its state (its switch-out is unknown) and the one
 * named becomes current, from an unknown time on.
 */
static void resync_curr(struct sr_state *s, int cpu, int pid)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];
	struct sr_task *t = pid > 0 ? task_get(s, pid) : NULL;

	rq->uncertain = true;		/* the time since the last update is unknown */
	cpu_advance(s, cpu, s->now);
	c->mismatches++;
	if (c->curr && c->curr->state == SR_T_RUNNING && c->curr->v.cpu == cpu)
		task_move(s, c->curr, SR_T_UNKNOWN, -1);
	if (t) {
		task_move(s, t, SR_T_RUNNING, cpu);
		t->last_in = s->now;
		t->note.pending_run = false;	/* its switch-in time is unknown */
	}
	c->curr = t;
	rq->curr_pid = t ? pid : 0;
	rq->curr_policy = t ? t->v.policy : SR_SCHED_NORMAL;
	rq->idle_since = t ? 0 : s->now;
	rq->uncertain = false;
}

static int on_switch(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_cpu_state *c = &s->cpu[ev->cpu];
	struct sr_rq *rq = &s->rq[ev->cpu];
	struct sr_task *prev = task_get(s, ev->pid);
	struct sr_task *next = task_get(s, ev->next_pid);
	int ret = 0;

	/* The task we saw switched in is not the one switching out: rule 1. */
	if (c->curr_known && rq->curr_pid != (ev->pid > 0 ? ev->pid : 0))
		resync_curr(s, ev->cpu, ev->pid);
	cpu_advance(s, ev->cpu, s->now);
	if (prev) {
		static const enum sr_task_state to[] = {
			[SR_PS_RUNNING] = SR_T_QUEUED, [SR_PS_SLEEPING] = SR_T_SLEEPING,
			[SR_PS_DEAD] = SR_T_DEAD,
		};

		memcpy(prev->comm, ev->comm, SR_COMM_LEN);
		task_set_prio(s, prev, ev->prio);
		if (prev->state == SR_T_RUNNING && prev->v.cpu == ev->cpu)
			prev->runtime += ev->ts - prev->last_in;
		task_move(s, prev, to[ev->prev_state], ev->cpu);
		prev->v.last_switch_out = ev->ts;
		prev->v.exec_start = ev->ts;
		prev->last_out_cpu = ev->cpu;
	}
	if (ev->next_pid == 0) {
		if (rq->curr_pid || !c->curr_known)
			rq->idle_since = ev->ts;
		resync_idle(s, ev->cpu);
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
		memcpy(next->comm, ev->next_comm, SR_COMM_LEN);
		task_set_prio(s, next, ev->next_prio);
		task_move(s, next, SR_T_RUNNING, ev->cpu);
		next->last_in = ev->ts;
		next->v.exec_start = ev->ts;
		if (next->note.pending_run && s->cfg.hooks.run)
			ret = s->cfg.hooks.run(s->cfg.hooks.data, next, ev->cpu, ev->ts);
		next->note.pending_run = false;
	}
	c->curr = next;
	c->curr_known = true;
	rq->curr_pid = ev->next_pid > 0 ? ev->next_pid : 0;
	rq->curr_policy = next ? next->v.policy : SR_SCHED_NORMAL;
	rq->uncertain = false;
	return ret;
}

static void on_migrate(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = task_get(s, ev->pid);

	if (!p || !cpu_ok(s, ev->dest_cpu))
		return;
	task_set_prio(s, p, ev->prio);
	if (p->pending) {
		p->pend_migrations++;
		/* emitted on the waker's CPU right after selection: now the target is known */
		if (p->pend_ttwu_cpu >= 0 || p->pend_cls == SR_W_PLACED)
			ttwu_mark(s, p, p->pend_cpu, ev->dest_cpu);
	}
	task_move(s, p, p->state, ev->dest_cpu);
}

static void on_fork(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *child = sr_state_task(s, ev->child_pid);
	struct sr_task *parent = task_get(s, ev->pid);

	if (child) {
		/* pid reuse: the old task is gone; forget it, uncounted. */
		s->pid_reuse++;
		ttwu_unmark(s, child);
		if (on_rq(child->state))
			task_move(s, child, SR_T_UNKNOWN, -1);
		task_reset(child, ev->child_pid, s->now);
	} else {
		child = task_get(s, ev->child_pid);
		if (!child)
			return;
	}
	child->forked = true;
	memcpy(child->comm, ev->next_comm, SR_COMM_LEN);
	if (parent)
		task_set_prio(s, child, parent->v.prio);
}

int sr_state_event(struct sr_state *s, const struct sr_event *ev)
{
	if (!cpu_ok(s, ev->cpu))
		return 0;
	if (ev->ts > s->now)
		s->now = ev->ts;
	if (ev->missed_before) {
		cpu_advance(s, ev->cpu, s->now);
		s->rq[ev->cpu].uncertain = true;
	}
	/* Rule 3: any other sched event names the CPU's current task. */
	if (ev->type != SR_EV_SWITCH && ev->type != SR_EV_OTHER && ev->common_pid >= 0 &&
	    s->cpu[ev->cpu].curr_known && ev->common_pid != s->rq[ev->cpu].curr_pid)
		resync_curr(s, ev->cpu, ev->common_pid);
	switch (ev->type) {
	case SR_EV_SWITCH:
		return on_switch(s, ev);
	case SR_EV_WAKING:
		return on_waking(s, ev);
	case SR_EV_WAKEUP:
		return on_wakeup(s, ev);
	case SR_EV_WAKEUP_NEW:
		return on_wakeup_new(s, ev);
	case SR_EV_MIGRATE:
		on_migrate(s, ev);
		return 0;
	case SR_EV_FORK:
		on_fork(s, ev);
		return 0;
	default:
		return 0;
	}
}

void sr_state_finish(struct sr_state *s, uint64_t end)
{
	if (end > s->now)
		s->now = end;
	for (int c = 0; c < s->cfg.nr_cpus; c++)
		cpu_advance(s, c, s->now);
	for (size_t i = 0; i < s->nr_slots; i++) {
		if (s->tasks[i] && s->tasks[i]->pending) {
			s->wc.unpaired++;
			s->tasks[i]->pending = false;
			ttwu_unmark(s, s->tasks[i]);
		}
	}
}

int sr_state_init(struct sr_state *s, const struct sr_state_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	if (cfg->nr_cpus <= 0 || cfg->nr_cpus > SR_MAX_CPUS || !cfg->topo ||
	    cfg->topo->nr_cpus < cfg->nr_cpus || cfg->hz <= 0)
		return -EINVAL;
	s->cfg = *cfg;
	s->rq = calloc(cfg->nr_cpus, sizeof(*s->rq));
	s->cpu = calloc(cfg->nr_cpus, sizeof(*s->cpu));
	s->llc = calloc(cfg->nr_cpus, sizeof(*s->llc));
	for (int c = 0; s->llc && c < cfg->nr_cpus; c++)
		s->llc[c].nr_idle_scan = -1;
	s->nr_slots = 1024;
	s->tasks = calloc(s->nr_slots, sizeof(*s->tasks));
	if (!s->rq || !s->cpu || !s->llc || !s->tasks) {
		sr_state_fini(s);
		return -ENOMEM;
	}
	for (int c = 0; c < cfg->nr_cpus; c++) {
		const struct sr_cpu_ingest *in = cfg->initial ? &cfg->initial[c] : NULL;
		int curr = in ? (in->first_pid >= 0 ? in->first_pid : 0) : -1;

		s->rq[c].capacity = SR_CAPACITY_SCALE;
		s->rq[c].avg_idle = AVG_IDLE_MAX_NS;
		s->rq[c].uncertain = curr < 0;	/* else until its first sched_switch */
		if (curr < 0)
			continue;
		/* Known from its first record on: the task itself stays unknown until it switches. */
		s->cpu[c].curr_known = true;
		s->cpu[c].since = in->first_pid >= 0 ? in->first_ts : cfg->start;
		s->rq[c].curr_pid = curr;
		s->rq[c].idle_since = curr ? 0 : s->cpu[c].since;
	}
	return 0;
}

void sr_state_fini(struct sr_state *s)
{
	if (s->tasks) {
		for (size_t i = 0; i < s->nr_slots; i++) {
			if (s->tasks[i]) {
				free(s->tasks[i]->dec);
				free(s->tasks[i]);
			}
		}
	}
	free(s->tasks);
	free(s->rq);
	free(s->cpu);
	free(s->llc);
	memset(s, 0, sizeof(*s));
}

const char *sr_task_state_name(enum sr_task_state st)
{
	static const char *const n[] = { "unknown", "running", "queued", "sleeping", "dead" };

	return (unsigned int)st < SR_ARRAY_SIZE(n) ? n[st] : "invalid";
}

const char *sr_wclass_name(enum sr_wclass c)
{
	static const char *const n[] = { "placed", "runnable", "unknown" };

	return (unsigned int)c < SR_ARRAY_SIZE(n) ? n[c] : "invalid";
}

const char *sr_outcome_name(enum sr_outcome o)
{
	static const char *const n[] = { "prev", "waker", "other" };

	return (unsigned int)o < SR_ARRAY_SIZE(n) ? n[o] : "invalid";
}
