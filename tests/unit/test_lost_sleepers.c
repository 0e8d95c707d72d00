// SPDX-License-Identifier: GPL-2.0
/*
 * A lost window on a CPU where freshly forked tasks went to sleep
 * (src/state/runqueue.c, sr_st_lost_sleepers()): their blocked averages
 * leave that CPU's sums, so mainline 6.18's wake_affine_weight() no longer
 * reads the CPU as loaded by tasks the kernel had run, and reaped, inside
 * the window (fixtures/lost/hackbench-b16-starved.dat #191 - #200).
 * Events -> state -> the linux-6.18 model, as src/run/run.c runs them.
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

static void test_lost_sleepers_leave(void **state)
{
	struct sr_state_cfg cfg = { .initial = idle_start };
	struct fx_ref_run r;

	(void)state;
	for (int lost = 0; lost < 2; lost++) {
		struct fx *f;

		assert_int_equal(sr_policy_from_spec(&r.pol, "linux-6.18"), 0);
		f = fx_new_on(NULL, 2, &cfg);
		f->s.cfg.hooks = (struct sr_state_hooks){ .data = &r, .placement = fx_ref_hook };
		scene(f, lost);
		/*
		 * Shown throughout, the children's sleep is a fact: CPU 0 holds
		 * their blocked load and the waker's CPU wins the weight test.
		 * Behind the window they most likely ran (and died) unseen: prev
		 * is the lighter CPU, the kernel's choice on the recorded trace.
		 */
		assert_int_equal(r.d.cpu, lost ? 0 : 1);
		fx_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_sleepers_leave),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
