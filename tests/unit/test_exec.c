// SPDX-License-Identifier: GPL-2.0
/*
 * Exec placements (src/state/exec.c) as a trace feeds them: the task
 * waking its own CPU's stopper and being moved by it, a stay seen only at
 * sched_process_exec, the moment's certainty (decision_time), self-stops
 * that were not an exec, another CPU's stopper, and the probe path where
 * sched_exec()'s own srqf names the moment.  Forks: the moment of
 * wake_up_new_task()'s selection, and per-CPU kthreads not yet bound.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

#define WF_EXEC 0x02
#define WF_FORK 0x04
#define WF_TTWU 0x08
#define WF_SYNC 0x10

/* The placements the state reported, as analyses would get them. */
struct seen {
	int n;
	struct sr_wakeup last;
};

static struct seen seen;

static int h_wakeup(void *data, const struct sr_wakeup *w)
{
	if (w->kind == SR_WAKE_EXEC) {
		seen.n++;
		seen.last = *w;
	}
	return 0;
}

static struct fx *fx_exec(bool probes)
{
	struct sr_state_cfg c = { .has_select_probe = probes, .wf_sync = WF_SYNC,
				  .wf_fork = WF_FORK, .wf_ttwu = WF_TTWU };
	struct fx *f = fx_new_cfg(&c);

	f->s.cfg.wf_exec = WF_EXEC;
	f->s.cfg.hooks.wakeup = h_wakeup;
	memset(&seen, 0, sizeof(seen));
	return f;
}

static void stopper_moves(struct fx *f, uint64_t ts, int from, int pid, int to)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts, .cpu = from, .pid = pid, .prio = 120,
			      .prev_state = SR_PS_RUNNING, .next_pid = 10 + from, .next_prio = 0 };

	snprintf(e.comm, sizeof(e.comm), "sh");
	snprintf(e.next_comm, sizeof(e.next_comm), "migration/%d", from);
	ev(f, e);
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = ts + 10, .cpu = from, .pid = pid,
				 .prio = 120, .orig_cpu = from, .dest_cpu = to,
				 .common_pid = 10 + from });
	sw(f, ts + 20, from, 10 + from, "migration", 0, "swapper");
	sw(f, ts + 30, to, 0, "swapper", pid, "sh");
}

/* @pid sleeps on @cpu with the raw prev_state @raw (1 S, 2 D), idle next. */
static void sleep_out(struct fx *f, uint64_t ts, int cpu, int pid, long long raw)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts, .cpu = cpu, .pid = pid, .prio = 120,
			      .prev_state = SR_PS_SLEEPING, .prev_state_raw = raw, .next_pid = 0 };

	snprintf(e.comm, sizeof(e.comm), "sh");
	ev(f, e);
}

static void exec_done(struct fx *f, uint64_t ts, int cpu, int pid)
{
	struct sr_event e = { .type = SR_EV_EXEC, .ts = ts, .cpu = cpu, .pid = pid,
			      .common_pid = pid };

	snprintf(e.comm, sizeof(e.comm), "busybox");
	ev(f, e);
}

static void test_moved(void **state)
{
	struct fx *f = fx_exec(false);

	sw(f, 1000, 0, 0, "swapper", 100, "sh");
	stopper_waking(f, 2000, 0, 100);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.kind, SR_WAKE_EXEC);
	assert_int_equal(f->ctx.this_cpu, 0);
	assert_int_equal(f->ctx.prev_cpu, 0);
	assert_int_equal(f->ctx.unknown & SR_DEP_DECISION_TIME, 0);
	assert_int_equal(f->p.pid, 100);
	stopper_moves(f, 2100, 0, 100, 2);
	assert_int_equal(seen.n, 0);		/* not before the exec completes */
	exec_done(f, 3000, 2, 100);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.last.ts, 2000);
	assert_int_equal(seen.last.ts_wakeup, 3000);
	assert_int_equal(seen.last.prev_cpu, 0);
	assert_int_equal(seen.last.cpu, 2);
	assert_int_equal(seen.last.actual, SR_O_OTHER);
	assert_int_equal(seen.last.nr_dec, 1);
	assert_false(seen.last.at_select);
	assert_string_equal(sr_state_task(&f->s, 100)->comm, "busybox");
	assert_int_equal(f->s.wc.exec_moved, 1);
	assert_int_equal(f->s.wc.exec_unresolved, 0);
	fx_free(f);
}

/* Another CPU changed between the task's previous record and its self-stop. */
static void test_moved_time_unknown(void **state)
{
	struct fx *f = fx_exec(false);

	sw(f, 1000, 0, 0, "swapper", 100, "sh");
	sw(f, 1500, 3, 0, "swapper", 300, "other");
	stopper_waking(f, 2000, 0, 100);
	assert_int_not_equal(f->ctx.unknown & SR_DEP_DECISION_TIME, 0);
	fx_free(f);
}

/* init (50) on CPU 1 forks 100 onto CPU 2 at 1000; the child first runs at 1100. */
static void child_runs(struct fx *f)
{
	sw(f, 900, 1, 0, "swapper", 50, "init");
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 1000, .cpu = 1, .pid = 50,
				 .child_pid = 100, .common_pid = 50 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = 1010, .cpu = 1, .pid = 100,
				 .prio = 120, .target_cpu = 2, .common_pid = 50 });
	sw(f, 1100, 2, 0, "swapper", 100, "init");
}

/* A child that runs once and execs where it is: a stay, its moment certain. */
static void test_stay(void **state)
{
	struct fx *f = fx_exec(false);

	child_runs(f);
	exec_done(f, 1500, 2, 100);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.last.prev_cpu, 2);
	assert_int_equal(seen.last.cpu, 2);
	assert_int_equal(seen.last.actual, SR_O_PREV);
	assert_int_equal(f->ctx.kind, SR_WAKE_EXEC);
	assert_int_equal(f->ctx.unknown & SR_DEP_DECISION_TIME, 0);
	assert_int_equal(f->s.wc.exec_stayed, 1);
	assert_int_equal(f->s.wc.exec_time_unknown, 0);
	/* a second exec of the same task: the runqueues changed meanwhile */
	sw(f, 1600, 3, 0, "swapper", 300, "other");
	exec_done(f, 1700, 2, 100);
	assert_int_equal(seen.n, 2);
	assert_int_not_equal(f->ctx.unknown & SR_DEP_DECISION_TIME, 0);
	assert_int_equal(f->s.wc.exec_time_unknown, 1);
	fx_free(f);
}

/* The fixture's hook, answering with the CPU the time names: 1 before 1200 ns, 3 after. */
static int h_place_by_time(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
			   struct sr_ref *ref)
{
	int ret = h_place(data, ctx, dec, ref);

	dec[0].cpu = ctx->now < 1200 ? 1 : 3;
	return ret;
}

/*
 * A forked child's stay in its first slice: the answers replayed at its
 * switch-in (sched_exec() runs as execve() begins), not at its
 * sched_process_exec; CPU 3 turning busy in the slice leaves the moment
 * uncertain.
 */
static void test_stay_replayed_at_first_run(void **state)
{
	struct fx *f = fx_exec(false);

	f->s.cfg.hooks.placement = h_place_by_time;
	child_runs(f);
	assert_int_equal(f->nr_placements, 2);		/* the fork's, and the exec's at 1100 */
	assert_int_equal(f->ctx.kind, SR_WAKE_EXEC);
	assert_int_equal(f->ctx.now, 1100);
	sw(f, 1300, 3, 0, "swapper", 300, "other");
	exec_done(f, 1500, 2, 100);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.last.cpu, 2);
	assert_int_equal(seen.last.dec[0].cpu, 1);	/* the switch-in's answer */
	assert_int_equal(f->nr_placements, 2);		/* not replayed again */
	assert_int_not_equal(seen.last.dec[0].depends & SR_DEP_DECISION_TIME, 0);
	assert_false(seen.last.dec[0].determined);
	/* its next exec (no fork before it) is replayed when it completes */
	exec_done(f, 1700, 2, 100);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.last.dec[0].cpu, 3);
	fx_free(f);
}

/* It ran on two CPUs since its exec could begin: sched_exec()'s CPU is unknown. */
static void test_stay_cpu_unknown(void **state)
{
	struct fx *f = fx_exec(false);

	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 1000, .cpu = 1, .pid = 50,
				 .child_pid = 100, .common_pid = -1 });
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = 1010, .cpu = 1, .pid = 100,
				 .prio = 120, .target_cpu = 2, .common_pid = -1 });
	sw(f, 1100, 2, 0, "swapper", 100, "sh");
	sleep_out(f, 1200, 2, 100, 2);		/* D: reading the binary */
	waking(f, 1300, 3, 100, "sh", 2, 0, true);
	wakeup(f, 1310, 3, 100, 3);
	sw(f, 1320, 3, 0, "swapper", 100, "sh");
	exec_done(f, 1500, 3, 100);
	assert_int_equal(seen.n, 0);
	assert_int_equal(f->s.wc.exec_unresolved, 1);
	fx_free(f);
}

/* A task that stopped itself and then slept interruptibly was not exec'ing. */
static void test_self_stop_not_exec(void **state)
{
	struct fx *f = fx_exec(false);

	sw(f, 1000, 0, 0, "swapper", 100, "taskset");
	stopper_waking(f, 2000, 0, 100);
	stopper_moves(f, 2100, 0, 100, 2);
	sleep_out(f, 3000, 2, 100, 1);
	assert_int_equal(f->s.wc.exec_unresolved, 1);
	assert_false(sr_state_task(&f->s, 100)->exec.valid);
	fx_free(f);
}

/* Waking another CPU's stopper (active balance) or from irq is no self-stop. */
static void test_not_self_stop(void **state)
{
	struct fx *f = fx_exec(false);
	struct sr_event e = { .type = SR_EV_WAKING, .ts = 2000, .cpu = 0, .pid = 11, .prio = 0,
			      .target_cpu = 1, .common_pid = 100 };

	sw(f, 1000, 0, 0, "swapper", 100, "sh");
	snprintf(e.comm, sizeof(e.comm), "migration/1");
	ev(f, e);
	e = (struct sr_event){ .type = SR_EV_WAKING, .ts = 2100, .cpu = 0, .pid = 10, .prio = 0,
			       .target_cpu = 0, .common_pid = 100, .irq_context = true };
	snprintf(e.comm, sizeof(e.comm), "migration/0");
	ev(f, e);
	assert_false(sr_state_task(&f->s, 100)->exec.valid);
	fx_free(f);
}

/* Task 100, current on CPU 0, in sched_exec(): its srqf (WF_EXEC) at 2000 ... */
static void probed_select(struct fx *f)
{
	ev(f, (struct sr_event){ .type = SR_EV_SELECT, .ts = 2000, .cpu = 0, .pid = 100,
				 .common_pid = 100, .wake_flags = WF_EXEC, .load_avg = 1000,
				 .util_avg = 500, .cpu_load = UINT64_MAX, .cpu_util = UINT64_MAX,
				 .flips = UINT64_MAX, .flip_ts = UINT64_MAX, .jiffies = UINT64_MAX });
}

/* ... its first find_idlest_group() at 2050 ... */
static void probed_fig(struct fx *f)
{
	ev(f, (struct sr_event){ .type = SR_EV_IDLEST_GROUP, .ts = 2050, .cpu = 0, .pid = 100,
				 .common_pid = 100, .sd_weight = 4 });
}

/* ... and its srqf_ret at 2060: it stays on CPU 0. */
static void probed_ret(struct fx *f)
{
	ev(f, (struct sr_event){ .type = SR_EV_SELECT_RET, .ts = 2060, .cpu = 0, .target_cpu = 0,
				 .common_pid = 100 });
}

/* A probe trace: sched_exec()'s srqf opens it, its first fig replays it. */
static void test_probed(void **state)
{
	struct fx *f = fx_exec(true);

	sw(f, 1000, 0, 0, "swapper", 100, "sh");
	probed_select(f);
	assert_int_equal(f->nr_placements, 0);
	probed_fig(f);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.ts, 2000);
	assert_int_equal(f->ctx.kind, SR_WAKE_EXEC);
	probed_ret(f);
	assert_int_equal(f->nr_placements, 1);
	exec_done(f, 2500, 0, 100);
	assert_int_equal(seen.n, 1);
	assert_true(seen.last.at_select);
	assert_int_equal(seen.last.cpu, 0);
	assert_int_equal(f->s.probes.exec_selects, 1);
	assert_int_equal(f->s.probes.exec_ret_moved, 0);
	fx_free(f);
}

/* A runqueue changed between the probed exec's replay (its first fig) and srqf_ret. */
static void test_probed_window(void **state)
{
	struct fx *f = fx_exec(true);

	sw(f, 1000, 0, 0, "swapper", 100, "sh");
	probed_select(f);
	probed_fig(f);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.unknown & SR_DEP_DECISION_TIME, 0);
	sw(f, 2055, 3, 0, "swapper", 300, "other");
	probed_ret(f);
	exec_done(f, 2500, 0, 100);
	assert_int_equal(seen.n, 1);
	assert_int_not_equal(seen.last.dec[0].depends & SR_DEP_DECISION_TIME, 0);
	assert_false(seen.last.dec[0].determined);
	fx_free(f);
}

static void fork_child(struct fx *f, uint64_t ts, int parent, int child, const char *comm)
{
	struct sr_event e = { .type = SR_EV_FORK, .ts = ts, .cpu = 1, .pid = parent,
			      .child_pid = child, .common_pid = parent };

	snprintf(e.next_comm, sizeof(e.next_comm), "%s", comm);
	ev(f, e);
}

static void wakeup_new(struct fx *f, uint64_t ts, int parent, int child, const char *comm)
{
	struct sr_event e = { .type = SR_EV_WAKEUP_NEW, .ts = ts, .cpu = 1, .pid = child,
			      .prio = 120, .target_cpu = 2, .common_pid = parent };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	ev(f, e);
}

/* @parent forks @child at @ts, placed 10 ns later: replayed as a fork. */
static void forked(struct fx *f, uint64_t ts, int parent, int child, const char *comm)
{
	fork_child(f, ts, parent, child, comm);
	wakeup_new(f, ts + 10, parent, child, comm);
	assert_int_equal(f->ctx.kind, SR_WAKE_FORK);
}

/* wake_up_new_task() selects between sched_process_fork and sched_wakeup_new. */
static void test_fork_window(void **state)
{
	struct fx *f = fx_exec(false);

	sw(f, 900, 1, 0, "swapper", 50, "init");
	forked(f, 1000, 50, 100, "init");
	assert_int_equal(f->ctx.unknown & SR_DEP_DECISION_TIME, 0);
	/* another CPU's runqueue changes while the parent forks: the kernel's may be older */
	fork_child(f, 2000, 50, 101, "init");
	sw(f, 2005, 3, 0, "swapper", 300, "other");
	wakeup_new(f, 2010, 50, 101, "init");
	assert_int_equal(f->ctx.kind, SR_WAKE_FORK);
	assert_int_not_equal(f->ctx.unknown & SR_DEP_DECISION_TIME, 0);
	fx_free(f);
}

/* kthread_create_on_cpu() binds after the creation: the fork itself is not pinned. */
static void test_fork_kthread_unbound(void **state)
{
	struct fx *f = fx_exec(false);

	sw(f, 900, 1, 0, "swapper", 2, "kthreadd");
	forked(f, 1000, 2, 100, "kworker/3:1H");
	assert_null(f->ctx.allowed);
	assert_int_equal(f->p.nr_cpus_allowed, 0);
	assert_int_equal(sr_state_task(&f->s, 100)->bound_cpu, 3);	/* bound from then on */
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_moved_time_unknown),
		cmocka_unit_test(test_stay),
		cmocka_unit_test(test_stay_replayed_at_first_run),
		cmocka_unit_test(test_stay_cpu_unknown),
		cmocka_unit_test(test_self_stop_not_exec),
		cmocka_unit_test(test_not_self_stop),
		cmocka_unit_test(test_probed),
		cmocka_unit_test(test_probed_window),
		cmocka_unit_test(test_fork_window),
		cmocka_unit_test(test_fork_kthread_unbound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
