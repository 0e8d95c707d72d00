// SPDX-License-Identifier: GPL-2.0
/* diff as text: the same struct diff.c renders as JSON, for a person. */
#include <inttypes.h>
#include <stdio.h>
#include "diff.h"

static const char *const det_rows[SR_DET_NR] = {
	"both determined", "only A determined", "only B determined", "neither determined",
};

static void print_pct(FILE *f, uint64_t n, uint64_t of)
{
	if (of)
		fprintf(f, " (%5.1f%%)", 100.0 * (double)n / (double)of);
	else
		fprintf(f, "%9s", "");
}

static void print_table(FILE *f, const struct sr_diff *d)
{
	fprintf(f, "  %-20s %19s %19s\n", "answers", "same CPU", "different CPUs");
	for (int i = 0; i < SR_DET_NR; i++) {
		fprintf(f, "  %-20s %10" PRIu64, det_rows[i], d->same[i]);
		print_pct(f, d->same[i], d->placed);
		fprintf(f, " %10" PRIu64, d->differ[i]);
		print_pct(f, d->differ[i], d->placed);
		fputc('\n', f);
	}
	fprintf(f, "  %-20s %10" PRIu64, "all", sr_diff_total(d->same));
	print_pct(f, sr_diff_total(d->same), d->placed);
	fprintf(f, " %10" PRIu64, sr_diff_total(d->differ));
	print_pct(f, sr_diff_total(d->differ), d->placed);
	fputc('\n', f);
}

/* The inputs the differing answers rest on, most first, and what would decide each. */
static void print_blocked(FILE *f, const struct sr_diff *d)
{
	uint64_t undet = sr_diff_total(d->differ) - d->differ[SR_DET_BOTH];
	int order[SR_DIFF_NR_DEPS], n = sr_diff_blocking(d, order);

	if (!undet)
		return;
	fprintf(f, "\n%" PRIu64 " different answers rest on inputs the trace cannot show "
		"(a wakeup may read several):\n", undet);
	for (int i = 0; i < n; i++) {
		int best = order[i];

		fprintf(f, "  %-18s %8" PRIu64 "  (A %" PRIu64 ", B %" PRIu64 ")\n",
			sr_dep_name(1u << best), d->blocked[best][2], d->blocked[best][0],
			d->blocked[best][1]);
		fprintf(f, "      would decide: %s\n", sr_diff_decider_hint(best));
	}
}

static void print_disagreements(FILE *f, const struct sr_diff *d)
{
	fprintf(f, "\nDifferent answers, by the steps that decided (A / B):\n");
	for (int i = 0; i < SR_DIFF_NR_BY; i++)
		for (int j = 0; j < SR_DIFF_NR_BY; j++)
			if (d->by[i][j])
				fprintf(f, "  %-20s / %-20s %8" PRIu64 "\n", sr_decider_name(i),
					sr_decider_name(j), d->by[i][j]);
	fprintf(f, "By distance between A's and B's CPU: same core %" PRIu64 ", same LLC %" PRIu64
		", cross-LLC %" PRIu64 ", cross-node %" PRIu64 "\n", d->rel[SR_REL_SAME_CORE],
		d->rel[SR_REL_SAME_LLC], d->rel[SR_REL_CROSS_LLC], d->rel[SR_REL_CROSS_NODE]);
	fprintf(f, "The kernel chose as A %" PRIu64 ", as B %" PRIu64 ", neither %" PRIu64 "\n",
		d->a_kernel, d->b_kernel, d->neither);
}

static void print_counterfactual(FILE *f, const struct sr_diff *d)
{
	const char *why = sr_diff_not_estimated(d);

	fprintf(f, "\nCounterfactual cost (an ESTIMATE): B's CPU was idle at the waking in %"
		PRIu64 " disagreements, busy in %" PRIu64 ".\n", d->b_idle, d->b_busy);
	if (why)
		fprintf(f, "  not estimated: %s\n", why);
	else
		fprintf(f, "  where the kernel did what A did and B's CPU was idle (%" PRIu64
			" cases), B would have saved about %.3f ms of wakeup latency in all\n",
			d->est_cases, (double)d->est_gain_ns / 1e6);
	fprintf(f, "  (%s)\n", SR_DIFF_METHOD);
}

static void print_tasks(FILE *f, struct sr_diff *d, int top)
{
	int n = 0;

	sr_diff_sort_tasks(d);
	for (size_t i = 0; i < d->tasks.nr_slots && n < top; i++) {
		const struct sr_diff_task *t = sr_pidtab_slot(&d->tasks, i);
		char comm[SR_TEXT_SIZE(SR_COMM_LEN) + 16];

		if (!t->pid)
			continue;
		if (!n++)
			fprintf(f, "\nTasks most affected:\n");
		sr_text(t->comm, comm, sizeof(comm));
		fprintf(f, "  %7d %s %6" PRIu64 " disagreements", t->pid,
			sr_text_pad(comm, 16, comm, sizeof(comm)), t->disagreements);
		if (t->est_gain_ns)
			fprintf(f, ", est. %.3f ms saved by B", (double)t->est_gain_ns / 1e6);
		fputc('\n', f);
	}
}

/* Forks and execs (the slow path), a line each when there were any. */
static void print_apart(FILE *f, const char *what, const struct sr_diff_apart *ap)
{
	if (!ap->placed)
		return;
	fprintf(f, "%s: %" PRIu64 " placed, %" PRIu64 " on different CPUs (%" PRIu64
		" with both answers determined)", what, ap->placed, ap->differ, ap->differ_det);
	if (ap->differ)
		fprintf(f, "; the kernel did as A %" PRIu64 ", as B %" PRIu64 ", neither %" PRIu64,
			ap->a_kernel, ap->b_kernel, ap->neither);
	fputc('\n', f);
}

void sr_diff_print(const struct sr_analysis *a, FILE *f)
{
	const struct sr_view *v = a->view;
	struct sr_diff *d = a->data;

	fprintf(f, "A = %s, B = %s: %" PRIu64 " placed wakeups\n", v->policy[0].name,
		v->policy[1].name, d->placed);
	print_table(f, d);
	print_blocked(f, d);
	if (sr_diff_total(d->differ))
		print_disagreements(f, d);
	print_counterfactual(f, d);
	print_tasks(f, d, v->opts->top);
	if (d->forks.placed || d->execs.placed)
		fputc('\n', f);
	print_apart(f, "Fork placements", &d->forks);
	print_apart(f, "Exec placements", &d->execs);
}
