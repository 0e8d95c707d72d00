// SPDX-License-Identifier: GPL-2.0
/* schedreplay diff: two policies on one trace, and what the difference cost. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

#define DIFF_OPTS (SR_O_RUN | SR_O_OUTPUT | SR_O_TEXT | SR_O_FILTER | SR_O_PLOT)

static void diff_usage(FILE *f)
{
	fprintf(f, "usage: schedreplay diff TRACE --policy A --policy B [options]\n\n"
		   "Replay every placed wakeup through policies A and B: where they agree, where\n"
		   "they differ and at which step, which one the kernel agreed with, the tasks\n"
		   "most affected, and an estimate of the wakeup latency B would have saved.\n\n");
	sr_cli_opts_help(f, DIFF_OPTS);
}

static int write_json(const struct sr_cli *cli, struct sr_run *r, const struct sr_cli_out *out)
{
	struct sr_err err = { "" };
	json_t *rep;
	int ret = sr_run_build_report(r, &rep, &err);

	if (ret)
		return sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg);
	json_object_del(rep, "cpus");
	json_object_set_new(rep, "schema", json_string("schedreplay-diff/1"));
	ret = sr_cli_write_json(cli, rep, out);
	json_decref(rep);
	return ret;
}

static int draw(const struct sr_run *r, const char *path, struct sr_err *err)
{
	return sr_diff_plot(sr_run_analysis(r, &sr_diff_analysis), path, err);
}

int sr_cmd_diff(const struct sr_cli *cli, int argc, char **argv)
{
	struct sr_run_opts o;
	struct sr_cli_out out;
	struct sr_run *r;
	int ret;

	ret = sr_cli_parse_run(cli, argc, argv, DIFF_OPTS, diff_usage, &o, &out);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	if (o.nr_policies != 2)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "diff needs exactly two --policy (got %d)", o.nr_policies);
	o.an.mode = SR_MODE_DIFF;
	ret = sr_cli_run_progress(cli, &o, out.progress, &r);
	if (ret)
		return ret;
	if (!sr_run_analysis(r, &sr_diff_analysis))
		ret = sr_cli_error(cli, SR_EXIT_FAIL, "internal: the diff did not run");
	else if ((ret = sr_cli_plot(cli, &o, draw, r)))
		;
	else if (out.json)
		ret = write_json(cli, r, &out);
	else
		ret = sr_cli_write_text(cli, r, sr_diff_print,
					sr_run_analysis(r, &sr_diff_analysis), &out);
	sr_run_close(r);
	free(r);
	return ret;
}
