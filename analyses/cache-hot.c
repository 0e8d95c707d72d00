// SPDX-License-Identifier: GPL-2.0
/*
 * cache_hot_moves: affine moves of tasks that were cache-hot on their
 * previous CPU (switched out less than migration_cost before the waking),
 * what Paul Turner's NO_HOT_AFFINE gate ("sched: introduce
 * sched_feat(NO_HOT_AFFINE)", Jan 2011, never merged) would have done
 * instead (keep the task on prev's side: run at once if prev was idle,
 * queue there if not),
 * the same count for each policy's predictions, and the tasks it hit most.
 */
#include <errno.h>
#include <stdlib.h>
#include "base.h"
#include "analysis.h"

struct hot_task {
	int pid;
	char comm[SR_COMM_LEN];
	uint64_t moves;
};

struct cache_hot {
	uint64_t gate_prev_idle, gate_prev_busy;	/* split of the state's affine_hot */
	uint64_t predicted[SR_MAX_POLICIES];	/* determined answers that pull a hot task */
	uint64_t predicted_undet[SR_MAX_POLICIES];	/* undetermined ones (primary answer) */
	struct sr_pidtab tasks;		/* struct hot_task: O(tasks) */
};

static int ch_init(struct sr_analysis *a)
{
	struct cache_hot *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	if (sr_pidtab_init(&c->tasks, sizeof(struct hot_task))) {
		free(c);
		return -ENOMEM;
	}
	a->data = c;
	return 0;
}

static int count_task(struct cache_hot *c, const struct sr_task *t)
{
	struct hot_task *h = sr_pidtab_get(&c->tasks, t->v.pid);

	if (!h)
		return -ENOMEM;
	memcpy(h->comm, t->comm, SR_COMM_LEN);
	h->moves++;
	return 0;
}

static int ch_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	struct cache_hot *c = a->data;

	if (w->cls != SR_W_PLACED || !w->hot)
		return 0;
	for (int i = 0; i < w->nr_dec && i < SR_MAX_POLICIES; i++)
		if (w->dec[i].cpu == w->waker_cpu && w->waker_cpu != w->prev_cpu) {
			if (w->dec[i].determined && !w->uncertain)
				c->predicted[i]++;
			else
				c->predicted_undet[i]++;
		}
	if (w->actual != SR_O_WAKER)
		return 0;
	if (w->prev_idle)
		c->gate_prev_idle++;
	else
		c->gate_prev_busy++;
	return count_task(c, w->task);
}

static int by_moves(const void *a, const void *b)
{
	const struct hot_task *x = a, *y = b;

	if (x->moves != y->moves)
		return x->moves < y->moves ? 1 : -1;
	return x->pid - y->pid;
}

static json_t *top_json(struct cache_hot *c, int top)
{
	json_t *a = json_array();
	int n = 0;

	/* sorting the table in place is fine: the run is over */
	qsort(c->tasks.slots, c->tasks.nr_slots, sizeof(struct hot_task), by_moves);
	for (size_t i = 0; a && i < c->tasks.nr_slots && n < top; i++) {
		const struct hot_task *t = sr_pidtab_slot(&c->tasks, i);

		if (!t->pid)
			continue;
		json_array_append_new(a, json_pack("{s:i, s:o, s:I}", "pid", t->pid,
						   "comm", sr_json_str(t->comm), "affine_hot_moves",
						   (json_int_t)t->moves));
		n++;
	}
	return a;
}

static int ch_report(struct sr_analysis *a, json_t *report)
{
	const struct sr_view *v = a->view;
	struct cache_hot *c = a->data;
	json_t *pred = json_array();

	for (int i = 0; pred && i < v->nr_policies; i++)
		json_array_append_new(pred, json_pack("{s:s, s:I, s:I}", "policy",
						      v->policy[i].name, "affine_hot_moves",
						      (json_int_t)c->predicted[i],
						      "undetermined_affine_hot_moves",
						      (json_int_t)c->predicted_undet[i]));
	return json_object_set_new(report, "cache_hot_moves", json_pack(
		"{s:I, s:I, s:{s:I, s:I}, s:o, s:o}",
		"migration_cost_ns", (json_int_t)v->opts->migration_cost_ns,
		"actual_affine_hot", (json_int_t)v->state->wc.affine_hot,
		"no_hot_affine_instead",
		"prev_idle_run_at_once", (json_int_t)c->gate_prev_idle,
		"prev_busy_queue_on_prev_side", (json_int_t)c->gate_prev_busy,
		"predicted", pred, "top_tasks", top_json(c, v->opts->top))) ? -ENOMEM : 0;
}

static void ch_fini(struct sr_analysis *a)
{
	struct cache_hot *c = a->data;

	sr_pidtab_free(&c->tasks);
	free(c);
}

const struct sr_analysis_ops sr_cache_hot_analysis = {
	.name = "cache_hot_moves",
	.help = "affine moves of cache-hot tasks, and what NO_HOT_AFFINE would have done",
	.init = ch_init,
	.wakeup = ch_wakeup,
	.report = ch_report,
	.fini = ch_fini,
};
