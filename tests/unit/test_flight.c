// SPDX-License-Identifier: GPL-2.0
/*
 * Placements racing the runqueues they read (src/state/flight.c): a CPU
 * that __schedule() has already made idle when another CPU's wakeup reads
 * it, though its sched_switch comes a few microseconds later.  A placement
 * replayed just before such a switch, in an LLC it could scan, depends on
 * decision_time; one made earlier, or one that chose that very CPU, keeps
 * its answer's dependencies.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_soon),
		cmocka_unit_test(test_idle_later),
		cmocka_unit_test(test_idle_no_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
