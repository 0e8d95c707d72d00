// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: the sched events' ids and fields, resolved once per file from its
 * formats, and each record decoded into a struct sr_event.  Field sizes
 * come from the file's formats (old kernels declare comm[32] with size 16,
 * prev_state as 4 or 8 bytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace-priv.h"

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
	[SR_EV_EXEC] = { "sched", "sched_process_exec",
		{ [F_PID] = "pid", [F_FILENAME] = "filename" }, R(F_PID) },
	[SR_EV_STAT_RUNTIME] = { "sched", "sched_stat_runtime", {
		[F_PID] = "pid", [F_COMM] = "comm", [F_RUNTIME] = "runtime" },
		R(F_PID) | R(F_RUNTIME) },
	/* probes: field names as `record --probes` defines them */
	[SR_EV_SELECT] = { NULL, "srqf", {
		[F_PID] = "pid", [F_ORIG] = "prev_cpu", [F_WAKE_FLAGS] = "wake_flags",
		[F_LOAD] = "load_avg", [F_UTIL] = "util_avg", [F_CPU_LOAD] = "prev_load",
		[F_CPU_UTIL] = "prev_util", [F_FLIPS] = "flips", [F_FLIP_TS] = "flip_ts",
		[F_JIFFIES] = "jiffies", [F_SD_WEIGHT] = "llc_span", [F_LLC_SCAN] = "llc_scan",
		[F_LLC_IDLE_CORES] = "llc_idle_cores" },
		R(F_PID) | R(F_WAKE_FLAGS) },
	[SR_EV_SELECT_RET] = { NULL, "srqf_ret", { [F_TARGET] = "cpu" }, R(F_TARGET) },
	[SR_EV_HLOAD] = { NULL, "thl", { [F_PID] = "pid", [F_CPU_LOAD] = "cpu_load",
		[F_FLIPS] = "flips", [F_FLIP_TS] = "flip_ts", [F_JIFFIES] = "jiffies",
		[F_SD_WEIGHT] = "llc_span", [F_LLC_SCAN] = "llc_scan",
		[F_LLC_IDLE_CORES] = "llc_idle_cores" }, R(F_PID) },
	[SR_EV_HLOAD_RET] = { NULL, "thl_ret", { [F_HLOAD] = "h_load" }, R(F_HLOAD) },
	[SR_EV_IDLEST_GROUP] = { NULL, "fig", {
		[F_PID] = "pid", [F_SD_WEIGHT] = "sd_weight", [F_TARGET] = "this_cpu" }, R(F_PID) },
	[SR_EV_IDLEST_GROUP_RET] = { NULL, "fig_ret", { [F_SPAN] = "span" }, R(F_SPAN) },
	[SR_EV_AUTOGROUP] = { NULL, "sag", { [F_PID] = "pid" }, R(F_PID) },
	[SR_EV_CGROUP_ATTACH] = { "cgroup", "cgroup_attach_task", {
		[F_PID] = "pid", [F_COMM] = "comm", [F_CGROUP_ID] = "dst_id" },
		R(F_PID) | R(F_CGROUP_ID) },
};

/* The field's place, so that a record's fields are read without the library. */
static void plan(struct fplan *p, const struct tep_format_field *f)
{
	*p = (struct fplan){ .size = 0 };
	if (!f || f->offset < 0 || f->size <= 0)
		return;
	p->off = f->offset;
	p->size = f->size;
	p->num = f->size <= 8;
	p->dyn = f->flags & TEP_FIELD_IS_DYNAMIC;
	p->rel = f->flags & TEP_FIELD_IS_RELATIVE;
	if (p->num && f->size < 8 && (f->flags & TEP_FIELD_IS_SIGNED))
		p->shift = 64 - 8 * f->size;
}

void sr_tr_resolve_events(struct sr_trace *t)
{
	for (int i = 0; i < SR_EV_OTHER; i++) {
		struct ev_slot *s = &t->slot[i];
		struct tep_event *ev = tep_find_event_by_name(t->tep, descs[i].sys, descs[i].name);

		s->id = -1;
		if (!ev)
			continue;
		for (int f = 0; f < F_NR; f++)
			plan(&s->f[f], descs[i].fields[f] ? tep_find_field(ev, descs[i].fields[f]) :
				 NULL);
		plan(&s->f[F_COMMON_PID], tep_find_common_field(ev, "common_pid"));
		plan(&s->f[F_COMMON_FLAGS], tep_find_common_field(ev, "common_flags"));
		bool ok = true;

		for (int f = 0; f < F_NR; f++)
			if ((descs[i].required & R(f)) && !s->f[f].size)
				ok = false;
		if (!ok)
			continue;	/* a format we cannot read: its records count as other */
		s->id = ev->id;
		t->info.has_format[i] = true;
	}
}

/*
 * tep_data_type() without the library call: the same bytes (its first
 * event's common_type), read as it reads them, unsigned; anything else
 * (a record too short for them, another byte order) goes to the library.
 */
static int record_id(const struct sr_trace *t, const struct tep_record *rec)
{
	const struct fplan *f = &t->type_f;
	const uint8_t *p = (const uint8_t *)rec->data + f->off;

	if (t->same_endian && f->num && f->off + f->size <= rec->size) {
		if (f->size == 2) {
			uint16_t x;

			memcpy(&x, p, 2);
			return x;
		}
		if (f->size == 4) {
			uint32_t x;

			memcpy(&x, p, 4);
			return (int)x;
		}
	}
	return tep_data_type(t->tep, (struct tep_record *)rec);
}

enum sr_ev_type sr_tr_record_type(const struct sr_trace *t, const struct tep_record *rec)
{
	int id = record_id(t, rec);

	return id >= 0 && id <= t->max_id ? t->type_of[id] : SR_EV_NR;
}

/*
 * A direct map from event id to type: one lookup per record.  Ids with no
 * format in the file map to SR_EV_NR: a recorder that kept the data but
 * not the formats (the file cannot say what those records are).
 */
int sr_tr_build_type_map(struct sr_trace *t)
{
	int nr = tep_get_events_count(t->tep);
	struct tep_event **all = nr > 0 ? tep_list_events(t->tep, TEP_EVENT_SORT_ID) : NULL;
	struct tep_event *first = tep_get_event(t->tep, 0);

	/* tep_data_type() reads common_type where its first event has it (get_common_info()) */
	plan(&t->type_f, first ? tep_find_common_field(first, "common_type") : NULL);
	t->max_id = -1;
	for (int i = 0; all && i < nr; i++)
		if (all[i]->id > t->max_id && all[i]->id < (1 << 20))
			t->max_id = all[i]->id;
	t->type_of = malloc(t->max_id + 1 > 0 ? t->max_id + 1 : 1);
	if (!t->type_of)
		return -ENOMEM;
	memset(t->type_of, SR_EV_NR, t->max_id + 1 > 0 ? t->max_id + 1 : 1);
	for (int i = 0; all && i < nr; i++)
		if (all[i]->id >= 0 && all[i]->id <= t->max_id)
			t->type_of[all[i]->id] = SR_EV_OTHER;
	for (int i = 0; i < SR_EV_OTHER; i++)
		if (t->slot[i].id >= 0)
			t->type_of[t->slot[i].id] = (uint8_t)i;
	return 0;
}

/* Read a numeric field; false if the record is too short to hold it. */
static inline bool rd_num(const struct sr_trace *t, const struct tep_record *rec,
			  const struct fplan *f, long long *v)
{
	const uint8_t *p = (const uint8_t *)rec->data + f->off;
	uint64_t u = 0;

	if (!f->num || f->off + f->size > rec->size)
		return false;
	if (!t->same_endian) {
		u = tep_read_number(t->tep, (void *)p, f->size);
	} else {
		/* the common case: fixed-size loads, no library call nor memcpy call per field */
		switch (f->size) {
		case 1: u = *p; break;
		case 2: { uint16_t x; memcpy(&x, p, 2); u = x; break; }
		case 4: { uint32_t x; memcpy(&x, p, 4); u = x; break; }
		case 8: memcpy(&u, p, 8); break;
		default: memcpy(&u, p, (size_t)f->size); break;
		}
	}
	/* Sign-extend 1/2/4-byte signed fields (pid_t, int target_cpu, ...). */
	*v = f->shift ? (long long)(u << f->shift) >> f->shift : (long long)u;
	return true;
}

static inline int rd_int(const struct sr_trace *t, const struct tep_record *rec,
			 const struct fplan *f, int dflt)
{
	long long v;

	return rd_num(t, rec, f, &v) ? (int)v : dflt;
}

/* Copy a char array field, trusting the size in the format, not the declaration. */
static void rd_comm(const struct tep_record *rec, const struct fplan *f, char *dst)
{
	int n;

	dst[0] = '\0';
	if (!f->size || f->off + f->size > rec->size)
		return;
	n = f->size < SR_COMM_LEN - 1 ? f->size : SR_COMM_LEN - 1;
	memcpy(dst, (char *)rec->data + f->off, n);
	dst[n] = '\0';
}

/*
 * sched_process_exec's filename as the comm exec gives the task:
 * begin_new_exec() sets it to kbasename(bprm->filename), cut to 15 bytes.
 */
static void rd_exec_comm(struct sr_trace *t, const struct tep_record *rec, const struct fplan *f,
			 char *dst)
{
	long long loc;
	unsigned int off, len;
	const char *s, *base;
	size_t n;

	dst[0] = '\0';
	if (!f->dyn || !rd_num(t, rec, f, &loc))
		return;
	off = (unsigned int)loc & 0xffff;
	len = ((unsigned int)loc >> 16) & 0xffff;
	if (f->rel)
		off += (unsigned int)(f->off + f->size);
	if (!len || off > (unsigned int)rec->size || len > (unsigned int)rec->size - off)
		return;
	s = (const char *)rec->data + off;
	n = strnlen(s, len);
	base = s;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			base = s + i + 1;
	n -= (size_t)(base - s);
	n = n < SR_COMM_LEN - 1 ? n : SR_COMM_LEN - 1;
	memcpy(dst, base, n);
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
	sr_tr_lib_enter(t, rec->cpu);
	tep_print_event(t->tep, &t->seq, rec, "%s", TEP_PRINT_INFO);
	sr_tr_lib_leave(t);
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
	const struct fplan *f = t->slot[ev->type].f;
	long long v;

	ev->wake_flags = (unsigned int)rd_int(t, rec, &f[F_WAKE_FLAGS], 0);
	ev->load_avg = rd_num(t, rec, &f[F_LOAD], &v) ? (uint64_t)v : UINT64_MAX;
	ev->util_avg = rd_num(t, rec, &f[F_UTIL], &v) ? (uint64_t)v : UINT64_MAX;
	ev->h_load = rd_num(t, rec, &f[F_HLOAD], &v) ? (uint64_t)v : UINT64_MAX;
	ev->cpu_load = rd_num(t, rec, &f[F_CPU_LOAD], &v) ? (uint64_t)v : UINT64_MAX;
	ev->cpu_util = rd_num(t, rec, &f[F_CPU_UTIL], &v) ? (uint64_t)v : UINT64_MAX;
	ev->flips = rd_num(t, rec, &f[F_FLIPS], &v) ? (uint64_t)v : UINT64_MAX;
	ev->flip_ts = rd_num(t, rec, &f[F_FLIP_TS], &v) ? (uint64_t)v : UINT64_MAX;
	ev->jiffies = rd_num(t, rec, &f[F_JIFFIES], &v) ? (uint64_t)v : UINT64_MAX;
	ev->span = rd_num(t, rec, &f[F_SPAN], &v) ? (uint64_t)v : 0;
	ev->sd_weight = rd_int(t, rec, &f[F_SD_WEIGHT], -1);
	ev->llc_scan = rd_int(t, rec, &f[F_LLC_SCAN], -1);
	ev->llc_idle_cores = rd_int(t, rec, &f[F_LLC_IDLE_CORES], -1);
	ev->cgroup_id = rd_int(t, rec, &f[F_CGROUP_ID], -1);
}

/*
 * A comm as rd_comm() leaves it (NUL-terminated within its SR_COMM_LEN
 * bytes): two word loads tell that it is ASCII, valid UTF-8, as nearly
 * every one is; any byte >= 0x80 (even past the NUL) takes the full check.
 */
_Static_assert(SR_COMM_LEN == 16, "comm_valid() reads two words");

static bool comm_valid(const char comm[SR_COMM_LEN])
{
	uint64_t w[SR_COMM_LEN / 8];

	memcpy(w, comm, sizeof(w));
	if (!((w[0] | w[1]) & 0x8080808080808080ULL))
		return true;
	return sr_utf8_valid(comm);
}

bool sr_tr_fill_event(struct sr_trace *t, struct tep_record *rec, struct sr_event *ev)
{
	const struct fplan *f = t->slot[ev->type].f;
	long long v;

	ev->common_pid = rd_int(t, rec, &f[F_COMMON_PID], -1);
	ev->irq_context = rd_num(t, rec, &f[F_COMMON_FLAGS], &v) &&
			  (v & (SR_TRACE_FLAG_HARDIRQ | SR_TRACE_FLAG_SOFTIRQ | SR_TRACE_FLAG_NMI));
	ev->pid = rd_int(t, rec, &f[F_PID], -1);
	ev->prio = rd_int(t, rec, &f[F_PRIO], -1);
	ev->target_cpu = rd_int(t, rec, &f[F_TARGET], -1);
	ev->success = rd_int(t, rec, &f[F_SUCCESS], -1);
	ev->orig_cpu = rd_int(t, rec, &f[F_ORIG], -1);
	ev->dest_cpu = rd_int(t, rec, &f[F_DEST], -1);
	ev->next_pid = rd_int(t, rec, &f[F_NEXT_PID], -1);
	ev->next_prio = rd_int(t, rec, &f[F_NEXT_PRIO], -1);
	ev->child_pid = rd_int(t, rec, &f[F_CHILD_PID], -1);
	ev->runtime = rd_num(t, rec, &f[F_RUNTIME], &v) ? (uint64_t)v : 0;
	if (ev->type >= SR_EV_SELECT)
		fill_probe(t, rec, ev);
	if (ev->type == SR_EV_EXEC)
		rd_exec_comm(t, rec, &f[F_FILENAME], ev->comm);
	else
		rd_comm(rec, &f[F_COMM], ev->comm);
	rd_comm(rec, ev->type == SR_EV_FORK ? &f[F_CHILD_COMM] : &f[F_NEXT_COMM], ev->next_comm);
	if (ev->type == SR_EV_SWITCH && rd_num(t, rec, &f[F_PREV_STATE], &v)) {
		ev->prev_state_raw = v;
		ev->prev_state = decode_state(t, rec, v);
	}
	return !comm_valid(ev->comm) || !comm_valid(ev->next_comm);
}

