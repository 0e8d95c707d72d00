// SPDX-License-Identifier: GPL-2.0
/* schedreplay explain: why one wakeup landed where it did, check by check. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

#define EXPLAIN_OPTS (SR_O_RUN | SR_O_OUTPUT | SR_O_TEXT | SR_O_EXPLAIN | SR_O_FILTER | SR_O_PLOT)

static void explain_usage(FILE *f)
{
	fprintf(f, "usage: schedreplay explain TRACE (--pid P --at T | --wakeup N) [options]\n\n"
		   "The placement of P nearest to T (a wakeup, fork or exec; or placement N):\n"
		   "the CPUs that mattered, each policy's checks in kernel order with the\n"
		   "numbers compared, the kernel's actual choice, and what happened next.\n"
		   "It reads in one thread unless --threads says otherwise: it stops where its\n"
		   "answer is complete, and a decode thread would read past that point.\n\n");
	sr_cli_opts_help(f, EXPLAIN_OPTS);
}

/*
 * --wakeup N: a first run finds that wakeup's pid and time for the second.
 * Placements are numbered by the state alone, so it replays no policy
 * (--policy none): about half the cost of the second run.
 */
static int first_pass(const struct sr_cli *cli, struct sr_run_opts *o)
{
	struct sr_run_opts find = *o;
	struct sr_run *r;
	int ret;

	find.policies[0] = "none";
	find.nr_policies = 1;
	ret = sr_cli_run(cli, &find, &r);

	if (ret)
		return ret;
	if (sr_explain_target(sr_run_analysis(r, &sr_explain_analysis), &o->an.explain_pid,
			      &o->an.explain_at_ns))
		ret = sr_cli_error(cli, SR_EXIT_BAD_INPUT, "there is no placement #%" PRIu64
				   " in this trace", o->an.explain_index);
	o->an.explain_index = 0;
	sr_run_close(r);
	free(r);
	return ret;
}

static int draw(const struct sr_run *r, const char *path, struct sr_err *err)
{
	return sr_explain_plot(sr_run_analysis(r, &sr_explain_analysis),
			       sr_run_analysis(r, &sr_timeline_analysis), path, err);
}

static int write_json(const struct sr_cli *cli, const struct sr_run *r,
		      const struct sr_cli_out *out)
{
	struct sr_err err = { "" };
	json_t *rep, *j;
	int ret = sr_run_build_report((struct sr_run *)r, &rep, &err);

	if (ret)
		return sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg);
	j = json_pack("{s:s, s:O, s:O, s:O}", "schema", "schedreplay-explain/1",
		      "trace", json_object_get(rep, "trace"), "explain",
		      json_object_get(rep, "explain"), "warnings", json_object_get(rep, "warnings"));
	ret = j ? sr_cli_write_json(cli, j, out) : sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	json_decref(j);
	json_decref(rep);
	return ret;
}

int sr_cmd_explain(const struct sr_cli *cli, int argc, char **argv)
{
	const struct sr_analysis *ex;
	struct sr_run_opts o;
	struct sr_cli_out out;
	struct sr_run *r;
	int ret;

	ret = sr_cli_parse_run(cli, argc, argv, EXPLAIN_OPTS, explain_usage, &o, &out);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	if (o.an.explain_index && (o.an.explain_pid || o.an.explain_at_ns >= 0 ||
				   o.an.filter.comm[0] || o.an.filter.has_cpus))
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "explain takes --wakeup N or "
				    "--pid P --at T, not both (nor --wakeup with --comm or --cpu)");
	if (!o.an.explain_index && (!o.an.explain_pid || o.an.explain_at_ns < 0))
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "explain needs --pid P --at T, or --wakeup N");
	o.an.mode = SR_MODE_EXPLAIN;
	/*
	 * explain stops at the record its answer needs; a decode thread reads
	 * up to a ring ahead, into a part of the file the answer does not need
	 * (a corrupt page there would fail an explain one thread answers).
	 */
	if (!o.threads)
		o.threads = 1;
	if (o.an.explain_index && (ret = first_pass(cli, &o)))
		return ret;
	ret = sr_cli_run_progress(cli, &o, out.progress, &r);
	if (ret)
		return ret;
	ex = sr_run_analysis(r, &sr_explain_analysis);
	if (o.an.explain_at_ns > (int64_t)r->info->last_ts)
		ret = sr_cli_error(cli, SR_EXIT_BAD_INPUT, "--at %" PRId64 ".%09" PRId64 " s is "
				   "after the trace's last event (%" PRIu64 ".%09" PRIu64 " s)",
				   o.an.explain_at_ns / 1000000000, o.an.explain_at_ns % 1000000000,
				   r->info->last_ts / 1000000000, r->info->last_ts % 1000000000);
	else if (!sr_explain_found(ex))
		ret = sr_cli_error(cli, SR_EXIT_BAD_INPUT, "no wakeup of pid %d in this trace",
				   o.an.explain_pid);
	else if ((ret = sr_cli_plot(cli, &o, draw, r)))
		;
	else if (out.json)
		ret = write_json(cli, r, &out);
	else
		ret = sr_cli_write_text(cli, r, sr_explain_print, ex, &out);
	sr_run_close(r);
	free(r);
	return ret;
}
