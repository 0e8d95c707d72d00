// SPDX-License-Identifier: GPL-2.0
/*
 * schedreplay record: trace the scheduler while COMMAND runs (or the whole
 * system for --duration or until Ctrl-C), streaming every CPU's buffer to
 * disk, write a trace.dat that `schedreplay analyze` reads, and snapshot
 * the machine.  This file: options, the flow, and the report;
 * record-tracefs.c sets up the tracefs instance, record-output.c streams
 * it to FILE, record-run.c runs COMMAND.
 *
 * Events are recorded in a private tracefs instance, so the user's
 * top-level tracing setup is never touched.  `trace-cmd record` is not
 * used (it fails where /proc/sys/kernel/ftrace_enabled is read-only), nor
 * `trace-cmd extract -B INSTANCE`: that stores the data as a named buffer,
 * which our reader (top-level buffer only) does not see, and trace-cmd 3.1
 * has no option to store it as the top-level one.  So the file is written
 * with libtracecmd's output API (src/ingest/trace-write.c), which does
 * store the instance's pages as the top-level buffer.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "record.h"

__attribute__((format(printf, 4, 5)))
int sr_rec_fail(struct rec *r, int code, int ret, const char *fmt, ...)
{
	va_list ap;

	r->code = code;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return ret;
}

/* libtracefs and libtracecmd return -1 and (mostly) leave errno set. */
int sr_rec_neg_errno(void)
{
	return errno ? -errno : -EIO;
}

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: schedreplay record -o FILE [options] [-- COMMAND [ARGS...]]\n\n"
		"Record the scheduler events 'analyze' needs while COMMAND runs (without one: the\n"
		"whole system, for --duration or until Ctrl-C), in a private tracefs instance (the\n"
		"top-level tracing setup is left alone), streaming each CPU's buffer to disk, into\n"
		"the trace.dat FILE, and copy the machine's topology and scheduler settings into\n"
		"FILE.machine/.  Needs root.  See docs/record.md.\n\n"
		"  -o, --output FILE    trace.dat to write (required; overwritten)\n"
		"  -b, --buffer-kb KB   per-CPU ring buffer size, default %d, capped at a quarter\n"
		"                       of MemAvailable over all CPUs\n"
		"  -C, --clock CLOCK    trace clock, default local (see tracefs trace_clock)\n"
		"  -d, --duration SECS  stop after SECS seconds (COMMAND then gets SIGINT)\n"
		"  --instance NAME      tracefs instance to create, default schedreplay-PID\n"
		"  --stat-runtime       also record sched_stat_runtime (when the kernel has it)\n"
		"  --kallsyms           also store /proc/kallsyms (not needed by schedreplay;\n"
		"                       the file keeps only the formats of the events enabled)\n"
		"  --allow-lost         exit 0 even if events were lost (they are still reported)\n"
		"  --no-snapshot        do not write FILE.machine/\n"
		"  --probes             also kprobe select_task_rq_fair(), task_h_load(),\n"
		"                       find_idlest_group() and autogroup creation (5.8+, BTF and\n"
		"                       CONFIG_KPROBE_EVENTS): analyze then replays each wakeup with\n"
		"                       the kernel's own WF_SYNC and loads\n\n"
		"Ctrl-C stops recording and still writes FILE; a second one kills COMMAND.\n"
		"Exit codes: 0 success, 1 failure (FILE not written), 2 bad usage or COMMAND\n"
		"cannot be run, 3 events were lost (FILE written), 4 COMMAND failed (FILE written).\n",
		REC_DEFAULT_KB);
}

enum { OPT_STAT_RUNTIME = 256, OPT_ALLOW_LOST, OPT_NO_SNAPSHOT, OPT_INSTANCE, OPT_PROBES,
       OPT_KALLSYMS };

/* Seconds, up to a year. */
static int parse_duration(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 366 * 86400.0)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_kb(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < REC_MIN_KB || v > REC_MAX_KB)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_args(const struct sr_cli *cli, int argc, char **argv, struct rec_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "clock", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "stat-runtime", no_argument, NULL, OPT_STAT_RUNTIME },
		{ "kallsyms", no_argument, NULL, OPT_KALLSYMS },
		{ "allow-lost", no_argument, NULL, OPT_ALLOW_LOST },
		{ "no-snapshot", no_argument, NULL, OPT_NO_SNAPSHOT },
		{ "probes", no_argument, NULL, OPT_PROBES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	/* '+': stop at COMMAND, whose own options are not ours. */
	while ((c = getopt_long(argc, argv, "+ho:b:C:d:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'b':
			if (parse_kb(optarg, &o->buffer_kb))
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
						    "-b wants KiB per CPU, %d..%ld, not '%s'",
						    REC_MIN_KB, REC_MAX_KB, optarg);
			break;
		case 'C':
			o->clock = optarg;
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration))
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "-d wants seconds > 0, "
						    "not '%s'", optarg);
			break;
		case OPT_INSTANCE:
			if (!optarg[0] || strchr(optarg, '/') || optarg[0] == '.')
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "--instance wants a "
						    "directory name, not '%s'", optarg);
			o->instance = optarg;
			break;
		case OPT_STAT_RUNTIME:
			o->stat_runtime = true;
			break;
		case OPT_KALLSYMS:
			o->kallsyms = true;
			break;
		case OPT_ALLOW_LOST:
			o->allow_lost = true;
			break;
		case OPT_NO_SNAPSHOT:
			o->snapshot = false;
			break;
		case OPT_PROBES:
			o->probes = true;
			break;
		case 'h':
			record_usage(stdout);
			return -1;
		default:
			return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "record: bad option '%s' (see "
					    "'schedreplay record --help')", argv[optind - 1]);
		}
	}
	if (!o->out)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "record needs -o FILE (see --help)");
	o->cmd = optind < argc ? argv + optind : NULL;
	return 0;
}

/* Refuse before recording what would only fail after it. */
static int check_output(struct rec *r)
{
	const char *out = r->o->out;
	char dir[PATH_MAX], snap[PATH_MAX];
	const char *slash = strrchr(out, '/');
	struct stat st;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out) + (slash == out), out);
	else
		snprintf(dir, sizeof(dir), ".");
	if (access(dir, W_OK))
		return sr_rec_fail(r, SR_EXIT_BAD_INPUT, -errno, "%s: cannot write there: %s", dir,
			    strerror(errno));
	if (!stat(out, &st) && S_ISDIR(st.st_mode))
		return sr_rec_fail(r, SR_EXIT_BAD_INPUT, -EISDIR, "%s: is a directory", out);
	if (!r->o->snapshot)
		return 0;
	if (snprintf(snap, sizeof(snap), "%s.machine", out) >= (int)sizeof(snap))
		return sr_rec_fail(r, SR_EXIT_BAD_INPUT, -ENAMETOOLONG, "%s: name too long", out);
	if (!lstat(snap, &st))
		return sr_rec_fail(r, SR_EXIT_BAD_INPUT, -EEXIST, "%s exists: remove it, or pass "
			    "--no-snapshot", snap);
	return 0;
}

static void print_lost(const struct rec *r)
{
	fprintf(stderr, "schedreplay: lost events (per_cpu/cpuN/stats of %s):\n"
		"  %-5s %12s %10s %15s %10s\n", r->name, "cpu", "entries", "overrun",
		"commit_overrun", "dropped");
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		const struct cpu_stat *s = &r->stat[cpu];

		if (s->valid)
			fprintf(stderr, "  %-5d %12llu %10llu %15llu %10llu\n", cpu, s->entries,
				s->overrun, s->commit_overrun, s->dropped);
	}
	fprintf(stderr, "  total lost: %llu\n", r->lost);
}

static json_t *lost_json(const struct rec *r)
{
	json_t *cpus = json_array();

	for (int cpu = 0; cpus && cpu < r->nr_cpus; cpu++) {
		const struct cpu_stat *s = &r->stat[cpu];

		if (s->valid)
			json_array_append_new(cpus, json_pack("{s:i, s:I, s:I, s:I, s:I}",
				"cpu", cpu, "entries", (json_int_t)s->entries,
				"overrun", (json_int_t)s->overrun,
				"commit_overrun", (json_int_t)s->commit_overrun,
				"dropped", (json_int_t)s->dropped));
	}
	return json_pack("{s:I, s:o}", "total", (json_int_t)r->lost, "per_cpu", cpus);
}

static json_t *status_json(const struct rec *r)
{
	if (WIFEXITED(r->status))
		return json_pack("{s:i}", "exit_status", WEXITSTATUS(r->status));
	return json_pack("{s:i, s:s}", "signal", WTERMSIG(r->status),
			 "signal_name", strsignal(WTERMSIG(r->status)));
}

static json_t *argv_json(char **argv)
{
	json_t *a = argv ? json_array() : json_null();

	for (; argv && a && *argv; argv++)
		json_array_append_new(a, sr_json_str(*argv));
	return a;
}

/* What stopped the recording besides COMMAND's end: a signal's name, "duration", or false. */
static json_t *interrupted_json(const struct rec *r)
{
	if (r->signo)
		return json_string(strsignal(r->signo));
	return r->timed_out ? json_string("duration") : json_false();
}

/* What was recorded, for --json and schedreplay-snapshot.json. */
static json_t *summary_json(const struct rec *r)
{
	return json_pack("{s:o, s:s, s:s, s:o, s:i, s:I, s:O, s:O*, s:o, s:o, s:o, s:o, s:o, s:I}",
			 "trace", sr_json_str(r->o->out), "trace_buffer", "top-level",
			 "tracefs_instance", r->name, "clock", sr_json_str(r->o->clock),
			 "cpus", r->nr_cpus, "buffer_kb", (json_int_t)r->buffer_kb,
			 "events", r->events, "probes", r->probe_status,
			 "command", argv_json(r->o->cmd),
			 "duration_s", r->o->duration > 0 ? json_real(r->o->duration) : json_null(),
			 "command_status", r->o->cmd ? status_json(r) : json_null(),
			 "interrupted", interrupted_json(r), "lost_events", lost_json(r),
			 "stored_bytes", (json_int_t)r->bytes);
}

static int write_snapshot(const struct rec *r, json_t *sum)
{
	struct sr_snapshot_opts so = { .root = NULL, .extra = sum, .kept = r->cmd_files,
				       .nr_kept = r->nr_cmd_files };
	struct sr_snapshot_result res = { 0, 0 };
	char dir[PATH_MAX];
	int ret;

	snprintf(dir, sizeof(dir), "%s.machine", r->o->out);
	ret = sr_snapshot_write(dir, &so, &res);
	if (ret) {
		fprintf(stderr, "schedreplay: cannot write the snapshot %s: %s\n", dir,
			strerror(-ret));
		return ret;
	}
	fprintf(stderr, "schedreplay: wrote %s/ (%d files; %d missing or unreadable, listed in "
		"%s)\n", dir, res.captured, res.missing, SR_SNAPSHOT_JSON);
	json_object_set_new(sum, "snapshot", json_pack("{s:o, s:i, s:i}", "dir", sr_json_str(dir),
							"captured", res.captured,
							"missing", res.missing));
	return 0;
}

/* Exit code and message for a run that wrote its file. */
static int outcome(const struct rec *r, char *msg, size_t size)
{
	bool failed = !WIFEXITED(r->status) || WEXITSTATUS(r->status);

	if (r->lost && !r->o->allow_lost) {
		snprintf(msg, size, "%llu events were lost when the readers fell behind (FILE marks "
			 "each gap; analyze reports them per CPU): raise -b (now %ld KiB per CPU), "
			 "record fewer CPUs' load, or pass --allow-lost", r->lost, r->buffer_kb);
		return REC_EXIT_LOST;
	}
	/* After our Ctrl-C or --duration, COMMAND's death is what was asked for. */
	if (r->o->cmd && failed && !r->signo && !r->timed_out) {
		if (WIFEXITED(r->status))
			snprintf(msg, size, "COMMAND exited with status %d", WEXITSTATUS(r->status));
		else
			snprintf(msg, size, "COMMAND was killed by signal %d (%s)",
				 WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
		return REC_EXIT_COMMAND;
	}
	return SR_EXIT_OK;
}

static int report(const struct sr_cli *cli, const struct rec *r)
{
	char msg[512] = "";
	struct stat st;
	json_t *sum;
	int code;

	print_lost(r);
	if (!stat(r->o->out, &st))
		fprintf(stderr, "schedreplay: wrote %s (%lld bytes, events in the top-level "
			"buffer)\n", r->o->out, (long long)st.st_size);
	sum = summary_json(r);
	if (!sum)
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	code = r->o->snapshot && write_snapshot(r, sum) ? SR_EXIT_FAIL : SR_EXIT_OK;
	if (!code)
		code = outcome(r, msg, sizeof(msg));
	if (cli->json) {
		if (code)
			json_object_set_new(sum, "error", json_pack("{s:o, s:i}", "message",
				sr_json_str(msg[0] ? msg : "cannot write the snapshot"), "exit_code", code));
		json_dumpf(sum, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (msg[0]) {
		sr_cli_error(cli, code, "%s", msg);
	}
	json_decref(sum);
	return code;
}

static void free_rec(struct rec *r)
{
	free(r->base);
	free(r->stat);
	sr_rec_status_free(r);
	json_decref(r->events);
	json_decref(r->probe_status);
}

int sr_cmd_record(const struct sr_cli *cli, int argc, char **argv)
{
	struct rec_opts o = { .clock = "local", .snapshot = true };
	struct rec r = { .o = &o, .code = SR_EXIT_FAIL };
	int ret;

	ret = parse_args(cli, argc, argv, &o);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	ret = check_output(&r);
	if (ret)
		return sr_cli_error(cli, r.code, "%s", r.msg);
	sr_rec_block_signals(&r);
	ret = sr_rec_setup(&r);
	if (!ret)
		ret = sr_rec_stream_start(&r);
	if (!ret)
		ret = sr_rec_run(&r);
	/* drains the buffers (tracing is off); an earlier failure is the one to report */
	if (r.stream && !ret)
		ret = sr_rec_stream_stop(&r);
	if (!ret)
		ret = sr_rec_read_stats(&r, r.stat);
	if (!ret) {
		sr_rec_count_lost(&r);
		ret = sr_rec_write_trace(&r);
	}
	if (!ret)
		ret = sr_rec_verify(&r);
	sr_rec_stream_free(&r);
	sr_rec_teardown(&r);
	sr_rec_unblock_signals(&r);
	if (ret)
		ret = sr_cli_error(cli, r.code, "%s", r.msg);
	else
		ret = report(cli, &r);
	free_rec(&r);
	return ret;
}
