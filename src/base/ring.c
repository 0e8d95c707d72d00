// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded single-producer/single-consumer ring of fixed-size slots, for
 * handing work from one thread to another (the decode thread of
 * src/ingest/trace-pipe.c hands batches of events to the pass).
 *
 * Design.  @head counts the slots published, @tail those released; both
 * only grow, each written by one side, so slot i is the producer's while
 * i - tail < nr and the consumer's while i < head.  A slot holds a whole
 * batch, so the atomics are touched once per batch, not once per item.
 * Neither side spins: a side that finds the ring full (or empty) sleeps on
 * the condition variable after saying so in its @*_waiting flag, and the
 * other side takes the mutex only when that flag is set.  The flag is
 * stored before the sleeper re-checks the ring, and the counter before the
 * waker reads the flag (all sequentially consistent), so one of the two
 * always sees the other: no wakeup is lost.  A sleeping producer is woken
 * when half the ring is free, not at each slot, so that a slower consumer
 * costs one wakeup per half ring.  @closed is the consumer leaving early:
 * the producer's next claim fails instead of blocking forever.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "base.h"

struct sr_ring {
	char *slots;
	size_t size;
	unsigned long nr;
	atomic_ulong head, tail;
	atomic_bool done, closed;
	atomic_bool prod_waiting, cons_waiting;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

int sr_ring_new(struct sr_ring **out, unsigned int nr, size_t size)
{
	struct sr_ring *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r || !nr)
		goto fail;
	r->slots = malloc(nr * size);
	if (!r->slots)
		goto fail;
	r->nr = nr;
	r->size = size;
	if (pthread_mutex_init(&r->lock, NULL))
		goto fail;
	if (pthread_cond_init(&r->cond, NULL)) {
		pthread_mutex_destroy(&r->lock);
		goto fail;
	}
	*out = r;
	return 0;
fail:
	if (r)
		free(r->slots);
	free(r);
	return nr ? -ENOMEM : -EINVAL;
}

void sr_ring_free(struct sr_ring *r)
{
	if (!r)
		return;
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r->slots);
	free(r);
}

static void *slot(const struct sr_ring *r, unsigned long i)
{
	return r->slots + (i % r->nr) * r->size;
}

static bool can_claim(struct sr_ring *r)
{
	return atomic_load(&r->closed) || atomic_load(&r->head) - atomic_load(&r->tail) < r->nr;
}

static bool can_take(struct sr_ring *r)
{
	return atomic_load(&r->tail) < atomic_load(&r->head) || atomic_load(&r->done);
}

/* Sleep until @ready, with @waiting set meanwhile so that the other side wakes us. */
static void sleep_until(struct sr_ring *r, atomic_bool *waiting, bool (*ready)(struct sr_ring *))
{
	pthread_mutex_lock(&r->lock);
	atomic_store(waiting, true);
	while (!ready(r))
		pthread_cond_wait(&r->cond, &r->lock);
	atomic_store(waiting, false);
	pthread_mutex_unlock(&r->lock);
}

/* After a change the sleeper may be waiting for: wake it, if it sleeps. */
static void wake(struct sr_ring *r, atomic_bool *waiting)
{
	if (!atomic_load(waiting))
		return;
	pthread_mutex_lock(&r->lock);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

void *sr_ring_claim(struct sr_ring *r)
{
	if (!can_claim(r))
		sleep_until(r, &r->prod_waiting, can_claim);
	return atomic_load(&r->closed) ? NULL : slot(r, atomic_load(&r->head));
}

void sr_ring_publish(struct sr_ring *r)
{
	atomic_fetch_add(&r->head, 1);
	wake(r, &r->cons_waiting);
}

void sr_ring_finish(struct sr_ring *r)
{
	atomic_store(&r->done, true);
	wake(r, &r->cons_waiting);
}

void *sr_ring_next(struct sr_ring *r)
{
	unsigned long t = atomic_load(&r->tail);

	if (t == atomic_load(&r->head) && !atomic_load(&r->done))
		sleep_until(r, &r->cons_waiting, can_take);
	/* done is set after the last publish: re-read head once it is seen */
	return t < atomic_load(&r->head) ? slot(r, t) : NULL;
}

void sr_ring_release(struct sr_ring *r)
{
	unsigned long t = atomic_fetch_add(&r->tail, 1) + 1;

	if (atomic_load(&r->head) - t <= r->nr / 2)
		wake(r, &r->prod_waiting);
}

void sr_ring_close(struct sr_ring *r)
{
	atomic_store(&r->closed, true);
	wake(r, &r->prod_waiting);
}
