// SPDX-License-Identifier: GPL-2.0
/* Runqueue state and wakeup accounting on hand-made event sequences. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include "state.h"

struct fx {
	struct sr_topo topo;
	struct sr_state s;
	struct sr_wakeup last;		/* last wakeup the hook saw */
	int nr_wakeups, nr_placements, nr_runs;
	int last_ctx_this, last_ctx_prev;
	uint64_t last_run_delay;
};

static int h_place(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
		   struct sr_ref *ref)
{
	struct fx *f = data;

	f->nr_placements++;
	f->last_ctx_this = ctx->this_cpu;
	f->last_ctx_prev = ctx->prev_cpu;
	dec[0].cpu = (int16_t)ctx->this_cpu;
	dec[0].determined = true;
	dec[0].depends = 0;
	return 0;
}

static int h_wakeup(void *data, const struct sr_wakeup *w)
{
	struct fx *f = data;

	f->last = *w;
	f->nr_wakeups++;
	return 0;
}

static int h_run(void *data, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct fx *f = data;

	f->nr_runs++;
	f->last_run_delay = ts - t->note.ts;
	return 0;
}

/* @pre_60: ttwu_queue_cond() as 5.8 - 5.19 had it */
static struct fx *fx_new_era(bool has_waking, bool pre_60)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct sr_state_cfg cfg = {
		.nr_cpus = 2, .migration_cost_ns = 500000, .hz = 250,
		.has_waking = has_waking, .nr_policies = 1, .ttwu_on_cpu = true,
		.ttwu_idle_wakelist = !pre_60,
	};

	assert_non_null(f);
	assert_int_equal(sr_topo_flat(&f->topo, 2, SR_ERA_511), 0);
	cfg.topo = &f->topo;
	cfg.hooks = (struct sr_state_hooks){ f, h_place, h_wakeup, h_run };
	assert_int_equal(sr_state_init(&f->s, &cfg), 0);
	return f;
}

static struct fx *fx_new(bool has_waking)
{
	return fx_new_era(has_waking, false);
}

static void fx_free(struct fx *f)
{
	sr_state_fini(&f->s);
	sr_topo_free(&f->topo);
	free(f);
}

static void ev(struct fx *f, struct sr_event e)
{
	assert_int_equal(sr_state_event(&f->s, &e), 0);
}

static void sw(struct fx *f, uint64_t ts, int cpu, int prev, enum sr_prev_state st, int next)
{
	ev(f, (struct sr_event){ .type = SR_EV_SWITCH, .ts = ts, .cpu = cpu, .pid = prev,
				 .prio = 120, .prev_state = st, .next_pid = next, .next_prio = 120 });
}

static void waking(struct fx *f, uint64_t ts, int cpu, int pid, int target, int waker)
{
	ev(f, (struct sr_event){ .type = SR_EV_WAKING, .ts = ts, .cpu = cpu, .pid = pid,
				 .prio = 120, .target_cpu = target, .common_pid = waker });
}

/* common_pid -1: these tests leave rule 3 (common_pid names curr) out unless they test it */
static void wakeup(struct fx *f, uint64_t ts, int cpu, int pid, int target, int prio)
{
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = ts, .cpu = cpu, .pid = pid,
				 .prio = prio, .target_cpu = target, .common_pid = -1 });
}

/* Task 100 runs on CPU0 and sleeps; CPU1 runs 200 which wakes it. */
static void setup_sleeper(struct fx *f)
{
	sw(f, 1000, 0, 0, SR_PS_RUNNING, 100);
	sw(f, 1000, 1, 0, SR_PS_RUNNING, 200);
	sw(f, 5000, 0, 100, SR_PS_SLEEPING, 0);
}

/* 100 runs on CPU 1 and sleeps again (20 and 10 us before @ts); 200 wakes it at @ts. */
static void rewake_on_cpu1(struct fx *f, uint64_t ts)
{
	sw(f, ts - 20000, 1, 200, SR_PS_RUNNING, 100);
	sw(f, ts - 10000, 1, 100, SR_PS_SLEEPING, 200);
	waking(f, ts, 1, 100, 1, 200);
}

/*
 * The waker's CPU shows the selection 2 ms after its sched_waking (a stalled
 * vCPU) and a runqueue changed meanwhile: the replay at the sched_waking read
 * runqueues the kernel's selection may not have; 50 us, or nothing changed,
 * and the answer stays determined.
 */
static void test_select_gap(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);
	waking(f, 5200, 1, 100, 0, 200);
	sw(f, 6000, 0, 0, SR_PS_RUNNING, 300);		/* CPU 0 busy from now on */
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 2005200, .cpu = 1, .pid = 100,
				 .prio = 120, .orig_cpu = 0, .dest_cpu = 1, .common_pid = 200 });
	wakeup(f, 2005300, 1, 100, 1, 120);
	assert_int_equal(f->nr_wakeups, 1);
	assert_true(f->last.dec[0].depends & SR_DEP_DECISION_TIME);
	assert_false(f->last.dec[0].determined);
	/* 100 sleeps again; woken with the selection 50 us after its sched_waking */
	rewake_on_cpu1(f, 2030000);
	sw(f, 2030010, 0, 300, SR_PS_SLEEPING, 301);	/* a change, not to idle (flight.c) */
	wakeup(f, 2030050, 1, 100, 1, 120);
	assert_int_equal(f->nr_wakeups, 2);
	assert_false(f->last.dec[0].depends & SR_DEP_DECISION_TIME);
	assert_true(f->last.dec[0].determined);
	/* a long gap with no runqueue change: nothing the replay read had moved */
	rewake_on_cpu1(f, 2060000);
	wakeup(f, 4060000, 1, 100, 1, 120);
	assert_int_equal(f->nr_wakeups, 3);
	assert_true(f->last.dec[0].determined);
	fx_free(f);
}

static void test_placed_affine_hot(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);
	waking(f, 5200, 1, 100, 0, 200);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->last_ctx_this, 1);
	assert_int_equal(f->last_ctx_prev, 0);
	wakeup(f, 5300, 1, 100, 1, 120);
	assert_int_equal(f->nr_wakeups, 1);
	assert_int_equal(f->last.cls, SR_W_PLACED);
	assert_int_equal(f->last.actual, SR_O_WAKER);
	assert_int_equal(f->last.prev_cpu, 0);
	assert_int_equal(f->last.waker_cpu, 1);
	assert_int_equal(f->last.since_out, 200);
	assert_true(f->last.hot);
	assert_int_equal(f->last.nr_dec, 1);
	assert_int_equal(f->last.dec[0].cpu, 1);
	assert_int_equal(f->s.wc.cls[SR_W_PLACED], 1);
	assert_int_equal(f->s.wc.affine_hot, 1);
	/* It is now queued on CPU1 behind 200. */
	assert_int_equal(f->s.rq[1].nr_running, 2);
	assert_int_equal(f->s.rq[1].load_weight, 2048);
	assert_int_equal(f->s.rq[0].nr_running, 0);
	assert_int_equal(f->last.index, 1);
	assert_false(f->last.target_idle);
	assert_true(f->last.prev_idle);
	sw(f, 6300, 1, 200, SR_PS_SLEEPING, 100);
	assert_int_equal(f->nr_runs, 1);
	assert_int_equal(f->last_run_delay, 1100);	/* from the sched_waking */
	/* a second switch-in is not a wakeup latency */
	sw(f, 6400, 1, 100, SR_PS_RUNNING, 0);
	sw(f, 6500, 1, 0, SR_PS_RUNNING, 100);
	assert_int_equal(f->nr_runs, 1);
	fx_free(f);
}

/* No sched_wakeup: the waker CPU's migration, else the switch-in, says where it went. */
static void test_waking_only(void **state)
{
	struct fx *f = fx_new(true);

	f->s.cfg.infer_chosen = true;
	setup_sleeper(f);
	waking(f, 5200, 1, 100, 0, 200);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->nr_wakeups, 0);
	/* queued on prev until shown otherwise */
	assert_int_equal(f->s.rq[0].nr_running, 1);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 5250, .cpu = 1, .pid = 100,
				 .prio = 120, .orig_cpu = 0, .dest_cpu = 1, .common_pid = -1 });
	assert_int_equal(f->nr_wakeups, 1);
	assert_true(f->last.chosen_inferred);
	assert_false(f->last.uncertain);
	assert_int_equal(f->last.cpu, 1);
	assert_int_equal(f->last.actual, SR_O_WAKER);
	assert_int_equal(f->s.rq[1].nr_running, 2);
	assert_int_equal(f->s.rq[0].nr_running, 0);
	sw(f, 6300, 1, 200, SR_PS_SLEEPING, 100);
	assert_int_equal(f->last_run_delay, 1100);
	/* no migration: it ran on prev */
	sw(f, 7000, 1, 100, SR_PS_SLEEPING, 0);
	waking(f, 7100, 0, 100, 1, 0);
	sw(f, 7200, 1, 0, SR_PS_RUNNING, 100);
	assert_int_equal(f->nr_wakeups, 2);
	assert_int_equal(f->last.cpu, 1);
	assert_int_equal(f->last.actual, SR_O_PREV);
	assert_false(f->last.uncertain);
	/* it ran where it was not queued and nothing said it moved: uncertain */
	sw(f, 8000, 1, 100, SR_PS_SLEEPING, 0);
	waking(f, 8100, 0, 100, 1, 0);
	sw(f, 8200, 0, 0, SR_PS_RUNNING, 100);
	assert_int_equal(f->nr_wakeups, 3);
	assert_int_equal(f->last.cpu, 0);
	assert_true(f->last.uncertain);
	assert_int_equal(f->s.wc.inferred, 3);
	assert_int_equal(f->s.wc.unpaired, 0);
	fx_free(f);
}

static void test_hot_window_is_strict(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);
	waking(f, 5000 + 500000, 1, 100, 0, 200);
	wakeup(f, 5000 + 500001, 1, 100, 0, 120);
	assert_int_equal(f->last.actual, SR_O_PREV);
	assert_false(f->last.hot);
	assert_int_equal(f->s.wc.placed_hot, 0);
	sw(f, 600000, 0, 0, SR_PS_RUNNING, 100);
	sw(f, 600100, 0, 100, SR_PS_SLEEPING, 0);
	waking(f, 600100 + 499999, 1, 100, 0, 200);
	wakeup(f, 600100 + 499999, 1, 100, 0, 120);
	assert_true(f->last.hot);
	assert_int_equal(f->s.wc.placed_hot, 1);
	assert_int_equal(f->s.wc.affine_hot, 0);
	fx_free(f);
}

static void test_runnable_unknown_unpaired(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);
	/* 200 is running: waking it is not a placement. */
	waking(f, 6000, 0, 200, 1, 0);
	wakeup(f, 6001, 0, 200, 1, 120);
	assert_int_equal(f->last.cls, SR_W_RUNNABLE);
	assert_int_equal(f->nr_placements, 0);
	/* never seen before */
	waking(f, 6100, 0, 300, 1, 0);
	wakeup(f, 6101, 0, 300, 1, 120);
	assert_int_equal(f->last.cls, SR_W_UNKNOWN);
	/* a sched_wakeup with no sched_waking, two wakings, one left in flight */
	wakeup(f, 6200, 0, 400, 1, 120);
	waking(f, 6300, 1, 100, 0, 200);
	waking(f, 6400, 1, 100, 0, 200);
	wakeup(f, 6500, 1, 100, 0, 120);
	waking(f, 6600, 1, 500, 0, 200);
	sr_state_finish(&f->s, 7000);
	assert_int_equal(f->s.wc.unpaired, 3);
	assert_int_equal(f->s.wc.cls[SR_W_PLACED], 1);
	assert_int_equal(f->s.wc.cls[SR_W_RUNNABLE], 1);
	assert_int_equal(f->s.wc.cls[SR_W_UNKNOWN], 1);
	fx_free(f);
}

/*
 * CPU1 wakes 200 while it still runs on CPU0; 200 then sleeps there and
 * CPU0 goes idle: the kernel queued the wakeup on CPU0's wakelist (p->on_cpu),
 * and CPU0 is not idle to a placement until it emits the sched_wakeup.  With
 * another task left to run on CPU0, the waker waits for the switch and
 * selects a CPU: a placed wakeup, replayed then — unless its CPU records
 * something first, which a waiting waker cannot.
 */
static void test_wakeup_queued_on_descheduling_cpu(void **state)
{
	struct fx *f = fx_new(true);

	sw(f, 1000, 0, 0, SR_PS_RUNNING, 200);
	sw(f, 1000, 1, 0, SR_PS_RUNNING, 300);
	waking(f, 2000, 1, 200, 0, 300);
	assert_false(f->s.rq[0].ttwu_pending);
	sw(f, 3000, 0, 200, SR_PS_SLEEPING, 0);
	assert_true(f->s.rq[0].ttwu_pending);
	assert_false(sr_rq_idle(&f->s.rq[0]));
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = 9000, .cpu = 0, .pid = 200,
				 .prio = 120, .target_cpu = 0, .common_pid = 0 });
	assert_false(f->s.rq[0].ttwu_pending);
	assert_int_equal(f->last.cls, SR_W_RUNNABLE);
	assert_int_equal(f->nr_placements, 0);
	/* another task to run there: the kernel waited and selected a CPU instead */
	sw(f, 10000, 0, 0, SR_PS_RUNNING, 200);
	waking(f, 11000, 1, 200, 0, 300);
	wakeup(f, 11100, 0, 400, 0, 120);
	assert_int_equal(f->nr_placements, 0);
	sw(f, 12000, 0, 200, SR_PS_SLEEPING, 400);
	assert_false(f->s.rq[0].ttwu_pending);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->last_ctx_this, 1);
	assert_int_equal(f->last_ctx_prev, 0);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 12100, .cpu = 1, .pid = 200,
				 .prio = 120, .orig_cpu = 0, .dest_cpu = 1, .common_pid = -1 });
	wakeup(f, 12200, 1, 200, 1, 120);
	assert_int_equal(f->last.cls, SR_W_PLACED);
	assert_int_equal(f->last.actual, SR_O_WAKER);
	/*
	 * The same, but CPU1 records another waking before the switch: it did
	 * not wait, so CPU0 had nothing queued at the waking (500 came later,
	 * pulled in by the switch's newidle balance): the wakelist again.
	 */
	sw(f, 20000, 0, 400, SR_PS_SLEEPING, 200);
	waking(f, 21000, 1, 200, 0, 300);
	waking(f, 21500, 1, 999, 1, 300);
	wakeup(f, 21600, 0, 500, 0, 120);
	sw(f, 22000, 0, 200, SR_PS_SLEEPING, 500);
	assert_int_equal(f->nr_placements, 1);
	assert_true(f->s.rq[0].ttwu_pending);
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = 23000, .cpu = 0, .pid = 200,
				 .prio = 120, .target_cpu = 0, .common_pid = 500 });
	assert_int_equal(f->last.cls, SR_W_RUNNABLE);
	assert_int_equal(f->nr_placements, 1);
	fx_free(f);
}

/*
 * 5.8 - 5.19: the descheduling wakee's CPU takes the wakelist with one
 * other task queued ("nr_running <= 1"), and a wakeup to an idle CPU of
 * the same LLC is enqueued by the waker itself: no ttwu_pending there.
 */
static void test_wakelist_before_6_0(void **state)
{
	struct fx *f = fx_new_era(true, true);

	sw(f, 1000, 0, 0, SR_PS_RUNNING, 200);
	sw(f, 1000, 1, 0, SR_PS_RUNNING, 300);
	waking(f, 2000, 1, 200, 0, 300);
	wakeup(f, 2100, 0, 400, 0, 120);
	sw(f, 3000, 0, 200, SR_PS_SLEEPING, 400);
	assert_true(f->s.rq[0].ttwu_pending);
	assert_int_equal(f->nr_placements, 0);
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = 4000, .cpu = 0, .pid = 200,
				 .prio = 120, .target_cpu = 0, .common_pid = 400 });
	assert_int_equal(f->last.cls, SR_W_RUNNABLE);
	/* 400 and 200 sleep, CPU0 idles; CPU1 wakes 200 where it slept */
	sw(f, 5000, 0, 400, SR_PS_SLEEPING, 200);
	sw(f, 5100, 0, 200, SR_PS_SLEEPING, 0);
	waking(f, 6000, 1, 200, 0, 300);
	assert_int_equal(f->nr_placements, 1);
	assert_false(f->s.rq[0].ttwu_pending);
	fx_free(f);
}

static void test_standalone_wakeups(void **state)
{
	struct fx *f = fx_new(false);

	setup_sleeper(f);
	wakeup(f, 5100, 1, 100, 1, 120);
	assert_int_equal(f->s.wc.standalone, 1);
	assert_false(f->last.paired);
	assert_int_equal(f->last.cls, SR_W_PLACED);
	assert_int_equal(f->last.prev_cpu, 0);
	assert_int_equal(f->last.waker_cpu, 1);
	assert_int_equal(f->last.actual, SR_O_WAKER);
	wakeup(f, 5200, 1, 999, 1, 120);
	assert_int_equal(f->last.cls, SR_W_UNKNOWN);
	assert_int_equal(f->s.wc.unpaired, 0);
	fx_free(f);
}

static void test_resync_rules(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);
	/* 100 queued on CPU0 by a wakeup, then CPU0 goes idle without running it. */
	waking(f, 6000, 1, 100, 0, 200);
	wakeup(f, 6001, 1, 100, 0, 120);
	assert_int_equal(f->s.rq[0].nr_running, 1);
	sw(f, 6100, 0, 0, SR_PS_RUNNING, 0);
	assert_int_equal(f->s.rq[0].nr_running, 0);
	assert_int_equal(f->s.cpu[0].resyncs, 1);
	assert_int_equal(sr_state_task(&f->s, 100)->state, SR_T_UNKNOWN);
	/* CPU1 ran 200, but the next switch there says 300 leaves: 200's switch-out was lost. */
	sw(f, 7000, 1, 300, SR_PS_SLEEPING, 0);
	assert_int_equal(f->s.cpu[1].mismatches, 1);
	assert_int_equal(sr_state_task(&f->s, 200)->state, SR_T_UNKNOWN);
	assert_int_equal(sr_state_task(&f->s, 300)->state, SR_T_SLEEPING);
	assert_int_equal(f->s.rq[1].nr_running, 0);
	fx_free(f);
}

/* Rule 3: a sched event's common_pid names the task current on its CPU. */
static void test_common_pid_reveals_curr(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);			/* CPU0 idle, CPU1 runs 200 */
	/* CPU0 emits a waking from task 100: its switch-in was not recorded */
	waking(f, 6000, 0, 300, 1, 100);
	assert_int_equal(f->s.rq[0].curr_pid, 100);
	assert_int_equal(sr_state_task(&f->s, 100)->state, SR_T_RUNNING);
	assert_int_equal(f->s.cpu[0].mismatches, 1);
	/* the time before the resync is unknown, not idle */
	assert_int_equal(f->s.cpu[0].idle_ns, 0);
	assert_int_equal(f->s.cpu[0].unknown_ns, 1000);
	/* CPU1 emits from the idle task: 200's switch-out was lost */
	waking(f, 6100, 1, 400, 0, 0);
	assert_int_equal(f->s.rq[1].curr_pid, 0);
	assert_int_equal(sr_state_task(&f->s, 200)->state, SR_T_UNKNOWN);
	/* a waking of 100 now finds it running: not a placement */
	waking(f, 6200, 1, 100, 0, 0);
	wakeup(f, 6300, 1, 100, 0, 120);
	assert_int_equal(f->last.cls, SR_W_RUNNABLE);
	fx_free(f);
}

static void test_lost_events_and_pid_reuse(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);
	ev(f, (struct sr_event){ .type = SR_EV_OTHER, .ts = 5100, .cpu = 1, .missed_before = 7,
				 .common_pid = -1 });
	assert_true(f->s.rq[1].uncertain);
	waking(f, 5200, 1, 100, 0, 200);
	wakeup(f, 5300, 1, 100, 1, 120);
	assert_true(f->last.uncertain);
	assert_int_equal(f->s.wc.uncertain, 1);
	sw(f, 5400, 1, 200, SR_PS_SLEEPING, 100);
	assert_false(f->s.rq[1].uncertain);
	/* 100 exits; its pid is reused by a fork while a stale waking is pending. */
	sw(f, 5500, 1, 100, SR_PS_DEAD, 0);
	assert_int_equal(sr_state_task(&f->s, 100)->state, SR_T_DEAD);
	waking(f, 5600, 0, 100, 1, 0);
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 5700, .cpu = 0, .pid = 50,
				 .child_pid = 100, .common_pid = -1 });
	assert_int_equal(f->s.pid_reuse, 1);
	assert_int_equal(sr_state_task(&f->s, 100)->state, SR_T_UNKNOWN);
	assert_false(sr_state_task(&f->s, 100)->pending);
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = 5800, .cpu = 0, .pid = 100,
				 .prio = 120, .target_cpu = 1, .common_pid = -1 });
	sr_state_finish(&f->s, 6000);
	assert_int_equal(f->s.wc.unpaired, 0);
	assert_int_equal(f->s.wc.wakeup_new, 1);
	assert_int_equal(f->s.rq[1].nr_running, 1);
	fx_free(f);
}

/* A wakeup meeting another CPU's lost window, as the reader's look-ahead reports it. */
static void wake_lost(struct fx *f, uint64_t t1, uint64_t t2, int open, uint64_t open_after,
		      uint64_t closed_before)
{
	waking(f, t1, 1, 100, 0, 200);
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = t2, .cpu = 1, .pid = 100,
				 .prio = 120, .target_cpu = 0, .common_pid = -1,
				 .lost_open = open, .lost_open_after = open_after,
				 .lost_closed_before = closed_before });
	sw(f, t2 + 10, 0, 0, SR_PS_RUNNING, 100);
	sw(f, t2 + 20, 0, 100, SR_PS_SLEEPING, 0);
}

static void test_lost_windows(void **state)
{
	struct fx *f = fx_new(true);

	setup_sleeper(f);
	/* a window closed before the waking: untouched */
	wake_lost(f, 6000, 6100, 0, 0, 5900);
	assert_false(f->last.in_lost_window);
	assert_false(f->last.uncertain);
	/* closed between waking and wakeup, and closed exactly at the waking: met */
	wake_lost(f, 7000, 7100, 0, 0, 7050);
	assert_true(f->last.in_lost_window);
	wake_lost(f, 8000, 8100, 0, 0, 8000);
	assert_true(f->last.in_lost_window);
	/* open at the wakeup: met when it began before it, not when it begins with it */
	wake_lost(f, 9000, 9100, 1, 9050, 8000);
	assert_true(f->last.in_lost_window);
	assert_true(f->last.uncertain);
	wake_lost(f, 10000, 10100, 1, 10100, 8000);
	assert_false(f->last.in_lost_window);
	assert_int_equal(f->s.wc.in_lost_window, 3);
	assert_int_equal(f->s.wc.outside_cls[SR_W_PLACED], 2);
	assert_int_equal(f->s.wc.cls[SR_W_PLACED], 5);
	assert_int_equal(f->s.wc.outside_actual[SR_O_PREV], 2);
	fx_free(f);
}

/* A CPU that dies running its stopper and comes back: offline, not busy, meanwhile. */
static void test_hotplug_silence(void **state)
{
	struct fx *f = fx_new(true);
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = 1000, .cpu = 1, .pid = 0, .prio = 120,
			      .prev_state = SR_PS_RUNNING, .next_pid = 39, .next_prio = 0 };

	snprintf(e.next_comm, sizeof(e.next_comm), "migration/1");
	sw(f, 1000, 0, 0, SR_PS_RUNNING, 100);
	ev(f, e);
	sw(f, 2000000000, 0, 100, SR_PS_RUNNING, 101);	/* CPU 1 silent for 2 s */
	e = (struct sr_event){ .type = SR_EV_WAKING, .ts = 2000001000, .cpu = 1, .pid = 40,
			       .prio = 120, .target_cpu = 1, .common_pid = 0 };
	ev(f, e);
	assert_int_equal(f->s.cpu[1].offlines, 1);
	assert_int_equal(f->s.cpu[1].offline_from, 1000);
	assert_int_equal(f->s.cpu[1].offline_ns, 2000000000);
	assert_true(f->s.cpu[1].busy_ns < 1000000);
	assert_true(f->s.cpu[1].unknown_ns >= 1999000000);
	/* an idle CPU that stays quiet is not offline */
	sw(f, 2000002000, 0, 101, SR_PS_RUNNING, 0);
	sw(f, 4000000000, 0, 0, SR_PS_RUNNING, 100);
	assert_int_equal(f->s.cpu[0].offlines, 0);
	fx_free(f);
}

static void test_weights_and_migration(void **state)
{
	struct fx *f = fx_new(true);

	sw(f, 100, 0, 0, SR_PS_RUNNING, 0);
	wakeup(f, 200, 0, 10, 0, 125);		/* nice 5: 335 */
	wakeup(f, 300, 0, 11, 0, 100);		/* nice -20: 88761 */
	wakeup(f, 400, 0, 12, 0, 50);		/* RT: no CFS load */
	assert_int_equal(f->s.rq[0].nr_running, 3);
	assert_int_equal(f->s.rq[0].cfs_nr_running, 2);
	assert_int_equal(f->s.rq[0].load_weight, 335 + 88761);
	/* a balancer pull of a queued task moves its weight */
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 500, .cpu = 1, .pid = 11,
				 .prio = 100, .orig_cpu = 0, .dest_cpu = 1, .common_pid = -1 });
	assert_int_equal(f->s.rq[0].load_weight, 335);
	assert_int_equal(f->s.rq[1].load_weight, 88761);
	/* a renice while queued keeps the sums exact */
	wakeup(f, 600, 1, 11, 1, 120);
	assert_int_equal(f->s.rq[1].load_weight, 1024);
	assert_int_equal(f->s.rq[1].nr_running, 1);
	fx_free(f);
}

static void test_record_wakee(void **state)
{
	struct fx *f = fx_new(true);
	struct sr_task *w;

	sw(f, 1000, 1, 0, SR_PS_RUNNING, 200);
	for (int pid = 300; pid < 306; pid++) {
		sw(f, 1000, 0, 0, SR_PS_RUNNING, pid);
		sw(f, 1001, 0, pid, SR_PS_SLEEPING, 0);
		waking(f, 2000 + pid, 1, pid, 0, 200);
		wakeup(f, 2000 + pid, 1, pid, 0, 120);
	}
	w = sr_state_task(&f->s, 200);
	/* the first taken to be the last_wakee it held before the trace */
	assert_int_equal(w->v.wakee_flips, 5);
	assert_int_equal(w->v.last_wakee, 305);
	/* same wakee again: no flip */
	sw(f, 3000, 0, 0, SR_PS_RUNNING, 305);
	sw(f, 3001, 0, 305, SR_PS_SLEEPING, 0);
	waking(f, 4000, 1, 305, 0, 200);
	assert_int_equal(w->v.wakee_flips, 5);
	/* more than HZ jiffies (1 s) later: one halving, then the new flip */
	sw(f, 5000, 0, 0, SR_PS_RUNNING, 300);
	sw(f, 5001, 0, 300, SR_PS_SLEEPING, 0);
	waking(f, 1100000000ULL, 1, 300, 0, 200);
	assert_int_equal(w->v.wakee_flips, 3);
	fx_free(f);
}

/* sr_pelt_decay() as first written: through sr_pelt_decay_load() and __int128 products. */
static double pelt_decay_ref(uint64_t dt)
{
	uint64_t part = dt & ((1ULL << 20) - 1), one = 1ULL << 32, d;

	if (!dt)
		return 1.0;
	d = sr_pelt_decay_load(one, dt >> 20);
	d -= (uint64_t)(((unsigned __int128)d * (one - sr_pelt_decay_load(one, 1)) * part) >> 52);
	return (double)d / (double)one;
}

/* Its shortcut form gives the same doubles, bit for bit: every period count, parts across one. */
static void test_pelt_decay_exact(void **state)
{
	for (uint64_t periods = 0; periods <= 32 * 63 + 2; periods++)
		for (uint64_t part = 0; part < (1 << 20); part += 4099) {
			uint64_t dt = periods << 20 | part;
			double a = pelt_decay_ref(dt), b = sr_pelt_decay(dt);

			assert_memory_equal(&a, &b, sizeof(a));
		}
	assert_true(sr_pelt_decay(UINT64_MAX) == 0.0);
}

static void test_pelt_and_time(void **state)
{
	struct fx *f = fx_new(true);
	struct sr_task *t;

	/* the kernel's decay_load(): LOAD_AVG_MAX halves in 32 periods, 0 past 63 halvings */
	assert_int_equal(sr_pelt_decay_load(47742, 32), 23870);
	assert_int_equal(sr_pelt_decay_load(47742, 1), 46718);
	assert_int_equal(sr_pelt_decay_load(1ULL << 40, 32 * 63 + 1), 0);
	assert_true(fabs(sr_pelt_decay(33554432) - 0.5) < 1e-9);
	assert_true(fabs(sr_pelt_decay(0) - 1.0) < 1e-12);
	/* half a period decays linearly, as accumulate_sum() adds it: within 1e-4 of y^0.5 */
	assert_true(fabs(sr_pelt_decay(1 << 19) - 0.98923) < 1e-4);
	sw(f, 1000, 0, 0, SR_PS_RUNNING, 100);
	sw(f, 1000, 1, 0, SR_PS_RUNNING, 0);
	/* runs 400 ms: PELT converges to its weight */
	sw(f, 400001000, 0, 100, SR_PS_SLEEPING, 0);
	t = sr_state_task(&f->s, 100);
	assert_true(t->v.load_avg >= 1020 && t->v.load_avg <= 1024);
	assert_true(t->v.util_avg >= 1020);
	assert_true(t->v.pelt_warm);
	assert_int_equal(f->s.cpu[0].busy_ns, 400000000);
	/* idle 400 us, then a task: avg_idle = 1 ms + (400 us - 1 ms) / 8 */
	sw(f, 400401000, 0, 0, SR_PS_RUNNING, 101);
	assert_int_equal(f->s.rq[0].avg_idle, 925000);
	assert_int_equal(f->s.rq[0].idle_since, 0);
	sr_state_finish(&f->s, 400501000);
	assert_int_equal(f->s.cpu[0].idle_ns, 400000);
	assert_int_equal(f->s.cpu[1].idle_ns, 400500000);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placed_affine_hot),
		cmocka_unit_test(test_select_gap),
		cmocka_unit_test(test_waking_only),
		cmocka_unit_test(test_hot_window_is_strict),
		cmocka_unit_test(test_runnable_unknown_unpaired),
		cmocka_unit_test(test_wakeup_queued_on_descheduling_cpu),
		cmocka_unit_test(test_wakelist_before_6_0),
		cmocka_unit_test(test_standalone_wakeups),
		cmocka_unit_test(test_resync_rules),
		cmocka_unit_test(test_common_pid_reveals_curr),
		cmocka_unit_test(test_lost_events_and_pid_reuse),
		cmocka_unit_test(test_lost_windows),
		cmocka_unit_test(test_hotplug_silence),
		cmocka_unit_test(test_weights_and_migration),
		cmocka_unit_test(test_record_wakee),
		cmocka_unit_test(test_pelt_decay_exact),
		cmocka_unit_test(test_pelt_and_time),
	};

	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
