// SPDX-License-Identifier: GPL-2.0
/*
 * tasks: per task, in the style of perf sched latency: running time,
 * switch-ins, placed wakeups, their mean and max wait (waking -> switch-in)
 * and the wakeup that waited longest, so that the table leads to
 * `explain --wakeup N`.  O(tasks).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

struct task_lat {
	int pid;
	char comm[SR_COMM_LEN];
	uint64_t switches, wakeups, sum_wait;
	struct sr_an_ref max;		/* the longest wait, max.wait 0: none yet */
};

struct tasks {
	struct sr_pidtab t;		/* struct task_lat */
	bool sorted;
	/*
	 * The entry of the table's last lookup: a switch-in's tk_run() and
	 * tk_event() name the same task.  Valid until the next lookup, the
	 * only thing that moves entries (growing the table).
	 */
	struct task_lat *last;
};

/* @pid's entry, created if new; NULL on ENOMEM. */
static struct task_lat *entry(struct tasks *k, int pid)
{
	if (!k->last || k->last->pid != pid)
		k->last = sr_pidtab_get(&k->t, pid);
	return k->last;
}

static int tk_init(struct sr_analysis *a)
{
	struct tasks *k;

	if (a->view->opts->mode != SR_MODE_ANALYZE)
		return 0;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	a->data = k;
	return sr_pidtab_init(&k->t, sizeof(struct task_lat));
}

static int tk_event(struct sr_analysis *a, const struct sr_event *ev)
{
	struct tasks *k = a->data;
	struct task_lat *t;

	if (ev->type != SR_EV_SWITCH || ev->next_pid <= 0)
		return 0;
	t = entry(k, ev->next_pid);
	if (!t)
		return -ENOMEM;
	memcpy(t->comm, ev->next_comm, SR_COMM_LEN);
	t->switches++;
	return 0;
}

static int tk_run(struct sr_analysis *a, const struct sr_task *task, int cpu, uint64_t ts)
{
	struct tasks *k = a->data;
	struct task_lat *t;
	struct sr_an_ref r;

	if (task->note.cls != SR_W_PLACED || ts < task->note.ts)
		return 0;
	t = entry(k, task->v.pid);
	if (!t)
		return -ENOMEM;
	sr_an_ref_fill(&r, task, cpu, ts);
	t->wakeups++;
	t->sum_wait += r.wait;
	if (!t->max.index || r.wait > t->max.wait)
		t->max = r;
	return 0;
}

static int by_max(const void *x, const void *y)
{
	const struct task_lat *a = x, *b = y;

	if (a->max.wait != b->max.wait)
		return a->max.wait < b->max.wait ? 1 : -1;
	return a->pid - b->pid;
}

/* Longest max wait first; once the run is over the table is only listed. */
static void sort(struct tasks *k)
{
	if (!k->sorted)
		qsort(k->t.slots, k->t.nr_slots, sizeof(struct task_lat), by_max);
	k->sorted = true;
	k->last = NULL;		/* the entries moved */
}

static uint64_t runtime(const struct sr_view *v, int pid)
{
	const struct sr_task *t = sr_state_task(v->state, pid);

	return t ? t->runtime : 0;
}

static int tk_report(struct sr_analysis *a, json_t *report)
{
	struct tasks *k = a->data;
	json_t *arr = json_array();
	int n = 0;

	sort(k);
	for (size_t i = 0; arr && i < k->t.nr_slots && n < a->view->opts->top; i++) {
		const struct task_lat *t = sr_pidtab_slot(&k->t, i);

		if (!t->pid || !t->wakeups)
			continue;
		json_array_append_new(arr, json_pack("{s:i, s:o, s:I, s:I, s:I, s:I, s:o}",
			"pid", t->pid, "comm", sr_json_str(t->comm),
			"runtime_ns", (json_int_t)runtime(a->view, t->pid),
			"switch_ins", (json_int_t)t->switches, "wakeups", (json_int_t)t->wakeups,
			"mean_wait_ns", (json_int_t)(t->sum_wait / t->wakeups),
			"max_wakeup", sr_an_ref_json(&t->max)));
		n++;
	}
	return !arr || json_object_set_new(report, "tasks", arr) ? -ENOMEM : 0;
}

static void tk_print(struct sr_analysis *a, FILE *f)
{
	struct tasks *k = a->data;
	int n = 0;

	sort(k);
	fprintf(f, "\nTasks by longest wait (like perf sched latency; 'explain --wakeup N'):\n");
	fprintf(f, "  %-22s %11s %9s %8s %11s %11s  %-17s %8s\n", "task", "runtime ms",
		"switches", "wakeups", "mean wait", "max wait", "max at (s)", "wakeup");
	for (size_t i = 0; i < k->t.nr_slots && n < a->view->opts->top; i++) {
		const struct task_lat *t = sr_pidtab_slot(&k->t, i);
		char name[96], when[32], comm[SR_TEXT_SIZE(SR_COMM_LEN)];

		if (!t->pid || !t->wakeups)
			continue;
		snprintf(name, sizeof(name), "%s:%d", sr_text(t->comm, comm, sizeof(comm)), t->pid);
		sr_text_pad(name, 22, name, sizeof(name));
		sr_an_fmt_time(t->max.ts, when, sizeof(when));
		fprintf(f, "  %s %11.3f %9" PRIu64 " %8" PRIu64 " %8.3f ms %8.3f ms  %-17s %8"
			PRIu64 "\n", name, (double)runtime(a->view, t->pid) / 1e6, t->switches,
			t->wakeups, (double)(t->sum_wait / t->wakeups) / 1e6,
			(double)t->max.wait / 1e6, when, t->max.index);
		n++;
	}
}

static void tk_fini(struct sr_analysis *a)
{
	struct tasks *k = a->data;

	sr_pidtab_free(&k->t);
	free(k);
}

const struct sr_analysis_ops sr_tasks_analysis = {
	.name = "tasks",
	.help = "per task: runtime, switch-ins, wakeups, mean and max wait (perf sched latency)",
	.init = tk_init,
	.event = tk_event,
	.run = tk_run,
	.report = tk_report,
	.print = tk_print,
	.fini = tk_fini,
};
