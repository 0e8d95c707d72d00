/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runqueue state rebuilt from sched events: per CPU (current task,
 * nr_running, summed load weight, idle since, PELT-like averages) and per
 * task (state, CPU, weight, switch times, PELT approximation, record_wakee
 * bookkeeping), plus wakeup accounting: each sched_waking paired with the
 * next sched_wakeup of the same pid.
 */
#ifndef SR_STATE_H
#define SR_STATE_H

#include "policy.h"
#include "trace.h"

enum sr_task_state { SR_T_UNKNOWN, SR_T_RUNNING, SR_T_QUEUED, SR_T_SLEEPING, SR_T_DEAD };

/* How a wakeup found its task. */
enum sr_wclass {
	SR_W_PLACED,		/* off every runqueue: the kernel chose a CPU */
	SR_W_RUNNABLE,		/* still running or queued: no selection ran */
	SR_W_UNKNOWN,		/* task's prior state never observed */
	SR_W_NR
};

enum sr_outcome { SR_O_PREV, SR_O_WAKER, SR_O_OTHER, SR_O_NR };

/* One policy's answer for one wakeup, kept while the wakeup is in flight. */
struct sr_brief {
	int16_t cpu;		/* -1: the model refused its input */
	int16_t alt_cpu;
	uint8_t decided_by;	/* enum sr_decider */
	bool determined;
	bool cpu_idle;		/* its CPU was idle at the sched_waking */
	bool sync_assumed;	/* cpu assumes WF_SYNC (alt_cpu the opposite) */
	uint16_t depends;	/* enum sr_dep */
};

/* The task's last completed wakeup, kept until it runs (latency, diff). */
struct sr_wake_note {
	uint64_t ts;		/* sched_waking (or lone sched_wakeup) */
	uint64_t ts_wakeup;
	uint64_t index;		/* placed-wakeup number, 0 if not placed */
	int16_t cpu, prev_cpu, waker_cpu;
	uint8_t cls;		/* enum sr_wclass */
	uint8_t actual;		/* enum sr_outcome */
	bool target_idle;	/* the chosen CPU ran idle when the task was enqueued */
	bool hot;
	bool pending_run;	/* not yet switched in */
};

struct sr_task {
	struct sr_task_view v;		/* what models read: kept current */
	char comm[SR_COMM_LEN];
	enum sr_task_state state;
	int last_out_cpu;		/* CPU of the last switch-out, -1 unknown */
	uint64_t first_seen;
	uint64_t last_in;
	uint64_t runtime;		/* ns observed running */
	bool forked;			/* its fork is in the trace */
	/* PELT approximation: runnable / running fractions in [0, 1] */
	uint64_t pelt_ts;
	double load_frac, util_frac;
	/* the wakeup in flight (sched_waking seen, sched_wakeup not yet) */
	bool pending;
	uint64_t pend_ts;
	int pend_cpu, pend_prev, pend_waker;
	enum sr_wclass pend_cls;
	int pend_migrations;
	int pend_ttwu_cpu;		/* CPU whose wakelist we assume holds it, -1 none */
	bool pend_prev_idle;		/* prev CPU idle at the sched_waking */
	struct sr_brief *dec;		/* nr_policies answers, allocated on first use */
	struct sr_wake_note note;
};

/* A completed wakeup, as analyses consume it. */
struct sr_wakeup {
	uint64_t index;			/* placed wakeups are numbered from 1 in trace order */
	uint64_t ts;			/* sched_waking (or the lone sched_wakeup) */
	uint64_t ts_wakeup;
	const struct sr_task *task;
	int waker_cpu, waker_pid, prev_cpu, cpu;
	enum sr_wclass cls;
	enum sr_outcome actual;		/* placed wakeups only */
	bool paired;
	bool fork;			/* a sched_wakeup_new: cls is SR_W_NR, counted apart */
	bool hot;			/* placed and switched out < migration_cost before */
	int64_t since_out;		/* ns since the last switch-out, -1 unknown */
	int nr_migrations;		/* sched_migrate_task events in between */
	bool prev_idle;			/* prev CPU idle at the sched_waking (paired only) */
	bool target_idle;		/* chosen CPU idle when the task was enqueued */
	bool uncertain;			/* a CPU involved had lost events not yet resynced */
	int nr_dec;
	const struct sr_brief *dec;
};

struct sr_cpu_state {
	struct sr_task *curr;		/* NULL: idle (curr_pid 0) or unknown */
	bool curr_known;		/* a sched_switch has been seen on this CPU */
	uint64_t since;			/* time of the last accounting update */
	uint64_t pelt_ts;
	double load_avg, runnable_avg, util_avg;
	/* time accounting from the first switch on */
	uint64_t idle_ns, busy_ns, unknown_ns;
	double nr_running_ns;		/* ∫ nr_running dt over known time */
	uint64_t resyncs;		/* queued tasks dropped at an idle switch */
	unsigned int ttwu_pending;	/* wakeups assumed queued on this CPU's wakelist */
	uint64_t mismatches;		/* switches whose prev was not the task seen switched in */
};

struct sr_state_hooks {
	void *data;
	/* A sleeping task is being placed: run the policies on @ctx into @dec. */
	int (*placement)(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec);
	/* A wakeup completed (or was classified). */
	int (*wakeup)(void *data, const struct sr_wakeup *w);
	/* A task woken earlier starts running on @cpu; t->note describes that wakeup. */
	int (*run)(void *data, const struct sr_task *t, int cpu, uint64_t ts);
};

struct sr_state_cfg {
	int nr_cpus;
	const struct sr_topo *topo;
	int64_t migration_cost_ns;
	int hz;				/* CONFIG_HZ for record_wakee's decay */
	bool has_waking;		/* the trace has sched_waking: pair with it */
	bool root_cgroup;		/* the user vouches every task is in the root group */
	int nr_policies;
	/*
	 * Per CPU, what the trace says of its start (first_pid, first_ts), or
	 * NULL: every CPU unknown until its first sched_switch.  A CPU with no
	 * record at all is taken as idle from @start on.
	 */
	const struct sr_cpu_ingest *initial;
	uint64_t start;
	struct sr_state_hooks hooks;
};

struct sr_wakeup_counts {
	uint64_t cls[SR_W_NR];
	uint64_t actual[SR_O_NR];
	uint64_t unpaired;
	uint64_t wakeup_new;
	uint64_t placed_hot, affine_hot;
	uint64_t uncertain;
	uint64_t standalone;		/* sched_wakeup without sched_waking in the trace */
};

struct sr_state {
	struct sr_state_cfg cfg;
	struct sr_rq *rq;		/* nr_cpus model views */
	struct sr_cpu_state *cpu;	/* nr_cpus */
	struct sr_llc_view *llc;	/* nr_cpus, filled per placement */
	struct sr_task **tasks;		/* open-addressed by pid */
	size_t nr_slots, nr_tasks;
	struct sr_wakeup_counts wc;
	uint64_t now;
	uint64_t pid_reuse;		/* fork of a pid we already knew */
	uint64_t nr_placed;		/* numbering of placed wakeups */
};

int sr_state_init(struct sr_state *s, const struct sr_state_cfg *cfg);
void sr_state_fini(struct sr_state *s);
/* Feed one event; returns 0 or the first non-zero hook return. */
int sr_state_event(struct sr_state *s, const struct sr_event *ev);
/* End of trace: close accounting at @end and count in-flight wakings as unpaired. */
void sr_state_finish(struct sr_state *s, uint64_t end);

struct sr_task *sr_state_task(const struct sr_state *s, int pid);
const char *sr_task_state_name(enum sr_task_state st);
const char *sr_wclass_name(enum sr_wclass c);
const char *sr_outcome_name(enum sr_outcome o);

/* PELT helpers, exposed for tests: y^n decay over @dt ns (half-life 32 periods of 1024 µs). */
double sr_pelt_decay(uint64_t dt);

#endif /* SR_STATE_H */
