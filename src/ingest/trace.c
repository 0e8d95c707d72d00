// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: open a trace.dat with libtracecmd, resolve the sched events'
 * ids and fields once, then stream records in timestamp order as
 * struct sr_event.  Field sizes come from the file's formats (old
 * kernels declare comm[32] with size 16, prev_state as 4 or 8 bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace.h"
#include "tracecmd-priv.h"
#include "zlib-proto.h"

enum fld {
	F_PID, F_PRIO, F_COMM, F_TARGET, F_SUCCESS,
	F_PREV_STATE, F_NEXT_PID, F_NEXT_PRIO, F_NEXT_COMM,
	F_ORIG, F_DEST, F_CHILD_PID, F_CHILD_COMM, F_RUNTIME,
	F_WAKE_FLAGS, F_LOAD, F_UTIL, F_HLOAD, F_SPAN, F_SD_WEIGHT, F_CGROUP_ID,
	F_COMMON_PID, F_COMMON_FLAGS,
	F_NR
};

struct ev_desc {
	const char *sys;		/* NULL: any system (probe events) */
	const char *name;
	const char *fields[F_NR];	/* field name per slot, NULL if unused */
	unsigned int required;		/* bitmask of slots that must exist */
};

#define R(f) (1u << (f))

static const struct ev_desc descs[SR_EV_OTHER] = {
	[SR_EV_SWITCH] = { "sched", "sched_switch", {
		[F_PID] = "prev_pid", [F_PRIO] = "prev_prio", [F_COMM] = "prev_comm",
		[F_PREV_STATE] = "prev_state", [F_NEXT_PID] = "next_pid",
		[F_NEXT_PRIO] = "next_prio", [F_NEXT_COMM] = "next_comm" },
		R(F_PID) | R(F_PREV_STATE) | R(F_NEXT_PID) },
	[SR_EV_WAKING] = { "sched", "sched_waking", {
		[F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm", [F_TARGET] = "target_cpu" },
		R(F_PID) | R(F_TARGET) },
	[SR_EV_WAKEUP] = { "sched", "sched_wakeup", {
		[F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm", [F_TARGET] = "target_cpu",
		[F_SUCCESS] = "success" },
		R(F_PID) | R(F_TARGET) },
	[SR_EV_WAKEUP_NEW] = { "sched", "sched_wakeup_new", {
		[F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm", [F_TARGET] = "target_cpu",
		[F_SUCCESS] = "success" },
		R(F_PID) | R(F_TARGET) },
	[SR_EV_MIGRATE] = { "sched", "sched_migrate_task", {
		[F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm",
		[F_ORIG] = "orig_cpu", [F_DEST] = "dest_cpu" },
		R(F_PID) | R(F_ORIG) | R(F_DEST) },
	[SR_EV_FORK] = { "sched", "sched_process_fork", {
		[F_PID] = "parent_pid", [F_COMM] = "parent_comm",
		[F_CHILD_PID] = "child_pid", [F_CHILD_COMM] = "child_comm" },
		R(F_PID) | R(F_CHILD_PID) },
	[SR_EV_EXIT] = { "sched", "sched_process_exit", {
		[F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm" },
		R(F_PID) },
	[SR_EV_EXEC] = { "sched", "sched_process_exec", { [F_PID] = "pid" }, R(F_PID) },
	[SR_EV_STAT_RUNTIME] = { "sched", "sched_stat_runtime", {
		[F_PID] = "pid", [F_COMM] = "comm", [F_RUNTIME] = "runtime" },
		R(F_PID) | R(F_RUNTIME) },
	/* probes: field names as `record --probes` defines them */
	[SR_EV_SELECT] = { NULL, "srqf", {
		[F_PID] = "pid", [F_ORIG] = "prev_cpu", [F_WAKE_FLAGS] = "wake_flags",
		[F_LOAD] = "load_avg", [F_UTIL] = "util_avg" },
		R(F_PID) | R(F_WAKE_FLAGS) },
	[SR_EV_SELECT_RET] = { NULL, "srqf_ret", { [F_TARGET] = "cpu" }, R(F_TARGET) },
	[SR_EV_HLOAD] = { NULL, "thl", { [F_PID] = "pid" }, R(F_PID) },
	[SR_EV_HLOAD_RET] = { NULL, "thl_ret", { [F_HLOAD] = "h_load" }, R(F_HLOAD) },
	[SR_EV_IDLEST_GROUP] = { NULL, "fig", {
		[F_PID] = "pid", [F_SD_WEIGHT] = "sd_weight", [F_TARGET] = "this_cpu" }, R(F_PID) },
	[SR_EV_IDLEST_GROUP_RET] = { NULL, "fig_ret", { [F_SPAN] = "span" }, R(F_SPAN) },
	[SR_EV_AUTOGROUP] = { NULL, "sag", { [F_PID] = "pid" }, R(F_PID) },
	[SR_EV_CGROUP_ATTACH] = { "cgroup", "cgroup_attach_task", {
		[F_PID] = "pid", [F_COMM] = "comm", [F_CGROUP_ID] = "dst_id" },
		R(F_PID) | R(F_CGROUP_ID) },
};

struct ev_slot {
	int id;				/* -1: not in the file */
	struct tep_format_field *f[F_NR];
};

#define PS_CACHE 64

struct sr_trace {
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	struct sr_trace_info info;
	struct ev_slot slot[SR_EV_OTHER];
	uint8_t *type_of;		/* event id -> enum sr_ev_type, ids 0..max_id */
	bool same_endian;		/* file and host are little-endian: read fields directly */
	int max_id;
	/* prev_state value -> decoded class, filled on first sight of each value */
	long long ps_raw[PS_CACHE];
	enum sr_prev_state ps_cls[PS_CACHE];
	int ps_n;
	struct trace_seq seq;
	/* iteration */
	sr_event_fn fn;
	void *fn_data;
	int cb_ret;
};

static const char *const ev_names[SR_EV_NR] = {
	"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
	"sched_migrate_task", "sched_process_fork", "sched_process_exit",
	"sched_process_exec", "sched_stat_runtime",
	"srqf", "srqf_ret", "thl", "thl_ret", "fig", "fig_ret", "sag", "cgroup_attach_task",
	"other",
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

static void resolve_events(struct sr_trace *t)
{
	for (int i = 0; i < SR_EV_OTHER; i++) {
		struct ev_slot *s = &t->slot[i];
		struct tep_event *ev = tep_find_event_by_name(t->tep, descs[i].sys, descs[i].name);

		s->id = -1;
		if (!ev)
			continue;
		for (int f = 0; f < F_NR; f++)
			s->f[f] = descs[i].fields[f] ? tep_find_field(ev, descs[i].fields[f]) : NULL;
		s->f[F_COMMON_PID] = tep_find_common_field(ev, "common_pid");
		s->f[F_COMMON_FLAGS] = tep_find_common_field(ev, "common_flags");
		bool ok = true;

		for (int f = 0; f < F_NR; f++)
			if ((descs[i].required & R(f)) && !s->f[f])
				ok = false;
		if (!ok)
			continue;	/* a format we cannot read: its records count as other */
		s->id = ev->id;
		t->info.has_format[i] = true;
	}
}

static void read_meta(struct sr_trace *t)
{
	const char *s;

	t->info.nr_cpus = tep_get_cpus(t->tep);
	t->info.long_size = tep_get_long_size(t->tep);
	t->info.file_version = (int)tracecmd_get_in_file_version(t->handle);
	s = tracecmd_get_trace_clock(t->handle);
	snprintf(t->info.clock, sizeof(t->info.clock), "%s", s ? s : "");
	s = tracecmd_get_uname(t->handle);
	snprintf(t->info.uname, sizeof(t->info.uname), "%s", s ? s : "");
	sr_release_from_uname(t->info.uname, t->info.release, sizeof(t->info.release));
}

static enum sr_ev_type record_type(const struct sr_trace *t, int id)
{
	return id >= 0 && id <= t->max_id ? t->type_of[id] : SR_EV_OTHER;
}

/* A direct map from event id to type: one lookup per record. */
static int build_type_map(struct sr_trace *t)
{
	t->max_id = -1;
	for (int i = 0; i < SR_EV_OTHER; i++)
		if (t->slot[i].id > t->max_id)
			t->max_id = t->slot[i].id;
	t->type_of = malloc(t->max_id + 1 > 0 ? t->max_id + 1 : 1);
	if (!t->type_of)
		return -ENOMEM;
	memset(t->type_of, SR_EV_OTHER, t->max_id + 1 > 0 ? t->max_id + 1 : 1);
	for (int i = 0; i < SR_EV_OTHER; i++)
		if (t->slot[i].id >= 0)
			t->type_of[t->slot[i].id] = (uint8_t)i;
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
 * trace began: nothing switched before it.  Peek at it, then rewind.
 */
static void read_first_pids(struct sr_trace *t)
{
	for (int cpu = 0; cpu < t->info.nr_cpus; cpu++) {
		struct tep_record *rec = tracecmd_read_cpu_first(t->handle, cpu);

		t->info.cpu[cpu].first_pid = rec ? tep_data_pid(t->tep, rec) : -1;
		if (rec) {
			t->info.cpu[cpu].first_ts = rec->ts;
			if (!t->info.first_ts || rec->ts < t->info.first_ts)
				t->info.first_ts = rec->ts;
			tracecmd_free_record(rec);
		}
		tracecmd_set_cpu_to_timestamp(t->handle, cpu, 0);
	}
}

/*
 * libtracecmd 1.3 printf()s "File possibly truncated" to stdout, where our
 * report goes; keep stdout clean while it initialises the data.
 */
static int init_data_quietly(struct tracecmd_input *handle)
{
	int saved, null, ret;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	null = open("/dev/null", O_WRONLY);
	if (saved >= 0 && null >= 0)
		dup2(null, STDOUT_FILENO);
	ret = tracecmd_init_data(handle);
	fflush(stdout);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDOUT_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	return ret;
}

int sr_trace_open(struct sr_trace **out, const char *path, struct sr_err *err)
{
	struct sr_trace *t;
	int ret;

	*out = NULL;
	ret = check_magic(path, err);
	if (ret)
		return ret;
	ret = sr_zlib_register();
	if (ret)
		return sr_err_set(err, ret, "cannot register the zlib decompressor: %s",
				  strerror(-ret));
	t = calloc(1, sizeof(*t));
	if (!t)
		return sr_err_set(err, -ENOMEM, "out of memory");
	t->handle = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!t->handle) {
		ret = sr_err_set(err, -EINVAL,
				 "%s: cannot read the trace.dat headers (truncated or corrupt file)",
				 path);
		goto out_err;
	}
	if (init_data_quietly(t->handle) < 0) {
		/*
		 * libtracecmd 1.3 crashes in tracecmd_close() on a handle whose
		 * init failed (tracecmd_open() itself does that on a truncated
		 * file), so this handle is deliberately not closed.
		 */
		t->handle = NULL;
		ret = sr_err_set(err, -EINVAL,
				 "%s: the event data is truncated or corrupt (the file is shorter than "
				 "its headers announce)", path);
		goto out_err;
	}
	t->tep = tracecmd_get_tep(t->handle);
	/* memcpy into the low bytes of a u64 is only right little-endian on both sides */
	t->same_endian = !tep_is_file_bigendian(t->tep) &&
			 __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	read_meta(t);
	if (t->info.nr_cpus <= 0 || t->info.nr_cpus > SR_MAX_CPUS) {
		ret = sr_err_set(err, -EINVAL, "%s: implausible CPU count %d", path,
				 t->info.nr_cpus);
		goto out_err;
	}
	t->info.cpu = calloc(t->info.nr_cpus, sizeof(*t->info.cpu));
	if (!t->info.cpu) {
		ret = sr_err_set(err, -ENOMEM, "out of memory");
		goto out_err;
	}
	resolve_events(t);
	if (!t->info.has_format[SR_EV_SWITCH] && !t->info.has_format[SR_EV_WAKEUP] &&
	    !t->info.has_format[SR_EV_WAKING]) {
		ret = sr_err_set(err, -ENODATA,
				 "%s: no sched_switch, sched_waking or sched_wakeup events in this "
				 "trace: nothing to analyse (record with -e sched)", path);
		goto out_err;
	}
	read_first_pids(t);
	read_cpustats(t);
	if (build_type_map(t)) {
		ret = sr_err_set(err, -ENOMEM, "out of memory");
		goto out_err;
	}
	trace_seq_init(&t->seq);
	*out = t;
	return 0;
out_err:
	if (t->handle)
		tracecmd_close(t->handle);
	free(t->type_of);
	free(t->info.cpu);
	free(t);
	return ret;
}

const struct sr_trace_info *sr_trace_info(const struct sr_trace *t)
{
	return &t->info;
}

void sr_trace_close(struct sr_trace *t)
{
	if (!t)
		return;
	trace_seq_destroy(&t->seq);
	tracecmd_close(t->handle);
	free(t->type_of);
	free(t->info.cpu);
	free(t);
}

/* Read a numeric field; false if the record is too short to hold it. */
static bool rd_num(const struct sr_trace *t, const struct tep_record *rec,
		   const struct tep_format_field *f, long long *v)
{
	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    f->offset + f->size > rec->size)
		return false;
	if (t->same_endian) {
		/* the common case, without a library call per field */
		const char *p = (const char *)rec->data + f->offset;
		uint64_t u = 0;

		memcpy(&u, p, f->size);
		*v = (long long)u;
	} else {
		*v = (long long)tep_read_number(t->tep, (char *)rec->data + f->offset, f->size);
	}
	/* Sign-extend 1/2/4-byte signed fields (pid_t, int target_cpu, ...). */
	if (f->size < 8 && (f->flags & TEP_FIELD_IS_SIGNED)) {
		int shift = 64 - 8 * f->size;

		*v = (long long)((uint64_t)*v << shift) >> shift;
	}
	return true;
}

static int rd_int(const struct sr_trace *t, const struct tep_record *rec,
		  const struct tep_format_field *f, int dflt)
{
	long long v;

	return rd_num(t, rec, f, &v) ? (int)v : dflt;
}

/* Copy a char array field, trusting the size in the format, not the declaration. */
static void rd_comm(const struct tep_record *rec, const struct tep_format_field *f, char *dst)
{
	int n;

	dst[0] = '\0';
	if (!f || f->offset < 0 || f->offset + f->size > rec->size)
		return;
	n = f->size < SR_COMM_LEN - 1 ? f->size : SR_COMM_LEN - 1;
	memcpy(dst, (char *)rec->data + f->offset, n);
	dst[n] = '\0';
}

/* Classify a prev_state value the way the kernel's own print format shows it. */
static enum sr_prev_state decode_state(struct sr_trace *t, struct tep_record *rec, long long raw)
{
	enum sr_prev_state cls;
	const char *p;

	for (int i = 0; i < t->ps_n; i++)
		if (t->ps_raw[i] == raw)
			return t->ps_cls[i];
	trace_seq_reset(&t->seq);
	tep_print_event(t->tep, &t->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&t->seq);
	p = t->seq.buffer ? strstr(t->seq.buffer, "prev_state=") : NULL;
	if (p) {
		p += strlen("prev_state=");
		if (*p == 'R')
			cls = SR_PS_RUNNING;
		else if ((*p == 'X' || *p == 'Z' || *p == 'x') && (p[1] == ' ' || !p[1]))
			cls = SR_PS_DEAD;
		else
			cls = SR_PS_SLEEPING;
	} else {
		/* No usable print format: 0 and a lone preempt bit above 0xff mean runnable. */
		cls = (raw & 0xff) == 0 && __builtin_popcountll(raw) <= 1 ?
		      SR_PS_RUNNING : SR_PS_SLEEPING;
	}
	if (t->ps_n < PS_CACHE) {
		t->ps_raw[t->ps_n] = raw;
		t->ps_cls[t->ps_n++] = cls;
	}
	return cls;
}

static void fill_probe(const struct sr_trace *t, const struct tep_record *rec,
		       struct sr_event *ev)
{
	struct tep_format_field *const *f = t->slot[ev->type].f;
	long long v;

	ev->wake_flags = (unsigned int)rd_int(t, rec, f[F_WAKE_FLAGS], 0);
	ev->load_avg = rd_num(t, rec, f[F_LOAD], &v) ? (uint64_t)v : UINT64_MAX;
	ev->util_avg = rd_num(t, rec, f[F_UTIL], &v) ? (uint64_t)v : UINT64_MAX;
	ev->h_load = rd_num(t, rec, f[F_HLOAD], &v) ? (uint64_t)v : UINT64_MAX;
	ev->span = rd_num(t, rec, f[F_SPAN], &v) ? (uint64_t)v : 0;
	ev->sd_weight = rd_int(t, rec, f[F_SD_WEIGHT], -1);
	ev->cgroup_id = rd_int(t, rec, f[F_CGROUP_ID], -1);
}

static void fill_event(struct sr_trace *t, struct tep_record *rec, struct sr_event *ev)
{
	struct tep_format_field *const *f = t->slot[ev->type].f;
	long long v;

	ev->common_pid = rd_int(t, rec, f[F_COMMON_PID], -1);
	ev->irq_context = rd_num(t, rec, f[F_COMMON_FLAGS], &v) &&
			  (v & (SR_TRACE_FLAG_HARDIRQ | SR_TRACE_FLAG_SOFTIRQ | SR_TRACE_FLAG_NMI));
	ev->pid = rd_int(t, rec, f[F_PID], -1);
	ev->prio = rd_int(t, rec, f[F_PRIO], -1);
	ev->target_cpu = rd_int(t, rec, f[F_TARGET], -1);
	ev->success = rd_int(t, rec, f[F_SUCCESS], -1);
	ev->orig_cpu = rd_int(t, rec, f[F_ORIG], -1);
	ev->dest_cpu = rd_int(t, rec, f[F_DEST], -1);
	ev->next_pid = rd_int(t, rec, f[F_NEXT_PID], -1);
	ev->next_prio = rd_int(t, rec, f[F_NEXT_PRIO], -1);
	ev->child_pid = rd_int(t, rec, f[F_CHILD_PID], -1);
	ev->runtime = rd_num(t, rec, f[F_RUNTIME], &v) ? (uint64_t)v : 0;
	if (ev->type >= SR_EV_SELECT)
		fill_probe(t, rec, ev);
	rd_comm(rec, f[F_COMM], ev->comm);
	rd_comm(rec, ev->type == SR_EV_FORK ? f[F_CHILD_COMM] : f[F_NEXT_COMM], ev->next_comm);
	if (!sr_utf8_valid(ev->comm) || !sr_utf8_valid(ev->next_comm))
		t->info.bad_utf8++;
	if (ev->type == SR_EV_SWITCH && rd_num(t, rec, f[F_PREV_STATE], &v)) {
		ev->prev_state_raw = v;
		ev->prev_state = decode_state(t, rec, v);
	}
}

static void note_lost(struct sr_cpu_ingest *c, const struct tep_record *rec)
{
	if (!rec->missed_events)
		return;
	if (c->lost_windows < SR_MAX_LOST_WINDOWS) {
		struct sr_lost_window *w = &c->win[c->lost_windows];

		w->after = c->records ? c->last_ts : 0;
		w->before = rec->ts;
		w->count = rec->missed_events > 0 ? rec->missed_events : -1;
	}
	c->lost_windows++;
	if (rec->missed_events > 0)
		c->lost += rec->missed_events;
	else
		c->lost_unknown = true;
}

static int on_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *data)
{
	struct sr_trace *t = data;
	struct sr_cpu_ingest *c;
	struct sr_event ev;

	if (t->cb_ret)
		return t->cb_ret;	/* stopped: libtracecmd may still call us */
	if (cpu < 0 || cpu >= t->info.nr_cpus)
		return 0;	/* a buffer for a CPU the header did not announce */
	c = &t->info.cpu[cpu];
	note_lost(c, rec);
	if (!c->records)
		c->first_ts = rec->ts;
	c->last_ts = rec->ts;
	c->records++;
	if (!t->info.first_ts || rec->ts < t->info.first_ts)
		t->info.first_ts = rec->ts;
	if (rec->ts > t->info.last_ts)
		t->info.last_ts = rec->ts;

	memset(&ev, 0, sizeof(ev));
	ev.type = record_type(t, tep_data_type(t->tep, rec));
	ev.cpu = cpu;
	ev.ts = rec->ts;
	ev.missed_before = rec->missed_events;
	t->info.events[ev.type]++;
	if (ev.type != SR_EV_OTHER)
		fill_event(t, rec, &ev);
	else if (!rec->missed_events)
		return 0;	/* unrelated event: counted, not delivered */
	t->cb_ret = t->fn(&ev, t->fn_data);
	return t->cb_ret;
}

int sr_trace_iterate(struct sr_trace *t, sr_event_fn fn, void *data, struct sr_err *err)
{
	int ret;

	t->fn = fn;
	t->fn_data = data;
	t->cb_ret = 0;
	ret = tracecmd_iterate_events(t->handle, NULL, 0, on_record, t);
	if (t->cb_ret)
		return t->cb_ret;	/* the callback stopped the walk */
	if (ret < 0)
		return sr_err_set(err, -EIO, "error reading trace data (truncated file?)");
	return 0;
}
