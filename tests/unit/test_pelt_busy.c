// SPDX-License-Identifier: GPL-2.0
/*
 * A busy CPU's root cfs_rq load_avg as the kernel leaves it, fed through
 * sr_state_event() as a trace would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

#define MS 1000000ULL

/*
 * t200 runs on CPU 0 from 1 ms; t300 (first seen, its se.avg decayed to
 * nothing) is woken there at 300 ms and waits behind it for 40 ms, when
 * CPU 2's balancer pulls it: the migrating dequeue both updates CPU 0's
 * cfs_rq and detaches t300's ~590 from it (dequeue_entity() with
 * DO_DETACH, 6.1 and 6.12), so CPU 0 reads t200's ~1024 alone at once,
 * and still does once a tick has passed.
 */
static void test_pull_detaches_at_once(void **state)
{
	struct fx *f = fx_new();
	unsigned long at_pull, later;

	(void)state;
	sw(f, 1 * MS, 0, 0, "swapper/0", 200, "t200");
	waking(f, 300 * MS, 0, 300, "t300", 0, 200, false);
	wakeup(f, 300 * MS + 100, 0, 300, 0);
	sw(f, 339 * MS, 2, 0, "swapper/2", 400, "t400");
	migrate(f, 340 * MS, 2, 300, 0, 2, 400);
	tick_elsewhere(f, 341 * MS);
	at_pull = load_read(f, 0);
	assert_true(at_pull > 900 && at_pull < 1150);
	tick_elsewhere(f, 352 * MS);
	later = load_read(f, 0);
	assert_true(later > 900 && later < 1150);
	fx_free(f);
}

/*
 * A CPU busy when the trace began (the fixture gives no first records, so
 * every CPU is): t200 runs on CPU 0 throughout.  The state's util_avg
 * starts from zero; the guess of its past (sr_rq.pelt_pre_util, "it ran
 * before as it has since") makes up the rest, so a CPU that always ran
 * reads as the kernel's would, fully busy (here 721 + 303) — until the
 * warm-up ends and the guess goes.  The state itself never holds the guess.
 */
static void test_cold_cpu_guess(void **state)
{
	struct fx *f = fx_new();
	unsigned long util, pre;

	(void)state;
	sw(f, 1 * MS, 0, 0, "swapper/0", 200, "t200");
	tick_elsewhere(f, 60 * MS);
	util = util_read(f, 0);
	pre = f->s.rq[0].pelt_pre_util;
	assert_true(f->s.rq[0].pelt_cold);
	assert_true(util > 600 && util < 900);
	assert_true(util + pre > 1000 && util + pre < 1040);
	assert_true(f->s.rq[0].pelt_pre_load > 0);
	/* the cold flag is renewed where a decision reads it: at a placement */
	sw(f, 200 * MS, 2, 0, "swapper/2", 300, "t300");
	sw(f, 201 * MS, 2, 300, "t300", 0, "swapper/2");
	waking(f, 1 * MS + SR_PELT_WARM_NS + 10 * MS, 2, 300, "t300", 2, 0, true);
	wakeup(f, 1 * MS + SR_PELT_WARM_NS + 10 * MS + 100, 2, 300, 2);
	util = util_read(f, 0);
	assert_false(f->s.rq[0].pelt_cold);
	assert_true(util > 1000);
	assert_int_equal(f->s.rq[0].pelt_pre_util, 0);
	assert_int_equal(f->s.rq[0].pelt_pre_load, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pull_detaches_at_once),
		cmocka_unit_test(test_cold_cpu_guess),
	};

	return cmocka_run_group_tests_name("pelt_busy", tests, NULL, NULL);
}
