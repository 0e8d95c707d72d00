// SPDX-License-Identifier: GPL-2.0
/* Analyses on a small hand-made event sequence, with hand-derived numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include "run.h"
#include "common.h"		/* analyses/: sr_an_below_prev() */

static struct sr_cpu_ingest cpus[2];
static struct sr_trace_info info = {
	.nr_cpus = 2, .release = "6.18.0", .cpu = cpus,
	.has_format = { true, true, true, true, true, true, true, true, false, false },
	.last_ts = 10000,
};

static struct sr_event E(enum sr_ev_type type, uint64_t ts, int cpu, int common)
{
	return (struct sr_event){ .type = type, .ts = ts, .cpu = cpu, .common_pid = common,
				  .prio = 120, .next_prio = 120, .success = -1 };
}

static void feed(struct sr_run *r, struct sr_event e)
{
	assert_int_equal(sr_run_feed(r, &e), 0);
}

static void sw(struct sr_run *r, uint64_t ts, int cpu, int prev, enum sr_prev_state st, int next)
{
	struct sr_event e = E(SR_EV_SWITCH, ts, cpu, prev);

	e.pid = prev;
	e.prev_state = st;
	e.next_pid = next;
	feed(r, e);
}

static void wake(struct sr_run *r, enum sr_ev_type t, uint64_t ts, int cpu, int common, int pid,
		 int target)
{
	struct sr_event e = E(t, ts, cpu, common);

	e.pid = pid;
	e.target_cpu = target;
	feed(r, e);
}

/*
 * CPU0 runs 100, CPU1 runs 200.  100 sleeps at 2000 (CPU0 idle).  200 wakes
 * it at 3000 from CPU1; the kernel puts it on CPU1 (affine, cache-hot:
 * 1000 ns after its switch-out).  CPU1 is then overloaded (200 + 100) while
 * CPU0 idles, until 200 sleeps at 3500 and 100 runs: 500 ns of latency.
 */
static void scenario(struct sr_run *r)
{
	sw(r, 1000, 0, 0, SR_PS_RUNNING, 100);
	sw(r, 1000, 1, 0, SR_PS_RUNNING, 200);
	sw(r, 2000, 0, 100, SR_PS_SLEEPING, 0);
	wake(r, SR_EV_WAKING, 3000, 1, 200, 100, 0);
	wake(r, SR_EV_WAKEUP, 3100, 1, 200, 100, 1);
	sw(r, 3500, 1, 200, SR_PS_SLEEPING, 100);
	sr_run_end(r, 10000);
}

/*
 * Two idle CPUs; 100 and 300 slept on CPU0.  At 5000 CPU0's idle task
 * wakes 100 there; at 5005, before 100's sched_wakeup, CPU1's wakes 300
 * (prev CPU0).  The state sees CPU0 idle: prev.  Had 100 been enqueued
 * already, wake_affine_idle() would pick the idle waker's CPU1.  @first:
 * 100's sched_wakeup comes before 300's select_task_rq() is shown done (its
 * migration to CPU1), so the kernel may have seen it; else well after.
 */
static void concurrent(struct sr_run *r, bool first)
{
	struct sr_event m = E(SR_EV_MIGRATE, first ? 5009 : 5006, 1, 0);

	sw(r, 1000, 0, 0, SR_PS_RUNNING, 100);
	sw(r, 1000, 1, 0, SR_PS_RUNNING, 200);
	sw(r, 2000, 0, 100, SR_PS_SLEEPING, 300);
	sw(r, 2500, 0, 300, SR_PS_SLEEPING, 0);
	sw(r, 2600, 1, 200, SR_PS_SLEEPING, 0);
	wake(r, SR_EV_WAKING, 5000, 0, 0, 100, 0);
	wake(r, SR_EV_WAKING, 5005, 1, 0, 300, 0);
	if (first)
		wake(r, SR_EV_WAKEUP, 5008, 0, 0, 100, 0);
	m.pid = 300;
	m.orig_cpu = 0;
	m.dest_cpu = 1;
	feed(r, m);
	if (!first)
		wake(r, SR_EV_WAKEUP, 8000, 0, 0, 100, 0);
	wake(r, SR_EV_WAKEUP, 8100, 1, 0, 300, 1);
	sr_run_end(r, 10000);
}

static json_t *run_report_of(struct sr_run_opts *o, int variant)
{
	struct sr_run *r = calloc(1, sizeof(*r));
	struct sr_err err;
	json_t *rep;

	assert_non_null(r);
	o->topology = "cpus=2";
	assert_int_equal(sr_run_init(r, o, &info, &err), 0);
	if (variant)
		concurrent(r, variant == 1);
	else
		scenario(r);
	rep = sr_run_report(r);
	assert_non_null(rep);
	sr_run_close(r);
	free(r);
	return rep;
}

static json_t *run_report(struct sr_run_opts *o)
{
	return run_report_of(o, 0);
}

static json_int_t I(json_t *o, const char *path)
{
	char buf[160], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		o = json_is_array(o) ? json_array_get(o, atoi(k)) : json_object_get(o, k);
	assert_true(json_is_integer(o));
	return json_integer_value(o);
}

static struct sr_run_opts base(void)
{
	return (struct sr_run_opts){ .hz = 250, .an = { .mode = SR_MODE_ANALYZE,
				     .migration_cost_ns = 500000, .top = 5, .idle_threshold_ns = 300 } };
}

static void test_accounting_and_cache_hot(void **state)
{
	struct sr_run_opts o = base();
	json_t *rep = run_report(&o);

	assert_int_equal(I(rep, "wakeups.placed"), 1);
	assert_int_equal(I(rep, "wakeups.actual.waker"), 1);
	assert_int_equal(I(rep, "cache_hot.affine_hot"), 1);
	assert_int_equal(I(rep, "cache_hot_moves.actual_affine_hot"), 1);
	/* prev (CPU0) was idle at the waking: NO_HOT_AFFINE would have run it there at once */
	assert_int_equal(I(rep, "cache_hot_moves.no_hot_affine_instead.prev_idle_run_at_once"), 1);
	assert_int_equal(I(rep, "cache_hot_moves.top_tasks.0.pid"), 100);
	json_decref(rep);
}

static void test_latency(void **state)
{
	struct sr_run_opts o = base();
	json_t *rep = run_report(&o);

	assert_int_equal(I(rep, "latency.placed"), 1);
	assert_int_equal(I(rep, "latency.switch_in_not_seen"), 0);
	assert_int_equal(I(rep, "latency.waker.any.count"), 1);
	assert_int_equal(I(rep, "latency.waker.any.max_ns"), 500);
	assert_int_equal(I(rep, "latency.waker.any.p50_ns"), 500);
	/* CPU1 ran 200 when 100 was enqueued there */
	assert_int_equal(I(rep, "latency.waker.chosen_cpu_busy.count"), 1);
	assert_int_equal(I(rep, "latency.prev.any.count"), 0);
	json_decref(rep);
}

static void test_work_conservation(void **state)
{
	struct sr_run_opts o = base();
	json_t *rep = run_report(&o);

	/* CPU0 idle while CPU1 held two tasks: from the wakeup at 3100 to 3500 */
	assert_int_equal(I(rep, "work_conservation.episodes"), 1);
	assert_int_equal(I(rep, "work_conservation.total_ns"), 400);
	assert_int_equal(I(rep, "work_conservation.worst.0.idle_cpu"), 0);
	assert_int_equal(I(rep, "work_conservation.worst.0.waiting_on_cpu"), 1);
	assert_int_equal(I(rep, "work_conservation.worst.0.its_nr_running"), 2);
	json_decref(rep);
	o.an.idle_threshold_ns = 401;
	rep = run_report(&o);
	assert_int_equal(I(rep, "work_conservation.episodes"), 0);
	assert_int_equal(I(rep, "work_conservation.shorter_episodes"), 1);
	json_decref(rep);
}

/* The whole path: state -> linux-6.18 -> select_task_rq_fair() and back. */
static void test_concurrent_wakeup(void **state)
{
	struct sr_run_opts o = base();
	json_t *rep = run_report_of(&o, 1);

	/* 300's answer (CPU0) may have been CPU1: undetermined, and why */
	assert_int_equal(I(rep, "wakeups.placed"), 2);
	assert_int_equal(I(rep, "divergence.policies.0.undetermined.count"), 1);
	assert_int_equal(I(rep, "divergence.policies.0.undetermined.depends_on.concurrent_wakeup"),
			 1);
	assert_int_equal(I(rep, "divergence.policies.0.determined.match"), 1);	/* 100 */
	assert_int_equal(I(rep, "divergence.policies.0.determined.miss"), 0);
	json_decref(rep);
	/* 100 enqueued after 300's placement was done: the state's view was the kernel's */
	o = base();
	rep = run_report_of(&o, 2);
	assert_int_equal(I(rep, "divergence.policies.0.undetermined.count"), 0);
	assert_int_equal(I(rep, "divergence.policies.0.determined.miss"), 1);
	json_decref(rep);
}

static void test_divergence_and_decisions(void **state)
{
	char path[] = "/tmp/sr-decisions-XXXXXX";
	struct sr_run_opts o = base();
	char line[4096];
	json_t *rep, *d;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	o.an.decisions = path;
	rep = run_report(&o);
	/*
	 * linux-6.18 (the preset of "6.18.0"): the waker's CPU is busy.  Without
	 * WF_SYNC wake_affine_idle() keeps the idle prev; with it, it picks the
	 * waker's CPU (nr_running == 1), but select_idle_sibling() then finds
	 * that target busy and prev idle and cache-affine: CPU0 either way, a
	 * determined miss against the kernel's CPU1, one LLC apart.  A task woke
	 * it in task context, so the primary answer assumes WF_SYNC and was
	 * settled by the "prev is idle" check.
	 */
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(json_object_get(rep, "divergence"), "policies"), 0), "policy")),
		"linux-6.18");
	assert_int_equal(I(rep, "divergence.policies.0.undetermined.count"), 0);
	assert_int_equal(I(rep, "divergence.policies.0.determined.miss"), 1);
	assert_int_equal(I(rep, "divergence.policies.0.determined.match"), 0);
	assert_int_equal(I(rep, "divergence.policies.0.moved.miss"), 1);
	assert_int_equal(I(rep, "divergence.policies.0.by_step.sis_prev.miss"), 1);
	assert_int_equal(I(rep, "divergence.policies.0.misses_by_relation.same_llc"), 1);
	/* the kernel moved it: always prev would have missed too, and one wakeup says nothing */
	assert_int_equal(I(rep, "divergence.policies.0.always_prev.miss"), 1);
	assert_true(json_is_false(json_object_get(json_array_get(json_object_get(json_object_get(
		rep, "divergence"), "policies"), 0), "below_always_prev")));
	json_decref(rep);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_null(fgets(line + 2048, 2048, f));	/* exactly one placed wakeup */
	fclose(f);
	unlink(path);
	d = json_loads(line, 0, NULL);
	assert_non_null(d);
	assert_int_equal(I(d, "pid"), 100);
	assert_int_equal(I(d, "cpu"), 1);
	assert_int_equal(I(d, "prev_cpu"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "actual")), "waker");
	assert_int_equal(I(d, "policies.0.cpu"), 0);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(d, "policies"), 0),
						 "cpu_other_sync")));
	/* a task woke it from task context: the primary answer assumes WF_SYNC */
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(d, "policies"), 0),
						 "sync_assumed")));
	json_decref(d);
}

static void test_diff(void **state)
{
	struct sr_run_opts o = base();
	json_t *rep;

	o.an.mode = SR_MODE_DIFF;
	o.policies[0] = "linux-6.18";
	o.policies[1] = "linux-6.18:WA_IDLE=0";
	o.nr_policies = 2;
	rep = run_report(&o);
	assert_int_equal(I(rep, "diff.placed"), 1);
	assert_int_equal(I(rep, "diff.same_cpu") + I(rep, "diff.different_cpu"), 1);
	assert_int_equal(I(rep, "diff.by_determinacy.both.same_cpu") +
			 I(rep, "diff.by_determinacy.a_only.same_cpu") +
			 I(rep, "diff.by_determinacy.b_only.same_cpu") +
			 I(rep, "diff.by_determinacy.neither.same_cpu"), I(rep, "diff.same_cpu"));
	/* the label keeps the override */
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "diff"), "b")),
			    "linux-6.18:WA_IDLE=0");
	assert_null(json_object_get(rep, "work_conservation"));
	json_decref(rep);
}

/* The only line of a gzip NDJSON table. */
static json_t *only_row(const char *path)
{
	gzFile f = gzopen(path, "rb");
	char line[4096], more[16];
	json_t *row;

	assert_non_null(f);
	assert_non_null(gzgets(f, line, sizeof(line)));
	assert_null(gzgets(f, more, sizeof(more)));
	gzclose(f);
	row = json_loads(line, 0, NULL);
	assert_non_null(row);
	return row;
}

static const char *S(json_t *o, const char *key)
{
	assert_true(json_is_string(json_object_get(o, key)));
	return json_string_value(json_object_get(o, key));
}

static void test_rows(void **state)
{
	char wk[] = "/tmp/sr-rows-w-XXXXXX", dc[] = "/tmp/sr-rows-d-XXXXXX";
	struct sr_rows_opts rows = { .wakeups = wk, .decisions = dc,
				     .identity = json_pack("{s:s, s:s}", "trace_id", "t1",
							   "path", "x.dat") };
	struct sr_run_opts o = base();
	json_t *w, *d;

	close(mkstemp(wk));
	close(mkstemp(dc));
	o.an.rows = &rows;
	json_decref(run_report(&o));
	w = only_row(wk);
	d = only_row(dc);
	/* the identity leads; 100 was woken from CPU1 onto CPU1 (prev CPU0), ran 500 ns later */
	assert_string_equal(json_object_iter_key(json_object_iter(w)), "trace_id");
	assert_string_equal(S(w, "path"), "x.dat");
	assert_string_equal(S(w, "kind"), "wakeup");
	assert_int_equal(I(w, "wakeup"), 1);
	assert_int_equal(I(w, "pid"), 100);
	assert_int_equal(I(w, "prev_cpu"), 0);
	assert_int_equal(I(w, "cpu"), 1);
	assert_string_equal(S(w, "actual"), "waker");
	assert_string_equal(S(w, "relation"), "same_llc");
	assert_true(json_is_true(json_object_get(w, "cache_hot")));
	assert_int_equal(I(w, "latency_ns"), 500);
	/* one policy, the recorded kernel's: its row names it and says if it matched */
	assert_string_equal(S(d, "trace_id"), "t1");
	assert_string_equal(S(d, "policy"), "linux-6.18");
	assert_int_equal(I(d, "cpu"), 1);
	assert_true(json_is_boolean(json_object_get(d, "match")));
	assert_int_equal(json_is_true(json_object_get(d, "match")), I(d, "policy_cpu") == 1);
	assert_true(json_is_array(json_object_get(d, "depends_on")));
	json_decref(w);
	json_decref(d);
	json_decref(rows.identity);
	unlink(wk);
	unlink(dc);
}

/* Below always prev: more than half a point under it, over 20 answers or more. */
static void test_below_prev(void **state)
{
	(void)state;
	assert_true(sr_an_below_prev(46, 55, 55));	/* 83.6 % against 100 % */
	assert_false(sr_an_below_prev(99, 100, 99));	/* level */
	assert_false(sr_an_below_prev(197, 200, 198));	/* 98.5 against 99.0: half a point */
	assert_true(sr_an_below_prev(196, 200, 198));
	assert_false(sr_an_below_prev(10, 19, 19));	/* too few to say */
	assert_false(sr_an_below_prev(0, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accounting_and_cache_hot),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_work_conservation),
		cmocka_unit_test(test_divergence_and_decisions),
		cmocka_unit_test(test_below_prev),
		cmocka_unit_test(test_concurrent_wakeup),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests_name("analyses", tests, NULL, NULL);
}
