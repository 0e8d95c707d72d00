/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analysis vtable: an analysis consumes completed wakeups (and, if it
 * wants, raw events and switch-ins) and writes one JSON section of the
 * report.  Like perf sched, each analysis plugs in only the callbacks it
 * needs; all of them are optional but report.
 */
#ifndef SR_ANALYSIS_H
#define SR_ANALYSIS_H

#include <jansson.h>
#include "state.h"

struct sr_run;

struct sr_analysis_ops {
	const char *name;		/* the report section it writes */
	const char *help;
	/* Set *priv; leaving it NULL keeps the analysis out of this run. */
	int (*init)(void **priv, const struct sr_run *run);
	int (*event)(void *priv, const struct sr_event *ev, const struct sr_run *run);
	/* A sleeping task is being placed: the moment's context and each policy's answer. */
	int (*placement)(void *priv, const struct sr_wake_ctx *ctx, const struct sr_brief *dec,
			 const struct sr_run *run);
	int (*wakeup)(void *priv, const struct sr_wakeup *w, const struct sr_run *run);
	int (*run)(void *priv, const struct sr_task *t, int cpu, uint64_t ts,
		   const struct sr_run *run);
	/* Add the section to @report; returns 0 or -errno. */
	int (*report)(void *priv, json_t *report, const struct sr_run *run);
	void (*fini)(void *priv);
};

/* explain: after a --wakeup N pass, the pid and time of wakeup N (-ENOENT if none). */
int sr_explain_target(const struct sr_run *run, int *pid, int64_t *at);

/* The analyses compiled in, in report order (analyses/registry.c). */
const struct sr_analysis_ops *const *sr_analyses(int *nr);

#endif /* SR_ANALYSIS_H */
