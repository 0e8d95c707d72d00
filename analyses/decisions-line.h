/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the decisions analysis: a placement's line as plain data while
 * it waits for the switch-in, and the generator every line is written
 * through (decisions-line.c).
 */
#ifndef SR_DECISIONS_LINE_H
#define SR_DECISIONS_LINE_H

#include <yajl_gen.h>
#include "common.h"

/* A line held until its task switches in. */
struct held {
	int pid;
	bool live;			/* a line is held */
	uint8_t kind;			/* enum sr_wake_kind */
	uint64_t index, ts;
	int64_t wait_ns;		/* -1: unknown (null) */
	int ran_on;
	int waker_pid, waker_cpu, prev_cpu, cpu;
	const char *actual, *rel[3];
	unsigned int flags;		/* bit i: flag_names[i] */
	int nr_dec;			/* policies that ran (0 when none could) */
	char comm[SR_COMM_LEN];
	struct sr_brief *dec;		/* nr_policies, allocated once per task */
};

/* The generator every line is written through; only the bytes change. */
struct dline {
	yajl_gen g;
	struct sr_ndjson *out;
	int nr_pol;
	const struct sr_policy *policy;	/* the view's, nr_pol of them */
};

/* Lines go straight into @out's stage (yajl's print callback). */
int sr_dline_init(struct dline *l, const struct sr_view *v, struct sr_ndjson *out);
/* Fill @h from a placement (h->dec must hold nr_policies). */
void sr_dline_hold(struct held *h, const struct sr_wakeup *w, const struct sr_view *v);
/* @h's line, newline included, into the writer; 0 or -errno. */
int sr_dline_render(struct dline *l, const struct held *h);
void sr_dline_free(struct dline *l);

#endif /* SR_DECISIONS_LINE_H */
