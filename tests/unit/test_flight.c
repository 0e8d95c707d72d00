// SPDX-License-Identifier: GPL-2.0
/*
 * Placements racing the runqueues they read (src/state/flight.c): a CPU
 * that __schedule() has already made idle when another CPU's wakeup reads
 * it, though its sched_switch comes a few microseconds later.  A placement
 * replayed just before such a switch, in an LLC it could scan, depends on
 * decision_time; one made earlier, or one that chose that very CPU, keeps
 * its answer's dependencies.  And a wakeup the waker's CPU moved on from
 * with no sched_wakeup: queued on the target's wakelist, which reads busy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

#define T0	500000000ULL	/* the wakeup's sched_waking, ns */

/* Waker 100 runs on CPU 0, task 102 on CPU 3; the wakee 101 slept on CPU 2. */
static struct fx *setup(void)
{
	struct fx *f = fx_new();

	sw(f, 1000, 0, 0, "", 100, "waker");
	sw(f, 1000, 3, 0, "", 102, "busy");
	sw(f, 1000, 2, 0, "", 101, "wakee");
	sw(f, 400000000, 2, 101, "wakee", 0, "");
	waking(f, T0, 0, 101, "wakee", 2, 100, false);
	assert_int_equal(f->nr_placements, 1);	/* the fixture's hook answers prev: CPU 2 */
	return f;
}

static uint32_t depends(struct fx *f)
{
	return sr_state_task(&f->s, 101)->dec[0].depends;
}

static void test_idle_soon(void **state)
{
	struct fx *f = setup();

	(void)state;
	sw(f, T0 + 10000, 3, 102, "busy", 0, "");	/* traced idle 10 us later */
	assert_true(depends(f) & SR_DEP_DECISION_TIME);
	assert_false(sr_state_task(&f->s, 101)->dec[0].determined);
	wakeup(f, T0 + 50000, 2, 101, 2);
	fx_free(f);
}

static void test_idle_later(void **state)
{
	struct fx *f = setup();

	(void)state;
	sw(f, T0 + 30000, 3, 102, "busy", 0, "");	/* 30 us: after the placement's select */
	assert_false(depends(f) & SR_DEP_DECISION_TIME);
	wakeup(f, T0 + 50000, 2, 101, 2);
	fx_free(f);
}

/* The CPU going idle is the answer itself, or the wakeup is already done. */
static void test_idle_no_race(void **state)
{
	struct fx *f = setup();

	(void)state;
	sw(f, T0 + 5000, 2, 0, "", 103, "other");
	sw(f, T0 + 8000, 2, 103, "other", 0, "");	/* CPU 2, the answer */
	assert_false(depends(f) & SR_DEP_DECISION_TIME);
	wakeup(f, T0 + 9000, 2, 101, 2);
	sw(f, T0 + 12000, 3, 102, "busy", 0, "");	/* after the sched_wakeup */
	assert_false(depends(f) & SR_DEP_DECISION_TIME);
	fx_free(f);
}

/*
 * ttwu_queue() on the waker's CPU: a direct enqueue emits sched_wakeup
 * there at once; an event of that CPU with no sched_wakeup says the task
 * went to the target's wakelist instead (its CPU read idle by then), and
 * the target reads busy until its own sched_wakeup.
 */
static struct fx *wake_onto_busy(void)
{
	struct fx *f = fx_new();

	sw(f, 1000, 0, 0, "", 100, "waker");
	sw(f, 1000, 1, 0, "", 101, "wakee");
	sw(f, 1000, 2, 0, "", 104, "other");
	sw(f, 2000000, 1, 101, "wakee", 103, "busy");	/* 101 sleeps, 103 runs on CPU 1 */
	sw(f, 2000000, 2, 104, "other", 0, "");
	waking(f, T0, 0, 101, "wakee", 1, 100, false);
	assert_int_equal(f->nr_placements, 1);		/* the hook answers prev: CPU 1 */
	assert_false(f->s.rq[1].ttwu_pending);		/* busy, one LLC: a direct enqueue */
	sw(f, T0 + 30000, 1, 103, "busy", 0, "");	/* CPU 1 traced idle after the waking */
	return f;
}

static void test_returned_without_wakeup(void **state)
{
	struct fx *f = wake_onto_busy();

	(void)state;
	sw(f, T0 + 50000, 0, 100, "waker", 0, "");	/* CPU 0 went on: no direct enqueue */
	assert_true(f->s.rq[1].ttwu_pending);
	/* 5 ms on (a stalled CPU 1), a placement still reads it busy */
	sw(f, T0 + 5000000, 3, 0, "", 102, "waker2");
	waking(f, T0 + 5000100, 3, 104, "other", 2, 102, false);
	assert_int_equal(f->nr_placements, 2);
	assert_false(sr_rq_idle(&f->ctx.rq[1]));
	wakeup(f, T0 + 6000000, 1, 101, 1);		/* the IPI ran the list */
	assert_false(f->s.rq[1].ttwu_pending);
	fx_free(f);
}

static void test_direct_enqueue(void **state)
{
	struct fx *f = wake_onto_busy();

	(void)state;
	wakeup(f, T0 + 40000, 0, 101, 1);		/* enqueued by CPU 0 */
	sw(f, T0 + 50000, 0, 100, "waker", 0, "");
	assert_false(f->s.rq[1].ttwu_pending);
	fx_free(f);
}

/* After a sched_migrate_task the call goes on: the enqueue on the new target is still to come. */
static void test_returned_after_migrate(void **state)
{
	struct fx *f = wake_onto_busy();

	(void)state;
	sw(f, T0 + 31000, 2, 0, "", 105, "busy2");
	migrate(f, T0 + 40000, 0, 101, 1, 2, 100);
	assert_false(f->s.rq[2].ttwu_pending);		/* busy: a direct enqueue, so far */
	sw(f, T0 + 41000, 2, 105, "busy2", 0, "");
	sw(f, T0 + 50000, 0, 100, "waker", 0, "");
	assert_true(f->s.rq[2].ttwu_pending);
	assert_false(f->s.rq[1].ttwu_pending);
	wakeup(f, T0 + 900000, 2, 101, 2);
	assert_false(f->s.rq[2].ttwu_pending);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_soon),
		cmocka_unit_test(test_idle_later),
		cmocka_unit_test(test_idle_no_race),
		cmocka_unit_test(test_returned_without_wakeup),
		cmocka_unit_test(test_direct_enqueue),
		cmocka_unit_test(test_returned_after_migrate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
