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
	void (*fini)(struct sr_analysis *a);
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

/* ------------------------------------------------------------ diff */

extern const struct sr_analysis_ops sr_diff_analysis;

/* The comparison as text (the JSON rendering is the report's "diff" section). */
void sr_diff_print(const struct sr_analysis *a, FILE *f);

#endif /* SR_ANALYSIS_H */
