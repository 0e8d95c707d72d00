// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel hints the state follows (src/state/hints.c), through
 * sr_state_event() as a trace feeds it: per-CPU kthreads, the sticky
 * has_idle_cores, rq->idle_stamp, recent_used_cpu and the WF_SYNC evidence
 * learnt from the reference answers, idle-task wakers, fork inheritance.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

/* A waker (100) running on CPU 0; its wakee (101) asleep after running on @cpu. */
static struct sr_task *waker_and_sleeper_on(struct fx *f, int cpu)
{
	sw(f, 1000, 0, 0, "", 100, "waker");
	sw(f, 1000, cpu, 0, "", 101, "wakee");
	sw(f, 2000, cpu, 101, "wakee", 0, "");
	return sr_state_task(&f->s, 101);
}

static struct sr_task *waker_and_sleeper(struct fx *f)
{
	return waker_and_sleeper_on(f, 2);
}

/*
 * A reference whose answers (both WF_SYNC values: @cpu) and whose other
 * wake_wide() answer (@alt) differ, the primary one wide or not; LLCs of 4.
 */
static struct sr_ref wide_ref(int cpu, int alt, bool primary_wide)
{
	return (struct sr_ref){ .valid = true, .cpu = { (int16_t)cpu, (int16_t)cpu },
		.recent_used_cpu = { -1, -1 }, .cleared_idle_cores = { -1, -1 },
		.wide_alt_cpu = (int16_t)alt, .primary_wide = primary_wide, .wide_factor = 4 };
}

static void test_percpu_kthread_names(void **state)
{
	assert_int_equal(sr_st_percpu_kthread_cpu("kworker/3:1"), 3);
	assert_int_equal(sr_st_percpu_kthread_cpu("kworker/12:0H"), 12);
	assert_int_equal(sr_st_percpu_kthread_cpu("ksoftirqd/0"), 0);
	assert_int_equal(sr_st_percpu_kthread_cpu("migration/7"), 7);
	assert_int_equal(sr_st_percpu_kthread_cpu("kworker/u16:2"), -1);	/* unbound */
	assert_int_equal(sr_st_percpu_kthread_cpu("kworker/3"), -1);
	assert_int_equal(sr_st_percpu_kthread_cpu("ksoftirqd/x"), -1);
	assert_int_equal(sr_st_percpu_kthread_cpu("hackbench"), -1);
}

/* A per-CPU kthread wakee is pinned (select_task_rq() never asks the fair class). */
static void test_pinned_wakee(void **state)
{
	struct fx *f = fx_new();

	sw(f, 1000, 2, 0, "", 30, "kworker/2:1");
	sw(f, 1000, 0, 0, "", 100, "waker");
	sw(f, 2000, 2, 30, "kworker/2:1", 0, "");
	waking(f, 3000, 0, 30, "kworker/2:1", 2, 100, false);
	assert_int_equal(f->nr_placements, 1);
	assert_non_null(f->ctx.allowed);
	assert_true(sr_mask_test(f->ctx.allowed, 2));
	assert_int_equal(sr_mask_weight(f->ctx.allowed), 1);
	assert_int_equal(f->p.nr_cpus_allowed, 1);
	/* record_wakee() runs inside select_task_rq_fair() only: the waker's flips stay 0 */
	assert_int_equal(sr_state_task(&f->s, 100)->v.wakee_flips, 0);
	fx_free(f);
}

/* __update_idle_core() sets the hint; only a failed core scan clears it. */
static void test_idle_cores_sticky(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *p;

	sw(f, 1000, 0, 0, "", 100, "a");
	sw(f, 1000, 1, 0, "", 101, "b");
	sw(f, 1000, 2, 0, "", 102, "c");
	sw(f, 1000, 3, 0, "", 103, "d");
	assert_false(f->s.idle_cores_known[0]);
	sw(f, 2000, 1, 101, "b", 0, "");	/* sibling 0 still busy: no idle core */
	assert_false(f->s.idle_cores_known[0]);
	sw(f, 3000, 0, 100, "a", 0, "");	/* 0 and 1 idle: set */
	assert_true(f->s.idle_cores_known[0]);
	assert_true(f->s.idle_cores[0]);
	sw(f, 4000, 0, 0, "", 104, "e");	/* busy again: the hint stays (stale-true) */
	assert_true(f->s.idle_cores[0]);
	/* a wakeup whose matching reference answer failed a core scan clears it */
	f->next_ref = (struct sr_ref){ .valid = true, .cpu = { 1, 3 },
		.recent_used_cpu = { -1, -1 }, .cleared_idle_cores = { 0, -1 } };
	waking(f, 5000, 2, 101, "b", 1, 102, false);
	p = sr_state_task(&f->s, 101);
	assert_true(p->pend_ref.valid);
	assert_true(f->ctx.llc[0].has_idle_cores);
	assert_false(f->ctx.llc[0].idle_cores_unknown);
	wakeup(f, 5100, 2, 101, 1);
	assert_true(f->s.idle_cores_known[0]);
	assert_false(f->s.idle_cores[0]);
	/*
	 * Set again; then a clearing answer that a SIS_UTIL budget of 0 would
	 * give as well (no_scan_cpu -1): select_idle_cpu() may have returned
	 * before the scan, leaving the hint set — cleared in the estimate only.
	 */
	sw(f, 6000, 1, 101, "b", 0, "");
	sw(f, 6100, 0, 104, "e", 0, "");
	assert_true(f->s.idle_cores[0] && f->s.idle_cores_known[0]);
	sw(f, 6200, 0, 0, "", 104, "e");
	f->next_ref = (struct sr_ref){ .valid = true, .cpu = { 1, 3 },
		.recent_used_cpu = { -1, -1 }, .cleared_idle_cores = { 0, -1 },
		.no_scan_cpu = { -1, -1 } };
	waking(f, 7000, 2, 101, "b", 1, 102, false);
	wakeup(f, 7100, 2, 101, 1);
	assert_false(f->s.idle_cores[0]);
	assert_false(f->s.idle_cores_known[0]);
	sw(f, 7200, 1, 101, "b", 0, "");		/* CPU 1 idle, its sibling 0 busy */
	waking(f, 8000, 2, 101, "b", 1, 102, false);
	assert_false(f->ctx.llc[0].has_idle_cores);	/* the estimate: cleared */
	assert_true(f->ctx.llc[0].idle_cores_unknown);	/* ... a dependency */
	fx_free(f);
}

/*
 * Neither answer was the kernel's: a set hint its scan may have cleared is
 * a guess now.  The kernel's CPU (3) is neither prev (1), the waker's (@waker_cpu)
 * nor recent_used_cpu, so its core scan returned it: a fully idle core's
 * (its sibling 2 idle: the hint stays set), or the first idle CPU of a
 * failed scan (2 busy: the scan cleared it).
 */
static void idle_cores_missed(bool sibling_busy)
{
	struct fx *f = fx_new();
	int waker = sibling_busy ? 102 : 104, waker_cpu = sibling_busy ? 2 : 0;

	sw(f, 1000, 0, 0, "", 100, "a");
	sw(f, 1000, 1, 0, "", 101, "b");
	sw(f, 1000, 2, 0, "", 102, "c");
	sw(f, 2000, 1, 101, "b", 0, "");
	sw(f, 3000, 0, 100, "a", 0, "");	/* 0 and 1 idle: set, known */
	sw(f, 4000, 0, 0, "", 104, "e");
	if (!sibling_busy)
		sw(f, 4500, 2, 102, "c", 0, "");
	f->next_ref = (struct sr_ref){ .valid = true, .cpu = { 1, 1 }, .recent_used_cpu = { -1, -1 },
		.cleared_idle_cores = { -1, -1 }, .scan_llc = { 0, 0 } };
	waking(f, 5000, waker_cpu, 101, "b", 1, waker, false);
	wakeup(f, 5100, waker_cpu, 101, 3);		/* the kernel's: CPU 3 */
	assert_false(f->s.idle_cores_known[0]);
	/* the guess: as it was, or cleared by the failed scan */
	assert_int_equal(f->s.idle_cores[0], !sibling_busy);
	assert_true(f->s.idle_cores_held[0]);		/* ... a guess the state holds */
	fx_free(f);
}

static void test_idle_cores_missed(void **state)
{
	idle_cores_missed(false);
	idle_cores_missed(true);
}

/* idle_stamp: stamped on the way to idle, cleared by a wakeup onto the CPU, not by a fork. */
static void test_idle_stamp(void **state);

/*
 * A CPU going idle with a wakeup queued on its wakelist: 5.13+ newidle
 * balance returns before stamping; before, it stamps (the wakeup clears it).
 */
static void idle_with_pending(bool pre_513)
{
	const struct sr_state_cfg era = { .ttwu_on_cpu = true, .ttwu_idle_wakelist = true,
					  .newidle_stamps_pending = pre_513 };
	struct fx *f = fx_new_cfg(&era);

	sw(f, 1000, 0, 0, "", 100, "waker");
	sw(f, 1000, 1, 0, "", 101, "b");
	waking(f, 1500, 0, 101, "b", 1, 100, false);	/* b still leaving CPU 1 */
	sw(f, 2000, 1, 101, "b", 0, "");
	assert_true(f->s.rq[1].ttwu_pending);
	assert_int_equal(f->s.rq[1].idle_stamp, pre_513 ? 2000 : 0);
	fx_free(f);
}

static void test_idle_stamp_pending(void **state)
{
	idle_with_pending(false);
	idle_with_pending(true);
}

/*
 * A pending wakeup's task moved by a balancer on another CPU (6.12: a
 * delayed-dequeue task still queued while its waker waits) is no
 * selection: its target is not marked.  The waker's own migrate is.
 */
static void test_migrate_not_by_waker(void **state)
{
	const struct sr_state_cfg era = { .ttwu_on_cpu = true, .ttwu_idle_wakelist = true };
	struct fx *f = fx_new_cfg(&era);

	sw(f, 1000, 0, 0, "", 100, "waker");
	sw(f, 1000, 2, 0, "", 102, "c");
	sw(f, 1000, 1, 0, "", 101, "b");
	sw(f, 1500, 1, 101, "b", 0, "");
	waking(f, 2000, 0, 101, "b", 1, 100, false);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 2100, .cpu = 2, .pid = 101,
				 .prio = 120, .orig_cpu = 1, .dest_cpu = 3, .common_pid = 102 });
	assert_false(f->s.rq[3].ttwu_pending);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 2200, .cpu = 0, .pid = 101,
				 .prio = 120, .orig_cpu = 3, .dest_cpu = 1, .common_pid = 100 });
	assert_true(f->s.rq[1].ttwu_pending);
	fx_free(f);
}

static void test_idle_stamp(void **state)
{
	struct fx *f = fx_new();

	assert_false(f->s.rq[1].idle_stamp_known);
	sw(f, 1000, 1, 0, "", 101, "b");
	sw(f, 2000, 1, 101, "b", 0, "");
	assert_true(f->s.rq[1].idle_stamp_known);
	assert_int_equal(f->s.rq[1].idle_stamp, 2000);
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2100, .cpu = 0, .pid = 100,
				 .child_pid = 300, .common_pid = -1 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = 2200, .cpu = 0, .pid = 300,
				 .prio = 120, .target_cpu = 1, .common_pid = -1 });
	assert_int_equal(f->s.rq[1].idle_stamp, 2000);
	waking(f, 2300, 0, 101, "b", 1, 100, false);
	wakeup(f, 2400, 0, 101, 1);
	assert_int_equal(f->s.rq[1].idle_stamp, 0);
	assert_true(f->s.rq[1].idle_stamp_known);
	fx_free(f);
}

/* The matching reference answer gives recent_used_cpu and teaches the waker's WF_SYNC. */
static void test_follow_reference(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *p;

	waker_and_sleeper(f);
	/* without evidence a task-context wakeup by a task is guessed sync */
	f->next_ref = (struct sr_ref){ .valid = true, .cpu = { 2, 0 },
		.recent_used_cpu = { 2, -1 }, .cleared_idle_cores = { -1, -1 } };
	waking(f, 3000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(f->ctx.sync_guess, SR_YES);
	wakeup(f, 3100, 0, 101, 2);			/* the kernel kept prev: no WF_SYNC */
	p = sr_state_task(&f->s, 101);
	assert_int_equal(p->v.recent_used_cpu, 2);
	assert_int_equal(sr_state_task(&f->s, 100)->sync.wins[0], 1);
	sw(f, 3200, 2, 0, "", 101, "wakee");
	sw(f, 3300, 2, 101, "wakee", 0, "");
	waking(f, 4000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(f->ctx.sync_guess, SR_NO);	/* learnt */
	/* another task of the same name inherits the evidence */
	sw(f, 4100, 3, 0, "", 102, "waker");
	waking(f, 4200, 3, 101, "wakee", 2, 102, false);
	assert_int_equal(f->ctx.sync_guess, SR_NO);
	/* an interrupt never carries WF_SYNC */
	waking(f, 4300, 1, 101, "wakee", 2, 0, true);
	assert_int_equal(f->ctx.sync_guess, SR_NO);
	fx_free(f);
}

/*
 * 4.16 - 5.14: the reference's fast path left the waker's CPU in the
 * waker's own recent_used_cpu; a maybe keeps only an equal value.
 */
static void test_waker_recent(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *w;

	waker_and_sleeper(f);
	w = sr_state_task(&f->s, 100);
	assert_int_equal(w->v.recent_used_cpu, -1);
	f->next_ref = (struct sr_ref){ .valid = true, .cpu = { 2, 2 },
		.recent_used_cpu = { -1, -1 }, .cleared_idle_cores = { -1, -1 },
		.waker_recent_cpu = 0 };
	waking(f, 3000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(w->v.recent_used_cpu, 0);
	wakeup(f, 3100, 0, 101, 2);
	sw(f, 3200, 2, 0, "", 101, "wakee");
	sw(f, 3300, 2, 101, "wakee", 0, "");
	f->next_ref.waker_recent_cpu = -1;
	f->next_ref.waker_recent_maybe = true;
	waking(f, 4000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(w->v.recent_used_cpu, 0);	/* either answer leaves 0 */
	wakeup(f, 4100, 0, 101, 2);
	sw(f, 4200, 2, 0, "", 101, "wakee");
	sw(f, 4300, 2, 101, "wakee", 0, "");
	sw(f, 4400, 0, 100, "waker", 0, "");
	sw(f, 4400, 1, 0, "", 100, "waker");		/* the waker moves to CPU 1 */
	waking(f, 5000, 1, 101, "wakee", 2, 100, false);
	assert_int_equal(w->v.recent_used_cpu, -1);	/* 1 or still 0: unknown */
	fx_free(f);
}

/* Neither answer matched: only what must have happened is kept. */
static void test_reference_missed(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *p;

	waker_and_sleeper(f);
	f->next_ref = (struct sr_ref){ .valid = true, .cpu = { 0, 0 },
		.recent_used_cpu = { 1, 1 }, .cleared_idle_cores = { -1, -1 },
		.stores_prev = true };
	waking(f, 3000, 0, 101, "wakee", 2, 100, false);
	wakeup(f, 3100, 0, 101, 3);	/* neither prev nor the waker's CPU: past both tests */
	p = sr_state_task(&f->s, 101);
	assert_int_equal(p->v.recent_used_cpu, 2);
	sw(f, 3200, 3, 0, "", 101, "wakee");
	sw(f, 3300, 3, 101, "wakee", 0, "");
	f->next_ref.cpu[0] = f->next_ref.cpu[1] = 1;
	waking(f, 4000, 0, 101, "wakee", 3, 100, false);
	wakeup(f, 4100, 0, 101, 0);	/* the waker's CPU: the target test or a scan, unknown */
	assert_int_equal(p->v.recent_used_cpu, -1);
	/* prev is the waker's CPU, busy with it: past the tests, prev was stored */
	sw(f, 4200, 3, 0, "", 101, "wakee");
	sw(f, 4300, 3, 101, "wakee", 102, "waker");
	f->next_ref.cpu[0] = f->next_ref.cpu[1] = 0;
	waking(f, 4400, 3, 101, "wakee", 3, 102, false);
	wakeup(f, 4500, 3, 101, 3);
	assert_int_equal(p->v.recent_used_cpu, 3);
	fx_free(f);
}

/*
 * The flips allowed wake_wide() either way and the kernel followed only the
 * wide answer: twice more than the other, and both counts are estimated at
 * least the factor from then on (their bounds unchanged).
 */
static void test_wide_evidence(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *p, *w;

	p = waker_and_sleeper(f);
	w = sr_state_task(&f->s, 100);
	f->next_ref = wide_ref(0, 2, false);
	for (int i = 0; i < 3; i++) {
		uint64_t t = 3000 + 1000 * (uint64_t)i;

		waking(f, t, 0, 101, "wakee", 2, 100, false);
		/* the first time the narrow answer, then the wide one, twice */
		wakeup(f, t + 100, 0, 101, i ? 2 : 0);
		sw(f, t + 200, i ? 2 : 0, 0, "", 101, "wakee");
		sw(f, t + 300, i ? 2 : 0, 101, "wakee", 0, "");
		if (!i)
			sw(f, t + 300, 0, 0, "", 100, "waker");
	}
	assert_int_equal(p->wide_wins[0], 1);
	assert_int_equal(p->wide_wins[1], 2);
	assert_true(p->v.wakee_flips < 4);		/* 2 is not 1 + 2 yet */
	waking(f, 6000, 0, 101, "wakee", 2, 100, false);
	wakeup(f, 6100, 0, 101, 2);
	assert_int_equal(p->wide_wins[1], 3);
	/* the estimates the answer reads, not the bounds: still a dependency */
	assert_true(p->v.wakee_flips >= 4 && w->v.wakee_flips >= 4);
	assert_true(p->v.wakee_flips_min < 4);
	fx_free(f);
}

/*
 * A wide primary answer (an earlier lesson) that misses where the other
 * answer matches is evidence against wake_wide(): counted as the narrow
 * answer's win, and it teaches nothing wide.
 */
static void test_wide_evidence_fades(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *p;

	p = waker_and_sleeper(f);
	for (int i = 0; i < 3; i++) {
		uint64_t t = 3000 + 1000 * (uint64_t)i;

		f->next_ref = wide_ref(2, 0, true);
		waking(f, t, 0, 101, "wakee", 2, 100, false);
		wakeup(f, t + 100, 0, 101, 0);
		sw(f, t + 200, 0, 0, "", 101, "wakee");
		sw(f, t + 300, 0, 101, "wakee", 100, "waker");
	}
	assert_int_equal(p->wide_wins[0], 3);
	assert_int_equal(p->wide_wins[1], 0);
	assert_true(p->v.wakee_flips < 4);
	fx_free(f);
}

/* Wakees of one name (siblings forked together) share the evidence: four wins. */
static void test_wide_evidence_by_name(void **state)
{
	struct fx *f = fx_new();

	sw(f, 1000, 0, 0, "", 100, "waker");
	for (int i = 0; i < 4; i++) {
		int pid = 201 + i;
		uint64_t t = 2000 + 1000 * (uint64_t)i;

		sw(f, t, 2, 0, "", pid, "recv");
		sw(f, t + 100, 2, pid, "recv", 0, "");
		f->next_ref = wide_ref(0, 2, false);
		waking(f, t + 200, 0, pid, "recv", 2, 100, false);
		wakeup(f, t + 300, 0, pid, 2);
		assert_int_equal(sr_state_task(&f->s, pid)->wide_wins[1], 1);
		/* one win each: only the fourth, by the name's count, moves the estimate */
		if (i < 3)
			assert_true(sr_state_task(&f->s, pid)->v.wakee_flips < 4);
		else
			assert_true(sr_state_task(&f->s, pid)->v.wakee_flips >= 4);
		sw(f, t + 400, 2, 0, "", pid, "recv");
		sw(f, t + 500, 2, pid, "recv", 0, "");
	}
	fx_free(f);
}

/* An interrupt on an idle CPU: the idle task is current, and keeps wakee flips. */
static void test_idle_waker(void **state)
{
	struct fx *f = fx_new();

	sw(f, 1000, 2, 0, "", 101, "wakee");
	sw(f, 2000, 2, 101, "wakee", 0, "");
	sw(f, 2000, 1, 0, "", 0, "");
	waking(f, 3000, 1, 101, "wakee", 2, 0, true);
	assert_true(f->has_curr);
	assert_int_equal(f->curr.pid, 0);
	assert_false(f->ctx.in_task);
	/* its last_wakee from before the trace: taken to be this one, no flip yet */
	assert_int_equal(f->s.cpu[1].idle.v.last_wakee, 101);
	assert_int_equal(f->s.cpu[1].idle.v.wakee_flips, 0);
	fx_free(f);
}

/*
 * Bounds on the kernel's wakee_flips: a task from before the trace has an
 * unknown count (max UINT_MAX) that only halvings bring down; a decay one
 * tick from the boundary may not have happened in the kernel yet.
 */
static void test_flips_bounds(void **state)
{
	struct sr_task_view w = { .pid = 1, .wakee_flips_max = UINT_MAX };
	struct sr_task_view a = { .pid = 2 }, b = { .pid = 3 };
	const unsigned int hz = 250;

	assert_int_equal(sr_record_wakee(&w, &a, 10, hz, 4), 0);
	assert_int_equal(w.wakee_flips, 0);		/* last_wakee unknown: taken to be a */
	assert_int_equal(w.last_wakee, 2);
	assert_int_equal(w.wakee_flips_min, 0);
	assert_true(w.wakee_flips_max == UINT_MAX);	/* ... or another: a flip */
	assert_int_equal(sr_record_wakee(&w, &b, 20, hz, 4), 0);
	assert_int_equal(w.wakee_flips_min, 1);
	assert_int_equal(w.wakee_flips, 1);
	/* 10 + 250 + 2: a halving on both sides of the uncertain tick */
	assert_int_equal(sr_record_wakee(&w, &a, 262, hz, 4), 0);
	assert_int_equal(w.wakee_flips, 1);		/* 1 >> 1, + 1 */
	assert_true(w.wakee_flips_max == UINT_MAX / 2 + 1);
	/* one tick past the stamp's second: the kernel may not have halved */
	w = (struct sr_task_view){ .pid = 1, .wakee_flips = 8, .wakee_flips_min = 8,
				   .wakee_flips_max = 8, .last_wakee = 2 };
	assert_int_equal(sr_record_wakee(&w, &a, 251, hz, 4), 0);
	assert_int_equal(w.wakee_flips, 4);
	assert_int_equal(w.wakee_flips_min, 4);
	assert_int_equal(w.wakee_flips_max, 8);
}

/* Parent 100 on CPU 0 forks receivers 201.. that ran once on CPU 2 and sleep. */
static void fork_receivers(struct fx *f, int n)
{
	sw(f, 1000, 0, 0, "", 100, "parent");
	for (int i = 0; i < n; i++) {
		int pid = 201 + i;
		uint64_t t = 2000 + 1000 * (uint64_t)i;

		ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = t, .cpu = 0, .pid = 100,
					 .child_pid = pid, .common_pid = -1 });
		ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = t + 10, .cpu = 0,
					 .pid = pid, .prio = 120, .target_cpu = 2,
					 .common_pid = -1 });
		sw(f, t + 20, 2, 0, "", pid, "recv");
		sw(f, t + 30, 2, pid, "recv", 0, "");
	}
}

/* The parent wakes receivers 201..200+@n; only the wide answer (prev, CPU 2) is the kernel's. */
static void wide_lessons(struct fx *f, int n)
{
	for (int i = 0; i < n; i++) {
		int pid = 201 + i;
		uint64_t t = 10000 + 1000 * (uint64_t)i;

		f->next_ref = wide_ref(0, 2, false);
		waking(f, t, 0, pid, "recv", 2, 100, false);
		wakeup(f, t + 100, 0, pid, 2);
	}
}

/*
 * Children forked from a task older than the trace share its unknown
 * wakee_flips (dup_task_struct()): the name's lesson that wake_wide() was
 * true raises that shared count, so a sibling woken for the first time reads
 * it too — hackbench's receivers, forked together, woken in a burst by their
 * parent.  A task a probe pinned is in no family.
 */
static void test_wide_lesson_reaches_siblings(void **state)
{
	struct fx *f = fx_new();

	fork_receivers(f, 6);
	assert_true(sr_state_task(&f->s, 201)->flips_fam >= 0);
	assert_int_equal(sr_state_task(&f->s, 201)->flips_fam,
			 sr_state_task(&f->s, 100)->flips_fam);
	/* four wakees of the name: only the wide answer (prev, CPU 2) was the kernel's */
	wide_lessons(f, 4);
	assert_true(sr_state_task(&f->s, 204)->v.wakee_flips >= 4);
	/* its own three flips (the first wakee taken as its last_wakee) and the family's four */
	assert_int_equal(sr_state_task(&f->s, 100)->v.wakee_flips, 3 + 4);
	/* a sibling no lesson was about: the view the models read has the family's count */
	waking(f, 20000, 0, 205, "recv", 2, 100, false);
	assert_true(f->p.wakee_flips >= 4);
	fx_free(f);
}

/*
 * The same lessons through sr_state_event(), from a parent that has flipped
 * 40 times: B of 4 to 14 makes each wakeup wide, so the family's score
 * takes the least of them after four.
 */
static void test_wide_lessons_scored(void **state)
{
	struct fx *f = fx_new();
	int fam;

	fork_receivers(f, 5);
	sr_state_task(&f->s, 100)->v.wakee_flips += 40;
	fam = sr_state_task(&f->s, 201)->flips_fam;
	wide_lessons(f, 4);
	assert_int_equal(f->s.fam[fam].score[0], 0);
	assert_int_equal(f->s.fam[fam].score[4], 4);
	assert_int_equal(f->s.fam[fam].score[15], 0);
	assert_int_equal(f->s.fam[fam].base, 4);
	waking(f, 20000, 0, 205, "recv", 2, 100, false);
	assert_int_equal(f->p.wakee_flips, 4);
	fx_free(f);
}

/*
 * A lesson that needs B past the factor (from a member that decayed since)
 * moves B only once five members in turn needed it, then to the least need.
 */
static void test_far_lessons_agree(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *c[7];
	int fam;

	sw(f, 1000, 0, 0, "", 100, "recorder");
	for (int i = 0; i < 7; i++) {
		ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2000 + (uint64_t)i, .cpu = 0,
					 .pid = 100, .child_pid = 300 + i, .common_pid = -1 });
		c[i] = sr_state_task(&f->s, 300 + i);
		c[i]->flips_shift = 2;		/* halved twice since: a deficit of 2 needs B >= 8 */
	}
	fam = c[0]->flips_fam;
	/* groups unknown: the loads behind the lessons were not the kernel's */
	for (int i = 0; i < 5; i++)
		sr_st_flips_at_least(&f->s, c[i], 2);
	assert_int_equal(f->s.fam[fam].base, 0);
	f->s.cfg.root_cgroup = true;	/* --assume-root-cgroup */
	for (int i = 0; i < 7; i++)
		c[i]->v.wakee_flips = 0;
	for (int i = 0; i < 4; i++)
		sr_st_flips_at_least(&f->s, c[i], 2 + (i == 3));
	assert_int_equal(f->s.fam[fam].base, 0);	/* each stays its own lesson */
	assert_int_equal(c[0]->v.wakee_flips, 2);
	sr_st_flips_at_least(&f->s, c[4], 3);
	assert_int_equal(f->s.fam[fam].base, 8);	/* the least of the five needs */
	sr_st_flips_sync(&f->s, c[6]);
	assert_int_equal(c[6]->v.wakee_flips, 8 >> 2);
	fx_free(f);
}

/*
 * The candidates for a family's inherited count, scored by wake_wide()
 * outcomes at the counts of their moment (factor 4: wide iff the slave's
 * count is at least 4 and the master's at least 4 times it).  Narrow
 * outcomes while the master had 20 flips, then wide ones at 100: only a B
 * of 7 or more agrees with both, and it is taken once it beats 0 by 4
 * lessons; wide outcomes at 20 then bring it down to 4.
 */
static void set_own(struct sr_task *t, unsigned int own)
{
	t->v.wakee_flips = own + t->v.wakee_flips_inherited;
}

/* Two tasks the recorder forks, one flips family: *@slave 300, *@master 301; the family. */
static int forked_pair(struct fx *f, struct sr_task **slave, struct sr_task **master)
{
	sw(f, 1000, 0, 0, "", 100, "recorder");
	for (int i = 0; i < 2; i++)
		ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2000 + (uint64_t)i, .cpu = 0,
					 .pid = 100, .child_pid = 300 + i, .common_pid = -1 });
	*slave = sr_state_task(&f->s, 300);
	*master = sr_state_task(&f->s, 301);
	assert_true((*slave)->flips_fam >= 0);
	assert_int_equal((*master)->flips_fam, (*slave)->flips_fam);
	return (*slave)->flips_fam;
}

static void test_family_count_scored(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *slave, *master;
	int fam;

	fam = forked_pair(f, &slave, &master);
	set_own(slave, 0);
	set_own(master, 20);
	for (int i = 0; i < 4; i++)	/* every candidate outside 4..6 agrees: no choice */
		assert_false(sr_st_flips_weigh(&f->s, slave, master, 4, false));
	set_own(master, 100);
	for (int i = 0; i < 3; i++)	/* 4..33 agree: 7..33 lead 0 by 1, 2, 3 */
		assert_false(sr_st_flips_weigh(&f->s, slave, master, 4, true));
	assert_true(sr_st_flips_weigh(&f->s, slave, master, 4, true));
	assert_int_equal(f->s.fam[fam].base, 7);	/* the least of the leaders */
	assert_int_equal(slave->v.wakee_flips, 7);
	assert_int_equal(master->v.wakee_flips, 107);
	set_own(master, 20);
	for (int i = 0; i < 8; i++)
		sr_st_flips_weigh(&f->s, slave, master, 4, true);
	assert_int_equal(f->s.fam[fam].base, 4);	/* down, as 4..6 now lead */
	assert_int_equal(slave->v.wakee_flips, 4);
	assert_int_equal(master->v.wakee_flips, 24);
	/* a lesson between tasks of no family is left to the lower-bound lessons */
	sw(f, 9000, 1, 0, "", 400, "loner");
	sw(f, 9000, 2, 0, "", 401, "loner");
	assert_int_equal(sr_state_task(&f->s, 400)->flips_fam, -1);
	assert_false(sr_st_flips_weigh(&f->s, sr_state_task(&f->s, 400), sr_state_task(&f->s, 401),
				       4, true));
	fx_free(f);
}

/*
 * The family's count is the least candidate within a 64th of the top
 * score: 64 wide outcomes while the master had 100 flips (B 4..33 agree),
 * then two narrow ones at 20 (B 4..6 would have been wide): 7 leads 4 by
 * the two, which a band of a 32nd would not see.
 */
static void test_family_count_plateau(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *slave, *master;
	int fam;

	(void)state;
	fam = forked_pair(f, &slave, &master);
	for (int i = 0; i < 64; i++) {
		set_own(slave, 0);
		set_own(master, 100);
		sr_st_flips_weigh(&f->s, slave, master, 4, true);
	}
	assert_int_equal(f->s.fam[fam].base, 4);
	for (int i = 0; i < 2; i++) {
		set_own(slave, 0);
		set_own(master, 20);
		assert_true(sr_st_flips_weigh(&f->s, slave, master, 4, false));
	}
	assert_int_equal(f->s.fam[fam].score[4], 64);
	assert_int_equal(f->s.fam[fam].score[7], 66);
	assert_int_equal(f->s.fam[fam].base, 7);
	assert_int_equal(slave->v.wakee_flips, 7);
	fx_free(f);
}

/* A task whose count a probe read leaves its family; its children form none. */
static void test_flips_pinned_no_family(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *t;

	sw(f, 1000, 0, 0, "", 100, "parent");
	t = sr_state_task(&f->s, 100);
	t->v.wakee_flips = t->v.wakee_flips_min = t->v.wakee_flips_max = 3;
	sr_st_flips_pinned(t);
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2000, .cpu = 0, .pid = 100,
				 .child_pid = 300, .common_pid = -1 });
	assert_int_equal(sr_state_task(&f->s, 300)->flips_fam, -1);
	sr_st_flips_at_least(&f->s, sr_state_task(&f->s, 300), 8);	/* bound 3: refused */
	assert_int_equal(sr_state_task(&f->s, 300)->v.wakee_flips, 3);
	fx_free(f);
}

/* A child inherits its parent's flips; wake_up_new_task() sets recent_used_cpu. */
static void test_fork_inherits(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *parent, *child;

	sw(f, 1000, 1, 0, "", 100, "parent");
	parent = sr_state_task(&f->s, 100);
	parent->v.wakee_flips = 7;
	parent->v.last_wakee = 55;
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2000, .cpu = 1, .pid = 100,
				 .child_pid = 300, .common_pid = -1 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = 2100, .cpu = 1, .pid = 300,
				 .prio = 120, .target_cpu = 3, .common_pid = -1 });
	child = sr_state_task(&f->s, 300);
	assert_int_equal(child->v.wakee_flips, 7);
	assert_true(child->v.wakee_flips_max == UINT_MAX);	/* the parent predates the trace */
	assert_int_equal(child->v.last_wakee, 55);
	assert_int_equal(child->v.recent_used_cpu, 1);
	ev(f, (struct sr_event){ .type = SR_EV_EXIT, .ts = 2200, .cpu = 1, .pid = 100,
				 .common_pid = -1 });
	assert_true(parent->v.exiting);
	fx_free(f);
}

/*
 * Before any balance the trace could show, the budget is the last one
 * computed before it: taken as a quiet machine's, the whole LLC.
 */
static void test_nr_idle_scan_start(void **state)
{
	struct fx *f = fx_new();

	waker_and_sleeper(f);
	waking(f, 3000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.llc[0].nr_idle_scan, 4);
	assert_true(f->ctx.llc[0].nr_idle_scan_estimated);
	fx_free(f);
}

/*
 * The kernel's choice was an answer another budget gives: the state takes
 * the budget nearest its estimate that gives it, until the next balance.
 */
static void test_nr_idle_scan_learnt(void **state)
{
	struct fx *f = fx_new();

	waker_and_sleeper(f);
	f->next_ref = fx_scan_ref(2, -1, 0, 3, 2);
	waking(f, 3000, 0, 101, "wakee", 3, 100, false);
	wakeup(f, 3100, 0, 101, 3);
	assert_int_equal(f->s.scan[0].value, 2);
	sw(f, 3200, 3, 0, "", 101, "wakee");
	sw(f, 4000, 3, 101, "wakee", 0, "");
	f->next_ref = fx_scan_ref(1, 3, 1, -1, 0);
	waking(f, 5000, 0, 101, "wakee", 3, 100, false);
	wakeup(f, 5100, 0, 101, 3);
	assert_int_equal(f->s.scan[0].value, 1);
	sw(f, 5200, 3, 0, "", 101, "wakee");
	sw(f, 5300, 3, 101, "wakee", 0, "");
	waking(f, 6000, 0, 101, "wakee", 3, 100, false);
	assert_int_equal(f->nr_placements, 3);
	assert_int_equal(f->ctx.llc[0].nr_idle_scan, 1);
	fx_free(f);
}

/*
 * The kernel's choice is known at the sched_migrate_task set_task_cpu()
 * emits on the waker's CPU, long before a wakelist's sched_wakeup: the
 * budget it implies holds for the waker's next wakeup meanwhile, and the
 * sched_wakeup does not take the lesson twice.
 */
static void test_learnt_at_selection(void **state)
{
	struct fx *f = fx_new();

	waker_and_sleeper_on(f, 3);
	sw(f, 1000, 1, 0, "", 102, "other");
	sw(f, 2000, 1, 102, "other", 0, "");
	f->next_ref = fx_scan_ref(1, -1, 0, 2, 2);
	waking(f, 3000, 0, 101, "wakee", 3, 100, false);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 3010, .cpu = 0, .pid = 101,
				 .prio = 120, .orig_cpu = 3, .dest_cpu = 2, .common_pid = 100 });
	assert_int_equal(f->s.scan[0].value, 2);
	f->s.scan[0].value = 3;		/* the sched_wakeup must not follow it again */
	f->next_ref = fx_scan_ref(1, -1, 0, 2, 2);
	waking(f, 3020, 0, 102, "other", 1, 100, false);
	assert_int_equal(f->nr_placements, 2);
	wakeup(f, 9000, 2, 101, 2);
	assert_int_equal(f->s.scan[0].value, 3);
	fx_free(f);
}

/*
 * No sched_migrate_task for the wakee before the waker's CPU records
 * anything else: try_to_wake_up() returned and kept the task on prev, a
 * choice known long before the wakelist's sched_wakeup.  Here prev (3) is
 * what a budget of 0 gives, and the state learns it at the waker's switch.
 */
static void test_learnt_prev_at_return(void **state)
{
	struct fx *f = fx_new();

	waker_and_sleeper_on(f, 3);
	f->next_ref = fx_scan_ref(1, 3, 1, -1, 0);
	waking(f, 3000, 0, 101, "wakee", 3, 100, false);
	assert_int_not_equal(f->s.scan[0].value, 1);
	sw(f, 3050, 0, 100, "waker", 0, "");
	assert_int_equal(f->s.scan[0].value, 1);
	f->s.scan[0].value = 4;		/* the sched_wakeup must not follow it again */
	wakeup(f, 9000, 3, 101, 3);
	assert_int_equal(f->s.scan[0].value, 4);
	fx_free(f);
}

/*
 * The kernel kept the wakee on its busy prev where the answer took the idle
 * sibling through select_idle_smt() under a has_idle_cores guessed clear:
 * only the hint set and a budget of 0 together answer so (6.0+), and the
 * state takes both for the LLC.
 */
static void test_both_hints_learnt(void **state)
{
	struct fx *f = fx_new();

	sw(f, 1000, 3, 0, "", 103, "busy");	/* CPU 2 goes idle with its sibling busy */
	waker_and_sleeper(f);
	assert_false(f->s.idle_cores_known[0]);
	f->next_ref = fx_scan_ref(3, -1, 0, -1, 0);
	f->next_ref.cores_no_scan_cpu[0] = f->next_ref.cores_no_scan_cpu[1] = 2;
	waking(f, 3000, 0, 101, "wakee", 2, 100, false);
	wakeup(f, 3100, 0, 101, 2);
	assert_int_equal(f->s.scan[0].value, 0);
	assert_true(f->s.idle_cores[0]);
	assert_false(f->s.idle_cores_known[0]);
	fx_free(f);
}

/*
 * nr_idle_scan follows the LLC's util at the balancer's pace: recomputed
 * once its CPUs have been idle 8 x sd_weight ms in all (32 ms on this LLC
 * of 4), or a busy CPU's interval (16 x 4 ms) after the last time.
 * util_est follows dequeues.
 */
static void test_nr_idle_scan(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *t;
	uint64_t ts;

	/* 200 runs briefly and sleeps; four tasks that never stop keep util high */
	sw(f, 500, 0, 0, "", 200, "sleeper");
	sw(f, 1000, 0, 200, "sleeper", 100, "hog");
	for (int c = 1; c < 4; c++)
		sw(f, 1000, c, 0, "", 100 + c, "hog");
	waking(f, 400000000, 0, 200, "sleeper", 0, 100, false);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.llc[0].nr_idle_scan, 0);
	assert_true(f->ctx.llc[0].nr_idle_scan_estimated);
	wakeup(f, 400000100, 0, 200, 0);
	sw(f, 400001000, 0, 100, "hog", 200, "sleeper");
	sw(f, 400002000, 0, 200, "sleeper", 100, "hog");
	ts = f->s.scan[0].ts;
	/* three CPUs go idle: 10 ms later, 30 ms of idle time, the budget is held */
	for (int c = 1; c < 4; c++)
		sw(f, 400003000, c, 100 + c, "hog", 0, "");
	waking(f, 410003000, 0, 200, "sleeper", 0, 100, false);
	assert_int_equal(f->ctx.llc[0].nr_idle_scan, 0);
	assert_true(f->s.scan[0].ts == ts);
	wakeup(f, 410003100, 0, 200, 0);
	sw(f, 410004000, 0, 100, "hog", 200, "sleeper");
	sw(f, 410005000, 0, 200, "sleeper", 100, "hog");
	/* a second later: recomputed from the util, which has decayed */
	waking(f, 1400000000, 0, 200, "sleeper", 0, 100, false);
	assert_true(f->ctx.llc[0].nr_idle_scan > 0);
	assert_true(f->s.scan[0].ts == 1400000000);
	wakeup(f, 1400000100, 0, 200, 0);
	sw(f, 1400001000, 0, 100, "hog", 200, "sleeper");
	sw(f, 1400002000, 0, 200, "sleeper", 100, "hog");
	/* all four busy again: no idle time, held until a busy CPU's balance is due */
	for (int c = 1; c < 4; c++)
		sw(f, 1400003000, c, 0, "", 100 + c, "hog");
	waking(f, 1460000000, 0, 200, "sleeper", 0, 100, false);
	assert_true(f->s.scan[0].ts == 1400000000);
	wakeup(f, 1460000100, 0, 200, 0);
	sw(f, 1460001000, 0, 100, "hog", 200, "sleeper");
	sw(f, 1460002000, 0, 200, "sleeper", 100, "hog");
	waking(f, 1470000000, 0, 200, "sleeper", 0, 100, false);
	assert_true(f->s.scan[0].ts == 1470000000);
	/* a sleeper keeps its util_est, which its CPU counts only while it is enqueued */
	t = sr_state_task(&f->s, 103);
	sw(f, 1470001000, 3, 103, "hog", 0, "");
	assert_int_equal(f->s.rq[3].util_est, 0);
	assert_true(t->ue_ewma > 900);
	sw(f, 1470002000, 3, 0, "", 103, "hog");
	assert_int_equal(f->s.rq[3].util_est, t->ue_ewma);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percpu_kthread_names),
		cmocka_unit_test(test_pinned_wakee),
		cmocka_unit_test(test_idle_cores_sticky),
		cmocka_unit_test(test_idle_cores_missed),
		cmocka_unit_test(test_idle_stamp),
		cmocka_unit_test(test_idle_stamp_pending),
		cmocka_unit_test(test_migrate_not_by_waker),
		cmocka_unit_test(test_follow_reference),
		cmocka_unit_test(test_waker_recent),
		cmocka_unit_test(test_reference_missed),
		cmocka_unit_test(test_idle_waker),
		cmocka_unit_test(test_flips_bounds),
		cmocka_unit_test(test_wide_evidence),
		cmocka_unit_test(test_wide_evidence_fades),
		cmocka_unit_test(test_wide_evidence_by_name),
		cmocka_unit_test(test_fork_inherits),
		cmocka_unit_test(test_wide_lesson_reaches_siblings),
		cmocka_unit_test(test_flips_pinned_no_family),
		cmocka_unit_test(test_far_lessons_agree),
		cmocka_unit_test(test_family_count_scored),
		cmocka_unit_test(test_family_count_plateau),
		cmocka_unit_test(test_wide_lessons_scored),
		cmocka_unit_test(test_nr_idle_scan_start),
		cmocka_unit_test(test_nr_idle_scan_learnt),
		cmocka_unit_test(test_learnt_at_selection),
		cmocka_unit_test(test_learnt_prev_at_return),
		cmocka_unit_test(test_both_hints_learnt),
		cmocka_unit_test(test_nr_idle_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
