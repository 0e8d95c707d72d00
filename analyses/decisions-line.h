/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the decisions analysis: a placement's line as plain data while
 * it waits for the switch-in, and the one jansson tree every line is
 * rendered through (decisions-line.c).
 */
#ifndef SR_DECISIONS_LINE_H
#define SR_DECISIONS_LINE_H

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

#define DL_STRS 64

/* The same json_t tree for every line: only its values change. */
struct dline {
	json_t *root, *comm, *time, *flags;
	json_t *index, *ts, *pid, *waker_pid, *waker_cpu, *prev_cpu, *cpu, *wait, *ran_on;
	void *it_kind, *it_actual, *it_wait, *it_ran_on, *it_rel[3];
	json_t *rel, *pols;
	int nr_pol;
	struct dl_pol {
		json_t *obj, *cpu, *alt, *deps;
		void *it_cpu, *it_alt, *it_sync, *it_det, *it_by;
	} *pol;
	/* constant strings by address: the names come from fixed tables */
	const char *str_key[DL_STRS];
	json_t *str_val[DL_STRS];
	int nr_str;
};

int sr_dline_init(struct dline *l, const struct sr_view *v);
/* Fill @h from a placement (h->dec must hold nr_policies). */
void sr_dline_hold(struct held *h, const struct sr_wakeup *w, const struct sr_view *v);
/* The tree, set to @h's values; NULL when out of memory. */
const json_t *sr_dline_render(struct dline *l, const struct held *h);
void sr_dline_free(struct dline *l);

#endif /* SR_DECISIONS_LINE_H */
