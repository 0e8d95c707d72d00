// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU without any event in the whole trace (sr_rq.silent): idle is the
 * guess until a choice of the kernel's, replayed by the reference, says the
 * kernel did not see it idle (src/state/follow.c, sr_st_follow_silent()).
 * The whole path: events -> state -> the linux-6.18 model.
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

/* CPU 0 has no event in the trace; CPU 1 runs the shell 50 from its start. */
static const struct sr_cpu_ingest silent0[2] = { { .first_pid = -1 }, { .first_pid = 50 } };

static struct fx *silent_fx(struct fx_ref_run *r)
{
	struct sr_state_cfg cfg = { .initial = silent0 };
	struct fx *f;

	assert_int_equal(sr_policy_from_spec(&r->pol, "linux-6.18"), 0);
	f = fx_new_on(NULL, 2, &cfg);
	f->s.cfg.hooks = (struct sr_state_hooks){ .data = r, .placement = fx_ref_hook };
	return f;
}

/* 50 forks 100 on CPU 1, and the kernel keeps the child there (wake_up_new_task()). */
static void fork_kept(struct fx *f, uint64_t ts)
{
	struct sr_event e = { .type = SR_EV_FORK, .ts = ts, .cpu = 1, .pid = 50,
			      .child_pid = 100, .common_pid = 50, .prio = 120 };

	snprintf(e.comm, sizeof(e.comm), "sh");
	snprintf(e.next_comm, sizeof(e.next_comm), "sh");
	ev(f, e);
	e = (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = ts + 10, .cpu = 1, .pid = 100,
			       .prio = 120, .target_cpu = 1, .common_pid = 50 };
	snprintf(e.comm, sizeof(e.comm), "sh");
	ev(f, e);
}

/* 50 sleeps, 100 runs on CPU 1 and wakes it: prev and the waker's CPU are both 1. */
static void child_wakes_parent(struct fx *f, uint64_t ts)
{
	sw(f, ts, 1, 50, "sh", 100, "sh");
	waking(f, ts + 300 * US, 1, 50, "sh", 1, 100, false);
}

/*
 * The fork stayed on the busy CPU 1 where find_idlest_group() would have
 * taken CPU 0, were it idle: the kernel's code did not see it idle, and the
 * wakeup that follows keeps prev (6.18 guest-time-shift.dat, wakeup 3; the
 * state took CPU 0 idle and sent it there by select_idle_cpu()).
 */
static void test_silent_held_busy(void **state)
{
	struct fx_ref_run r = { 0 };
	struct fx *f = silent_fx(&r);

	(void)state;
	fork_kept(f, 1 * MS);
	assert_int_equal(r.d.cpu, 0);		/* the fork's answer took CPU 0 idle */
	assert_true(f->s.rq[0].silent_busy);
	child_wakes_parent(f, 2 * MS);
	assert_int_equal(r.d.cpu, 1);
	assert_true(r.decp[0].depends & SR_DEP_SILENT_CPU);
	assert_false(r.decp[0].determined);
	fx_free(f);
}

/* No choice says otherwise: the silent CPU is taken idle, and the answer says it relied on it. */
static void test_silent_idle_guess(void **state)
{
	struct fx_ref_run r = { 0 };
	struct fx *f = silent_fx(&r);

	(void)state;
	child_wakes_parent(f, 2 * MS);
	assert_false(f->s.rq[0].silent_busy);
	assert_int_equal(r.d.cpu, 0);
	assert_true(r.decp[0].depends & SR_DEP_SILENT_CPU);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_silent_held_busy),
		cmocka_unit_test(test_silent_idle_guess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
