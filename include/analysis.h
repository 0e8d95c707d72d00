/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Analyses layer: the analysis vtable.  An analysis consumes completed
 * wakeups (and, if it wants, raw events, placements and switch-ins) through
 * a read-only view of the run, and writes one JSON section of the report.
 * Like perf sched, each analysis plugs in only the callbacks it needs.
 *
 * Like rtla's tool_ops, every callback receives the analysis' own handle:
 * its ops, the view, and the data it keeps.  No analysis sees the run.
 */
#ifndef SR_ANALYSIS_H
#define SR_ANALYSIS_H

#include <stdio.h>
#include <jansson.h>
#include "policy.h"
#include "state.h"
#include "trace.h"

#define SR_MAX_POLICIES 16

/* Which command runs: analyses read it to decide whether to take part. */
enum sr_run_mode { SR_MODE_ANALYZE, SR_MODE_EXPLAIN, SR_MODE_DIFF };

/*
 * --time, --pid, --comm, --cpu: which wakeups the analyses see (the state
 * still follows every event, or it could not be rebuilt).  A wakeup passes
 * when its waking is in [start_ns, end_ns], its task is pid (or named
 * comm), and the CPU the kernel chose is in cpus.  All zero: no filter.
 */
struct sr_filter {
	bool has_start, has_end;
	uint64_t start_ns, end_ns;
	int pid;			/* 0: any */
	char comm[16];			/* "": any */
	bool has_cpus;
	struct sr_cpumask cpus;
};

bool sr_filter_time(const struct sr_filter *f, uint64_t ts);
/* Whether the analyses see this placement of @pid named @comm, chosen @cpu, at @ts. */
bool sr_filter_pass(const struct sr_filter *f, uint64_t ts, int pid, const char *comm, int cpu);

/*
 * batch: a dataset's per-wakeup tables (analyses/rows.c), gzip NDJSON with
 * one type per column.  @identity holds the trace's columns (path, hash,
 * kernel...), which lead every row; the caller may fill it after the run
 * is opened, before the pass.
 */
struct sr_rows_opts {
	const char *wakeups;		/* one row per placed wakeup and fork placement */
	const char *decisions;		/* one row per such placement and policy */
	json_t *identity;
};

/* What a command asks of the analyses. */
struct sr_analysis_opts {
	enum sr_run_mode mode;
	int64_t migration_cost_ns;	/* cache-hot window */
	int top;			/* bound on report lists */
	const char *decisions;		/* NDJSON stream of every placed wakeup, or NULL */
	const struct sr_rows_opts *rows;	/* dataset tables, or NULL */
	int64_t idle_threshold_ns;	/* work conservation: shortest episode reported */
	/* explain: the wakeup of pid at (nearest to) at_ns, or the index-th placed wakeup */
	int explain_pid;
	int64_t explain_at_ns;
	uint64_t explain_index;
	struct sr_filter filter;
	/* pictures and exports */
	const char *plot;		/* --svg / --png FILE: drawn after the run, or NULL */
	int64_t window_ns;		/* explain's picture: shown before the waking (4x after) */
	const char *perfetto;		/* --perfetto FILE: Chrome JSON trace, or NULL */
};

/* What every analysis may read, owned by the run, read-only. */
struct sr_view {
	const struct sr_analysis_opts *opts;
	const struct sr_trace_info *info;
	const struct sr_topo *topo;
	const struct sr_state *state;
	const struct sr_policy *policy;	/* the policies replayed, nr_policies of them */
	int nr_policies;
	const char *policy_note;	/* how they were chosen */
};

struct sr_analysis;

struct sr_analysis_ops {
	const char *name;		/* the report section it writes */
	const char *help;
	/* Set a->data; leaving it NULL keeps the analysis out of this run. */
	int (*init)(struct sr_analysis *a);
	int (*event)(struct sr_analysis *a, const struct sr_event *ev);
	/* A sleeping task is being placed: the moment's context and each policy's answer. */
	int (*placement)(struct sr_analysis *a, const struct sr_wake_ctx *ctx,
			 const struct sr_brief *dec);
	int (*wakeup)(struct sr_analysis *a, const struct sr_wakeup *w);
	/* A task woken earlier starts running on @cpu; t->note describes that wakeup. */
	int (*run)(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts);
	/* Add the section to @report; returns 0 or -errno. */
	int (*report)(struct sr_analysis *a, json_t *report);
	/* The same result as text, for analyze's text report (NULL: none). */
	void (*print)(struct sr_analysis *a, FILE *f);
	void (*fini)(struct sr_analysis *a);
	/*
	 * explain only: true once the analysis needs no more events (NULL:
	 * never).  The run stops reading when every analysis that has one
	 * says so, and warns that the trace was read only that far.
	 */
	bool (*done)(const struct sr_analysis *a);
};

/* One analysis in one run. */
struct sr_analysis {
	const struct sr_analysis_ops *ops;
	const struct sr_view *view;
	void *data;			/* the analysis' own state, from init */
};

/* The analyses compiled in, in report order (analyses/registry.c). */
const struct sr_analysis_ops *const *sr_analyses(int *nr);

/* ------------------------------------------------------------ explain */

extern const struct sr_analysis_ops sr_explain_analysis;

/*
 * After a --wakeup N run: the pid and time of placed wakeup N, to explain in
 * a second run; -ENOENT when the trace has fewer.
 */
int sr_explain_target(const struct sr_analysis *a, int *pid, int64_t *at);
/* After a --pid/--at run: whether a wakeup of that pid was found. */
bool sr_explain_found(const struct sr_analysis *a);
/* The explanation as text (the JSON rendering is the report's "explain" section). */
void sr_explain_print(const struct sr_analysis *a, FILE *f);

/*
 * The wakeup's window as a picture, FILE.svg or FILE.png: the CPUs that
 * mattered, running / runnable / idle, the waking, each policy's answer, the
 * kernel's choice, when the task ran.  @tl is the run's timeline.
 */
int sr_explain_plot(const struct sr_analysis *ex, const struct sr_analysis *tl,
		    const char *path, struct sr_err *err);

/* ------------------------------------------------------------ timeline */

/* Per-CPU occupancy over a time window, for pictures (--svg/--png). */
extern const struct sr_analysis_ops sr_timeline_analysis;

/* The occupancy map of every CPU over the window, as FILE.svg or FILE.png. */
int sr_timeline_plot(const struct sr_analysis *tl, const char *path, struct sr_err *err);

/* ------------------------------------------------------------ diff */

extern const struct sr_analysis_ops sr_diff_analysis;

/* The comparison as text (the JSON rendering is the report's "diff" section). */
void sr_diff_print(const struct sr_analysis *a, FILE *f);
/* The comparison as a picture: different answers by step and CPU distance, tasks most hit. */
int sr_diff_plot(const struct sr_analysis *a, const char *path, struct sr_err *err);

#endif /* SR_ANALYSIS_H */
