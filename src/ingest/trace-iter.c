// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: the one pass over the records, in time order.  As
 * tracecmd_iterate_events() does, each CPU's next record is read ahead and
 * the earliest one is delivered (ties: the lower CPU first), but from a heap,
 * so hundreds of CPUs cost log(CPUs) per record, and the look-ahead is
 * kept: a CPU whose next record follows lost events is inside a lost window
 * from its last record on, and the records other CPUs deliver meanwhile
 * say so (struct sr_event lost_open_after / lost_closed_before).
 *
 * The pass only reads: what struct sr_trace_info counts of the records is
 * counted as each one is consumed (sr_tr_consume()), so that the counts
 * never run ahead of the events the caller has seen, whether the records
 * are consumed at once or by another thread (trace-pipe.c).
 */
#include <errno.h>
#include <stdlib.h>
#include "trace-priv.h"

struct iter {
	struct sr_trace *t;
	struct tep_record **next;	/* per CPU: its next record, read ahead (ours to free) */
	int *heap;			/* CPUs with a next record, earliest first */
	int nr;
	/*
	 * The earliest next record of the other CPUs (heap[1] or heap[2]; -1
	 * and UINT64_MAX: none): while the root CPU's next one comes first,
	 * it stays the root and the heap is left alone.
	 */
	int up;
	uint64_t up_ts;
	uint64_t *open_after;		/* per CPU: where its open window starts, UINT64_MAX none */
	int nr_open;
	uint64_t min_open_after, closed_before;
	struct sr_tr_sink *sink;
};

/* ------------------------------------------------------------ the heap */

static bool earlier(const struct iter *it, int a, int b)
{
	uint64_t ta = it->next[a]->ts, tb = it->next[b]->ts;

	return ta < tb || (ta == tb && a < b);
}

static void swap(int *a, int *b)
{
	int x = *a;

	*a = *b;
	*b = x;
}

static void sift_down(struct iter *it, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < it->nr && earlier(it, it->heap[l], it->heap[m]))
			m = l;
		if (r < it->nr && earlier(it, it->heap[r], it->heap[m]))
			m = r;
		if (m == i)
			return;
		swap(&it->heap[i], &it->heap[m]);
		i = m;
	}
}

static void push(struct iter *it, int cpu)
{
	int i = it->nr++;

	it->heap[i] = cpu;
	while (i && earlier(it, it->heap[i], it->heap[(i - 1) / 2])) {
		swap(&it->heap[i], &it->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static void runner_up(struct iter *it)
{
	it->up = -1;
	for (int i = 1; i <= 2 && i < it->nr; i++)
		if (it->up < 0 || earlier(it, it->heap[i], it->up))
			it->up = it->heap[i];
	it->up_ts = it->up < 0 ? UINT64_MAX : it->next[it->up]->ts;
}

/* The root's next record changed: put the earliest CPU at the root again. */
static void reroot(struct iter *it)
{
	int cpu = it->heap[0];
	uint64_t ts = it->next[cpu]->ts;

	if (ts < it->up_ts || (ts == it->up_ts && cpu < it->up))
		return;
	if (it->nr == 2) {		/* two CPUs: they change places */
		it->heap[0] = it->up;
		it->heap[1] = it->up = cpu;
		it->up_ts = ts;
		return;
	}
	sift_down(it, 0);
	runner_up(it);
}

static void pop(struct iter *it)
{
	it->heap[0] = it->heap[--it->nr];
	sift_down(it, 0);
	runner_up(it);
}

/* ------------------------------------------------------------ lost windows */

static void window_open(struct iter *it, int cpu, uint64_t after)
{
	it->open_after[cpu] = after;
	it->nr_open++;
	if (after < it->min_open_after)
		it->min_open_after = after;
}

static void window_close(struct iter *it, int cpu, uint64_t before)
{
	uint64_t after = it->open_after[cpu];

	it->open_after[cpu] = UINT64_MAX;
	it->nr_open--;
	if (before > it->closed_before)
		it->closed_before = before;
	if (after != it->min_open_after)
		return;
	/* windows are rare: find the next earliest the simple way */
	it->min_open_after = UINT64_MAX;
	for (int c = 0; it->nr_open && c < it->t->info.nr_cpus; c++)
		if (it->open_after[c] < it->min_open_after)
			it->min_open_after = it->open_after[c];
}

static void note_lost(const struct sr_trace_info *info, struct sr_cpu_ingest *c,
		      const struct sr_event *ev)
{
	uint64_t after = c->records ? c->last_ts : 0;
	uint64_t from = after ? after : info->first_ts;

	if (c->lost_windows < SR_MAX_LOST_WINDOWS) {
		struct sr_lost_window *w = &c->win[c->lost_windows];

		w->after = after;
		w->before = ev->ts;
		w->count = ev->missed_before > 0 ? ev->missed_before : -1;
	}
	c->lost_windows++;
	c->lost_ns += ev->ts > from ? ev->ts - from : 0;
	if (ev->missed_before > 0)
		c->lost += ev->missed_before;
	else
		c->lost_unknown = true;
}

/* ------------------------------------------------------------ the counts */

static void account(struct sr_trace_info *info, const struct sr_tr_item *it)
{
	const struct sr_event *ev = &it->ev;
	struct sr_cpu_ingest *c = &info->cpu[ev->cpu];

	if (ev->missed_before)
		note_lost(info, c, ev);
	if (!c->records)
		c->first_ts = ev->ts;
	c->last_ts = ev->ts;
	c->records++;
	if (!info->first_ts || ev->ts < info->first_ts)
		info->first_ts = ev->ts;
	if (ev->ts > info->last_ts)
		info->last_ts = ev->ts;
	info->events[ev->type]++;
	if (it->flags & (SR_TR_NO_FORMAT | SR_TR_BAD_UTF8)) {
		info->events_no_format += !!(it->flags & SR_TR_NO_FORMAT);
		info->bad_utf8 += !!(it->flags & SR_TR_BAD_UTF8);
	}
}

int sr_tr_consume(struct sr_trace *t, const struct sr_tr_item *it, sr_event_fn fn, void *data)
{
	account(&t->info, it);
	return it->flags & SR_TR_DELIVER ? fn(&it->ev, data) : 0;
}

/* ------------------------------------------------------------ the pass */

/*
 * Read @cpu's next record now rather than peek at it: a peeked record is
 * read again through the library (a second call per record) before use.
 */
static struct tep_record *read_next(struct iter *it, int cpu)
{
	struct tep_record *rec;

	sr_tr_lib_enter(it->t, cpu);
	rec = tracecmd_read_data(it->t->handle, cpu);
	sr_tr_lib_leave(it->t);
	return rec;
}

/* Decode @rec into the sink's item, to hand over once the next record is read. */
static void decode(struct iter *it, struct tep_record *rec, int cpu)
{
	struct sr_trace *t = it->t;
	struct sr_tr_item *item = it->sink->item;
	struct sr_event *ev = &item->ev;

	item->flags = sr_tr_decode(t, rec, ev);
	if (rec->missed_events)
		item->flags |= SR_TR_DELIVER;	/* even an unrelated event, for the gap before it */
	ev->cpu = cpu;
	ev->ts = rec->ts;
	ev->missed_before = rec->missed_events;
	ev->lost_open = it->nr_open;
	ev->lost_open_after = it->min_open_after;
	ev->lost_closed_before = it->closed_before;
	if (t->watch) {
		t->watch->records++;
		t->watch->ts = rec->ts;
	}
}

/*
 * Deliver @cpu's next record and read the one after it.  The record is
 * decoded and freed first, so that no two records of a CPU are held at
 * once, and the watch names it (as decoded) while the next one is read.
 */
static int step(struct iter *it, int cpu)
{
	struct tep_record *rec = it->next[cpu];
	uint64_t ts = rec->ts;
	int ret;

	if (it->nr_open && it->open_after[cpu] != UINT64_MAX)
		window_close(it, cpu, ts);
	decode(it, rec, cpu);
	tracecmd_free_record(rec);
	it->next[cpu] = read_next(it, cpu);
	ret = it->sink->put(it->sink);
	if (!it->next[cpu]) {
		pop(it);
		return ret;
	}
	if (it->next[cpu]->missed_events)
		window_open(it, cpu, ts);	/* lost after the record just delivered */
	reroot(it);
	return ret;
}

static int iter_init(struct iter *it, struct sr_trace *t)
{
	int n = t->info.nr_cpus;

	it->t = t;
	it->next = calloc(n, sizeof(*it->next));
	it->heap = calloc(n, sizeof(*it->heap));
	it->open_after = malloc(n * sizeof(*it->open_after));
	if (!it->next || !it->heap || !it->open_after)
		return -ENOMEM;
	it->min_open_after = UINT64_MAX;
	for (int cpu = 0; cpu < n; cpu++) {
		it->open_after[cpu] = UINT64_MAX;
		it->next[cpu] = read_next(it, cpu);
		if (!it->next[cpu])
			continue;
		push(it, cpu);
		if (it->next[cpu]->missed_events)
			window_open(it, cpu, 0);	/* lost before its first record */
	}
	runner_up(it);
	return 0;
}

int sr_tr_pass(struct sr_trace *t, struct sr_tr_sink *sink, struct sr_err *err)
{
	struct iter it = { .sink = sink };
	int ret = iter_init(&it, t);

	if (ret)
		ret = sr_err_set(err, ret, "out of memory");
	while (!ret && it.nr)
		ret = step(&it, it.heap[0]);
	for (int cpu = 0; it.next && cpu < t->info.nr_cpus; cpu++)
		if (it.next[cpu])
			tracecmd_free_record(it.next[cpu]);	/* read ahead of a stop */
	free(it.next);
	free(it.heap);
	free(it.open_after);
	return ret;
}
