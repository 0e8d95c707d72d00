// SPDX-License-Identifier: GPL-2.0
/* schedreplay diff: two policies on one trace, and what the difference cost. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

#define DIFF_OPTS (SR_O_RUN | SR_O_OUTPUT | SR_O_TEXT)

static void diff_usage(FILE *f)
{
	fprintf(f, "usage: schedreplay diff TRACE --policy A --policy B [options]\n\n"
		   "Replay every placed wakeup through policies A and B: where they agree, where\n"
		   "they differ and at which step, which one the kernel agreed with, the tasks\n"
		   "most affected, and an estimate of the wakeup latency B would have saved.\n\n");
	sr_cli_opts_help(f, DIFF_OPTS);
}

static json_int_t geti(json_t *o, const char *path)
{
	char buf[128], *save = NULL, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	return json_is_integer(o) ? json_integer_value(o) : 0;
}

static void pct(FILE *f, const char *what, json_int_t n, json_int_t of)
{
	fprintf(f, "  %-34s %8" JSON_INTEGER_FORMAT, what, n);
	if (of)
		fprintf(f, "  (%.1f%%)", 100.0 * (double)n / (double)of);
	fputc('\n', f);
}

static void print_text(FILE *f, json_t *d)
{
	json_int_t placed = geti(d, "placed"), dis = geti(d, "disagree");
	json_t *cf = json_object_get(d, "counterfactual"), *it;
	size_t i;

	fprintf(f, "A = %s, B = %s: %" JSON_INTEGER_FORMAT " placed wakeups\n",
		json_string_value(json_object_get(d, "a")),
		json_string_value(json_object_get(d, "b")), placed);
	pct(f, "both determined, same CPU", geti(d, "agree"), placed);
	pct(f, "both determined, different CPUs", dis, placed);
	pct(f, "undetermined (unobservable inputs)", geti(d, "undetermined.count"), placed);
	if (dis) {
		fprintf(f, "\nDisagreements, by the steps that decided (A / B):\n");
		json_array_foreach(json_object_get(d, "by_step"), i, it)
			fprintf(f, "  %-20s / %-20s %8" JSON_INTEGER_FORMAT "\n",
				json_string_value(json_object_get(it, "a_decided_by")),
				json_string_value(json_object_get(it, "b_decided_by")),
				geti(it, "count"));
		fprintf(f, "By distance between A's and B's CPU: same core %" JSON_INTEGER_FORMAT
			", same LLC %" JSON_INTEGER_FORMAT ", cross-LLC %" JSON_INTEGER_FORMAT
			", cross-node %" JSON_INTEGER_FORMAT "\n", geti(d, "by_relation.same_core"),
			geti(d, "by_relation.same_llc"), geti(d, "by_relation.cross_llc"),
			geti(d, "by_relation.cross_node"));
		fprintf(f, "The kernel chose as A %" JSON_INTEGER_FORMAT ", as B %"
			JSON_INTEGER_FORMAT ", neither %" JSON_INTEGER_FORMAT "\n",
			geti(d, "kernel_chose.as_a"), geti(d, "kernel_chose.as_b"),
			geti(d, "kernel_chose.neither"));
	}
	fprintf(f, "\nCounterfactual cost (an ESTIMATE): B's CPU was idle at the waking in %"
		JSON_INTEGER_FORMAT " disagreements, busy in %" JSON_INTEGER_FORMAT ".\n",
		geti(cf, "b_cpu_idle"), geti(cf, "b_cpu_busy"));
	fprintf(f, "  where the kernel did what A did and B's CPU was idle (%" JSON_INTEGER_FORMAT
		" cases), B would have saved about %.3f ms of wakeup latency in all\n",
		geti(cf, "estimated_cases"), (double)geti(cf, "estimated_latency_saved_by_b_ns") / 1e6);
	fprintf(f, "  (%s)\n", json_string_value(json_object_get(cf, "method")));
	if (json_array_size(json_object_get(d, "tasks"))) {
		fprintf(f, "\nTasks most affected:\n");
		json_array_foreach(json_object_get(d, "tasks"), i, it)
			fprintf(f, "  %7" JSON_INTEGER_FORMAT " %-16s %6" JSON_INTEGER_FORMAT
				" disagreements, est. %.3f ms saved by B\n", geti(it, "pid"),
				json_string_value(json_object_get(it, "comm")),
				geti(it, "disagreements"),
				(double)geti(it, "estimated_latency_saved_by_b_ns") / 1e6);
	}
}

int cmd_diff(const struct sr_cli *cli, int argc, char **argv)
{
	struct sr_run_opts o;
	struct sr_cli_out out;
	struct sr_run *r;
	json_t *rep, *d;
	int ret;

	ret = sr_cli_parse_run(cli, argc, argv, DIFF_OPTS, diff_usage, &o, &out);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	if (o.nr_policies != 2)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "diff needs exactly two --policy (got %d)", o.nr_policies);
	o.mode = SR_MODE_DIFF;
	ret = sr_cli_run(cli, &o, &r);
	if (ret)
		return ret;
	rep = sr_run_report(r);
	d = rep ? json_object_get(rep, "diff") : NULL;
	if (!d) {
		ret = sr_cli_error(cli, SR_EXIT_FAIL, "cannot build the diff (out of memory)");
	} else if (out.json) {
		json_object_del(rep, "cpus");
		ret = sr_cli_write_json(cli, rep, &out);
	} else {
		ret = sr_cli_write_text(cli, print_text, d, r, &out);
	}
	json_decref(rep);
	sr_run_close(r);
	free(r);
	return ret;
}
