// SPDX-License-Identifier: GPL-2.0
/*
 * decisions: with --decisions FILE, one NDJSON line per placed wakeup as
 * it completes — nothing is held in memory, so the stream scales with the
 * trace while the run stays O(tasks + CPUs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "analysis.h"

struct decisions {
	FILE *f;
	bool failed;
};

static int dec_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct decisions *d;

	if (!v->opts->decisions)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->f = strcmp(v->opts->decisions, "-") ? fopen(v->opts->decisions, "w") : stdout;
	if (!d->f) {
		int ret = -errno;

		free(d);
		return ret;
	}
	a->data = d;
	return 0;
}

static json_t *flags_json(const struct sr_wakeup *w)
{
	json_t *a = json_array();

	if (w->hot)
		json_array_append_new(a, json_string("cache_hot"));
	if (w->uncertain)
		json_array_append_new(a, json_string("lost_events"));
	if (!w->paired)
		json_array_append_new(a, json_string("standalone"));
	if (w->nr_migrations)
		json_array_append_new(a, json_string("migrated"));
	if (w->prev_idle)
		json_array_append_new(a, json_string("prev_idle"));
	if (w->target_idle)
		json_array_append_new(a, json_string("chosen_idle"));
	return a;
}

static json_t *policies_json(const struct sr_wakeup *w, const struct sr_view *v)
{
	json_t *a = json_array();

	for (int i = 0; a && i < w->nr_dec; i++) {
		const struct sr_brief *b = &w->dec[i];
		json_t *deps = json_array();

		for (int bit = 0; bit < 16; bit++)
			if (b->depends & (1u << bit))
				json_array_append_new(deps, json_string(sr_dep_name(1u << bit)));
		json_array_append_new(a, json_pack("{s:s, s:i, s:b, s:o, s:b, s:s, s:o}",
			"policy", v->policy[i].name, "cpu", b->cpu,
			"sync_assumed", b->sync_assumed,
			"cpu_other_sync", b->alt_cpu >= 0 && b->alt_cpu != b->cpu ?
				json_integer(b->alt_cpu) : json_null(),
			"determined", b->determined && !w->uncertain,
			"decided_by", sr_decider_name(b->decided_by), "depends_on", deps));
	}
	return a;
}

static int dec_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	const struct sr_view *v = a->view;
	struct decisions *d = a->data;
	json_error_t jerr;
	json_t *line;

	if ((w->cls != SR_W_PLACED && !w->fork) || d->failed)
		return 0;
	line = json_pack_ex(&jerr, 0, "{s:o, s:I, s:i, s:o, s:i, s:i, s:i, s:i, s:s, s:o, s:o}",
			 "wakeup", w->fork ? json_string("fork") : json_integer((json_int_t)w->index),
			 "ts_ns", (json_int_t)w->ts,
			 "pid", w->task->v.pid, "comm", sr_json_str(w->task->comm),
			 "waker_cpu", w->waker_cpu, "prev_cpu", w->prev_cpu, "cpu", w->cpu,
			 "waker_pid", w->waker_pid,
			 "actual", w->fork ? "fork" : sr_outcome_name(w->actual),
			 "flags", flags_json(w), "policies", policies_json(w, v));
	if (!line)
		return sr_json_errno(&jerr);
	if (json_dumpf(line, d->f, JSON_COMPACT) || fputc('\n', d->f) == EOF)
		d->failed = true;
	json_decref(line);
	return 0;
}

static int dec_report(struct sr_analysis *a, json_t *report)
{
	struct decisions *d = a->data;

	if (fflush(d->f) || d->failed)
		return -EIO;
	return 0;
}

static void dec_fini(struct sr_analysis *a)
{
	struct decisions *d = a->data;

	if (d->f && d->f != stdout)
		fclose(d->f);
	free(d);
}

const struct sr_analysis_ops sr_decisions_analysis = {
	.name = "decisions",
	.help = "NDJSON stream of every placed wakeup (--decisions FILE)",
	.init = dec_init,
	.wakeup = dec_wakeup,
	.report = dec_report,
	.fini = dec_fini,
};
