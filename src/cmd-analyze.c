// SPDX-License-Identifier: GPL-2.0
/* schedreplay analyze: one pass over a trace, one JSON report. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "run.h"

static void analyze_usage(FILE *f)
{
	fprintf(f,
		"usage: schedreplay analyze TRACE [options]\n\n"
		"Rebuild every CPU's runqueue from a trace-cmd trace.dat, account every wakeup\n"
		"and print a JSON report (docs/report-schema.md).\n\n"
		"  --migration-cost NS  cache-hot window (sysctl_sched_migration_cost), default 500000\n"
		"  --hz N               CONFIG_HZ of the traced kernel (record_wakee decay), default 250\n"
		"  --topology SPEC      e.g. sockets=2,llcs-per-socket=1,cores-per-llc=4,threads=2\n"
		"                       (default: assumed flat, reported as such)\n"
		"  --policy P           replay placement policy P[:KNOB=V,...] (repeatable; see\n"
		"                       'schedreplay policies'); default: the preset matching the\n"
		"                       recorded kernel, else linux-6.12\n"
		"  --top N              bound lists in the report (default 10)\n"
		"  -o, --output FILE    write the report to FILE instead of stdout\n"
		"  --compact            one-line JSON\n");
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

enum { OPT_MIGRATION_COST = 256, OPT_HZ, OPT_TOPOLOGY, OPT_POLICY, OPT_TOP, OPT_COMPACT };

static int parse_args(const struct sr_cli *cli, int argc, char **argv, struct sr_run_opts *o,
		      const char **out, bool *compact)
{
	static const struct option longopts[] = {
		{ "migration-cost", required_argument, NULL, OPT_MIGRATION_COST },
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "topology", required_argument, NULL, OPT_TOPOLOGY },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "output", required_argument, NULL, 'o' },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int64_t v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MIGRATION_COST:
			if (parse_i64(optarg, 0, INT64_MAX / 2, &v))
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
						    "--migration-cost wants nanoseconds >= 0, not '%s'",
						    optarg);
			o->migration_cost_ns = v;
			break;
		case OPT_HZ:
			if (parse_i64(optarg, 1, 10000, &v))
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
						    "--hz wants 1..10000, not '%s'", optarg);
			o->hz = (int)v;
			break;
		case OPT_TOPOLOGY:
			o->topology = optarg;
			break;
		case OPT_POLICY:
			if (o->nr_policies >= SR_MAX_POLICIES)
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "at most %d --policy",
						    SR_MAX_POLICIES);
			o->policies[o->nr_policies++] = optarg;
			break;
		case OPT_TOP:
			if (parse_i64(optarg, 1, 1000000, &v))
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
						    "--top wants a count >= 1, not '%s'", optarg);
			o->top = (int)v;
			break;
		case 'o':
			*out = optarg;
			break;
		case OPT_COMPACT:
			*compact = true;
			break;
		case 'h':
			analyze_usage(stdout);
			return -1;
		default:
			return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "analyze: bad option '%s' (see "
					    "'schedreplay analyze --help')", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "analyze takes exactly one TRACE argument (see --help)");
	o->path = argv[optind];
	return 0;
}

static int write_report(const struct sr_cli *cli, json_t *rep, const char *out, bool compact)
{
	size_t flags = (compact ? JSON_COMPACT : JSON_INDENT(2)) | JSON_REAL_PRECISION(10);
	FILE *f = out ? fopen(out, "w") : stdout;
	int ret = 0;

	if (!f)
		return sr_cli_error(cli, SR_EXIT_FAIL, "%s: %s", out, strerror(errno));
	if (json_dumpf(rep, f, flags) || fputc('\n', f) == EOF)
		ret = -EIO;
	if (out && fclose(f))
		ret = -EIO;
	else if (!out && fflush(f))
		ret = -EIO;
	return ret ? sr_cli_error(cli, SR_EXIT_FAIL, "cannot write the report") : 0;
}

int cmd_analyze(const struct sr_cli *cli, int argc, char **argv)
{
	struct sr_run_opts o = { .migration_cost_ns = 500000, .hz = 250, .top = 10,
				 .idle_threshold_ns = 1000000 };
	const char *out = NULL;
	bool compact = false;
	struct sr_err err = { "" };
	struct sr_run *r;
	json_t *rep;
	int ret;

	ret = parse_args(cli, argc, argv, &o, &out, &compact);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	ret = sr_run_open(r, &o, &err);
	if (!ret)
		ret = sr_run_exec(r, &err);
	if (ret) {
		ret = sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg[0] ? err.msg :
				   strerror(-ret));
		goto out;
	}
	rep = sr_run_report(r);
	if (!rep) {
		ret = sr_cli_error(cli, SR_EXIT_FAIL, "out of memory building the report");
		goto out;
	}
	ret = write_report(cli, rep, out, compact);
	json_decref(rep);
out:
	sr_run_close(r);
	free(r);
	return ret;
}
