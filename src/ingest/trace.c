// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: open a trace.dat with libtracecmd, check what can be checked
 * before its data is read (CPU count, page geometry, a clock that counts
 * nanoseconds), pick the buffer that holds the sched events, and describe
 * the trace.  Decoding is in trace-fields.c, the pass in trace-iter.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace-priv.h"
#include "zlib-proto.h"

static const char *const ev_names[SR_EV_NR] = {
	"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
	"sched_migrate_task", "sched_process_fork", "sched_process_exit",
	"sched_process_exec", "sched_stat_runtime",
	"srqf", "srqf_ret", "thl", "thl_ret", "fig", "fig_ret", "rqs", "sag", "cgroup_attach_task",
	"cpuhp_enter", "cpuhp_exit", "other",
};

const char *sr_ev_name(enum sr_ev_type type)
{
	return (unsigned int)type < SR_EV_NR ? ev_names[type] : "invalid";
}

/* trace-cmd files start with "\027\010\104tracing". */
static int check_magic(const char *path, struct sr_err *err)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char buf[10];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return sr_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return sr_err_set(err, -EISDIR, "%s: is a directory, not a trace.dat file", path);
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != (ssize_t)sizeof(buf) || memcmp(buf, magic, sizeof(buf)))
		return sr_err_set(err, -EINVAL, "%s: not a trace-cmd trace.dat file (bad magic)",
				  path);
	return 0;
}

static void read_meta(struct sr_trace *t)
{
	const char *s;

	t->info.nr_cpus = tracecmd_cpus(t->handle);
	t->info.long_size = tep_get_long_size(t->tep);
	t->info.page_size = tracecmd_page_size(t->handle);
	t->info.file_version = (int)tracecmd_get_in_file_version(t->top);
	s = tracecmd_get_trace_clock(t->handle);
	snprintf(t->info.clock, sizeof(t->info.clock), "%s", s ? s : "");
	s = tracecmd_get_uname(t->top);
	snprintf(t->info.uname, sizeof(t->info.uname), "%s", s ? s : "");
	sr_release_from_uname(t->info.uname, t->info.release, sizeof(t->info.release));
}

/*
 * The page geometry kbuffer trusts when it walks a page: a page size that
 * is not a power of two, or a long that is neither 4 nor 8 bytes, can only
 * come from a damaged header, and would send it outside the page.
 */
static int check_geometry(const struct sr_trace *t, const char *path, struct sr_err *err)
{
	const struct sr_trace_info *in = &t->info;
	int ps = in->page_size;

	if (in->nr_cpus <= 0 || in->nr_cpus > SR_MAX_CPUS)
		return sr_err_set(err, -EINVAL, "%s: the file says it holds %d CPUs: schedreplay "
				  "handles machines of 1 to %d CPUs (or the header is corrupt)", path,
				  in->nr_cpus, SR_MAX_CPUS);
	if (ps < 1024 || ps > (1 << 24) || (ps & (ps - 1)))
		return sr_err_set(err, -EINVAL, "%s: corrupt header: page size %d is not a power of "
				  "two between 1 KiB and 16 MiB", path, ps);
	if (in->long_size != 4 && in->long_size != 8)
		return sr_err_set(err, -EINVAL, "%s: corrupt header: a long of %d bytes", path,
				  in->long_size);
	if (tep_get_header_timestamp_size(t->tep) != 8)
		return sr_err_set(err, -EINVAL, "%s: corrupt header_page format: timestamps of %d "
				  "bytes, not 8", path, tep_get_header_timestamp_size(t->tep));
	for (int cpu = 0; cpu < in->nr_cpus; cpu++) {
		off_t size = tracecmd_get_cpu_file_size(t->handle, cpu);

		if (size > 0 && size % ps)
			return sr_err_set(err, -EINVAL, "%s: CPU %d's data (%lld bytes) is not whole "
					  "pages of %d bytes: corrupt or truncated", path, cpu,
					  (long long)size, ps);
	}
	return 0;
}

/* Trace clocks that count nanoseconds (kernel/trace/trace.c trace_clocks[]). */
static bool clock_in_ns(const char *clock)
{
	static const char *const ns[] = { "local", "global", "perf", "mono", "mono_raw",
					  "boot", "tai" };

	for (size_t i = 0; i < SR_ARRAY_SIZE(ns); i++)
		if (!strcmp(clock, ns[i]))
			return true;
	return false;
}

/*
 * Latencies, cache-hot windows, load averages and the kernel's jiffies all
 * need nanoseconds: refuse a clock that counts something else, rather than
 * report numbers in the wrong unit.
 */
static int check_clock(struct sr_trace *t, const char *path, struct sr_err *err)
{
	const char *c = t->info.clock;

	if (!strcmp(c, "x86-tsc") && (tracecmd_get_flags(t->top) & SR_TRACECMD_FL_IN_USECS)) {
		t->info.clock_tsc2nsec = true;
		return 0;
	}
	if (!strcmp(c, "x86-tsc") || !strcmp(c, "ppc-tb"))
		return sr_err_set(err, -EINVAL, "%s: trace clock '%s' counts CPU cycles and the file "
				  "has no conversion to nanoseconds (trace-cmd record --tsc2nsec "
				  "stores one); record with -C local, global, mono or boot", path, c);
	if (!strcmp(c, "counter") || !strcmp(c, "uptime"))
		return sr_err_set(err, -EINVAL, "%s: trace clock '%s' does not count nanoseconds "
				  "(%s); latencies, cache-hot windows and load averages need time: "
				  "record with -C local, global, mono or boot", path, c,
				  c[0] == 'c' ? "it numbers events" : "it counts jiffies");
	t->info.clock_assumed_ns = !clock_in_ns(c);
	return 0;
}

/*
 * The kernel's buffer statistics the file saved ("CPU: N" then "key: value"
 * lines): overruns and drops are events lost before the data was read,
 * and "read events" lets us notice data the library silently skipped.
 */
static void read_cpustats(struct sr_trace *t)
{
	const char *p = tracecmd_get_cpustats(t->handle);
	struct sr_cpu_ingest *c = NULL;
	char line[128];

	for (int i = 0; i < t->info.nr_cpus; i++)
		t->info.cpu[i].stat_overrun = t->info.cpu[i].stat_dropped =
			t->info.cpu[i].stat_read = -1;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		long long v;
		int cpu;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		p = nl ? nl + 1 : p + n;
		if (sscanf(line, "CPU: %d", &cpu) == 1) {
			c = cpu >= 0 && cpu < t->info.nr_cpus ? &t->info.cpu[cpu] : NULL;
		} else if (c && sscanf(line, "overrun: %lld", &v) == 1) {
			c->stat_overrun = v;
		} else if (c && sscanf(line, "dropped events: %lld", &v) == 1) {
			c->stat_dropped = v;
		} else if (c && sscanf(line, "read events: %lld", &v) == 1) {
			c->stat_read = v;
		}
	}
}

/*
 * Whoever a CPU's first record names as current was running since the
 * trace began: nothing switched before it.  Peek at it (and note where it
 * is in the file), then rewind.
 */
static void read_first_pids(struct sr_trace *t, uint64_t *first_off)
{
	for (int cpu = 0; cpu < t->info.nr_cpus; cpu++) {
		struct tep_record *rec;

		sr_tr_lib_enter(t, cpu);
		rec = tracecmd_read_cpu_first(t->handle, cpu);
		sr_tr_lib_leave(t);
		t->info.cpu[cpu].first_pid = rec ? tep_data_pid(t->tep, rec) : -1;
		if (rec) {
			first_off[cpu] = rec->offset;
			t->info.cpu[cpu].first_ts = rec->ts;
			if (!t->info.first_ts || rec->ts < t->info.first_ts)
				t->info.first_ts = rec->ts;
			tracecmd_free_record(rec);
		}
		sr_tr_lib_enter(t, cpu);
		tracecmd_set_cpu_to_timestamp(t->handle, cpu, 0);
		sr_tr_lib_leave(t);
	}
}

/*
 * While libtracecmd opens a file nothing it prints is ours: version 1.3
 * printf()s "File possibly truncated" to stdout, where our report goes, and
 * when a damaged header makes it free a pointer twice, glibc's abort line
 * goes to stderr before the guard's one message (src/cli/guard.c).
 */
struct quiet {
	int out, err, null;
};

static void quiet_on(struct quiet *q)
{
	fflush(stdout);
	fflush(stderr);
	q->null = open("/dev/null", O_WRONLY);
	q->out = q->null >= 0 ? dup(STDOUT_FILENO) : -1;
	q->err = q->null >= 0 ? dup(STDERR_FILENO) : -1;
	if (q->out >= 0)
		dup2(q->null, STDOUT_FILENO);
	if (q->err >= 0)
		dup2(q->null, STDERR_FILENO);
}

static void quiet_off(struct quiet *q)
{
	fflush(stdout);
	fflush(stderr);
	if (q->out >= 0) {
		dup2(q->out, STDOUT_FILENO);
		close(q->out);
	}
	if (q->err >= 0) {
		dup2(q->err, STDERR_FILENO);
		close(q->err);
	}
	if (q->null >= 0)
		close(q->null);
}

/* The file's headers and data index, through libtracecmd. */
static int open_file(struct sr_trace *t, const char *path, struct sr_err *err)
{
	struct quiet q;
	int ret;

	sr_tr_lib_enter(t, -1);
	quiet_on(&q);
	t->top = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	quiet_off(&q);
	sr_tr_lib_leave(t);
	if (!t->top)
		return sr_err_set(err, -EINVAL, "%s: cannot read the trace.dat headers (truncated or "
				  "corrupt file)", path);
	sr_tr_lib_enter(t, -1);
	quiet_on(&q);
	ret = tracecmd_init_data(t->top);
	quiet_off(&q);
	sr_tr_lib_leave(t);
	if (ret < 0) {
		/*
		 * libtracecmd 1.3 crashes in tracecmd_close() on a handle whose
		 * init failed (tracecmd_open() itself does that on a truncated
		 * file), so this handle is deliberately not closed.
		 */
		t->top = NULL;
		return sr_err_set(err, -EINVAL, "%s: the event data is truncated or corrupt (the "
				  "file is shorter than its headers announce)", path);
	}
	t->tep = tracecmd_get_tep(t->top);
	/* memcpy into the low bytes of a u64 is only right little-endian on both sides */
	t->same_endian = !tep_is_file_bigendian(t->tep) &&
			 __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	return 0;
}

/* Everything about the file that can be known before its events are read. */
static int describe(struct sr_trace *t, const struct sr_trace_opts *o, struct sr_err *err)
{
	uint64_t *first_off;
	int ret;

	sr_tr_resolve_events(t);
	if (!t->info.has_format[SR_EV_SWITCH] && !t->info.has_format[SR_EV_WAKEUP] &&
	    !t->info.has_format[SR_EV_WAKING])
		return sr_err_set(err, -ENODATA, "%s: no sched_switch, sched_waking or sched_wakeup "
				  "events in this trace: nothing to analyse (record with -e sched)",
				  o->path);
	if (sr_tr_build_type_map(t))
		return sr_err_set(err, -ENOMEM, "out of memory");
	ret = sr_tr_choose_buffer(t, o->buffer, o->path, err);
	if (ret)
		return ret;
	read_meta(t);
	ret = check_geometry(t, o->path, err);
	if (!ret && !o->any_clock)
		ret = check_clock(t, o->path, err);
	if (ret)
		return ret;
	t->info.cpu = calloc(t->info.nr_cpus, sizeof(*t->info.cpu));
	first_off = calloc(t->info.nr_cpus, sizeof(*first_off));
	if (!t->info.cpu || !first_off) {
		free(first_off);
		return sr_err_set(err, -ENOMEM, "out of memory");
	}
	read_first_pids(t, first_off);
	ret = sr_tr_check_pages(t, first_off, o->path, err);
	free(first_off);
	read_cpustats(t);
	return ret;
}

int sr_trace_open_opts(struct sr_trace **out, const struct sr_trace_opts *o, struct sr_err *err)
{
	struct sr_trace *t;
	int ret;

	*out = NULL;
	ret = check_magic(o->path, err);
	if (ret)
		return ret;
	ret = sr_zlib_register();
	if (ret)
		return sr_err_set(err, ret, "cannot register the zlib decompressor: %s",
				  strerror(-ret));
	t = calloc(1, sizeof(*t));
	if (!t)
		return sr_err_set(err, -ENOMEM, "out of memory");
	t->watch = o->watch;
	t->threads = o->threads;
	sr_tr_lib_thread(t);
	ret = open_file(t, o->path, err);
	if (!ret)
		ret = describe(t, o, err);
	if (ret) {
		sr_trace_close(t);
		return ret;
	}
	trace_seq_init(&t->seq);
	*out = t;
	return 0;
}

int sr_trace_open(struct sr_trace **out, const char *path, struct sr_err *err)
{
	const struct sr_trace_opts o = { .path = path };

	return sr_trace_open_opts(out, &o, err);
}

const struct sr_trace_info *sr_trace_info(const struct sr_trace *t)
{
	return &t->info;
}

void sr_trace_close(struct sr_trace *t)
{
	if (!t)
		return;
	if (t->seq.buffer)
		trace_seq_destroy(&t->seq);
	sr_tr_close_buffer(t);
	if (t->top)
		tracecmd_close(t->top);
	free(t->type_of);
	free(t->info.cpu);
	free(t);
}
