// SPDX-License-Identifier: GPL-2.0
/*
 * The probe path (src/state/probes.c) as a probe trace feeds it: the
 * placement replayed at the kernel's select_task_rq_fair() with its
 * WF_SYNC, the wakee's se.avg and the task_h_load() values; the fallback
 * when no probe came; measure-only runs; and the delayed-dequeue marks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

#define WF_TTWU 0x08
#define WF_SYNC 0x10
#define WF_FORK 0x04

static struct fx *fx_probes(bool measure_only)
{
	struct sr_state_cfg c = { .has_select_probe = true, .probes_measure_only = measure_only,
				  .wf_sync = WF_SYNC, .wf_fork = WF_FORK, .wf_ttwu = WF_TTWU };

	return fx_new_cfg(&c);
}

static void srqf(struct fx *f, uint64_t ts, int cpu, int waker, int pid, unsigned int flags,
		 uint64_t load, uint64_t util)
{
	ev(f, (struct sr_event){ .type = SR_EV_SELECT, .ts = ts, .cpu = cpu, .pid = pid,
				 .common_pid = waker, .wake_flags = flags, .load_avg = load,
				 .util_avg = util, .flips = UINT64_MAX, .flip_ts = UINT64_MAX,
				 .jiffies = UINT64_MAX });
}

/* An srqf that read only prev's cpu_load(). */
static void srqf_prev_load(struct fx *f, uint64_t ts, int cpu, int waker, int pid, uint64_t load)
{
	ev(f, (struct sr_event){ .type = SR_EV_SELECT, .ts = ts, .cpu = cpu, .pid = pid,
				 .common_pid = waker, .wake_flags = WF_TTWU, .load_avg = UINT64_MAX,
				 .util_avg = UINT64_MAX, .cpu_load = load, .cpu_util = UINT64_MAX,
				 .flips = UINT64_MAX, .flip_ts = UINT64_MAX, .jiffies = UINT64_MAX });
}

/* An srqf that also read the wakee's wakee_flips, its decay stamp and jiffies. */
static void srqf_flips(struct fx *f, uint64_t ts, int cpu, int waker, int pid, uint64_t flips,
		       uint64_t flip_ts, uint64_t jiffies)
{
	ev(f, (struct sr_event){ .type = SR_EV_SELECT, .ts = ts, .cpu = cpu, .pid = pid,
				 .common_pid = waker, .wake_flags = WF_TTWU | WF_SYNC,
				 .load_avg = UINT64_MAX, .util_avg = UINT64_MAX,
				 .cpu_load = UINT64_MAX, .cpu_util = UINT64_MAX, .flips = flips,
				 .flip_ts = flip_ts, .jiffies = jiffies });
}

static void srqf_ret(struct fx *f, uint64_t ts, int cpu, int waker, int ret)
{
	ev(f, (struct sr_event){ .type = SR_EV_SELECT_RET, .ts = ts, .cpu = cpu,
				 .common_pid = waker, .target_cpu = ret });
}

static void thl(struct fx *f, uint64_t ts, int cpu, int waker, int pid, uint64_t h_load)
{
	ev(f, (struct sr_event){ .type = SR_EV_HLOAD, .ts = ts, .cpu = cpu, .pid = pid,
				 .common_pid = waker, .cpu_load = UINT64_MAX, .flips = UINT64_MAX,
				 .flip_ts = UINT64_MAX, .jiffies = UINT64_MAX });
	ev(f, (struct sr_event){ .type = SR_EV_HLOAD_RET, .ts = ts, .cpu = cpu,
				 .common_pid = waker, .h_load = h_load });
}

/* A waker (100) running on CPU 0, its wakee (101) asleep after running on CPU 2. */
static void setup(struct fx *f)
{
	sw(f, 1000, 0, 0, "", 100, "waker");
	sw(f, 1000, 2, 0, "", 101, "wakee");
	sw(f, 400000000, 2, 101, "wakee", 0, "");
}

/* The placement waits for srqf_ret and reads the kernel's inputs. */
static void test_replay_at_select(void **state)
{
	struct fx *f = fx_probes(false);
	struct sr_task *p;

	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(f->nr_placements, 0);
	srqf(f, 500001000, 0, 100, 101, WF_TTWU | WF_SYNC, 321, 123);
	thl(f, 500002000, 0, 100, 100, 900);
	thl(f, 500003000, 0, 100, 101, 300);
	assert_int_equal(f->nr_placements, 0);
	srqf_ret(f, 500004000, 0, 100, 0);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.sync, SR_YES);
	assert_int_equal(f->ctx.sync_source, SR_SYNC_SRC_PROBE);
	assert_int_equal(f->ctx.ts, 500000000);
	assert_int_equal(f->ctx.now, 500004000);
	assert_int_equal(f->p.load_avg, 321);	/* se.avg as the probe read it */
	assert_int_equal(f->p.util_avg, 123);
	assert_true(f->p.h_load_known);
	assert_int_equal(f->p.h_load, 300);
	assert_true(f->has_curr);
	assert_true(f->curr.h_load_known);
	assert_int_equal(f->curr.h_load, 900);
	/* record_wakee() ran for the srqf, not at the sched_waking */
	assert_int_equal(sr_state_task(&f->s, 100)->v.last_wakee, 101);
	/* what the probes said held for that call only */
	p = sr_state_task(&f->s, 101);
	assert_false(p->v.h_load_known);
	assert_false(sr_state_task(&f->s, 100)->v.h_load_known);
	wakeup(f, 500005000, 0, 101, 0);
	assert_int_equal(f->s.probes.at_select, 1);
	assert_int_equal(f->s.probes.ret_moved, 0);
	assert_int_equal(f->s.probes.hloads, 2);
	/* the guess (a task waking in task context: set) was right */
	assert_int_equal(f->s.probes.sync[1][1], 1);
	fx_free(f);
}

/* No srqf (pinned, another class, a lost record): replayed when the task moves. */
static void test_fallback_without_select(void **state)
{
	struct fx *f = fx_probes(false);

	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(f->nr_placements, 0);
	wakeup(f, 500005000, 1, 101, 1);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.sync, SR_UNKNOWN);
	assert_int_equal(f->ctx.sync_source, SR_SYNC_SRC_TASK);
	assert_int_equal(f->s.probes.without_select, 1);
	assert_int_equal(f->s.probes.at_select, 0);
	fx_free(f);
}

/*
 * No srqf, and the task woken where it slept: ttwu_runnable() found it
 * still queued (a delayed dequeue) — no placement, a runnable wakeup.  A
 * per-CPU kthread the same way is pinned, and replayed.
 */
static void test_runnable_without_select(void **state)
{
	struct fx *f = fx_probes(false);

	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	wakeup(f, 500005000, 2, 101, 2);
	assert_int_equal(f->nr_placements, 0);
	assert_int_equal(f->s.probes.runnable_without_select, 1);
	assert_int_equal(f->s.probes.without_select, 0);
	assert_int_equal(f->s.wc.cls[SR_W_RUNNABLE], 1);
	assert_int_equal(f->s.wc.cls[SR_W_PLACED], 0);
	assert_int_equal(sr_state_task(&f->s, 101)->state, SR_T_QUEUED);
	/* ksoftirqd/2 is bound to CPU 2: no srqf because it is pinned */
	sw(f, 600000000, 2, 0, "", 102, "ksoftirqd/2");
	sw(f, 600100000, 2, 102, "ksoftirqd/2", 101, "wakee");
	waking(f, 700000000, 0, 102, "ksoftirqd/2", 2, 100, false);
	wakeup(f, 700005000, 2, 102, 2);
	assert_int_equal(f->s.probes.runnable_without_select, 1);
	assert_int_equal(f->s.probes.without_select, 1);
	fx_free(f);
}

/* Measuring only: replayed at the sched_waking on reconstructed inputs; the guess is scored. */
static void test_measure_only(void **state)
{
	struct fx *f = fx_probes(true);

	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.sync, SR_UNKNOWN);
	srqf(f, 500001000, 0, 100, 101, WF_TTWU, 321, 123);
	thl(f, 500003000, 0, 100, 101, 300);
	srqf_ret(f, 500004000, 0, 100, 2);
	assert_int_equal(f->nr_placements, 1);
	assert_false(sr_state_task(&f->s, 101)->v.h_load_known);
	wakeup(f, 500005000, 2, 101, 2);
	assert_int_equal(f->s.probes.sync[1][0], 1);	/* guessed set, was clear */
	assert_int_equal(f->s.probes.hloads, 1);
	/* the wakee slept 100 ms: its reconstructed load is far from 321 */
	assert_int_equal(f->s.probes.load_err[SR_ERR_BUCKETS - 1], 1);
	fx_free(f);
}

/*
 * wakee_flips read by the srqf probe: scored against the state's estimate,
 * then taken as the wakee's count (bounds closed) with its decay stamp aged
 * like the kernel's; measuring only leaves the estimate alone.
 */
static void test_wakee_flips(void **state)
{
	for (int measure = 0; measure < 2; measure++) {
		struct fx *f = fx_probes(measure);
		struct sr_task *p;

		setup(f);
		p = sr_state_task(&f->s, 101);
		assert_true(p->v.wakee_flips_max > 9);	/* inherited before the trace: unknown */
		waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
		/* HZ 250: the kernel's jiffies 1000 at 500 ms, the stamp 30 jiffies before */
		srqf_flips(f, 500001000, 0, 100, 101, 9, 970, 1000);
		srqf_ret(f, 500004000, 0, 100, 0);
		wakeup(f, 500005000, 0, 101, 0);
		assert_int_equal(f->s.probes.flips, 1);
		assert_int_equal(f->s.probes.flips_err[1], 1);
		if (measure) {
			assert_int_not_equal(p->v.wakee_flips, 9);
		} else {
			assert_int_equal(p->v.wakee_flips, 9);
			assert_int_equal(p->v.wakee_flips_min, 9);
			assert_int_equal(p->v.wakee_flips_max, 9);
			assert_int_equal(500001000 / (1000000000 / f->s.cfg.hz) -
					 p->v.wakee_flip_decay_ts, 30);
		}
		fx_free(f);
	}
}

/*
 * The kernel's jiffies drift from the trace clock's on a stalled VM: a
 * waker's record_wakee() halves its count by the kernel's jiffies, which
 * the probe of its own srqf reads, not by the trace clock.
 */
static void test_jiffies_drift(void **state)
{
	for (int measure = 0; measure < 2; measure++) {
		struct fx *f = fx_probes(measure);
		struct sr_task *p;

		setup(f);
		sw(f, 1000, 1, 0, "", 102, "other");
		sw(f, 300000000, 1, 102, "other", 0, "");
		p = sr_state_task(&f->s, 101);
		/* HZ 250, the kernel's jiffies 1000 at 500 ms: 101's 9 flips stamped at 970 */
		waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
		srqf_flips(f, 500001000, 0, 100, 101, 9, 970, 1000);
		srqf_ret(f, 500004000, 0, 100, 0);
		wakeup(f, 500005000, 0, 101, 0);
		sw(f, 600000000, 0, 100, "waker", 101, "wakee");
		/*
		 * 1.4 s: the trace clock's jiffies say 1225, past the stamp + HZ;
		 * the kernel's, 1215, do not: no halving yet (nor a flip: 101's
		 * last wakee, from before the trace, is taken to be this one).
		 */
		waking(f, 1400000000, 0, 102, "other", 1, 101, false);
		srqf_flips(f, 1400001000, 0, 101, 102, 3, 1100, 1215);
		if (measure) {
			assert_int_equal(f->s.jiffy_drift, 0);	/* the probes are not inputs */
		} else {
			assert_int_equal(f->s.jiffy_drift, -10);
			assert_int_equal(p->v.wakee_flips, 9);
		}
		fx_free(f);
	}
}

/* The kernel returned one CPU, the wakeup landed on another: counted. */
static void test_answer_moved(void **state)
{
	struct fx *f = fx_probes(false);

	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	srqf(f, 500001000, 0, 100, 101, WF_TTWU, 321, 123);
	srqf_ret(f, 500004000, 0, 100, 2);
	wakeup(f, 500005000, 3, 101, 3);
	assert_int_equal(f->s.probes.ret_moved, 1);
	fx_free(f);
}

/* DELAY_DEQUEUE: a sleeper next to a runnable task may stay queued, until idle or its wakeup. */
static void test_maybe_delayed(void **state)
{
	struct sr_state_cfg c = { .delayed_dequeue = true };
	struct fx *f = fx_new_cfg(&c);
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = 3000, .cpu = 1, .pid = 102,
			      .prio = 120, .prev_state = SR_PS_RUNNING, .next_pid = 103,
			      .next_prio = 120, .common_pid = 102 };

	sw(f, 1000, 1, 0, "", 102, "a");
	ev(f, e);				/* 102 preempted: runnable on CPU 1 */
	sw(f, 4000, 1, 103, "b", 102, "a");	/* 103 sleeps while 102 runs there */
	assert_int_equal(f->s.rq[1].maybe_delayed, 1);
	waking(f, 5000, 0, 103, "b", 1, 0, true);
	assert_int_equal(f->s.rq[1].maybe_delayed, 0);	/* woken: requeued or placed */
	sw(f, 6000, 1, 102, "a", 0, "");		/* alone: not delayed */
	assert_int_equal(f->s.rq[1].maybe_delayed, 0);
	fx_free(f);
}

/*
 * An srqf that also read the wakee's CPU's LLC hints (@span: that domain's
 * weight): its budget @scan and has_idle_cores @cores, -1 for not read.
 */
static void srqf_llc(struct fx *f, uint64_t ts, int cpu, int waker, int pid, int span, int scan,
		     int cores)
{
	ev(f, (struct sr_event){ .type = SR_EV_SELECT, .ts = ts, .cpu = cpu, .pid = pid,
				 .common_pid = waker, .wake_flags = WF_TTWU | WF_SYNC,
				 .load_avg = UINT64_MAX, .util_avg = UINT64_MAX,
				 .cpu_load = UINT64_MAX, .cpu_util = UINT64_MAX, .flips = UINT64_MAX,
				 .flip_ts = UINT64_MAX, .jiffies = UINT64_MAX, .sd_weight = span,
				 .llc_scan = scan, .llc_idle_cores = cores });
}

/* setup(), then the wakee's wakeup whose select read those hints: the fixture, not freed. */
static struct fx *select_read(bool measure_only, int span, int scan, int cores)
{
	struct fx *f = fx_probes(measure_only);

	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	srqf_llc(f, 500001000, 0, 100, 101, span, scan, cores);
	srqf_ret(f, 500004000, 0, 100, 0);
	return f;
}

/*
 * SIS_UTIL's budget read by the srqf probe: the placement sees the kernel's
 * value as a fact (not estimated), scored against the estimate; a value
 * from a domain that is not the LLC is ignored; measuring only leaves the
 * estimate alone.
 */
static void test_llc_scan(void **state)
{
	struct fx *f = select_read(false, 4, 1, -1);

	(void)state;
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.llc[2].nr_idle_scan, 1);
	assert_false(f->ctx.llc[2].nr_idle_scan_estimated);
	assert_int_equal(f->s.probes.llc_scans, 1);
	/* before any balance the estimate is the whole LLC: 3 off */
	assert_int_equal(f->s.probes.llc_scan_err[2], 1);
	wakeup(f, 500005000, 0, 101, 0);
	/* the next placement's select read nothing: the value is its estimate, no fact */
	sw(f, 502000000, 0, 101, "wakee", 100, "waker");
	waking(f, 505000000, 0, 101, "wakee", 0, 100, false);
	srqf(f, 505001000, 0, 100, 101, WF_TTWU | WF_SYNC, 321, 123);
	srqf_ret(f, 505004000, 0, 100, 0);
	assert_int_equal(f->nr_placements, 2);
	assert_int_equal(f->ctx.llc[2].nr_idle_scan, 1);
	assert_true(f->ctx.llc[2].nr_idle_scan_estimated);
	fx_free(f);

	f = select_read(false, 2, 1, -1);	/* the SMT domain's, not the LLC's */
	assert_true(f->ctx.llc[2].nr_idle_scan_estimated);
	assert_int_equal(f->s.probes.llc_scans, 0);
	fx_free(f);

	f = select_read(true, 4, 3, -1);
	assert_int_equal(f->nr_placements, 1);
	/* the estimate, recomputed a busy CPU's interval after the trace began: 3 */
	assert_int_equal(f->s.probes.llc_scan_err[0], 1);
	assert_int_equal(f->s.scan[f->topo.cpu[2].llc_id].read, 0);
	fx_free(f);
}

/*
 * has_idle_cores read by the srqf probe: CPU 2 went idle with its sibling
 * idle, so the state's hint is set; the kernel's was clear (a failed core
 * scan the trace cannot show): the placement reads the kernel's, as a
 * fact, and the read scores the state's hint; measuring only leaves it.
 */
static void test_llc_idle_cores(void **state)
{
	struct fx *f = select_read(false, 4, -1, 0);

	(void)state;
	assert_int_equal(f->nr_placements, 1);
	assert_false(f->ctx.llc[2].has_idle_cores);
	assert_false(f->ctx.llc[2].idle_cores_unknown);
	assert_int_equal(f->s.probes.idle_cores, 1);
	assert_int_equal(f->s.probes.idle_cores_agree, 0);
	assert_int_equal(f->s.probes.idle_cores_followed, 1);
	fx_free(f);

	f = select_read(false, 2, -1, 0);	/* the SMT domain's, not the LLC's */
	assert_true(f->ctx.llc[2].has_idle_cores);
	assert_int_equal(f->s.probes.idle_cores, 0);
	fx_free(f);

	f = select_read(true, 4, -1, 0);
	assert_int_equal(f->s.probes.idle_cores, 1);
	assert_true(f->s.idle_cores[f->topo.cpu[2].llc_id]);
	fx_free(f);
}

/*
 * A probe's cpu_load() of prev is the kernel's cfs_rq->avg: it leaves out
 * a sleeper moved there whose enqueue (a wakelist's) has not come yet.
 * The placement reads the probe's value, and the sleeper's load joins at
 * its sched_wakeup.
 */
static void test_prev_load_pending_attach(void **state)
{
	struct fx *f = fx_probes(false);
	unsigned long moved;

	sw(f, 1000000, 0, 0, "swapper/0", 100, "waker");
	sw(f, 1000000, 1, 0, "swapper/1", 102, "mover");
	sw(f, 1000000, 2, 0, "swapper/2", 101, "wakee");
	sw(f, 399000000, 1, 102, "mover", 0, "swapper/1");
	sw(f, 400000000, 2, 101, "wakee", 0, "swapper/2");
	/* 100 wakes 102 onto CPU 2 through its wakelist: no sched_wakeup yet */
	waking(f, 401000000, 0, 102, "mover", 1, 100, false);
	srqf(f, 401001000, 0, 100, 102, WF_TTWU, UINT64_MAX, UINT64_MAX);
	srqf_ret(f, 401002000, 0, 100, 2);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 401003000, .cpu = 0, .pid = 102,
				 .prio = 120, .orig_cpu = 1, .dest_cpu = 2, .common_pid = 100 });
	moved = sr_state_task(&f->s, 102)->v.load_avg;
	assert_true(moved > 500);
	/* then 101, asleep on CPU 2, whose select read CPU 2's cpu_load() at 700 */
	waking(f, 401010000, 0, 101, "wakee", 2, 100, false);
	srqf_prev_load(f, 401011000, 0, 100, 101, 700);
	srqf_ret(f, 401012000, 0, 100, 2);
	assert_int_equal(f->nr_placements, 2);
	assert_int_equal(f->s.rq[2].load_avg, 700);
	/* 102's enqueue on CPU 2 attaches it */
	wakeup(f, 401013000, 2, 102, 2);
	sr_st_cpu_advance(&f->s, 2, f->s.now);
	assert_in_range(f->s.rq[2].load_avg, 700 + moved - 5, 700 + moved + 5);
	fx_free(f);
}

/*
 * Under task groups the state's root load is its root tasks' plus the group
 * entities': the placement reads the probe's cpu_load() of prev as it is,
 * and the state's own averages of that CPU are left as they were.
 */
static void test_prev_load_under_groups(void **state)
{
	struct sr_cgroup_member m[] = { { .pid = 101, .id = 7 } };
	struct sr_state_cfg c = { .has_select_probe = true, .wf_sync = WF_SYNC, .wf_fork = WF_FORK,
				  .wf_ttwu = WF_TTWU, .cgroup_members = m, .nr_cgroup_members = 1 };
	struct fx *f = fx_new_cfg(&c);
	double own;

	sw(f, 1000000, 0, 0, "swapper/0", 100, "waker");
	sw(f, 1000000, 2, 0, "swapper/2", 101, "wakee");
	sw(f, 400000000, 2, 101, "wakee", 0, "swapper/2");
	own = f->s.cpu[2].load_avg;
	waking(f, 401010000, 0, 101, "wakee", 2, 100, false);
	srqf_prev_load(f, 401011000, 0, 100, 101, 700);
	srqf_ret(f, 401012000, 0, 100, 2);
	assert_int_equal(f->nr_placements, 1);
	assert_true(f->s.nr_groups > 0);
	assert_int_equal(f->s.rq[2].load_avg, 700);
	assert_true(f->s.cpu[2].load_avg <= own);	/* decayed, not taken */
	fx_free(f);
}

/*
 * try_to_wake_up() queues a task to the CPU its select returned: while a
 * stalled waker has yet to set_task_cpu() it elsewhere (srqf_ret before
 * its sched_migrate_task), nothing waits on prev, which stays idle for
 * other placements.  A select that kept prev queues it there.
 */
static void test_select_elsewhere_leaves_prev(void **state)
{
	struct fx *f = fx_probes(false);

	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	srqf(f, 500001000, 0, 100, 101, WF_TTWU, 321, 123);
	srqf_ret(f, 500002000, 0, 100, 3);
	assert_int_equal(f->nr_placements, 1);
	assert_false(f->s.rq[2].ttwu_pending);
	assert_int_equal(f->s.cpu[2].in_flight, 0);
	assert_true(sr_rq_idle(&f->s.rq[2]));
	fx_free(f);

	f = fx_probes(false);
	setup(f);
	waking(f, 500000000, 0, 101, "wakee", 2, 100, false);
	srqf(f, 500001000, 0, 100, 101, WF_TTWU, 321, 123);
	srqf_ret(f, 500002000, 0, 100, 2);
	assert_true(f->s.rq[2].ttwu_pending || f->s.cpu[2].in_flight);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_at_select),
		cmocka_unit_test(test_fallback_without_select),
		cmocka_unit_test(test_runnable_without_select),
		cmocka_unit_test(test_measure_only),
		cmocka_unit_test(test_wakee_flips),
		cmocka_unit_test(test_jiffies_drift),
		cmocka_unit_test(test_answer_moved),
		cmocka_unit_test(test_maybe_delayed),
		cmocka_unit_test(test_llc_scan),
		cmocka_unit_test(test_llc_idle_cores),
		cmocka_unit_test(test_prev_load_pending_attach),
		cmocka_unit_test(test_prev_load_under_groups),
		cmocka_unit_test(test_select_elsewhere_leaves_prev),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
