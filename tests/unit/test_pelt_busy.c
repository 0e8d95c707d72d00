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

static unsigned long load_read(struct fx *f, int cpu)
{
	sr_st_cpu_advance(&f->s, cpu, f->s.now);
	return f->s.rq[cpu].load_avg;
}

/* An event on CPU 3 only moves the state's clock (CPU 3 stays idle). */
static void tick_elsewhere(struct fx *f, uint64_t ts)
{
	sw(f, ts, 3, 0, "swapper/3", 0, "swapper/3");
}

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
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 340 * MS, .cpu = 2, .pid = 300,
				 .prio = 120, .orig_cpu = 0, .dest_cpu = 2, .common_pid = 400 });
	tick_elsewhere(f, 341 * MS);
	at_pull = load_read(f, 0);
	assert_true(at_pull > 900 && at_pull < 1150);
	tick_elsewhere(f, 352 * MS);
	later = load_read(f, 0);
	assert_true(later > 900 && later < 1150);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pull_detaches_at_once),
	};

	return cmocka_run_group_tests_name("pelt_busy", tests, NULL, NULL);
}
