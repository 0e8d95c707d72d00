// SPDX-License-Identifier: GPL-2.0
/*
 * Options shared by the commands that run a trace (analyze, diff, explain):
 * one table, and each command states which options it accepts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

enum {
	OPT_MIGRATION_COST = 256, OPT_HZ, OPT_TOPOLOGY, OPT_POLICY, OPT_TOP, OPT_COMPACT,
	OPT_DECISIONS, OPT_IDLE_THRESHOLD, OPT_PID, OPT_AT, OPT_WAKEUP, OPT_JSON, OPT_ROOT_CGROUP,
	OPT_PROBES_MEASURE, OPT_BUFFER,
};

struct opt_desc {
	struct option lo;
	unsigned int flag;		/* enum sr_cli_opt */
	const char *help;
};

static const struct opt_desc opts[] = {
	{ { "migration-cost", required_argument, NULL, OPT_MIGRATION_COST }, SR_O_RUN,
	  "--migration-cost NS  cache-hot window (sysctl_sched_migration_cost), default 500000" },
	{ { "hz", required_argument, NULL, OPT_HZ }, SR_O_RUN,
	  "--hz N               CONFIG_HZ of the traced kernel (record_wakee decay), default 250" },
	{ { "topology", required_argument, NULL, OPT_TOPOLOGY }, SR_O_RUN,
	  "--topology ARG       machine snapshot dir, topology JSON, or a spec such as\n"
	  "                     sockets=2,llcs-per-socket=1,cores-per-llc=4,threads=2\n"
	  "                     (default: assumed flat, and the report says so)" },
	{ { "policy", required_argument, NULL, OPT_POLICY }, SR_O_RUN,
	  "--policy P           placement policy P[:KNOB=V,...] (repeatable; see 'schedreplay\n"
	  "                     policies'); default: the preset of the recorded kernel;\n"
	  "                     'none': account only, replay nothing" },
	{ { "assume-root-cgroup", no_argument, NULL, OPT_ROOT_CGROUP }, SR_O_RUN,
	  "--assume-root-cgroup every task is in the root task group (no cpu cgroup controller,\n"
	  "                     autogroup off): cgroup shares stop being an unknown input" },
	{ { "probes-measure-only", no_argument, NULL, OPT_PROBES_MEASURE }, SR_O_RUN,
	  "--probes-measure-only  a trace recorded with 'record --probes': compare the\n"
	  "                     reconstructed inputs with the kernel's, replay without them" },
	{ { "buffer", required_argument, NULL, OPT_BUFFER }, SR_O_RUN,
	  "--buffer NAME        read the trace.dat buffer NAME (trace-cmd record -B NAME);\n"
	  "                     '' is the top-level one; default: the top-level buffer, or\n"
	  "                     the first that holds sched events" },
	{ { "top", required_argument, NULL, OPT_TOP }, SR_O_RUN,
	  "--top N              bound lists in the output (default 10)" },
	{ { "output", required_argument, NULL, 'o' }, SR_O_OUTPUT,
	  "-o, --output FILE    write to FILE instead of stdout" },
	{ { "compact", no_argument, NULL, OPT_COMPACT }, SR_O_OUTPUT,
	  "--compact            one-line JSON" },
	{ { "json", no_argument, NULL, OPT_JSON }, SR_O_TEXT,
	  "--json               JSON instead of text" },
	{ { "decisions", required_argument, NULL, OPT_DECISIONS }, SR_O_ANALYZE,
	  "--decisions FILE     stream one NDJSON line per placed wakeup to FILE ('-': stdout)" },
	{ { "idle-threshold", required_argument, NULL, OPT_IDLE_THRESHOLD }, SR_O_ANALYZE,
	  "--idle-threshold NS  shortest idle-while-waiting episode reported (default 1000000)" },
	{ { "pid", required_argument, NULL, OPT_PID }, SR_O_EXPLAIN,
	  "--pid P              the task to explain" },
	{ { "at", required_argument, NULL, OPT_AT }, SR_O_EXPLAIN,
	  "--at T               its wakeup nearest to T (ns, or seconds with a '.', as\n"
	  "                     trace-cmd report prints them)" },
	{ { "wakeup", required_argument, NULL, OPT_WAKEUP }, SR_O_EXPLAIN,
	  "--wakeup N           the N-th placed wakeup (the 'wakeup' field of --decisions)" },
};

void sr_cli_opts_help(FILE *f, unsigned int accepted)
{
	for (size_t i = 0; i < SR_ARRAY_SIZE(opts); i++)
		if (opts[i].flag & accepted)
			fprintf(f, "  %s\n", opts[i].help);
}

static int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "1234" is ns; "12.5" is seconds as trace-cmd report prints them. */
static int parse_time(const char *s, int64_t *ns)
{
	const char *dot = strchr(s, '.');
	int64_t sec, frac = 0;
	char buf[32];
	size_t n;

	if (!dot)
		return parse_i64(s, 0, INT64_MAX, ns);
	n = (size_t)(dot - s);
	if (n == 0 || n >= sizeof(buf) || strlen(dot + 1) > 9 || !dot[1])
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (parse_i64(buf, 0, INT64_MAX / 1000000000, &sec) ||
	    parse_i64(dot + 1, 0, 999999999, &frac))
		return -EINVAL;
	for (size_t d = strlen(dot + 1); d < 9; d++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return 0;
}

static bool accepted_opt(int c, unsigned int accepted)
{
	for (size_t i = 0; i < SR_ARRAY_SIZE(opts); i++)
		if (opts[i].lo.val == c)
			return opts[i].flag & accepted;
	return false;
}

static int bad(const struct sr_cli *cli, const char *opt, const char *want, const char *arg)
{
	return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "%s wants %s, not '%s'", opt, want, arg);
}

static int take(const struct sr_cli *cli, int c, const char *arg, struct sr_run_opts *o,
		struct sr_cli_out *out)
{
	int64_t v;

	switch (c) {
	case OPT_MIGRATION_COST:
		if (parse_i64(arg, 0, INT64_MAX / 2, &v))
			return bad(cli, "--migration-cost", "nanoseconds >= 0", arg);
		o->an.migration_cost_ns = v;
		return 0;
	case OPT_HZ:
		if (parse_i64(arg, 1, 10000, &v))
			return bad(cli, "--hz", "1..10000", arg);
		o->hz = (int)v;
		return 0;
	case OPT_TOPOLOGY:
		o->topology = arg;
		return 0;
	case OPT_BUFFER:
		o->buffer = arg;
		return 0;
	case OPT_POLICY:
		if (o->nr_policies >= SR_MAX_POLICIES)
			return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "at most %d --policy",
					    SR_MAX_POLICIES);
		o->policies[o->nr_policies++] = arg;
		return 0;
	case OPT_TOP:
		if (parse_i64(arg, 1, 1000000, &v))
			return bad(cli, "--top", "a count >= 1", arg);
		o->an.top = (int)v;
		return 0;
	case 'o':
		out->path = arg;
		return 0;
	case OPT_COMPACT:
		out->compact = true;
		return 0;
	case OPT_ROOT_CGROUP:
		o->root_cgroup = true;
		return 0;
	case OPT_PROBES_MEASURE:
		o->probes_measure_only = true;
		return 0;
	case OPT_JSON:
		out->json = true;
		return 0;
	case OPT_DECISIONS:
		o->an.decisions = arg;
		return 0;
	case OPT_IDLE_THRESHOLD:
		if (parse_i64(arg, 1, INT64_MAX / 2, &v))
			return bad(cli, "--idle-threshold", "nanoseconds > 0", arg);
		o->an.idle_threshold_ns = v;
		return 0;
	case OPT_PID:
		if (parse_i64(arg, 1, INT32_MAX, &v))
			return bad(cli, "--pid", "a pid > 0", arg);
		o->an.explain_pid = (int)v;
		return 0;
	case OPT_AT:
		if (parse_time(arg, &v))
			return bad(cli, "--at", "a time in ns or seconds.fraction", arg);
		o->an.explain_at_ns = v;
		return 0;
	case OPT_WAKEUP:
		if (parse_i64(arg, 1, INT64_MAX, &v))
			return bad(cli, "--wakeup", "a wakeup number >= 1", arg);
		o->an.explain_index = (uint64_t)v;
		return 0;
	}
	return -1;
}

int sr_cli_parse_run(const struct sr_cli *cli, int argc, char **argv, unsigned int accepted,
		     void (*usage)(FILE *f), struct sr_run_opts *o, struct sr_cli_out *out)
{
	struct option lo[SR_ARRAY_SIZE(opts) + 2];
	size_t n = 0;
	int c, ret;

	*o = (struct sr_run_opts){ .hz = 250, .an = { .migration_cost_ns = 500000, .top = 10,
				   .idle_threshold_ns = 1000000, .explain_at_ns = -1 } };
	*out = (struct sr_cli_out){ .json = cli->json };
	for (size_t i = 0; i < SR_ARRAY_SIZE(opts); i++)
		if (opts[i].flag & accepted)
			lo[n++] = opts[i].lo;
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, accepted & SR_O_OUTPUT ? "ho:" : "h", lo, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		if (c == '?' || !accepted_opt(c, accepted))
			return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "%s: bad option '%s' (see "
					    "'schedreplay %s --help')", argv[0], argv[optind - 1],
					    argv[0]);
		ret = take(cli, c, optarg, o, out);
		if (ret)
			return ret;
	}
	if (optind != argc - 1)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "%s takes exactly one TRACE argument (see --help)", argv[0]);
	o->path = argv[optind];
	return 0;
}

int sr_cli_write_json(const struct sr_cli *cli, json_t *o, const struct sr_cli_out *out)
{
	size_t flags = (out->compact ? JSON_COMPACT : JSON_INDENT(2)) | JSON_REAL_PRECISION(10);
	FILE *f = out->path ? fopen(out->path, "w") : stdout;
	int ret = 0;

	if (!f)
		return sr_cli_error(cli, SR_EXIT_FAIL, "%s: %s", out->path, strerror(errno));
	if (json_dumpf(o, f, flags) || fputc('\n', f) == EOF)
		ret = -EIO;
	if (out->path ? fclose(f) : fflush(f))
		ret = -EIO;
	return ret ? sr_cli_error(cli, SR_EXIT_FAIL, "cannot write the output") : 0;
}

/* "warning: " and @s as text output shows trace strings, however long. */
static void print_warning(FILE *f, const char *s)
{
	size_t size = SR_TEXT_SIZE(strlen(s));
	char *buf = malloc(size);

	fprintf(f, "warning: %s\n", buf ? sr_text(s, buf, size) : s);
	free(buf);
}

int sr_cli_write_text(const struct sr_cli *cli, const struct sr_run *r,
		      void (*print)(const struct sr_analysis *a, FILE *f),
		      const struct sr_analysis *a, const struct sr_cli_out *out)
{
	FILE *f = out->path ? fopen(out->path, "w") : stdout;
	int ret = 0;

	if (!f)
		return sr_cli_error(cli, SR_EXIT_FAIL, "%s: %s", out->path, strerror(errno));
	print(a, f);
	for (int i = 0; i < r->nr_warnings; i++)
		print_warning(f, r->warnings[i]);
	if (out->path ? fclose(f) : fflush(f))
		ret = sr_cli_error(cli, SR_EXIT_FAIL, "cannot write the output");
	return ret;
}
