// SPDX-License-Identifier: GPL-2.0
/*
 * rows: a batch dataset's per-wakeup tables (docs/batch.md).  Unlike the
 * --decisions stream, every column has one type and every row leads with
 * the trace's identity, so rows from many traces stack into one table.
 *
 * wakeups: one row per placed wakeup, written when the task is switched in
 * (its latency is known then) or at the end; fork placements at once.
 * decisions: one row per placement and policy, written at the placement.
 * Memory stays O(tasks): only each task's latest unrun wakeup is held.
 * Each table reuses one row object whose values are replaced per row: the
 * identity columns are shared, and nothing is allocated per row but values.
 */
#include <errno.h>
#include <stdlib.h>
#include "base.h"
#include "analysis.h"

/* What a wakeup row shows, held until the task runs. */
struct wake {
	uint64_t index, ts;
	int pid, waker_pid, waker_cpu, prev_cpu, cpu;
	char comm[SR_COMM_LEN];
	bool hot, uncertain, standalone, migrated, prev_idle, chosen_idle;
	uint8_t actual;			/* enum sr_outcome */
	uint8_t kind;			/* enum sr_wake_kind */
};

struct pending {
	int pid;			/* first: struct sr_pidtab's key */
	bool held;
	struct wake w;
};

struct rows {
	struct sr_ndjson wakeups, decisions;
	json_t *wrow, *drow;		/* the reused rows, made at the first placement */
	struct sr_pidtab pending;
	int err;			/* first failure, reported at the end */
};

static void rows_fini(struct sr_analysis *a)
{
	struct rows *r = a->data;

	sr_pidtab_free(&r->pending);
	sr_ndjson_close(&r->wakeups);
	sr_ndjson_close(&r->decisions);
	json_decref(r->wrow);
	json_decref(r->drow);
	free(r);
}

static int rows_init(struct sr_analysis *a)
{
	const struct sr_rows_opts *o = a->view->opts->rows;
	struct rows *r;
	int ret;

	if (!o || a->view->opts->mode != SR_MODE_ANALYZE)
		return 0;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	a->data = r;
	ret = sr_pidtab_init(&r->pending, sizeof(struct pending));
	if (!ret)
		ret = sr_ndjson_open(&r->wakeups, o->wakeups);
	if (!ret)
		ret = sr_ndjson_open(&r->decisions, o->decisions);
	if (ret) {
		rows_fini(a);
		a->data = NULL;
	}
	return ret;
}

/* A row with the identity columns, then @keys in order (null until set). */
static json_t *template(const struct sr_analysis *a, const char *const *keys)
{
	json_t *row = json_object();

	if (!row || json_object_update(row, a->view->opts->rows->identity)) {
		json_decref(row);
		return NULL;
	}
	for (; *keys; keys++)
		json_object_set_new(row, *keys, json_null());
	return row;
}

static const char *const wakeup_keys[] = {
	"kind", "wakeup", "ts_ns", "pid", "comm", "waker_pid", "waker_cpu", "prev_cpu", "cpu",
	"actual", "relation", "cache_hot", "lost_events", "standalone", "migrated",
	"prev_idle", "chosen_idle", "latency_ns", NULL,
};

static const char *const decision_keys[] = {
	"kind", "wakeup", "ts_ns", "pid", "cpu", "policy", "policy_cpu", "match", "relation",
	"determined", "decided_by", "sync_assumed", "cpu_other_sync", "depends_on", NULL,
};

/* "same_cpu", or how far apart (topology.h); null when a CPU is unknown. */
static json_t *relation(const struct sr_topo *t, int a, int b)
{
	if (a < 0 || b < 0 || a >= t->nr_cpus || b >= t->nr_cpus)
		return json_null();
	return json_string(a == b ? "same_cpu" : sr_relation_name(sr_topo_relation(t, a, b)));
}

static json_t *cpu_or_null(int cpu)
{
	return cpu >= 0 ? json_integer(cpu) : json_null();
}

static void set(json_t *row, const char *key, json_t *v)
{
	json_object_set_new(row, key, v);
}

/* The columns both tables start with after the identity. */
static void set_placement(json_t *row, const struct wake *w)
{
	set(row, "kind", json_string(sr_wake_kind_name(w->kind)));
	set(row, "wakeup", w->kind != SR_WAKE_TTWU ? json_null() :
			   json_integer((json_int_t)w->index));
	set(row, "ts_ns", json_integer((json_int_t)w->ts));
	set(row, "pid", json_integer(w->pid));
	set(row, "cpu", cpu_or_null(w->cpu));
}

static int write_wakeup(struct sr_analysis *a, const struct wake *w, json_t *latency)
{
	struct rows *r = a->data;
	json_t *row = r->wrow;

	set_placement(row, w);
	set(row, "comm", sr_json_str(w->comm));
	set(row, "waker_pid", json_integer(w->waker_pid));
	set(row, "waker_cpu", cpu_or_null(w->waker_cpu));
	set(row, "prev_cpu", cpu_or_null(w->prev_cpu));
	set(row, "actual", json_string(w->kind == SR_WAKE_FORK ? "fork" :
				       sr_outcome_name(w->actual)));
	set(row, "relation", relation(a->view->topo, w->prev_cpu, w->cpu));
	set(row, "cache_hot", json_boolean(w->hot));
	set(row, "lost_events", json_boolean(w->uncertain));
	set(row, "standalone", json_boolean(w->standalone));
	set(row, "migrated", json_boolean(w->migrated));
	set(row, "prev_idle", json_boolean(w->prev_idle));
	set(row, "chosen_idle", json_boolean(w->chosen_idle));
	set(row, "latency_ns", latency);
	return sr_ndjson_write(&r->wakeups, row);
}

/* One row per policy; a model that refused its input has null answers. */
static int write_decisions(struct sr_analysis *a, const struct sr_wakeup *w,
			   const struct wake *wk)
{
	struct rows *r = a->data;
	json_t *row = r->drow;
	int ret = 0;

	set_placement(row, wk);
	for (int i = 0; !ret && i < w->nr_dec; i++) {
		const struct sr_brief *b = &w->dec[i];
		bool answered = b->cpu >= 0;

		set(row, "policy", json_string(a->view->policy[i].name));
		set(row, "policy_cpu", cpu_or_null(b->cpu));
		set(row, "match", answered ? json_boolean(b->cpu == w->cpu) : json_null());
		set(row, "relation", answered ? relation(a->view->topo, w->cpu, b->cpu)
					      : json_null());
		set(row, "determined", json_boolean(answered && b->determined && !w->uncertain));
		set(row, "decided_by", json_string(sr_decider_name(b->decided_by)));
		set(row, "sync_assumed", answered ? json_boolean(b->sync_assumed) : json_null());
		/* the answer under the other WF_SYNC value: the same when not read */
		set(row, "cpu_other_sync", cpu_or_null(b->alt_cpu >= 0 ? b->alt_cpu : b->cpu));
		set(row, "depends_on", sr_deps_json(b->depends));
		ret = sr_ndjson_write(&r->decisions, row);
	}
	return ret;
}

static void take(struct wake *wk, const struct sr_wakeup *w)
{
	*wk = (struct wake){
		.index = w->index, .ts = w->ts, .pid = w->task->v.pid,
		.waker_pid = w->waker_pid, .waker_cpu = w->waker_cpu, .prev_cpu = w->prev_cpu,
		.cpu = w->cpu, .kind = (uint8_t)w->kind, .hot = w->hot, .uncertain = w->uncertain,
		.standalone = !w->paired, .migrated = w->nr_migrations > 0,
		.prev_idle = w->prev_idle, .chosen_idle = w->target_idle,
		.actual = (uint8_t)w->actual,
	};
	memcpy(wk->comm, w->task->comm, sizeof(wk->comm));
	wk->comm[sizeof(wk->comm) - 1] = '\0';
}

static void note(struct rows *r, int ret)
{
	if (ret && !r->err)
		r->err = ret;		/* the pass goes on; the report fails */
}

static int rows_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	struct rows *r = a->data;
	struct pending *p;
	struct wake wk;

	if ((w->cls != SR_W_PLACED && w->kind == SR_WAKE_TTWU) || r->err)
		return 0;
	if (!r->wrow) {
		r->wrow = template(a, wakeup_keys);
		r->drow = template(a, decision_keys);
		if (!r->wrow || !r->drow) {
			note(r, -ENOMEM);
			return 0;
		}
	}
	take(&wk, w);
	note(r, write_decisions(a, w, &wk));
	if (w->kind != SR_WAKE_TTWU) {
		note(r, write_wakeup(a, &wk, json_null()));	/* latency not measured */
		return 0;
	}
	p = sr_pidtab_get(&r->pending, wk.pid);
	if (!p) {
		note(r, -ENOMEM);
		return 0;
	}
	if (p->held)			/* woken again, never seen running */
		note(r, write_wakeup(a, &p->w, json_null()));
	p->w = wk;
	p->held = true;
	return 0;
}

static int rows_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	const struct sr_wake_note *n = &t->note;
	struct rows *r = a->data;
	struct pending *p = sr_pidtab_find(&r->pending, t->v.pid);

	if (!p || !p->held || n->cls != SR_W_PLACED || p->w.index != n->index || r->err)
		return 0;
	p->held = false;
	note(r, write_wakeup(a, &p->w, ts >= n->ts ? json_integer((json_int_t)(ts - n->ts))
						   : json_null()));
	return 0;
}

static int by_index(const void *x, const void *y)
{
	const struct pending *const *a = x, *const *b = y;

	return (*a)->w.index < (*b)->w.index ? -1 : (*a)->w.index > (*b)->w.index;
}

/* Wakeups never seen running, in wakeup order; then close both tables. */
static int rows_report(struct sr_analysis *a, json_t *report)
{
	struct rows *r = a->data;
	struct pending **left = calloc(r->pending.used + 1, sizeof(*left));
	size_t n = 0;

	if (!left)
		return -ENOMEM;
	for (size_t i = 0; i < r->pending.nr_slots; i++) {
		struct pending *p = sr_pidtab_slot(&r->pending, i);

		if (p->pid && p->held)
			left[n++] = p;
	}
	qsort(left, n, sizeof(*left), by_index);
	for (size_t i = 0; i < n && !r->err; i++)
		note(r, write_wakeup(a, &left[i]->w, json_null()));
	free(left);
	note(r, sr_ndjson_close(&r->wakeups));
	note(r, sr_ndjson_close(&r->decisions));
	return r->err;
}

const struct sr_analysis_ops sr_rows_analysis = {
	.name = "rows",
	.help = "batch dataset tables: one row per wakeup, one per wakeup and policy",
	.init = rows_init,
	.wakeup = rows_wakeup,
	.run = rows_run,
	.report = rows_report,
	.fini = rows_fini,
};
