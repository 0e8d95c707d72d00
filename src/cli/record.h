/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the record command: cmd-record.c (options, flow, report),
 * record-tracefs.c (the instance), record-output.c (streaming its buffers
 * to FILE), record-run.c (COMMAND, the duration, interrupts).
 */
#ifndef SR_RECORD_H
#define SR_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <jansson.h>
#include <tracefs.h>
#include "cli.h"
#include "machine.h"
#include "trace.h"

/* Exit codes beyond cli.h's, documented in docs/record.md. */
enum { REC_EXIT_LOST = 3, REC_EXIT_COMMAND = 4 };

#define REC_DEFAULT_KB		32768	/* per CPU, before the memory cap */
#define REC_MIN_KB		4
#define REC_MAX_KB		(4L << 20)
#define TRACEFS_PATH		"/sys/kernel/tracing"
#define REC_PROBE_SYSTEM	"sr"	/* the probes' event system */
#define REC_RQS_CPUS		SR_RQS_CPUS	/* CPUs per rqs probe event */
#define REC_RQS_MAX_CPUS	256	/* CPUs whose runqueue averages --probes reads */
#define REC_MAX_PROBES		(8 + REC_RQS_MAX_CPUS / REC_RQS_CPUS)

struct rec_opts {
	const char *out;
	long buffer_kb;			/* 0: default, capped by memory */
	const char *clock;
	bool stat_runtime;
	bool allow_lost;
	bool snapshot;
	bool probes;			/* --probes: kprobes on the placement code */
	bool kallsyms;			/* --kallsyms: store /proc/kallsyms in the file */
	double duration;		/* seconds, 0: until COMMAND ends or an interrupt */
	const char *instance;		/* tracefs instance name, NULL: schedreplay-PID */
	char **cmd;			/* NULL-terminated; NULL: the whole system, no COMMAND */
};

/* One CPU's per_cpu/cpuN/stats; loss counters are deltas over the run. */
struct cpu_stat {
	bool valid;
	unsigned long long entries, overrun, commit_overrun, dropped;
	unsigned long long read;	/* events the kernel handed the readers */
};

#define REC_MAX_CMD_TASKS	4096	/* COMMAND's threads followed, at most */

struct rec {
	const struct rec_opts *o;
	char name[64];			/* instance name */
	struct tracefs_instance *inst;
	bool mounted_tracefs;
	int nr_cpus;
	long buffer_kb;
	json_t *events;			/* "sched/NAME" enabled */
	struct tracefs_dynevent *probes[REC_MAX_PROBES];	/* ours, removed at teardown */
	int nr_probes;
	json_t *probe_status;		/* --probes: [{event, status}] */
	struct cpu_stat *base, *stat;
	unsigned long long lost;
	struct sr_stream *stream;	/* the per-CPU readers, while recording */
	sigset_t sigs, oldmask;		/* blocked while recording; the caller's mask */
	int signo;			/* first SIGINT/SIGTERM/SIGHUP, 0 if none */
	bool timed_out;			/* --duration ended the recording */
	bool stream_failed;		/* a reader could not store pages: recording stopped */
	int status;			/* COMMAND's wait status (0 without COMMAND) */
	pid_t cmd_pid;			/* COMMAND's pid, 0 without */
	/* its tasks' proc status as last read while they ran (record-status.c; owned) */
	struct sr_snapshot_file *cmd_files;
	size_t nr_cmd_files;
	long long bytes;		/* pages stored by the readers */
	/* failure report */
	int code;
	char msg[768];
};

/* record-status.c */
/*
 * Read the status of COMMAND's every thread (while it runs, once more as a
 * zombie) into r->cmd_files, which the snapshot writes where a task is gone.
 */
void sr_rec_status_poll(struct rec *r);
void sr_rec_status_free(struct rec *r);

/* cmd-record.c */
/* Note a failure (exit @code, message) for the report; returns @ret. */
__attribute__((format(printf, 4, 5)))
int sr_rec_fail(struct rec *r, int code, int ret, const char *fmt, ...);
/* libtracefs and libtracecmd return -1 and (mostly) leave errno set. */
int sr_rec_neg_errno(void);

/* record-tracefs.c */
int sr_rec_setup(struct rec *r);
/* Read every CPU's stats into @st; a CPU without a buffer stays !valid. */
int sr_rec_read_stats(struct rec *r, struct cpu_stat *st);
/* Loss counters over the run. */
void sr_rec_count_lost(struct rec *r);
/* Undo everything sr_rec_setup() did; safe after a partial setup. */
void sr_rec_teardown(struct rec *r);

/* record-probes.c */
/* Create and enable the probe events (--probes); fails only without the required ones. */
int sr_rec_probes_setup(struct rec *r);
/* Remove the probe events this run created. */
void sr_rec_probes_teardown(struct rec *r);
/* Create @ev and keep it for teardown and FILE's formats; on failure it is freed.  0 or -errno. */
int sr_rec_probe_create(struct rec *r, struct tracefs_dynevent *ev, const char *event);
/* One line of the snapshot's probe list: @event @status ("recorded", "absent"). */
int sr_rec_probe_note(struct rec *r, const char *event, const char *status);
/* record-probes-rqs.c */
/*
 * Byte offsets in struct rq of cfs.avg's load_avg, util_avg, util_est
 * (6.1's struct util_est: its first member, enqueued) and runnable_avg.
 */
struct rec_rq_avgs {
	bool ok;
	unsigned int off[4];
};
/*
 * The rqs probes: every CPU's root cfs_rq averages at each
 * select_task_rq_fair(); skipped, with a note, where the kernel refuses them.
 */
void sr_rec_probes_rqs(struct rec *r, const struct rec_rq_avgs *o);
/* record-output.c */
/* Sent by a reader that failed; record-run.c waits for it too. */
#define REC_SIG_READER	SIGUSR1
/* Start streaming every CPU's buffer next to r->o->out. */
int sr_rec_stream_start(struct rec *r);
/* Let the readers drain the buffers (tracing off first) and stop. */
int sr_rec_stream_stop(struct rec *r);
/* The stored pages, as the top-level buffer of r->o->out. */
int sr_rec_write_trace(struct rec *r);
/* Read FILE back: every event the kernel handed the readers must be in it. */
int sr_rec_verify(struct rec *r);
void sr_rec_stream_free(struct rec *r);

/* record-run.c */
int sr_rec_run(struct rec *r);
/* Keep interrupts for ourselves from setup to teardown: an instance must not leak. */
void sr_rec_block_signals(struct rec *r);
/* Interrupts that came too late to stop anything are consumed, not delivered. */
void sr_rec_unblock_signals(const struct rec *r);

#endif /* SR_RECORD_H */
