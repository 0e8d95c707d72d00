// SPDX-License-Identifier: GPL-2.0
/*
 * latency: sched_waking -> sched_switch-in delay of placed wakeups, split
 * by where the kernel put the task (prev, waker, other; cross-LLC apart)
 * and by whether the chosen CPU was idle.  Histograms keep memory O(1).
 */
#include <errno.h>
#include <stdlib.h>
#include "base.h"
#include "analysis.h"

enum lat_class { LAT_ALL, LAT_PREV, LAT_WAKER, LAT_OTHER, LAT_CROSS_LLC, LAT_NR };

static const char *const class_names[LAT_NR] = {
	"all", "prev", "waker", "other", "cross_llc",
};

struct latency {
	struct sr_hist h[LAT_NR][2];	/* [class][chosen CPU was idle] */
	uint64_t placed;		/* placed wakeups; those never seen switching in are */
};					/* missing from the histograms (see report) */

static int lat_init(struct sr_analysis *a)
{
	a->data = calloc(1, sizeof(struct latency));
	return a->data ? 0 : -ENOMEM;
}

static void add(struct latency *l, enum lat_class c, bool idle, uint64_t v)
{
	sr_hist_add(&l->h[c][idle], v);
}

static int lat_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	struct latency *l = a->data;

	if (w->cls == SR_W_PLACED)
		l->placed++;
	return 0;
}

static int lat_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	const struct sr_topo *topo = a->view->topo;
	const struct sr_wake_note *n = &t->note;
	struct latency *l = a->data;
	uint64_t wait;

	if (n->cls != SR_W_PLACED || ts < n->ts)
		return 0;
	wait = ts - n->ts;
	add(l, LAT_ALL, n->target_idle, wait);
	add(l, n->actual == SR_O_PREV ? LAT_PREV : n->actual == SR_O_WAKER ? LAT_WAKER :
	    LAT_OTHER, n->target_idle, wait);
	if (n->prev_cpu >= 0 && n->cpu >= 0 && n->cpu < topo->nr_cpus &&
	    n->prev_cpu < topo->nr_cpus && !sr_cpus_share_cache(topo, n->cpu, n->prev_cpu))
		add(l, LAT_CROSS_LLC, n->target_idle, wait);
	return 0;
}

static json_t *class_json(const struct latency *l, enum lat_class c)
{
	struct sr_hist both = l->h[c][0];

	/* merge the idle and busy halves for the class total */
	both.count += l->h[c][1].count;
	both.sum += l->h[c][1].sum;
	if (l->h[c][1].count && (!l->h[c][0].count || l->h[c][1].min < both.min))
		both.min = l->h[c][1].min;
	if (l->h[c][1].max > both.max)
		both.max = l->h[c][1].max;
	for (int i = 0; i < SR_HIST_BUCKETS; i++)
		both.b[i] += l->h[c][1].b[i];
	return json_pack("{s:o, s:o, s:o}", "any", sr_hist_json(&both),
			 "chosen_cpu_idle", sr_hist_json(&l->h[c][1]),
			 "chosen_cpu_busy", sr_hist_json(&l->h[c][0]));
}

static int lat_report(struct sr_analysis *a, json_t *report)
{
	const struct latency *l = a->data;
	json_t *o = json_object();

	if (!o)
		return -ENOMEM;
	for (int c = 0; c < LAT_NR; c++)
		json_object_set_new(o, class_names[c], class_json(l, c));
	json_object_set_new(o, "placed", json_integer((json_int_t)l->placed));
	json_object_set_new(o, "switch_in_not_seen",
			    json_integer((json_int_t)(l->placed - l->h[LAT_ALL][0].count -
						      l->h[LAT_ALL][1].count)));
	json_object_set_new(o, "resolution", json_string("percentiles are bucket upper bounds, "
							 "within 6.25% of the exact value"));
	return json_object_set_new(report, "latency", o) ? -ENOMEM : 0;
}

static void lat_fini(struct sr_analysis *a)
{
	free(a->data);
}

const struct sr_analysis_ops sr_latency_analysis = {
	.name = "latency",
	.help = "waking to switch-in delay of placed wakeups by placement class",
	.init = lat_init,
	.wakeup = lat_wakeup,
	.run = lat_run,
	.report = lat_report,
	.fini = lat_fini,
};
