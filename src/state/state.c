// SPDX-License-Identifier: GPL-2.0
/*
 * Runqueue state machine: one handler per tracepoint, as perf sched does.
 * This file holds the life cycle, the task table and the dispatch; the
 * handlers live in runqueue.c (accounting and PELT), wakeup.c (waking,
 * wakeup, wakeup_new, migrate: the placements) and switch.c (sched_switch
 * and the resynchronisation rules).
 *
 * Counting rule: a task contributes to its CPU's nr_running and load
 * weight while it is RUNNING or QUEUED there.  A switch to the idle task
 * proves the runqueue empty, so stale entries (lost events, missed
 * migrations) are dropped there; a CPU with lost events stays uncertain
 * until its next sched_switch.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "state-priv.h"

/* ---------------------------------------------------------------- tasks */

struct sr_task *sr_state_task(const struct sr_state *s, int pid)
{
	const struct sr_task_slot *slot = sr_pidtab_find(&s->tasks, pid);

	return slot ? slot->t : NULL;
}

struct sr_task *sr_state_task_at(const struct sr_state *s, size_t i)
{
	const struct sr_task_slot *slot = sr_pidtab_slot(&s->tasks, i);

	return slot->pid ? slot->t : NULL;
}

void sr_st_task_reset(struct sr_task *t, int pid, uint64_t now)
{
	struct sr_brief *dec = t->dec, *exec_dec = t->exec.dec, *spec = t->exec.spec;

	memset(t, 0, sizeof(*t));
	t->dec = dec;
	t->exec.dec = exec_dec;
	t->exec.spec = spec;
	t->exec.slices = 2;		/* no exec window known: as if it ran in several slices */
	t->exec.window_cpu = -2;	/* ... on several CPUs */
	t->comm_fnv = SR_FNV_BASIS;	/* of the empty comm */
	t->v.pid = pid;
	t->v.prio = SR_DEFAULT_PRIO;
	t->v.weight = SR_NICE_0_LOAD;
	t->v.cpu = -1;
	t->v.recent_used_cpu = -1;
	t->v.wakee_flips_max = UINT_MAX;	/* its flips before the trace: unknown */
	t->bound_cpu = -1;
	t->delayed_cpu = -1;
	t->flips_fam = -1;
	t->last_out_cpu = -1;
	t->pend_ttwu_cpu = -1;
	t->pend_flight_cpu = -1;
	t->attach_cpu = -1;
	t->first_seen = now;
	t->pelt_ts = now;
}

struct sr_task *sr_st_waker(struct sr_state *s, int pid, int cpu)
{
	if (pid == 0 && sr_st_cpu_ok(s, cpu))
		return &s->cpu[cpu].idle;
	return sr_st_task_on(s, pid, cpu);
}

/*
 * The task of @pid, most often the one current on @cpu (a waker, a
 * switch's prev): that task, with no table lookup, when it is the one.
 * The table's task of a pid keeps its address for the whole pass, so
 * c->curr is that task; and a lookup skipped here grows the table no
 * later than it would have, before the next insertion.
 */
struct sr_task *sr_st_task_on(struct sr_state *s, int pid, int cpu)
{
	struct sr_task *t = sr_st_cpu_ok(s, cpu) ? s->cpu[cpu].curr : NULL;

	return t && pid > 0 && t->v.pid == pid ? t : sr_st_task_get(s, pid);
}

/* sr_st_task_get() of a pid not seen before: its slot is taken, its task made here. */
struct sr_task *sr_st_task_new(struct sr_state *s, struct sr_task_slot *slot, int pid)
{
	slot->t = malloc(sizeof(*slot->t));
	if (!slot->t)
		return NULL;
	slot->t->dec = NULL;
	slot->t->exec.dec = NULL;
	slot->t->exec.spec = NULL;
	sr_st_task_reset(slot->t, pid, s->now);
	slot->t->allowed = sr_st_affinity_of(s, pid);
	if (slot->t->allowed)
		sr_st_task_bind(s, slot->t);
	if (s->cfg.nr_cgroup_members)
		sr_st_group_member(s, slot->t);
	return slot->t;
}

static void on_fork(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *child = sr_state_task(s, ev->child_pid);
	struct sr_task *parent = sr_st_task_get(s, ev->pid);
	const struct sr_cpumask *own;

	if (child) {
		/* pid reuse: the old task is gone; forget it, uncounted. */
		s->pid_reuse++;
		sr_st_ttwu_unmark(s, child);
		if (sr_st_on_rq(child->state))
			sr_st_task_move(s, child, SR_T_UNKNOWN, -1);
		sr_st_task_reset(child, ev->child_pid, s->now);
	} else {
		child = sr_st_task_get(s, ev->child_pid);
		if (!child)
			return;
	}
	child->forked = true;
	/*
	 * dup_task_struct() copies cpus_mask: the parent's affinity, unless the
	 * snapshot names the child's own (taskset forks, sets it, then execs).
	 */
	own = sr_st_affinity_of(s, ev->child_pid);
	child->own_allowed = own;
	child->parent_allowed = parent ? parent->allowed : NULL;
	child->allowed = own ? own : child->parent_allowed;
	child->own_unset = own && own != child->parent_allowed;
	s->affinity_inherited += !own && child->allowed;
	sr_st_exec_window(child, ev->ts);	/* it can exec once it runs */
	child->exec.window_fork = true;
	sr_st_set_comm(s, child, ev->next_comm);
	sr_st_task_bind(s, child);
	if (parent)
		sr_st_group_inherit(s, child, parent);
	if (!parent)
		return;
	sr_st_task_set_prio(s, child, parent->v.prio);
	/* dup_task_struct() copies the waker bookkeeping; sched_fork() leaves it */
	child->v.wakee_flips = parent->v.wakee_flips;
	child->v.wakee_flips_min = parent->v.wakee_flips_min;
	child->v.wakee_flips_max = parent->v.wakee_flips_max;
	child->v.wakee_flips_heavy = parent->v.wakee_flips_heavy;
	child->v.wakee_flip_decay_ts = parent->v.wakee_flip_decay_ts;
	child->v.last_wakee = parent->v.last_wakee;
	child->v.last_wakee_not = parent->v.last_wakee ? 0 : parent->v.pid;
	sr_st_flips_inherit(s, child, parent);
}

/*
 * A CPU taken offline (hotplug) dies running its stopper, migration/N,
 * which is the last task it shows; nothing else tells it in the sched
 * events.  So a CPU that was running its stopper and then records nothing
 * for this long was offline, not busy: that time moves from busy to
 * unknown when its records resume (it was never a placement target: the
 * stopper is an RT task, so models saw it busy meanwhile).
 */
#define OFFLINE_SILENCE_NS	(500 * SR_NSEC_PER_MSEC)

static bool runs_stopper(const struct sr_state *s, int cpu)
{
	const struct sr_task *t = s->cpu[cpu].curr;

	return t && t->bound_cpu == cpu && !strncmp(t->comm, "migration/", 10);
}

static void note_silence(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_cpu_state *c = &s->cpu[ev->cpu];

	if (c->last_ts && ev->ts > c->last_ts && ev->ts - c->last_ts > OFFLINE_SILENCE_NS &&
	    runs_stopper(s, ev->cpu)) {
		uint64_t moved;

		sr_st_cpu_advance(s, ev->cpu, s->now);
		moved = c->busy_ns > c->busy_at_last ? c->busy_ns - c->busy_at_last : 0;
		c->busy_ns -= moved;
		c->unknown_ns += moved;
		c->nr_running_ns = c->nr_running_at_last;
		if (!c->offlines++) {
			c->offline_from = c->last_ts;
			c->offline_to = ev->ts;
		}
		c->offline_ns += ev->ts - c->last_ts;
	}
	c->last_ts = ev->ts;
	c->busy_at_last = c->busy_ns;
	c->nr_running_at_last = c->nr_running_ns;
}

/* sched_process_exit fires after exit_signals() set PF_EXITING. */
static void on_exit_event(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *t = sr_state_task(s, ev->pid);

	if (t)
		t->v.exiting = true;
}

/* A switch's handlers share its two tasks, looked up once (tasks are never freed mid-pass). */
static int on_switch_event(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *prev = sr_st_task_on(s, ev->pid, ev->cpu);
	struct sr_task *next = sr_st_task_get(s, ev->next_pid);
	int ret = sr_st_on_switch(s, ev, prev, next);

	sr_st_cpu_kupdate(s, ev->cpu);	/* dequeue, put_prev/set_next_entity() */
	ret = ret ? ret : sr_st_switch_done(s, ev, prev);
	if (!ret && prev && s->cfg.infer_chosen)
		ret = sr_st_infer_switched_out(s, prev, ev);
	return ret;
}

int sr_state_event(struct sr_state *s, const struct sr_event *ev)
{
	uint64_t after;		/* the CPU's last record before this one */
	int ret;

	if (!sr_st_cpu_ok(s, ev->cpu))
		return 0;
	after = s->cpu[ev->cpu].last_ts;
	if (ev->ts > s->now)
		s->now = ev->ts;
	if (!s->first_ts)
		s->first_ts = s->cfg.start ? s->cfg.start : ev->ts;
	note_silence(s, ev);
	sr_st_idle_stamp_bound(s, ev);
	if (ev->missed_before) {
		sr_st_cpu_advance(s, ev->cpu, s->now);
		if (!after)
			sr_st_pelt_trace_starts(s, ev->cpu);
		sr_st_lost_sleepers(s, ev->cpu, after);
		sr_st_rq_doubt(s, ev->cpu, true, s->rq[ev->cpu].idle_unrecorded);
	}
	/* Rule 3: any other sched event names the CPU's current task. */
	if (ev->type != SR_EV_SWITCH && ev->type != SR_EV_OTHER && ev->common_pid >= 0 &&
	    s->cpu[ev->cpu].curr_known && ev->common_pid != s->rq[ev->cpu].curr_pid)
		sr_st_resync_curr(s, ev->cpu, ev->common_pid);
	sr_st_exec_own_event(s, ev);
	/* traces without sched_wakeup: infer.c closes wakeups from what follows them */
	ret = sr_st_infer_before(s, ev);
	if (ret)
		return ret;
	sr_st_blocked_refresh(s);
	sr_st_ttwu_returned(s, ev);
	switch (ev->type) {
	case SR_EV_SWITCH:
		return on_switch_event(s, ev);
	case SR_EV_STAT_RUNTIME:
		s->ticks_seen = true;
		sr_st_cpu_kupdate(s, ev->cpu);	/* update_curr(): a tick, mostly */
		return 0;
	case SR_EV_WAKING:
		ret = sr_st_on_waking(s, ev);
		return ret ? ret : sr_st_infer_after(s, ev);
	case SR_EV_WAKEUP:
		return sr_st_on_wakeup(s, ev);
	case SR_EV_WAKEUP_NEW:
		return sr_st_on_wakeup_new(s, ev);
	case SR_EV_MIGRATE:
		return sr_st_on_migrate(s, ev);
	case SR_EV_EXIT:
		on_exit_event(s, ev);
		return 0;
	case SR_EV_FORK:
		on_fork(s, ev);
		return 0;
	case SR_EV_EXEC:
		return sr_st_on_exec(s, ev);
	case SR_EV_AUTOGROUP:
	case SR_EV_CGROUP_ATTACH:
		sr_st_on_group_event(s, ev);
		return 0;
	case SR_EV_CPUHP_ENTER:
	case SR_EV_CPUHP_EXIT:
		sr_st_on_cpuhp(s, ev);
		return 0;
	case SR_EV_SELECT ... SR_EV_RQS:
		return sr_st_on_probe(s, ev);
	default:
		return 0;
	}
}

void sr_state_finish(struct sr_state *s, uint64_t end)
{
	if (end > s->now)
		s->now = end;
	sr_st_cpu_advance_all(s);
	for (size_t i = 0; i < s->tasks.nr_slots; i++) {
		struct sr_task *t = sr_state_task_at(s, i);

		if (t && t->pending && t->pend_await_switch) {
			sr_st_infer_finish(s, t);
		} else if (t && t->pending) {
			s->wc.unpaired++;
			t->pending = false;
			sr_st_ttwu_unmark(s, t);
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
	s->tick_late_ns = SR_NSEC_PER_SEC / (uint64_t)cfg->hz;
	s->rq = calloc(cfg->nr_cpus, sizeof(*s->rq));
	s->rq_scratch = calloc(cfg->nr_cpus, sizeof(*s->rq_scratch));
	s->cpu = calloc(cfg->nr_cpus, sizeof(*s->cpu));
	s->llc = calloc(cfg->nr_cpus, sizeof(*s->llc));
	s->idle_cores = calloc(cfg->nr_cpus, sizeof(*s->idle_cores));
	s->idle_cores_known = calloc(cfg->nr_cpus, sizeof(*s->idle_cores_known));
	s->idle_cores_held = calloc(cfg->nr_cpus, sizeof(*s->idle_cores_held));
	s->llc_idle_core = calloc(cfg->nr_cpus, sizeof(*s->llc_idle_core));
	s->llc_idle_core_valid = calloc(cfg->nr_cpus, sizeof(*s->llc_idle_core_valid));
	s->one_cpu = calloc(cfg->nr_cpus, sizeof(*s->one_cpu));
	s->scan = calloc(cfg->nr_cpus, sizeof(*s->scan));
	s->llcs = calloc(cfg->nr_cpus, sizeof(*s->llcs));
	for (int c = 0; s->llc && c < cfg->nr_cpus; c++)
		s->llc[c].nr_idle_scan = -1;
	if (!s->rq || !s->rq_scratch || !s->cpu || !s->llc || !s->idle_cores || !s->idle_cores_known ||
	    !s->idle_cores_held ||
	    !s->llc_idle_core || !s->llc_idle_core_valid ||
	    !s->one_cpu || !s->scan ||
	    !s->llcs ||
	    sr_pidtab_init(&s->tasks, sizeof(struct sr_task_slot)) ||
	    sr_pidtab_init(&s->sync_by_comm, sizeof(struct sr_comm_sync))) {
		sr_state_fini(s);
		return -ENOMEM;
	}
	for (int c = 0; c < cfg->nr_cpus; c++) {
		for (int l = 0; l < cfg->topo->cpu[c].nr_levels; l++)
			s->wake_balance |= !!(cfg->topo->cpu[c].sd[l].flags & SD_BALANCE_WAKE);
		if (cfg->topo->cpu[c].llc_id == c)
			s->llcs[s->nr_llcs++] = c;
	}
	for (int c = 0; c < cfg->nr_cpus; c++) {
		const struct sr_cpu_ingest *in = cfg->initial ? &cfg->initial[c] : NULL;
		int curr = in ? (in->first_pid >= 0 ? in->first_pid : 0) : -1;

		sr_mask_set(&s->one_cpu[c], c);
		s->cpu[c].sel_pid = s->cpu[c].thl_pid = -1;
		s->cpu[c].probe_load = UINT64_MAX;
		sr_st_task_reset(&s->cpu[c].idle, 0, cfg->start);
		s->rq[c].capacity = SR_CAPACITY_SCALE;
		s->rq[c].avg_idle = AVG_IDLE_MAX_NS;
		sr_st_rq_doubt(s, c, curr < 0, false);	/* else until its first sched_switch */
		/* idle at the start: its averages near 0; busy: unknown for a warm-up */
		s->cpu[c].pelt_known_ts = curr == 0 ? cfg->start : cfg->start + SR_PELT_WARM_NS;
		s->rq[c].pelt_cold = curr != 0;
		if (curr != 0)
			s->pelt_cold_until = s->cpu[c].pelt_known_ts;
		if (curr < 0)
			continue;
		s->rq[c].silent = in->first_pid < 0;
		s->nr_silent += s->rq[c].silent;
		/* Known from its first record on: the task itself stays unknown until it switches. */
		s->cpu[c].curr_known = true;
		s->cpu[c].since = in->first_pid >= 0 ? in->first_ts : cfg->start;
		s->rq[c].curr_pid = curr;
		s->rq[c].idle_since = curr ? 0 : s->cpu[c].since;
	}
	for (int c = 0; c < cfg->nr_cpus; c++)
		sr_st_idle_track(s, c);
	return 0;
}

void sr_state_fini(struct sr_state *s)
{
	for (size_t i = 0; s->tasks.slots && i < s->tasks.nr_slots; i++) {
		struct sr_task *t = sr_state_task_at(s, i);

		if (t) {
			free(t->dec);
			free(t->exec.dec);
			free(t->exec.spec);
			free(t);
		}
	}
	sr_pidtab_free(&s->tasks);
	sr_st_groups_free(s);
	sr_pidtab_free(&s->sync_by_comm);
	free(s->idle_cores);
	free(s->idle_cores_known);
	free(s->idle_cores_held);
	free(s->one_cpu);
	free(s->scan);
	free(s->llcs);
	free(s->fam);
	free(s->llc_idle_core);
	free(s->llc_idle_core_valid);
	free(s->rq);
	free(s->rq_scratch);
	free(s->cpu);
	free(s->llc);
	memset(s, 0, sizeof(*s));
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
