// SPDX-License-Identifier: GPL-2.0
/*
 * Options shared by the commands that run a trace (analyze, diff, explain):
 * one table, and each command states which options it accepts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli.h"
#include "topology.h"

enum {
	OPT_MIGRATION_COST = 256, OPT_HZ, OPT_TOPOLOGY, OPT_POLICY, OPT_TOP, OPT_COMPACT,
	OPT_DECISIONS, OPT_IDLE_THRESHOLD, OPT_PID, OPT_AT, OPT_WAKEUP, OPT_JSON, OPT_ROOT_CGROUP,
	OPT_PROBES_MEASURE, OPT_CGROUP_WEIGHT, OPT_CGROUP_MEMBER, OPT_AFFINITY, OPT_TIME, OPT_COMM, OPT_CPU, OPT_SVG, OPT_PNG,
	OPT_WINDOW, OPT_PERFETTO, OPT_FORMAT, OPT_QUIET, OPT_FROM, OPT_TIMEOUT, OPT_BUFFER,
	OPT_THREADS,
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
	  "                     (default: TRACE.machine/, the snapshot 'record' saves\n"
	  "                     beside the trace, else assumed flat and the report says\n"
	  "                     so; 'flat': assumed flat even so)" },
	{ { "policy", required_argument, NULL, OPT_POLICY }, SR_O_RUN,
	  "--policy P           placement policy P[:KNOB=V,...] (repeatable; see 'schedreplay\n"
	  "                     policies'); default: the preset of the recorded kernel;\n"
	  "                     'none': account only, replay nothing" },
	{ { "assume-root-cgroup", no_argument, NULL, OPT_ROOT_CGROUP }, SR_O_RUN,
	  "--assume-root-cgroup every task is in the root task group (no cpu cgroup controller,\n"
	  "                     autogroup off): cgroup shares stop being an unknown input" },
	{ { "cgroup-weight", required_argument, NULL, OPT_CGROUP_WEIGHT }, SR_O_RUN,
	  "--cgroup-weight ID=W the cgroup of id ID (cgroup_attach_task's dst_id, the\n"
	  "                     directory's inode) has cpu.weight W (repeatable; default 100)" },
	{ { "cgroup-member", required_argument, NULL, OPT_CGROUP_MEMBER }, SR_O_RUN,
	  "--cgroup-member PID=ID  task PID is in cgroup ID from its fork or first event,\n"
	  "                     and what it forks after (repeatable): for a trace without\n"
	  "                     cgroup_attach_task events, the groups known another way" },
	{ { "affinity", required_argument, NULL, OPT_AFFINITY }, SR_O_RUN,
	  "--affinity PID=CPUS task PID may run on CPUS only (a CPU list, '0-3,8'), from its\n"
	  "                     fork or first event, and what it forks after (repeatable);\n"
	  "                     a --topology snapshot by 'record' gives each task's own" },
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
	  "-o, --output FILE    write to FILE instead of stdout ('-': stdout)" },
	{ { "compact", no_argument, NULL, OPT_COMPACT }, SR_O_OUTPUT,
	  "--compact            one-line JSON" },
	{ { "json", no_argument, NULL, OPT_JSON }, SR_O_TEXT,
	  "--json               JSON instead of text" },
	{ { "decisions", required_argument, NULL, OPT_DECISIONS }, SR_O_DECISIONS,
	  "--decisions FILE     stream one NDJSON line per placement (wakeup, fork, exec)\n"
	  "                     to FILE ('-': stdout; *.zst, *.gz: compressed)" },
	{ { "idle-threshold", required_argument, NULL, OPT_IDLE_THRESHOLD }, SR_O_ANALYZE,
	  "--idle-threshold NS  shortest idle-while-waiting episode reported (default 1000000)" },
	{ { "pid", required_argument, NULL, OPT_PID }, SR_O_FILTER,
	  "--pid P              only the wakeups of pid P (explain: the task to explain)" },
	{ { "comm", required_argument, NULL, OPT_COMM }, SR_O_FILTER,
	  "--comm NAME          only the wakeups of tasks named NAME" },
	{ { "cpu", required_argument, NULL, OPT_CPU }, SR_O_FILTER,
	  "--cpu LIST           only the wakeups placed on these CPUs (0-3,8)" },
	{ { "time", required_argument, NULL, OPT_TIME }, SR_O_FILTER,
	  "--time START,END     only what happens in [START, END] (times as --at; either\n"
	  "                     may be left out: '85.2,' or ',85.3')" },
	{ { "svg", required_argument, NULL, OPT_SVG }, SR_O_PLOT,
	  "--svg FILE           draw a picture as SVG (analyze: CPU occupancy over --time;\n"
	  "                     explain: the wakeup's window; diff: where A and B differ)" },
	{ { "png", required_argument, NULL, OPT_PNG }, SR_O_PLOT,
	  "--png FILE           the same picture as PNG" },
	{ { "window", required_argument, NULL, OPT_WINDOW }, SR_O_EXPLAIN,
	  "--window T           explain's picture: T before the waking, 3T after (default 2ms)" },
	{ { "perfetto", required_argument, NULL, OPT_PERFETTO }, SR_O_PERFETTO,
	  "--perfetto FILE      write the trace as a Chrome JSON trace for ui.perfetto.dev:\n"
	  "                     a track per CPU, each placement annotated, wakeup flows" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, SR_O_FORMAT,
	  "--format F           text or json (default: text on a terminal, JSON otherwise)" },
	{ { "threads", required_argument, NULL, OPT_THREADS }, SR_O_RUN,
	  "--threads N          1: read in one thread; 2: decode the trace on a second thread\n"
	  "                     while the first rebuilds the state (the same output; more\n"
	  "                     than 2 uses 2); default 2 when the process may use 2 CPUs" },
	{ { "quiet", no_argument, NULL, OPT_QUIET }, SR_O_RUN,
	  "--quiet              no progress line on stderr (shown on a terminal for long runs)" },
	{ { "jobs", required_argument, NULL, 'j' }, SR_O_BATCH,
	  "-j, --jobs N         traces analysed in parallel processes (default: one per CPU)" },
	{ { "from", required_argument, NULL, OPT_FROM }, SR_O_BATCH,
	  "--from LIST          read traces from LIST ('-': stdin), one a line:\n"
	  "                     TRACE or TRACE<TAB>TOPOLOGY ('#' starts a comment)" },
	{ { "timeout", required_argument, NULL, OPT_TIMEOUT }, SR_O_BATCH,
	  "--timeout SEC        a trace still running after SEC seconds has failed\n"
	  "                     (default 1800; 0: no limit)" },
	{ { "at", required_argument, NULL, OPT_AT }, SR_O_EXPLAIN,
	  "--at T               its wakeup nearest to T: seconds as trace-cmd report prints\n"
	  "                     them (85.212030575), or with a unit (40ns, 12us, 3ms)" },
	{ { "wakeup", required_argument, NULL, OPT_WAKEUP }, SR_O_EXPLAIN,
	  "--wakeup N           placement N: placed wakeups, forks and execs share the numbering\n"
	  "                     (the 'wakeup' field of --decisions)" },
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

/* "SEC[.FRAC]" into ns, FRAC at most 9 digits. */
static int parse_seconds(const char *s, int64_t *ns)
{
	const char *dot = strchr(s, '.');
	int64_t sec, frac = 0;
	char buf[32];
	size_t n = dot ? (size_t)(dot - s) : strlen(s);

	if (n == 0 || n >= sizeof(buf) || (dot && (!dot[1] || strlen(dot + 1) > 9)))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (parse_i64(buf, 0, INT64_MAX / 1000000000 - 1, &sec) ||
	    (dot && parse_i64(dot + 1, 0, 999999999, &frac)))
		return -EINVAL;
	for (size_t d = dot ? strlen(dot + 1) : 9; d < 9; d++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return 0;
}

/*
 * A time as trace-cmd report prints it: seconds ("85.212030575"), or a
 * number with a unit suffix ("40ns", "12us", "3.5ms", "2s").
 */
int sr_cli_parse_time(const char *s, int64_t *ns)
{
	static const struct { const char *suffix; int64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	size_t len = strlen(s);
	char buf[40];
	int64_t v;

	for (size_t i = 0; i < SR_ARRAY_SIZE(units); i++) {
		size_t sl = strlen(units[i].suffix);

		if (len <= sl || len - sl >= sizeof(buf) || strcmp(s + len - sl, units[i].suffix))
			continue;
		memcpy(buf, s, len - sl);
		buf[len - sl] = '\0';
		if (units[i].mult == 1000000000)
			return parse_seconds(buf, ns);
		/* a fraction of a larger unit, as seconds scaled down */
		if (parse_seconds(buf, &v) || v / 1000000000 > INT64_MAX / units[i].mult)
			return -EINVAL;
		*ns = v / (1000000000 / units[i].mult);
		return 0;
	}
	return parse_seconds(s, ns);
}

static int bad(const struct sr_cli *cli, const char *opt, const char *want, const char *arg)
{
	return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "%s wants %s, not '%s'", opt, want, arg);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

/* START,END with either left out. */
static int take_time(const struct sr_cli *cli, const char *arg, struct sr_filter *f)
{
	const char *comma = strchr(arg, ',');
	char start[40];
	int64_t v;

	if (!comma || (size_t)(comma - arg) >= sizeof(start) || (comma == arg && !comma[1]))
		return bad(cli, "--time", "START,END (either may be left out)", arg);
	memcpy(start, arg, (size_t)(comma - arg));
	start[comma - arg] = '\0';
	if (start[0]) {
		if (sr_cli_parse_time(start, &v))
			return bad(cli, "--time", "START,END in seconds or with a unit", arg);
		f->has_start = true;
		f->start_ns = (uint64_t)v;
	}
	if (comma[1]) {
		if (sr_cli_parse_time(comma + 1, &v))
			return bad(cli, "--time", "START,END in seconds or with a unit", arg);
		f->has_end = true;
		f->end_ns = (uint64_t)v;
	}
	if (f->has_start && f->has_end && f->end_ns < f->start_ns)
		return bad(cli, "--time", "START <= END", arg);
	return 0;
}

static bool accepted_opt(int c, unsigned int accepted)
{
	for (size_t i = 0; i < SR_ARRAY_SIZE(opts); i++)
		if (opts[i].lo.val == c)
			return opts[i].flag & accepted;
	return false;
}

/* A=B with A >= 1 and B in [lo, hi]. */
static int parse_pair(const char *arg, int64_t *a, int64_t *b, int64_t lo, int64_t hi)
{
	const char *eq = strchr(arg, '=');
	char buf[32];

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, arg, (size_t)(eq - arg));
	buf[eq - arg] = '\0';
	return parse_i64(buf, 1, INT64_MAX, a) || parse_i64(eq + 1, lo, hi, b) ? -EINVAL : 0;
}

/* PID=ID: a task the user places in a cgroup. */
static int take_cgroup_member(const struct sr_cli *cli, const char *arg, struct sr_run_opts *o)
{
	int64_t pid, id;

	if (o->nr_cgroup_members >= SR_MAX_CGROUP_WEIGHTS)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "at most %d --cgroup-member",
				    SR_MAX_CGROUP_WEIGHTS);
	if (parse_pair(arg, &pid, &id, 1, INT64_MAX) || pid > INT32_MAX)
		return bad(cli, "--cgroup-member", "PID=ID with PID and ID >= 1", arg);
	o->cgroup_members[o->nr_cgroup_members++] = (struct sr_cgroup_member){
		.pid = (int)pid, .id = id };
	return 0;
}

/* PID=CPULIST: a task the user restricts to some CPUs (checked against the trace in setup). */
static int take_affinity(const struct sr_cli *cli, const char *arg, struct sr_run_opts *o)
{
	const char *eq = strchr(arg, '=');
	struct sr_cpumask m;
	int64_t pid;
	char buf[32];

	if (o->nr_affinity >= SR_MAX_AFFINITY)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "at most %d --affinity", SR_MAX_AFFINITY);
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(buf))
		return bad(cli, "--affinity", "PID=CPULIST, e.g. 1234=0-3,8", arg);
	memcpy(buf, arg, (size_t)(eq - arg));
	buf[eq - arg] = '\0';
	sr_mask_clear(&m);
	if (parse_i64(buf, 1, INT32_MAX, &pid) || sr_cpulist_parse(eq + 1, &m) ||
	    sr_mask_first(&m) < 0)
		return bad(cli, "--affinity", "PID=CPULIST, e.g. 1234=0-3,8", arg);
	o->affinity[o->nr_affinity++] = arg;
	return 0;
}

/* ID=W: a cgroup id and its cpu.weight (CGROUP_WEIGHT_MIN..MAX). */
static int take_cgroup_weight(const struct sr_cli *cli, const char *arg, struct sr_run_opts *o)
{
	int64_t id, w;

	if (o->nr_cgroup_weights >= SR_MAX_CGROUP_WEIGHTS)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "at most %d --cgroup-weight",
				    SR_MAX_CGROUP_WEIGHTS);
	if (parse_pair(arg, &id, &w, 1, 10000))
		return bad(cli, "--cgroup-weight", "ID=WEIGHT with ID >= 1 and WEIGHT 1..10000", arg);
	o->cgroup_weights[o->nr_cgroup_weights++] = (struct sr_cgroup_weight){
		.id = id, .weight = (unsigned int)w };
	return 0;
}

/* batch: how many traces at a time, where the list is, how long one may take. */
static int take_batch(const struct sr_cli *cli, int c, const char *arg, struct sr_cli_out *out)
{
	int64_t v;

	if (c == OPT_FROM) {
		out->from = arg;
		return 0;
	}
	if (c == 'j') {
		if (parse_i64(arg, 1, 1024, &v))
			return bad(cli, "--jobs", "1..1024", arg);
		out->jobs = (int)v;
		return 0;
	}
	if (parse_i64(arg, 0, 86400 * 7, &v))
		return bad(cli, "--timeout", "seconds >= 0", arg);
	out->timeout_s = (int)v;
	return 0;
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
	case OPT_THREADS:
		if (parse_i64(arg, 1, 1024, &v))
			return bad(cli, "--threads", "1..1024", arg);
		o->threads = (int)v;
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
		out->path = strcmp(arg, "-") ? arg : NULL;	/* '-': stdout */
		return 0;
	case OPT_COMPACT:
		out->compact = true;
		return 0;
	case OPT_ROOT_CGROUP:
		o->root_cgroup = true;
		return 0;
	case OPT_CGROUP_WEIGHT:
		return take_cgroup_weight(cli, arg, o);
	case OPT_AFFINITY:
		return take_affinity(cli, arg, o);
	case OPT_CGROUP_MEMBER:
		return take_cgroup_member(cli, arg, o);
	case OPT_PROBES_MEASURE:
		o->probes_measure_only = true;
		return 0;
	case OPT_JSON:
		out->json = true;
		out->format_given = true;
		return 0;
	case OPT_DECISIONS:
		o->an.decisions = arg;
		return 0;
	case OPT_IDLE_THRESHOLD:
		if (parse_i64(arg, 1, INT64_MAX / 2, &v))
			return bad(cli, "--idle-threshold", "nanoseconds > 0", arg);
		o->an.idle_threshold_ns = v;
		return 0;
	case 'j':
	case OPT_FROM:
	case OPT_TIMEOUT:
		return take_batch(cli, c, arg, out);
	case OPT_PID:
		if (parse_i64(arg, 1, INT32_MAX, &v))
			return bad(cli, "--pid", "a pid > 0", arg);
		o->an.explain_pid = (int)v;
		o->an.filter.pid = (int)v;
		return 0;
	case OPT_COMM:
		if (!arg[0] || strlen(arg) >= sizeof(o->an.filter.comm))
			return bad(cli, "--comm", "a task name of 1 to 15 characters", arg);
		snprintf(o->an.filter.comm, sizeof(o->an.filter.comm), "%s", arg);
		return 0;
	case OPT_CPU:
		if (sr_cpulist_parse(arg, &o->an.filter.cpus) || !sr_mask_weight(&o->an.filter.cpus))
			return bad(cli, "--cpu", "a CPU list such as 0-3,8", arg);
		o->an.filter.has_cpus = true;
		return 0;
	case OPT_TIME:
		return take_time(cli, arg, &o->an.filter);
	case OPT_SVG:
	case OPT_PNG:
		if (!ends_with(arg, c == OPT_SVG ? ".svg" : ".png"))
			return bad(cli, c == OPT_SVG ? "--svg" : "--png",
				   c == OPT_SVG ? "a FILE.svg" : "a FILE.png", arg);
		o->an.plot = arg;
		return 0;
	case OPT_WINDOW:
		if (sr_cli_parse_time(arg, &v) || v <= 0)
			return bad(cli, "--window", "a time > 0 (500us, 2ms)", arg);
		o->an.window_ns = v;
		return 0;
	case OPT_PERFETTO:
		o->an.perfetto = arg;
		return 0;
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json"))
			return bad(cli, "--format", "text or json", arg);
		out->json = !strcmp(arg, "json");
		out->format_given = true;
		return 0;
	case OPT_QUIET:
		out->progress = false;
		return 0;
	case OPT_AT:
		if (sr_cli_parse_time(arg, &v))
			return bad(cli, "--at", "seconds as trace-cmd report prints them "
				   "(85.212030575) or a time with a unit (40ns, 12us, 3ms)", arg);
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

static const char *short_opts(unsigned int accepted)
{
	if (accepted & SR_O_BATCH)
		return "ho:j:";
	return accepted & SR_O_OUTPUT ? "ho:" : "h";
}

int sr_cli_parse_opts(const struct sr_cli *cli, int argc, char **argv, unsigned int accepted,
		      void (*usage)(FILE *f), struct sr_run_opts *o, struct sr_cli_out *out,
		      int *first)
{
	struct option lo[SR_ARRAY_SIZE(opts) + 2];
	size_t n = 0;
	int c, ret;

	*o = (struct sr_run_opts){ .hz = 250, .an = { .migration_cost_ns = 500000, .top = 10,
				   .idle_threshold_ns = 1000000, .explain_at_ns = -1,
				   .window_ns = 2000000 } };
	*out = (struct sr_cli_out){ .json = cli->json, .format_given = cli->json,
				    .progress = isatty(STDERR_FILENO), .timeout_s = 1800 };
	for (size_t i = 0; i < SR_ARRAY_SIZE(opts); i++)
		if (opts[i].flag & accepted)
			lo[n++] = opts[i].lo;
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts(accepted), lo, NULL)) != -1) {
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
	*first = optind;
	return 0;
}

int sr_cli_parse_run(const struct sr_cli *cli, int argc, char **argv, unsigned int accepted,
		     void (*usage)(FILE *f), struct sr_run_opts *o, struct sr_cli_out *out)
{
	int first, ret = sr_cli_parse_opts(cli, argc, argv, accepted, usage, o, out, &first);

	if (ret)
		return ret;
	if (first != argc - 1)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "%s takes exactly one TRACE argument (see --help)", argv[0]);
	o->path = argv[first];
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

static FILE *open_out(const struct sr_cli *cli, const struct sr_cli_out *out, int *ret)
{
	FILE *f = out->path ? fopen(out->path, "w") : stdout;

	*ret = f ? 0 : sr_cli_error(cli, SR_EXIT_FAIL, "%s: %s", out->path, strerror(errno));
	return f;
}

/* The run's warnings after the text, then close (or flush stdout). */
static int close_out(const struct sr_cli *cli, const struct sr_run *r, FILE *f,
		     const struct sr_cli_out *out)
{
	for (int i = 0; i < r->nr_warnings; i++)
		print_warning(f, r->warnings[i]);
	if (out->path ? fclose(f) : fflush(f))
		return sr_cli_error(cli, SR_EXIT_FAIL, "cannot write the output");
	return 0;
}

int sr_cli_write_text(const struct sr_cli *cli, const struct sr_run *r,
		      void (*print)(const struct sr_analysis *a, FILE *f),
		      const struct sr_analysis *a, const struct sr_cli_out *out)
{
	int ret;
	FILE *f = open_out(cli, out, &ret);

	if (!f)
		return ret;
	print(a, f);
	return close_out(cli, r, f, out);
}

int sr_cli_write_report_text(const struct sr_cli *cli, struct sr_run *r,
			     const struct sr_cli_out *out)
{
	int ret;
	FILE *f = open_out(cli, out, &ret);

	if (!f)
		return ret;
	sr_run_print(r, f);
	return close_out(cli, r, f, out);
}
