// SPDX-License-Identifier: GPL-2.0
/*
 * wake_wide()'s flips and WF_SYNC, both unknown in a plain trace, replayed
 * through the state and the linux-6.12 model: an answer the flips can move
 * depends on WF_SYNC only where some flips value gives a different CPU for
 * each WF_SYNC value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"
#include "policy.h"
#include "model-hook.h"

#define MS 1000000ULL

/*
 * Every CPU busy for 60 ms, CPU 2 (prev) with two tasks, CPU 0 with the
 * waker alone; tasks all from before the trace, so their wakee_flips are
 * unknown.  100 on CPU 0 wakes 200, which slept on CPU 2.  Narrow, either
 * WF_SYNC value pulls it to CPU 0 (the sync test, or the weight test with
 * prev twice as loaded) and nothing is idle; wide, it stays on prev.
 */
static struct sr_brief wake_busy(void)
{
	struct sr_policy pol;
	struct sr_brief b;
	struct fx *f;

	assert_int_equal(sr_policy_from_spec(&pol, "linux-6.12"), 0);
	f = fx_new();
	f->s.cfg.hooks = (struct sr_state_hooks){ .data = &pol, .placement = fx_model_hook };
	sw(f, 1 * MS, 0, 0, "", 100, "waker");
	sw(f, 1 * MS, 1, 0, "", 101, "busy1");
	sw(f, 1 * MS, 3, 0, "", 103, "busy3");
	sw(f, 1 * MS, 2, 0, "", 202, "busy2");
	waking(f, 2 * MS, 1, 203, "busy2b", 2, 101, false);
	wakeup(f, 2 * MS, 2, 203, 2);
	sw(f, 3 * MS, 2, 202, "busy2", 200, "wakee");
	sw(f, 4 * MS, 2, 200, "wakee", 202, "busy2");
	waking(f, 60 * MS, 0, 200, "wakee", 2, 100, false);
	b = sr_state_task(&f->s, 200)->dec[0];
	fx_free(f);
	return b;
}

/* Both narrow answers CPU 0, the wide one prev: the flips move it, WF_SYNC cannot. */
static void test_wide_alone_not_sync(void **state)
{
	struct sr_brief b = wake_busy();

	(void)state;
	assert_int_equal(b.cpu, 0);
	assert_int_equal(b.alt_cpu, 0);
	assert_true(b.depends & SR_DEP_WAKEE_FLIPS);
	assert_false(b.depends & SR_DEP_SYNC);
	assert_false(b.determined);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wide_alone_not_sync),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
