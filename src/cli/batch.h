/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to batch: one trace into its partition of the dataset
 * (src/cli/batch-trace.c), and the command that runs many of them in
 * parallel processes (src/cli/cmd-batch.c).  docs/batch.md describes the
 * dataset.
 */
#ifndef SR_BATCH_H
#define SR_BATCH_H

#include "cli.h"

enum sr_batch_status { SR_B_OK, SR_B_REFUSED, SR_B_FAILED, SR_B_NR };

/* What every trace of one batch shares. */
struct sr_batch {
	const char *dir;		/* the dataset */
	struct sr_run_opts run;		/* options of every run (path and topology per trace) */
	const char *topology;		/* --topology for every trace, or NULL: found per trace */
	char options[2048];		/* the options that change results, as one string */
};

/* One trace: the path as given, and a topology its list line named. */
struct sr_batch_item {
	const char *path;
	const char *topology;		/* NULL: --topology or found; "-": none */
	char id[17];			/* names its files: a hash of the path */
	char key[65];			/* what a rerun must match to skip it */
	char topo_used[4096];		/* the topology it runs with, "" none */
};

/* The outcome of one trace, as its ledger (_batch/ID.json) keeps it. */
struct sr_batch_result {
	enum sr_batch_status status;
	char message[512];
	uint64_t events;
};

const char *sr_batch_status_name(enum sr_batch_status s);
/* Create the dataset's folders; 0 or -errno. */
int sr_batch_prepare(struct sr_batch *b, struct sr_err *err);
/* Name the item's files, find its topology and the key a rerun compares. */
void sr_batch_item_init(const struct sr_batch *b, struct sr_batch_item *it);
/* True when a previous run left this trace done with the same key and file. */
bool sr_batch_done(const struct sr_batch *b, const struct sr_batch_item *it,
		   struct sr_batch_result *res);
/* Analyse one trace into the dataset (in a child process); 0 once its outcome is recorded. */
int sr_batch_trace(const struct sr_batch *b, const struct sr_batch_item *it,
		    struct sr_batch_result *res);
/*
 * After the child ended: its result from the ledger, or, when it died
 * without one (signal, timeout), record it as failed with @why.
 */
void sr_batch_collect(const struct sr_batch *b, const struct sr_batch_item *it,
		      const char *why, struct sr_batch_result *res);

#endif /* SR_BATCH_H */
