// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs' PELT averages as the kernel's placement code reads them, fed
 * through sr_state_event() as a trace would: cfs_rq->avg frozen at its last
 * update_load_avg(), a dead task's averages leaving at the CPU's next update,
 * a sleeper migrated by its wakeup attached as synced to its old CPU (or,
 * 6.0+, decayed to now off an idle one), and a new task's util from
 * post_init_entity_util_avg(); a task woken while still running stays
 * running (ttwu_runnable()).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

#define MS 1000000ULL

/* Task 100 runs 400 ms on CPU 0, then sleeps: CPU 0 idle from 401 ms. */
static void run_then_sleep(struct fx *f)
{
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	sw(f, 401 * MS, 0, 100, "t100", 0, "swapper/0");
}

static void test_idle_cpu_read_frozen(void **state)
{
	struct fx *f = fx_new();
	unsigned long at_idle, later;

	(void)state;
	run_then_sleep(f);
	at_idle = load_read(f, 0);
	assert_true(at_idle > 1000);		/* 400 ms at weight 1024 */
	/* 20 ms later nothing updated CPU 0's cfs_rq: cpu_load() reads the same */
	tick_elsewhere(f, 421 * MS);
	later = load_read(f, 0);
	assert_int_equal(later, at_idle);
	assert_true(f->s.cpu[0].load_avg < 0.7 * (double)at_idle);	/* it did decay */
	/* past LOAD_AVG_PERIOD ms the nohz balancer brought the blocked load down */
	tick_elsewhere(f, 440 * MS);
	assert_true(load_read(f, 0) < 0.6 * (double)at_idle);
	fx_free(f);
}

/* Before 4.17 no periodic nohz update: the idle CPU reads as its switch to idle left it. */
static void test_idle_cpu_read_before_417(void **state)
{
	const struct sr_state_cfg era = { .blocked_unrefreshed = true };
	struct fx *f = fx_new_cfg(&era);
	unsigned long at_idle;

	(void)state;
	run_then_sleep(f);
	at_idle = load_read(f, 0);
	tick_elsewhere(f, 440 * MS);
	assert_int_equal(load_read(f, 0), at_idle);
	assert_false(f->s.rq[0].load_refreshed);
	fx_free(f);
}

/* CPUs 1 and 2 each run a task with another one queued behind it, from @ts on. */
static void overload_two(struct fx *f, uint64_t ts)
{
	for (int cpu = 1; cpu <= 2; cpu++) {
		sw(f, ts, cpu, 0, "swapper", 110 + cpu, "runner");
		waking(f, ts + 1000, cpu, 120 + cpu, "queued", cpu, 110 + cpu, false);
		wakeup(f, ts + 2000, cpu, 120 + cpu, cpu);
	}
}

/*
 * With two CPUs' tasks waiting, the nohz kick's idle CPU gets work first and
 * the blocked-load update comes to nothing: CPU 0 reads as it went idle
 * until the machine quietens.
 */
static void test_idle_cpu_refresh_waits_out_overload(void **state)
{
	struct fx *f = fx_new();
	unsigned long at_idle;

	(void)state;
	run_then_sleep(f);
	at_idle = load_read(f, 0);
	overload_two(f, 402 * MS);
	assert_int_equal(f->s.rq[1].nr_running, 2);
	tick_elsewhere(f, 440 * MS);
	assert_int_equal(load_read(f, 0), at_idle);
	assert_false(f->s.rq[0].load_refreshed);
	/* CPU 2's runner sleeps: one CPU overloaded, the update runs */
	sw(f, 450 * MS, 2, 112, "runner", 122, "queued");
	tick_elsewhere(f, 451 * MS);
	assert_true(load_read(f, 0) < 0.6 * (double)at_idle);
	assert_true(f->s.rq[0].load_refreshed);
	fx_free(f);
}

/*
 * _nohz_idle_balance() passes over a CPU idle_cpu() calls busy: a wakeup
 * waiting on its wakelist (rq->ttwu_pending) keeps the nohz update off it.
 */
static void test_idle_cpu_refresh_skips_wakelist_target(void **state)
{
	const struct sr_state_cfg v60 = { .ttwu_idle_wakelist = true };
	struct fx *f = fx_new_cfg(&v60);
	unsigned long at_idle;

	(void)state;
	run_then_sleep(f);
	at_idle = load_read(f, 0);
	sw(f, 402 * MS, 1, 0, "swapper/1", 300, "t300");
	waking(f, 420 * MS, 1, 100, "t100", 0, 300, false);	/* to idle CPU 0's wakelist */
	assert_true(f->s.rq[0].ttwu_pending);
	tick_elsewhere(f, 440 * MS);		/* past LOAD_AVG_PERIOD ms: the nohz update */
	assert_int_equal(load_read(f, 0), at_idle);
	assert_false(f->s.rq[0].load_refreshed);
	fx_free(f);
}

static void test_busy_cpu_past_a_tick(void **state)
{
	struct fx *f = fx_new();
	unsigned long util;

	(void)state;
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	tick_elsewhere(f, 2 * MS);
	/* within the tick (4 ms at HZ=250) of its switch: the switch's value */
	assert_int_equal(util_read(f, 0), 0);
	tick_elsewhere(f, 30 * MS);
	util = util_read(f, 0);
	/* a tick ran since: the running task's util is read as accrued */
	assert_true(util > 400 && util < 600);
	fx_free(f);
}

/*
 * A trace with sched_stat_runtime shows every tick of a CPU running a fair
 * task (update_curr() right before the tick's update_load_avg()): none is
 * assumed where none is seen — a stalled vCPU, 60 ms without one, is read
 * as of its last update.
 */
static void test_busy_cpu_ticks_seen(void **state)
{
	struct fx *f = fx_new();
	unsigned long before;

	(void)state;
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	ev(f, (struct sr_event){ .type = SR_EV_STAT_RUNTIME, .ts = 5 * MS, .cpu = 0, .pid = 100,
				 .runtime = 4 * MS, .common_pid = 100 });
	before = util_read(f, 0);
	assert_true(before > 50 && before < 150);	/* 4 ms running */
	tick_elsewhere(f, 65 * MS);
	assert_int_equal(util_read(f, 0), before);
	/* the next tick seen brings it up to date */
	ev(f, (struct sr_event){ .type = SR_EV_STAT_RUNTIME, .ts = 66 * MS, .cpu = 0, .pid = 100,
				 .runtime = 61 * MS, .common_pid = 100 });
	assert_true(util_read(f, 0) > 700);
	fx_free(f);
}

/*
 * A queued task pulled off a CPU by another's balancer is dequeued there:
 * an update of that CPU's cfs_rq, which a sleeper's wakeup migration off it
 * then syncs to (here: 30 ms of decay that neither the CPU's own events nor
 * its ticks showed).
 */
static void test_pull_updates_source(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *t;
	unsigned long slept;

	(void)state;
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	sw(f, 400 * MS, 0, 100, "t100", 200, "t200");	/* t100 sleeps on CPU 0 */
	waking(f, 400 * MS + 100, 0, 300, "t300", 0, 200, false);
	wakeup(f, 400 * MS + 200, 0, 300, 0);		/* t300 queued behind t200 */
	/* the trace shows ticks: none is assumed on CPU 0 after this one */
	ev(f, (struct sr_event){ .type = SR_EV_STAT_RUNTIME, .ts = 400 * MS + 300, .cpu = 0,
				 .pid = 200, .runtime = 300000, .common_pid = 200 });
	t = sr_state_task(&f->s, 100);
	slept = t->sleep_load;
	sw(f, 429 * MS, 2, 0, "swapper/2", 400, "t400");
	/* 30 ms on, CPU 2 pulls t300 (a balancer's move of a queued task) */
	migrate(f, 430 * MS, 2, 300, 0, 2, 400);
	/* ... then wakes t100 onto CPU 2: synced to CPU 0's update at the pull */
	waking(f, 430 * MS + 100, 2, 100, "t100", 0, 400, false);
	migrate(f, 430 * MS + 200, 2, 100, 0, 2, 400);
	assert_true(t->v.load_avg < 0.6 * (double)slept);
	fx_free(f);
}

/*
 * A busy CPU read past its tick: the tick applied what left before it, not
 * what left within the tick's window (a sleeper its wakeup moved away).
 */
static void test_busy_cpu_left_within_tick(void **state)
{
	struct fx *f = fx_new();
	unsigned long with, without;

	(void)state;
	sw(f, 1 * MS, 0, 0, "swapper/0", 200, "t200");
	sw(f, 200 * MS, 0, 200, "t200", 100, "t100");	/* t200 sleeps on CPU 0, blocked */
	sw(f, 210 * MS, 2, 0, "swapper/2", 300, "t300");
	/* 20 ms on: t300 wakes t200 onto CPU 2, which leaves CPU 0 */
	waking(f, 220 * MS, 2, 200, "t200", 0, 300, false);
	migrate(f, 220 * MS + 10, 2, 200, 0, 2, -1);
	with = load_read(f, 0);
	tick_elsewhere(f, 230 * MS);			/* a jiffy (4 ms) later: applied */
	without = load_read(f, 0);
	assert_true(with > without + 500);		/* t200's ~1000 of blocked load */
	fx_free(f);
}

/*
 * Wakelist IPIs that take 10 ms to arrive (a stalling vCPU): its ticks are
 * that late too, so a busy CPU keeps its last seen update that long.
 */
static void test_late_ipis_late_ticks(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	assert_int_equal(f->s.tick_late_ns, 4 * MS);	/* HZ=250: a jiffy */
	/* from the first IPI on: a trace's start is read with what it shows */
	sr_st_ipi_delivered(&f->s, 0, 10 * MS);
	assert_true(f->s.tick_late_ns >= 10 * MS && f->s.tick_late_ns < 11 * MS);
	for (int i = 1; i < 32; i++)
		sr_st_ipi_delivered(&f->s, i * 20 * MS, i * 20 * MS + 10 * MS);
	assert_true(f->s.tick_late_ns >= 10 * MS && f->s.tick_late_ns < 11 * MS);
	/* t100 runs from 1 ms on; 8 ms later the read is still its switch's */
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	tick_elsewhere(f, 9 * MS);
	assert_int_equal(util_read(f, 0), 0);
	tick_elsewhere(f, 30 * MS);
	assert_true(util_read(f, 0) > 400);
	/* prompt IPIs bring the window back to a jiffy: the 95th percentile */
	for (int i = 0; i < 320; i++)
		sr_st_ipi_delivered(&f->s, 0, 20000);
	assert_true(f->s.tick_late_ns >= 10 * MS);	/* 32 of 352 late: over 5 % */
	for (int i = 0; i < 320; i++)
		sr_st_ipi_delivered(&f->s, 0, 20000);
	assert_int_equal(f->s.tick_late_ns, 4 * MS);
	fx_free(f);
}

/*
 * IPIs that take a second (an idle vCPU's thread waits for the host): a
 * busy vCPU's ticks are not read as that late, at most 100 ms.
 */
static void test_tick_lateness_capped(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	for (int i = 0; i < 32; i++)
		sr_st_ipi_delivered(&f->s, i * 2000 * MS, i * 2000 * MS + 1000 * MS);
	assert_int_equal(f->s.tick_late_ns, 100 * MS);
	fx_free(f);
}

/* Task 100 runs 400 ms on CPU 0 and dies there: CPU 0 idle from 401 ms. */
static void run_then_die(struct fx *f)
{
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	ev(f, (struct sr_event){ .type = SR_EV_SWITCH, .ts = 401 * MS, .cpu = 0, .pid = 100,
				 .prio = 120, .prev_state = SR_PS_DEAD, .next_pid = 0,
				 .next_prio = 120 });
}

static void test_dead_task_leaves_at_next_update(void **state)
{
	struct fx *f = fx_new();
	unsigned long before;

	(void)state;
	run_then_die(f);
	before = load_read(f, 0);
	assert_true(before > 1000);		/* task_dead_fair() only queued the removal */
	/* the next update of CPU 0 applies it: a task woken there */
	waking(f, 402 * MS, 1, 200, "t200", 0, 0, true);
	wakeup(f, 402 * MS + 10, 0, 200, 0);
	assert_true(load_read(f, 0) < 50);
	fx_free(f);
}

/*
 * The dead task's RCU callback keeps idle CPU 0's tick running: the tick a
 * jiffy on (HZ=250: 4 ms) updates its blocked averages and applies the
 * removal, an update the kernel may not have made (the tick's rebalance
 * may not be due), so the last seen load is kept beside it.
 */
static void test_dead_task_leaves_at_idle_tick(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	run_then_die(f);
	tick_elsewhere(f, 404 * MS);
	assert_true(load_read(f, 0) > 1000);
	tick_elsewhere(f, 406 * MS);
	assert_true(load_read(f, 0) < 50);
	assert_true(f->s.rq[0].load_refreshed);
	assert_true(f->s.rq[0].load_avg_unrefreshed > 1000);
	fx_free(f);
}

/* CPU 3 runs a task with another queued behind it from @ts on: one CPU overloaded. */
static void overload_one(struct fx *f, uint64_t ts)
{
	sw(f, ts, 3, 0, "swapper/3", 113, "runner");
	waking(f, ts + 1000, 3, 123, "queued", 3, 113, false);
	wakeup(f, ts + 2000, 3, 123, 3);
}

/* t200 slept on CPU 2; woken by t300 on CPU 1 and moved to idle CPU 0 at 402 ms. */
static void move_to_0(struct fx *f)
{
	sw(f, 401 * MS + 100000, 2, 0, "swapper/2", 200, "t200");
	sw(f, 401 * MS + 200000, 2, 200, "t200", 0, "swapper/2");
	sw(f, 401 * MS + 300000, 1, 0, "swapper/1", 300, "t300");
	waking(f, 402 * MS, 1, 200, "t200", 0, 300, false);
	migrate(f, 402 * MS + 10, 1, 200, 2, 0, 300);
}

/*
 * A sleeper moved onto an idle CPU by its wakeup is attached there at its
 * sched_migrate_task, but the kernel enqueues it — the update that applies
 * a dead task's queued removal — only at its sched_wakeup: until then
 * cpu_load() reads the last update, the dead task's load included.
 */
static void test_wakeup_move_reads_last_update(void **state)
{
	struct fx *f = fx_new();
	unsigned long seen;

	(void)state;
	run_then_die(f);
	seen = load_read(f, 0);
	assert_true(seen > 1000);
	move_to_0(f);
	assert_int_equal(load_read(f, 0), seen);	/* no update: the move is none */
	assert_false(f->s.rq[0].load_refreshed);
	wakeup(f, 402 * MS + 500, 0, 200, 0);		/* the enqueue: removal applied */
	assert_true(load_read(f, 0) < seen / 2);
	fx_free(f);
}

/*
 * With one CPU's tasks waiting, its ticks kick the nohz balancer every few
 * jiffies, which updates idle CPUs' blocked averages: the move's target is
 * taken as updated lately, the last seen load kept beside the estimate.
 */
static void test_wakeup_move_updates_early(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	run_then_die(f);
	overload_one(f, 401 * MS + 50000);
	move_to_0(f);
	assert_true(load_read(f, 0) < 100);		/* the estimate: removal applied */
	assert_true(f->s.rq[0].load_refreshed);		/* ... an update the kernel may not */
	assert_true(f->s.rq[0].load_avg_unrefreshed > 1000);	/* have made yet */
	wakeup(f, 402 * MS + 500, 0, 200, 0);		/* the enqueue: now it has */
	load_read(f, 0);
	assert_false(f->s.rq[0].load_refreshed);
	fx_free(f);
}

/*
 * The kernel attaches a sleeper moved by its wakeup to the target's cfs_rq
 * at its enqueue (enqueue_entity() -> attach_entity_load_avg()), which a
 * wakelist delays to the target's IPI: until its sched_wakeup the target's
 * cpu_load() and cpu_util() leave it out, though the state's sums hold it.
 */
/* Task 200 runs 400 ms on CPU 2, then sleeps there with a load of ~1000. */
static void sleeper_on_2(struct fx *f)
{
	sw(f, 1 * MS, 2, 0, "swapper/2", 200, "t200");
	sw(f, 401 * MS, 2, 200, "t200", 0, "swapper/2");
}

static void test_moved_sleeper_attached_at_enqueue(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	sleeper_on_2(f);
	sw(f, 402 * MS, 1, 0, "swapper/1", 300, "t300");
	waking(f, 403 * MS, 1, 200, "t200", 0, 300, false);
	migrate(f, 403 * MS + 10, 1, 200, 2, 0, 300);
	assert_true(load_read(f, 0) < 50);	/* in flight: not in CPU 0's cfs_rq yet */
	assert_true(util_read(f, 0) < 50);
	wakeup(f, 403 * MS + 500, 0, 200, 0);	/* the enqueue attaches it */
	assert_true(load_read(f, 0) > 500);
	assert_true(util_read(f, 0) > 500);
	fx_free(f);
}

/*
 * Attached whole: migrate_task_rq_fair() zeroed se->avg.last_update_time, so
 * the enqueue ages neither the task nor what attach_entity_load_avg() adds,
 * however late the wakelist's IPI comes.  The next placement reads CPU 0
 * with all of it, not the ~2/3 left after 20 ms of decay.
 */
static void test_late_attach_adds_it_whole(void **state)
{
	struct fx *f = fx_new();
	const struct sr_task *t;
	unsigned long held_load, held_util;

	(void)state;
	sleeper_on_2(f);
	sw(f, 402 * MS, 1, 0, "swapper/1", 300, "t300");
	sw(f, 402 * MS, 3, 0, "swapper/3", 500, "t500");	/* a sleeper to place later */
	sw(f, 402 * MS + 100, 3, 500, "t500", 0, "swapper/3");
	waking(f, 403 * MS, 1, 200, "t200", 0, 300, false);
	migrate(f, 403 * MS + 10, 1, 200, 2, 0, 300);
	t = sr_state_task(&f->s, 200);
	assert_non_null(t);
	held_load = t->v.load_avg;
	held_util = t->v.util_avg;
	assert_true(held_load > 500);
	wakeup(f, 423 * MS, 0, 200, 0);			/* the IPI, 20 ms on */
	assert_int_equal(t->v.load_avg, held_load);	/* not aged while in flight */
	assert_true(load_read(f, 0) + 2 >= held_load);
	assert_true(util_read(f, 0) + 2 >= held_util);
	/* the state's path to the model: the next placement reads it so */
	f->nr_placements = 0;
	waking(f, 423 * MS + 100, 1, 500, "t500", 3, 300, false);
	assert_int_equal(f->nr_placements, 1);
	assert_true(f->ctx.rq[0].load_avg + 2 >= held_load);
	fx_free(f);
}

/*
 * A balancer moves only queued tasks; one the trace shows asleep was left
 * queued by 6.12's delayed dequeue, and attach_task() enqueues it on the
 * puller at once: its load is in that cfs_rq without a wakeup (measured on
 * the qemu-probes-6.12 srrec_sock-own.dat trace, CPU 7 at 91.6207 s).
 */
static void test_pulled_sleeper_attached_at_once(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	sleeper_on_2(f);
	sw(f, 402 * MS, 0, 0, "swapper/0", 300, "t300");
	migrate(f, 403 * MS, 0, 200, 2, 0, 300);		/* CPU 0's balancer: no waking */
	assert_true(load_read(f, 0) > 500);
	assert_true(util_read(f, 0) > 500);
	fx_free(f);
}

/*
 * update_cfs_rq_h_load(): the first task_h_load() of a jiffy on CPU 0
 * caches its root load_avg as h_load; reads later in that jiffy scale by
 * it though the load has moved, the next jiffy's first read recaches.
 */
static void test_h_load_cached_per_jiffy(void **state)
{
	struct fx *f = fx_new();
	unsigned long cached;

	(void)state;
	run_then_sleep(f);
	sw(f, 401 * MS + 10, 1, 0, "swapper/1", 300, "t300");
	/* jiffy 100 (HZ=250): 400 - 404 ms; the model read task_h_load() of t100 on CPU 0 */
	f->next_ref = (struct sr_ref){ .valid = true, .cpu = { 1, 1 }, .h_load_cpu = { -1, 0 } };
	waking(f, 402 * MS, 1, 100, "t100", 0, 300, false);
	cached = load_read(f, 0);
	assert_true(cached > 1000);
	assert_true(f->s.rq[0].h_load_cached);
	assert_int_equal(f->s.rq[0].h_load, cached);
	/* t100 moves to CPU 1; t200 is enqueued on CPU 0, which applies the removal */
	migrate(f, 402 * MS + 10, 1, 100, 0, 1, 300);
	wakeup(f, 402 * MS + 20, 1, 100, 1);
	f->next_ref.valid = false;
	waking(f, 403 * MS, 1, 200, "t200", 0, 300, false);
	wakeup(f, 403 * MS + 10, 0, 200, 0);
	assert_true(load_read(f, 0) < 100);
	assert_true(f->s.rq[0].h_load_cached);		/* still this jiffy's */
	assert_int_equal(f->s.rq[0].h_load, cached);
	tick_elsewhere(f, 404 * MS + 1);
	load_read(f, 0);
	assert_false(f->s.rq[0].h_load_cached);		/* the next reads recompute it */
	fx_free(f);
}

/*
 * t100 runs on CPU 0 from 1 ms; t300 wakes it at 41 ms from CPU 1 with no
 * sched_wakeup until t100 switches out asleep at 111 ms (a vCPU stalled in
 * schedule()): try_to_wake_up() found it dequeued, so from 41 ms it no
 * longer counts as runnable — its se.avg is the 41 ms value and CPU 0's load
 * has decayed since, against a run where the switch-out is all there is.
 */
static void test_dequeued_before_waking(void **state)
{
	struct fx *f = fx_new(), *g = fx_new();
	struct sr_task *t, *u;
	unsigned long at_41;

	(void)state;
	sw(f, 1 * MS, 1, 0, "swapper/1", 300, "t300");
	sw(g, 1 * MS, 1, 0, "swapper/1", 300, "t300");
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	sw(g, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	tick_elsewhere(g, 41 * MS);
	u = sr_state_task(&g->s, 100);
	sr_st_task_pelt(&g->s, u, g->s.now);
	at_41 = u->v.load_avg;
	waking(f, 41 * MS, 1, 100, "t100", 0, 300, false);
	sw(f, 111 * MS, 0, 100, "t100", 0, "swapper/0");
	sw(g, 111 * MS, 0, 100, "t100", 0, "swapper/0");
	t = sr_state_task(&f->s, 100);
	assert_true(t->sleep_load >= at_41 - 1 && t->sleep_load <= at_41 + 1);
	assert_int_equal(t->sleep_ts, 41 * MS);
	assert_true(u->sleep_load > at_41 + 200);	/* 70 ms more of running */
	assert_true(load_read(f, 0) + 200 < load_read(g, 0));
	assert_true(util_read(f, 0) + 200 < util_read(g, 0));
	fx_free(f);
	fx_free(g);
}

/*
 * A wakeup of a task still running (it set itself to sleep, then was woken
 * before schedule()): ttwu_runnable() leaves it running, its util grows on.
 */
static void test_woken_while_running(void **state)
{
	struct fx *f = fx_new(), *g = fx_new();
	unsigned long uf, ug;

	(void)state;
	sw(f, 1 * MS, 1, 0, "swapper/1", 300, "t300");
	sw(g, 1 * MS, 1, 0, "swapper/1", 300, "t300");
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	sw(g, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	waking(f, 41 * MS, 1, 100, "t100", 0, 300, false);
	wakeup(f, 41 * MS + 10000, 1, 100, 0);
	assert_int_equal(sr_state_task(&f->s, 100)->state, SR_T_RUNNING);
	sw(f, 111 * MS, 0, 100, "t100", 0, "swapper/0");
	sw(g, 111 * MS, 0, 100, "t100", 0, "swapper/0");
	uf = sr_state_task(&f->s, 100)->v.util_avg;
	ug = sr_state_task(&g->s, 100)->v.util_avg;
	assert_true(uf + 1 >= ug && uf <= ug + 1);
	assert_true(util_read(f, 0) + 1 >= util_read(g, 0) && util_read(f, 0) <= util_read(g, 0) + 1);
	fx_free(f);
	fx_free(g);
}

static void test_migrated_sleeper_synced_to_old_cpu(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *t;
	unsigned long slept;

	(void)state;
	run_then_sleep(f);
	t = sr_state_task(&f->s, 100);
	slept = t->sleep_load;
	assert_true(slept > 1000);
	/* woken 30 ms later from CPU 2 onto CPU 2 through its wakelist, 10 ms in flight */
	sw(f, 420 * MS, 2, 0, "swapper/2", 300, "t300");
	waking(f, 431 * MS, 2, 100, "t100", 0, 300, false);
	migrate(f, 431 * MS + 10, 2, 100, 0, 2, -1);
	/* CPU 0 idle since 401 ms: its cfs_rq's last update, so no decay */
	assert_true(t->v.load_avg >= slept - 1 && t->v.load_avg <= slept + 1);
	wakeup(f, 441 * MS, 2, 100, 2);
	/* not aged in flight either: last_update_time is 0 until the enqueue */
	assert_true(t->v.load_avg >= slept - 1 && t->v.load_avg <= slept + 1);
	fx_free(f);
}

/* 6.0+: off an idle CPU, migrate_se_pelt_lag() decays the sleeper to now. */
static void test_migrated_off_idle_cpu_decays(void **state)
{
	struct sr_state_cfg extra = { .migrate_pelt_lag = true };
	struct fx *f = fx_new_cfg(&extra);
	struct sr_task *t;
	unsigned long slept, moved;

	(void)state;
	run_then_sleep(f);
	t = sr_state_task(&f->s, 100);
	slept = t->sleep_load;
	sw(f, 420 * MS, 2, 0, "swapper/2", 300, "t300");
	waking(f, 401 * MS + 33554432, 2, 100, "t100", 0, 300, false);
	migrate(f, 401 * MS + 33554432, 2, 100, 0, 2, -1);
	/* 32 PELT periods asleep: one halving */
	moved = t->v.load_avg;
	assert_true(moved >= slept / 2 - 2 && moved <= slept / 2 + 2);
	wakeup(f, 445 * MS, 2, 100, 2);
	assert_int_equal(t->v.load_avg, moved);
	fx_free(f);
}

static void fork_child(struct fx *f, uint64_t ts, int parent, int child, int target)
{
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = ts, .cpu = 0, .pid = parent,
				 .child_pid = child, .common_pid = -1 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = ts + 10, .cpu = 0, .pid = child,
				 .prio = 120, .target_cpu = target, .common_pid = -1 });
}

static void test_new_task_util(void **state)
{
	struct fx *f = fx_new();
	unsigned long u, l, share, cap;

	(void)state;
	/*
	 * these CPUs' starts are unknown: within the warm-up a child's util
	 * still follows the estimate of its CPU's (none seen yet: the cap, half
	 * the spare capacity), as a child's util is never 0 on a CPU not full
	 */
	sw(f, 1 * MS, 1, 0, "swapper/1", 50, "parent");
	fork_child(f, 2 * MS, 50, 101, 1);
	assert_int_equal(sr_state_task(&f->s, 101)->v.util_avg, 512);
	sw(f, 380 * MS, 0, 0, "swapper/0", 60, "parent2");
	/* past it: CPU 2's util is known 0, so the cap, half the spare capacity */
	fork_child(f, 400 * MS, 50, 102, 2);
	assert_int_equal(sr_state_task(&f->s, 102)->v.util_avg, 512);
	assert_int_equal(sr_state_task(&f->s, 102)->v.load_avg, 1024);
	/* CPU 0 has run a task for 21 ms: the child's share by weight, capped */
	tick_elsewhere(f, 401 * MS);
	u = util_read(f, 0);
	l = load_read(f, 0);
	assert_true(u > 300 && u < 450);
	share = u * 1024 / (l + 1);
	cap = (1024 - u) / 2;
	fork_child(f, 401 * MS, 60, 103, 0);
	assert_int_equal(sr_state_task(&f->s, 103)->v.util_avg, share < cap ? share : cap);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_cpu_read_frozen),
		cmocka_unit_test(test_idle_cpu_read_before_417),
		cmocka_unit_test(test_idle_cpu_refresh_waits_out_overload),
		cmocka_unit_test(test_idle_cpu_refresh_skips_wakelist_target),
		cmocka_unit_test(test_busy_cpu_past_a_tick),
		cmocka_unit_test(test_busy_cpu_ticks_seen),
		cmocka_unit_test(test_pull_updates_source),
		cmocka_unit_test(test_busy_cpu_left_within_tick),
		cmocka_unit_test(test_late_ipis_late_ticks),
		cmocka_unit_test(test_dead_task_leaves_at_next_update),
		cmocka_unit_test(test_dead_task_leaves_at_idle_tick),
		cmocka_unit_test(test_wakeup_move_reads_last_update),
		cmocka_unit_test(test_wakeup_move_updates_early),
		cmocka_unit_test(test_moved_sleeper_attached_at_enqueue),
		cmocka_unit_test(test_late_attach_adds_it_whole),
		cmocka_unit_test(test_pulled_sleeper_attached_at_once),
		cmocka_unit_test(test_tick_lateness_capped),
		cmocka_unit_test(test_h_load_cached_per_jiffy),
		cmocka_unit_test(test_dequeued_before_waking),
		cmocka_unit_test(test_woken_while_running),
		cmocka_unit_test(test_migrated_sleeper_synced_to_old_cpu),
		cmocka_unit_test(test_migrated_off_idle_cpu_decays),
		cmocka_unit_test(test_new_task_util),
	};

	return cmocka_run_group_tests_name("pelt", tests, NULL, NULL);
}
