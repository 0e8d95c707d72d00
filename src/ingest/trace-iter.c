// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: the one pass over the records, in time order.  As
 * tracecmd_iterate_events() does, each CPU's next record is peeked and the
 * earliest one is delivered (ties: the lower CPU first), but from a heap,
 * so hundreds of CPUs cost log(CPUs) per record, and the look-ahead is
 * kept: a CPU whose next record follows lost events is inside a lost window
 * from its last record on, and the records other CPUs deliver meanwhile
 * say so (struct sr_event lost_open_after / lost_closed_before).
 */
#include <errno.h>
#include <stdlib.h>
#include "trace-priv.h"

struct iter {
	struct sr_trace *t;
	struct tep_record **next;	/* per CPU: its peeked record */
	int *heap;			/* CPUs with a next record, earliest first */
	int nr;
	uint64_t *open_after;		/* per CPU: where its open window starts, UINT64_MAX none */
	int nr_open;
	uint64_t min_open_after, closed_before;
	sr_event_fn fn;
	void *data;
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

static void pop(struct iter *it)
{
	it->heap[0] = it->heap[--it->nr];
	sift_down(it, 0);
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

static void note_lost(const struct sr_trace *t, struct sr_cpu_ingest *c,
		      const struct tep_record *rec)
{
	uint64_t after = c->records ? c->last_ts : 0;
	uint64_t from = after ? after : t->info.first_ts;

	if (c->lost_windows < SR_MAX_LOST_WINDOWS) {
		struct sr_lost_window *w = &c->win[c->lost_windows];

		w->after = after;
		w->before = rec->ts;
		w->count = rec->missed_events > 0 ? rec->missed_events : -1;
	}
	c->lost_windows++;
	c->lost_ns += rec->ts > from ? rec->ts - from : 0;
	if (rec->missed_events > 0)
		c->lost += rec->missed_events;
	else
		c->lost_unknown = true;
}

/* ------------------------------------------------------------ the pass */

static struct tep_record *peek(struct iter *it, int cpu)
{
	struct tep_record *rec;

	sr_tr_lib_enter(it->t, cpu);
	rec = tracecmd_peek_data(it->t->handle, cpu);
	sr_tr_lib_leave(it->t);
	return rec;
}

static void account(struct sr_trace *t, struct sr_cpu_ingest *c, const struct tep_record *rec)
{
	if (rec->missed_events)
		note_lost(t, c, rec);
	if (!c->records)
		c->first_ts = rec->ts;
	c->last_ts = rec->ts;
	c->records++;
	if (!t->info.first_ts || rec->ts < t->info.first_ts)
		t->info.first_ts = rec->ts;
	if (rec->ts > t->info.last_ts)
		t->info.last_ts = rec->ts;
}

static int deliver(struct iter *it, struct tep_record *rec, int cpu)
{
	struct sr_trace *t = it->t;
	struct sr_event ev;

	account(t, &t->info.cpu[cpu], rec);
	memset(&ev, 0, sizeof(ev));
	ev.type = sr_tr_record_type(t, rec);
	if (ev.type == SR_EV_NR) {
		t->info.events_no_format++;
		ev.type = SR_EV_OTHER;
	}
	ev.cpu = cpu;
	ev.ts = rec->ts;
	ev.missed_before = rec->missed_events;
	ev.lost_open = it->nr_open;
	ev.lost_open_after = it->min_open_after;
	ev.lost_closed_before = it->closed_before;
	t->info.events[ev.type]++;
	if (t->watch) {
		t->watch->records++;
		t->watch->ts = rec->ts;
	}
	if (ev.type != SR_EV_OTHER)
		sr_tr_fill_event(t, rec, &ev);
	else if (!rec->missed_events)
		return 0;	/* unrelated event: counted, not delivered */
	return it->fn(&ev, it->data);
}

/* Deliver @cpu's next record, then look at the one after it. */
static int step(struct iter *it, int cpu)
{
	struct tep_record *rec;
	int ret;

	sr_tr_lib_enter(it->t, cpu);
	rec = tracecmd_read_data(it->t->handle, cpu);
	sr_tr_lib_leave(it->t);
	if (!rec) {
		pop(it);
		return 0;
	}
	if (it->open_after[cpu] != UINT64_MAX)
		window_close(it, cpu, rec->ts);
	ret = deliver(it, rec, cpu);
	tracecmd_free_record(rec);
	it->next[cpu] = peek(it, cpu);
	if (!it->next[cpu]) {
		pop(it);
		return ret;
	}
	if (it->next[cpu]->missed_events)
		window_open(it, cpu, it->t->info.cpu[cpu].last_ts);
	sift_down(it, 0);
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
		it->next[cpu] = peek(it, cpu);
		if (!it->next[cpu])
			continue;
		push(it, cpu);
		if (it->next[cpu]->missed_events)
			window_open(it, cpu, 0);	/* lost before its first record */
	}
	return 0;
}

int sr_trace_iterate(struct sr_trace *t, sr_event_fn fn, void *data, struct sr_err *err)
{
	struct iter it = { .fn = fn, .data = data };
	int ret = iter_init(&it, t);

	if (ret)
		ret = sr_err_set(err, ret, "out of memory");
	while (!ret && it.nr)
		ret = step(&it, it.heap[0]);
	free(it.next);
	free(it.heap);
	free(it.open_after);
	return ret;
}
