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
#include "policy.h"
#include "model-hook.h"

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

/*
 * CPU 0 wakes 200 towards idle CPU 1, its wakelist (6.0+); CPU 1 then runs
 * task 300 a moment, and CPU 0 records its next event at @returned
 * (try_to_wake_up() returned: the task stayed queued on prev).
 */
static struct fx *wake_to_wakelist(void)
{
	struct sr_state_cfg cfg = { .ttwu_idle_wakelist = true, .ttwu_on_cpu = true };
	struct fx *f = fx_new_cfg(&cfg);

	sw(f, 1 * MS, 0, 0, "", 100, "waker");
	sw(f, 1 * MS, 1, 0, "", 200, "wakee");
	sw(f, 2 * MS, 1, 200, "wakee", 0, "");
	waking(f, 10 * MS, 0, 200, "wakee", 1, 100, false);
	assert_true(f->s.rq[1].ttwu_pending);
	return f;
}

static void prev_runs_other(struct fx *f, uint64_t at)
{
	sw(f, at, 1, 0, "", 300, "other");
	sw(f, at + 5 * US, 1, 300, "other", 0, "");
}

static void test_wakelist_prev_changed_before_return(void **state)
{
	struct fx *f = wake_to_wakelist();
	struct sr_task *p = sr_state_task(&f->s, 200);

	(void)state;
	prev_runs_other(f, 10 * MS + 20 * US);
	sw(f, 10 * MS + 100 * US, 0, 100, "waker", 400, "next");	/* returned */
	assert_true(p->dec[0].depends & SR_DEP_DECISION_TIME);
	fx_free(f);
}

/* The change after the return, or after the sched_wakeup on prev: the window was closed. */
static void test_wakelist_prev_changed_after(void **state)
{
	struct fx *f = wake_to_wakelist();
	struct sr_task *p = sr_state_task(&f->s, 200);

	(void)state;
	sw(f, 10 * MS + 10 * US, 0, 100, "waker", 400, "next");	/* returned */
	prev_runs_other(f, 10 * MS + 20 * US);
	assert_false(p->dec[0].depends & SR_DEP_DECISION_TIME);
	fx_free(f);
	f = wake_to_wakelist();
	p = sr_state_task(&f->s, 200);
	wakeup(f, 10 * MS + 10 * US, 1, 200, 1);
	sw(f, 10 * MS + 12 * US, 1, 0, "", 200, "wakee");
	sw(f, 10 * MS + 20 * US, 1, 200, "wakee", 0, "");
	sw(f, 10 * MS + 100 * US, 0, 100, "waker", 400, "next");
	assert_false(p->dec[0].depends & SR_DEP_DECISION_TIME);
	fx_free(f);
}

/*
 * CPU 2 wakes 300 towards idle CPU 1 (its wakelist, 6.0+) and then records
 * nothing for @silent ns, or records an event 10 us on (@moved_on); CPU 0
 * then wakes 200, which slept on CPU 1 too.  Returns 200's answer.
 */
static struct sr_brief wake_past_wakelist(uint64_t silent, bool moved_on)
{
	struct sr_state_cfg cfg = { .ttwu_idle_wakelist = true, .ttwu_on_cpu = true };
	struct sr_policy pol;
	struct sr_brief b;
	struct fx *f;

	assert_int_equal(sr_policy_from_spec(&pol, "linux-6.12"), 0);
	f = fx_new_cfg(&cfg);
	f->s.cfg.hooks = (struct sr_state_hooks){ .data = &pol, .placement = fx_model_hook };
	sw(f, 1 * MS, 0, 0, "", 100, "waker");
	sw(f, 1 * MS, 2, 0, "", 102, "waker2");
	sw(f, 1 * MS, 1, 0, "", 200, "wakee");
	sw(f, 2 * MS, 1, 200, "wakee", 300, "sleeper");
	sw(f, 3 * MS, 1, 300, "sleeper", 0, "");
	waking(f, 10 * MS, 2, 300, "sleeper", 1, 102, false);
	assert_true(f->s.rq[1].ttwu_pending);
	if (moved_on)
		sw(f, 10 * MS + 10 * US, 2, 102, "waker2", 0, "");
	waking(f, 10 * MS + silent, 0, 200, "wakee", 1, 100, false);
	b = sr_state_task(&f->s, 200)->dec[0];
	fx_free(f);
	return b;
}

/* 5 ms of silence: CPU 1's wakelist may still have been empty; empty, prev is idle. */
static void test_stalled_waker_wakelist(void **state)
{
	struct sr_brief b = wake_past_wakelist(5 * MS, false);

	(void)state;
	assert_int_not_equal(b.cpu, 1);
	assert_true(b.depends & SR_DEP_CONCURRENT);
	assert_false(b.determined);
}

/* CPU 2 went on (its try_to_wake_up() returned), or is silent only 500 us: CPU 1 was busy. */
static void test_wakelist_shown_filled(void **state)
{
	struct sr_brief b = wake_past_wakelist(5 * MS, true);

	(void)state;
	assert_int_not_equal(b.cpu, 1);
	assert_false(b.depends & SR_DEP_CONCURRENT);
	b = wake_past_wakelist(500 * US, false);
	assert_int_not_equal(b.cpu, 1);
	assert_false(b.depends & SR_DEP_CONCURRENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer_cpu_changed_before_select),
		cmocka_unit_test(test_no_change_before_select),
		cmocka_unit_test(test_stalled_waker_keeps_flight),
		cmocka_unit_test(test_stalled_waker_wakelist),
		cmocka_unit_test(test_wakelist_shown_filled),
		cmocka_unit_test(test_wakelist_prev_changed_before_return),
		cmocka_unit_test(test_wakelist_prev_changed_after),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
