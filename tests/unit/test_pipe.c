// SPDX-License-Identifier: GPL-2.0
/*
 * The decode thread (src/ingest/trace-pipe.c) and its ring (src/base/ring.c):
 * the ring keeps order and never leaves a side blocked; a trace read with
 * two threads gives the events and counts of one thread, also when the
 * callback stops early, even while the decode thread waits for room.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "trace.h"

/* ------------------------------------------------------------ the ring */

struct prod {
	struct sr_ring *r;
	int n;				/* slots to publish */
	int published;
	bool refused;			/* a claim returned NULL (closed) */
};

static void *producer(void *arg)
{
	struct prod *p = arg;

	for (int i = 0; i < p->n; i++) {
		int *slot = sr_ring_claim(p->r);

		if (!slot) {
			p->refused = true;
			return NULL;
		}
		*slot = i;
		sr_ring_publish(p->r);
		p->published++;
	}
	sr_ring_finish(p->r);
	return NULL;
}

static void test_ring_order(void **state)
{
	struct prod p = { .n = 100000 };
	pthread_t th;
	int *slot, want = 0;

	assert_int_equal(sr_ring_new(&p.r, 4, sizeof(int)), 0);
	assert_int_equal(pthread_create(&th, NULL, producer, &p), 0);
	while ((slot = sr_ring_next(p.r))) {
		assert_int_equal(*slot, want++);
		sr_ring_release(p.r);
	}
	pthread_join(th, NULL);
	assert_int_equal(want, p.n);
	assert_false(p.refused);
	sr_ring_free(p.r);
}

/* The consumer leaves while the producer waits for room: the producer's claim fails. */
static void test_ring_close_wakes_producer(void **state)
{
	struct prod p = { .n = 1000 };
	pthread_t th;

	assert_int_equal(sr_ring_new(&p.r, 2, sizeof(int)), 0);
	assert_int_equal(pthread_create(&th, NULL, producer, &p), 0);
	assert_non_null(sr_ring_next(p.r));
	usleep(50000);			/* the ring is full meanwhile */
	sr_ring_close(p.r);
	pthread_join(th, NULL);
	assert_true(p.refused);
	assert_int_equal(p.published, 2);
	sr_ring_free(p.r);
}

/* ------------------------------------------------------------ the trace */

struct stream {
	struct sr_event *ev;
	size_t n, cap;
	size_t stop_at;			/* 1-based; 0: read it all */
	unsigned int pause_us;		/* before the stopping return */
};

static int collect(const struct sr_event *ev, void *data)
{
	struct stream *s = data;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		assert_non_null(s->ev);
	}
	memcpy(&s->ev[s->n++], ev, sizeof(*ev));
	if (s->n != s->stop_at)
		return 0;
	usleep(s->pause_us);
	return 7;
}

/* What a run's reader gives and counts, read with @threads. */
struct seen {
	struct stream s;
	int ret;
	struct sr_trace_info info;
	struct sr_cpu_ingest *cpu;
};

static void read_with(const char *path, int threads, size_t stop_at, struct seen *out)
{
	const struct sr_trace_opts o = { .path = path, .threads = threads };
	struct sr_err err = { "" };
	struct sr_trace *t;

	memset(out, 0, sizeof(*out));
	out->s.stop_at = stop_at;
	out->s.pause_us = threads > 1 ? 20000 : 0;	/* the decode thread fills the ring */
	assert_int_equal(sr_trace_open_opts(&t, &o, &err), 0);
	out->ret = sr_trace_iterate(t, collect, &out->s, &err);
	out->info = *sr_trace_info(t);
	out->cpu = malloc(out->info.nr_cpus * sizeof(*out->cpu));
	assert_non_null(out->cpu);
	memcpy(out->cpu, out->info.cpu, out->info.nr_cpus * sizeof(*out->cpu));
	out->info.cpu = NULL;
	sr_trace_close(t);
}

static void same(const char *path, size_t stop_at)
{
	struct seen one, two;

	read_with(path, 1, stop_at, &one);
	read_with(path, 2, stop_at, &two);
	assert_int_equal(one.ret, stop_at ? 7 : 0);
	assert_int_equal(two.ret, one.ret);
	assert_int_equal(two.s.n, one.s.n);
	assert_memory_equal(two.s.ev, one.s.ev, one.s.n * sizeof(*one.s.ev));
	assert_memory_equal(&two.info, &one.info, sizeof(one.info));
	assert_memory_equal(two.cpu, one.cpu, one.info.nr_cpus * sizeof(*one.cpu));
	for (struct seen *s = &one; s; s = s == &one ? &two : NULL) {
		free(s->s.ev);
		free(s->cpu);
	}
}

static void test_same_stream(void **state)
{
	same("fixtures/hackbench-pipe.dat", 0);
	same("fixtures/lost/hackbench-b64-niced.dat", 0);	/* lost windows */
	same("fixtures/utf8-comms.dat", 0);			/* comms not UTF-8 */
	same("fixtures/qemu-probes-6.12/llc2-1s2d4c2t/futex.dat", 0);
}

/* The counts end at the stopping event, however far the decode thread had read. */
static void test_stop_counts(void **state)
{
	same("fixtures/hackbench-pipe.dat", 1);
	same("fixtures/hackbench-pipe.dat", 300);
	same("fixtures/lost/hackbench-b64-niced.dat", 5000);
	same("fixtures/lost/hackbench-b64-niced.dat", 60000);	/* after many rings' worth */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_order),
		cmocka_unit_test(test_ring_close_wakes_producer),
		cmocka_unit_test(test_same_stream),
		cmocka_unit_test(test_stop_counts),
	};

	return cmocka_run_group_tests_name("pipe", tests, NULL, NULL);
}
