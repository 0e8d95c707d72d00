// SPDX-License-Identifier: GPL-2.0
/* The run every trace command shares (analyze, diff, explain), its progress line and pictures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

/* A progress line on stderr, from the first second on, at most four times a second. */
struct progress {
	struct timespec start, last;
	bool shown;
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void show_progress(void *data, uint64_t events, uint64_t ts)
{
	struct progress *p = data;
	struct timespec now;
	double run;

	clock_gettime(CLOCK_MONOTONIC, &now);
	run = since(&p->start, &now);
	if (run < 1.0 || (p->shown && since(&p->last, &now) < 0.25))
		return;
	p->last = now;
	p->shown = true;
	/* the total is not in the file's headers: the trace time reached says how far */
	fprintf(stderr, "\rschedreplay: %.1f M events read (%.2f M/s), at %.3f s of the trace ",
		(double)events / 1e6, (double)events / 1e6 / run, (double)ts / 1e9);
}

/* Open, stream, or say why not. */
int sr_cli_run_progress(const struct sr_cli *cli, const struct sr_run_opts *o, bool progress,
			struct sr_run **out)
{
	struct sr_err err = { "" };
	struct sr_run *r = calloc(1, sizeof(*r));
	struct progress p = { .shown = false };
	struct sr_run_opts ro = *o;
	int ret;

	*out = NULL;
	if (!r)
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	if (progress) {
		clock_gettime(CLOCK_MONOTONIC, &p.start);
		ro.progress = show_progress;
		ro.progress_data = &p;
	}
	/* under the guard (guard.c): tell the parent which file, and where in it */
	ro.watch = cli->watch;
	if (cli->watched_path)
		snprintf(cli->watched_path, cli->watched_path_size, "%s", o->path);
	/* no --topology: the snapshot `record` saved beside the trace; 'flat': none */
	if (ro.topology && !strcmp(ro.topology, "flat") && access("flat", F_OK))
		ro.topology = NULL;
	else
		ro.topology_beside = !ro.topology;
	ret = sr_run_open(r, &ro, &err);
	if (!ret)
		ret = sr_run_exec(r, &err);
	if (p.shown)
		fprintf(stderr, "\r\033[K");
	r->opts.progress = NULL;	/* @p is gone when we return */
	if (ret) {
		ret = sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg[0] ? err.msg :
				   strerror(-ret));
		sr_run_close(r);
		free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int sr_cli_run(const struct sr_cli *cli, const struct sr_run_opts *o, struct sr_run **out)
{
	return sr_cli_run_progress(cli, o, false, out);
}

int sr_cli_plot(const struct sr_cli *cli, const struct sr_run_opts *o,
		int (*draw)(const struct sr_run *r, const char *path, struct sr_err *err),
		const struct sr_run *r)
{
	struct sr_err err = { "" };
	int ret;

	if (!o->an.plot)
		return 0;
	ret = draw(r, o->an.plot, &err);
	return ret ? sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg) : 0;
}
