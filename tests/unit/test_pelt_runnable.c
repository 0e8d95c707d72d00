// SPDX-License-Identifier: GPL-2.0
/*
 * The 5.7+ runnable_avg (9f68395333ad "sched/pelt: Add a new runnable
 * average signal"), fed through sr_state_event() as a trace would: a
 * CPU's is the PELT of its runnable fair tasks, 1024 each, where util_avg
 * counts only the running one; a task's is its runnable fraction, and moves
 * with it; a new task's starts at its util (post_init_entity_util_avg()).
 * And the fork it decides: find_idlest_group() classifies a group by it
 * (070f5e860ee2, 5.7), an exec's less the task's own share
 * (cpu_runnable_without()).  CPUs 0-1 and 2-3 are two cores of one LLC.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"
#include "policy.h"

#define MS 1000000ULL

static unsigned long runnable_read(struct fx *f, int cpu)
{
	sr_st_cpu_advance(&f->s, cpu, f->s.now);
	return f->s.rq[cpu].runnable_avg;
}

/* t100 runs on CPU 0 from 1 ms, t200 waits behind it from then on. */
static void two_on_cpu0(struct fx *f)
{
	sw(f, 1 * MS, 0, 0, "swapper/0", 100, "t100");
	waking(f, 1 * MS + 100, 0, 200, "t200", 0, 100, false);
	wakeup(f, 1 * MS + 200, 0, 200, 0);
}

/*
 * ___update_load_sum() of the root cfs_rq: runnable accrues h_nr_running
 * (here 2) times 1024, util only the running task's 1024; 100 ms on, both
 * are that times 1 - y^(100 ms / 1024 us).  The waiting task's own
 * runnable_avg equals its load_avg (nice 0), its util stays 0.
 */
static void test_runnable_counts_queued(void **state)
{
	struct fx *f = fx_new();
	double full = 1.0 - sr_pelt_decay(100 * MS);
	unsigned long run, util;
	struct sr_task *t;

	(void)state;
	two_on_cpu0(f);
	tick_elsewhere(f, 1 * MS + 100 * MS);
	run = runnable_read(f, 0);
	util = util_read(f, 0);
	assert_true(run >= 2048 * full - 4 && run <= 2048 * full + 4);
	assert_true(util >= 1024 * full - 2 && util <= 1024 * full + 2);
	t = sr_state_task(&f->s, 200);
	sr_st_task_pelt(&f->s, t, f->s.now);
	assert_true(t->v.runnable_avg + 1 >= t->v.load_avg && t->v.runnable_avg <= t->v.load_avg + 1);
	assert_int_equal(t->v.util_avg, 0);
	fx_free(f);
}

/*
 * A queued task pulled to CPU 2 takes its runnable_avg along (detached in
 * its migrating dequeue, attached at its enqueue): CPU 0 keeps only t100's
 * share, CPU 2 gains t200's.
 */
static void test_runnable_moves_with_task(void **state)
{
	struct fx *f = fx_new();
	unsigned long before, mine;
	struct sr_task *t;

	(void)state;
	two_on_cpu0(f);
	sw(f, 300 * MS, 2, 0, "swapper/2", 400, "t400");
	tick_elsewhere(f, 301 * MS);
	before = runnable_read(f, 0);
	t = sr_state_task(&f->s, 200);
	migrate(f, 301 * MS, 2, 200, 0, 2, 400);
	mine = t->v.runnable_avg;
	assert_true(mine > 900);
	tick_elsewhere(f, 301 * MS + 1000);
	assert_true(runnable_read(f, 0) + mine >= before - 5 &&
		    runnable_read(f, 0) + mine <= before + 5);
	assert_true(runnable_read(f, 2) >= mine);
	fx_free(f);
}

/* sa->runnable_avg = sa->util_avg for a new task, its load_avg its weight. */
static void test_new_task_runnable(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *c;

	(void)state;
	sw(f, 1 * MS, 1, 0, "swapper/1", 50, "parent");
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2 * MS, .cpu = 1, .pid = 50,
				 .child_pid = 101, .common_pid = -1 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = 2 * MS + 10, .cpu = 1,
				 .pid = 101, .prio = 120, .target_cpu = 2, .common_pid = -1 });
	c = sr_state_task(&f->s, 101);
	assert_int_equal(c->v.load_avg, 1024);
	assert_int_equal(c->v.runnable_avg, c->v.util_avg);
	assert_true(c->v.util_avg > 0 && c->v.util_avg < 1024);
	fx_free(f);
}

/* The 6.1 policy at the fork, on the state's runqueues and on util in runnable's place. */
static struct sr_policy pol61;
static int fork_cpu, fork_cpu_util;

static int h_fork(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *b,
		  struct sr_ref *ref)
{
	struct sr_decision d = { 0 };
	struct sr_rq rq[4];
	struct sr_wake_ctx as_util = *ctx;

	(void)data;
	*ref = (struct sr_ref){ 0 };
	b[0].cpu = (int16_t)ctx->prev_cpu;
	if (ctx->kind != SR_WAKE_FORK)
		return 0;
	assert_int_equal(sr_policy_decide(&pol61, ctx, &d), 0);
	fork_cpu = d.cpu;
	memcpy(rq, ctx->rq, sizeof(rq));
	for (int i = 0; i < 4; i++)
		rq[i].runnable_avg = rq[i].util_avg;
	as_util.rq = rq;
	memset(&d, 0, sizeof(d));
	assert_int_equal(sr_policy_decide(&pol61, &as_util, &d), 0);
	fork_cpu_util = d.cpu;
	return 0;
}

/*
 * Three tasks runnable on CPU 0 for 400 ms, its sibling CPU 1 idle, one
 * task on each of CPUs 2 and 3; t100 on CPU 0 forks.  At the LLC level
 * core {0,1} holds 3 tasks on 2 CPUs with util ~1024 and runnable ~3072:
 * 3072 * 100 > 2048 * 117, overloaded (group_is_overloaded()), and core
 * {2,3} (util ~2048, runnable ~2048) only fully busy: the child goes to
 * core {2,3}.  Read as util, core {0,1} has spare capacity and the child
 * stays on it, on idle CPU 1.
 */
static void test_fork_group_runnable(void **state)
{
	struct fx *f = fx_new();

	(void)state;
	assert_int_equal(sr_policy_from_spec(&pol61, "linux-6.1"), 0);
	f->s.cfg.hooks.placement = h_fork;
	fork_cpu = fork_cpu_util = -1;
	two_on_cpu0(f);
	waking(f, 1 * MS + 300, 0, 300, "t300", 0, 100, false);
	wakeup(f, 1 * MS + 400, 0, 300, 0);
	sw(f, 1 * MS, 1, 0, "swapper/1", 0, "swapper/1");
	sw(f, 1 * MS, 2, 0, "swapper/2", 102, "t102");
	sw(f, 1 * MS, 3, 0, "swapper/3", 103, "t103");
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 400 * MS, .cpu = 0, .pid = 100,
				 .child_pid = 500, .common_pid = -1 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = 400 * MS + 10, .cpu = 0,
				 .pid = 500, .prio = 120, .target_cpu = 2, .common_pid = -1 });
	assert_true(fork_cpu == 2 || fork_cpu == 3);
	assert_int_equal(fork_cpu_util, 1);
	fx_free(f);
}

/*
 * cpu_runnable_without(): an exec's task is attached to its CPU's cfs_rq,
 * so its own runnable_avg leaves that CPU's.  Core {0,1}: the task (1024)
 * and two queued on CPU 0 (3000 in all), one task on CPU 1 (400): three
 * tasks besides the exec's on two CPUs; core
 * {2,3} a task on each, util 1000 apiece.  Less the task's share, core
 * {0,1}'s runnable is 2376: 237600 < 2048 * 117, spare capacity, and the
 * exec stays on it; counted, 3400 makes it overloaded and the exec leaves
 * for core {2,3}.
 */
static void test_exec_runnable_without(void **state)
{
	struct sr_task_view p = { .pid = 42, .prio = 120, .weight = 1024, .cpu = 0,
				  .on_cpu = true, .load_avg = 1024, .util_avg = 300,
				  .runnable_avg = 1024, .recent_used_cpu = -1 };
	struct sr_rq rq[4] = {
		{ .curr_pid = 42, .nr_running = 3, .cfs_nr_running = 3, .load_weight = 3072,
		  .load_avg = 3072, .util_avg = 600, .runnable_avg = 3000, .capacity = 1024 },
		{ .curr_pid = 43, .nr_running = 1, .cfs_nr_running = 1, .load_weight = 1024,
		  .load_avg = 1024, .util_avg = 300, .runnable_avg = 400, .capacity = 1024 },
		{ .curr_pid = 44, .nr_running = 1, .cfs_nr_running = 1, .load_weight = 1024,
		  .load_avg = 1024, .util_avg = 1000, .runnable_avg = 1000, .capacity = 1024 },
		{ .curr_pid = 45, .nr_running = 1, .cfs_nr_running = 1, .load_weight = 1024,
		  .load_avg = 1024, .util_avg = 1000, .runnable_avg = 1000, .capacity = 1024 },
	};
	struct sr_topo topo;
	struct sr_wake_ctx ctx = { .kind = SR_WAKE_EXEC, .this_cpu = 0, .prev_cpu = 0,
				   .sync = SR_NO, .p = &p, .curr = &p, .rq = rq, .topo = &topo };
	struct sr_decision d = { 0 };

	(void)state;
	assert_int_equal(sr_topo_from_spec(&topo, "cores-per-llc=2,threads=2", SR_ERA_511), 0);
	assert_int_equal(sr_policy_from_spec(&pol61, "linux-6.1"), 0);
	assert_int_equal(sr_policy_decide(&pol61, &ctx, &d), 0);
	assert_true(d.cpu == 0 || d.cpu == 1);
	p.runnable_avg = 0;
	memset(&d, 0, sizeof(d));
	assert_int_equal(sr_policy_decide(&pol61, &ctx, &d), 0);
	assert_true(d.cpu == 2 || d.cpu == 3);
	sr_topo_free(&topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runnable_counts_queued),
		cmocka_unit_test(test_runnable_moves_with_task),
		cmocka_unit_test(test_new_task_runnable),
		cmocka_unit_test(test_fork_group_runnable),
		cmocka_unit_test(test_exec_runnable_without),
	};

	return cmocka_run_group_tests_name("pelt_runnable", tests, NULL, NULL);
}
