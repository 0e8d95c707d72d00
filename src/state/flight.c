// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeups in flight on other CPUs: try_to_wake_up() enqueues a task
 * (ttwu_do_activate()) a moment before its sched_wakeup, on the waker's own
 * CPU or on a busy CPU in its LLC (a wakeup through the target's wakelist
 * is wakeup.c's ttwu_pending).  A placement another CPU makes meanwhile may
 * have seen that runqueue with the task or without it: idle_cpu() and
 * nr_running read either.  The trace tells which only afterwards.
 *
 * The models replay each placement with the runqueues in flight holding
 * their task (replay/policy.c); an answer that moves is held here, and
 * depends on SR_DEP_CONCURRENT only when one of those wakeups' sched_wakeup
 * comes before the placement's select_task_rq() is shown done (its
 * sched_migrate_task, or its own sched_wakeup): only then may the enqueue
 * have come first.  The selection's own window, from the sched_waking to
 * the selection shown done, and the runqueues that changed inside it, are
 * here too (sr_st_select_gap(), sr_st_select_returned()).
 */
#include "state-priv.h"

/*
 * A sched_waking whose sched_wakeup has not come a millisecond later was
 * lost, not slow: its CPU no longer counts as in flight — unless the
 * waker's CPU has shown nothing since: then it stalled inside
 * try_to_wake_up() (a vCPU its host descheduled), and the activation, or
 * the queueing on the target's wakelist that makes it read busy, came at
 * some moment of that stall.
 */
#define FLIGHT_MAX_NS	1000000ULL
/* sched_migrate_task is emitted by set_task_cpu(), after select_task_rq(): allow clock skew */
#define SELECT_SLACK_NS	2000ULL

void sr_st_flight_mark(struct sr_state *s, struct sr_task *p, int cpu)
{
	if (!sr_st_cpu_ok(s, cpu))
		return;
	p->pend_flight_cpu = cpu;
	s->cpu[cpu].in_flight++;
	s->cpu[cpu].flight_ts = p->pend_ts;
	s->cpu[cpu].flight_waker = p->pend_cpu;
	s->nr_in_flight++;
}

void sr_st_flight_unmark(struct sr_state *s, struct sr_task *p)
{
	int cpu = p->pend_flight_cpu;

	if (cpu < 0)
		return;
	p->pend_flight_cpu = -1;
	if (s->cpu[cpu].in_flight) {
		s->cpu[cpu].in_flight--;
		s->nr_in_flight--;
	}
}

/* The placement's in_flight mask (s->flight_mask): false when no CPU is in flight. */
bool sr_st_flights(struct sr_state *s)
{
	bool any = false;

	s->flight_stalled = false;
	if (!s->nr_in_flight)
		return false;
	sr_mask_clear(&s->flight_mask);
	for (int c = 0; c < s->cfg.nr_cpus; c++) {
		const struct sr_cpu_state *f = &s->cpu[c];
		bool stalled;

		if (!f->in_flight)
			continue;
		stalled = sr_st_cpu_ok(s, f->flight_waker) &&
			  s->cpu[f->flight_waker].last_ts <= f->flight_ts;
		if (s->now - f->flight_ts < FLIGHT_MAX_NS || stalled) {
			sr_mask_set(&s->flight_mask, c);
			s->flight_stalled |= stalled && s->now - f->flight_ts >= FLIGHT_MAX_NS;
			any = true;
		}
	}
	return any;
}

/*
 * The placement's wl_doubt mask (s->wl_doubt_mask): false when empty.  A
 * wakelist the state filled at a sched_waking (the task assumed queued on
 * prev) whose waker's CPU has recorded nothing since: its try_to_wake_up()
 * may not have selected yet, and ttwu_queue() comes after the selection —
 * for as long as that vCPU stalls (14 ms and more on the 64-vCPU 6.12
 * srrec_g4_rqs.dat, where it then went elsewhere: prev's wakelist never
 * held it).  A task moved by a sched_migrate_task is queued right after
 * it: that mark is shown.  Only a wakelist holding that one task counts.
 */
bool sr_st_wl_doubts(struct sr_state *s)
{
	s->wl_doubted = false;
	if (!s->nr_wl)
		return false;
	sr_mask_clear(&s->wl_doubt_mask);
	for (int c = 0; c < s->cfg.nr_cpus; c++) {
		const struct sr_task *q;
		int t;

		if (s->cpu[c].ttwu_pid <= 0)
			continue;
		q = sr_state_task(s, s->cpu[c].ttwu_pid);
		if (!q || !q->pending || q->pend_cpu != c || q->pend_migrations ||
		    s->cpu[c].last_ts > q->pend_ts || s->now - q->pend_ts < FLIGHT_MAX_NS)
			continue;
		t = q->pend_ttwu_cpu;
		if (sr_st_cpu_ok(s, t) && s->cpu[t].ttwu_pending == 1 &&
		    s->cpu[t].wl_pid == q->v.pid) {
			sr_mask_set(&s->wl_doubt_mask, t);
			s->wl_doubted = true;
		}
	}
	return s->wl_doubted;
}

static void conc_confirm(struct sr_state *s, struct sr_task *p, const struct sr_task *q, int cpu)
{
	if (q)
		p->conc_by = (struct sr_conc_by){ q->v.pid, cpu, q->pend_ts, s->now };
	for (int i = 0; i < s->cfg.nr_policies && i < 32; i++)
		if (p->conc_pols & (1u << i)) {
			p->dec[i].depends |= SR_DEP_CONCURRENT;
			p->dec[i].determined = false;
		}
	p->conc_pols = 0;
}

static void conc_remove(struct sr_state *s, int i)
{
	s->conc[i]->conc_pols = 0;
	s->conc[i] = s->conc[--s->nr_conc];
}

/*
 * After a wakeup's placement (@dec, its policies' answers): hold the
 * answers the in-flight what-if moved until the trace says whether it
 * could have been so.  Forks and execs show no window: their answers keep
 * the runqueues as the trace has them.
 */
void sr_st_conc_hold(struct sr_state *s, struct sr_task *p, struct sr_brief *dec,
		     enum sr_wake_kind kind)
{
	uint32_t pols = 0;

	for (int i = 0; i < s->cfg.nr_policies; i++) {
		if (!(dec[i].depends & SR_DEP_CONCURRENT))
			continue;
		dec[i].depends &= ~(uint32_t)SR_DEP_CONCURRENT;
		dec[i].determined = dec[i].depends == 0;
		if (i < 32)
			pols |= 1u << i;
	}
	for (int i = 0; i < s->nr_conc; i++)
		if (s->conc[i] == p)
			conc_remove(s, i);
	p->conc_by.pid = 0;
	if (!pols || kind != SR_WAKE_TTWU)
		return;
	p->conc_pols = pols;
	/*
	 * a stalled waker's wakeup, or a wakelist not shown filled, shows no
	 * moment to compare with: uncertain at once
	 */
	if (s->flight_stalled || s->wl_doubted) {
		conc_confirm(s, p, NULL, -1);
		return;
	}
	p->conc_ts = s->now;
	p->conc_end = 0;
	if (s->nr_conc == SR_CONC_MAX) {
		conc_confirm(s, p, NULL, -1);	/* too many to follow: uncertain at once */
		return;
	}
	s->conc[s->nr_conc++] = p;
}

/* @p's sched_migrate_task: its select_task_rq() is done. */
void sr_st_conc_selected(struct sr_state *s, struct sr_task *p)
{
	if (p->conc_pols && !p->conc_end)
		p->conc_end = s->now + SELECT_SLACK_NS;
}

/*
 * @q's sched_wakeup: it was enqueued just before, on @flight_cpu if it was
 * in flight (else -1).  A held placement made after @q's sched_waking and
 * not yet shown done may have seen it.  A task's own wakeup ends its hold.
 */
void sr_st_conc_enqueued(struct sr_state *s, struct sr_task *q, int flight_cpu)
{
	for (int i = 0; i < s->nr_conc; i++) {
		struct sr_task *p = s->conc[i];

		if (p == q || !p->pending || (p->conc_end && s->now > p->conc_end)) {
			conc_remove(s, i--);
		} else if (flight_cpu >= 0 && q->pend_ts <= p->conc_ts) {
			conc_confirm(s, p, q, flight_cpu);
			conc_remove(s, i--);
		}
	}
}

/*
 * A CPU going idle: __schedule() dequeues the task and sets rq->curr to the
 * idle task before it emits sched_switch, so another CPU's placement may
 * have read it idle up to this long before the event says so (a few
 * microseconds on bare metal; a vCPU its host stalls there stretches it).
 */
#define IDLE_SOON_NS	20000ULL

/* A watched placement since replaced, done, or too old to have raced. */
static bool watch_over(const struct sr_state *s, const struct sr_idle_watch *w)
{
	const struct sr_task *p = w->p;

	return !p->pending || p->pend_cls != SR_W_PLACED || !p->dec ||
	       p->pend_placed_ts != w->ts || s->now > w->ts + IDLE_SOON_NS;
}

static void watch_prune(struct sr_state *s)
{
	for (int i = 0; i < s->nr_idle_watch; i++)
		if (watch_over(s, &s->idle_watch[i]))
			s->idle_watch[i--] = s->idle_watch[--s->nr_idle_watch];
}

/*
 * After a wakeup's placement: watch for a CPU of its LLCs going idle right
 * after.  More than SR_CONC_MAX placements within IDLE_SOON_NS: the newest
 * replaces the last slot.
 */
void sr_st_idle_watch(struct sr_state *s, struct sr_task *p)
{
	watch_prune(s);
	if (s->nr_idle_watch < SR_CONC_MAX)
		s->nr_idle_watch++;
	s->idle_watch[s->nr_idle_watch - 1] = (struct sr_idle_watch){ p, s->now };
}

/* May @cpu's idleness have moved @p's answers? It shares an LLC it could scan. */
static bool idle_race(const struct sr_state *s, const struct sr_task *p, int cpu)
{
	const struct sr_topo *t = s->cfg.topo;

	return sr_st_cpu_ok(s, p->pend_prev) && sr_st_cpu_ok(s, p->pend_cpu) &&
	       (sr_cpus_share_cache(t, cpu, p->pend_prev) ||
		sr_cpus_share_cache(t, cpu, p->pend_cpu));
}

/*
 * @cpu's switch to idle is traced now: a held placement replayed within
 * IDLE_SOON_NS before, whose wakeup is not done and whose answer is not
 * @cpu, may have been made by a kernel that saw @cpu idle already.
 */
void sr_st_idle_soon(struct sr_state *s, int cpu)
{
	watch_prune(s);
	for (int i = 0; i < s->nr_idle_watch; i++) {
		struct sr_task *p = s->idle_watch[i].p;

		if (!idle_race(s, p, cpu))
			continue;
		for (int k = 0; k < s->cfg.nr_policies; k++)
			if (p->dec[k].cpu != cpu) {
				p->dec[k].depends |= SR_DEP_DECISION_TIME;
				p->dec[k].determined = false;
			}
	}
}

/* A waker stalled longer than this between its sched_waking and its selection. */
#define SELECT_GAP_NS	(1000 * 1000)

/* Did @cpu's runqueue change since @p's placement was replayed? */
static bool touched_since(const struct sr_state *s, const struct sr_task *p, int cpu)
{
	return sr_st_cpu_ok(s, cpu) && s->cpu[cpu].touched_ts > p->pend_placed_ts;
}

/*
 * A runqueue the answers turned on — prev's, the waker's, the CPU a model
 * chose — changed between the replay (at sched_waking) and the selection
 * the trace shows done: the kernel selected somewhere in that window, and
 * may have read it either way (a fork enqueued on prev just after the
 * sched_waking made it busy: the 64-vCPU guest's srrec_g4_rqs.dat).  A probe
 * trace replays at the kernel's own select_task_rq_fair(): no window.
 */
static bool answer_cpu_touched(const struct sr_state *s, const struct sr_task *p)
{
	if (p->probe.valid)
		return false;
	if (touched_since(s, p, p->pend_prev) || touched_since(s, p, p->pend_cpu))
		return true;
	for (int k = 0; k < s->cfg.nr_policies; k++)
		if (touched_since(s, p, p->dec[k].cpu))
			return true;
	return false;
}

/*
 * try_to_wake_up() selects right after its sched_waking, and the waker's CPU
 * shows the selection done right after that (the sched_migrate_task, or the
 * sched_wakeup of a task left where it was).  A gap between the two is the
 * waker stalled (a vCPU its host descheduled) before it selected: if a
 * runqueue changed since the placement was replayed, the kernel's were not
 * the ones the models read.  Without a gap, only a change of a runqueue the
 * answers turned on counts.
 */
void sr_st_select_gap(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	if (!p->pending || p->pend_cls != SR_W_PLACED || ev->cpu != p->pend_cpu || !p->dec ||
	    p->pend_migrations || s->rq_change_ts <= p->pend_placed_ts)
		return;
	if (ev->ts >= p->pend_ts + SELECT_GAP_NS || answer_cpu_touched(s, p))
		sr_st_dec_depends(s, p->dec, SR_DEP_DECISION_TIME);
}

/*
 * A wakeup that stayed on prev through its wakelist shows its selection
 * done by the first of its waker's next event (@ev: try_to_wake_up()
 * returned) and its own sched_wakeup on prev (the IPI ran the list).  That
 * window may be long for the waker's task running on without events, not
 * stalled: no gap rule, only a change of a runqueue the answers turned on.
 */
void sr_st_select_returned(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	if (!p->pending || p->pend_cls != SR_W_PLACED || !p->dec || p->pend_migrations ||
	    p->pend_wl_shown || p->pend_ttwu_cpu < 0)
		return;
	p->pend_wl_shown = true;
	if (s->rq_change_ts > p->pend_placed_ts && answer_cpu_touched(s, p))
		sr_st_dec_depends(s, p->dec, SR_DEP_DECISION_TIME);
}
