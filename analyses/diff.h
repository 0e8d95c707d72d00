/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to analyses/diff*.c: the comparison of two policies, kept in
 * memory by diff.c (which renders it as the report's "diff" section) and
 * rendered as text by diff-text.c and as a picture by plot-diff.c.
 */
#ifndef SR_DIFF_H
#define SR_DIFF_H

#include "analysis.h"

#define SR_DIFF_NR_BY	SR_BY_NR_DECIDERS
#define SR_DIFF_NR_DEPS	SR_NR_DEPS

/* Which of the two answers need no input the trace cannot show. */
enum sr_diff_det { SR_DET_BOTH, SR_DET_A_ONLY, SR_DET_B_ONLY, SR_DET_NEITHER, SR_DET_NR };

struct sr_diff_task {
	int pid;
	char comm[SR_COMM_LEN];
	uint64_t disagreements;
	int64_t est_gain_ns;		/* Σ actual wait where B's CPU was idle */
};

/* A disagreement waiting for its task to run, keyed by pid. */
struct sr_diff_pend {
	int pid;
	uint64_t index;
	bool b_idle, a_is_kernel;
};

/* Disagreements that found a CPU idle as B's: how long it then stayed idle, in O(CPUs). */
struct sr_diff_watch {
	uint64_t n, sum_start;
};

/* Fork or exec placements (the slow path), compared apart from the wakeups. */
struct sr_diff_apart {
	uint64_t placed, differ;	/* both answered; of those, different CPUs */
	uint64_t differ_det;		/* ... both answers determined */
	uint64_t a_kernel, b_kernel, neither;	/* of the different ones */
};

struct sr_diff {
	uint64_t placed;		/* placed wakeups both policies answered */
	struct sr_diff_apart forks, execs;
	uint64_t same[SR_DET_NR], differ[SR_DET_NR];	/* primary answers, by determinacy */
	/* differing answers that rest on an input: [input bit][0: A's, 1: B's, 2: either] */
	uint64_t blocked[SR_DIFF_NR_DEPS][3];
	uint64_t by[SR_DIFF_NR_BY][SR_DIFF_NR_BY];	/* [A's decider][B's decider] */
	uint64_t rel[SR_REL_NR];
	uint64_t a_kernel, b_kernel, neither;
	uint64_t b_idle, b_busy;
	uint64_t idle_for_n, idle_for_ns;	/* how long B's idle CPU stayed idle */
	struct sr_hist wait_a;		/* actual wait, where the kernel did what A did */
	uint64_t est_cases;
	int64_t est_gain_ns;
	struct sr_diff_watch *watch;	/* per CPU */
	struct sr_pidtab pend;		/* struct sr_diff_pend */
	struct sr_pidtab tasks;		/* struct sr_diff_task */
};

uint64_t sr_diff_total(const uint64_t *by_det);
/* What would decide an answer resting on input bit @i (a knob, an option, a recording). */
const char *sr_diff_decider_hint(int bit);
/* The input bits that block different answers, most first, into @order; how many. */
int sr_diff_blocking(const struct sr_diff *d, int order[SR_DIFF_NR_DEPS]);
/* Why the counterfactual is not estimated, or NULL when it is. */
const char *sr_diff_not_estimated(const struct sr_diff *d);
/* The tasks, most affected first (sorts the table: call once the run is over). */
void sr_diff_sort_tasks(struct sr_diff *d);

#define SR_DIFF_METHOD "for each disagreement where the kernel did what A did: if B's CPU " \
	"was idle at the waking, B would have run the task at once, saving the wait the task " \
	"actually had; busy B CPUs are not estimated"

#endif /* SR_DIFF_H */
