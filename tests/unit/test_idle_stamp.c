// SPDX-License-Identifier: GPL-2.0
/*
 * rq->idle_stamp where the trace leaves it open (src/state/stamp.c), fed as
 * a trace would, and what the 6.12 fork slow path makes of it:
 *  - a stopper (migration/N) switching to idle next to a sleeper that may
 *    still be queued (DELAY_DEQUEUE): balance_fair() skips the newidle
 *    balance that stamps, or not;
 *  - a sleeper still queued that a balancer moves onto an idle CPU: the
 *    CPU picks again and stamps with no sched_switch.
 * CPUs 0-1 and 2-3 are two cores of one LLC (state-fx.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"
#include "policy.h"

/* The 6.12 policy run at each fork placement the state reports. */
static struct sr_policy pol612;
static struct sr_decision dec;
static int nr_forks;

static int h_model(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *b,
		   struct sr_ref *ref)
{
	(void)data;
	*ref = (struct sr_ref){ 0 };
	b[0].cpu = (int16_t)ctx->prev_cpu;
	if (ctx->kind != SR_WAKE_FORK)
		return 0;
	nr_forks++;
	return sr_policy_decide(&pol612, ctx, &dec);
}

static struct fx *fx_stamp(bool delayed_dequeue)
{
	const struct sr_state_cfg era = { .ttwu_on_cpu = true, .ttwu_idle_wakelist = true,
					  .delayed_dequeue = delayed_dequeue };
	struct fx *f = fx_new_cfg(&era);

	assert_int_equal(sr_policy_from_spec(&pol612, "linux-6.12"), 0);
	f->s.cfg.hooks.placement = h_model;
	nr_forks = 0;
	return f;
}

/* @pid on @cpu wakes @cpu's stopper (pid 10 + cpu, prio 0), which preempts it. */
static void stopper_in(struct fx *f, uint64_t ts, int cpu, int pid)
{
	struct sr_event e;

	stopper_waking(f, ts, cpu, pid);
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = ts + 10, .cpu = cpu, .pid = 10 + cpu,
				 .prio = 0, .target_cpu = cpu, .common_pid = pid });
	e = (struct sr_event){ .type = SR_EV_SWITCH, .ts = ts + 20, .cpu = cpu, .pid = pid,
			       .prio = 120, .prev_state = SR_PS_RUNNING, .next_pid = 10 + cpu,
			       .next_prio = 0 };
	snprintf(e.next_comm, sizeof(e.next_comm), "migration/%d", cpu);
	ev(f, e);
}

/* The stopper moves @pid from @cpu to idle @to, sleeps, and @to runs @pid. */
static void stopper_out(struct fx *f, uint64_t ts, int cpu, int pid, int to)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts + 50, .cpu = cpu, .pid = 10 + cpu,
			      .prio = 0, .prev_state = SR_PS_SLEEPING, .next_pid = 0 };

	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = ts, .cpu = cpu, .pid = pid,
				 .prio = 120, .orig_cpu = cpu, .dest_cpu = to,
				 .common_pid = 10 + cpu });
	snprintf(e.comm, sizeof(e.comm), "migration/%d", cpu);
	ev(f, e);
	sw(f, ts + 100, to, 0, "", pid, "b");
}

/* kworker 102 woken onto @cpu by 101 there, preempting it, then asleep next to it. */
static void sleeper_next_to(struct fx *f, uint64_t ts, int cpu)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts + 100, .cpu = cpu, .pid = 101,
			      .prio = 120, .prev_state = SR_PS_RUNNING, .next_pid = 102,
			      .next_prio = 120 };

	waking(f, ts, cpu, 102, "kworker", cpu, 101, false);
	wakeup(f, ts + 10, cpu, 102, cpu);
	snprintf(e.comm, sizeof(e.comm), "b");
	snprintf(e.next_comm, sizeof(e.next_comm), "kworker");
	ev(f, e);
	sw(f, ts + 200, cpu, 102, "kworker", 101, "b");
}

/* Parent 100 on CPU 0 forks 500 at @ts: the 6.12 slow path runs (h_model). */
static void fork_at(struct fx *f, uint64_t ts, int target)
{
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = ts, .cpu = 0, .pid = 100,
				 .child_pid = 500, .common_pid = 100 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = ts + 10, .cpu = 0, .pid = 500,
				 .prio = 120, .target_cpu = target, .common_pid = 100 });
	assert_int_equal(nr_forks, 1);
}

/*
 * The machine: the parent busy on CPU 0, CPU 1 idle; CPU 2 idle since 2000;
 * on CPU 3 task b (101) has a kworker sleep next to it (when @sleeper),
 * then execs away to CPU 1 through migration/3, which switches to idle at
 * 3050.  A fork at 4000 then picks between CPUs 2 and 3 by their stamps.
 */
static void stopper_scene(struct fx *f, bool sleeper)
{
	sw(f, 1000, 0, 0, "", 100, "parent");
	sw(f, 1000, 2, 0, "", 200, "x");
	sw(f, 1000, 3, 0, "", 101, "b");
	sw(f, 2000, 2, 200, "x", 0, "");
	if (sleeper)
		sleeper_next_to(f, 2200, 3);
	else	/* a wakeup onto CPU 3 all the same: its stamp 0 */
		ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = 2210, .cpu = 3, .pid = 102,
					 .prio = 120, .target_cpu = 3, .common_pid = 101 });
	stopper_in(f, 2800, 3, 101);
	stopper_out(f, 3000, 3, 101, 1);
}

/*
 * 6.12: the stopper's switch to idle next to a maybe-delayed sleeper
 * leaves the stamp 0 (balance_fair() skipped newidle) or stamps it: the
 * fork's pick between CPU 3 (stamped 3050, read so) and CPU 2 (2000)
 * depends on delayed_dequeue.
 */
static void test_stopper_next_to_sleeper(void **state)
{
	struct fx *f = fx_stamp(true);

	stopper_scene(f, true);
	assert_int_equal(f->s.rq[3].idle_stamp, 3050);
	assert_int_equal(f->s.rq[3].idle_stamp_dep, SR_DEP_DELAYED_DEQUEUE);
	assert_int_equal(f->s.rq[3].idle_stamp_lo, 0);
	assert_int_equal(f->s.rq[3].idle_stamp_hi, 3050);
	fork_at(f, 4000, 3);
	assert_int_equal(dec.cpu, 3);
	assert_true(dec.depends & SR_DEP_DELAYED_DEQUEUE);
	assert_false(dec.depends & SR_DEP_IDLE_STAMP);
	fx_free(f);
}

/* No sleeper there, or a fair prev, or 6.1 (no delayed sleepers): stamped, no stamp input. */
static void test_stopper_stamps(void **state)
{
	struct fx *f = fx_stamp(true);

	stopper_scene(f, false);
	assert_int_equal(f->s.rq[3].idle_stamp, 3050);
	assert_int_equal(f->s.rq[3].idle_stamp_dep, 0);
	fork_at(f, 4000, 3);
	assert_int_equal(dec.cpu, 3);
	assert_false(dec.depends & (SR_DEP_DELAYED_DEQUEUE | SR_DEP_IDLE_STAMP));
	fx_free(f);

	f = fx_stamp(false);
	stopper_scene(f, true);
	assert_int_equal(f->s.rq[3].idle_stamp, 3050);
	assert_int_equal(f->s.rq[3].idle_stamp_dep, 0);
	fx_free(f);

	f = fx_stamp(true);
	sw(f, 1000, 3, 0, "", 101, "b");
	sleeper_next_to(f, 2200, 3);
	sw(f, 3000, 3, 101, "b", 0, "");	/* a fair prev: the fast path stamps */
	assert_int_equal(f->s.rq[3].idle_stamp, 3000);
	assert_int_equal(f->s.rq[3].idle_stamp_dep, 0);
	fx_free(f);
}

/*
 * A sleeper (b, asleep next to c on CPU 2) moved by idle CPU 3's balancer:
 * CPU 3 picks again, dequeues it, and newidle stamps it after the move,
 * no switch shown: open from the move to CPU 3's next record.
 */
static void test_delayed_pulled(void **state)
{
	struct fx *f = fx_stamp(true);

	sw(f, 1000, 2, 0, "", 101, "b");
	waking(f, 1100, 2, 102, "c", 2, 101, false);
	wakeup(f, 1110, 2, 102, 2);
	sw(f, 1500, 2, 101, "b", 102, "c");		/* b asleep next to c */
	sw(f, 1000, 3, 0, "", 300, "y");
	sw(f, 2000, 3, 300, "y", 0, "");
	assert_int_equal(f->s.rq[3].idle_stamp, 2000);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = 3000, .cpu = 3, .pid = 101,
				 .prio = 120, .orig_cpu = 2, .dest_cpu = 3, .common_pid = 0 });
	assert_int_equal(f->s.rq[3].idle_stamp, 3000);
	assert_int_equal(f->s.rq[3].idle_stamp_dep, SR_DEP_IDLE_STAMP);
	assert_int_equal(f->s.rq[3].idle_stamp_lo, 3000);
	assert_true(f->s.rq[3].idle_stamp_hi == SR_STAMP_OPEN);
	waking(f, 3400, 3, 102, "c", 2, 0, true);	/* CPU 3 back in its idle loop */
	assert_int_equal(f->s.rq[3].idle_stamp_hi, 3400);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stopper_next_to_sleeper),
		cmocka_unit_test(test_stopper_stamps),
		cmocka_unit_test(test_delayed_pulled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
