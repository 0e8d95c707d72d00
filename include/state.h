/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State layer: runqueue state rebuilt from sched events, per CPU (current
 * task, nr_running, summed load weight, idle since, PELT-like averages) and
 * per task (state, CPU, weight, switch times, PELT approximation,
 * record_wakee bookkeeping), plus wakeup accounting: each sched_waking
 * paired with the next sched_wakeup of the same pid.
 *
 * At each placement the state hands the replay layer one struct
 * sr_wake_ctx: plain views of the runqueues and tasks as the kernel's
 * select_task_rq_fair() would read them, and the inputs it could not
 * reconstruct.
 */
#ifndef SR_STATE_H
#define SR_STATE_H

#include "base.h"
#include "topology.h"
#include "trace.h"

/* ------------------------------------------------------------ what models read */

/* One CPU's runqueue as a model sees it at the moment of the wakeup. */
struct sr_rq {
	int curr_pid;			/* 0: the idle task runs */
	int curr_policy;		/* enum sr_sched_policy of curr */
	unsigned int nr_running;	/* tasks on the rq, curr included, all classes */
	unsigned int cfs_nr_running;	/* CFS tasks only */
	unsigned int idle_nr_running;	/* SCHED_IDLE tasks among them */
	unsigned long load_weight;	/* Σ weight of queued CFS tasks incl. curr (rq.load.weight) */
	unsigned long load_avg;		/* PELT cfs_rq.avg.load_avg, blocked load included */
	/*
	 * An idle CPU read after the nohz blocked-load update the state assumed
	 * (src/state/pelt.c): the kernel's may not have run (a stalled VM's
	 * often does not), leaving cfs_rq->avg as its last seen update did.
	 */
	bool load_refreshed;
	unsigned long load_avg_unrefreshed;
	/*
	 * cfs_rq->h_load of the root: update_cfs_rq_h_load() sets it to the
	 * load_avg of the first task_h_load() in a jiffy and keeps it for the
	 * rest of it.  Valid when h_load_cached; else it would be load_avg.
	 */
	unsigned long h_load;
	bool h_load_cached;
	unsigned long group_load_avg;	/* the part of load_avg from task groups' entities */
	unsigned long runnable_load_avg;/* PELT of enqueued entities only (≤ 5.6) */
	unsigned long util_avg;
	/*
	 * cfs_rq.avg.runnable_avg (5.7+, 9f68395333ad): PELT of h_nr_running,
	 * SCHED_CAPACITY_SCALE per runnable (running or queued) fair task,
	 * blocked tasks' share included as for util_avg.
	 */
	unsigned long runnable_avg;
	unsigned long util_est;		/* Σ util_est of the enqueued CFS tasks (6.x cfs_rq) */
	unsigned long capacity;		/* capacity_of() / power_of(); 1024 when unknown */
	uint64_t idle_since;		/* ns when curr became idle; 0 when busy */
	/*
	 * rq->idle_stamp: set when the CPU enters newidle balance on its way to
	 * idle (not while a wakeup is pending for it), cleared by a wakeup onto
	 * it (ttwu_do_activate()) or a pull, kept through forks and migrations
	 * (src/state/stamp.c).  find_idlest_group_cpu() prefers the latest.
	 * Valid when idle_stamp_known.
	 */
	uint64_t idle_stamp;
	bool idle_stamp_known;
	/*
	 * 6.12+, where the trace leaves the stamp open: the kernel's is some
	 * value in [idle_stamp_lo, idle_stamp_hi] (SR_STAMP_OPEN: any later),
	 * idle_stamp the one models read, idle_stamp_dep the input that decides
	 * it (SR_DEP_*).  0: idle_stamp is the kernel's (lo and hi unused).
	 */
	uint64_t idle_stamp_lo, idle_stamp_hi;
	unsigned int idle_stamp_dep;
	uint64_t avg_idle;		/* rq->avg_idle estimate, ns */
	bool ttwu_pending;		/* a wakeup is in flight to this CPU */
	/*
	 * The state saw the CPU go idle but this trace does not record its
	 * switches out of idle reliably: it may be running a task.  Models read
	 * it as busy (sr_rq_idle()), and the wakeup as uncertain.
	 */
	bool idle_unrecorded;
	/*
	 * 6.12+ DELAY_DEQUEUE: tasks that went to sleep here while another task
	 * was runnable, since the CPU last went idle.  The kernel may keep them
	 * queued (ineligible sleepers) and count them in rq->nr_running; which
	 * ones it kept depends on their EEVDF lag, which no trace shows.
	 */
	unsigned int maybe_delayed;
	bool vcpu_preempted;		/* unknowable from a trace; false */
	/*
	 * The trace holds no event of this CPU at all: idle throughout, or one
	 * task running there without a switch — no event tells which.  Idle is
	 * the guess until a choice of the kernel says otherwise (silent_busy:
	 * src/state/follow.c, sr_st_follow_silent()); models then read it as busy.
	 */
	bool silent, silent_busy;
	/*
	 * The CPU was busy when the trace began and its PELT averages have not
	 * had a warm-up (LOAD_AVG_MAX_N periods) since: they start from zero,
	 * the kernel's from its whole past.
	 */
	bool pelt_cold;
	/*
	 * ... and while it is, what its past adds to util_avg and load_avg now
	 * on the stationary guess (src/state/pelt.c, warm_prior()): the models
	 * add them where a decision reads these averages; the state never does.
	 */
	unsigned long pelt_pre_util, pelt_pre_load;
	/*
	 * What the kernel's earlier sched_vcpu_pack choices showed this CPU's
	 * utilisation to hold beyond the state's, decayed to now
	 * (src/state/follow.c, follow_pack()); only that model reads it.
	 */
	unsigned long util_taught;
	bool uncertain;			/* state not re-established after lost events */
};

#define SR_STAMP_OPEN	UINT64_MAX	/* idle_stamp_hi: no event bounds it yet */

/* idle_cpu(): the idle task runs, nothing is queued, no wakeup is in flight to it. */
static inline bool sr_rq_idle(const struct sr_rq *rq)
{
	return rq->curr_pid == 0 && rq->nr_running == 0 && !rq->ttwu_pending &&
	       !rq->idle_unrecorded && !rq->silent_busy;
}

enum sr_sched_policy {
	SR_SCHED_NORMAL,
	SR_SCHED_BATCH,
	SR_SCHED_IDLE,
	SR_SCHED_RT,			/* FIFO/RR/DL: prio < 100 */
};

/*
 * One task group on one CPU: its cfs_rq there (se->my_q) and the group
 * entity that represents it in the parent's cfs_rq (tg->se[cpu]).
 */
struct sr_tg_cpu {
	unsigned long load_weight;	/* my_q->load.weight: Σ queued weight in the group */
	unsigned long rq_weight;	/* 2.6.37 my_q->rq_weight: update_shares() snapshot */
	unsigned long shares;		/* 2.6.37 my_q->shares ("s"): update_shares() snapshot */
	unsigned long load_contribution;/* 2.6.38 my_q->load_contribution (windowed average) */
	unsigned long se_weight;	/* tg->se[cpu]->load.weight: the group's share here */
	unsigned long load_avg;		/* my_q->avg.load_avg (PELT, blocked load included) */
	unsigned long se_load_avg;	/* tg->se[cpu]->avg.load_avg */
};

/*
 * A non-root task group (a cgroup with the cpu controller, or an
 * autogroup); a NULL group pointer everywhere means the root group.
 */
struct sr_tg {
	const struct sr_tg *parent;	/* NULL: a child of the root group */
	unsigned long shares;		/* tg->shares ("S"), 1024 by default */
	int load_weight;		/* 2.6.38 atomic_t tg->load_weight = Σ load_contribution */
	int nr_cpus;			/* entries in cpu[]; must cover every CPU asked about */
	const struct sr_tg_cpu *cpu;
};

/* A task (wakee or waker) as a model sees it. */
struct sr_task_view {
	int pid;
	int prio;			/* kernel prio: 120 + nice for CFS */
	enum sr_sched_policy policy;
	unsigned long weight;		/* se.load.weight, scaled down (nice 0 = 1024) */
	unsigned long load_avg;		/* PELT se.avg.load_avg approximation */
	unsigned long util_avg;
	unsigned long runnable_avg;	/* se.avg.runnable_avg (5.7+): runnable fraction * 1024 */
	unsigned long util_est;		/* _task_util_est() it adds to its CPU while queued, else 0 */
	unsigned long util_est_ewma;	/* its util_est.ewma, queued or not (6.9+: _task_util_est()) */
	bool pelt_warm;			/* observed long enough for PELT to converge */
	int cpu;			/* task_cpu() */
	bool on_cpu;			/* currently running */
	uint64_t exec_start;		/* last time it started or stopped running (ns) */
	uint64_t last_switch_out;	/* ns; 0 if never seen */
	/* record_wakee() bookkeeping, as the kernel keeps it on the task */
	unsigned int wakee_flips;
	/*
	 * Bounds on the kernel's wakee_flips: equal to wakee_flips when the
	 * task's whole history is in the trace.  A task that predates the
	 * trace (or was forked by one) carries flips nobody saw: max starts at
	 * UINT_MAX and only halvings bring it down (src/state/record_wakee.c).
	 */
	unsigned int wakee_flips_min, wakee_flips_max;
	/* of wakee_flips, the estimate of what it inherited from before the trace
	 * (its family's count, src/state/flips.c) */
	unsigned int wakee_flips_inherited;
	uint64_t wakee_flip_decay_ts;	/* in jiffies, like the kernel */
	int last_wakee;			/* pid, 0 if unknown (held from before the trace) */
	int last_wakee_not;		/* ... but surely not this pid (the parent it was forked
					 * from: a task never wakes itself), 0 if none */
	/* The same counter under Gorman's heavy-waker coupling (sr_record_wakee_heavy()). */
	unsigned int wakee_flips_heavy;
	int recent_used_cpu;		/* -1 if unknown */
	int nr_cpus_allowed;		/* 0: unknown, assume all */
	bool exiting;			/* PF_EXITING (current) */
	const struct sr_tg *tg;		/* NULL: root group (or unknown, see deps) */
	/*
	 * task_h_load() as the kernel computed it during this placement, from
	 * a probe trace; when not known, models derive it.
	 */
	bool h_load_known;
	unsigned long h_load;
};

/*
 * The part of @v's wakee_flips the trace showed: the rest is the estimate of
 * its inherited count, which a bound may have kept from being applied whole.
 */
static inline unsigned int sr_flips_seen(const struct sr_task_view *v)
{
	return v->wakee_flips > v->wakee_flips_inherited ?
	       v->wakee_flips - v->wakee_flips_inherited : 0;
}

struct sr_group;

/* Per-LLC lazy hints (sd_llc_shared). */
struct sr_llc_view {
	bool has_idle_cores;
	bool idle_cores_unknown;	/* has_idle_cores is a guess: nothing has set or cleared it */
	int nr_idle_scan;		/* SIS_UTIL budget; -1 unknown */
	bool nr_idle_scan_estimated;	/* nr_idle_scan is the state's estimate, not a fact */
};

/* WF_SYNC is not in a trace: it is a tri-state input. */
enum sr_tristate { SR_NO = 0, SR_YES = 1, SR_UNKNOWN = 2 };

enum sr_wake_kind { SR_WAKE_TTWU, SR_WAKE_FORK, SR_WAKE_EXEC };
/* "wakeup", "fork", "exec": the placement's kind as reports name it. */
const char *sr_wake_kind_name(enum sr_wake_kind kind);

/* Where the context's WF_SYNC value (or guess) comes from. */
enum sr_sync_source {
	SR_SYNC_SRC_NONE,		/* hand-made context, or not a wakeup */
	SR_SYNC_SRC_IRQ,		/* issued from interrupt context or by the idle task */
	SR_SYNC_SRC_TASK,		/* issued by a task, nothing learned yet: *_sync likely */
	SR_SYNC_SRC_EVIDENCE,		/* how the kernel placed earlier wakeups of such wakers */
	SR_SYNC_SRC_PROBE,		/* recorded by the select_task_rq_fair() probe: a fact */
	SR_SYNC_SRC_PAIR,		/* ... of such wakees by such wakers */
};
const char *sr_sync_source_name(enum sr_sync_source src);

/* Inputs the trace cannot show; a decision lists those its result depends on. */
enum sr_dep {
	SR_DEP_SYNC		= 1 << 0,
	SR_DEP_CGROUP		= 1 << 1,	/* shares unknown: root group assumed */
	SR_DEP_PELT_WARMUP	= 1 << 2,
	SR_DEP_DELAYED_DEQUEUE	= 1 << 3,	/* 6.12+ */
	SR_DEP_VCPU		= 1 << 4,
	SR_DEP_LOST_EVENTS	= 1 << 5,
	SR_DEP_TOPOLOGY		= 1 << 6,	/* topology assumed, not recorded */
	SR_DEP_SCAN_COST	= 1 << 7,	/* SIS_PROP avg_scan_cost / avg_idle */
	SR_DEP_IDLE_HINT	= 1 << 8,	/* has_idle_cores / nr_idle_scan */
	SR_DEP_AFFINITY		= 1 << 9,	/* cpus_allowed unknown */
	SR_DEP_RECENT_CPU	= 1 << 10,	/* p->recent_used_cpu unknown */
	SR_DEP_IDLE_STAMP	= 1 << 11,	/* rq->idle_stamp from before the trace, or
						 * renewed by an idle re-entry (< 6.12) or
						 * after a delayed sleeper's move (6.12+) */
	SR_DEP_LOAD_ESTIMATE	= 1 << 12,	/* a load comparison inside the PELT estimate's error */
	SR_DEP_WAKEE_FLIPS	= 1 << 13,	/* wakee_flips inherited from before the trace, or
						 * a decay at the jiffy the trace cannot place */
	SR_DEP_DECISION_TIME	= 1 << 14,	/* the selection ran at a moment the trace does
						 * not pin (an exec's sched_exec(), a fork's
						 * wake_up_new_task(), a stalled waker), the
						 * runqueues changing meanwhile */
	SR_DEP_CONCURRENT	= 1 << 15,	/* another wakeup was being enqueued on a CPU it
						 * read: idle_cpu() may have seen it queued */
	SR_DEP_KERNEL_PATCHES	= 1 << 16,	/* the kernel's boot command line sets scheduler
						 * parameters no mainline kernel has: its
						 * placement code is not the one modelled */
	SR_DEP_IDLE_STATE	= 1 << 17,	/* a cpuidle driver: the idle CPUs' states, whose
						 * exit latency the slow path weighs first */
	SR_DEP_SILENT_CPU	= 1 << 18,	/* a CPU with no event in the trace: idle or
						 * running one task throughout */
};
#define SR_NR_DEPS	19

/* SIS_UTIL's budget of one LLC (src/state/hints.c). */
struct sr_llc_scan {
	int value;			/* sd_llc_shared->nr_idle_scan, -1: none */
	uint64_t ts;			/* when last computed, 0: never */
	uint64_t read;			/* when a probe last read it (0: not since the
					 * balancer's last update) */
	uint64_t idle_ns;		/* its CPUs' idle time since ts, summed ... */
	uint64_t idle_to;		/* ... up to here */
	unsigned int nr_idle;		/* its CPUs with nothing running or queued */
};

/* Tasks sharing one count of wakee_flips from before the trace (src/state/flips.c). */
#define SR_FAM_B_MAX	63		/* the candidates for B a family's lessons score */
struct sr_flips_fam {
	unsigned int base;		/* lower bound on that count, B */
	unsigned int far_need;		/* least B the lessons past the factor needed */
	unsigned int far_count;		/* ... how many such lessons (members in turn) */
	int far_pid;			/* the member of the last one */
	uint16_t score[SR_FAM_B_MAX + 1];	/* wake_wide() lessons each candidate B agrees with */
};

/* Everything a model may read about one wakeup. */
struct sr_wake_ctx {
	uint64_t now;			/* ns */
	uint64_t ts;			/* the wakeup's sched_waking (or sched_wakeup_new): its
					 * identity; now is later when replayed at a probe */
	enum sr_wake_kind kind;
	int this_cpu;			/* waker CPU: smp_processor_id() */
	int prev_cpu;			/* task_cpu(p) / p->wake_cpu */
	enum sr_tristate sync;
	const struct sr_task_view *p;	/* wakee */
	const struct sr_task_view *curr;/* waker (current on this_cpu); may be NULL (irq) */
	const struct sr_rq *rq;		/* nr_cpus entries, indexed by CPU */
	const struct sr_llc_view *llc;	/* indexed by CPU (each CPU's LLC); may be NULL */
	const struct sr_cpumask *allowed;/* p->cpus_ptr; NULL: all CPUs */
	const struct sr_topo *topo;
	bool in_task;			/* the waking runs in task context, not irq (in_task()) */
	/*
	 * How far the PELT averages in the views may be from the kernel's, in
	 * percent (0: exact, as in hand-made contexts).  A load comparison
	 * closer than this depends on SR_DEP_LOAD_ESTIMATE.
	 */
	unsigned int load_error_pct;
	bool curr_percpu_kthread;	/* current is a per-CPU kthread (is_per_cpu_kthread()) */
	/*
	 * CPUs another wakeup is being enqueued on at this moment (its
	 * sched_waking seen, its sched_wakeup not yet): the kernel's runqueue
	 * may already hold it.  NULL or empty: none.  @rq_scratch (nr_cpus
	 * entries, lent by the caller) holds the what-if's runqueues.
	 */
	const struct sr_cpumask *in_flight;
	/*
	 * CPUs whose wakelist the state takes to hold a task (ttwu_pending)
	 * from its sched_waking, though its waker's try_to_wake_up() is not
	 * shown done yet: the kernel may not have queued it.  NULL: none.
	 */
	const struct sr_cpumask *wl_doubt;
	struct sr_rq *rq_scratch;
	/* what-if replays (replay/policy.c): 0 wake_wide() computes, 1 wide, -1 narrow */
	signed char force_wide;
	/* rq(this)->wake_avg_idle and wake_stamp (5.13 - 6.6 SIS_PROP), when known */
	struct {
		bool known;
		uint64_t avg_idle, stamp, jiffies;
	} wake_avg;
	/*
	 * When sync is SR_UNKNOWN, the value the decision's primary answer
	 * assumes (the other value's answer goes to alt_cpu): the more likely
	 * value from evidence in the trace (how each value fared on the waker's
	 * earlier wakeups), never a fact.
	 */
	enum sr_tristate sync_guess;
	enum sr_sync_source sync_source;
	/*
	 * enum sr_dep inputs the state could not supply (PELT not warm, cgroup
	 * unknown, topology assumed...).  A model adds one to d->depends only
	 * when its answer actually used that input; LOST_EVENTS always counts.
	 */
	unsigned int unknown;
	/*
	 * CPUs not in cpu_active_mask / cpu_online_mask (CPU hotplug); NULL:
	 * none.  select_task_rq() refuses them (is_cpu_allowed()).
	 */
	const struct sr_cpumask *inactive, *offline;
	bool p_percpu_kthread;		/* the wakee is a per-CPU kthread (kthread_is_per_cpu()) */
};

/*
 * record_wakee() (3.12 -> 6.18): the waker's flip counter, decayed once (a
 * single halving) when more than @hz jiffies passed since its decay stamp.
 * Updates @waker's wakee_flips, wakee_flip_decay_ts and last_wakee; @wakee
 * is not modified.  Since 4.9 the kernel calls it only from
 * select_task_rq_fair(): not for pinned tasks (nr_cpus_allowed == 1), not
 * for the 5.8+ on_cpu wakelist shortcut.  The flow models read the flips
 * as given, so call this (and sr_record_wakee_heavy(), first) before the
 * decision, as the kernel does.  Returns 0 or -EINVAL.
 */
int sr_record_wakee(struct sr_task_view *waker, struct sr_task_view *wakee, uint64_t jiffies,
		    unsigned int hz, int llc_size);
/* The kernel's choices suggest @t's count is at least @n: raise the estimate (within the bounds). */
void sr_flips_at_least(struct sr_task_view *t, unsigned int n);

/*
 * Mel Gorman's "sched/fair: Couple wakee flips with heavy wakers" (Oct
 * 2021, never merged): record_wakee() evolved on the wakee_flips_heavy
 * counters, where a heavy waker (flips > wakee flips * 2 * @llc_size)
 * passes one flip on to its wakee.  It shares decay stamp and last_wakee
 * with record_wakee() and leaves them alone: call it first, then
 * sr_record_wakee(), for each wakeup.
 */
int sr_record_wakee_heavy(struct sr_task_view *waker, struct sr_task_view *wakee,
			  uint64_t jiffies, unsigned int hz, int llc_size);

/* update_idle_cpu_scan()'s intermediates: x = util per CPU, tmp, y = 1024 - tmp. */
struct sr_idle_scan_calc {
	uint64_t x, tmp, y;
};

/*
 * update_idle_cpu_scan() (kernel/sched/fair.c, 6.0 -> 6.18; the load
 * balancer runs it at the LLC level): the SIS_UTIL budget nr_idle_scan of an
 * LLC of @llc_weight CPUs whose summed cpu_util_cfs() is @sum_util, balanced
 * at imbalance_pct @pct.  Returns the new nr_idle_scan, or -EINVAL; @calc
 * (may be NULL) receives the intermediates.
 */
int sr_update_idle_cpu_scan(unsigned long sum_util, int llc_weight, int pct,
			    struct sr_idle_scan_calc *calc);

/* ------------------------------------------------------------ the state */


enum sr_task_state { SR_T_UNKNOWN, SR_T_RUNNING, SR_T_QUEUED, SR_T_SLEEPING, SR_T_DEAD };

/*
 * A wakeup of a task still leaving its CPU that try_to_wake_up() queued on
 * that CPU's wakelist (ttwu_queue_cond(), 5.8+), with no CPU selection: why.
 */
enum sr_wakelist_why {
	SR_WL_NONE,
	SR_WL_IDLE,		/* the CPU was left with nothing to run */
	SR_WL_OTHER_LLC,	/* it shares no cache with the waker's CPU */
	SR_WL_WAKER_WENT_ON,	/* the waker's CPU recorded something before the switch */
	SR_WL_ONE_OTHER,	/* 5.8 - 5.19: at most one other task there */
};

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
	uint32_t depends;	/* enum sr_dep */
};

/* The task's last completed wakeup, kept until it runs (latency, diff). */
struct sr_wake_note {
	uint64_t ts;		/* sched_waking (or lone sched_wakeup) */
	uint64_t ts_wakeup;
	uint64_t index;		/* placement number (wakeup or fork), 0 if not placed */
	int16_t cpu, prev_cpu, waker_cpu;
	uint8_t cls;		/* enum sr_wclass */
	uint8_t actual;		/* enum sr_outcome */
	bool target_idle;	/* the chosen CPU ran idle when the task was enqueued */
	bool hot;
	bool pending_run;	/* not yet switched in */
};

/*
 * The recorded kernel's own model on one placement (the reference the run
 * replays besides the user's policies): its answer under each WF_SYNC value
 * and the hints each answer leaves.  The state keeps it until the kernel's
 * choice is seen, then follows the hints of the answer that matched it and
 * learns which WF_SYNC value the waker's wakeups carry.
 */
struct sr_ref {
	bool valid;
	int16_t cpu[2];			/* [0] without WF_SYNC, [1] with */
	int16_t recent_used_cpu[2];	/* p->recent_used_cpu each answer leaves, -1 unknown */
	int16_t cleared_idle_cores[2];	/* the LLC whose has_idle_cores its failed core scan
					 * cleared, -1 none */
	bool stores_prev;		/* the kernel stores prev in p->recent_used_cpu once
					 * past the target and prev tests (5.15+) */
	int16_t no_scan_cpu[2];		/* the answer a SIS_UTIL budget of 0 gives, if other */
	int16_t no_scan_budget[2];	/* the greatest budget that gives it */
	int16_t full_scan_cpu[2];	/* the answer the whole LLC's budget gives, if other */
	int16_t full_scan_budget[2];	/* the least budget that gives it */
	int16_t scan_llc[2];		/* the LLC (llc_id) whose budget that is, -1 none */
	int16_t cores_no_scan_cpu[2];	/* the answer has_idle_cores set and a budget of 0
					 * give together, if other (the hint a clear guess) */
	int16_t wide_alt_cpu;		/* the answer with the other wake_wide() result, if
					 * other (its flips' bounds allow it), else -1 */
	bool primary_wide;		/* the primary answer's wake_wide() was true */
	uint16_t wide_factor;		/* wake_wide()'s factor: sd_llc_size of this CPU */
	int16_t h_load_cpu[2];		/* the primary answer's task_h_load() reads: the CPUs
					 * whose root h_load the kernel cached then, -1 none */
	int16_t waker_recent_cpu;	/* the waker's recent_used_cpu it left (4.16 - 5.14),
					 * -1 untouched */
	bool waker_recent_maybe;	/* ... unless wake_wide() answered otherwise */
	bool no_record_wakee;		/* answered before record_wakee() (sched_vcpu_pack) */
	/* each answer's sched_vcpu_pack utilisation margins (struct sr_sis_fx) */
	int16_t pack_cpu[2], pack_tight_cpu[2];
	int32_t pack_need[2], pack_excess[2];
	bool pack_doubt;		/* the answer hung on another event's timing too */
};

/* How each WF_SYNC value fared on a waker's earlier wakeups (decaying counts). */
struct sr_sync_evidence {
	uint16_t wins[2];		/* only the answer under [0] no / [1] WF_SYNC matched */
};

/* The kernel's own inputs to one select_task_rq_fair() call, from the srqf probe. */
struct sr_probe_in {
	bool valid;
	unsigned int wake_flags;
	uint64_t ts;
	uint64_t load_avg, util_avg;	/* p->se.avg; UINT64_MAX: not recorded */
	uint64_t prev_load, prev_util;	/* cpu_load()/util of task_cpu(p); UINT64_MAX: not recorded */
	int ret_cpu;			/* what it returned, -1 not yet */
};

/*
 * The exec in progress: sched_exec() is seen only when it moves the task
 * (the task wakes its own CPU's stopper, which migrates it), and the exec
 * itself at sched_process_exec.
 */
struct sr_exec_cand {
	/* the exec in progress, reset by each self-stop or srqf with WF_EXEC */
	bool valid;			/* a self-stop (or an srqf with WF_EXEC) was seen */
	bool probed;			/* ... at sched_exec()'s own srqf: its moment is known */
	bool replayed;			/* the policies ran (a probed one: at its first fig,
					 * or at srqf_ret when none came) */
	int kernel_cpu;			/* srqf_ret's answer, -1 none */
	uint64_t replayed_ts;		/* when the policies ran */
	bool uncertain;			/* a CPU involved had lost events */
	uint64_t ts;			/* its sched_waking of the stopper */
	int from, to;			/* task_cpu(p) then; the stopper's migration (-1: none yet) */
	int stopper;			/* pid of migration/from */
	/* kept across execs */
	struct sr_brief *dec;		/* the policies' answers then (nr_policies) */
	/*
	 * A child's exec usually begins as soon as it first runs: the answers
	 * replayed at that switch-in (spec, nr_policies), for a stay.
	 */
	struct sr_brief *spec;
	uint64_t spec_ts;		/* that switch-in */
	bool spec_valid;
	bool window_fork;		/* the window opened at its fork */
	/* when no stop is seen: since when sched_exec() may have run, and slices since */
	uint64_t window;
	unsigned int slices;
	int window_cpu;			/* the CPU of its first slice since, -2 several */
	uint64_t own_last, own_prev;	/* its last two records while current */
};

struct sr_task {
	struct sr_task_view v;		/* what models read: kept current */
	char comm[SR_COMM_LEN];
	uint32_t comm_fnv;		/* FNV-1a of comm, kept with it: the WF_SYNC evidence's key */
	int bound_cpu;			/* a per-CPU kthread's CPU (from its name), or the one
					 * CPU its affinity allows, else -1 */
	const struct sr_cpumask *allowed;	/* its cpus_ptr (cfg.affinity, inherited), NULL: all */
	/* forked in the trace with a mask of its own in cfg.affinity: its parent's until ... */
	const struct sr_cpumask *own_allowed, *parent_allowed;
	bool own_at_exec;		/* ... its exec (it ran where only the parent's allowed) */
	bool own_unset;			/* ... and its slices before its first wakeup */
	bool kthread_bound;		/* bound_cpu is a per-CPU kthread's (is_per_cpu_kthread()) */
	int delayed_cpu;		/* counted in that CPU's maybe_delayed, else -1 */
	uint32_t delayed_gen;		/* ... while its idle_gen was this */
	struct sr_sync_evidence sync;	/* as a waker */
	/* its wakeups where only [0] the "not wide" / [1] the wide answer was the kernel's */
	uint16_t wide_wins[2];
	/* src/state/flips.c: its family's share of wakee_flips from before the trace */
	int flips_fam;			/* -1: none (known, or no lesson yet) */
	unsigned char flips_shift;	/* decays since the family's count was B */
	struct sr_group *grp;		/* its task group (v.tg is &grp->tg), NULL: root */
	bool grp_known;			/* set by an event or inherited, not assumed */
	enum sr_task_state state;
	int last_out_cpu;		/* CPU of the last switch-out, -1 unknown */
	uint64_t first_seen;
	uint64_t last_in;
	uint64_t runtime;		/* ns observed running */
	bool forked;			/* its fork is in the trace */
	uint64_t fork_idle_ts;		/* its wake_up_new_task() found the target idle (0: no) */
	/*
	 * PELT approximation: runnable / running fractions in [0, 1]; run_frac
	 * is runnable too, but starts at the new task's util where load_frac
	 * starts at 1 (post_init_entity_util_avg(), 5.7+).
	 */
	uint64_t pelt_ts;
	double load_frac, util_frac, run_frac;
	/* se.avg as the dequeue for its last sleep left it: not decayed until it is enqueued */
	unsigned long sleep_load, sleep_util, sleep_run;
	uint64_t sleep_ts;
	bool sleep_known;
	bool pelt_held;			/* migrated asleep: se.avg not aged until enqueued */
	/* ... and attached to this CPU's sums by the state, not yet by the kernel */
	int attach_cpu;			/* -1: none */
	double attach_load, attach_util, attach_run;
	uint64_t attach_ts;
	/* util_est (6.x): the estimate its dequeues left, and what it adds to its CPU now */
	unsigned long ue_ewma, ue_last, ue_contrib;
	/* the wakeup in flight (sched_waking seen, sched_wakeup not yet) */
	bool pending;
	uint64_t pend_ts;
	uint64_t pend_placed_ts;	/* when its placement was replayed */
	int pend_cpu, pend_prev, pend_waker;
	enum sr_wclass pend_cls;
	int pend_migrations;
	bool pend_followed;		/* the kernel's choice was known before the sched_wakeup */
	bool pend_wl_shown;		/* its wakelist queueing is shown done (wakeup.c) */
	int pend_ttwu_cpu;		/* CPU whose wakelist we assume holds it, -1 none */
	int pend_flight_cpu;		/* CPU it is being enqueued on directly, -1 none */
	bool pend_descheduled;		/* placed once it had left its CPU (wakeup.c) */
	enum sr_wakelist_why pend_wakelist;	/* ... or why it went to that CPU's wakelist */
	bool pend_await_switch;		/* no sched_wakeup: a running task's wakeup waits for
					 * its switch-out (infer.c) */
	/*
	 * Policies (bit i) whose answer a wakeup in flight elsewhere could
	 * move, held until the trace shows whether it came first; conc_ts:
	 * when the placement was replayed; conc_end: its select_task_rq()
	 * done by then (0: not yet shown).
	 */
	uint32_t conc_pols;
	uint64_t conc_ts, conc_end;
	/* the wakeup in flight that made its last placement uncertain (pid 0: none) */
	struct sr_conc_by { int pid, cpu; uint64_t waking, wakeup; } conc_by;
	bool pend_prev_idle;		/* prev CPU idle at the sched_waking */
	struct sr_ref pend_ref;		/* the reference model's answer, until the kernel's */
	/*
	 * Probe traces: the placement waits for the kernel's own
	 * select_task_rq_fair() (srqf_ret); @pend_ev is the sched_waking.
	 */
	bool pend_deferred;
	enum sr_tristate pend_guess;	/* the WF_SYNC the state guessed for it */
	struct sr_event pend_ev;
	struct sr_probe_in probe;
	struct sr_brief *dec;		/* nr_policies answers, allocated on first use */
	/* infer.c, traces without sched_wakeup: how the pending wakeup's CPU was found */
	bool pend_inferred, pend_infer_uncertain;
	int pend_queued_cpu;		/* where the state queued it at the waking */
	struct sr_wake_note note;
	struct sr_exec_cand exec;	/* src/state/exec.c */
};

/* A completed wakeup, as analyses consume it. */
struct sr_wakeup {
	uint64_t index;			/* placed wakeups, forks and execs are numbered from 1 in
					 * the order they complete */
	uint64_t ts;			/* sched_waking (or the lone sched_wakeup); a fork's
					 * wakeup_new; an exec's sched_exec() (src/state/exec.c) */
	uint64_t ts_wakeup;
	const struct sr_task *task;
	int waker_cpu, waker_pid, prev_cpu, cpu;
	enum sr_wclass cls;
	enum sr_outcome actual;		/* placed wakeups only */
	bool paired;
	enum sr_wake_kind kind;		/* not TTWU: a fork or exec placement, cls is SR_W_NR,
					 * counted apart */
	bool hot;			/* placed and switched out < migration_cost before */
	int64_t since_out;		/* ns since the last switch-out, -1 unknown */
	int nr_migrations;		/* sched_migrate_task events in between */
	bool prev_idle;			/* prev CPU idle at the sched_waking (paired only) */
	bool target_idle;		/* chosen CPU idle when the task was enqueued */
	bool uncertain;			/* a CPU involved had lost events not yet resynced, or
					 * (inferred) something may have moved the task unseen, or
					 * in_lost_window */
	bool chosen_inferred;		/* no sched_wakeup: cpu from sched_migrate_task or the
					 * switch-in (src/state/infer.c) */
	bool in_lost_window;		/* from waking to wakeup, some CPU was losing events */
	bool after_switch;		/* woken while still leaving its CPU: selected once
					 * the switch was done (src/state/wakeup.c) */
	enum sr_wakelist_why wakelist;	/* ... or queued on that CPU's wakelist, no selection */
	bool at_select;			/* an exec replayed at its own select_task_rq_fair()
					 * probe, not inferred from a self-stop or the exec */
	int nr_dec;
	const struct sr_brief *dec;
};

#define SR_LEFT_RING	16

struct sr_cpu_state {
	int hp_kick_target;		/* the state its hotplug thread was kicked down to; 0 none */
	struct sr_task *curr;		/* NULL: idle (curr_pid 0) or unknown */
	bool curr_known;		/* a sched_switch has been seen on this CPU */
	uint64_t touched_ts;		/* the last change of its curr or nr_running */
	uint64_t since;			/* time of the last accounting update */
	uint64_t pelt_ts;
	/* runnable_load_avg: ≤ 5.6's, of queued load; runnable_avg: 5.7+'s, of h_nr_running */
	double load_avg, runnable_load_avg, util_avg, runnable_avg;
	/*
	 * cfs_rq->avg as the kernel's last update_load_avg() on this CPU left
	 * it (k_ts, 0: none yet): what cpu_load() and cpu_util() read.
	 */
	double k_load, k_runnable_load, k_util, k_runnable;
	uint64_t k_ts;
	bool k_refreshed;		/* the last update is the assumed nohz one ... */
	double k_load_seen;		/* ... and this the load its last seen update left */
	/* the root cfs_rq's h_load, cached until the end of its jiffy (0: never cached) */
	unsigned long h_load;
	uint64_t h_load_until;
	uint64_t pelt_known_ts;		/* averages worth reading from then (warm-up) */
	/* a cold CPU's running and queued-weight averages from zero at the trace's start */
	double warm_util, warm_load;
	uint64_t warm_ts;		/* their start; 0: none (idle when the trace began) */
	double taught_util;		/* sr_rq.util_taught at taught_ts, decaying since */
	uint64_t taught_ts;
	/* dead tasks' averages left for the next update (cfs_rq->removed) */
	double removed_load, removed_util, removed_run;
	uint64_t removed_ts;
	uint64_t rcu_tick;		/* the tick that applies them on an idle CPU (0: none) */
	/*
	 * Sleepers a wakeup moved here, in the sums since their placement but
	 * not in the kernel's cfs_rq until their enqueue (a wakelist delays it
	 * to the target's IPI): what cpu_load() and cpu_util() read leaves them out.
	 */
	double attach_load, attach_util, attach_run;
	/*
	 * Loads that left lately (migrations away, deaths): a busy CPU read
	 * past its last seen update has had a tick since, which applied only
	 * what left before it (src/state/pelt.c).
	 */
	struct sr_left { uint64_t ts; double load; } left[SR_LEFT_RING];
	unsigned int left_head;
	/* time accounting from the first switch on */
	uint64_t idle_ns, busy_ns, unknown_ns;
	double nr_running_ns;		/* ∫ nr_running dt over known time */
	uint64_t resyncs;		/* queued tasks dropped at an idle switch */
	unsigned int ttwu_pending;	/* wakeups assumed queued on this CPU's wakelist */
	int wl_pid;			/* the last of them */
	unsigned int in_flight;		/* wakeups being enqueued here directly, not yet shown */
	uint64_t flight_ts;		/* the latest one's sched_waking */
	int flight_waker;		/* ... and the CPU it ran on */
	struct sr_task idle;		/* the CPU's idle task (pid 0): a waker from irq context */
	unsigned long root_weight;	/* queued weight of root-group tasks: the root cfs_rq's
					 * own tasks (group entities are added at placements) */
	bool counted_idle;		/* counted in its LLC's sr_llc_scan.nr_idle */
	uint64_t mismatches;		/* switches whose prev was not the task seen switched in */
	uint64_t idle_mismatches;	/* ... when we had seen it go idle */
	uint64_t switches;
	uint32_t idle_gen;		/* times it went idle: clears maybe_delayed */
	int sel_pid;			/* pid whose select_task_rq_fair() is open here, -1 */
	int ttwu_pid;			/* pid whose try_to_wake_up() is open here, -1 */
	int thl_pid;			/* pid whose task_h_load() is open here, -1 */
	uint64_t probe_load;		/* cpu_load() a probe read for the open select, or
					 * UINT64_MAX */
	/* CPU hotplug: its last record, and the accounting as it stood then */
	uint64_t last_ts, busy_at_last;
	double nr_running_at_last;
	uint64_t offline_ns;		/* silences taken for an offline CPU (see state.c) */
	unsigned int offlines;
	uint64_t offline_from;		/* the first one: from its last record before ... */
	uint64_t offline_to;		/* ... to its first record after */
};

struct sr_state_hooks {
	void *data;
	/*
	 * A sleeping task is being placed: run the policies on @ctx into @dec,
	 * and the reference model into @ref (left !valid when there is none).
	 */
	int (*placement)(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
			 struct sr_ref *ref);
	/* A wakeup completed (or was classified). */
	int (*wakeup)(void *data, const struct sr_wakeup *w);
	/* A task woken earlier starts running on @cpu; t->note describes that wakeup. */
	int (*run)(void *data, const struct sr_task *t, int cpu, uint64_t ts);
};

/* A cgroup's cpu.weight (1 - 10000, 100 = 1024 shares), by its id. */
struct sr_cgroup_weight {
	int64_t id;
	unsigned int weight;
};

/* A task in cgroup @id from its first appearance (--cgroup-member PID=ID). */
struct sr_cgroup_member {
	int pid;
	int64_t id;
};

struct sr_state_cfg {
	int nr_cpus;
	const struct sr_topo *topo;
	int64_t migration_cost_ns;
	int hz;				/* CONFIG_HZ for record_wakee's decay */
	bool has_waking;		/* the trace has sched_waking: pair with it */
	bool root_cgroup;		/* the user vouches every task is in the root group */
	/*
	 * The trace has the srqf/srqf_ret probes: replay ttwu placements at the
	 * kernel's select_task_rq_fair() with its WF_SYNC and task loads.
	 * @probes_measure_only: compare the reconstruction with them, use nothing.
	 */
	/* cgroup v2 cpu.weight the user or the snapshot gave, by cgroup id */
	const struct sr_cgroup_weight *cgroup_weights;
	int nr_cgroup_weights;
	/* tasks the user places in a cgroup (--cgroup-member), for traces without cgroup events */
	const struct sr_cgroup_member *cgroup_members;
	int nr_cgroup_members;
	const struct sr_affinity *affinity;	/* sorted by pid: tasks' allowed CPUs */
	int nr_affinity;
	bool has_select_probe;
	bool delayed_dequeue;		/* the kernel has DELAY_DEQUEUE on (6.12+) */
	bool kernel_patched;		/* machine.kernel_patch_params: SR_DEP_KERNEL_PATCHES */
	bool idle_states;		/* machine.cpuidle_driver names one: SR_DEP_IDLE_STATE */
	bool migrate_pelt_lag;		/* migrate_se_pelt_lag() decays a sleeper moved off
					 * an idle CPU to now (6.0+) */
	bool util_est_runnable;		/* util_est_update() keeps the ewma of a task that
					 * waited (runnable_avg above util_avg) */
	bool ttwu_on_cpu;		/* a wakee still descheduling goes to its CPU's
					 * wakelist when that CPU has nothing else (5.8+) */
	bool ttwu_idle_wakelist;	/* 6.0+: ... nothing else at all, not at most one
					 * other task; and a wakeup to an idle CPU of the
					 * same LLC goes through its wakelist too */
	/* Older eras (false: the current kernels' behaviour) */
	bool blocked_unrefreshed;	/* < 4.17: no periodic nohz update of idle CPUs'
					 * blocked averages (nohz.next_blocked) */
	bool newidle_stamps_pending;	/* < 5.13: newidle balance stamps idle_stamp even
					 * with a wakeup pending */
	bool shares_by_weight;		/* < 4.15: a group's shares split by queued weight
					 * alone */
	/*
	 * The trace has sched_waking but no sched_wakeup: a placed wakeup's CPU is
	 * the sched_migrate_task its waker's CPU emits, else where it switches in.
	 */
	bool infer_chosen;
	bool probes_measure_only;
	unsigned int wf_sync, wf_fork, wf_ttwu, wf_exec;	/* the recorded kernel's WF_* bits */
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
	/* sched_process_exec: placed with the stopper's move or staying, and not placed */
	uint64_t exec, exec_moved, exec_stayed, exec_time_unknown, exec_unresolved;
	uint64_t placed_hot, affine_hot;
	uint64_t uncertain;
	uint64_t standalone;		/* sched_wakeup without sched_waking in the trace */
	uint64_t inferred;		/* wakeups whose CPU was inferred (cfg.infer_chosen) */
	/* the same accounting for the wakeups that met no lost window */
	uint64_t in_lost_window;
	uint64_t outside_cls[SR_W_NR];
	uint64_t outside_actual[SR_O_NR];
};

/*
 * |reconstructed - kernel| / max(kernel, SR_ERR_FLOOR), bucketed: < 5, 10,
 * 20, 30, 50 %, more.  The floor keeps near-empty averages (an idle CPU's
 * util of 3 read as 6) from counting as 100 % off: 64 is 1/16 of a nice-0
 * task's full load, less than any comparison of the models turns on.
 */
#define SR_ERR_BUCKETS 6
#define SR_ERR_FLOOR 64.0
extern const unsigned int sr_err_bucket_pct[SR_ERR_BUCKETS - 1];

/* What probes showed of the kernel's inputs, and how far the reconstruction was. */
struct sr_probe_stats {
	uint64_t selects;		/* srqf records */
	uint64_t at_select;		/* placements replayed at the kernel's select_task_rq_fair() */
	uint64_t without_select;	/* placements in a probe trace that had none (pinned,
					 * another class, the on_cpu wakelist shortcut, lost) */
	uint64_t runnable_without_select;	/* ... of a task free to move, kept where it
						 * slept: no CPU selected (ttwu_runnable()) */
	uint64_t sync[2][2];		/* [guess][flag]: the state's WF_SYNC guess vs the kernel's */
	uint64_t load_err[SR_ERR_BUCKETS];	/* the wakee's se.avg.load_avg, PELT warm */
	uint64_t util_err[SR_ERR_BUCKETS];
	uint64_t hload_err[SR_ERR_BUCKETS];	/* task_h_load() vs the root-group form */
	uint64_t cpu_load_err[SR_ERR_BUCKETS];	/* cpu_load() of prev and this vs the state's */
	uint64_t cpu_util_err[SR_ERR_BUCKETS];	/* prev's cfs_rq util_avg vs the state's */
	uint64_t cpu_loads;		/* cpu_load() values recorded for placements */
	uint64_t rqs_reads;		/* CPUs' cfs_rq averages the rqs probes read */
	/* ... their load_avg, util_avg, util_est and runnable_avg vs the state's, [busy 0, idle 1] */
	uint64_t rqs_err[4][2][SR_ERR_BUCKETS];
	uint64_t flips;			/* wakee_flips values recorded (wakee at srqf, waker at thl) */
	uint64_t flips_err[3];		/* the state's estimate: [0] exact, [1] off but inside its
					 * bounds, [2] outside them */
	uint64_t hloads;		/* task_h_load() values recorded during a placement */
	uint64_t llc_scans;		/* sd_llc_shared->nr_idle_scan values recorded (SIS_UTIL) */
	uint64_t llc_scan_err[3];	/* the state's budget: [0] exact, [1] within 2 CPUs,
					 * [2] further off */
	uint64_t idle_cores;		/* sd_llc_shared->has_idle_cores values recorded ... */
	uint64_t idle_cores_agree;	/* ... that the state's hint matched */
	uint64_t idle_cores_followed;	/* ... where the state followed the hint (no guess) */
	uint64_t idle_cores_followed_agree;
	uint64_t ret_moved;		/* srqf_ret named another CPU than the sched_wakeup */
	uint64_t exec_selects;		/* execs replayed at sched_exec()'s own srqf */
	uint64_t exec_ret_moved;	/* ... whose srqf_ret named another CPU than it ran on */
};

/* The state's task table holds pointers: a task never moves while it lives. */
struct sr_task_slot {
	int pid;
	struct sr_task *t;
};

#define SR_CONC_MAX	64

/* How late a stalling machine's ticks are taken to be: sr_st_ipi_delivered(). */
#define SR_TICK_LATE_PCT	95.0
#define SR_TICK_LATE_MAX_NS	100000000ULL

struct sr_state {
	struct sr_state_cfg cfg;
	struct sr_rq *rq;		/* nr_cpus model views */
	struct sr_cpu_state *cpu;	/* nr_cpus */
	struct sr_llc_view *llc;	/* nr_cpus, filled per placement */
	/* per LLC, indexed by its llc_id: the kernel's sticky sd_llc_shared->has_idle_cores */
	bool *idle_cores, *idle_cores_known;
	/* ... cleared by a scan the kernel may have skipped (SIS_UTIL's budget 0): the
	 * value, unconfirmed, is still the estimate */
	bool *idle_cores_held;
	/* per LLC (by llc_id): sd_llc_shared->nr_idle_scan as the balancer last left it */
	struct sr_llc_scan *scan;
	bool *llc_idle_core;		/* by llc_id: an idle core now ... */
	bool *llc_idle_core_valid;	/* ... still true of its runqueues (sr_st_rq_touched()) */
	uint64_t decay_dt;		/* the last decay computed: y^decay_dt (sr_st_decay()) */
	double decay_d;
	struct sr_cpumask *one_cpu;	/* nr_cpus masks of one CPU each: pinned tasks' cpus_ptr */
	struct sr_pidtab sync_by_comm;	/* struct sr_comm_sync: evidence shared by a comm */
	struct sr_pidtab tasks;		/* struct sr_task_slot by pid */
	struct sr_group **groups;	/* task groups seen (cgroups, autogroups) */
	int nr_groups;
	uint64_t groups_dropped;	/* memberships not followed: too many groups */
	uint64_t pelt_cold_until;	/* the last CPU's pelt_known_ts; 0 once all are warm */
	struct sr_wakeup_counts wc;
	struct sr_probe_stats probes;
	uint64_t now;
	uint64_t first_ts;		/* the trace's start: cfg.start, else its first event */
	uint64_t rq_change_ts;		/* the last enqueue or dequeue on any CPU */
	uint64_t pid_reuse;		/* fork of a pid we already knew */
	uint64_t affinity_broken;	/* tasks seen on a CPU their known affinity excludes */
	uint64_t affinity_inherited;	/* forks whose child took its parent's restricted mask */
	uint64_t nr_placed;		/* numbering of placed wakeups, forks and execs */
	uint64_t next_blocked;		/* the next nohz blocked-load update of idle CPUs */
	int nr_overloaded;		/* CPUs with nr_running >= 2 (sr_st_rq_nr()) */
	/*
	 * How late a busy CPU's tick may be: a jiffy, or on a machine whose
	 * CPUs stall (an overcommitted VM: ipi_late) the SR_TICK_LATE_PCT
	 * percentile of the wakelist IPIs' delivery, at most SR_TICK_LATE_MAX_NS
	 * (src/state/pelt.c).
	 */
	uint64_t tick_late_ns;
	/*
	 * The trace records sched_stat_runtime: update_curr() at every tick of
	 * a CPU running a fair task, right before the tick's update_load_avg(),
	 * so the ticks are seen and none is assumed (a stalled vCPU has none).
	 */
	bool ticks_seen;
	struct sr_hist ipi_late;	/* sched_waking -> sched_wakeup on another CPU, ns */
	bool wake_balance;		/* a domain has SD_BALANCE_WAKE: wakeups may read it all */
	int *llcs;			/* each LLC's first CPU (its llc_id), nr_llcs of them */
	int nr_llcs;
	uint64_t rq_changed_ts;		/* the last change of any runqueue (exec.c) */
	unsigned int nr_in_flight;	/* Σ cpu[].in_flight */
	bool flight_stalled;		/* the placement's in_flight mask holds a stalled waker's */
	bool wl_doubted;		/* the placement's wl_doubt mask is not empty */
	/* kept by the state's writers, so that a placement need not look at every CPU */
	int nr_doubtful;		/* CPUs whose rq is uncertain or idle_unrecorded */
	int nr_silent;			/* CPUs without any event in the trace (sr_rq.silent) */
	struct sr_cpumask silent_busy;	/* ... those held busy (sr_rq.silent_busy) */
	struct sr_cpumask flight_mask;	/* the placement's in_flight, filled when any */
	unsigned int nr_wl;		/* Σ cpu[].ttwu_pending */
	struct sr_cpumask wl_doubt_mask;/* the placement's wl_doubt, filled when any */
	struct sr_rq *rq_scratch;	/* nr_cpus: the policies' what-if runqueues */
	struct sr_task *conc[SR_CONC_MAX];	/* placements held by flight.c */
	int nr_conc;
	/* flight.c: recent wakeup placements a CPU going idle may have raced */
	struct sr_idle_watch { struct sr_task *p; uint64_t ts; } idle_watch[SR_CONC_MAX];
	int nr_idle_watch;
	struct sr_flips_fam *fam;	/* per wakee_flips family (src/state/flips.c) */
	size_t nr_fam, cap_fam;
	/*
	 * Probes that read jiffies: how far the kernel's jiffies have drifted
	 * from the trace clock's since the first such read (sr_st_jiffies()).
	 */
	int64_t jiffy_off0, jiffy_drift;
	bool jiffy_off_known;
	/*
	 * CPU hotplug as the cpuhp events show it (src/state/hotplug.c): the
	 * CPUs cpu_active_mask lacks and those cpu_online_mask lacks; the
	 * number the kernel gives CPUHP_ONLINE (0: no event seen yet).
	 */
	struct sr_cpumask inactive, offline;
	bool hotplugged;		/* a CPU left cpu_active_mask once */
	int cpuhp_online;
};

int sr_state_init(struct sr_state *s, const struct sr_state_cfg *cfg);
void sr_state_fini(struct sr_state *s);
/* Feed one event; returns 0 or the first non-zero hook return. */
int sr_state_event(struct sr_state *s, const struct sr_event *ev);
/* End of trace: close accounting at @end and count in-flight wakings as unpaired. */
void sr_state_finish(struct sr_state *s, uint64_t end);

struct sr_task *sr_state_task(const struct sr_state *s, int pid);
/* How many of the task groups followed have known shares (autogroups, --cgroup-weight). */
int sr_state_groups_shares_known(const struct sr_state *s);
/* The @i-th task of the table, or NULL for an empty slot (i < s->tasks.nr_slots). */
struct sr_task *sr_state_task_at(const struct sr_state *s, size_t i);
const char *sr_wclass_name(enum sr_wclass c);
const char *sr_outcome_name(enum sr_outcome o);

/* PELT helpers, exposed for tests: y^n decay over @dt ns (half-life 32 periods of 1024 µs). */
double sr_pelt_decay(uint64_t dt);
/* decay_load(): @val * y^@n periods in the kernel's fixed point. */
uint64_t sr_pelt_decay_load(uint64_t val, uint64_t n);

#endif /* SR_STATE_H */
