/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ingest: a streaming reader of trace-cmd trace.dat files.  Every sched
 * record is normalised into one small struct sr_event, delivered in
 * timestamp order; everything else is counted as "other".
 */
#ifndef SR_TRACE_H
#define SR_TRACE_H

#include <stdint.h>
#include "base.h"

enum sr_ev_type {
	SR_EV_SWITCH,
	SR_EV_WAKING,
	SR_EV_WAKEUP,
	SR_EV_WAKEUP_NEW,
	SR_EV_MIGRATE,
	SR_EV_FORK,
	SR_EV_EXIT,
	SR_EV_EXEC,
	SR_EV_STAT_RUNTIME,
	/*
	 * Probe events `schedreplay record --probes` adds (any system, by name):
	 * the kernel's own inputs and answer around select_task_rq_fair().
	 */
	SR_EV_SELECT,			/* srqf: entry (pid, prev_cpu, wake_flags, p->se.avg) */
	SR_EV_SELECT_RET,		/* srqf_ret: the CPU it returned */
	SR_EV_HLOAD,			/* thl: task_h_load(pid) entry */
	SR_EV_HLOAD_RET,		/* thl_ret: its value */
	SR_EV_IDLEST_GROUP,		/* fig: find_idlest_group() entry (pid, sd_weight) */
	SR_EV_IDLEST_GROUP_RET,		/* fig_ret: the group's span, first 64 CPUs */
	SR_EV_RQS,			/* rqsN: SR_RQS_CPUS CPUs' rq->cfs.avg at srqf */
	SR_EV_AUTOGROUP,		/* sag: sched_autogroup_create_attach(pid) */
	SR_EV_CGROUP_ATTACH,		/* cgroup:cgroup_attach_task (pid, dst_id) */
	SR_EV_CPUHP_ENTER,		/* cpuhp:cpuhp_enter (hp_cpu, target, step) */
	SR_EV_CPUHP_EXIT,		/* cpuhp:cpuhp_exit (hp_cpu, state reached, step) */
	SR_EV_OTHER,
	SR_EV_NR
};

/* What sched_switch's prev_state says, decoded through the kernel's own print format. */
enum sr_prev_state {
	SR_PS_RUNNING,			/* R / R+: preempted, still runnable */
	SR_PS_SLEEPING,			/* S, D, I, T, t, P, ... */
	SR_PS_DEAD,			/* X or Z */
};

#define SR_COMM_LEN 16

/* common_flags bits of every trace event (kernel/trace/trace.h TRACE_FLAG_*). */
#define SR_TRACE_FLAG_HARDIRQ	0x08
#define SR_TRACE_FLAG_SOFTIRQ	0x10
#define SR_TRACE_FLAG_NMI	0x40

#define SR_RQS_CPUS	4	/* CPUs per rqs event */
#define SR_RQS_FIELDS	4	/* load_avg, util_avg, util_est, runnable_avg */
enum { SR_RQS_LOAD, SR_RQS_UTIL, SR_RQS_EST, SR_RQS_RUN };

struct sr_event {
	enum sr_ev_type type;
	int cpu;			/* the CPU whose buffer holds the record */
	uint64_t ts;			/* ns in the trace clock */
	int common_pid;			/* current on that CPU */
	bool irq_context;		/* emitted in hardirq, softirq or NMI context */
	int pid;			/* wakee / prev / migrated / exiting / parent / exec'ing */
	int prio;
	int target_cpu;			/* waking, wakeup, wakeup_new */
	int success;			/* old sched_wakeup; -1 when the field is absent */
	int orig_cpu, dest_cpu;		/* migrate */
	enum sr_prev_state prev_state;	/* switch */
	long long prev_state_raw;
	int next_pid, next_prio;	/* switch */
	int child_pid;			/* fork */
	uint64_t runtime;		/* stat_runtime */
	char comm[SR_COMM_LEN];		/* of pid (prev for switch, parent for fork) */
	char next_comm[SR_COMM_LEN];	/* switch next / fork child */
	long long missed_before;	/* lost events just before this record on its CPU (-1: unknown count) */
	/*
	 * Lost windows of every CPU around this record, from the reader's
	 * look-ahead (struct sr_lost_window): how many are still open (a CPU
	 * whose next record follows a gap) and the earliest `after` among them;
	 * the latest `before` of those closed so far (0: none).  A span
	 * [t1, t2] meets a window when t1 <= before && after < t2.
	 */
	int lost_open;
	uint64_t lost_open_after;
	uint64_t lost_closed_before;
	/* probe events: the rqs values share the space of the others' */
	union {
	struct {
	unsigned int wake_flags;	/* select: WF_* of that kernel */
	uint64_t load_avg, util_avg;	/* select: p->se.avg at entry */
	uint64_t cpu_load, cpu_util;	/* select: prev's root cfs_rq avg; hload: the task's
					 * CPU's; UINT64_MAX: not recorded */
	uint64_t h_load;		/* hload_ret */
	uint64_t flips, flip_ts;	/* select, hload: the task's wakee_flips and its decay
					 * stamp (jiffies); UINT64_MAX: not recorded */
	uint64_t jiffies;		/* ... and the kernel's jiffies then */
	uint64_t span;			/* idlest_group_ret: bit n = CPU n of the group */
	int sd_weight;			/* idlest_group: span weight of the domain searched;
					 * select, hload: of the task's CPU's LLC domain */
	int llc_scan;			/* select, hload: that LLC's sd_llc_shared->nr_idle_scan
					 * (SIS_UTIL, 6.0+); -1: not recorded */
	int llc_idle_cores;		/* ... and its ->has_idle_cores (0 or 1); -1: not recorded */
	};
	struct {
	int rqs_base;			/* rqs: its first CPU */
	/*
	 * CPU rqs_base + i's rq->cfs.avg load_avg, util_avg, util_est
	 * (6.1: .enqueued) and runnable_avg at SR_RQS_FIELDS * i ..;
	 * UINT32_MAX: not recorded
	 */
	uint32_t rqs[SR_RQS_CPUS * SR_RQS_FIELDS];
	};
	};
	int cgroup_id;			/* cgroup_attach: dst_id */
	/*
	 * cpuhp_enter/exit: the CPU being hotplugged, the step (enum
	 * cpuhp_state) whose callback runs, and enter's target state or
	 * exit's state reached (below the step when a teardown ran it)
	 */
	int hp_cpu, hp_state, hp_step;
};

#define SR_MAX_LOST_WINDOWS 16

/* A gap in one CPU's records: the ring buffer lost events between these two. */
struct sr_lost_window {
	uint64_t after;			/* last record before the gap (0 if none) */
	uint64_t before;		/* first record after the gap */
	long long count;		/* -1: the buffer said events were lost, not how many */
};

struct sr_cpu_ingest {
	int first_pid;			/* common_pid of its first record: current at the start;
					 * -1: the CPU has no record at all */
	uint64_t first_ts, last_ts;
	uint64_t records;
	long long lost;			/* sum of known counts */
	int lost_windows;		/* total number of gaps */
	uint64_t lost_ns;		/* their total length */
	bool lost_unknown;		/* a gap of unknown size was seen */
	struct sr_lost_window win[SR_MAX_LOST_WINDOWS];	/* the first gaps */
	/* the kernel's per-CPU buffer statistics saved in the file; -1 unknown */
	long long stat_overrun, stat_dropped, stat_read;
};

struct sr_trace_info {
	int nr_cpus;
	int file_version;
	int long_size;
	int page_size;
	char buffer[64];		/* the buffer read: "" the top-level one, else its name */
	bool buffer_given;		/* ... as the caller asked (sr_trace_opts.buffer) */
	char buffers_note[192];		/* other buffers that hold sched events, "" none */
	char clock[32];			/* "" when the file does not say */
	bool clock_tsc2nsec;		/* x86-tsc cycles converted by the file's TSC2NSEC option */
	bool clock_assumed_ns;		/* no clock, or one we do not know: taken as nanoseconds */
	char uname[256];		/* "" when the file does not say */
	char release[64];		/* kernel release parsed from uname */
	bool has_format[SR_EV_NR];	/* the event format is in the file */
	uint64_t events[SR_EV_NR];
	uint64_t events_no_format;	/* of events[SR_EV_OTHER]: no format in the file */
	uint64_t bad_utf8;		/* sched records whose comm fields are not valid UTF-8 */
	uint64_t first_ts, last_ts;
	struct sr_cpu_ingest *cpu;	/* nr_cpus entries */
};

struct sr_trace;

/*
 * What the reader is doing, kept where another process can read it
 * (shared memory): libtracecmd and libtraceevent trust a file's pages, and
 * a corrupt one can crash them.  A guard that sees the reader die can tell
 * the library's crash on a bad file (in_library) from a crash of ours.
 */
struct sr_trace_watch {
	volatile int in_library;	/* inside a libtracecmd/libtraceevent call */
	volatile uint64_t calls;	/* library calls made: progress, for a stuck one */
	volatile int cpu;		/* the CPU whose data it was reading, -1 none */
	volatile uint64_t records;	/* records decoded so far */
	volatile uint64_t ts;		/* timestamp of the last one */
	/*
	 * With a decode thread, another thread may crash while the reader is
	 * in the library: the thread id of the one that calls the library,
	 * and of the one that crashed (0: unknown), tell whose crash it was.
	 */
	volatile int lib_tid;
	volatile int fault_tid;		/* written by the watcher's crash handler */
};

struct sr_trace_opts {
	const char *path;
	/*
	 * The buffer to read: NULL picks the top-level one, or when it holds no
	 * sched event the first instance that does; "" is the top-level one.
	 */
	const char *buffer;
	struct sr_trace_watch *watch;	/* may be NULL */
	bool any_clock;			/* also a clock not in ns (record reading its file back) */
	/*
	 * sr_trace_iterate(): 1 decodes in the caller's thread; 2 or more on a
	 * thread of its own while @fn runs in the caller's (two threads at
	 * most); 0 picks 2 when the process may run on 2 CPUs or more.
	 */
	int threads;
};

/*
 * Open @path and validate it.  Returns 0, -ENOENT/-EACCES for files that
 * cannot be read, -EINVAL for files that are not (or no longer) trace.dat,
 * or whose clock is not in nanoseconds, -ENODATA when no sched event this
 * tool needs has a format in the file, -ENOENT for a --buffer it lacks.
 */
int sr_trace_open_opts(struct sr_trace **out, const struct sr_trace_opts *o, struct sr_err *err);
/* The same with the defaults. */
int sr_trace_open(struct sr_trace **out, const char *path, struct sr_err *err);
const struct sr_trace_info *sr_trace_info(const struct sr_trace *t);

typedef int (*sr_event_fn)(const struct sr_event *ev, void *data);

/*
 * Deliver every record in timestamp order; a non-zero return from @fn stops
 * and is returned.  @fn runs in the calling thread, and sr_trace_info()
 * counts only the records delivered so far, whatever the threads.
 */
int sr_trace_iterate(struct sr_trace *t, sr_event_fn fn, void *data, struct sr_err *err);
void sr_trace_close(struct sr_trace *t);

const char *sr_ev_name(enum sr_ev_type type);

/* ------------------------------------------------------------ writing */

struct tracefs_instance;

/* An option to store as it is (trace-cmd.dat(5) ids: 14 TSC2NSEC, 12 TIME_SHIFT). */
struct sr_trace_option {
	unsigned short id;
	int size;
	const void *data;
};

/* trace-cmd.dat(5) option ids the writer's users store themselves. */
enum { SR_OPT_TIME_SHIFT = 12, SR_OPT_TSC2NSEC = 14 };

/* A trace.dat to write from what a tracefs instance's ring buffers held. */
struct sr_trace_out {
	const char *path;
	struct tracefs_instance *inst;
	int nr_cpus;
	const bool *has_buffer;		/* nr_cpus: false writes an empty stream */
	const char *clock;		/* the trace clock the instance used */
	const char *writer;		/* the file's version option, e.g. "schedreplay 0.1.0" */
	const char *uname;		/* the uname option; NULL: this machine's */
	/* "system/event" of the events recorded: only their formats are stored; NULL: all */
	const char *const *events;
	/* more options, e.g. x86-tsc's TSC2NSEC: u32 mult, u32 shift, u64 offset */
	const struct sr_trace_option *options;
	int nr_options;
	/*
	 * The kernel symbols to store, NULL: /proc/kallsyms.  It must exist:
	 * libtracecmd 1.3 writes a corrupt file when it does not
	 * (docs/known-issues.md); sr_stream_write() passes an empty one.
	 */
	const char *kallsyms;
};

/*
 * Write @o->path, a version 7 trace.dat whose top-level buffer holds the
 * pages in @files (one per CPU, as sr_stream left them), with the uname,
 * clock and per-CPU buffer statistics options and no kallsyms.  On failure
 * the file is removed.  Returns 0 or -errno with a message in @err.
 */
int sr_trace_write_files(const struct sr_trace_out *o, char *const *files, struct sr_err *err);

/*
 * Per-CPU readers that stream an instance's ring buffers to files while it
 * records (src/ingest/trace-stream.c): a recording is bounded by the disk,
 * and events are lost only when a reader falls behind.
 */
struct sr_stream;

struct sr_stream_opts {
	struct tracefs_instance *inst;
	int nr_cpus;
	const bool *has_buffer;		/* nr_cpus: false for a CPU without a buffer */
	const char *near;		/* the output: the per-CPU files go next to it */
	int notify_signal;		/* sent to the starting thread when a reader fails, or 0 */
};

/* Start one reader per CPU; *@out is set even on failure (free it). */
int sr_stream_start(struct sr_stream **out, const struct sr_stream_opts *o, struct sr_err *err);
/* The first reader failure (-ENOSPC, ...) so far, or 0. */
int sr_stream_failed(const struct sr_stream *s);
/* Wake the readers, let each drain what its buffer still holds, join them. */
int sr_stream_stop(struct sr_stream *s, struct sr_err *err);
/* Bytes stored so far. */
long long sr_stream_bytes(const struct sr_stream *s);
/* The trace.dat from the stored pages (sr_trace_write_files()). */
int sr_stream_write(struct sr_stream *s, const struct sr_trace_out *o, struct sr_err *err);
/* Stop if needed, remove the per-CPU files. */
void sr_stream_free(struct sr_stream *s);

#endif /* SR_TRACE_H */
