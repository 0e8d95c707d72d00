// SPDX-License-Identifier: GPL-2.0
/*
 * The SIS_UTIL budget a kernel's choice teaches (src/state/follow.c), on an
 * LLC of 16 (8 cores of 2 threads) where the budget can sit far from what
 * the LLC's util gives: a lesson is taken only within SCAN_LESSON_SLACK of
 * update_idle_cpu_scan() on the state's util now, through sr_state_event()
 * as a trace feeds it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

/* One LLC of 16: 8 cores of 2 threads (@flat: 16 CPUs, a machine assumed flat). */
static struct fx *fx_llc16_of(bool flat)
{
	return fx_new_on(flat ? NULL : "cores-per-llc=8,threads=2", 16, NULL);
}

static struct fx *fx_llc16(void)
{
	return fx_llc16_of(false);
}

/* 200 woken on CPU 0 by 100 at @ts, the kernel choosing @cpu, then asleep again on 0. */
static void wake_200(struct fx *f, uint64_t ts, int cpu)
{
	waking(f, ts, 0, 200, "sleeper", 0, 100, false);
	wakeup(f, ts + 100, cpu, 200, cpu);
	sw(f, ts + 1000, cpu, cpu ? 0 : 100, cpu ? "" : "hog", 200, "sleeper");
	sw(f, ts + 2000, cpu, 200, "sleeper", cpu ? 0 : 100, cpu ? "" : "hog");
}

/*
 * A quiet LLC, whose util gives the whole of it (16); the kernel kept the
 * sleeper on prev, which a budget of at most 1 answers.
 */
static void quiet_llc_kept_on_prev(struct fx *f)
{
	sw(f, 500, 0, 0, "", 200, "sleeper");
	sw(f, 1000, 0, 200, "sleeper", 100, "hog");
	assert_int_equal(sr_st_llc_scan_now(&f->s, 0), 16);
	f->next_ref = fx_scan_ref(5, 0, 1, -1, 0);
	wake_200(f, 3000, 0);
	assert_int_equal(f->nr_placements, 1);
}

/*
 * A quiet LLC: the util gives the whole LLC (16).  The kernel kept the
 * wakee on prev, which a budget of at most 1 answers: 15 from what the
 * util gives, another cause is likelier, and the budget stays.  At most
 * 12 is within the slack: taken.  The answer stays labelled as estimated.
 */
static void test_far_no_scan_lesson(void **state)
{
	struct fx *f = fx_llc16();

	quiet_llc_kept_on_prev(f);
	assert_true(f->ctx.llc[0].nr_idle_scan_estimated);
	assert_int_equal(f->s.scan[0].value, 16);
	f->next_ref = fx_scan_ref(5, 0, 12, -1, 0);
	wake_200(f, 10000, 0);
	assert_int_equal(f->s.scan[0].value, 12);
	fx_free(f);
}

/*
 * Sixteen hogs for 400 ms: the util gives 0.  The kernel took a CPU that
 * only a budget of at least 10 reaches: refused; at least 3: taken.
 */
static void test_far_full_scan_lesson(void **state)
{
	struct fx *f = fx_llc16();

	sw(f, 500, 0, 0, "", 200, "sleeper");
	sw(f, 1000, 0, 200, "sleeper", 100, "hog");
	for (int c = 1; c < 16; c++)
		sw(f, 1000, c, 0, "", 100 + c, "hog");
	f->next_ref = fx_scan_ref(5, -1, 0, 0, 10);
	wake_200(f, 400000000, 0);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.llc[0].nr_idle_scan, 0);
	assert_int_equal(sr_st_llc_scan_now(&f->s, 0), 0);
	assert_int_equal(f->s.scan[0].value, 0);
	f->next_ref = fx_scan_ref(5, -1, 0, 0, 3);
	wake_200(f, 400010000, 0);
	assert_int_equal(f->nr_placements, 2);
	assert_int_equal(f->s.scan[0].value, 3);
	fx_free(f);
}

/*
 * A machine assumed flat (no topology recorded): the budget formula over
 * an LLC it may not have says nothing, and the far lesson is taken.
 */
static void test_assumed_flat_takes_lesson(void **state)
{
	struct fx *f = fx_llc16_of(true);

	assert_int_equal(f->topo.source, SR_TOPO_ASSUMED_FLAT);
	quiet_llc_kept_on_prev(f);
	assert_int_equal(f->s.scan[0].value, 1);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_far_no_scan_lesson),
		cmocka_unit_test(test_far_full_scan_lesson),
		cmocka_unit_test(test_assumed_flat_takes_lesson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
