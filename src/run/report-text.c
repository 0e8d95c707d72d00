// SPDX-License-Identifier: GPL-2.0
/*
 * The report as text (analyze on a terminal, --format text): the run's own
 * part here, each analysis' section through its print callback, from the
 * same results the JSON report renders.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* What --time, --pid, --comm, --cpu keep: the sections below count only that. */
static void print_filter(const struct sr_filter *flt, FILE *f)
{
	char cpus[128], comm[SR_TEXT_SIZE(SR_COMM_LEN)];

	if (!flt->pid && !flt->comm[0] && !flt->has_cpus && !flt->has_start && !flt->has_end)
		return;
	fprintf(f, "Only wakeups");
	if (flt->pid)
		fprintf(f, " of pid %d", flt->pid);
	if (flt->comm[0])
		fprintf(f, " of tasks named %s", sr_text(flt->comm, comm, sizeof(comm)));
	if (flt->has_cpus && !sr_cpulist_format(&flt->cpus, cpus, sizeof(cpus)))
		fprintf(f, " placed on CPUs %s", cpus);
	if (flt->has_start)
		fprintf(f, " from %.9f s", (double)flt->start_ns / 1e9);
	if (flt->has_end)
		fprintf(f, " until %.9f s", (double)flt->end_ns / 1e9);
	fprintf(f, " below the wakeup counts\n");
}

/* @s (a path, a release, ...) as text output shows it; freed by the caller. */
static char *text_of(const char *s)
{
	size_t size = SR_TEXT_SIZE(strlen(s));
	char *buf = malloc(size);

	return buf ? (char *)sr_text(s, buf, size) : NULL;
}

/* The file, release and clock come from the trace, the path from the user: any bytes. */
static void print_trace(const struct sr_run *r, FILE *f)
{
	const struct sr_trace_info *i = r->info;
	char *path = text_of(r->opts.path ? r->opts.path : "?");
	char *rel = text_of(i->release[0] ? i->release : "unknown");
	char *clock = text_of(i->clock[0] ? i->clock : "unknown");
	char *topo = text_of(r->opts.topology ? r->opts.topology : "");
	char *note = text_of(r->policy_note);

	fprintf(f, "Trace %s: kernel %s, %d CPUs, %.3f s from %.6f s, clock %s\n",
		path ? path : "?", rel ? rel : "?", i->nr_cpus,
		(double)(i->last_ts - i->first_ts) / 1e9, (double)i->first_ts / 1e9,
		clock ? clock : "?");
	fprintf(f, "Topology: %s%s%s%s\n", sr_topo_source_name(r->topo.source),
		r->opts.topology ? " from " : "", topo ? topo : "",
		r->opts.topology_beside ? " (found beside the trace; --topology overrides)" : "");
	fprintf(f, "Policies: %s\n", note ? note : "?");
	if (r->nr_affinity || r->state.affinity_broken)
		fprintf(f, "Affinity: %d task(s) given a mask (snapshot, --affinity), %" PRIu64
			" fork(s) inherited one, %" PRIu64 " mask(s) broken by the trace\n",
			r->nr_affinity, r->state.affinity_inherited, r->state.affinity_broken);
	free(path);
	free(rel);
	free(clock);
	free(topo);
	free(note);
	print_filter(&r->opts.an.filter, f);
}

static void print_wakeups(const struct sr_run *r, FILE *f)
{
	const struct sr_wakeup_counts *wc = &r->state.wc;
	uint64_t placed = wc->cls[SR_W_PLACED];

	fprintf(f, "\nWakeups: %" PRIu64 " placed (a CPU was chosen), %" PRIu64 " runnable, %"
		PRIu64 " unknown; %" PRIu64 " forks; %" PRIu64 " execs; %" PRIu64 " unpaired\n",
		placed, wc->cls[SR_W_RUNNABLE], wc->cls[SR_W_UNKNOWN], wc->wakeup_new,
		wc->exec_moved + wc->exec_stayed, wc->unpaired);
	fprintf(f, "  placed on prev %" PRIu64 " (%.1f%%), on the waker's CPU %" PRIu64
		" (%.1f%%), elsewhere %" PRIu64 " (%.1f%%); cache-hot %" PRIu64 "\n",
		wc->actual[SR_O_PREV], pct(wc->actual[SR_O_PREV], placed), wc->actual[SR_O_WAKER],
		pct(wc->actual[SR_O_WAKER], placed), wc->actual[SR_O_OTHER],
		pct(wc->actual[SR_O_OTHER], placed), wc->placed_hot);
	if (wc->exec)
		fprintf(f, "  execs: %" PRIu64 " moved by sched_exec(), %" PRIu64 " kept (%" PRIu64
			" replayed at an uncertain moment), %" PRIu64 " unresolved\n", wc->exec_moved,
			wc->exec_stayed, wc->exec_time_unknown, wc->exec_unresolved);
	if (wc->inferred || wc->uncertain)
		fprintf(f, "  CPU inferred (no sched_wakeup) %" PRIu64 ", uncertain %" PRIu64 "\n",
			wc->inferred, wc->uncertain);
}

/* perf sched's per-CPU view: how busy, how deep the queue. */
static void print_cpus(const struct sr_run *r, FILE *f)
{
	fprintf(f, "\n  %4s %8s %8s %8s %10s %8s\n", "CPU", "busy", "idle", "unknown",
		"mean_nr", "resyncs");
	for (int c = 0; c < r->info->nr_cpus; c++) {
		const struct sr_cpu_state *cs = &r->state.cpu[c];
		uint64_t all = cs->idle_ns + cs->busy_ns + cs->unknown_ns;
		uint64_t known = cs->idle_ns + cs->busy_ns;

		fprintf(f, "  %4d %7.1f%% %7.1f%% %7.1f%% ", c, pct(cs->busy_ns, all),
			pct(cs->idle_ns, all), pct(cs->unknown_ns, all));
		if (known)
			fprintf(f, "%10.2f", cs->nr_running_ns / (double)known);
		else
			fprintf(f, "%10s", "-");
		fprintf(f, " %8" PRIu64 "\n", cs->resyncs);
	}
}

void sr_run_print(struct sr_run *r, FILE *f)
{
	print_trace(r, f);
	print_wakeups(r, f);
	for (int i = 0; i < r->nr_an; i++)
		if (r->an[i].data && r->an[i].ops->print)
			r->an[i].ops->print(&r->an[i], f);
	print_cpus(r, f);
}
