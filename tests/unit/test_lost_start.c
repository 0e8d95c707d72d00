// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU whose records begin after a lost window that began with the trace
 * (src/state/pelt.c, sr_st_pelt_trace_starts()): the stationary guess of
 * its pre-trace load extrapolates from its own records only, not from what
 * the state guessed of it inside the window.  Mainline 6.18's
 * wake_affine_weight() then reads the CPU as loaded as its runqueue shows
 * (fixtures/lost/hackbench-b64-niced.dat #274 - #328: CPU 1's records
 * start at 23.3 ms).  Events -> state -> the linux-6.18 model, as
 * src/run/run.c runs them.
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
static void scene(struct fx *f, bool lost)
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

static void test_lost_start_prior(void **state)
{
	struct sr_state_cfg cfg = { .initial = busy_start };
	struct fx_ref_run r;

	(void)state;
	for (int lost = 0; lost < 2; lost++) {
		struct fx *f;

		assert_int_equal(sr_policy_from_spec(&r.pol, "linux-6.18"), 0);
		f = fx_new_on(NULL, 2, &cfg);
		f->s.cfg.hooks = (struct sr_state_hooks){ .data = &r, .placement = fx_ref_hook };
		scene(f, lost);
		/*
		 * Shown from the start, CPU 1 ran 300 and 400 for 30 ms: its
		 * guess from before the trace is two tasks' load, and the
		 * waker's CPU wins the weight test against CPU 0's four.
		 * Behind a window those 30 ms are not its record: the guess
		 * starts from its runqueue of eleven, and prev is the lighter.
		 */
		assert_int_equal(r.d.cpu, lost ? 0 : 1);
		fx_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_start_prior),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
