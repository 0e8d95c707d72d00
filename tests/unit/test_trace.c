// SPDX-License-Identifier: GPL-2.0
/* Ingest: opening real files, metadata, errors, the event stream. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include "trace.h"

#define SHARED "../shared/traces/"

struct tally {
	uint64_t n[SR_EV_NR];
	uint64_t last_ts;
	bool backwards;
	int bad_cpu;
	int first_switch_prev, first_switch_next;
	enum sr_prev_state first_state;
	int stop_after;
};

static int tally_cb(const struct sr_event *ev, void *data)
{
	struct tally *t = data;

	if (ev->ts < t->last_ts)
		t->backwards = true;
	t->last_ts = ev->ts;
	if (ev->cpu < 0 || ev->cpu >= 2)
		t->bad_cpu++;
	if (ev->type == SR_EV_SWITCH && !t->n[SR_EV_SWITCH]) {
		t->first_switch_prev = ev->pid;
		t->first_switch_next = ev->next_pid;
		t->first_state = ev->prev_state;
	}
	t->n[ev->type]++;
	if (t->stop_after && t->n[SR_EV_SWITCH] == (uint64_t)t->stop_after)
		return 42;
	return 0;
}

static void test_fixture_stream(void **state)
{
	struct sr_trace *t;
	struct sr_err err;
	struct tally tl = { 0 };
	const struct sr_trace_info *info;

	assert_int_equal(sr_trace_open(&t, "fixtures/hackbench-pipe.dat", &err), 0);
	info = sr_trace_info(t);
	assert_int_equal(info->nr_cpus, 2);
	assert_int_equal(info->file_version, 7);
	assert_string_equal(info->clock, "local");
	assert_string_equal(info->release, "6.18.44-fc-v782");
	assert_true(info->has_format[SR_EV_WAKING]);
	assert_true(info->has_format[SR_EV_SWITCH]);
	assert_int_equal(sr_trace_iterate(t, tally_cb, &tl, &err), 0);
	/* Counts from fixtures/README.md (trace-cmd report). */
	assert_int_equal(tl.n[SR_EV_SWITCH], 6538);
	assert_int_equal(tl.n[SR_EV_WAKING], 5239);
	assert_int_equal(tl.n[SR_EV_WAKEUP_NEW], 21);
	assert_int_equal(info->events[SR_EV_MIGRATE], 49);
	assert_false(tl.backwards);
	assert_int_equal(tl.bad_cpu, 0);
	assert_true(info->first_ts > 0 && info->last_ts > info->first_ts);
	assert_int_equal(info->cpu[0].lost_windows + info->cpu[1].lost_windows, 0);
	sr_trace_close(t);
}

struct probe_seen {
	struct sr_event select, hload_ret, rqs;	/* the first of each */
	uint64_t n[SR_EV_NR];
};

static int probe_cb(const struct sr_event *ev, void *data)
{
	struct probe_seen *p = data;

	if (ev->type == SR_EV_SELECT && !p->n[SR_EV_SELECT])
		p->select = *ev;
	if (ev->type == SR_EV_HLOAD_RET && !p->n[SR_EV_HLOAD_RET])
		p->hload_ret = *ev;
	if (ev->type == SR_EV_RQS && !p->n[SR_EV_RQS])
		p->rqs = *ev;
	p->n[ev->type]++;
	return 0;
}

/* The probe events of `record --probes`, found by name and read field by field. */
static void test_probe_events(void **state)
{
	struct sr_trace *t;
	struct sr_err err;
	struct probe_seen p = { 0 };
	const struct sr_trace_info *info;

	assert_int_equal(sr_trace_open(&t, "fixtures/qemu-probes-6.1/numa2llc2-2s2d2c2t/hb_pipe.dat",
				       &err), 0);
	info = sr_trace_info(t);
	assert_true(info->has_format[SR_EV_SELECT] && info->has_format[SR_EV_SELECT_RET]);
	assert_true(info->has_format[SR_EV_HLOAD] && info->has_format[SR_EV_AUTOGROUP]);
	assert_int_equal(sr_trace_iterate(t, probe_cb, &p, &err), 0);
	/* counts and first records as trace-cmd report prints them */
	assert_int_equal(p.n[SR_EV_SELECT], 3217);
	assert_int_equal(p.n[SR_EV_SELECT_RET], 3217);
	assert_int_equal(p.n[SR_EV_HLOAD_RET], 2370);
	assert_int_equal(p.n[SR_EV_IDLEST_GROUP_RET], 332);
	assert_int_equal(p.select.cpu, 11);
	assert_int_equal(p.select.pid, 16);
	assert_int_equal(p.select.orig_cpu, 11);
	assert_int_equal(p.select.wake_flags, 0x8);
	assert_int_equal(p.select.load_avg, 14);
	assert_int_equal(p.select.util_avg, 13);
	assert_int_equal(p.hload_ret.h_load, 1023);
	assert_string_equal(sr_ev_name(SR_EV_SELECT), "srqf");
	sr_trace_close(t);
}

/*
 * The rqs events (rqs0 .. rqs3 on 16 CPUs, one layout): every one is
 * SR_EV_RQS, with its first CPU and four CPUs' rq->cfs.avg.
 */
static void test_probe_rqs(void **state)
{
	struct sr_trace *t;
	struct sr_err err;
	struct probe_seen p = { 0 };
	static const uint32_t first[SR_RQS_CPUS * SR_RQS_FIELDS] = {
		[12] = 3207, [13] = 664, [14] = 0, [15] = 670,
	};

	assert_int_equal(sr_trace_open(&t, "fixtures/qemu-probes-6.12/numa2llc2-2s2d2c2t/"
				       "srrec_rqs-own.dat", &err), 0);
	assert_true(sr_trace_info(t)->has_format[SR_EV_RQS]);
	assert_int_equal(sr_trace_iterate(t, probe_cb, &p, &err), 0);
	/* trace-cmd report: 8,212 rqs0-3 records, the first rqs3 (CPUs 12-15) */
	assert_int_equal(p.n[SR_EV_RQS], 8212);
	assert_int_equal(p.n[SR_EV_OTHER], 0);
	assert_int_equal(p.rqs.cpu, 8);
	assert_int_equal(p.rqs.rqs_base, 12);
	assert_memory_equal(p.rqs.rqs, first, sizeof(first));
	sr_trace_close(t);
}

/* (cpu, ts) of every record, in the order delivered. */
struct order {
	uint64_t *ts;
	int *cpu;
	size_t n, cap;
	uint64_t open_seen, windows_closed;
};

static void order_add(struct order *o, int cpu, uint64_t ts)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 4096;
		o->ts = realloc(o->ts, o->cap * sizeof(*o->ts));
		o->cpu = realloc(o->cpu, o->cap * sizeof(*o->cpu));
		assert_non_null(o->ts);
		assert_non_null(o->cpu);
	}
	o->ts[o->n] = ts;
	o->cpu[o->n++] = cpu;
}

static int order_cb(const struct sr_event *ev, void *data)
{
	struct order *o = data;

	order_add(o, ev->cpu, ev->ts);
	o->open_seen += ev->lost_open > 0;
	o->windows_closed += ev->missed_before != 0;
	return 0;
}

static int lib_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	order_add(data, cpu, rec->ts);
	return 0;
}

/*
 * The reader's heap delivers records in libtracecmd's own order (time, then
 * the lower CPU), and on a lossy trace its look-ahead tells other CPUs'
 * records of the windows open around them.
 */
static void check_order(const char *path, size_t windows)
{
	struct order ours = { 0 }, lib = { 0 };
	struct tracecmd_input *h;
	struct sr_trace *t;
	struct sr_err err;

	assert_int_equal(sr_trace_open(&t, path, &err), 0);
	assert_int_equal(sr_trace_iterate(t, order_cb, &ours, &err), 0);
	sr_trace_close(t);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	assert_non_null(h);
	assert_int_equal(tracecmd_iterate_events(h, NULL, 0, lib_cb, &lib), 0);
	tracecmd_close(h);
	assert_int_equal(ours.n, lib.n);
	for (size_t i = 0; i < ours.n; i++) {
		assert_int_equal(ours.cpu[i], lib.cpu[i]);
		assert_int_equal(ours.ts[i], lib.ts[i]);
	}
	assert_int_equal(ours.windows_closed, windows);
	assert_true(windows ? ours.open_seen > windows : ours.open_seen == 0);
	free(ours.ts);
	free(ours.cpu);
	free(lib.ts);
	free(lib.cpu);
}

static void test_merge_order(void **state)
{
	check_order("fixtures/hackbench-pipe.dat", 0);
	check_order("fixtures/qemu/llc2-1s2d4c2t/hb_pipe.dat", 0);
	/* 18 `CPU:N [EVENTS DROPPED]` lines in trace-cmd report */
	check_order("fixtures/lost/hackbench-b64-niced.dat", 18);
}

static void test_callback_stops(void **state)
{
	struct sr_trace *t;
	struct sr_err err;
	struct tally tl = { .stop_after = 3 };

	assert_int_equal(sr_trace_open(&t, "fixtures/perf-pipe.dat", &err), 0);
	assert_int_equal(sr_trace_iterate(t, tally_cb, &tl, &err), 42);
	assert_int_equal(tl.n[SR_EV_SWITCH], 3);
	sr_trace_close(t);
}

/* 32-bit ARM, comm[32] declared with size 16, no clock option. */
static void test_old_formats(void **state)
{
	struct sr_trace *t;
	struct sr_err err;
	struct tally tl = { 0 };
	int ret = sr_trace_open(&t, SHARED "arm32-hmp-comm32-size16.dat", &err);

	if (ret == -ENOENT)
		skip();
	assert_int_equal(ret, 0);
	assert_int_equal(sr_trace_info(t)->long_size, 4);
	assert_int_equal(sr_trace_info(t)->nr_cpus, 8);
	assert_false(sr_trace_info(t)->has_format[SR_EV_WAKING]);
	assert_int_equal(sr_trace_iterate(t, tally_cb, &tl, &err), 0);
	assert_true(tl.n[SR_EV_SWITCH] > 0);
	assert_false(tl.backwards);
	sr_trace_close(t);

	ret = sr_trace_open(&t, SHARED "linux-4.13-i686-4cpu-success-field.dat", &err);
	assert_int_equal(ret, 0);
	assert_int_equal(sr_trace_info(t)->file_version, 6);
	assert_string_equal(sr_trace_info(t)->clock, "local");
	sr_trace_close(t);
}

static void test_errors(void **state)
{
	char path[] = "/tmp/sr-test-XXXXXX";
	struct sr_trace *t = (void *)1;
	struct sr_err err;
	int fd;

	assert_int_equal(sr_trace_open(&t, "fixtures/none.dat", &err), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(err.msg, "No such file"));
	assert_int_equal(sr_trace_open(&t, "fixtures", &err), -EISDIR);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\027\010\104tracing6\0", 11), 11);
	close(fd);
	assert_int_equal(sr_trace_open(&t, path, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "truncated or corrupt"));
	unlink(path);
	if (sr_trace_open(&t, SHARED "no-sched-events-i915.dat", &err) != -ENOENT) {
		assert_int_equal(sr_trace_open(&t, SHARED "no-sched-events-i915.dat", &err),
				 -ENODATA);
		assert_non_null(strstr(err.msg, "nothing to analyse"));
	}
	assert_string_equal(sr_ev_name(SR_EV_WAKEUP_NEW), "sched_wakeup_new");
	assert_string_equal(sr_ev_name(SR_EV_NR), "invalid");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_stream),
		cmocka_unit_test(test_probe_events),
		cmocka_unit_test(test_probe_rqs),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_old_formats),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
