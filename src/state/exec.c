// SPDX-License-Identifier: GPL-2.0
/*
 * Exec placements.  sched_exec() (core.c, 2.6.x -> 6.18) asks the task's
 * class for a CPU with WF_EXEC: select_task_rq_fair()'s find_idlest_cpu()
 * slow path over the domains that have SD_BALANCE_EXEC, with this_cpu and
 * prev both task_cpu(p).  When the answer is another (active) CPU it calls
 * stop_one_cpu(task_cpu(p), migration_cpu_stop) to move itself there.  No
 * tracepoint marks sched_exec(); the trace shows
 *
 *   moved:  p, current on A, wakes migration/A (its own CPU's stopper),
 *           which preempts it; migration/A's sched_migrate_task moves p to
 *           B; later p's sched_process_exec;
 *   stayed: only p's sched_process_exec, on the CPU sched_exec() ran on.
 *
 * A self-stop is replayed as an exec at once — the runqueues sched_exec()
 * read, unless one changed since the task's previous record (then the
 * answer depends on SR_DEP_DECISION_TIME) — and reported at the task's next
 * sched_process_exec.  Other self-stops (sched_setaffinity() of itself,
 * NUMA balancing's migrate_task_to()) are dropped when the task sleeps
 * interruptibly, exits or stops itself again before any exec.  A stay is
 * replayed at sched_process_exec when the task ran on that CPU only since
 * its exec could begin (its fork, previous exec or last interruptible
 * sleep), else its CPU at sched_exec() is unknown and nothing is reported;
 * it depends on SR_DEP_DECISION_TIME unless it ran in one slice and no
 * runqueue changed since the slice began.  A forked child's stay in its
 * first slice takes the answers replayed as that slice began, nearer its
 * sched_exec() than its sched_process_exec.  A `record --probes` trace shows
 * sched_exec()'s own srqf (WF_EXEC): the exec is replayed there, at its
 * first find_idlest_group(), and nothing is inferred.
 */
#include <stdlib.h>
#include <string.h>
#include "state-priv.h"

const char *sr_wake_kind_name(enum sr_wake_kind kind)
{
	switch (kind) {
	case SR_WAKE_TTWU: return "wakeup";
	case SR_WAKE_FORK: return "fork";
	case SR_WAKE_EXEC: return "exec";
	}
	return "invalid";
}

/* From @ts on, an exec's sched_exec() may run (a running task is inside its first slice). */
void sr_st_exec_window(struct sr_task *p, uint64_t ts)
{
	p->exec.window = ts;
	p->exec.window_fork = false;
	p->exec.spec_valid = false;
	p->exec.slices = p->state == SR_T_RUNNING;
	p->exec.window_cpu = p->state == SR_T_RUNNING ? p->v.cpu : -1;
}

/* A switch-in: one more slice in which sched_exec() may run, maybe elsewhere. */
void sr_st_exec_slice(struct sr_task *p, int cpu)
{
	p->exec.slices++;
	if (p->exec.window_cpu == -1)
		p->exec.window_cpu = cpu;
	else if (p->exec.window_cpu != cpu)
		p->exec.window_cpu = -2;
}

static void drop_candidate(struct sr_state *s, struct sr_task *p)
{
	if (!p->exec.valid)
		return;
	p->exec.valid = false;
	s->wc.exec_unresolved++;
}

/* "migration/N" woken on N by the fair task current there: N's stopper, for itself. */
static bool is_self_stop(const struct sr_state *s, const struct sr_event *ev)
{
	static const char stopper[] = "migration/";
	const struct sr_task *curr;
	char *end;
	long n;

	/* the integer tests first: nearly every wakee fails them (prio 0: RT or stop) */
	if (ev->prio != 0 || ev->irq_context || ev->target_cpu != ev->cpu ||
	    ev->common_pid <= 0 || strncmp(ev->comm, stopper, sizeof(stopper) - 1) ||
	    !sr_st_cpu_ok(s, ev->cpu) || s->rq[ev->cpu].curr_pid != ev->common_pid)
		return false;
	n = strtol(ev->comm + sizeof(stopper) - 1, &end, 10);
	if (*end || n != ev->cpu)
		return false;
	curr = sr_state_task(s, ev->common_pid);
	return curr && curr->state == SR_T_RUNNING && curr->v.policy != SR_SCHED_RT;
}

/* A new exec in progress on the task's CPU, replayed at @ts. */
static void open_candidate(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
			   bool probed)
{
	struct sr_exec_cand *x = &p->exec;

	drop_candidate(s, p);
	x->valid = true;
	x->probed = probed;
	x->replayed = false;
	x->kernel_cpu = -1;
	x->uncertain = sr_st_cpu_uncertain(s, ev->cpu) || sr_st_met_lost_window(ev, ev->ts);
	x->ts = ev->ts;
	x->from = ev->cpu;
	x->to = -1;
	x->stopper = probed ? -1 : ev->pid;
}

/* srqf with WF_EXEC (record --probes): sched_exec() itself, on the task's own CPU. */
int sr_st_exec_select(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	if (ev->common_pid != p->v.pid || s->rq[ev->cpu].curr_pid != p->v.pid)
		return 0;
	open_candidate(s, p, ev, true);
	s->probes.exec_selects++;
	return 0;
}

/*
 * Replay a probed exec once: at its first find_idlest_group() (fig), where
 * the kernel reads the runqueues, or at srqf_ret when none came.  Between
 * srqf and fig a slow guest can spend milliseconds.
 */
int sr_st_exec_probe_point(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	struct sr_event xev;

	if (!p->exec.valid || !p->exec.probed || p->exec.replayed || p->exec.from != ev->cpu ||
	    ev->common_pid != p->v.pid)
		return 0;
	xev = *ev;
	xev.ts = p->exec.ts;		/* the placement is known by its srqf */
	p->exec.replayed = true;
	p->exec.replayed_ts = s->now;
	return sr_st_run_placement(s, p, &xev, SR_WAKE_EXEC, ev->cpu, &p->exec.dec, 0);
}

/*
 * srqf_ret of a probed exec: the kernel's answer.  find_idlest_group()
 * reads the runqueues one by one from its first call to the last level's;
 * a slow guest can stall in between.  If one changed since the replay
 * read them, the kernel may have read the newer one.
 */
int sr_st_exec_select_ret(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	p->exec.kernel_cpu = ev->target_cpu;
	if (!p->exec.replayed)
		return sr_st_exec_probe_point(s, p, ev);
	if (s->rq_changed_ts > p->exec.replayed_ts)
		sr_st_dec_depends(s, p->exec.dec, SR_DEP_DECISION_TIME);
	return 0;
}

/* sched_waking of a stopper: when the current task stops itself, replay its sched_exec(). */
int sr_st_exec_self_stop(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p;
	uint64_t since;
	bool known;

	if (!is_self_stop(s, ev))
		return 0;
	p = sr_state_task(s, ev->common_pid);
	if (p->exec.valid && p->exec.probed && p->exec.stopper < 0 && p->exec.from == ev->cpu) {
		p->exec.stopper = ev->pid;	/* replayed at its srqf already */
		return 0;
	}
	/* sched_exec() ran after the task's previous record: what changed since may precede it */
	since = p->exec.own_prev > p->last_in ? p->exec.own_prev : p->last_in;
	known = s->rq_changed_ts <= since;
	open_candidate(s, p, ev, false);
	p->exec.replayed = true;
	return sr_st_run_placement(s, p, ev, SR_WAKE_EXEC, ev->cpu, &p->exec.dec,
				   known ? 0 : SR_DEP_DECISION_TIME);
}

/* sched_migrate_task: the stopper moving the task that stopped itself. */
void sr_st_exec_migrated(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	if (p->exec.valid && p->exec.to < 0 && ev->common_pid == p->exec.stopper &&
	    ev->orig_cpu == p->exec.from)
		p->exec.to = ev->dest_cpu;
	else if (ev->common_pid == p->exec.stopper)
		drop_candidate(s, p);	/* the stopper moved it again: not ours */
}

/* The exec, placed at @at (0: its self-stop or srqf, else its completion), completed now. */
static int emit_exec(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
		     int from, int to, const struct sr_brief *dec, uint64_t at)
{
	struct sr_wakeup w = {
		.ts = at ? at : p->exec.valid ? p->exec.ts : ev->ts, .ts_wakeup = ev->ts, .task = p,
		.kind = SR_WAKE_EXEC, .waker_cpu = from, .waker_pid = p->v.pid, .prev_cpu = from,
		.cpu = to, .cls = SR_W_NR, .since_out = -1,
		.at_select = p->exec.valid && p->exec.probed,
	};

	if (dec && (!p->exec.valid || p->exec.replayed)) {
		w.dec = dec;
		w.nr_dec = s->cfg.nr_policies;
	}

	w.in_lost_window = sr_st_met_lost_window(ev, w.ts);
	w.uncertain = sr_st_cpu_uncertain(s, from) || sr_st_cpu_uncertain(s, to) ||
		      w.in_lost_window || (p->exec.valid && p->exec.uncertain);
	w.target_idle = false;		/* it runs there: sched_exec() moved a running task */
	w.index = ++s->nr_placed;
	if (p->exec.valid && p->exec.probed && p->exec.kernel_cpu >= 0 && p->exec.kernel_cpu != to)
		s->probes.exec_ret_moved++;
	w.actual = to == from ? SR_O_PREV : SR_O_OTHER;
	if (to == from)
		s->wc.exec_stayed++;
	else
		s->wc.exec_moved++;
	if (!s->cfg.hooks.wakeup)
		return 0;
	return s->cfg.hooks.wakeup(s->cfg.hooks.data, &w);
}

/*
 * A forked child's first switch-in: sched_exec() runs early in execve()
 * (bprm_execve(), before the binary is read), which a fork-and-exec child
 * calls at once, while its sched_process_exec comes only once the new
 * program is loaded, milliseconds later on a slow guest.  Replay it here;
 * a stay in this one slice takes these answers (still depending on
 * SR_DEP_DECISION_TIME when a runqueue changed in the slice).  make
 * fidelity: execs 92.3 -> 94.6 % on 6.1, 90.6 -> 94.6 % on 6.12.
 */
int sr_st_exec_first_run(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = s->cpu[ev->cpu].curr;	/* the task just switched in */
	struct sr_event xev;
	int ret;

	if (!p || !p->exec.window_fork || p->exec.slices != 1 || p->exec.spec_valid ||
	    p->v.policy == SR_SCHED_RT || p->state != SR_T_RUNNING || p->v.cpu != ev->cpu)
		return 0;
	xev = *ev;
	xev.pid = xev.common_pid = p->v.pid;
	xev.irq_context = false;
	ret = sr_st_run_placement(s, p, &xev, SR_WAKE_EXEC, ev->cpu, &p->exec.spec, 0);
	p->exec.spec_valid = !ret && p->exec.spec;
	p->exec.spec_ts = ev->ts;
	return ret;
}

/*
 * A child's stay in its first slice: the answers replayed as the slice
 * began (sr_st_exec_first_run()), uncertain when a runqueue changed since.
 */
static int stay_as_begun(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
			 bool known)
{
	struct sr_brief *old = p->exec.dec;

	/* the two arrays swap: the next replay into spec reuses (or allocates) the other */
	p->exec.dec = p->exec.spec;
	p->exec.spec = old;
	p->exec.spec_valid = false;
	if (!known)
		sr_st_dec_depends(s, p->exec.dec, SR_DEP_DECISION_TIME);
	return emit_exec(s, p, ev, ev->cpu, ev->cpu, p->exec.dec, p->exec.spec_ts);
}

/*
 * A stay, replayed now: its runqueues are sched_exec()'s when the task has
 * run in this one slice since its exec could begin and nothing changed
 * since the slice began.
 */
static int replay_stay(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	uint64_t since = p->exec.window > p->last_in ? p->exec.window : p->last_in;
	bool known = p->exec.slices == 1 && s->rq_changed_ts <= since;
	struct sr_event xev = *ev;
	int ret;

	if (!known)
		s->wc.exec_time_unknown++;
	if (p->exec.spec_valid && p->exec.slices == 1)
		return stay_as_begun(s, p, ev, known);
	xev.common_pid = p->v.pid;
	ret = sr_st_run_placement(s, p, &xev, SR_WAKE_EXEC, ev->cpu, &p->exec.dec,
				  known ? 0 : SR_DEP_DECISION_TIME);
	return ret ? ret : emit_exec(s, p, ev, ev->cpu, ev->cpu, p->exec.dec, 0);
}

/* sched_process_exec: the exec completed; report its placement. */
int sr_st_on_exec(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = sr_state_task(s, ev->pid);
	int ret;

	s->wc.exec++;
	if (!p || !sr_st_cpu_ok(s, ev->cpu))
		return 0;
	if (ev->comm[0])
		sr_st_set_comm(s, p, ev->comm);	/* the program it now runs */
	sr_st_affinity_exec(s, p);
	if (p->exec.valid && (p->exec.to >= 0 || (p->exec.probed && p->exec.stopper < 0))) {
		/* moved by its stopper, or its srqf was seen and no stop followed: it stayed */
		ret = emit_exec(s, p, ev, p->exec.from, p->exec.to >= 0 ? p->exec.to : p->exec.from,
				p->exec.dec, 0);
	} else if (p->exec.valid) {
		/* the stopper ran but did not move it (it had moved meanwhile): no answer */
		s->wc.exec_unresolved++;
		ret = 0;
	} else if (p->state == SR_T_RUNNING && p->v.cpu == ev->cpu && ev->common_pid == ev->pid &&
		   p->exec.window_cpu == ev->cpu) {
		/* it ran on this CPU only since its exec could begin: sched_exec() kept it here */
		ret = replay_stay(s, p, ev);
	} else {
		s->wc.exec_unresolved++;
		ret = 0;
	}
	p->exec.valid = false;
	sr_st_exec_window(p, ev->ts);
	return ret;
}

/*
 * The task left its CPU.  An interruptible sleep (prev_state S, 1 in every
 * era's encoding) is not part of an exec: a pending self-stop was
 * something else, and an exec can begin only after it.  An exit ends both.
 */
void sr_st_exec_switch_out(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	bool interruptible = ev->prev_state == SR_PS_SLEEPING && (ev->prev_state_raw & 3) == 1;

	if (ev->prev_state == SR_PS_DEAD || interruptible) {
		drop_candidate(s, p);
		sr_st_exec_window(p, ev->ts);
	}
}
