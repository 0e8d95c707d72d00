// SPDX-License-Identifier: GPL-2.0
/*
 * Following the reference: after each placement, the answer of the recorded
 * kernel's own model (both WF_SYNC values) that matched the kernel's choice
 * tells which hints its select_idle_sibling() left — p->recent_used_cpu,
 * has_idle_cores, SIS_UTIL's budget — and which WF_SYNC value and
 * wake_wide() result the wakeup had; when neither matched, only what must
 * have happened is kept.  Taken as soon as the trace shows the choice (its
 * migrate, srqf_ret, or try_to_wake_up() returning), not at a sched_wakeup
 * a wakelist delays.
 */
#include "state-priv.h"

/*
 * The SIS_UTIL budget, observed: the kernel's choice was the answer a
 * smaller budget gives (it stopped before the idle CPU the estimate found)
 * or a larger one (it scanned further).  The state takes the budget nearest
 * its estimate that gives the kernel's choice (make fidelity: +66 placements
 * on 6.1, +76 on 6.12 over 0 and the whole LLC); it holds until the
 * balancer next recomputes it.
 *
 * Not when that budget is more than SCAN_LESSON_SLACK CPUs from what
 * update_idle_cpu_scan() makes of the LLC's util now (sr_st_llc_scan_now()):
 * the kernel's budget is that formula of the util at its last balance, and
 * against the nr_idle_scan `record --probes` read on the 64-vCPU 6.12
 * guest's LLCs of 16 (19,016 reads) the formula on the state's util now
 * is within 4 of it on 95.7 % of the reads (within 2: 90.3 %).  A choice
 * that needs a budget further off had another cause (an idle CPU the
 * kernel saw busy, a concurrent wakeup); taken, it held the LLC's budget
 * at 0 - 1 where the kernel's was 13 - 16 until the next balance.  Against
 * those reads (--probes-measure-only) exact 53.5 -> 55.4 %; make fidelity
 * +7 placed wakeups on 6.1, +83 on 6.12 (the 64-vCPU guest +38: LLCs of
 * 16); a slack of 3 lost 8 on 6.1, 6 gave +9 / +72.  Not on a machine
 * assumed flat: the formula over an LLC the machine may not have says
 * nothing of its budget, and the lessons stand in for the topology (the
 * 6.18 utf8-comms traces of 65 - 4,096 CPUs lost 46 of 55 without them).
 */
#define SCAN_LESSON_SLACK	4
static bool scan_lesson_far(struct sr_state *s, int llc, int budget, bool at_least)
{
	int now;

	if (s->cfg.topo->source == SR_TOPO_ASSUMED_FLAT)
		return false;
	now = sr_st_llc_scan_now(s, llc);
	if (now < 0)
		return false;
	return (at_least ? budget - now : now - budget) > SCAN_LESSON_SLACK;
}

static void follow_scan(struct sr_state *s, const struct sr_ref *r, int cpu, bool m0, bool m1,
			uint64_t since)
{
	for (int k = 0; k < 2; k++) {
		int llc = r->scan_llc[k];

		/* a budget a probe read is a fact, not a lesson */
		if (llc < 0 || (m0 && m1 && k) || sr_st_scan_read(s, llc, since))
			continue;
		/* the kernel scanned further: its budget was at least full_scan_budget */
		if (cpu == r->full_scan_cpu[k] && cpu != r->cpu[k]) {
			if (scan_lesson_far(s, llc, r->full_scan_budget[k], true))
				continue;
			s->scan[llc].value = r->full_scan_budget[k];
			return;
		}
		if (r->no_scan_cpu[k] < 0)
			continue;
		/* it stopped sooner: at most no_scan_budget */
		if (cpu == r->no_scan_cpu[k] && cpu != r->cpu[k]) {
			if (scan_lesson_far(s, llc, r->no_scan_budget[k], false))
				continue;
			s->scan[llc].value = r->no_scan_budget[k];
			return;
		}
		if (cpu == r->cpu[k] && !s->scan[llc].value) {
			s->scan[llc].value = sr_llc_size(s->cfg.topo, llc);
			return;
		}
	}
}

/*
 * The answer had wake_wide() been true was the kernel's: the flips the trace
 * cannot pin (inherited from before it) were high enough that
 * !(slave < factor || master < slave * factor), so both counts were at
 * least the factor.  Raising the estimates the primary answer reads keeps
 * the next decisions of both tasks consistent with it.
 */
static void learn_wide(struct sr_state *s, struct sr_task *p, struct sr_task *waker, unsigned int factor)
{
	/* bounds that exclude it: the miss had another cause */
	if (p->v.wakee_flips_max < factor || waker->v.wakee_flips_max < factor)
		return;
	sr_st_flips_at_least(s, p, factor);
	sr_st_flips_at_least(s, waker, factor);
}

/*
 * A wakeup whose flips allowed either wake_wide() answer: count which answer
 * alone was the kernel's, whichever of the two is the primary one (a wide
 * primary answer is what an earlier lesson made: its misses must count
 * against it, or the lesson never fades).  One such wakeup can be explained
 * by another input (a load comparison inside the estimate's error): the
 * estimates move only when the wide answer has just won, and has won twice
 * more than the other for this wakee, or four times more for wakees of its
 * name (siblings forked together inherit the same unknown count:
 * hackbench's receivers).
 */
#define WIDE_COMM_MARGIN	4
static void weigh_wide(struct sr_state *s, struct sr_task *p, struct sr_task *waker,
		       const struct sr_ref *r, int cpu, bool primary_matched)
{
	uint16_t *w = p->wide_wins;
	struct sr_comm_sync *c;
	int k;

	if (!waker || waker->v.pid <= 0 || primary_matched == (r->wide_alt_cpu == cpu))
		return;
	/* 1: the wide answer alone matched; 0: the other one */
	k = primary_matched == r->primary_wide;
	/* a family whose lessons agree on its inherited count takes that count */
	if (sr_st_flips_weigh(s, p, waker, r->wide_factor, k))
		return;
	if (++w[k] + w[!k] > 16) {
		w[0] >>= 1;
		w[1] >>= 1;
	}
	c = sr_st_comm_sync(s, p, true);
	if (c)
		sr_st_evidence_add(&c->wide, k);
	if (k && (w[1] >= w[0] + 2 || (c && sr_st_evidence_margin(&c->wide) >= WIDE_COMM_MARGIN)))
		learn_wide(s, p, waker, r->wide_factor);
}

/*
 * The kernel chose the other wake_wide() answer and the other WF_SYNC
 * value's, the same CPU (wide_alt_cpu is set only where it is not the
 * primary answer's): "wide" and "not the WF_SYNC guessed" explain it
 * alike — hackbench's pipe writes, WF_SYNC, go wide to an idle prev that
 * the answer without WF_SYNC also picks (wake_affine_idle()).  The
 * WF_SYNC lesson is taken as before; where wakers of this name have shown
 * the guessed value clearly (by AMB_SYNC_MARGIN), "wide" is the likelier
 * reading and the family's score of its inherited count takes it as well
 * (only the estimate: the bounds, which label answers as depending on
 * wakee_flips, stay the trace's).  Scored against the wakee_flips that
 * --probes read (--probes-measure-only), the estimate is exact on 6.1
 * 22.5 -> 23.8 % (hackbench under cgroups 4,701 -> 5,479 of 7,660), on
 * 6.12 19.7 -> 19.5 %; make fidelity +25 placed wakeups on 6.1, +103 on
 * 6.12 (hackbench pipes on 4 nodes +83), none lost on any trace.
 */
#define AMB_SYNC_MARGIN	4
static void weigh_ambiguous(struct sr_state *s, struct sr_task *p, struct sr_task *waker,
			    const struct sr_ref *r, bool m0)
{
	const struct sr_comm_sync *c;
	int margin;

	if (!waker || waker->v.pid <= 0 || !r->wide_factor)
		return;
	c = sr_st_comm_sync(s, waker, false);
	margin = sr_st_evidence_margin(c ? &c->ev : NULL);
	/* m0: the answer without WF_SYNC matched, so the guess was WF_SYNC */
	if (m0 ? margin >= AMB_SYNC_MARGIN : margin <= -AMB_SYNC_MARGIN)
		sr_st_flips_weigh(s, p, waker, r->wide_factor, !r->primary_wide);
}

/*
 * The waker runs a task on @cpu, its wakee's prev: select_idle_sibling()'s
 * target is prev and busy, so the kernel got past the target and prev tests
 * to the recent_used_cpu one, which stores prev first (5.15+), unless the
 * per-CPU kthread rule returned before it.  6.18 tbench-loopback.dat
 * #2402 - #2425: five wakeups in a row the state, keeping the earlier value,
 * sent to an idle recent_used_cpu the kernel no longer held.
 */
static bool busy_waker(const struct sr_state *s, const struct sr_task *waker, int cpu)
{
	return waker && waker->v.pid > 0 && !waker->kthread_bound && s->rq[cpu].curr_pid == waker->v.pid;
}

/* The hint of @llc is now guessed clear (a failed core scan may have run). */
static void cores_guessed_clear(struct sr_state *s, int llc)
{
	s->idle_cores[llc] = false;
	s->idle_cores_known[llc] = false;
	s->idle_cores_held[llc] = true;
}

/*
 * An answer whose core scan of @llc failed, where the kernel's choice
 * @cpu is in @llc too: select_idle_cpu() (5.12 - 6.18) ends a failed core
 * scan with set_idle_cores(target, false), and one that ran with the hint
 * clear leaves it clear, so whichever the kernel ran on these runqueues the
 * hint is clear after it — unless the kernel returned before the scan
 * (target, prev or recent_used_cpu idle to it), which the trace cannot
 * rule out: the cleared hint is the guess, not a fact.
 */
static bool cores_scanned_out(const struct sr_state *s, const struct sr_ref *r, int k, int cpu)
{
	int llc = r->scan_llc[k];

	return llc >= 0 && r->cleared_idle_cores[k] == llc && sr_st_cpu_ok(s, cpu) &&
	       s->cfg.topo->cpu[cpu].llc_id == llc;
}

/*
 * The kernel chose @cpu, neither prev, the waker's CPU (its targets) nor
 * p->recent_used_cpu, on an LLC whose has_idle_cores the state holds set:
 * only select_idle_cpu()'s core scan returns such a CPU there, a fully idle
 * core's, or, when no core was idle, the first idle CPU it passed — and
 * then it cleared the hint (set_idle_cores(target, false), 5.12 - 6.18).
 * A sibling of @cpu busy says the second; still a guess (the siblings are
 * read now, not at the scan).  Against the has_idle_cores the probes read
 * on a 64-vCPU 6.12 hackbench (LLCs of 16, 7,814 reads): the state's hint
 * right on 86.5 -> 87.1 %; make fidelity +10 placed wakeups on 6.1, +19 on
 * 6.12.
 */
static bool core_scan_failed(const struct sr_state *s, const struct sr_task *p, int cpu,
			     int prev, int waker_cpu)
{
	const struct sr_topo *t = s->cfg.topo;
	int llc = t->cpu[cpu].llc_id, o;

	if (cpu == prev || cpu == waker_cpu || cpu == p->v.recent_used_cpu || t->smt_max <= 1 ||
	    !s->idle_cores[llc] || (!s->idle_cores_known[llc] && !s->idle_cores_held[llc]))
		return false;
	sr_for_each_cpu(o, &t->cpu[cpu].smt)
		if (o != cpu && (s->rq[o].curr_pid || s->rq[o].nr_running || s->rq[o].ttwu_pending))
			return true;
	return false;
}

/*
 * Neither answer was the kernel's, so its select_idle_sibling() took
 * another path: whether a failed core scan there cleared has_idle_cores
 * is unknown for the LLCs the answers targeted.  A set hint stays the
 * guess, no longer a fact (until a CPU going idle sets it again), except
 * where the kernel's choice @cpu says the scan ran out (cores_scanned_out(),
 * core_scan_failed()): there the guess is a clear hint.  make fidelity: 6.12 +46 placed
 * wakeups, 6.1 +37 (64-vCPU 2-node hackbench pipe 89.0 -> 89.5 %).
 */
static void cores_unknown(struct sr_state *s, const struct sr_ref *r, const struct sr_task *p,
			  int cpu, int prev, int waker_cpu)
{
	if (sr_st_cpu_ok(s, cpu) && core_scan_failed(s, p, cpu, prev, waker_cpu))
		cores_guessed_clear(s, s->cfg.topo->cpu[cpu].llc_id);
	for (int k = 0; k < 2; k++) {
		int llc = r->scan_llc[k];

		if (cores_scanned_out(s, r, k, cpu)) {
			cores_guessed_clear(s, llc);
			continue;
		}
		if (llc < 0 || !s->idle_cores_known[llc] || !s->idle_cores[llc])
			continue;
		s->idle_cores_known[llc] = false;
		s->idle_cores_held[llc] = true;
	}
}

/*
 * The kernel chose the busy target where the answer found an idle sibling
 * of prev under a has_idle_cores the state guessed clear: the hint was set
 * (select_idle_smt() skipped) and SIS_UTIL's budget 0 (select_idle_cpu()
 * returned before its scan), the only hints that answer so.  The state
 * takes both as its guesses for the LLC: the wakeups that follow in a burst
 * (one waker, one busy prev) find them again.
 */
static bool follow_both_hints(struct sr_state *s, const struct sr_ref *r, int cpu, uint64_t since)
{
	int llc;

	if (!sr_st_cpu_ok(s, cpu) || (r->cores_no_scan_cpu[0] != cpu && r->cores_no_scan_cpu[1] != cpu))
		return false;
	llc = s->cfg.topo->cpu[cpu].llc_id;
	if (!s->idle_cores_known[llc]) {
		s->idle_cores[llc] = true;
		s->idle_cores_held[llc] = true;
	}
	if (!sr_st_scan_read(s, llc, since))
		s->scan[llc].value = 0;
	return true;
}

/*
 * sched_vcpu_pack's room test (replay/vcpu_pack-6.18fc.c) reads the
 * kernel's cpu_util_cfs(), which on a CPU busy with work older than the
 * trace holds what the state cannot see: the util_est and util_avg of
 * tasks that ran before it.  Neither answer was the kernel's: where one
 * packed @p onto a CPU that had room by the state's utilisation, the
 * kernel's was at least pack_need higher there; where the kernel chose
 * the CPU that only the taught part kept out, it was pack_excess lower.
 * The lesson decays as PELT would decay a past contribution (32 ms half
 * life), so a CPU whose old work ends loses it.
 */
static void teach_util(struct sr_state *s, int cpu, double delta)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	double now = sr_st_taught_util(s, cpu, s->now) + delta;

	c->taught_util = now > 0.0 ? (now < SR_CAPACITY_SCALE ? now : SR_CAPACITY_SCALE) : 0.0;
	c->taught_ts = s->now;
}

static void follow_pack(struct sr_state *s, const struct sr_ref *r, int cpu)
{
	int taught = -1;

	if (r->pack_doubt)
		return;
	for (int k = 0; k < 2; k++) {
		int x = r->pack_cpu[k];

		if (sr_st_cpu_ok(s, x) && x != cpu && x != taught) {
			teach_util(s, x, r->pack_need[k]);
			taught = x;
		}
	}
	for (int k = 0; k < 2; k++)
		if (r->pack_tight_cpu[k] == cpu && cpu != taught && sr_st_cpu_ok(s, cpu)) {
			teach_util(s, cpu, -(double)r->pack_excess[k]);
			return;
		}
}

/*
 * A CPU without any event in the whole trace (sr_rq.silent) was idle
 * throughout or ran one task that never switched: no event tells which,
 * and idle is the guess.  Where neither of the reference's answers was the
 * kernel's choice @cpu and one of them was such a CPU, taken idle, the
 * kernel's own code did not see it idle when it chose a CPU running a
 * task: the idle tests of select_idle_sibling() and find_idlest_group()
 * (available_idle_cpu(), idle_cpu_without()) prefer an idle CPU to it.
 * The state holds it busy from then on — the trace shows nothing of it
 * changing — and the decisions that read it depend on silent_cpu.  6.18
 * guest-time-shift.dat: the fork that starts the trace stayed on its
 * parent's busy CPU 1, CPU 0 silent; taken idle, wakeup 3 went there too.
 */
void sr_st_follow_silent(struct sr_state *s, const struct sr_ref *r, int cpu)
{
	/*
	 * Only a choice of a CPU running a task: another idle CPU chosen says
	 * only that the choice between idle CPUs went otherwise (idle_stamp,
	 * the scan's order and budget), not that the silent one was busy.
	 */
	if (!s->nr_silent || !r->valid || r->cpu[0] == cpu || r->cpu[1] == cpu ||
	    !sr_st_cpu_ok(s, cpu) || s->rq[cpu].curr_pid <= 0)
		return;
	for (int k = 0; k < 2; k++) {
		int x = r->cpu[k];

		if (sr_st_cpu_ok(s, x) && s->rq[x].silent && !s->rq[x].silent_busy) {
			s->rq[x].silent_busy = true;
			sr_mask_set(&s->silent_busy, x);
			sr_st_rq_touched(s, x);
		}
	}
}

/*
 * The waker's own recent_used_cpu, which 4.16 - 5.14 set to its CPU (@cpu)
 * in the fast path under want_affine: as the reference's answer left it,
 * unknown when the other wake_wide() answer would have left it otherwise.
 */
void sr_st_waker_recent(struct sr_task *waker, const struct sr_ref *r, int cpu)
{
	if (!waker || waker->v.pid <= 0 || !r->valid)
		return;
	if (r->waker_recent_maybe && waker->v.recent_used_cpu != cpu)
		waker->v.recent_used_cpu = -1;
	else if (r->waker_recent_cpu >= 0)
		waker->v.recent_used_cpu = r->waker_recent_cpu;
}

/*
 * The kernel chose @cpu for @p's wakeup.  Of the reference's two answers,
 * the one that matched tells which WF_SYNC value the wakeup carried and
 * which hints select_idle_sibling() left.  When neither matched, only what
 * must have happened is kept: a choice other than prev and the waker's CPU
 * got past the target and prev tests, where 5.15+ store prev.
 */
void sr_st_follow_ref(struct sr_state *s, struct sr_task *p, struct sr_task *waker, int cpu,
		      int prev, int waker_cpu)
{
	const struct sr_ref *r = &p->pend_ref;
	bool m0, m1;
	int k;

	if (!r->valid)
		return;
	m0 = r->cpu[0] == cpu;
	m1 = r->cpu[1] == cpu;
	if (m0 != m1 && r->wide_alt_cpu == cpu)
		weigh_ambiguous(s, p, waker, r, m0);
	if (m0 != m1)
		sr_st_sync_learn(s, waker, p, m1);
	follow_scan(s, r, cpu, m0, m1, p->probe.valid ? p->probe.ts : UINT64_MAX);
	if (r->wide_factor && r->wide_alt_cpu >= 0)
		weigh_wide(s, p, waker, r, cpu, m0 || m1);
	if (!m0 && !m1) {
		follow_pack(s, r, cpu);
		sr_st_follow_silent(s, r, cpu);
		if (!follow_both_hints(s, r, cpu, p->probe.valid ? p->probe.ts : UINT64_MAX))
			cores_unknown(s, r, p, cpu, prev, waker_cpu);
		if (cpu != prev)
			p->v.recent_used_cpu = cpu != waker_cpu && r->stores_prev ? prev : -1;
		else if (prev == waker_cpu && busy_waker(s, waker, prev))
			p->v.recent_used_cpu = r->stores_prev ? prev : -1;
		/* else prev: the target or prev test may have returned it, storing nothing */
		return;
	}
	k = m1 && !m0 ? 1 : 0;
	if (r->recent_used_cpu[k] >= 0)
		p->v.recent_used_cpu = r->recent_used_cpu[k];
	if (r->cleared_idle_cores[k] >= 0) {
		int llc = r->cleared_idle_cores[k];

		/*
		 * select_idle_cpu() clears the hint after a failed core scan, but
		 * returns before scanning when SIS_UTIL's budget is 0: if that
		 * budget gives the same answer, the match does not tell which ran.
		 */
		s->idle_cores[llc] = false;
		s->idle_cores_known[llc] = r->no_scan_cpu[k] >= 0;
		s->idle_cores_held[llc] = !s->idle_cores_known[llc];
	}
}

/*
 * The kernel's choice @cpu for @p's pending wakeup is known before its
 * sched_wakeup (which a wakelist delays until the target runs its IPI):
 * srqf_ret, or the sched_migrate_task that set_task_cpu() emits on the
 * waker's CPU.  What it tells holds for the wakeups the same waker goes on
 * to make meanwhile (make fidelity: +159 placed wakeups on 6.1, +467 on
 * 6.12, the 64-vCPU guest 93.9 -> 95.0 %).
 */
void sr_st_follow_early(struct sr_state *s, struct sr_task *p, int cpu)
{
	if (!p->pending || p->pend_followed || p->pend_cls != SR_W_PLACED ||
	    !p->pend_ref.valid || !sr_st_cpu_ok(s, cpu))
		return;
	p->pend_followed = true;
	sr_st_follow_ref(s, p, sr_st_waker(s, p->pend_waker, p->pend_cpu), cpu, p->pend_prev,
			 p->pend_cpu);
}

/*
 * @ev is the first event on its CPU since a placed wakeup's sched_waking
 * there: try_to_wake_up() runs with interrupts off and records only its
 * task's sched_migrate_task and sched_wakeup (and the probes of its
 * select_task_rq_fair()), so any other event says it has returned — and
 * with no migration, the kernel chose the task's own CPU (+39 on 6.1,
 * +101 on 6.12).  Its sched_migrate_task comes before the enqueue, so the
 * call is still open after it; and if it returned with no sched_wakeup,
 * the task went to the target's wakelist (sr_st_ttwu_went_remote()).
 */
void sr_st_ttwu_returned(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_cpu_state *c;
	struct sr_task *p;

	if (!sr_st_cpu_ok(s, ev->cpu) || s->cpu[ev->cpu].ttwu_pid <= 0 ||
	    (ev->type >= SR_EV_SELECT && ev->type <= SR_EV_RQS))
		return;
	c = &s->cpu[ev->cpu];
	/* its sched_migrate_task comes before the enqueue: the open call goes on */
	if (ev->pid == c->ttwu_pid && ev->type == SR_EV_MIGRATE)
		return;
	if (ev->pid == c->ttwu_pid && ev->type == SR_EV_WAKEUP) {
		c->ttwu_pid = -1;
		return;
	}
	p = sr_state_task(s, c->ttwu_pid);
	c->ttwu_pid = -1;
	if (!p || !p->pending || p->pend_cpu != ev->cpu)
		return;
	sr_st_ttwu_went_remote(s, p);
	sr_st_select_returned(s, p, ev);
	if (!p->pend_migrations && !p->pend_deferred)
		sr_st_follow_early(s, p, p->pend_prev);
}
