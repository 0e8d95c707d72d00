// SPDX-License-Identifier: GPL-2.0
/*
 * schedreplay record: trace the scheduler while COMMAND runs, write a
 * trace.dat that `schedreplay analyze` reads, and snapshot the machine.
 *
 * Events are recorded in a private tracefs instance, so the user's
 * top-level tracing setup is never touched.  `trace-cmd record` is not
 * used (it fails where /proc/sys/kernel/ftrace_enabled is read-only), nor
 * `trace-cmd extract -B INSTANCE`: that stores the data as a named buffer,
 * which our reader (top-level buffer only) does not see, and trace-cmd 3.1
 * has no option to store it as the top-level one.  So the file is written
 * with libtracecmd's output API, which does store the instance's pages as
 * the top-level buffer.
 */
#define _GNU_SOURCE		/* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <jansson.h>
#include <tracefs.h>
#include "cli.h"
#include "machine.h"

/* Exit codes beyond cli.h's, documented in docs/record.md. */
enum { REC_EXIT_LOST = 3, REC_EXIT_COMMAND = 4 };

#define REC_DEFAULT_KB		32768	/* per CPU, before the memory cap */
#define REC_MIN_KB		4
#define REC_MAX_KB		(4L << 20)
#define TRACEFS_PATH		"/sys/kernel/tracing"

/* What the analysis needs; sched_waking is missing before 4.3 only. */
static const struct {
	const char *name;
	bool optional;
} sched_events[] = {
	{ "sched_switch", false }, { "sched_waking", true }, { "sched_wakeup", false },
	{ "sched_wakeup_new", false }, { "sched_migrate_task", false },
	{ "sched_process_fork", false }, { "sched_process_exit", false },
	{ "sched_process_exec", false },
};

struct rec_opts {
	const char *out;
	long buffer_kb;			/* 0: default, capped by memory */
	const char *clock;
	bool stat_runtime;
	bool allow_lost;
	bool snapshot;
	char **cmd;			/* NULL-terminated */
};

/* One CPU's per_cpu/cpuN/stats; loss counters are deltas over the run. */
struct cpu_stat {
	bool valid;
	unsigned long long entries, overrun, commit_overrun, dropped;
};

struct rec {
	const struct rec_opts *o;
	char name[64];			/* instance name */
	struct tracefs_instance *inst;
	bool mounted_tracefs;
	int nr_cpus;
	long buffer_kb;
	json_t *events;			/* "sched/NAME" enabled */
	struct cpu_stat *base, *stat;
	unsigned long long lost;
	sigset_t sigs, oldmask;		/* blocked while recording; the caller's mask */
	int signo;			/* first SIGINT/SIGTERM/SIGHUP, 0 if none */
	int status;			/* COMMAND's wait status */
	/* failure report */
	int code;
	char msg[768];
};

__attribute__((format(printf, 4, 5)))
static int fail(struct rec *r, int code, int ret, const char *fmt, ...)
{
	va_list ap;

	r->code = code;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return ret;
}

/* libtracefs and libtracecmd return -1 and (mostly) leave errno set. */
static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: schedreplay record -o FILE [options] -- COMMAND [ARGS...]\n\n"
		"Record the scheduler events 'analyze' needs while COMMAND runs, in a private\n"
		"tracefs instance (the top-level tracing setup is left alone), into the trace.dat\n"
		"FILE, and copy the machine's topology and scheduler settings into FILE.machine/.\n"
		"Needs root.  See docs/record.md.\n\n"
		"  -o, --output FILE    trace.dat to write (required; overwritten)\n"
		"  -b, --buffer-kb KB   per-CPU ring buffer size, default %d, capped at a quarter\n"
		"                       of MemAvailable over all CPUs\n"
		"  -C, --clock CLOCK    trace clock, default local (see tracefs trace_clock)\n"
		"  --stat-runtime       also record sched_stat_runtime (when the kernel has it)\n"
		"  --allow-lost         exit 0 even if events were lost (they are still reported)\n"
		"  --no-snapshot        do not write FILE.machine/\n\n"
		"Ctrl-C stops recording and still writes FILE; a second one kills COMMAND.\n"
		"Exit codes: 0 success, 1 failure, 2 bad usage or COMMAND cannot be run,\n"
		"3 events were lost (FILE written), 4 COMMAND failed (FILE written).\n",
		REC_DEFAULT_KB);
}

enum { OPT_STAT_RUNTIME = 256, OPT_ALLOW_LOST, OPT_NO_SNAPSHOT };

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
		{ "stat-runtime", no_argument, NULL, OPT_STAT_RUNTIME },
		{ "allow-lost", no_argument, NULL, OPT_ALLOW_LOST },
		{ "no-snapshot", no_argument, NULL, OPT_NO_SNAPSHOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	/* '+': stop at COMMAND, whose own options are not ours. */
	while ((c = getopt_long(argc, argv, "+ho:b:C:", longopts, NULL)) != -1) {
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
		case OPT_STAT_RUNTIME:
			o->stat_runtime = true;
			break;
		case OPT_ALLOW_LOST:
			o->allow_lost = true;
			break;
		case OPT_NO_SNAPSHOT:
			o->snapshot = false;
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
	if (optind >= argc)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT,
				    "record needs a COMMAND to run after '--' (see --help)");
	o->cmd = argv + optind;
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
		return fail(r, SR_EXIT_BAD_INPUT, -errno, "%s: cannot write there: %s", dir,
			    strerror(errno));
	if (!stat(out, &st) && S_ISDIR(st.st_mode))
		return fail(r, SR_EXIT_BAD_INPUT, -EISDIR, "%s: is a directory", out);
	if (!r->o->snapshot)
		return 0;
	if (snprintf(snap, sizeof(snap), "%s.machine", out) >= (int)sizeof(snap))
		return fail(r, SR_EXIT_BAD_INPUT, -ENAMETOOLONG, "%s: name too long", out);
	if (!lstat(snap, &st))
		return fail(r, SR_EXIT_BAD_INPUT, -EEXIST, "%s exists: remove it, or pass "
			    "--no-snapshot", snap);
	return 0;
}

/* Mount tracefs where libtracefs looks first, remembering to unmount it. */
static int find_tracefs(struct rec *r)
{
	char dir[PATH_MAX];

	if (!sr_find_mount("tracefs", dir, sizeof(dir))) {
		if (mount("nodev", TRACEFS_PATH, "tracefs", 0, NULL))
			return fail(r, SR_EXIT_FAIL, -errno, "cannot mount tracefs on %s: %s",
				    TRACEFS_PATH, strerror(errno));
		r->mounted_tracefs = true;
	}
	if (!tracefs_tracing_dir())
		return fail(r, SR_EXIT_FAIL, -ENODEV, "tracefs not found");
	return 0;
}

/* Is @clock one of the words of trace_clock ("[local] global counter ...")? */
static bool clock_listed(const char *clocks, const char *clock)
{
	size_t n = strlen(clock);
	const char *p = clocks;

	while ((p = strstr(p, clock))) {
		bool start = p == clocks || p[-1] == ' ' || p[-1] == '[';
		bool end = !p[n] || p[n] == ' ' || p[n] == ']' || p[n] == '\n';

		if (start && end)
			return true;
		p += n;
	}
	return false;
}

static int check_clock(struct rec *r)
{
	char *clocks = tracefs_instance_file_read(NULL, "trace_clock", NULL);
	int ret = 0;

	if (!clocks)
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot read trace_clock");
	if (!clock_listed(clocks, r->o->clock)) {
		clocks[strcspn(clocks, "\n")] = '\0';
		ret = fail(r, SR_EXIT_BAD_INPUT, -EINVAL, "unknown trace clock '%s' (this "
			   "kernel has: %s)", r->o->clock, clocks);
	}
	free(clocks);
	return ret;
}

static int create_instance(struct rec *r)
{
	snprintf(r->name, sizeof(r->name), "schedreplay-%d", (int)getpid());
	r->inst = tracefs_instance_create(r->name);
	if (!r->inst)
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot create tracefs instance %s: %s",
			    r->name, strerror(errno));
	if (!tracefs_instance_is_new(r->inst)) {
		/* Not ours: never configure, let alone destroy, someone else's instance. */
		tracefs_instance_free(r->inst);
		r->inst = NULL;
		return fail(r, SR_EXIT_FAIL, -EEXIST, "tracefs instance %s already exists "
			    "(left by a crashed run? rmdir it)", r->name);
	}
	return 0;
}

static long mem_available_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) != 1)
			kb = -1;
	fclose(f);
	return kb;
}

/* 32 MiB per CPU records minutes of busy scheduling; big machines get less. */
static long default_buffer_kb(int nr_cpus)
{
	long avail = mem_available_kb(), kb = REC_DEFAULT_KB;

	if (avail > 0 && kb * nr_cpus > avail / 4)
		kb = avail / 4 / nr_cpus;
	return kb < 1024 ? 1024 : kb;
}

/*
 * The trace.dat records one page size for the top-level buffer, taken
 * from the top instance; make our instance's sub-buffers the same size.
 */
static int match_subbuf_size(struct rec *r)
{
	long long top, ours;
	char val[32];

	if (!tracefs_file_exists(r->inst, "buffer_subbuf_size_kb") ||
	    tracefs_instance_file_read_number(NULL, "buffer_subbuf_size_kb", &top) ||
	    tracefs_instance_file_read_number(r->inst, "buffer_subbuf_size_kb", &ours))
		return 0;	/* kernels before 6.8 have one size */
	if (top == ours)
		return 0;
	snprintf(val, sizeof(val), "%lld", top);
	if (tracefs_instance_file_write(r->inst, "buffer_subbuf_size_kb", val) < 0)
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot set buffer_subbuf_size_kb");
	return 0;
}

static int enable_event(struct rec *r, const char *name)
{
	char full[64];

	if (tracefs_event_file_write(r->inst, "sched", name, "enable", "1") < 0)
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot enable sched/%s: %s", name,
			    strerror(errno));
	snprintf(full, sizeof(full), "sched/%s", name);
	return json_array_append_new(r->events, json_string(full)) ? -ENOMEM : 0;
}

static int enable_events(struct rec *r)
{
	int ret = 0;

	r->events = json_array();
	if (!r->events)
		return fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i < sizeof(sched_events) / sizeof(sched_events[0]); i++) {
		const char *name = sched_events[i].name;

		if (tracefs_event_file_exists(r->inst, "sched", name, "enable"))
			ret = enable_event(r, name);
		else if (sched_events[i].optional)
			fprintf(stderr, "schedreplay: this kernel has no sched/%s event\n", name);
		else
			ret = fail(r, SR_EXIT_FAIL, -ENOENT, "this kernel has no sched/%s event",
				   name);
	}
	if (ret || !r->o->stat_runtime)
		return ret;
	if (tracefs_event_file_exists(r->inst, "sched", "sched_stat_runtime", "enable"))
		return enable_event(r, "sched_stat_runtime");
	fprintf(stderr, "schedreplay: --stat-runtime: this kernel has no sched/sched_stat_runtime"
		" event\n");
	return 0;
}

static unsigned long long stat_field(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	/* "key: value" lines; "overrun" must not match "commit overrun". */
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* Read every CPU's stats into @st; a CPU without a buffer stays !valid. */
static int read_stats(struct rec *r, struct cpu_stat *st)
{
	char file[64];

	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		char *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		st[cpu].valid = false;
		if (!tracefs_file_exists(r->inst, file))
			continue;
		text = tracefs_instance_file_read(r->inst, file, NULL);
		if (!text)
			return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot read %s", file);
		st[cpu] = (struct cpu_stat) {
			.valid = true,
			.entries = stat_field(text, "entries"),
			.overrun = stat_field(text, "overrun"),
			.commit_overrun = stat_field(text, "commit overrun"),
			.dropped = stat_field(text, "dropped events"),
		};
		free(text);
	}
	return 0;
}

static int setup_instance(struct rec *r)
{
	const struct rec_opts *o = r->o;
	int ret;

	if (tracefs_trace_off(r->inst) ||
	    tracefs_instance_file_write(r->inst, "trace_clock", o->clock) < 0)
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot set up instance %s: %s",
			    r->name, strerror(errno));
	ret = match_subbuf_size(r);
	if (ret)
		return ret;
	r->buffer_kb = o->buffer_kb ? o->buffer_kb : default_buffer_kb(r->nr_cpus);
	if (tracefs_instance_set_buffer_size(r->inst, r->buffer_kb, -1))
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot size the ring buffer to %ld KiB "
			    "x %d CPUs: %s (try a smaller -b)", r->buffer_kb, r->nr_cpus,
			    strerror(errno));
	ret = enable_events(r);
	if (ret)
		return ret;
	/* Clearing also resets the per-CPU counters; keep a baseline anyway. */
	if (tracefs_instance_file_clear(r->inst, "trace"))
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot clear instance %s", r->name);
	return read_stats(r, r->base);
}

static int setup(struct rec *r)
{
	int ret;

	if (geteuid())
		return fail(r, SR_EXIT_FAIL, -EPERM, "record needs root (tracefs)");
	r->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (r->nr_cpus <= 0)
		return fail(r, SR_EXIT_FAIL, -EINVAL, "cannot count CPUs");
	r->base = calloc(r->nr_cpus, sizeof(*r->base));
	r->stat = calloc(r->nr_cpus, sizeof(*r->stat));
	if (!r->base || !r->stat)
		return fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	ret = find_tracefs(r);
	if (!ret)
		ret = check_clock(r);
	if (!ret)
		ret = create_instance(r);
	if (!ret)
		ret = setup_instance(r);
	return ret;
}

/* A pending SIGINT/SIGTERM/SIGHUP, taken off the queue; 0 if none. */
static int take_signal(const struct rec *r)
{
	static const struct timespec now = { 0, 0 };
	sigset_t set = r->sigs;

	sigdelset(&set, SIGCHLD);
	return sigtimedwait(&set, NULL, &now) > 0 ? 1 : 0;
}

/*
 * fork and exec COMMAND.  The child reports a failed exec through a
 * close-on-exec pipe, so "no such command" is an error of ours, not a
 * status of a command that never ran.
 */
static int spawn(struct rec *r, pid_t *pid)
{
	int pfd[2], err = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC))
		return fail(r, SR_EXIT_FAIL, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		return fail(r, SR_EXIT_FAIL, -err, "fork: %s", strerror(err));
	}
	if (!*pid) {
		close(pfd[0]);
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
		execvp(r->o->cmd[0], r->o->cmd);
		err = errno;
		/* If even this fails, the parent sees a plain exit status 127. */
		n = write(pfd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n != sizeof(err))
		return 0;
	waitpid(*pid, NULL, 0);
	return fail(r, SR_EXIT_BAD_INPUT, -err, "cannot run '%s': %s", r->o->cmd[0],
		    strerror(err));
}

/* Stop recording at the first interrupt; a second one kills COMMAND. */
static void on_interrupt(struct rec *r, pid_t pid, const siginfo_t *si)
{
	if (pid <= 0)
		return;		/* kill() of 0 or -1 would hit more than COMMAND */
	if (r->signo) {
		kill(pid, SIGKILL);
		return;
	}
	r->signo = si->si_signo;
	tracefs_trace_off(r->inst);
	fprintf(stderr, "schedreplay: %s: recording stopped, waiting for COMMAND to exit\n",
		strsignal(si->si_signo));
	/* A terminal's Ctrl-C already reached COMMAND; pass on only what was sent to us. */
	if (si->si_code != SI_KERNEL)
		kill(pid, si->si_signo);
}

static int wait_command(struct rec *r, pid_t pid)
{
	siginfo_t si;

	for (;;) {
		int sig = sigwaitinfo(&r->sigs, &si);

		if (sig < 0 && errno == EINTR)
			continue;
		if (sig < 0)
			return fail(r, SR_EXIT_FAIL, -errno, "sigwaitinfo: %s", strerror(errno));
		if (sig != SIGCHLD)
			on_interrupt(r, pid, &si);
		else if (waitpid(pid, &r->status, WNOHANG) == pid)
			return 0;
	}
}

static void print_cmd(char **cmd)
{
	fprintf(stderr, "schedreplay: running:");
	for (; *cmd; cmd++)
		fprintf(stderr, " %s", *cmd);
	fputc('\n', stderr);
}

static int run(struct rec *r)
{
	pid_t pid = 0;
	int ret;

	if (take_signal(r))
		return fail(r, SR_EXIT_FAIL, -EINTR, "interrupted before COMMAND started");
	fprintf(stderr, "schedreplay: recording %zu sched events in tracefs instance %s: "
		"%ld KiB x %d CPUs, clock %s\n", json_array_size(r->events), r->name,
		r->buffer_kb, r->nr_cpus, r->o->clock);
	print_cmd(r->o->cmd);
	/* On before the fork: the trace holds COMMAND's fork and exec. */
	if (tracefs_trace_on(r->inst))
		return fail(r, SR_EXIT_FAIL, neg_errno(), "cannot turn tracing on");
	ret = spawn(r, &pid);
	if (!ret)
		ret = wait_command(r, pid);
	tracefs_trace_off(r->inst);
	return ret;
}

/* Loss counters over the run; the stats text stays for the trace.dat. */
static void count_lost(struct rec *r)
{
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct cpu_stat *s = &r->stat[cpu];
		const struct cpu_stat *b = &r->base[cpu];

		if (!s->valid)
			continue;
		if (b->valid) {
			s->overrun -= b->overrun < s->overrun ? b->overrun : s->overrun;
			s->commit_overrun -= b->commit_overrun < s->commit_overrun ?
					     b->commit_overrun : s->commit_overrun;
			s->dropped -= b->dropped < s->dropped ? b->dropped : s->dropped;
		}
		r->lost += s->overrun + s->commit_overrun + s->dropped;
	}
}

/* The instance's pages, as the top-level buffer of r->o->out. */
static int write_trace(struct rec *r)
{
	struct sr_err err = { "" };
	bool *has = calloc(r->nr_cpus, sizeof(*has));
	struct sr_trace_out out = {
		.path = r->o->out, .inst = r->inst, .nr_cpus = r->nr_cpus, .has_buffer = has,
		.clock = r->o->clock, .writer = "schedreplay " SR_VERSION,
	};
	int ret;

	if (!has)
		return fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	for (int cpu = 0; cpu < r->nr_cpus; cpu++)
		has[cpu] = r->stat[cpu].valid;
	ret = sr_trace_write_instance(&out, &err);
	free(has);
	return ret ? fail(r, SR_EXIT_FAIL, ret, "%s", err.msg) : 0;
}

/* Undo everything setup() did; safe after a partial setup. */
static void teardown(struct rec *r)
{
	if (r->inst) {
		tracefs_trace_off(r->inst);
		if (tracefs_instance_destroy(r->inst))
			fprintf(stderr, "schedreplay: cannot remove tracefs instance %s: %s\n",
				r->name, strerror(errno));
		tracefs_instance_free(r->inst);
		r->inst = NULL;
	}
	if (r->mounted_tracefs && umount(TRACEFS_PATH))
		fprintf(stderr, "schedreplay: cannot unmount %s: %s\n", TRACEFS_PATH,
			strerror(errno));
	r->mounted_tracefs = false;
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
	json_t *a = json_array();

	for (; a && *argv; argv++)
		json_array_append_new(a, json_string(*argv));
	return a;
}

/* What was recorded, for --json and schedreplay-snapshot.json. */
static json_t *summary_json(const struct rec *r)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:O, s:o, s:o, s:o, s:o}",
			 "trace", r->o->out, "trace_buffer", "top-level",
			 "tracefs_instance", r->name, "clock", r->o->clock,
			 "cpus", r->nr_cpus, "buffer_kb", (json_int_t)r->buffer_kb,
			 "events", r->events, "command", argv_json(r->o->cmd),
			 "command_status", status_json(r),
			 "interrupted", r->signo ? json_string(strsignal(r->signo)) : json_false(),
			 "lost_events", lost_json(r));
}

static int write_snapshot(const struct rec *r, json_t *sum)
{
	struct sr_snapshot_opts so = { .root = NULL, .extra = sum };
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
	json_object_set_new(sum, "snapshot", json_pack("{s:s, s:i, s:i}", "dir", dir,
							"captured", res.captured,
							"missing", res.missing));
	return 0;
}

/* Exit code and message for a run that wrote its file. */
static int outcome(const struct rec *r, char *msg, size_t size)
{
	bool failed = !WIFEXITED(r->status) || WEXITSTATUS(r->status);

	if (r->lost && !r->o->allow_lost) {
		snprintf(msg, size, "%llu events were lost: raise -b (now %ld KiB per CPU) or pass "
			 "--allow-lost", r->lost, r->buffer_kb);
		return REC_EXIT_LOST;
	}
	/* After our Ctrl-C, COMMAND's death is what was asked for. */
	if (failed && !r->signo) {
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
			json_object_set_new(sum, "error", json_pack("{s:s, s:i}", "message",
				msg[0] ? msg : "cannot write the snapshot", "exit_code", code));
		json_dumpf(sum, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (msg[0]) {
		sr_cli_error(cli, code, "%s", msg);
	}
	json_decref(sum);
	return code;
}

/* Keep interrupts for ourselves from setup to teardown: an instance must not leak. */
static void block_signals(struct rec *r)
{
	sigemptyset(&r->sigs);
	sigaddset(&r->sigs, SIGINT);
	sigaddset(&r->sigs, SIGTERM);
	sigaddset(&r->sigs, SIGHUP);
	sigaddset(&r->sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &r->sigs, &r->oldmask);
}

/* Interrupts that came too late to stop anything are consumed, not delivered. */
static void unblock_signals(const struct rec *r)
{
	while (take_signal(r))
		;
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
}

static void free_rec(struct rec *r)
{
	free(r->base);
	free(r->stat);
	json_decref(r->events);
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
	block_signals(&r);
	ret = setup(&r);
	if (!ret)
		ret = run(&r);
	if (!ret)
		ret = read_stats(&r, r.stat);
	if (!ret) {
		count_lost(&r);
		ret = write_trace(&r);
	}
	teardown(&r);
	unblock_signals(&r);
	if (ret)
		ret = sr_cli_error(cli, r.code, "%s", r.msg);
	else
		ret = report(cli, &r);
	free_rec(&r);
	return ret;
}
