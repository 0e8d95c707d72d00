// SPDX-License-Identifier: GPL-2.0
/*
 * util_est_update() at a task's dequeue for sleep, through the state as a
 * trace feeds it: the ewma a task's CPU then counts while it is enqueued.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

#define MS 1000000ULL

/* A switch on CPU 0 whose @prev stays runnable (preempted). */
static void preempt(struct fx *f, uint64_t ts, int prev, const char *comm, int next,
		    const char *next_comm)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts, .cpu = 0, .pid = prev, .prio = 120,
			      .prev_state = SR_PS_RUNNING, .next_pid = next, .next_prio = 120 };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	snprintf(e.next_comm, sizeof(e.next_comm), "%s", next_comm);
	ev(f, e);
}

/*
 * Task 200 runs alone 400 ms (its util near 1024), sleeps (the ewma jumps
 * to it), then shares CPU 0 with a hog for 200 ms: half the CPU, though
 * runnable all along.  Its ewma at the next sleep, and so its CPU's
 * util_est at its next enqueue.
 */
static unsigned long ewma_after_sharing(bool runnable_rule)
{
	struct fx *f = fx_new();
	unsigned long ewma;
	uint64_t ts = 401 * MS;

	f->s.cfg.util_est_runnable = runnable_rule;
	sw(f, 0, 0, 0, "", 200, "task");
	sw(f, 400 * MS, 0, 200, "task", 0, "");
	assert_true(sr_state_task(&f->s, 200)->ue_ewma > 1000);
	waking(f, ts, 0, 200, "task", 0, 0, false);
	wakeup(f, ts + 1000, 0, 200, 0);
	sw(f, ts + 2000, 0, 0, "", 200, "task");
	waking(f, ts + 3000, 0, 300, "hog", 0, 200, false);
	wakeup(f, ts + 4000, 0, 300, 0);
	for (int i = 0; i < 100; i++) {
		ts += 2 * MS;
		if (i % 2)
			preempt(f, ts, 300, "hog", 200, "task");
		else
			preempt(f, ts, 200, "task", 300, "hog");
	}
	sw(f, ts + MS, 0, 200, "task", 300, "hog");
	ewma = sr_state_task(&f->s, 200)->ue_ewma;
	fx_free(f);
	return ewma;
}

/*
 * 6.7+ (50181c0cff31 "sched/pelt: Avoid underestimation of task
 * utilization"): a task whose runnable_avg is above its util_avg did not get
 * all the CPU it wanted, so its ewma is not brought down; before, it moves a
 * quarter of the way to the util at the dequeue.
 */
static void test_util_est_waited(void **state)
{
	unsigned long kept = ewma_after_sharing(true), lowered = ewma_after_sharing(false);

	(void)state;
	assert_true(kept > 1000);
	assert_true(lowered < 950 && lowered > 800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_est_waited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
