// SPDX-License-Identifier: GPL-2.0
/* schedreplay analyze: one pass over a trace, one JSON report. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

#define ANALYZE_OPTS (SR_O_RUN | SR_O_OUTPUT | SR_O_ANALYZE)

static void analyze_usage(FILE *f)
{
	fprintf(f, "usage: schedreplay analyze TRACE [options]\n\n"
		   "Rebuild every CPU's runqueue from a trace-cmd trace.dat, account every wakeup,\n"
		   "replay the placement policies and print a JSON report (docs/report-schema.md).\n\n");
	sr_cli_opts_help(f, ANALYZE_OPTS);
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
	o.an.mode = SR_MODE_ANALYZE;
	ret = sr_cli_run(cli, &o, &r);
	if (ret)
		return ret;
	ret = sr_run_build_report(r, &rep, &err);
	ret = ret ? sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg) :
		    sr_cli_write_json(cli, rep, &out);
	json_decref(rep);
	sr_run_close(r);
	free(r);
	return ret;
}
