// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: the sched events' ids and fields, resolved once per file from its
 * formats, and each record decoded into a struct sr_event.  Field sizes
 * come from the file's formats (old kernels declare comm[32] with size 16,
 * prev_state as 4 or 8 bytes).  Each event type's fields become copies
 * planned at open (offset, size, where in the event), over a template of
 * the defaults: a record costs its type's copies, not a lookup per field.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace-priv.h"

struct ev_desc {
	const char *sys;		/* NULL: any system (probe events) */
	const char *name;
	const char *fields[F_NR];	/* field name per slot, NULL if unused */
	unsigned long long required;	/* bitmask of slots that must exist */
};

#define R(f) (1ull << (f))
#define RQS(i) [F_RQS0 + 4 * (i)] = "load" #i, [F_RQS0 + 4 * (i) + 1] = "util" #i, \
	[F_RQS0 + 4 * (i) + 2] = "est" #i, [F_RQS0 + 4 * (i) + 3] = "run" #i
_Static_assert(SR_RQS_CPUS == 4 && SR_RQS_FIELDS == 4, "RQS() names four CPUs' four fields");

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
	/* rqs0, rqs1, ...: one layout (sr_tr_build_type_map() maps every one) */
	[SR_EV_RQS] = { NULL, "rqs0", { [F_RQS_BASE] = "base",
		RQS(0), RQS(1), RQS(2), RQS(3) }, R(F_RQS_BASE) | R(F_RQS0) },
	[SR_EV_AUTOGROUP] = { NULL, "sag", { [F_PID] = "pid" }, R(F_PID) },
	[SR_EV_CGROUP_ATTACH] = { "cgroup", "cgroup_attach_task", {
		[F_PID] = "pid", [F_COMM] = "comm", [F_CGROUP_ID] = "dst_id" },
		R(F_PID) | R(F_CGROUP_ID) },
	[SR_EV_CPUHP_ENTER] = { "cpuhp", "cpuhp_enter", {
		[F_HP_CPU] = "cpu", [F_HP_STATE] = "target", [F_HP_STEP] = "idx" },
		R(F_HP_CPU) | R(F_HP_STATE) | R(F_HP_STEP) },
	[SR_EV_CPUHP_EXIT] = { "cpuhp", "cpuhp_exit", {
		[F_HP_CPU] = "cpu", [F_HP_STATE] = "state", [F_HP_STEP] = "idx" },
		R(F_HP_CPU) | R(F_HP_STATE) | R(F_HP_STEP) },
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

/* ------------------------------------------------------------ copies */

/*
 * How an op copies its field: the common cases as plain loads (a 4 or 8
 * byte number into an int keeps its low 4 bytes whatever its sign, an
 * 8-byte one into a u64 all of them), the rest through the number.
 */
enum { OP_I32, OP_U64, OP_COMM15, OP_COMM, OP_INT, OP_NUM64, OP_IRQ };
enum { D_NONE, D_INT, D_U64, D_COMM, D_IRQ };

#define D(m, k) { offsetof(struct sr_event, m), k }
#define DQ(i) [F_RQS0 + (i)] = D(rqs[i], D_INT)

/* Where each field goes; D_NONE: decoded by hand (exec's filename). */
static const struct { uint16_t off; uint8_t kind; } dst_of[F_NR] = {
	[F_PID] = D(pid, D_INT), [F_PRIO] = D(prio, D_INT), [F_COMM] = D(comm, D_COMM),
	[F_TARGET] = D(target_cpu, D_INT), [F_SUCCESS] = D(success, D_INT),
	[F_PREV_STATE] = D(prev_state_raw, D_U64),	/* its class: decode_state() */
	[F_NEXT_PID] = D(next_pid, D_INT), [F_NEXT_PRIO] = D(next_prio, D_INT),
	[F_NEXT_COMM] = D(next_comm, D_COMM), [F_ORIG] = D(orig_cpu, D_INT),
	[F_DEST] = D(dest_cpu, D_INT), [F_CHILD_PID] = D(child_pid, D_INT),
	[F_CHILD_COMM] = D(next_comm, D_COMM), [F_RUNTIME] = D(runtime, D_U64),
	[F_WAKE_FLAGS] = D(wake_flags, D_INT), [F_LOAD] = D(load_avg, D_U64),
	[F_UTIL] = D(util_avg, D_U64), [F_HLOAD] = D(h_load, D_U64), [F_SPAN] = D(span, D_U64),
	[F_SD_WEIGHT] = D(sd_weight, D_INT), [F_CGROUP_ID] = D(cgroup_id, D_INT),
	[F_CPU_LOAD] = D(cpu_load, D_U64), [F_CPU_UTIL] = D(cpu_util, D_U64),
	[F_FLIPS] = D(flips, D_U64), [F_FLIP_TS] = D(flip_ts, D_U64),
	[F_JIFFIES] = D(jiffies, D_U64), [F_LLC_SCAN] = D(llc_scan, D_INT),
	[F_LLC_IDLE_CORES] = D(llc_idle_cores, D_INT), [F_HP_CPU] = D(hp_cpu, D_INT),
	[F_HP_STATE] = D(hp_state, D_INT), [F_HP_STEP] = D(hp_step, D_INT),
	[F_COMMON_PID] = D(common_pid, D_INT),
	[F_COMMON_FLAGS] = D(irq_context, D_IRQ), [F_RQS_BASE] = D(rqs_base, D_INT),
	DQ(0), DQ(1), DQ(2), DQ(3), DQ(4), DQ(5), DQ(6), DQ(7),
	DQ(8), DQ(9), DQ(10), DQ(11), DQ(12), DQ(13), DQ(14), DQ(15),
};

_Static_assert(F_NR <= 64, "required is a 64-bit mask");
_Static_assert(sizeof(((struct sr_event *)0)->wake_flags) == 4, "wake_flags is an int's size");

static int op_code(const struct sr_trace *t, const struct fplan *p, int kind)
{
	if (kind == D_COMM)
		return p->size >= SR_COMM_LEN - 1 ? OP_COMM15 : OP_COMM;
	if (kind == D_IRQ)
		return OP_IRQ;
	if (t->same_endian && kind == D_INT && (p->size == 4 || p->size == 8))
		return OP_I32;
	if (t->same_endian && kind == D_U64 && p->size == 8)
		return OP_U64;
	return kind == D_INT ? OP_INT : OP_NUM64;
}

/* Two 4-byte copies next to each other on both sides are one 8-byte copy. */
static void add_w32(struct ev_slot *s, struct fcopy c)
{
	struct fcopy *last = s->nr_w32 ? &s->w32[s->nr_w32 - 1] : NULL;

	if (last && last->src + 4 == c.src && last->dst + 4 == c.dst) {
		s->w64[s->nr_w64++] = *last;
		s->nr_w32--;
		return;
	}
	s->w32[s->nr_w32++] = c;
}

/* The plain copies apart, for records that hold every field. */
static void split_ops(struct ev_slot *s)
{
	s->need = s->nr_op ? s->op[s->nr_op - 1].end : 0;
	s->nr_w32 = s->nr_w64 = s->nr_comm = s->nr_rest = 0;
	s->irq_src = -1;
	if (s->need > UINT16_MAX) {
		s->need = INT_MAX;	/* no record is that long: every one takes the ops */
		return;
	}
	for (int i = 0; i < s->nr_op; i++) {
		const struct fop *op = &s->op[i];
		struct fcopy c = { .src = (uint16_t)op->src, .dst = op->dst };

		if (op->code == OP_I32)
			add_w32(s, c);
		else if (op->code == OP_U64)
			s->w64[s->nr_w64++] = c;
		else if (op->code == OP_COMM15 && s->nr_comm < 2)
			s->comm[s->nr_comm++] = c;
		else if (op->code == OP_IRQ && op->size == 1)
			s->irq_src = op->src;
		else
			s->rest[s->nr_rest++] = *op;
	}
}

/* The slot's fields as ops, sorted by where they end: a short record runs a prefix. */
static void plan_ops(const struct sr_trace *t, struct ev_slot *s)
{
	s->nr_op = 0;
	for (int f = 0; f < F_NR; f++) {
		const struct fplan *p = &s->f[f];
		int kind = dst_of[f].kind, i;

		if (!p->size || kind == D_NONE || (kind != D_COMM && !p->num))
			continue;
		for (i = s->nr_op++; i > 0 && s->op[i - 1].end > p->off + p->size; i--)
			s->op[i] = s->op[i - 1];
		s->op[i] = (struct fop){ .src = p->off, .end = p->off + p->size,
			.dst = dst_of[f].off, .code = (uint8_t)op_code(t, p, kind),
			.size = (uint8_t)p->size, .shift = (uint8_t)p->shift };
	}
	split_ops(s);
}

/* What sr_tr_decode() leaves in a field the record lacks. */
static void plan_defaults(struct sr_event *e, enum sr_ev_type type)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->common_pid = e->pid = e->prio = e->target_cpu = e->success = -1;
	e->orig_cpu = e->dest_cpu = e->next_pid = e->next_prio = e->child_pid = -1;
	if (type < SR_EV_SELECT)
		return;
	if (type == SR_EV_RQS) {
		memset(e->rqs, 0xff, sizeof(e->rqs));
		e->cgroup_id = -1;
		return;
	}
	e->load_avg = e->util_avg = e->h_load = e->cpu_load = e->cpu_util = UINT64_MAX;
	e->flips = e->flip_ts = e->jiffies = UINT64_MAX;
	e->sd_weight = e->llc_scan = e->llc_idle_cores = e->cgroup_id = -1;
	e->hp_cpu = e->hp_state = e->hp_step = -1;
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
		plan_ops(t, s);
		plan_defaults(&s->tmpl, i);
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

	if (rec->size >= t->type_end) {
		uint16_t x;

		memcpy(&x, p, 2);
		return x;
	}
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
 * rqs1, rqs2, ...: the events after rqs0 (whose fields the slot planned)
 * read other CPUs in the same layout; one that differs counts as other.
 */
static bool rqs_sibling(const struct sr_trace *t, struct tep_event *ev)
{
	const struct ev_slot *s = &t->slot[SR_EV_RQS];
	unsigned int n;
	char end;

	if (s->id < 0 || ev->id == s->id || sscanf(ev->name, "rqs%u%c", &n, &end) != 1)
		return false;
	for (int f = 0; f < F_NR; f++) {
		const char *name = descs[SR_EV_RQS].fields[f];
		struct tep_format_field *x = name ? tep_find_field(ev, name) : NULL;

		if (name && (x ? x->offset != s->f[f].off || x->size != s->f[f].size : s->f[f].size))
			return false;
	}
	return true;
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
	t->type_end = t->same_endian && t->type_f.num && t->type_f.size == 2 ?
		      t->type_f.off + 2 : INT_MAX;
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
	for (int i = 0; all && i < nr; i++)
		if (all[i]->id >= 0 && all[i]->id <= t->max_id && rqs_sibling(t, all[i]))
			t->type_of[all[i]->id] = SR_EV_RQS;
	return 0;
}

/* A number of 1 to 8 bytes, the file's byte order, unsigned. */
static inline uint64_t rd_raw(const struct sr_trace *t, const uint8_t *p, int size)
{
	uint64_t u = 0;

	if (!t->same_endian)
		return tep_read_number(t->tep, (void *)p, size);
	/* the common case: fixed-size loads, no library call nor memcpy call per field */
	switch (size) {
	case 1: u = *p; break;
	case 2: { uint16_t x; memcpy(&x, p, 2); u = x; break; }
	case 4: { uint32_t x; memcpy(&x, p, 4); u = x; break; }
	case 8: memcpy(&u, p, 8); break;
	default: memcpy(&u, p, (size_t)size); break;
	}
	return u;
}

/* Sign-extend 1/2/4-byte signed fields (pid_t, int target_cpu, ...). */
static inline long long extend(uint64_t u, int shift)
{
	return shift ? (long long)(u << shift) >> shift : (long long)u;
}

/* Read a numeric field; false if the record is too short to hold it. */
static inline bool rd_num(const struct sr_trace *t, const struct tep_record *rec,
			  const struct fplan *f, long long *v)
{
	if (!f->num || f->off + f->size > rec->size)
		return false;
	*v = extend(rd_raw(t, (const uint8_t *)rec->data + f->off, f->size), f->shift);
	return true;
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

/*
 * A comm as run_ops() leaves it (NUL-terminated within its SR_COMM_LEN
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

#define IRQ_FLAGS (SR_TRACE_FLAG_HARDIRQ | SR_TRACE_FLAG_SOFTIRQ | SR_TRACE_FLAG_NMI)

/* Copy the first @n ops' fields of @data into @ev. */
static void run_ops(const struct sr_trace *t, const struct fop *op, int n, const uint8_t *data,
		    struct sr_event *ev)
{
	for (const struct fop *end = op + n; op < end; op++) {
		const uint8_t *p = data + op->src;
		char *d = (char *)ev + op->dst;
		long long v;

		switch (op->code) {
		case OP_I32: memcpy(d, p, 4); break;
		case OP_U64: memcpy(d, p, 8); break;
		case OP_COMM15: memcpy(d, p, SR_COMM_LEN - 1); break;
		case OP_COMM: memcpy(d, p, op->size); break;	/* the template's NULs end both */
		default:
			v = extend(rd_raw(t, p, op->size), op->shift);
			if (op->code == OP_INT)
				*(int *)d = (int)v;
			else if (op->code == OP_NUM64)
				*(uint64_t *)d = (uint64_t)v;
			else
				*(bool *)d = v & IRQ_FLAGS;
			break;
		}
	}
}

/* Copy @s's fields of @rec into @ev: plain copies when the record holds them all. */
static void copy_fields(const struct sr_trace *t, const struct ev_slot *s,
			const struct tep_record *rec, struct sr_event *ev)
{
	const uint8_t *data = rec->data;
	char *base = (char *)ev;
	int n = 0;

	if (rec->size >= s->need) {
		for (int i = 0; i < s->nr_w32; i++)
			memcpy(base + s->w32[i].dst, data + s->w32[i].src, 4);
		for (int i = 0; i < s->nr_w64; i++)
			memcpy(base + s->w64[i].dst, data + s->w64[i].src, 8);
		if (s->irq_src >= 0)
			ev->irq_context = data[s->irq_src] & IRQ_FLAGS;
		for (int i = 0; i < s->nr_comm; i++)
			memcpy(base + s->comm[i].dst, data + s->comm[i].src, SR_COMM_LEN - 1);
		if (s->nr_rest)
			run_ops(t, s->rest, s->nr_rest, data, ev);
		return;
	}
	while (n < s->nr_op && s->op[n].end <= rec->size)
		n++;
	run_ops(t, s->op, n, data, ev);
}

unsigned int sr_tr_decode(struct sr_trace *t, struct tep_record *rec, struct sr_event *ev)
{
	enum sr_ev_type type = sr_tr_record_type(t, rec);
	const struct ev_slot *s;
	const struct fplan *ps;

	if (type >= SR_EV_OTHER) {
		memset(ev, 0, sizeof(*ev));
		ev->type = SR_EV_OTHER;
		return type == SR_EV_NR ? SR_TR_NO_FORMAT : 0;
	}
	s = &t->slot[type];
	memcpy(ev, &s->tmpl, sizeof(*ev));
	copy_fields(t, s, rec, ev);
	if (type == SR_EV_EXEC)
		rd_exec_comm(t, rec, &s->f[F_FILENAME], ev->comm);
	ps = &s->f[F_PREV_STATE];
	if (type == SR_EV_SWITCH && ps->num && ps->off + ps->size <= rec->size)
		ev->prev_state = decode_state(t, rec, ev->prev_state_raw);	/* an op read it */
	return SR_TR_DELIVER |
	       (!comm_valid(ev->comm) || !comm_valid(ev->next_comm) ? SR_TR_BAD_UTF8 : 0);
}
