// SPDX-License-Identifier: GPL-2.0
/*
 * A forked child's PELT as its fork placed it, read by the next fork's
 * find_idlest_group() (state -> linux-6.12 model): the wait on an idle CPU
 * before its first switch-in counts as running (wake_up_new_task()'s
 * enqueue asked rq_clock_skip_update(), src/state/wakeup.c).
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

/* Four cores of two SMT threads in one LLC, each placement answered by linux-6.12. */
struct ffx {
	struct sr_topo topo;
	struct sr_state s;
	struct sr_policy pol;
};

static struct ffx *ffx_new(void)
{
	struct ffx *f = calloc(1, sizeof(*f));
	struct sr_state_cfg cfg = { 0 };

	assert_non_null(f);
	assert_int_equal(sr_topo_from_spec(&f->topo, "cores-per-llc=4,threads=2", SR_ERA_511), 0);
	assert_int_equal(sr_policy_from_spec(&f->pol, "linux-6.12"), 0);
	cfg.nr_cpus = 8;
	cfg.migration_cost_ns = 500000;
	cfg.hz = 250;
	cfg.has_waking = true;
	cfg.nr_policies = 1;
	cfg.root_cgroup = true;
	cfg.topo = &f->topo;
	cfg.hooks = (struct sr_state_hooks){ .data = &f->pol, .placement = fx_model_hook };
	assert_int_equal(sr_state_init(&f->s, &cfg), 0);
	return f;
}

static void ffx_free(struct ffx *f)
{
	sr_state_fini(&f->s);
	sr_topo_free(&f->topo);
	free(f);
}

static void fev(struct ffx *f, struct sr_event e)
{
	assert_int_equal(sr_state_event(&f->s, &e), 0);
}

static void fsw(struct ffx *f, uint64_t ts, int cpu, int prev, int next)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts, .cpu = cpu, .pid = prev,
			      .prio = 120, .prev_state = SR_PS_SLEEPING, .next_pid = next,
			      .next_prio = 120 };

	snprintf(e.comm, sizeof(e.comm), "%s", prev ? "hackbench" : "swapper");
	snprintf(e.next_comm, sizeof(e.next_comm), "%s", next ? "hackbench" : "swapper");
	fev(f, e);
}

/* Parent 50 on CPU 0 forks @child, which the kernel put on @target: returns the model's CPU. */
static int fork_to(struct ffx *f, uint64_t ts, int child, int target)
{
	struct sr_event e = { .type = SR_EV_FORK, .ts = ts, .cpu = 0, .pid = 50,
			      .child_pid = child, .common_pid = 50, .prio = 120 };

	snprintf(e.comm, sizeof(e.comm), "hackbench");
	snprintf(e.next_comm, sizeof(e.next_comm), "hackbench");
	fev(f, e);
	e = (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = ts + 10 * US, .cpu = 0,
			       .pid = child, .prio = 120, .target_cpu = target, .common_pid = 50 };
	snprintf(e.comm, sizeof(e.comm), "hackbench");
	fev(f, e);
	return sr_state_task(&f->s, child)->dec[0].cpu;
}

/*
 * Child 100 waits 8 ms on idle CPU 2 (a slow vCPU) and runs 0.5 ms; child
 * 101 runs at once on CPU 4, for 3 ms.  Counting 100's wait as running its
 * CPU's util is ~598 (512 from post_init_entity_util_avg(), grown over
 * 8.5 ms), above 101's ~544: the third fork's idlest group is CPU 4's
 * core, where counting it as waiting left CPU 2 at ~436, the lowest.
 */
static void test_fork_wait_on_idle_counts_running(void **state)
{
	struct ffx *f = ffx_new();
	int cpu;

	(void)state;
	fsw(f, 1 * MS, 0, 0, 50);
	fsw(f, 1 * MS, 6, 0, 60);	/* CPU 6 busy: its core has one idle CPU, as the parent's */
	fork_to(f, 10 * MS, 100, 2);
	fork_to(f, 11 * MS, 101, 4);
	fsw(f, 11 * MS + 20 * US, 4, 0, 101);
	fsw(f, 14 * MS + 20 * US, 4, 101, 0);
	fsw(f, 18 * MS + 10 * US, 2, 0, 100);
	assert_true(f->s.rq[2].util_avg > 560);		/* as running since 10 ms */
	fsw(f, 18 * MS + 510 * US, 2, 100, 0);
	assert_true(sr_state_task(&f->s, 100)->v.util_avg > sr_state_task(&f->s, 101)->v.util_avg);
	cpu = fork_to(f, 22 * MS, 102, 5);
	assert_true(cpu == 4 || cpu == 5);
	ffx_free(f);
}

/* A child enqueued on a busy CPU waits as any task does: its util only decays. */
static void test_fork_wait_on_busy_waits(void **state)
{
	struct ffx *f = ffx_new();
	unsigned long before;

	(void)state;
	fsw(f, 1 * MS, 0, 0, 50);
	fsw(f, 1 * MS, 2, 0, 70);
	fork_to(f, 10 * MS, 100, 2);
	before = sr_state_task(&f->s, 100)->v.util_avg;
	fsw(f, 18 * MS, 2, 70, 100);
	assert_true(sr_state_task(&f->s, 100)->v.util_avg < before);
	ffx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_wait_on_idle_counts_running),
		cmocka_unit_test(test_fork_wait_on_busy_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
