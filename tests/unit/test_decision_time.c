// SPDX-License-Identifier: GPL-2.0
/*
 * When the trace cannot say which runqueues the kernel's selection read:
 * a runqueue the answer turned on changed between the sched_waking (where
 * the placement is replayed) and the selection shown done; a waker's CPU
 * stalled inside try_to_wake_up() with another wakeup in flight.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

#define US 1000ULL
#define MS 1000000ULL

/* 100 runs on CPU 0 and 103 on CPU 3; 200 slept on CPU 1; 100 wakes 200 at 10 ms. */
static struct sr_task *wake_sleeper(struct fx *f)
{
	struct sr_task *p;

	sw(f, 1 * MS, 0, 0, "", 100, "waker");
	sw(f, 1 * MS, 1, 0, "", 200, "wakee");
	sw(f, 2 * MS, 1, 200, "wakee", 0, "");
	sw(f, 3 * MS, 3, 0, "", 103, "other");
	waking(f, 10 * MS, 0, 200, "wakee", 1, 100, false);
	p = sr_state_task(&f->s, 200);
	assert_non_null(p->dec);
	return p;
}

static void test_answer_cpu_changed_before_select(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *p = wake_sleeper(f);

	(void)state;
	assert_false(p->dec[0].depends & SR_DEP_DECISION_TIME);
	waking(f, 10 * MS + 10 * US, 3, 300, "late", 1, 103, false);
	wakeup(f, 10 * MS + 20 * US, 3, 300, 1);
	migrate(f, 10 * MS + 100 * US, 0, 200, 1, 2, -1);
	assert_true(p->dec[0].depends & SR_DEP_DECISION_TIME);
	fx_free(f);
}

/* The same without the change on CPU 1: the window holds nothing, the answer stands. */
static void test_no_change_before_select(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *p = wake_sleeper(f);

	(void)state;
	migrate(f, 10 * MS + 100 * US, 0, 200, 1, 2, -1);
	assert_false(p->dec[0].depends & SR_DEP_DECISION_TIME);
	fx_free(f);
}

/*
 * CPU 2 wakes 300 towards idle CPU 1 and shows nothing more (its vCPU
 * stalled inside try_to_wake_up()): 5 ms on, CPU 1 still counts as in
 * flight, stalled; once CPU 2 shows another event the wakeup was lost.
 */
static void test_stalled_waker_keeps_flight(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	sw(f, 1 * MS, 2, 0, "", 102, "waker");
	sw(f, 1 * MS, 3, 0, "", 103, "other");
	waking(f, 2 * MS, 2, 300, "wakee", 1, 102, false);
	sw(f, 7 * MS, 3, 103, "other", 0, "");
	assert_true(sr_st_flights(&f->s));
	assert_true(sr_mask_test(&f->s.flight_mask, 1));
	assert_true(f->s.flight_stalled);
	sw(f, 8 * MS, 2, 102, "waker", 0, "");
	assert_false(sr_st_flights(&f->s));
	assert_false(f->s.flight_stalled);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer_cpu_changed_before_select),
		cmocka_unit_test(test_no_change_before_select),
		cmocka_unit_test(test_stalled_waker_keeps_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
