// SPDX-License-Identifier: GPL-2.0
/* schedreplay explain: why one wakeup landed where it did, check by check. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

#define EXPLAIN_OPTS (SR_O_RUN | SR_O_OUTPUT | SR_O_TEXT | SR_O_EXPLAIN)

static void explain_usage(FILE *f)
{
	fprintf(f, "usage: schedreplay explain TRACE (--pid P --at T | --wakeup N) [options]\n\n"
		   "The wakeup of P nearest to T (or the N-th placed wakeup): the CPUs that\n"
		   "mattered, each policy's checks in kernel order with the numbers compared,\n"
		   "the kernel's actual choice, and what happened next.\n\n");
	sr_cli_opts_help(f, EXPLAIN_OPTS);
}

static json_int_t gi(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static const char *gs(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static void print_ns(FILE *f, json_int_t ns)
{
	fprintf(f, "%" JSON_INTEGER_FORMAT ".%09" JSON_INTEGER_FORMAT, ns / 1000000000,
		ns % 1000000000);
}

static void print_values(FILE *f, json_t *vals)
{
	const char *k;
	json_t *v;
	bool first = true;

	json_object_foreach(vals, k, v) {
		fprintf(f, "%s%s=", first ? "  [" : ", ", k);
		if (json_is_integer(v))
			fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		else
			fprintf(f, "%.0f", json_real_value(v));
		first = false;
	}
	if (!first)
		fputc(']', f);
}

static void print_decision(FILE *f, const char *label, json_t *d)
{
	size_t i;
	json_t *s;

	if (json_is_null(json_object_get(d, "cpu"))) {
		fprintf(f, "  %s: %s\n", label, gs(d, "error"));
		return;
	}
	fprintf(f, "  %s -> CPU %" JSON_INTEGER_FORMAT ", decided by %s%s\n", label,
		gi(d, "cpu"), gs(d, "decided_by"),
		json_is_true(json_object_get(d, "determined")) ? "" : " (undetermined)");
	json_array_foreach(json_object_get(d, "trail"), i, s) {
		fprintf(f, "    %2zu. %s: %s -> %s", i + 1, gs(s, "fn"), gs(s, "check"),
			gs(s, "result"));
		if (json_is_integer(json_object_get(s, "cpu")))
			fprintf(f, " (CPU %" JSON_INTEGER_FORMAT ")", gi(s, "cpu"));
		print_values(f, json_object_get(s, "values"));
		fputc('\n', f);
	}
	if (json_array_size(json_object_get(d, "depends_on"))) {
		fprintf(f, "    depends on inputs the trace cannot show:");
		json_array_foreach(json_object_get(d, "depends_on"), i, s)
			fprintf(f, " %s", json_string_value(s));
		fputc('\n', f);
	}
}

static void print_cpus(FILE *f, json_t *cpus)
{
	size_t i, j;
	json_t *c, *r;

	fprintf(f, "\nCPUs that mattered, at the sched_waking:\n"
		   "  CPU  roles              curr   nr_running  load_weight  load_avg  util_avg\n");
	json_array_foreach(cpus, i, c) {
		char roles[64] = "";

		json_array_foreach(json_object_get(c, "roles"), j, r) {
			if (j)
				strncat(roles, ",", sizeof(roles) - strlen(roles) - 1);
			strncat(roles, json_string_value(r), sizeof(roles) - strlen(roles) - 1);
		}
		fprintf(f, "  %3" JSON_INTEGER_FORMAT "  %-16s %6" JSON_INTEGER_FORMAT
			"  %10" JSON_INTEGER_FORMAT "  %11" JSON_INTEGER_FORMAT "  %8"
			JSON_INTEGER_FORMAT "  %8" JSON_INTEGER_FORMAT "%s%s\n", gi(c, "cpu"), roles,
			gi(c, "curr_pid"), gi(c, "nr_running"), gi(c, "load_weight"),
			gi(c, "load_avg"), gi(c, "util_avg"),
			json_is_true(json_object_get(c, "idle")) ? "  idle" : "",
			json_is_true(json_object_get(c, "uncertain")) ? "  (uncertain)" : "");
	}
}

static void print_text(FILE *f, json_t *x)
{
	json_t *next = json_object_get(x, "next"), *p;
	size_t i;

	fprintf(f, "Wakeup #%" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT " (%s) at ",
		gi(x, "wakeup"), gi(x, "pid"), gs(x, "comm"));
	print_ns(f, gi(x, "ts_ns"));
	fprintf(f, " s: %s wakeup by pid %" JSON_INTEGER_FORMAT " on CPU %" JSON_INTEGER_FORMAT
		", prev CPU %" JSON_INTEGER_FORMAT "\n", gs(x, "class"), gi(x, "waker_pid"),
		gi(x, "waker_cpu"), gi(x, "prev_cpu"));
	fprintf(f, "The kernel chose CPU %" JSON_INTEGER_FORMAT "%s%s.", gi(x, "cpu"),
		json_object_get(x, "actual") && !json_is_null(json_object_get(x, "actual")) ?
		" = " : "", gs(x, "actual"));
	if (gi(x, "since_switch_out_ns") >= 0)
		fprintf(f, " The task had switched out %.1f us before%s.",
			(double)gi(x, "since_switch_out_ns") / 1e3,
			json_is_true(json_object_get(x, "cache_hot")) ? " (cache-hot)" : "");
	fputc('\n', f);
	if (strcmp(gs(x, "class"), "placed"))
		fprintf(f, "No CPU selection ran: the task was %s.\n",
			strcmp(gs(x, "class"), "runnable") ? "in an unknown state" :
			"still running or queued");
	if (json_object_get(x, "cpus"))
		print_cpus(f, json_object_get(x, "cpus"));
	if (json_is_boolean(json_object_get(x, "sync_guess")))
		fprintf(f, "\nWF_SYNC is not in the trace; from how the wakeup was issued (%s) the "
			"analyses assume it %s.\n", json_is_true(json_object_get(x, "sync_guess")) ?
			"a task, in task context" : "interrupt context or the idle task",
			json_is_true(json_object_get(x, "sync_guess")) ? "set" : "clear");
	json_array_foreach(json_object_get(x, "policies"), i, p) {
		fprintf(f, "\nPolicy %s (%s)%s:\n", gs(p, "policy"), gs(p, "kernel_range"),
			json_is_true(json_object_get(p, "matches_kernel")) ? ", matches the kernel" :
			", differs from the kernel");
		print_decision(f, json_object_get(p, "sync_1") ? "if not WF_SYNC" : "decision",
			       json_object_get(p, "sync_0"));
		if (json_object_get(p, "sync_1"))
			print_decision(f, "if WF_SYNC", json_object_get(p, "sync_1"));
	}
	fprintf(f, "\nThen: enqueued on CPU %" JSON_INTEGER_FORMAT " while %s (%"
		JSON_INTEGER_FORMAT ") ran there with nr_running %" JSON_INTEGER_FORMAT "; ",
		gi(x, "cpu"), gs(next, "chosen_cpu_curr_comm"), gi(next, "chosen_cpu_curr_pid"),
		gi(next, "chosen_cpu_nr_running"));
	if (json_is_true(json_object_get(next, "ran")))
		fprintf(f, "switched in on CPU %" JSON_INTEGER_FORMAT " after %.1f us.\n",
			gi(next, "on_cpu"), (double)gi(next, "waited_ns") / 1e3);
	else
		fprintf(f, "its switch-in was not seen (not recorded, or after the trace).\n");
}

static int first_pass(const struct sr_cli *cli, struct sr_run_opts *o)
{
	struct sr_run *r;
	int ret = sr_cli_run(cli, o, &r);

	if (ret)
		return ret;
	if (sr_explain_target(r, &o->explain_pid, &o->explain_at_ns))
		ret = sr_cli_error(cli, SR_EXIT_BAD_INPUT, "there is no placed wakeup #%" PRIu64
				   " in this trace", o->explain_index);
	o->explain_index = 0;
	sr_run_close(r);
	free(r);
	return ret;
}

int cmd_explain(const struct sr_cli *cli, int argc, char **argv)
{
	struct sr_run_opts o;
	struct sr_cli_out out;
	struct sr_run *r;
	json_t *rep, *x;
	int ret;

	ret = sr_cli_parse_run(cli, argc, argv, EXPLAIN_OPTS, explain_usage, &o, &out);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	if (!o.explain_index && (!o.explain_pid || o.explain_at_ns < 0))
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "explain needs --pid P --at T, or --wakeup N");
	o.mode = SR_MODE_EXPLAIN;
	if (o.explain_index && (ret = first_pass(cli, &o)))
		return ret;
	ret = sr_cli_run(cli, &o, &r);
	if (ret)
		return ret;
	rep = sr_run_report(r);
	x = rep ? json_object_get(rep, "explain") : NULL;
	if (!rep) {
		ret = sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	} else if (!x || json_is_null(x)) {
		ret = sr_cli_error(cli, SR_EXIT_BAD_INPUT, "no wakeup of pid %d in this trace",
				   o.explain_pid);
	} else if (out.json) {
		json_t *j = json_pack("{s:O, s:O, s:O, s:O}", "schema", json_object_get(rep, "schema"),
				      "trace", json_object_get(rep, "trace"), "explain", x,
				      "warnings", json_object_get(rep, "warnings"));

		ret = j ? sr_cli_write_json(cli, j, &out) : sr_cli_error(cli, SR_EXIT_FAIL,
									 "out of memory");
		json_decref(j);
	} else {
		ret = sr_cli_write_text(cli, print_text, x, r, &out);
	}
	json_decref(rep);
	sr_run_close(r);
	free(r);
	return ret;
}
