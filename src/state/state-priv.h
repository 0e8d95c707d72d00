/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/state: what the handler files share. */
#ifndef SR_STATE_PRIV_H
#define SR_STATE_PRIV_H

#include "state.h"

/*
 * How far a reconstructed PELT value may be from the kernel's.  The probe
 * traces put up to one cpu_load() read in three 10 % or more off and one in
 * twenty-five 50 % off (probes.cpu_load_error).  wake_affine_weight() takes
 * each of its four loads a factor 1.5 either way through its subtractions
 * (replay/wake_affine-4.14.c); find_idlest_cpu() compares two sums at 50 %
 * of the larger.  On the fixtures (tests/fidelity.py) the determined
 * decisions were 0.23 % (6.1) and 0.31 % (6.12) wrong with the band on the
 * weight test's two sides, 0.11 % and 0.15 % with it on the four inputs, at
 * a cost of 1.2 and 2.1 points of determined share; a wider band buys little.
 */
#define SR_LOAD_ERROR_PCT	50
#define SR_PELT_WARM_NS		362000000ULL	/* LOAD_AVG_MAX_N = 345 periods */

#define AVG_IDLE_MAX_NS		1000000ULL	/* 2 * max_idle_balance_cost default */

#define SR_FNV_BASIS		2166136261u
#define SR_FNV_PRIME		16777619u

/* FNV-1a of @comm (at most SR_COMM_LEN bytes) continuing from @h. */
static inline uint32_t sr_st_comm_fnv(uint32_t h, const char *comm)
{
	for (int i = 0; i < SR_COMM_LEN && comm[i]; i++)
		h = (h ^ (unsigned char)comm[i]) * SR_FNV_PRIME;
	return h;
}

/* One unsigned compare (nr_cpus is 1 .. SR_MAX_CPUS): it runs several times an event. */
static inline bool sr_st_cpu_ok(const struct sr_state *s, int cpu)
{
	return (unsigned int)cpu < (unsigned int)s->cfg.nr_cpus;
}

/*
 * sr_pelt_decay(@dt), @dt > 0, through a one-entry memo (its 0 is no
 * value): a placement decays every CPU it reads, and a task updated at the
 * events its CPU is, by the same steps.
 */
static inline double sr_st_decay(struct sr_state *s, uint64_t dt)
{
	if (dt != s->decay_dt) {
		s->decay_dt = dt;
		s->decay_d = sr_pelt_decay(dt);
	}
	return s->decay_d;
}

/*
 * A sleeper whose se.avg the kernel holds as its last dequeue left it
 * (sleep_load/util/run): what select_task_rq_fair() reads of it.
 */
static inline bool sr_st_sleep_held(const struct sr_task *t)
{
	return t->state == SR_T_SLEEPING && t->sleep_known;
}

/* @cpu's curr or nr_running changed: its LLC's idle-core answer must be looked at again. */
static inline void sr_st_rq_touched(struct sr_state *s, int cpu)
{
	s->llc_idle_core_valid[s->cfg.topo->cpu[cpu].llc_id] = false;
	s->rq_changed_ts = s->now;
	s->cpu[cpu].touched_ts = s->now;
}

/* Set @cpu's doubts about its runqueue, kept counted (nr_doubtful). */
static inline void sr_st_rq_doubt(struct sr_state *s, int cpu, bool uncertain,
				  bool idle_unrecorded)
{
	struct sr_rq *rq = &s->rq[cpu];

	s->nr_doubtful += (uncertain || idle_unrecorded) - (rq->uncertain || rq->idle_unrecorded);
	rq->uncertain = uncertain;
	rq->idle_unrecorded = idle_unrecorded;
}

void sr_st_llc_idle_moved(struct sr_state *s, int cpu, bool idle);

/* After @cpu's curr or nr_running changed: its LLC's idle count follows (hints.c). */
static inline void sr_st_idle_track(struct sr_state *s, int cpu)
{
	const struct sr_rq *rq = &s->rq[cpu];
	bool idle = !rq->curr_pid && !rq->nr_running;

	if (idle != s->cpu[cpu].counted_idle)
		sr_st_llc_idle_moved(s, cpu, idle);
}

/* Set @cpu's nr_running. */
static inline void sr_st_rq_nr(struct sr_state *s, int cpu, unsigned int nr)
{
	s->nr_overloaded += (nr >= 2) - (s->rq[cpu].nr_running >= 2);
	s->rq[cpu].nr_running = nr;
	sr_st_idle_track(s, cpu);
}

/* Every policy's answer in @dec (nr_policies) also depends on @dep: none is determined. */
static inline void sr_st_dec_depends(const struct sr_state *s, struct sr_brief *dec,
				     unsigned int dep)
{
	for (int i = 0; dec && i < s->cfg.nr_policies; i++) {
		dec[i].depends |= dep;
		dec[i].determined = false;
	}
}

static inline bool sr_st_on_rq(enum sr_task_state st)
{
	return st == SR_T_RUNNING || st == SR_T_QUEUED;
}

static inline bool sr_st_cpu_uncertain(const struct sr_state *s, int cpu)
{
	return sr_st_cpu_ok(s, cpu) && s->rq[cpu].uncertain;
}

#define SR_MAX_GROUPS		1024
#define SR_AUTOGROUP_KEY_BASE	((int64_t)1 << 32)	/* autogroup keys: below -2^32 */

/* A task group the state follows, with its cfs_rq averages per CPU. */
struct sr_group {
	int64_t key;			/* cgroup id, or an autogroup's key */
	bool shares_known;		/* tg->shares known, not the default assumed */
	struct sr_tg tg;		/* what models read; tg.cpu = cpu */
	struct sr_tg_cpu *cpu;		/* nr_cpus, filled per placement */
	double *load;			/* PELT of the queued weight, blocked load included */
	double *run;			/* PELT of "something of the group is queued here" */
	unsigned long *weight;		/* queued weight now (my_q->load.weight) */
	uint64_t *ts;			/* PELT time per CPU */
	uint64_t *chg;			/* last change of weight or load per CPU */
	unsigned long *se_w;		/* group entity's weight at its last reweight, 0: none */
	uint64_t *se_w_ts;		/* when se_w was set */
};

/*
 * Whether the span from @t1 to @ev met a lost window of any CPU: its state
 * there may have changed unseen (struct sr_event lost_*).
 */
static inline bool sr_st_met_lost_window(const struct sr_event *ev, uint64_t t1)
{
	return (ev->lost_open && ev->lost_open_after < ev->ts) ||
	       (ev->lost_closed_before && ev->lost_closed_before >= t1);
}

/* Evidence shared by every task of one comm (hackbench senders, mq workers). */
struct sr_comm_sync {
	int key;			/* hash of the comm (and comm2), > 0 */
	char comm[SR_COMM_LEN];
	char comm2[SR_COMM_LEN];	/* a pair's: the wakee's name */
	struct sr_sync_evidence ev;
	struct sr_sync_evidence wide;	/* as wakees: [1] only the wake_wide() answer matched */
};

/* state.c: the task table; a new task for @slot (of @pid) */
struct sr_task *sr_st_task_new(struct sr_state *s, struct sr_task_slot *slot, int pid);

/*
 * Find or create the task for @pid; NULL for the idle task or on ENOMEM.
 * Inline: every event looks its tasks up, nearly always found.
 */
static inline struct sr_task *sr_st_task_get(struct sr_state *s, int pid)
{
	struct sr_task_slot *slot = pid > 0 ? sr_pidtab_get(&s->tasks, pid) : NULL;

	if (!slot)
		return NULL;
	return slot->t ? slot->t : sr_st_task_new(s, slot, pid);
}
/* sr_st_task_get(), first trying @cpu's current task */
struct sr_task *sr_st_task_on(struct sr_state *s, int pid, int cpu);
void sr_st_task_reset(struct sr_task *t, int pid, uint64_t now);

/* runqueue.c: accounting */
void sr_st_task_pelt(struct sr_state *s, struct sr_task *t, uint64_t now);
void sr_st_cpu_advance(struct sr_state *s, int cpu, uint64_t now);
/* sr_st_cpu_close() past its inline test: @now is later, or the CPU is not closed yet. */
void sr_st_cpu_close_to(struct sr_state *s, int cpu, uint64_t now);
void sr_st_task_move(struct sr_state *s, struct sr_task *t, enum sr_task_state st, int cpu);
void sr_st_task_switch_in(struct sr_state *s, struct sr_task *t, int cpu);
void sr_st_task_switch_out(struct sr_state *s, struct sr_task *t, enum sr_task_state st, int cpu,
			   bool update);
void sr_st_task_pulled(struct sr_state *s, struct sr_task *t, int cpu);
void sr_st_task_set_prio(struct sr_state *s, struct sr_task *t, int prio);
void sr_st_rq_account(struct sr_state *s, struct sr_task *t, int cpu, int sign);
void sr_st_blocked_load(struct sr_state *s, struct sr_task *t, int cpu, int sign);
void sr_st_lost_sleepers(struct sr_state *s, int cpu, uint64_t after);

/* groups.c: task groups */
void sr_st_groups_free(struct sr_state *s);
void sr_st_group_account(struct sr_state *s, struct sr_task *t, int cpu, int sign);
void sr_st_group_load(struct sr_state *s, struct sr_task *t, int cpu, double delta);
void sr_st_on_group_event(struct sr_state *s, const struct sr_event *ev);
/* cpuhp_enter / cpuhp_exit: cpu_active_mask and cpu_online_mask (hotplug.c). */
void sr_st_on_cpuhp(struct sr_state *s, const struct sr_event *ev);
void sr_st_group_inherit(struct sr_state *s, struct sr_task *child, const struct sr_task *parent);
void sr_st_groups_fill(struct sr_state *s);
unsigned long sr_st_groups_se_load(struct sr_state *s, int cpu);
bool sr_st_group_known(const struct sr_state *s, const struct sr_task *t);
void sr_st_kernel_view(const struct sr_task *t, struct sr_task_view *v);

/* wakeup.c: the wakeup handlers */
int sr_st_on_waking(struct sr_state *s, const struct sr_event *ev);
int sr_st_on_wakeup(struct sr_state *s, const struct sr_event *ev);
int sr_st_on_wakeup_new(struct sr_state *s, const struct sr_event *ev);
int sr_st_on_migrate(struct sr_state *s, const struct sr_event *ev);
/* exec.c: exec placements */
int sr_st_exec_self_stop(struct sr_state *s, const struct sr_event *ev);
int sr_st_exec_select(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
int sr_st_exec_probe_point(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
int sr_st_exec_select_ret(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
void sr_st_exec_migrated(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
int sr_st_on_exec(struct sr_state *s, const struct sr_event *ev);
int sr_st_exec_first_run(struct sr_state *s, const struct sr_event *ev);
void sr_st_fork_clock_skip(struct sr_state *s, const struct sr_event *ev);
void sr_st_exec_window(struct sr_task *p, uint64_t ts);
void sr_st_exec_slice(struct sr_task *p, int cpu);

/* The current task's own records: a sched_exec() follows its last one. */
static inline void sr_st_exec_own_event(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *curr = s->cpu[ev->cpu].curr;

	/* probe records come from inside select_task_rq_fair() itself */
	if (ev->type != SR_EV_SWITCH && (ev->type < SR_EV_SELECT || ev->type > SR_EV_RQS) &&
	    curr && curr->v.pid == ev->common_pid) {
		curr->exec.own_prev = curr->exec.own_last;
		curr->exec.own_last = ev->ts;
	}
}
void sr_st_exec_switch_out(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
/* placement.c: one placement replayed through the policies */
int sr_st_run_placement(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
			enum sr_wake_kind kind, int prev, struct sr_brief **dec, unsigned int unknown);
/* sr_st_run_placement() with its waker found already (NULL: none). */
int sr_st_run_placement_by(struct sr_state *s, struct sr_task *p, struct sr_task *waker,
			   const struct sr_event *ev, enum sr_wake_kind kind, int prev,
			   struct sr_brief **decp, unsigned int unknown);
void sr_st_ttwu_unmark(struct sr_state *s, struct sr_task *p);
void sr_st_ttwu_went_remote(struct sr_state *s, struct sr_task *p);
void sr_st_select_returned(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
void sr_st_select_gap(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
int sr_st_ttwu_descheduled(struct sr_state *s, struct sr_task *p, int cpu, bool left_idle);
int sr_st_switch_done(struct sr_state *s, const struct sr_event *ev, struct sr_task *prev);
/* flight.c: wakeups being enqueued while another CPU places a task */
void sr_st_flight_mark(struct sr_state *s, struct sr_task *p, int cpu);
bool sr_st_wl_doubts(struct sr_state *s);
void sr_st_flight_unmark(struct sr_state *s, struct sr_task *p);
bool sr_st_flights(struct sr_state *s);
void sr_st_conc_hold(struct sr_state *s, struct sr_task *p, struct sr_brief *dec,
		     enum sr_wake_kind kind);
void sr_st_conc_selected(struct sr_state *s, struct sr_task *p);
void sr_st_conc_enqueued(struct sr_state *s, struct sr_task *q, int flight_cpu);
/* A wakeup placed just now / @cpu traced going idle: the two may have raced (decision_time). */
void sr_st_idle_watch(struct sr_state *s, struct sr_task *p);
void sr_st_idle_soon(struct sr_state *s, int cpu);
/* A wakeup completes: ev->target_cpu is the chosen CPU (the task's state is left as it is). */
int sr_st_emit_wakeup(struct sr_state *s, struct sr_task *p, const struct sr_event *ev,
		      bool paired);
/* record_wakee() for @waker waking @p on @cpu */
void sr_st_track_wakee(struct sr_state *s, struct sr_task *waker, struct sr_task *p, int cpu);

/*
 * The jiffies record_wakee() reads: the trace clock's, shifted by the drift
 * the probes saw against the kernel's own (src/state/probes.c); without
 * probes, the trace clock's alone.
 */
static inline uint64_t sr_st_jiffies(const struct sr_state *s)
{
	return s->now / (SR_NSEC_PER_SEC / (uint64_t)s->cfg.hz) + (uint64_t)s->jiffy_drift;
}

/* flips.c: the wakee_flips a family of tasks inherited from before the trace */
void sr_st_flips_sync(struct sr_state *s, struct sr_task *t);
void sr_st_flips_halved(struct sr_task *t);
void sr_st_flips_inherit(struct sr_state *s, struct sr_task *child, struct sr_task *parent);
void sr_st_flips_pinned(struct sr_task *t);
void sr_st_flips_at_least(struct sr_state *s, struct sr_task *t, unsigned int n);
bool sr_st_flips_weigh(struct sr_state *s, struct sr_task *p, struct sr_task *waker,
		       unsigned int factor, bool wide);

/* hints.c: the kernel's hints */
int sr_st_percpu_kthread_cpu(const char *comm);
/* hints.c: a task's allowed CPUs (cfg.affinity, fork inheritance) and what binds it. */
void sr_st_task_bind(struct sr_state *s, struct sr_task *t);
const struct sr_cpumask *sr_st_affinity_of(const struct sr_state *s, int pid);
void sr_st_affinity_seen(struct sr_state *s, struct sr_task *t, int cpu);
void sr_st_affinity_exec(struct sr_state *s, struct sr_task *t);
/* Keep @t's comm, and whether it names a per-CPU kthread. */
void sr_st_set_comm(struct sr_state *s, struct sr_task *t, const char *comm);
void sr_st_update_idle_core(struct sr_state *s, int cpu);
/* @since: the placement's select_task_rq_fair() probe (UINT64_MAX: none) */
void sr_st_fill_llc_hints(struct sr_state *s, int a, int b, uint64_t since);
/* hints.c: the SIS_UTIL budget a balance of @llc would compute now, -1 none. */
int sr_st_llc_scan_now(struct sr_state *s, int llc);
/* hints.c: a probe read @cpu's LLC budget @scan from a domain of @span CPUs. */
void sr_st_llc_scan_seen(struct sr_state *s, int cpu, int span, int scan);
void sr_st_llc_idle_cores_seen(struct sr_state *s, int cpu, int span, int set);
/* stamp.c: rq->idle_stamp of @cpu stamped at @ts on the way to idle, or cleared. */
void sr_st_idle_stamp(struct sr_state *s, int cpu, bool set, uint64_t ts);
/* stamp.c: ... at @ev, a switch to idle (6.12+: from a stop/DL/RT task, maybe not). */
void sr_st_idle_stamp_switch(struct sr_state *s, const struct sr_event *ev);
/* stamp.c: sleeping @p moved onto idle @cpu: its stamp renewed unseen; true when so. */
bool sr_st_idle_stamp_pulled(struct sr_state *s, const struct sr_task *p, int cpu, uint64_t ts);
/*
 * An event on @ev->cpu other than a balancer's move (the softirq's next
 * one): the CPU is back from the balance, a stamp it left open (stamp.c)
 * is bounded.  Inline: every event passes here.
 */
static inline void sr_st_idle_stamp_bound(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_rq *rq = &s->rq[ev->cpu];

	if (rq->idle_stamp_dep && rq->idle_stamp_hi == SR_STAMP_OPEN && ev->type != SR_EV_MIGRATE)
		rq->idle_stamp_hi = ev->ts;
}

enum sr_tristate sr_st_sync_guess(struct sr_state *s, const struct sr_task *waker,
				  const struct sr_task *p, const struct sr_event *ev,
				  enum sr_sync_source *src);
void sr_st_waker_recent(struct sr_task *waker, const struct sr_ref *r, int cpu);
void sr_st_follow_early(struct sr_state *s, struct sr_task *p, int cpu);
void sr_st_ttwu_returned(struct sr_state *s, const struct sr_event *ev);
void sr_st_follow_silent(struct sr_state *s, const struct sr_ref *r, int cpu);
void sr_st_follow_ref(struct sr_state *s, struct sr_task *p, struct sr_task *waker, int cpu,
		      int prev, int waker_cpu);

/* probes.c: the kernel's own inputs from a probe trace */
int sr_st_on_probe(struct sr_state *s, const struct sr_event *ev);
enum sr_tristate sr_st_probe_sync(const struct sr_state *s, const struct sr_task *p);
void sr_st_probe_done(struct sr_task *p, struct sr_task *waker);
void sr_st_probe_cpu_loads(struct sr_state *s, struct sr_task *p, int this_cpu);
void sr_st_probe_check(struct sr_state *s, struct sr_task *p, int cpu);
/* wakeup.c: replay a placement deferred to the kernel's select_task_rq_fair() */
int sr_st_place_deferred(struct sr_state *s, struct sr_task *p);
/* hints.c: a wakeup's WF_SYNC value, known for a fact */
void sr_st_sync_learn(struct sr_state *s, struct sr_task *waker, const struct sr_task *p,
		       bool sync);
/* hints.c, for follow.c: the WF_SYNC evidence of @t's comm, and whether a probe read @llc's budget */
struct sr_comm_sync *sr_st_comm_sync(struct sr_state *s, const struct sr_task *t, bool create);
void sr_st_evidence_add(struct sr_sync_evidence *e, int k);
int sr_st_evidence_margin(const struct sr_sync_evidence *e);
bool sr_st_scan_read(const struct sr_state *s, int llc, uint64_t since);

/* The waker of @ev: the task named by common_pid, or the CPU's idle task. */
struct sr_task *sr_st_waker(struct sr_state *s, int pid, int cpu);

/*
 * infer.c: traces without sched_wakeup (cfg.infer_chosen).  Both return 0
 * at once otherwise; the dispatcher calls them around the usual handlers.
 */
int sr_st_infer_before(struct sr_state *s, const struct sr_event *ev);
int sr_st_infer_after(struct sr_state *s, const struct sr_event *ev);
int sr_st_infer_switched_out(struct sr_state *s, struct sr_task *p, const struct sr_event *ev);
int sr_st_infer_finish(struct sr_state *s, struct sr_task *p);

/* pelt.c, runqueue.c */
void sr_st_cpu_pelt(struct sr_state *s, int cpu, uint64_t now);
void sr_st_pelt_trace_starts(struct sr_state *s, int cpu);
double sr_st_taught_util(const struct sr_state *s, int cpu, uint64_t now);
void sr_st_cpu_decay_to(struct sr_state *s, int cpu, uint64_t now);

/*
 * The averages decay to @now; the rq fields the models read are left as
 * they were (sr_st_cpu_pelt() publishes them).  Inline: most calls find
 * the CPU already at @now.
 */
static inline void sr_st_cpu_decay(struct sr_state *s, int cpu, uint64_t now)
{
	uint64_t ts = s->cpu[cpu].pelt_ts;

	if (!ts || now > ts)
		sr_st_cpu_decay_to(s, cpu, now);
}

/*
 * The time accounting and averages of sr_st_cpu_advance(), the rq fields
 * not published.  Inline: most calls (each enqueue and dequeue, each CPU a
 * placement reads) find the CPU closed at @now already.
 */
static inline void sr_st_cpu_close(struct sr_state *s, int cpu, uint64_t now)
{
	const struct sr_cpu_state *c = &s->cpu[cpu];

	if (!now || c->since != now || c->pelt_ts != now)
		sr_st_cpu_close_to(s, cpu, now);
}
void sr_st_cpu_advance_all(struct sr_state *s);
void sr_st_task_avgs(struct sr_task *t);
uint64_t sr_st_cpu_k_time(const struct sr_state *s, int cpu);
void sr_st_cpu_kupdate(struct sr_state *s, int cpu);
void sr_st_cpu_kupdate_early(struct sr_state *s, int cpu);
void sr_st_cpu_moved_in(struct sr_state *s, int cpu);
void sr_st_h_load_read(struct sr_state *s, int cpu);
void sr_st_group_member(struct sr_state *s, struct sr_task *t);
/* @update: as for sr_st_task_switch_out() */
void sr_st_dequeued_by_waking(struct sr_state *s, struct sr_task *p, int cpu, bool update);
void sr_st_cpu_remove(struct sr_state *s, int cpu, double load, double util, double run);
void sr_st_blocked_refresh(struct sr_state *s);
/* @load left @cpu's cfs_rq now (a migration away or a death) */
void sr_st_cpu_left(struct sr_state *s, int cpu, double load);
/* A wakeup queued on another CPU's wakelist at @waking_ts arrived there at @ts. */
void sr_st_ipi_delivered(struct sr_state *s, uint64_t waking_ts, uint64_t ts);

/* switch.c */
void sr_st_delayed_mark(struct sr_state *s, struct sr_task *t, int cpu);
void sr_st_delayed_clear(struct sr_state *s, struct sr_task *t);
/* @prev, @next: the tasks of ev->pid and ev->next_pid (sr_st_task_get(), NULL for idle) */
int sr_st_on_switch(struct sr_state *s, const struct sr_event *ev, struct sr_task *prev,
		    struct sr_task *next);
void sr_st_resync_curr(struct sr_state *s, int cpu, int pid);

#endif /* SR_STATE_PRIV_H */
