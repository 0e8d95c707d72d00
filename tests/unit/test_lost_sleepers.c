// SPDX-License-Identifier: GPL-2.0
/*
 * What a lost window leaves the loads the models read.  Events -> state ->
 * the linux-6.18 model, as src/run/run.c runs them, each scene with and
 * without the window:
 *  - a CPU where freshly forked tasks went to sleep (src/state/runqueue.c,
 *    sr_st_lost_sleepers()): their blocked averages leave that CPU's sums,
 *    so wake_affine_weight() no longer reads the CPU as loaded by tasks the
 *    kernel had run, and reaped, inside the window
 *    (fixtures/lost/hackbench-b16-starved.dat #191 - #200);
 *  - a CPU whose records begin after a window that began with the trace
 *    (src/state/pelt.c, sr_st_pelt_trace_starts()): the stationary guess of
 *    its pre-trace load extrapolates from its own records only, not from
 *    what the state guessed of it inside the window
 *    (fixtures/lost/hackbench-b64-niced.dat #274 - #328: CPU 1's records
 *    start at 23.3 ms).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "models.h"
#include "state-fx.h"
#include "model-hook.h"

#define US	1000ULL
#define MS	(1000 * US)

static const struct sr_cpu_ingest idle_start[2] = { { .first_pid = 0 }, { .first_pid = 0 } };

/*
 * Parent 50 forks 60 - 67 on CPU 0 at 1 ms; each runs a moment and sleeps
 * there.  CPU 1 runs 100 with 101 queued.  CPU 0 loses events from 3 ms
 * to 60 ms (@lost; else it is shown running 50 throughout); its next
 * record shows 200 leaving it asleep, and at 61 ms 100 wakes 200.
 */
static void scene(struct fx *f, bool lost)
{
	uint64_t t = 1 * MS;

	sw(f, t, 1, 0, "", 100, "waker");
	waking(f, t + 1 * US, 1, 101, "queued", 1, 100, false);
	wakeup(f, t + 2 * US, 1, 101, 1);
	sw(f, t, 0, 0, "", 50, "parent");
	for (int pid = 60; pid < 68; pid++) {
		t += 100 * US;
		ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = t, .cpu = 0, .pid = 50,
					 .child_pid = pid, .common_pid = 50 });
		ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = t + 1 * US, .cpu = 0,
					 .pid = pid, .prio = 120, .target_cpu = 0, .common_pid = 50 });
		sw(f, t + 10 * US, 0, 50, "parent", pid, "child");
		sw(f, t + 20 * US, 0, pid, "child", 50, "parent");
	}
	sw(f, 3 * MS, 0, 50, "parent", 200, "wakee");
	ev(f, (struct sr_event){ .type = SR_EV_SWITCH, .ts = 60 * MS, .cpu = 0, .pid = 200,
				 .prio = 120, .prev_state = SR_PS_SLEEPING, .next_pid = 50,
				 .next_prio = 120, .comm = "wakee", .next_comm = "parent",
				 .missed_before = lost ? 1000 : 0 });
	waking(f, 61 * MS, 1, 200, "wakee", 0, 100, false);
}

/* The model's answer at the last placement of @scene, with a window (@lost) or without. */
static int lost_answer(const struct sr_cpu_ingest *initial, void (*scene_fn)(struct fx *, bool),
		       bool lost)
{
	struct sr_state_cfg cfg = { .initial = initial };
	struct fx_ref_run r;
	struct fx *f;

	assert_int_equal(sr_policy_from_spec(&r.pol, "linux-6.18"), 0);
	f = fx_new_on(NULL, 2, &cfg);
	f->s.cfg.hooks = (struct sr_state_hooks){ .data = &r, .placement = fx_ref_hook };
	scene_fn(f, lost);
	fx_free(f);
	return r.d.cpu;
}

/*
 * Shown throughout, the children's sleep is a fact: CPU 0 holds their
 * blocked load and the waker's CPU wins the weight test.  Behind the
 * window they most likely ran (and died) unseen: prev is the lighter CPU,
 * the kernel's choice on the recorded trace.
 */
static void test_lost_sleepers_leave(void **state)
{
	(void)state;
	assert_int_equal(lost_answer(idle_start, scene, false), 1);
	assert_int_equal(lost_answer(idle_start, scene, true), 0);
}

/* Both CPUs busy when the trace begins: CPU 1 as its first record, at 30 ms, shows. */
static const struct sr_cpu_ingest busy_start[2] = {
	{ .first_pid = 100, .first_ts = 0 },
	{ .first_pid = 300, .first_ts = 30 * MS },
};

/*
 * CPU 0 runs 100, which wakes 101 - 104 there and 400 onto CPU 1, switches
 * to 200 and sleeps; 200 sleeps too: four tasks on CPU 0 to the end.  CPU 1
 * shows nothing until 30 ms (the state holds 300 and 400 there); then, after
 * a window of lost events when @lost, else with no record of a loss, 300 is
 * preempted by 301, which wakes 310 - 317 there (eleven on CPU 1), and at
 * 30.5 ms wakes 200, prev CPU 0.
 */
static void start_scene(struct fx *f, bool lost)
{
	sw(f, 1 * US, 0, 99, "prior", 100, "runner");
	for (int pid = 101; pid < 105; pid++) {
		waking(f, (uint64_t)(pid - 100) * 10 * US, 0, pid, "queued", 0, 100, false);
		wakeup(f, (uint64_t)(pid - 100) * 10 * US + 1 * US, 0, pid, 0);
	}
	waking(f, 60 * US, 0, 400, "moved", 1, 100, false);
	wakeup(f, 61 * US, 0, 400, 1);
	sw(f, 100 * US, 0, 100, "runner", 200, "wakee");
	sw(f, 200 * US, 0, 200, "wakee", 101, "queued");
	ev(f, (struct sr_event){ .type = SR_EV_SWITCH, .ts = 30 * MS, .cpu = 1, .pid = 300,
				 .prio = 120, .prev_state = SR_PS_RUNNING, .next_pid = 301,
				 .next_prio = 120, .comm = "first", .next_comm = "waker",
				 .missed_before = lost ? 1000 : 0 });
	for (int pid = 310; pid < 318; pid++) {
		uint64_t t = 30 * MS + (uint64_t)(pid - 309) * 10 * US;

		waking(f, t, 1, pid, "busy", 1, 301, false);
		wakeup(f, t + 1 * US, 1, pid, 1);
	}
	waking(f, 30 * MS + 500 * US, 1, 200, "wakee", 0, 301, false);
}

/*
 * Shown from the start, CPU 1 ran 300 and 400 for 30 ms: its guess from
 * before the trace is two tasks' load, and the waker's CPU wins the weight
 * test against CPU 0's four.  Behind a window those 30 ms are not its
 * record: the guess starts from its runqueue of eleven, and prev is the
 * lighter.
 */
static void test_lost_start_prior(void **state)
{
	(void)state;
	assert_int_equal(lost_answer(busy_start, start_scene, false), 1);
	assert_int_equal(lost_answer(busy_start, start_scene, true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_sleepers_leave),
		cmocka_unit_test(test_lost_start_prior),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
