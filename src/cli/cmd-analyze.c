// SPDX-License-Identifier: GPL-2.0
/*
 * schedreplay analyze: one pass over a trace, one report: text for a
 * person on a terminal, JSON otherwise (--format says which).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

#define ANALYZE_OPTS (SR_O_RUN | SR_O_OUTPUT | SR_O_ANALYZE | SR_O_FILTER | SR_O_PLOT | \
		      SR_O_FORMAT | SR_O_DECISIONS | SR_O_PERFETTO)

static void analyze_usage(FILE *f)
{
	fprintf(f, "usage: schedreplay analyze TRACE [options]\n\n"
		   "Rebuild every CPU's runqueue from a trace-cmd trace.dat, account every wakeup,\n"
		   "replay the placement policies and report: each policy's agreement with the\n"
		   "kernel, placements by class, the worst wakeups, per-task and per-CPU tables.\n"
		   "Text on a terminal, JSON otherwise (docs/report-schema.md).\n\n");
	sr_cli_opts_help(f, ANALYZE_OPTS);
}

static int draw(const struct sr_run *r, const char *path, struct sr_err *err)
{
	return sr_timeline_plot(sr_run_analysis(r, &sr_timeline_analysis), path, err);
}

/* Text where a person reads it: stdout a terminal and no -o file, unless --format said. */
static bool wants_text(const struct sr_cli_out *out)
{
	if (out->format_given)
		return !out->json;
	return !out->path && isatty(STDOUT_FILENO);
}

int sr_cmd_analyze(const struct sr_cli *cli, int argc, char **argv)
{
	struct sr_err err = { "" };
	struct sr_run_opts o;
	struct sr_cli_out out;
	struct sr_run *r;
	json_t *rep;
	int ret;

	ret = sr_cli_parse_run(cli, argc, argv, ANALYZE_OPTS, analyze_usage, &o, &out);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	if (o.an.decisions && !strcmp(o.an.decisions, "-") && !out.path)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "--decisions - and the report would "
				    "both go to stdout: give the report a file with -o FILE");
	o.an.mode = SR_MODE_ANALYZE;
	ret = sr_cli_run_progress(cli, &o, out.progress, &r);
	if (ret)
		return ret;
	/* the report is built in both cases: it flushes --decisions and writes --perfetto */
	ret = sr_run_build_report(r, &rep, &err);
	if (ret)
		ret = sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg);
	else if (!(ret = sr_cli_plot(cli, &o, draw, r)))
		ret = wants_text(&out) ? sr_cli_write_report_text(cli, r, &out)
				       : sr_cli_write_json(cli, rep, &out);
	json_decref(rep);
	sr_run_close(r);
	free(r);
	return ret;
}
