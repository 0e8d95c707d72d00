// SPDX-License-Identifier: GPL-2.0
/*
 * latency: sched_waking -> sched_switch-in delay of placed wakeups, split
 * by where the kernel put the task (prev, waker, other; cross-LLC apart)
 * and by whether the chosen CPU was idle.  Histograms keep memory O(1);
 * each one's max, and the --top worst wakeups, name the wakeup that set it,
 * so that a number leads to `explain --wakeup N`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "base.h"
#include "common.h"

enum lat_class { LAT_ALL, LAT_PREV, LAT_WAKER, LAT_OTHER, LAT_CROSS_LLC, LAT_NR };

static const char *const class_names[LAT_NR] = {
	"all", "prev", "waker", "other", "cross_llc",
};

struct latency {
	struct sr_hist h[LAT_NR][2];	/* [class][chosen CPU was idle] */
	struct sr_an_ref max[LAT_NR][2];	/* the wakeup that set each max */
	struct sr_an_worst worst;	/* the --top longest waits */
	uint64_t placed;		/* placed wakeups; those never seen switching in are */
};					/* missing from the histograms (see report) */

static int lat_init(struct sr_analysis *a)
{
	struct latency *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	a->data = l;
	return sr_an_worst_init(&l->worst, a->view->opts->top);
}

static void add(struct latency *l, enum lat_class c, bool idle, const struct sr_an_ref *r)
{
	struct sr_hist *h = &l->h[c][idle];

	/* the first of equal maxima stays: the earliest wakeup that waited this long */
	if (!h->count || r->wait > h->max)
		l->max[c][idle] = *r;
	sr_hist_add(h, r->wait);
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
	struct sr_an_ref r;

	if (n->cls != SR_W_PLACED || ts < n->ts)
		return 0;
	sr_an_ref_fill(&r, t, cpu, ts);
	add(l, LAT_ALL, n->target_idle, &r);
	add(l, n->actual == SR_O_PREV ? LAT_PREV : n->actual == SR_O_WAKER ? LAT_WAKER :
	    LAT_OTHER, n->target_idle, &r);
	if (n->prev_cpu >= 0 && n->cpu >= 0 && n->cpu < topo->nr_cpus &&
	    n->prev_cpu < topo->nr_cpus && !sr_cpus_share_cache(topo, n->cpu, n->prev_cpu))
		add(l, LAT_CROSS_LLC, n->target_idle, &r);
	sr_an_worst_add(&l->worst, &r);
	return 0;
}

/* A histogram, and the wakeup behind its max (null when empty). */
static json_t *hist_json(const struct sr_hist *h, const struct sr_an_ref *max)
{
	json_t *o = sr_hist_json(h);

	if (o)
		json_object_set_new(o, "max_wakeup", h->count ? sr_an_ref_json(max) : json_null());
	return o;
}

/* Add @b into @a: the idle and busy halves of a class make its total. */
static void merge(struct sr_hist *a, const struct sr_hist *b)
{
	if (b->count && (!a->count || b->min < a->min))
		a->min = b->min;
	a->count += b->count;
	a->sum += b->sum;
	if (b->max > a->max)
		a->max = b->max;
	for (int i = 0; i < SR_HIST_BUCKETS; i++)
		a->b[i] += b->b[i];
}

static json_t *class_json(const struct latency *l, enum lat_class c)
{
	struct sr_hist both = l->h[c][0];
	bool idle_max = l->h[c][1].count && (!l->h[c][0].count ||
					     l->h[c][1].max > l->h[c][0].max);

	merge(&both, &l->h[c][1]);
	return json_pack("{s:o, s:o, s:o}", "any", hist_json(&both, &l->max[c][idle_max]),
			 "chosen_cpu_idle", hist_json(&l->h[c][1], &l->max[c][1]),
			 "chosen_cpu_busy", hist_json(&l->h[c][0], &l->max[c][0]));
}

static json_t *worst_json(struct latency *l)
{
	json_t *a = json_array();

	sr_an_worst_sort(&l->worst);
	for (int i = 0; a && i < l->worst.n; i++)
		json_array_append_new(a, sr_an_ref_json(&l->worst.r[i]));
	return a;
}

static int lat_report(struct sr_analysis *a, json_t *report)
{
	struct latency *l = a->data;
	json_t *o = json_object();

	if (!o)
		return -ENOMEM;
	for (int c = 0; c < LAT_NR; c++)
		json_object_set_new(o, class_names[c], class_json(l, c));
	json_object_set_new(o, "placed", json_integer((json_int_t)l->placed));
	json_object_set_new(o, "switch_in_not_seen",
			    json_integer((json_int_t)(l->placed - l->h[LAT_ALL][0].count -
						      l->h[LAT_ALL][1].count)));
	json_object_set_new(o, "worst", worst_json(l));
	json_object_set_new(o, "resolution", json_string("percentiles are bucket upper bounds, "
							 "within 6.25% of the exact value"));
	return json_object_set_new(report, "latency", o) ? -ENOMEM : 0;
}

static void print_class(FILE *f, const struct latency *l, enum lat_class c)
{
	struct sr_hist h = l->h[c][0];
	const struct sr_an_ref *m;
	char comm[SR_TEXT_SIZE(SR_COMM_LEN)];
	bool idle_max;

	merge(&h, &l->h[c][1]);
	if (!h.count)
		return;
	idle_max = l->h[c][1].count && (!l->h[c][0].count || l->h[c][1].max > l->h[c][0].max);
	m = &l->max[c][idle_max];
	fprintf(f, "  %-10s %8" PRIu64 " %10.1f %10.1f %10.1f  #%" PRIu64 " (%s:%d)\n",
		class_names[c], h.count, (double)h.sum / (double)h.count / 1e3,
		(double)sr_hist_pct(&h, 99) / 1e3, (double)h.max / 1e3, m->index,
		sr_text(m->comm, comm, sizeof(comm)), m->pid);
}

static void lat_print(struct sr_analysis *a, FILE *f)
{
	struct latency *l = a->data;

	fprintf(f, "\nWakeup latency, sched_waking to switch-in (us), by where the kernel put "
		"the task:\n");
	fprintf(f, "  %-10s %8s %10s %10s %10s  %s\n", "placed on", "count", "mean", "p99",
		"max", "max: wakeup (task)");
	for (int c = 0; c < LAT_NR; c++)
		print_class(f, l, c);
	sr_an_worst_sort(&l->worst);
	if (!l->worst.n)
		return;
	fprintf(f, "\nWorst wakeups ('schedreplay explain TRACE --wakeup N' tells why):\n");
	fprintf(f, "  %8s  %-22s %-17s %10s %5s %5s %5s %6s\n", "wakeup", "task", "waking (s)",
		"wait (us)", "prev", "waker", "chose", "ran on");
	for (int i = 0; i < l->worst.n; i++) {
		const struct sr_an_ref *r = &l->worst.r[i];
		char name[96], when[32], comm[SR_TEXT_SIZE(SR_COMM_LEN)];

		snprintf(name, sizeof(name), "%s:%d", sr_text(r->comm, comm, sizeof(comm)), r->pid);
		sr_text_pad(name, 22, name, sizeof(name));
		sr_an_fmt_time(r->ts, when, sizeof(when));
		fprintf(f, "  %8" PRIu64 "  %s %-17s %10.1f %5d %5d %5d %6d\n", r->index, name,
			when, (double)r->wait / 1e3, r->prev_cpu, r->waker_cpu, r->cpu, r->ran_on);
	}
}

static void lat_fini(struct sr_analysis *a)
{
	struct latency *l = a->data;

	sr_an_worst_free(&l->worst);
	free(l);
}

const struct sr_analysis_ops sr_latency_analysis = {
	.name = "latency",
	.help = "waking to switch-in delay of placed wakeups by placement class",
	.init = lat_init,
	.wakeup = lat_wakeup,
	.run = lat_run,
	.report = lat_report,
	.print = lat_print,
	.fini = lat_fini,
};
