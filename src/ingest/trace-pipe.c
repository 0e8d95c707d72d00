// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: sr_trace_iterate(), the decoding on a thread of its own.
 *
 * The pass (trace-iter.c) reads each CPU's records with libtracecmd, merges
 * them and decodes them; the caller's callback rebuilds the state from the
 * events.  On two CPUs the halves overlap: a decode thread runs the pass
 * into batches of items, a ring (src/base/ring.c) carries the batches, and
 * the calling thread consumes them in order.  The caller sees what one
 * thread gives it, byte for byte:
 *  - the items keep the merged order, and each carries what struct
 *    sr_trace_info counts of its record, counted as it is consumed
 *    (sr_tr_consume()): the counts never run ahead of the callback, so an
 *    early stop leaves them at the stopping record, as single-threaded;
 *  - the decode thread touches only the reader's private state (heap,
 *    prev_state cache, library handle) and the watch page, which the
 *    caller's thread leaves alone until the thread is joined;
 *  - the callback's non-zero return closes the ring: the decode thread's
 *    next claim (at most a batch later, or the one it waits in) fails, its
 *    pass ends, it is joined, and that return is returned;
 *  - a decode error comes back with its message after every item decoded
 *    before it has been consumed, as from the single pass.
 * Without a thread or the ring's memory, the pass runs single-threaded.
 */
#define _GNU_SOURCE		/* gettid */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "trace-priv.h"

/* Items a slot: the ring's atomics and any wakeup are paid once a batch. */
#define BATCH	256
/* Slots: room for the two sides' jitter, small enough (~0.5 MB) to stay in cache. */
#define SLOTS	8

struct batch {
	int n;
	struct sr_tr_item item[BATCH];
};

struct pipe {
	struct sr_tr_sink sink;		/* first: the pass's put() finds the pipe from it */
	struct sr_trace *t;
	struct sr_ring *ring;
	struct batch *b;		/* the slot being filled; NULL once the ring is closed */
	int ret;			/* how the pass ended, read after the join */
	struct sr_err err;
};

struct direct {
	struct sr_tr_sink sink;		/* first, as in struct pipe */
	struct sr_tr_item item;
	struct sr_trace *t;
	sr_event_fn fn;
	void *data;
};

void sr_tr_lib_thread(struct sr_trace *t)
{
	if (t->watch)
		t->watch->lib_tid = gettid();
}

/* ------------------------------------------------------------ one thread */

static int direct_put(struct sr_tr_sink *s)
{
	struct direct *d = (struct direct *)s;

	return sr_tr_consume(d->t, &d->item, d->fn, d->data);
}

static int iterate_direct(struct sr_trace *t, sr_event_fn fn, void *data, struct sr_err *err)
{
	struct direct d = { .t = t, .fn = fn, .data = data };

	d.sink = (struct sr_tr_sink){ .item = &d.item, .put = direct_put };
	sr_tr_lib_thread(t);
	return sr_tr_pass(t, &d.sink, err);
}

/* ------------------------------------------------------------ the decode thread */

/* Start filling the next slot; -ECANCELED when the consumer has left. */
static int next_batch(struct pipe *p)
{
	p->b = sr_ring_claim(p->ring);
	if (!p->b)
		return -ECANCELED;
	p->b->n = 0;
	p->sink.item = p->b->item;
	return 0;
}

static int pipe_put(struct sr_tr_sink *s)
{
	struct pipe *p = (struct pipe *)s;

	if (++p->b->n < BATCH) {
		s->item = &p->b->item[p->b->n];
		return 0;
	}
	sr_ring_publish(p->ring);
	return next_batch(p);
}

static void *decode(void *arg)
{
	struct pipe *p = arg;
	int ret;

	sr_tr_lib_thread(p->t);
	ret = next_batch(p);
	if (!ret)
		ret = sr_tr_pass(p->t, &p->sink, &p->err);
	if (p->b && p->b->n)
		sr_ring_publish(p->ring);
	p->ret = ret;
	sr_ring_finish(p->ring);
	return NULL;
}

/*
 * Signals for the process (Ctrl-C, batch's SIGALRM, the guard's SIGTERM)
 * stay with the caller's thread; the decode thread takes only the ones its
 * own faults raise.
 */
static int start(pthread_t *th, struct pipe *p)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
	sigset_t mask, old;
	int ret;

	sigfillset(&mask);
	for (size_t i = 0; i < SR_ARRAY_SIZE(faults); i++)
		sigdelset(&mask, faults[i]);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	ret = pthread_create(th, NULL, decode, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

/* ------------------------------------------------------------ the consumer */

static int consume(struct pipe *p, sr_event_fn fn, void *data)
{
	struct batch *b;
	int ret = 0;

	while (!ret && (b = sr_ring_next(p->ring))) {
		for (int i = 0; !ret && i < b->n; i++)
			ret = sr_tr_consume(p->t, &b->item[i], fn, data);
		sr_ring_release(p->ring);
	}
	return ret;
}

static int iterate_piped(struct sr_trace *t, sr_event_fn fn, void *data, struct sr_err *err)
{
	struct pipe p = { .sink.put = pipe_put, .t = t };
	pthread_t th;
	int ret;

	if (sr_ring_new(&p.ring, SLOTS, sizeof(struct batch)))
		return iterate_direct(t, fn, data, err);
	if (start(&th, &p)) {
		sr_ring_free(p.ring);
		return iterate_direct(t, fn, data, err);
	}
	ret = consume(&p, fn, data);
	if (ret)
		sr_ring_close(p.ring);	/* wakes the thread if it waits for room */
	pthread_join(th, NULL);
	sr_tr_lib_thread(t);		/* the caller's again (sr_trace_close()) */
	if (!ret && p.ret) {
		ret = p.ret;
		if (err)
			*err = p.err;
	}
	sr_ring_free(p.ring);
	return ret;
}

int sr_trace_iterate(struct sr_trace *t, sr_event_fn fn, void *data, struct sr_err *err)
{
	int threads = t->threads ? t->threads : sr_cpus_allowed();

	return threads >= 2 ? iterate_piped(t, fn, data, err) : iterate_direct(t, fn, data, err);
}
