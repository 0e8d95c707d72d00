// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks' allowed CPUs: read from a snapshot's proc/<pid>/status, given to
 * the state, inherited at fork, handed to the placement as ctx->allowed (a
 * single CPU binds the task: no class is asked), dropped when the task runs
 * where its affinity said it could not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "machine.h"
#include "files-fx.h"
#include "state-fx.h"

#define STATUS(list)	"Name:\tx\nState:\tS (sleeping)\nCpus_allowed:\tf\nCpus_allowed_list:\t" \
			list "\nMems_allowed_list:\t0\n"

/* Only the tasks not allowed every CPU, sorted by pid; damaged files are skipped. */
static void test_load(void **state)
{
	char dir[] = "/tmp/sr-aff-XXXXXX";
	struct sr_affinity *a;
	int n;

	assert_non_null(mkdtemp(dir));
	put(dir, "proc/300/status", STATUS("2-3"));
	put(dir, "proc/20/status", STATUS("1"));
	put(dir, "proc/21/status", STATUS("0-3"));	/* every CPU: not listed */
	put(dir, "proc/22/status", STATUS("0-7"));	/* CPUs the trace lacks: another machine */
	put(dir, "proc/23/status", "Name:\tx\n");	/* no line */
	put(dir, "proc/24/status", STATUS("zz"));	/* garbage */
	put(dir, "proc/self/status", STATUS("1"));	/* not a pid */
	put(dir, "proc/25/status", STATUS("3,"));	/* a trailing comma: CPU 3 */
	put(dir, "proc/99999999999/status", STATUS("1"));	/* beyond any pid */
	put(dir, "proc/26/status", "Cpus_allowed_list:\t1\n");	/* the key must start a line */
	put(dir, "proc/27/status", STATUS("\x01\xff-\x80"));	/* bytes that are no text */
	/* threads: each its own (pthread_setaffinity_np()); a leader listed twice counts once */
	put(dir, "proc/300/task/301/status", STATUS("0"));
	put(dir, "proc/300/task/300/status", STATUS("2-3"));
	put(dir, "proc/300/task/302/status", STATUS("0-3"));
	put(dir, "proc/300/task/x/status", STATUS("1"));
	n = sr_affinity_load(dir, 4, &a);
	assert_int_equal(n, 4);
	assert_int_equal(a[0].pid, 20);
	assert_int_equal(sr_mask_first(&a[0].mask), 1);
	assert_int_equal(a[1].pid, 25);
	assert_int_equal(sr_mask_first(&a[1].mask), 3);
	assert_int_equal(a[2].pid, 300);
	assert_true(sr_mask_test(&a[2].mask, 2) && sr_mask_test(&a[2].mask, 3));
	assert_false(sr_mask_test(&a[2].mask, 1));
	assert_int_equal(a[3].pid, 301);
	assert_int_equal(sr_mask_weight(&a[3].mask), 1);
	assert_int_equal(sr_mask_first(&a[3].mask), 0);
	free(a);
	/* a snapshot without proc/<pid>/status (before 2026-12): none known */
	drop(dir);
	assert_int_equal(sr_affinity_load(dir, 4, &a), 0);
	assert_null(a);
}

/*
 * A snapshot of a root where thread 31 of process 30 and process 40 have
 * exited: record's earlier reads of their status are written (and listed
 * as captured), a live task's own copy is not overwritten, and the loader
 * reads the thread's mask.
 */
static void test_snapshot_kept_files(void **state)
{
	char root[] = "/tmp/sr-aff-root-XXXXXX", snap[64];
	const struct sr_snapshot_file kept[] = {
		{ "proc/30/task/31/status", STATUS("1") },
		{ "proc/40/status", STATUS("2-3") },
		{ "proc/30/status", STATUS("0") },	/* alive: the machine's copy wins */
		{ "../escape", "x" },			/* not below the snapshot */
	};
	struct sr_snapshot_opts so = { .root = root, .kept = kept, .nr_kept = 4 };
	struct sr_affinity *a;
	char path[128], *captured;
	json_t *json;

	assert_non_null(mkdtemp(root));
	put(root, "proc/30/status", STATUS("0-3"));
	snprintf(snap, sizeof(snap), "%s/snap", root);
	assert_int_equal(sr_snapshot_write(snap, &so, NULL), 0);
	assert_int_equal(sr_affinity_load(snap, 4, &a), 2);
	assert_int_equal(a[0].pid, 31);
	assert_int_equal(sr_mask_first(&a[0].mask), 1);
	assert_int_equal(a[1].pid, 40);
	free(a);
	snprintf(path, sizeof(path), "%s/" SR_SNAPSHOT_JSON, snap);
	json = json_load_file(path, 0, NULL);
	assert_non_null(json);
	captured = json_dumps(json_object_get(json, "captured"), 0);
	assert_non_null(strstr(captured, "\"proc/30/task/31/status\""));
	assert_non_null(strstr(captured, "\"proc/40/status\""));
	assert_null(strstr(captured, "escape"));
	free(captured);
	json_decref(json);
	drop(root);
}

static struct sr_affinity aff(int pid, const char *list)
{
	struct sr_affinity a = { .pid = pid };

	sr_mask_clear(&a.mask);
	assert_int_equal(sr_cpulist_parse(list, &a.mask), 0);
	return a;
}

static void fork_ev(struct fx *f, uint64_t ts, int cpu, int parent, int child)
{
	struct sr_event e = { .type = SR_EV_FORK, .ts = ts, .cpu = cpu, .pid = parent,
			      .child_pid = child, .common_pid = parent, .prio = 120 };

	snprintf(e.comm, sizeof(e.comm), "sh");
	snprintf(e.next_comm, sizeof(e.next_comm), "sh");
	ev(f, e);
	/* wake_up_new_task() selects between the two events */
	e = (struct sr_event){ .type = SR_EV_WAKEUP_NEW, .ts = ts + 10, .cpu = cpu, .pid = child,
			       .prio = 120, .target_cpu = 3, .common_pid = parent };
	snprintf(e.comm, sizeof(e.comm), "sh");
	ev(f, e);
}

/*
 * A task restricted to CPUs 2-3 (as a snapshot said) forks: its child's
 * placement gets the parent's mask, unless the snapshot lists the child.  A task
 * allowed one CPU is bound there: nr_cpus_allowed 1, no record_wakee().
 */
static void test_state_follows(void **state)
{
	struct sr_affinity a[] = { aff(50, "2-3"), aff(52, "0"), aff(60, "1") };
	struct sr_state_cfg cfg = { .affinity = a, .nr_affinity = 3 };
	struct fx *f = fx_new_cfg(&cfg);

	sw(f, 1000, 2, 0, "", 50, "sh");
	fork_ev(f, 2000, 2, 50, 51);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->ctx.kind, SR_WAKE_FORK);
	assert_non_null(f->ctx.allowed);
	assert_true(sr_mask_test(f->ctx.allowed, 3));
	assert_false(sr_mask_test(f->ctx.allowed, 0));
	assert_int_equal(f->p.pid, 51);
	assert_int_equal(f->p.nr_cpus_allowed, 2);
	/*
	 * A child the snapshot lists with its own mask (taskset: fork, set, exec)
	 * is placed under the one it inherited: it sets its own once it runs.
	 */
	fork_ev(f, 2500, 2, 50, 52);
	assert_int_equal(f->p.pid, 52);
	assert_int_equal(f->p.nr_cpus_allowed, 2);
	assert_true(sr_mask_test(f->ctx.allowed, 2) && sr_mask_test(f->ctx.allowed, 3));

	/* pid 60, allowed CPU 1 only: bound, the wakee of a task that is not a kthread */
	sw(f, 3000, 1, 0, "", 60, "pinned");
	sw(f, 4000, 1, 60, "pinned", 0, "");
	f->nr_placements = 0;
	waking(f, 5000, 2, 60, "pinned", 1, 50, false);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->p.nr_cpus_allowed, 1);
	assert_non_null(f->ctx.allowed);
	assert_int_equal(sr_mask_first(f->ctx.allowed), 1);
	assert_false(f->ctx.curr_percpu_kthread);
	fx_free(f);
}

/* Running where the mask excludes: the mask was stale; every CPU from then on, counted. */
static void test_broken_affinity(void **state)
{
	struct sr_affinity a[] = { aff(70, "0") };
	struct sr_state_cfg cfg = { .affinity = a, .nr_affinity = 1 };
	struct fx *f = fx_new_cfg(&cfg);

	sw(f, 1000, 0, 0, "", 70, "t");
	sw(f, 2000, 0, 70, "t", 0, "");
	assert_int_equal(f->s.affinity_broken, 0);
	sw(f, 3000, 3, 0, "", 70, "t");
	assert_int_equal(f->s.affinity_broken, 1);
	sw(f, 4000, 3, 70, "t", 0, "");
	waking(f, 5000, 1, 70, "t", 3, 0, true);
	assert_null(f->ctx.allowed);
	assert_int_equal(f->p.nr_cpus_allowed, 0);
	fx_free(f);
}

/*
 * taskset forks off a shell, sets its own mask, then execs the program: the
 * snapshot's mask for its pid holds from its exec.  Running elsewhere before
 * is no broken affinity.
 */
static void test_own_mask_at_exec(void **state)
{
	struct sr_affinity a[] = { aff(80, "0") };
	struct sr_state_cfg cfg = { .affinity = a, .nr_affinity = 1 };
	struct fx *f = fx_new_cfg(&cfg);
	struct sr_event e = { .type = SR_EV_EXEC, .ts = 4000, .cpu = 3, .pid = 80,
			      .common_pid = 80 };

	sw(f, 1000, 2, 0, "", 79, "sh");
	fork_ev(f, 2000, 2, 79, 80);
	sw(f, 3000, 3, 0, "", 80, "sh");	/* the child, before it execs taskset */
	assert_int_equal(f->s.affinity_broken, 0);
	e.ts = 3200;
	snprintf(e.comm, sizeof(e.comm), "taskset");
	ev(f, e);
	sw(f, 3500, 3, 80, "taskset", 0, "");	/* taskset, before sched_setaffinity() */
	sw(f, 3600, 3, 0, "", 80, "taskset");
	assert_int_equal(f->s.affinity_broken, 0);
	e.ts = 3700;
	snprintf(e.comm, sizeof(e.comm), "hackbench");
	ev(f, e);
	sw(f, 5000, 3, 80, "hackbench", 0, "");
	waking(f, 6000, 2, 80, "hackbench", 3, 79, false);
	assert_int_equal(f->p.nr_cpus_allowed, 1);
	assert_int_equal(sr_mask_first(f->ctx.allowed), 0);
	assert_int_equal(f->s.affinity_broken, 0);
	fx_free(f);
}

/* @prev, preempted on @cpu (R), lets @next run. */
static void preempt(struct fx *f, uint64_t ts, int cpu, int prev, int next)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts, .cpu = cpu, .pid = prev,
			      .prio = 120, .prev_state = SR_PS_RUNNING, .next_pid = next,
			      .next_prio = 120 };

	snprintf(e.comm, sizeof(e.comm), "pool");
	snprintf(e.next_comm, sizeof(e.next_comm), "pool");
	ev(f, e);
}

/*
 * A thread pins itself (pthread_setaffinity_np()) after it first runs: its
 * fork is placed under its parent's mask; it is preempted and runs again on
 * a CPU its own mask excludes before it sets it (no broken mask), sleeps
 * while the stopper moves it, and from that wakeup on its own mask holds.
 */
static void test_thread_sets_own_mask(void **state)
{
	struct sr_affinity a[] = { aff(91, "1") };
	struct sr_state_cfg cfg = { .affinity = a, .nr_affinity = 1 };
	struct fx *f = fx_new_cfg(&cfg);

	sw(f, 1000, 2, 0, "", 90, "pool");
	fork_ev(f, 2000, 2, 90, 91);
	assert_null(f->ctx.allowed);		/* the parent's: every CPU */
	assert_int_equal(f->p.nr_cpus_allowed, 0);
	sw(f, 3000, 3, 0, "", 91, "pool");
	preempt(f, 3100, 3, 91, 92);
	sw(f, 3200, 3, 92, "pool", 91, "pool");
	assert_int_equal(f->s.affinity_broken, 0);
	sw(f, 3300, 3, 91, "pool", 0, "");	/* D: waits for the stopper */
	f->nr_placements = 0;
	waking(f, 3400, 3, 91, "pool", 3, 0, false);
	assert_int_equal(f->nr_placements, 1);
	assert_int_equal(f->p.nr_cpus_allowed, 1);
	assert_int_equal(sr_mask_first(f->ctx.allowed), 1);
	assert_int_equal(f->s.affinity_broken, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_snapshot_kept_files),
		cmocka_unit_test(test_state_follows),
		cmocka_unit_test(test_broken_affinity),
		cmocka_unit_test(test_own_mask_at_exec),
		cmocka_unit_test(test_thread_sets_own_mask),
	};

	return cmocka_run_group_tests_name("affinity", tests, NULL, NULL);
}
