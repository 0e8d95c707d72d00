// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug from cpuhp events (src/state/hotplug.c) through the state
 * into select_task_rq()'s is_cpu_allowed() test (replay/
 * select_fallback_rq-4.17.c): a wakee whose class picks a CPU that left
 * cpu_active_mask goes where select_fallback_rq() puts it.
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

/* The numbers a 6.1 kernel gives CPUHP_ONLINE and CPUHP_TEARDOWN_CPU (Debian 6.1.0-57). */
#define ONLINE		236
#define TEARDOWN	153

static const struct sr_cpu_ingest idle_start[4] = {
	{ .first_pid = 0 }, { .first_pid = 0 }, { .first_pid = 0 }, { .first_pid = 0 },
};

static struct fx *hp_fx(struct fx_ref_run *r)
{
	struct sr_state_cfg cfg = { .initial = idle_start };
	struct fx *f;

	assert_int_equal(sr_policy_from_spec(&r->pol, "linux-6.1"), 0);
	f = fx_new_cfg(&cfg);
	f->s.cfg.hooks = (struct sr_state_hooks){ .data = r, .placement = fx_ref_hook };
	return f;
}

static void cpuhp(struct fx *f, enum sr_ev_type type, uint64_t ts, int on, int cpu, int state,
		  int step)
{
	ev(f, (struct sr_event){ .type = type, .ts = ts, .cpu = on, .common_pid = -1,
				 .hp_cpu = cpu, .hp_state = state, .hp_step = step });
}

/*
 * CPU 0 runs the waker 100, CPUs 1 and 2 a task each; 200 slept on CPU 3,
 * idle.  Then (@down) CPU 3 is being taken down: the control CPU 0 kicks
 * its hotplug thread, which enters CPUHP_AP_ACTIVE's teardown,
 * sched_cpu_deactivate().  100 wakes 200.
 */
static void scene(struct fx *f, bool down)
{
	sw(f, 1 * MS, 0, 0, "", 100, "waker");
	sw(f, 1 * MS, 1, 0, "", 300, "busy1");
	sw(f, 1 * MS, 2, 0, "", 400, "busy2");
	sw(f, 1 * MS, 3, 0, "", 200, "wakee");
	sw(f, 2 * MS, 3, 200, "wakee", 0, "");
	if (down) {
		cpuhp(f, SR_EV_CPUHP_ENTER, 3 * MS, 0, 3, TEARDOWN, ONLINE);
		cpuhp(f, SR_EV_CPUHP_ENTER, 3 * MS + 10 * US, 3, 3, TEARDOWN, ONLINE - 1);
	}
	waking(f, 4 * MS, 0, 200, "wakee", 3, 100, false);
}

/* Without hotplug the idle prev keeps the wakee. */
static void test_idle_prev_kept(void **state)
{
	struct fx_ref_run r;
	struct fx *f = hp_fx(&r);

	(void)state;
	scene(f, false);
	assert_int_equal(r.d.cpu, 3);
	fx_free(f);
}

/* prev left cpu_active_mask: is_cpu_allowed() fails, select_fallback_rq() takes node 0's first. */
static void test_inactive_prev_falls_back(void **state)
{
	struct fx_ref_run r;
	struct fx *f = hp_fx(&r);

	(void)state;
	scene(f, true);
	assert_true(sr_mask_test(&f->s.inactive, 3));
	assert_false(sr_mask_test(&f->s.offline, 3));
	assert_int_equal(r.d.cpu, 0);
	fx_free(f);
}

/* takedown_cpu() returned on the control CPU: offline; bring-up's sched_cpu_activate(): back. */
static void test_offline_and_back(void **state)
{
	struct fx_ref_run r;
	struct fx *f = hp_fx(&r);

	(void)state;
	scene(f, true);
	cpuhp(f, SR_EV_CPUHP_EXIT, 5 * MS, 3, 3, ONLINE - 2, ONLINE - 1);
	cpuhp(f, SR_EV_CPUHP_EXIT, 6 * MS, 0, 3, TEARDOWN, ONLINE);
	assert_false(sr_mask_test(&f->s.offline, 3));
	cpuhp(f, SR_EV_CPUHP_ENTER, 6 * MS + 10 * US, 0, 3, 0, TEARDOWN);
	cpuhp(f, SR_EV_CPUHP_EXIT, 7 * MS, 0, 3, 92, TEARDOWN);
	assert_true(sr_mask_test(&f->s.offline, 3));
	cpuhp(f, SR_EV_CPUHP_ENTER, 8 * MS, 0, 3, ONLINE, 33);
	assert_false(sr_mask_test(&f->s.offline, 3));
	assert_true(sr_mask_test(&f->s.inactive, 3));
	cpuhp(f, SR_EV_CPUHP_ENTER, 9 * MS, 3, 3, ONLINE, ONLINE - 1);
	assert_false(sr_mask_test(&f->s.inactive, 3));
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_prev_kept),
		cmocka_unit_test(test_inactive_prev_falls_back),
		cmocka_unit_test(test_offline_and_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
