// SPDX-License-Identifier: GPL-2.0
/* The JSON report (docs/report-schema.md documents every field). */
#include <errno.h>
#include <stdio.h>
#include "run.h"

#define SR_SCHEMA "schedreplay-report/2"

static int set_u64(json_t *o, const char *k, uint64_t v)
{
	return json_object_set_new(o, k, json_integer((json_int_t)v));
}

static json_t *events_json(const struct sr_trace_info *info)
{
	json_t *o = json_object();

	for (int i = 0; o && i < SR_EV_NR; i++)
		set_u64(o, sr_ev_name(i), info->events[i]);
	return o;
}

static json_t *lost_json(const struct sr_trace_info *info)
{
	json_t *o = json_object(), *per = json_array();
	uint64_t total = 0, total_kernel = 0;
	bool unknown = false;

	if (!o || !per) {
		json_decref(o);
		json_decref(per);
		return NULL;
	}
	for (int c = 0; c < info->nr_cpus; c++) {
		const struct sr_cpu_ingest *ci = &info->cpu[c];
		json_t *cpu, *wins;

		if (ci->stat_overrun > 0 || ci->stat_dropped > 0)
			total_kernel += (uint64_t)(ci->stat_overrun > 0 ? ci->stat_overrun : 0) +
					(uint64_t)(ci->stat_dropped > 0 ? ci->stat_dropped : 0);
		if (!ci->lost_windows)
			continue;
		total += (uint64_t)ci->lost;
		unknown |= ci->lost_unknown;
		cpu = json_pack("{s:i, s:I, s:b, s:i, s:I}", "cpu", c, "count", (json_int_t)ci->lost,
				"count_unknown", ci->lost_unknown, "gaps", ci->lost_windows,
				"window_ns", (json_int_t)ci->lost_ns);
		wins = json_array();
		for (int w = 0; w < ci->lost_windows && w < SR_MAX_LOST_WINDOWS; w++)
			json_array_append_new(wins, json_pack("{s:I, s:I, s:I}",
				"after_ns", (json_int_t)ci->win[w].after,
				"before_ns", (json_int_t)ci->win[w].before,
				"count", (json_int_t)ci->win[w].count));
		json_object_set_new(cpu, "windows", wins);
		json_array_append_new(per, cpu);
	}
	set_u64(o, "total", total);
	set_u64(o, "kernel_buffer_overrun_or_dropped", total_kernel);
	json_object_set_new(o, "count_unknown", json_boolean(unknown));
	json_object_set_new(o, "per_cpu", per);
	return o;
}

/* Before every CPU has data, events from the quiet CPUs may be missing. */
static json_t *start_json(const struct sr_trace_info *info)
{
	uint64_t first = 0, all_from = 0;
	int empty = 0;

	for (int c = 0; c < info->nr_cpus; c++) {
		const struct sr_cpu_ingest *ci = &info->cpu[c];

		if (!ci->records) {
			empty++;
			continue;
		}
		if (!first || ci->first_ts < first)
			first = ci->first_ts;
		if (ci->first_ts > all_from)
			all_from = ci->first_ts;
	}
	return json_pack("{s:I, s:I, s:I, s:i}", "first_ns", (json_int_t)first,
			 "all_cpus_from_ns", (json_int_t)all_from,
			 "partial_window_ns", (json_int_t)(all_from - first),
			 "cpus_without_data", empty);
}

static json_t *trace_json(const struct sr_run *r)
{
	const struct sr_trace_info *info = r->info;

	/* the path as given: every QEMU trace is named trace.dat or hb_pipe.dat */
	return json_pack("{s:o, s:o, s:i, s:i, s:i, s:o, s:b, s:{s:o, s:o}, s:{s:I, s:I, s:I},"
			 " s:o, s:o, s:o}",
			 "file", sr_json_str(r->opts.path ? r->opts.path : ""),
			 "buffer", sr_json_str(info->buffer[0] ? info->buffer : NULL),
			 "file_version", info->file_version,
			 "long_size", info->long_size,
			 "cpus", info->nr_cpus,
			 "clock", sr_json_str(info->clock[0] ? info->clock : NULL),
			 "clock_tsc2nsec", info->clock_tsc2nsec,
			 "kernel", "release", sr_json_str(info->release[0] ? info->release : NULL),
			 "uname", sr_json_str(info->uname[0] ? info->uname : NULL),
			 "span", "first_ns", (json_int_t)info->first_ts,
			 "last_ns", (json_int_t)info->last_ts,
			 "duration_ns", (json_int_t)(info->last_ts - info->first_ts),
			 "events", events_json(info),
			 "lost_events", lost_json(info),
			 "recording_start", start_json(info));
}

/* The wakeups no CPU's lost window touched: what stays exact on a lossy trace. */
static json_t *outside_json(const struct sr_wakeup_counts *wc)
{
	return json_pack("{s:I, s:I, s:I, s:{s:I, s:I, s:I}}",
			 "placed", (json_int_t)wc->outside_cls[SR_W_PLACED],
			 "runnable", (json_int_t)wc->outside_cls[SR_W_RUNNABLE],
			 "unknown", (json_int_t)wc->outside_cls[SR_W_UNKNOWN],
			 "actual", "prev", (json_int_t)wc->outside_actual[SR_O_PREV],
			 "waker", (json_int_t)wc->outside_actual[SR_O_WAKER],
			 "other", (json_int_t)wc->outside_actual[SR_O_OTHER]);
}

/* sched_process_exec records, and the placements sched_exec() made (src/state/exec.c). */
static json_t *execs_json(const struct sr_wakeup_counts *wc)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "sched_process_exec", (json_int_t)wc->exec,
			 "moved", (json_int_t)wc->exec_moved, "stayed", (json_int_t)wc->exec_stayed,
			 "stayed_time_unknown", (json_int_t)wc->exec_time_unknown,
			 "unresolved", (json_int_t)wc->exec_unresolved);
}

static json_t *wakeups_json(const struct sr_wakeup_counts *wc)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:o,"
			 " s:{s:I, s:I, s:I}}",
			 "placed", (json_int_t)wc->cls[SR_W_PLACED],
			 "runnable", (json_int_t)wc->cls[SR_W_RUNNABLE],
			 "unknown", (json_int_t)wc->cls[SR_W_UNKNOWN],
			 "unpaired", (json_int_t)wc->unpaired,
			 "wakeup_new", (json_int_t)wc->wakeup_new,
			 "exec", execs_json(wc),
			 "standalone", (json_int_t)wc->standalone,
			 "uncertain", (json_int_t)wc->uncertain,
			 "chosen_inferred", (json_int_t)wc->inferred,
			 "in_lost_windows", (json_int_t)wc->in_lost_window,
			 "outside_lost_windows", outside_json(wc),
			 "actual", "prev", (json_int_t)wc->actual[SR_O_PREV],
			 "waker", (json_int_t)wc->actual[SR_O_WAKER],
			 "other", (json_int_t)wc->actual[SR_O_OTHER]);
}

static json_t *err_json(const uint64_t *hist)
{
	json_t *o = json_object();
	char k[16];

	for (int b = 0; o && b < SR_ERR_BUCKETS; b++) {
		if (b < SR_ERR_BUCKETS - 1)
			snprintf(k, sizeof(k), "lt_%u_pct", sr_err_bucket_pct[b]);
		else
			snprintf(k, sizeof(k), "ge_%u_pct", sr_err_bucket_pct[b - 1]);
		set_u64(o, k, hist[b]);
	}
	return o;
}

/* The rqs probes' reads against the state: {load, util, util_est, runnable} x {busy, idle}. */
static json_t *rqs_json(const struct sr_probe_stats *p)
{
	static const char *const field[4] = { "load_avg", "util_avg", "util_est", "runnable_avg" };
	json_t *o = json_object();

	for (int f = 0; o && f < 4; f++)
		json_object_set_new(o, field[f], json_pack("{s:o, s:o}",
				    "busy", err_json(p->rqs_err[f][0]),
				    "idle", err_json(p->rqs_err[f][1])));
	return o;
}

/* The task groups the state followed (cgroup events, the autogroup probe). */
static json_t *groups_json(const struct sr_state *s)
{
	return json_pack("{s:i, s:i, s:I}", "followed", s->nr_groups,
			 "shares_known", sr_state_groups_shares_known(s),
			 "not_followed", (json_int_t)s->groups_dropped);
}

/* The tasks' affinity the run knew (setup.c, src/state/hints.c). */
static json_t *affinity_json(const struct sr_run *r)
{
	return json_pack("{s:i, s:I, s:I}", "tasks_given", r->nr_affinity,
			 "inherited", (json_int_t)r->state.affinity_inherited,
			 "broken", (json_int_t)r->state.affinity_broken);
}

/* Only for traces with the select_task_rq_fair() probes: null otherwise. */
static json_t *probes_json(const struct sr_run *r)
{
	const struct sr_probe_stats *p = &r->state.probes;
	json_t *o;

	if (!r->state.cfg.has_select_probe)
		return json_null();
	o = json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}, s:o, s:o, s:o, s:I, s:o, "
		      "s:o, s:I, s:{s:I, s:I, s:I}, s:I, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I, s:I}, "
		      "s:I, s:I, s:I}",
		"used_as_inputs", !r->state.cfg.probes_measure_only,
		"selects", (json_int_t)p->selects,
		"placed_at_select", (json_int_t)p->at_select,
		"placed_without_select", (json_int_t)p->without_select,
		"runnable_without_select", (json_int_t)p->runnable_without_select,
		"h_loads", (json_int_t)p->hloads,
		"sync_guess", "no_no", (json_int_t)p->sync[0][0],
		"no_yes", (json_int_t)p->sync[0][1], "yes_no", (json_int_t)p->sync[1][0],
		"yes_yes", (json_int_t)p->sync[1][1],
		"wakee_load_error", err_json(p->load_err),
		"wakee_util_error", err_json(p->util_err),
		"h_load_error", err_json(p->hload_err),
		"cpu_loads", (json_int_t)p->cpu_loads,
		"cpu_load_error", err_json(p->cpu_load_err),
		"cpu_util_error", err_json(p->cpu_util_err),
		"wakee_flips", (json_int_t)p->flips,
		"wakee_flips_error", "exact", (json_int_t)p->flips_err[0],
		"within_bounds", (json_int_t)p->flips_err[1],
		"outside_bounds", (json_int_t)p->flips_err[2],
		"idle_scans", (json_int_t)p->llc_scans,
		"idle_scan_error", "exact", (json_int_t)p->llc_scan_err[0],
		"within_2", (json_int_t)p->llc_scan_err[1], "further", (json_int_t)p->llc_scan_err[2],
		"idle_cores", "reads", (json_int_t)p->idle_cores,
		"state_agrees", (json_int_t)p->idle_cores_agree,
		"state_followed", (json_int_t)p->idle_cores_followed,
		"state_followed_agrees", (json_int_t)p->idle_cores_followed_agree,
		"answer_moved", (json_int_t)p->ret_moved,
		"exec_at_select", (json_int_t)p->exec_selects,
		"exec_answer_moved", (json_int_t)p->exec_ret_moved);
	/* the rqs probes (every CPU's cfs_rq averages), in traces that have them */
	if (o && p->rqs_reads &&
	    (json_object_set_new(o, "rq_reads", json_integer((json_int_t)p->rqs_reads)) ||
	     json_object_set_new(o, "rq_error", rqs_json(p)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *cpus_json(const struct sr_run *r)
{
	json_t *a = json_array();

	for (int c = 0; a && c < r->info->nr_cpus; c++) {
		const struct sr_cpu_state *cs = &r->state.cpu[c];
		uint64_t known = cs->idle_ns + cs->busy_ns;
		json_t *mean = known ? json_real((double)((int64_t)(cs->nr_running_ns / (double)known
								    * 1000.0 + 0.5)) / 1000.0)
				     : json_null();

		json_array_append_new(a, json_pack("{s:i, s:I, s:I, s:I, s:o, s:I, s:I}",
			"cpu", c, "idle_ns", (json_int_t)cs->idle_ns,
			"busy_ns", (json_int_t)cs->busy_ns,
			"unknown_ns", (json_int_t)cs->unknown_ns,
			"mean_nr_running", mean,
			"resyncs", (json_int_t)cs->resyncs,
			"switch_mismatches", (json_int_t)cs->mismatches));
	}
	return a;
}

static json_t *topology_json(const struct sr_run *r)
{
	const struct sr_machine *m = &r->machine;
	json_t *o = json_pack("{s:s, s:o, s:b, s:i, s:i}", "source",
			      sr_topo_source_name(r->topo.source), "given", sr_json_str(r->opts.topology),
			      "beside_trace", r->opts.topology_beside,
			      "cpus", r->topo.nr_cpus, "nodes", r->topo.nr_nodes);

	if (o && r->opts.topology)
		json_object_set_new(o, "machine", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
			"release", sr_json_str(m->release[0] ? m->release : NULL),
			"sched_features_known", json_boolean(m->nr_features > 0),
			"migration_cost_ns", m->migration_cost_ns >= 0 ?
				json_integer(m->migration_cost_ns) : json_null(),
			"autogroup", m->autogroup >= 0 ? json_boolean(m->autogroup) : json_null(),
			"kernel_patch_params", sr_json_str(m->kernel_patch_params[0] ?
							   m->kernel_patch_params : NULL),
			"cpuidle_driver", sr_json_str(m->cpuidle_driver[0] ? m->cpuidle_driver : NULL),
			"missing", m->nr_missing));
	return o;
}

int sr_run_build_report(struct sr_run *r, json_t **out, struct sr_err *err)
{
	json_t *rep, *warn;
	int ret;

	*out = NULL;
	rep = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:{s:I, s:o}, s:o, s:o, s:{s:I, s:I, s:I}, "
			"s:o}",
			"schema", SR_SCHEMA, "version", SR_VERSION,
			"trace", trace_json(r), "topology", topology_json(r),
			"wakeups", wakeups_json(&r->state.wc),
			"probes", probes_json(r),
			"ticks", "late_ns", (json_int_t)r->state.tick_late_ns,
			"ipi_delivery", sr_hist_json(&r->state.ipi_late),
			"task_groups", groups_json(&r->state),
			"affinity", affinity_json(r),
			"cache_hot", "placed_hot", (json_int_t)r->state.wc.placed_hot,
			"affine_hot", (json_int_t)r->state.wc.affine_hot,
			"migration_cost_ns", (json_int_t)r->opts.an.migration_cost_ns,
			"cpus", cpus_json(r));
	if (!rep)
		return sr_err_set(err, -ENOMEM, "out of memory building the report");
	for (int i = 0; i < r->nr_an; i++) {
		const struct sr_analysis *a = &r->an[i];

		ret = a->data && a->ops->report ? a->ops->report(&r->an[i], rep) : 0;
		if (ret) {
			json_decref(rep);
			return sr_err_set(err, ret, "analysis %s: %s", a->ops->name,
					  ret == -EIO ? "cannot write its output" : strerror(-ret));
		}
	}
	warn = json_array();
	for (int i = 0; warn && i < r->nr_warnings; i++)
		json_array_append_new(warn, sr_json_str(r->warnings[i]));
	if (!warn || json_object_set_new(rep, "warnings", warn)) {
		json_decref(rep);
		return sr_err_set(err, -ENOMEM, "out of memory building the report");
	}
	*out = rep;
	return 0;
}

json_t *sr_run_report(struct sr_run *r)
{
	json_t *rep;

	return sr_run_build_report(r, &rep, NULL) ? NULL : rep;
}
