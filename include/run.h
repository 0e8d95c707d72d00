/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run layer: one pass over one trace, ingest -> state -> replay (policies)
 * -> analyses -> report.  Commands build a run from their options.
 */
#ifndef SR_RUN_H
#define SR_RUN_H

#include <stdio.h>
#include <jansson.h>
#include "analysis.h"
#include "machine.h"
#include "state.h"
#include "topology.h"
#include "trace.h"

/* Warnings kept; past that, one last warning says how many more there were. */
#define SR_MAX_WARNINGS 64
#define SR_MAX_CGROUP_WEIGHTS 64
#define SR_MAX_AFFINITY 64

struct sr_run_opts {
	const char *path;
	const char *buffer;		/* --buffer: which buffer of the file (NULL: chosen) */
	struct sr_trace_watch *watch;	/* shared with a guard process, or NULL */
	int threads;			/* --threads: struct sr_trace_opts.threads */
	int hz;				/* default 250 */
	const char *topology;		/* spec string or NULL: assumed flat */
	bool topology_beside;		/* NULL topology: TRACE.machine/ if it is there */
	const char *policies[SR_MAX_POLICIES];
	int nr_policies;
	bool root_cgroup;		/* --assume-root-cgroup */
	bool probes_measure_only;	/* --probes-measure-only */
	struct sr_cgroup_weight cgroup_weights[SR_MAX_CGROUP_WEIGHTS];	/* --cgroup-weight */
	int nr_cgroup_weights;
	struct sr_cgroup_member cgroup_members[SR_MAX_CGROUP_WEIGHTS];	/* --cgroup-member */
	int nr_cgroup_members;
	const char *affinity[SR_MAX_AFFINITY];	/* --affinity PID=CPULIST, as given */
	int nr_affinity;
	struct sr_analysis_opts an;	/* what the analyses are asked (migration cost, top...) */
	/* called every 64Ki events while reading, e.g. for a progress line; may be NULL */
	void (*progress)(void *data, uint64_t events, uint64_t ts);
	void *progress_data;
};

/* The analyses' per-event callbacks, each with its list of takers (struct sr_run). */
enum { SR_RUN_EVENT, SR_RUN_PLACEMENT, SR_RUN_WAKEUP, SR_RUN_RUN, SR_RUN_NR_HOOKS };

struct sr_run {
	struct sr_run_opts opts;
	struct sr_trace *trace;
	const struct sr_trace_info *info;
	struct sr_topo topo;
	struct sr_machine machine;	/* what a --topology snapshot said besides topology */
	struct sr_affinity *affinity;	/* the snapshot's and --affinity's, by pid (setup.c) */
	int nr_affinity;
	struct sr_state state;
	struct sr_policy policy[SR_MAX_POLICIES];
	int nr_policies;
	struct sr_policy ref;		/* the recorded kernel's model, which the state follows */
	bool has_ref;
	int ref_index;			/* the policy identical to ref, -1 none */
	struct sr_decision *scratch;	/* reused by every placement's decisions */
	char policy_note[192];		/* how the policies were chosen */
	char found_topology[4096];	/* TRACE.machine/, when opts.topology_beside found it */
	struct sr_view view;		/* what the analyses see of all this */
	struct sr_analysis *an;		/* nr_an, in report order */
	int nr_an;
	/* per callback, the analyses taking part that have it, in report order */
	struct sr_analysis **hooked[SR_RUN_NR_HOOKS];
	int nr_hooked[SR_RUN_NR_HOOKS];
	int nr_silent;			/* CPUs without any event */
	uint64_t nr_events;		/* read so far */
	bool filtered;			/* --time, --pid, --comm or --cpu given: seen() asks */
	bool can_stop;			/* explain: some analysis may end the pass (ops->done) */
	bool stopped;			/* ... and did, before the trace's end */
	char *warnings[SR_MAX_WARNINGS];	/* whole sentences, never cut */
	int nr_warnings;
	int nr_warnings_dropped;
};

int sr_run_open(struct sr_run *r, const struct sr_run_opts *o, struct sr_err *err);
int sr_run_exec(struct sr_run *r, struct sr_err *err);
/*
 * The same run fed by hand (unit tests of analyses): @r zeroed, @info
 * describing the trace (it must outlive the run), then events in order,
 * then sr_run_end() with the trace's last timestamp.  sr_run_feed() returns
 * 0, -errno, or a positive value when the pass is complete (explain has its
 * answer): feed no more.
 */
int sr_run_init(struct sr_run *r, const struct sr_run_opts *o, const struct sr_trace_info *info,
		struct sr_err *err);
int sr_run_feed(struct sr_run *r, const struct sr_event *ev);
void sr_run_end(struct sr_run *r, uint64_t end);
/*
 * Build the report object into *@out; 0, -ENOMEM, or an analysis' error
 * (-EIO: the --decisions stream could not be written), with a message.
 */
int sr_run_build_report(struct sr_run *r, json_t **out, struct sr_err *err);
/* The same, NULL on any failure. */
json_t *sr_run_report(struct sr_run *r);
/* The same report as text for a person (src/run/report-text.c); warnings are the caller's. */
void sr_run_print(struct sr_run *r, FILE *f);
void sr_run_close(struct sr_run *r);
/* The run's instance of an analysis, or NULL when it did not take part. */
const struct sr_analysis *sr_run_analysis(const struct sr_run *r,
					  const struct sr_analysis_ops *ops);
void sr_run_warn(struct sr_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* SR_RUN_H */
