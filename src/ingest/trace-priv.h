/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to src/ingest: the reader's state, shared by trace.c (opening,
 * metadata), trace-fields.c (decoding records), trace-buffer.c (which
 * buffer of the file to read), trace-iter.c (the pass in time order) and
 * trace-pipe.c (the pass on a thread of its own).
 */
#ifndef SR_TRACE_PRIV_H
#define SR_TRACE_PRIV_H

#include "trace.h"
#include "tracecmd-priv.h"

enum fld {
	F_PID, F_PRIO, F_COMM, F_TARGET, F_SUCCESS,
	F_PREV_STATE, F_NEXT_PID, F_NEXT_PRIO, F_NEXT_COMM,
	F_ORIG, F_DEST, F_CHILD_PID, F_CHILD_COMM, F_RUNTIME,
	F_WAKE_FLAGS, F_LOAD, F_UTIL, F_HLOAD, F_SPAN, F_SD_WEIGHT, F_CGROUP_ID,
	F_CPU_LOAD, F_CPU_UTIL, F_FILENAME, F_FLIPS, F_FLIP_TS, F_JIFFIES, F_LLC_SCAN,
	F_LLC_IDLE_CORES, F_HP_CPU, F_HP_STATE, F_HP_STEP,
	F_RQS_BASE, F_RQS0,			/* rqs: base, then SR_RQS_CPUS * SR_RQS_FIELDS values */
	F_RQS_LAST = F_RQS0 + SR_RQS_CPUS * SR_RQS_FIELDS - 1,
	F_COMMON_PID, F_COMMON_FLAGS,
	F_NR
};

/* Where a field lies in a record, resolved once per file from the format. */
struct fplan {
	int off, size;			/* size 0: not in the format */
	int shift;			/* sign extension of a signed field narrower than 8 bytes */
	bool num;			/* 1 to 8 bytes: read as a number */
	bool dyn, rel;			/* a __data_loc (__rel_loc: from the field's end) string */
};

/* One field copied from a record into struct sr_event (trace-fields.c, run_ops()). */
struct fop {
	int src, end;			/* bytes [src, end) of the record */
	uint16_t dst;			/* its place in struct sr_event */
	uint8_t code;			/* how it is copied */
	uint8_t size, shift;		/* as in struct fplan */
};

/* A copy of bytes as they are: a record's bytes [src, src + n) to an event's dst. */
struct fcopy {
	uint16_t src, dst;
};

struct ev_slot {
	int id;				/* -1: not in the file */
	struct fplan f[F_NR];
	/* every field as an op, by where it ends: a short record copies a prefix */
	int nr_op;
	struct fop op[F_NR];
	/*
	 * A record of @need bytes or more (nearly all) copies its 4-byte
	 * numbers and its comms as plain bytes, the rest through ops.
	 */
	int need, nr_w32, nr_w64, nr_comm, nr_rest;
	int irq_src;			/* common_flags' byte; -1: through an op */
	struct fcopy w32[F_NR], w64[F_NR], comm[2];
	struct fop rest[F_NR];
	struct sr_event tmpl;		/* a record of this type before its fields: the defaults */
};

#define PS_CACHE 64

struct sr_trace {
	struct tracecmd_input *top;	/* the file */
	struct tracecmd_input *handle;	/* the buffer read: top, or one of its instances */
	struct tep_handle *tep;
	struct sr_trace_info info;	/* counted by the consuming thread (sr_tr_consume()) */
	/*
	 * From here on the decode thread reads on every record: a cache line
	 * of their own, or each count the consumer writes into info's tail
	 * takes the line from the decoder (twice the CPU time, no wall gain).
	 */
	_Alignas(64) struct ev_slot slot[SR_EV_OTHER];
	uint8_t *type_of;		/* event id -> enum sr_ev_type, ids 0..max_id */
	struct fplan type_f;		/* common_type where tep_data_type() reads it */
	int type_end;			/* a record this long holds it as 2 bytes we read as
					 * they are; INT_MAX: never, ask the library */
	bool same_endian;		/* file and host are little-endian: read fields directly */
	int max_id;
	/* prev_state value -> decoded class, filled on first sight of each value */
	long long ps_raw[PS_CACHE];
	enum sr_prev_state ps_cls[PS_CACHE];
	int ps_n;
	struct trace_seq seq;
	struct sr_trace_watch *watch;	/* NULL: nobody watches */
	int threads;			/* struct sr_trace_opts */
};

/* Around every call into libtracecmd: a crash there is the library's (trace.h). */
static inline void sr_tr_lib_enter(struct sr_trace *t, int cpu)
{
	if (t->watch) {
		t->watch->cpu = cpu;
		t->watch->calls++;
		t->watch->in_library = 1;
	}
}

static inline void sr_tr_lib_leave(struct sr_trace *t)
{
	if (t->watch)
		t->watch->in_library = 0;
}

/* Make the calling thread the one the watch says calls the library (trace-pipe.c). */
void sr_tr_lib_thread(struct sr_trace *t);

/* One record of the pass: its event, and what struct sr_trace_info counts of it. */
enum { SR_TR_DELIVER = 1, SR_TR_NO_FORMAT = 2, SR_TR_BAD_UTF8 = 4 };

struct sr_tr_item {
	struct sr_event ev;		/* type, cpu, ts, missed_before always set */
	unsigned int flags;		/* SR_TR_*; without DELIVER only counted */
};

/* Where the pass puts the records: it fills *@item, then put() takes it (and may move @item). */
struct sr_tr_sink {
	struct sr_tr_item *item;
	int (*put)(struct sr_tr_sink *s);
};

/* trace-iter.c: every record in time order into @sink; 0, -errno, or put()'s non-zero return. */
int sr_tr_pass(struct sr_trace *t, struct sr_tr_sink *sink, struct sr_err *err);
/* Count @it in t->info, then hand its event to @fn when it is delivered. */
int sr_tr_consume(struct sr_trace *t, const struct sr_tr_item *it, sr_event_fn fn, void *data);

/* trace-fields.c */
void sr_tr_resolve_events(struct sr_trace *t);
int sr_tr_build_type_map(struct sr_trace *t);
enum sr_ev_type sr_tr_record_type(const struct sr_trace *t, const struct tep_record *rec);
/* Decode @rec's type and fields into @ev (not its cpu, ts, lost counts); SR_TR_* flags. */
unsigned int sr_tr_decode(struct sr_trace *t, struct tep_record *rec, struct sr_event *ev);

/* trace-pages.c: every page header of an uncompressed file, from each CPU's first record. */
int sr_tr_check_pages(struct sr_trace *t, const uint64_t *first_off, const char *path,
		      struct sr_err *err);

/* trace-buffer.c: read the buffer named @name, or pick the one holding sched events. */
int sr_tr_choose_buffer(struct sr_trace *t, const char *name, const char *path,
			struct sr_err *err);
void sr_tr_close_buffer(struct sr_trace *t);

#endif /* SR_TRACE_PRIV_H */
