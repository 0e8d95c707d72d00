// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own hints, followed as the kernel keeps them, because the
 * placement models read them and a trace never shows them:
 *
 *  - per-CPU kthreads (kworker/N:M, ksoftirqd/N, ...): nr_cpus_allowed == 1,
 *    so select_task_rq() never asks the fair class;
 *  - sd_llc_shared->has_idle_cores: set by __update_idle_core() when a CPU
 *    enters idle with every sibling idle, cleared only after a failed core
 *    scan in select_idle_cpu() (kernel/sched/fair.c, 5.12 - 6.18);
 *  - rq->idle_stamp: in src/state/stamp.c;
 *  - which WF_SYNC value a waker's wakeups carry, from the evidence of the
 *    earlier ones; p->recent_used_cpu and the lessons of the reference's
 *    answers in src/state/follow.c.
 */
#include <ctype.h>
#include <errno.h>
#include "state-priv.h"

/* Counts halve past this, so recent wakeups weigh more than old ones. */
#define SYNC_EVIDENCE_MAX	64
#define SYNC_WAKER_MARGIN	5	/* a waker's own lessons count from this lead on */

/* ------------------------------------------------------------ per-CPU kthreads */

static bool digits(const char *s, const char *end)
{
	if (s >= end)
		return false;
	for (; s < end; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * The CPU a per-CPU kthread is bound to, from the name the kernel gives it
 * ("ksoftirqd/3", "migration/3", "cpuhp/3", "rcuc/3", "kworker/3:1",
 * "kworker/3:1H"), else -1.  Unbound workers ("kworker/u16:2") are not.
 */
int sr_st_percpu_kthread_cpu(const char *comm)
{
	static const char *const bound[] = { "ksoftirqd/", "migration/", "cpuhp/", "rcuc/",
					     "idle_inject/", "kworker/" };
	const char *num, *end;

	for (size_t i = 0; i < SR_ARRAY_SIZE(bound); i++) {
		size_t n = strlen(bound[i]);

		if (strncmp(comm, bound[i], n))
			continue;
		num = comm + n;
		end = strchr(num, i + 1 == SR_ARRAY_SIZE(bound) ? ':' : '\0');
		if (!end || !digits(num, end))
			return -1;
		return atoi(num);
	}
	return -1;
}

/*
 * nr_cpus_allowed and the one CPU of a task bound to it: a per-CPU kthread
 * by its name, or a task whose affinity allows one CPU (core.c
 * select_task_rq() asks no class then).
 */
void sr_st_task_bind(struct sr_state *s, struct sr_task *t)
{
	int cpu = sr_st_percpu_kthread_cpu(t->comm), n = 0, c;

	t->kthread_bound = sr_st_cpu_ok(s, cpu);
	if (!t->kthread_bound)
		cpu = -1;
	if (t->allowed)
		sr_for_each_cpu(c, t->allowed)
			n++;
	if (cpu < 0 && n == 1)
		cpu = sr_mask_first(t->allowed);
	t->bound_cpu = cpu;
	t->v.nr_cpus_allowed = cpu >= 0 ? 1 : n;
}

/* The allowed CPUs cfg.affinity gives @pid (a snapshot's, --affinity), or NULL. */
const struct sr_cpumask *sr_st_affinity_of(const struct sr_state *s, int pid)
{
	int lo = 0, hi = s->cfg.nr_affinity - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2, p = s->cfg.affinity[mid].pid;

		if (p == pid)
			return &s->cfg.affinity[mid].mask;
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/*
 * @t runs on @cpu, which its known affinity excludes: sched_setaffinity()
 * or its cpuset changed it, which no event shows.  Every CPU from now on.
 */
void sr_st_affinity_seen(struct sr_state *s, struct sr_task *t, int cpu)
{
	bool parent_allows;

	if (!t->allowed || sr_mask_test(t->allowed, cpu))
		return;
	parent_allows = !t->parent_allowed || sr_mask_test(t->parent_allowed, cpu);
	/*
	 * A child runs where its fork put it, under its parent's mask, until it
	 * sets its own (a thread's pthread_setaffinity_np(), taskset's): on a CPU
	 * that mask excludes, it sleeps until the stopper (migration_cpu_stop())
	 * wakes it where the mask allows, its first wakeup.
	 */
	if (t->own_unset && parent_allows)
		return;
	/*
	 * A child whose own mask (the snapshot's) did not hold yet: taskset, numactl
	 * and the like fork, set it, then exec the program — after an exec of
	 * their own, so the mask may be taken one exec too early.  Its parent's
	 * until its next exec.
	 */
	if (t->allowed == t->own_allowed && parent_allows) {
		t->allowed = t->parent_allowed;
		t->own_at_exec = true;
	} else {
		t->allowed = NULL;
		t->own_at_exec = false;
		s->affinity_broken++;
	}
	sr_st_task_bind(s, t);
}

/* sched_process_exec: a mask set before the exec holds from now on. */
void sr_st_affinity_exec(struct sr_state *s, struct sr_task *t)
{
	if (!t->own_at_exec)
		return;
	t->own_at_exec = false;
	t->allowed = t->own_allowed;
	sr_st_task_bind(s, t);
}

void sr_st_set_comm(struct sr_state *s, struct sr_task *t, const char *comm)
{
	/* event comms are zero-padded (the reader clears each event): a fixed-size compare */
	if (!comm[0] || !memcmp(t->comm, comm, SR_COMM_LEN))
		return;
	memcpy(t->comm, comm, SR_COMM_LEN);
	t->comm[SR_COMM_LEN - 1] = '\0';
	t->comm_fnv = sr_st_comm_fnv(SR_FNV_BASIS, t->comm);
	sr_st_task_bind(s, t);
}

/* ------------------------------------------------------------ has_idle_cores */

/* __update_idle_core(): @cpu enters idle; its core is idle if every other sibling is. */
void sr_st_update_idle_core(struct sr_state *s, int cpu)
{
	const struct sr_topo *t = s->cfg.topo;
	int llc = t->cpu[cpu].llc_id, o;

	if (t->smt_max <= 1 || (s->idle_cores_known[llc] && s->idle_cores[llc]))
		return;
	sr_for_each_cpu(o, &t->cpu[cpu].smt) {
		const struct sr_rq *rq = &s->rq[o];

		if (o != cpu && (rq->curr_pid || rq->nr_running || rq->ttwu_pending))
			return;
	}
	s->idle_cores[llc] = true;
	s->idle_cores_known[llc] = true;
	s->idle_cores_held[llc] = false;
}

/* Until the trace sets or clears it, guess from whether an idle core exists now. */
static bool idle_core_now(const struct sr_state *s, int llc)
{
	const struct sr_topo *t = s->cfg.topo;
	int c, o;

	sr_for_each_cpu(c, &t->cpu[llc].llc) {
		bool all = true;

		sr_for_each_cpu(o, &t->cpu[c].smt)
			if (s->rq[o].curr_pid || s->rq[o].nr_running)
				all = false;
		if (all)
			return true;
	}
	return false;
}

/*
 * The has_idle_cores the models read for @llc: the hint as followed (set,
 * cleared, or held as a guess), else whether an idle core exists now —
 * rescanned only when the LLC's runqueues changed.
 */
static bool idle_cores_hint(struct sr_state *s, int llc)
{
	if (s->idle_cores_known[llc] || s->idle_cores_held[llc])
		return s->idle_cores[llc];
	if (!s->llc_idle_core_valid[llc]) {
		s->llc_idle_core[llc] = idle_core_now(s, llc);
		s->llc_idle_core_valid[llc] = true;
	}
	return s->llc_idle_core[llc];
}

/* ------------------------------------------------------------ nr_idle_scan (SIS_UTIL) */

int sr_update_idle_cpu_scan(unsigned long sum_util, int llc_weight, int pct,
			    struct sr_idle_scan_calc *calc)
{
	const uint64_t cap = SR_CAPACITY_SCALE;
	uint64_t x, y, tmp;

	if (llc_weight <= 0 || pct <= 0)
		return -EINVAL;
	x = sum_util / (uint64_t)llc_weight;
	tmp = x * x * (uint64_t)pct * (uint64_t)pct / (10000 * cap);
	/* min_t(long, ...): the u64 is compared as a long. */
	if ((int64_t)tmp > (int64_t)cap)
		tmp = cap;
	y = cap - tmp;
	if (calc)
		*calc = (struct sr_idle_scan_calc){ x, tmp, y };
	y = y * (uint64_t)llc_weight / cap;
	return (int)y;
}

/* cpu_util_cfs(): the larger of util_avg and the enqueued tasks' util_est, capped. */
static unsigned long cpu_util_cfs(const struct sr_rq *rq)
{
	unsigned long util = rq->util_avg > rq->util_est ? rq->util_avg : rq->util_est;

	return util < rq->capacity ? util : rq->capacity;
}

/*
 * Did the load balancer run update_idle_cpu_scan() on this LLC since it
 * last did?  It does in the periodic balance of the LLC domain, never the
 * newidle one: a busy CPU's every sd_weight ms times busy_factor (16),
 * an idle CPU's (through nohz idle balancing, its tick stopped) every
 * sd_weight ms at most, when a kick happens to find it idle.  Neither the
 * balance instants nor the ticks are in the trace.  Scored against the
 * budget `record --probes` read (6.1 and 6.12 guests, LLCs of 4, 8 and 16,
 * 45,586 reads), the kernel's recomputations follow the LLC's idle time:
 * about once per 8 x sd_weight ms of its CPUs' idle time summed (an LLC of
 * 16 with 2 CPUs idle kept its budget ~200 ms, with 10 idle ~20 ms), and
 * at the latest a busy CPU's interval after the last.  Exact on 75.7 % of
 * the reads (65.4 % on LLCs of 16) against 73.3 % (57.4 %) when any idle
 * CPU on an overloaded machine recomputed it every sd_weight ms; per 6, 7,
 * 9, 10 or 12 x sd_weight ms of idle time: 74.1 - 75.3 %.  make fidelity:
 * +138 placed wakeups on 6.1, +65 on 6.12; this VM's patched 6.18 tbench
 * trace (an LLC of 2) -103.  The idle time is summed as CPUs turn idle or
 * busy (sr_st_idle_track()), not by a walk of the LLC at each placement.
 */
#define SCAN_IDLE_PERIODS	8
#define SCAN_BUSY_PERIODS	16
static bool llc_balanced(const struct sr_state *s, const struct sr_domain *sd,
			 const struct sr_llc_scan *sc)
{
	uint64_t period = sd->span_weight * SR_NSEC_PER_MSEC;
	uint64_t idle = sc->idle_ns + (uint64_t)sc->nr_idle * (s->now - sc->idle_to);

	return idle >= SCAN_IDLE_PERIODS * period || s->now - sc->ts >= SCAN_BUSY_PERIODS * period;
}

/* @cpu turned idle or busy: its LLC's idle time counts up to now at the old count. */
void sr_st_llc_idle_moved(struct sr_state *s, int cpu, bool idle)
{
	struct sr_llc_scan *sc = &s->scan[s->cfg.topo->cpu[cpu].llc_id];

	if (sc->ts && s->now > sc->idle_to) {
		sc->idle_ns += (uint64_t)sc->nr_idle * (s->now - sc->idle_to);
		sc->idle_to = s->now;
	}
	if (idle)
		sc->nr_idle++;
	else if (sc->nr_idle)
		sc->nr_idle--;
	s->cpu[cpu].counted_idle = idle;
}

/*
 * update_idle_cpu_scan() on @sd (the LLC domain) from the state's util now:
 * the sum update_sd_lb_stats() hands it is every CPU's cpu_util_cfs()
 * (kernel/sched/fair.c, 6.0 - 6.18, commit 70fb5ccf2ebb).
 */
static int scan_from_util(struct sr_state *s, const struct sr_domain *sd)
{
	uint64_t sum = 0;
	int c;

	sr_for_each_cpu(c, &sd->span) {
		sr_st_cpu_advance(s, c, s->now);
		sum += cpu_util_cfs(&s->rq[c]);
	}
	return sr_update_idle_cpu_scan((unsigned long)sum, (int)sd->span_weight,
				       (int)sd->imbalance_pct, NULL);
}

/* The budget a balance of @llc (its first CPU) would compute now; -1: no LLC domain. */
int sr_st_llc_scan_now(struct sr_state *s, int llc)
{
	const struct sr_domain *sd = sr_highest_flag_domain(s->cfg.topo, llc,
							    SD_SHARE_PKG_RESOURCES);

	return sd ? scan_from_util(s, sd) : -1;
}

/* The budget was (re)computed at @ts: the balancer's pace counts from there. */
static void scan_restart(struct sr_llc_scan *sc, uint64_t ts)
{
	sc->ts = ts;
	sc->idle_ns = 0;
	sc->idle_to = ts;
}

/*
 * sd_llc_shared->nr_idle_scan: the balance instants are not in the trace,
 * so when one must have happened the budget is recomputed from the
 * reconstructed util, and it is always an estimate.
 */
static void update_nr_idle_scan(struct sr_state *s, int llc)
{
	const struct sr_topo *t = s->cfg.topo;
	const struct sr_domain *sd = sr_highest_flag_domain(t, llc, SD_SHARE_PKG_RESOURCES);
	struct sr_llc_scan *sc = &s->scan[llc];

	if (!sd) {
		sc->value = -1;
		return;
	}
	if (!sc->ts) {
		/*
		 * The trace starts: the budget is what the last balance before it
		 * computed, most often on a machine quieter than the workload
		 * recorded — the whole LLC, as for a util of 0 (make fidelity:
		 * +109 placements on 6.1, +49 on 6.12 over a budget of 0).
		 */
		scan_restart(sc, s->first_ts ? s->first_ts : s->now);
		sc->value = (int)sd->span_weight;
	}
	if (!llc_balanced(s, sd, sc))
		return;
	sc->value = scan_from_util(s, sd);
	scan_restart(sc, s->now);
	sc->read = 0;
}

/*
 * A probe read @cpu's sd_llc_shared->nr_idle_scan (`record --probes`, 6.0+)
 * from a domain of span @span: when that is the LLC, it is the kernel's
 * budget for the placement being selected, and the state's estimate from
 * then on (until the balancer would recompute it).  Measured against the
 * estimate first.
 */
void sr_st_llc_scan_seen(struct sr_state *s, int cpu, int span, int scan)
{
	int llc, est, off;

	if (!sr_st_cpu_ok(s, cpu) || scan < 0 || span <= 0 ||
	    span != sr_llc_size(s->cfg.topo, cpu) || scan > span)
		return;
	llc = s->cfg.topo->cpu[cpu].llc_id;
	/* as the last placement left it (before any, update_nr_idle_scan()'s start) */
	est = s->scan[llc].ts ? s->scan[llc].value : span;
	off = est > scan ? est - scan : scan - est;
	s->probes.llc_scans++;
	s->probes.llc_scan_err[off == 0 ? 0 : off <= 2 ? 1 : 2]++;
	if (s->cfg.probes_measure_only)
		return;
	s->scan[llc].value = scan;
	scan_restart(&s->scan[llc], s->now);	/* the balancer's pace counts from the read on */
	s->scan[llc].read = s->now;
}

/*
 * A probe read @cpu's sd_llc_shared->has_idle_cores (`record --probes`)
 * from a domain of span @span: when that is the LLC, the hint the
 * placement's select_idle_sibling() reads, followed from then on as the
 * kernel keeps it (set on idle entry, cleared by a failed core scan).
 * Measured first against the state's hint, tracked or guessed.
 */
void sr_st_llc_idle_cores_seen(struct sr_state *s, int cpu, int span, int set)
{
	bool followed, est;
	int llc;

	if (!sr_st_cpu_ok(s, cpu) || set < 0 || set > 1 || span <= 0 ||
	    span != sr_llc_size(s->cfg.topo, cpu) || s->cfg.topo->smt_max <= 1)
		return;
	llc = s->cfg.topo->cpu[cpu].llc_id;
	followed = s->idle_cores_known[llc] || s->idle_cores_held[llc];
	est = idle_cores_hint(s, llc);
	s->probes.idle_cores++;
	s->probes.idle_cores_agree += est == (set == 1);
	s->probes.idle_cores_followed += followed;
	s->probes.idle_cores_followed_agree += followed && est == (set == 1);
	if (s->cfg.probes_measure_only)
		return;
	s->idle_cores[llc] = set == 1;
	s->idle_cores_known[llc] = true;
	s->idle_cores_held[llc] = false;
}

/* Read inside the placement's own select_task_rq_fair() (at or after @since): a fact. */
bool sr_st_scan_read(const struct sr_state *s, int llc, uint64_t since)
{
	return s->scan[llc].read && s->scan[llc].read >= since;
}

/*
 * One LLC's hints (@llc: its first CPU, llc_id), copied to its CPUs; a
 * budget a probe read at or after @since (the placement's own select) is a fact.
 */
static void fill_llc(struct sr_state *s, int llc, uint64_t since)
{
	const struct sr_topo *t = s->cfg.topo;
	/*
	 * Without SMT the models never read has_idle_cores (sched_smt_active()
	 * guards every test_idle_cores()): no rescan of the LLC for it.  The
	 * rescan only fills a cache, which stays exact either way.
	 */
	bool known = s->idle_cores_known[llc], hint = t->smt_max != 1 && idle_cores_hint(s, llc);
	int c;

	sr_for_each_cpu(c, &t->cpu[llc].llc) {
		s->llc[c].has_idle_cores = hint;
		s->llc[c].idle_cores_unknown = !known;
		s->llc[c].nr_idle_scan = s->scan[llc].value;
		s->llc[c].nr_idle_scan_estimated = !sr_st_scan_read(s, llc, since);
	}
}

/*
 * Every LLC's SIS_UTIL budget moves with the balancer, read or not; the
 * idle-core hint and the copies to the CPUs only for the LLCs of @a and @b
 * (@a < 0: all), the ones the placement reads: O(LLCs + CPUs read).
 */
void sr_st_fill_llc_hints(struct sr_state *s, int a, int b, uint64_t since)
{
	const struct sr_topo *t = s->cfg.topo;
	for (int i = 0; i < s->nr_llcs; i++)
		update_nr_idle_scan(s, s->llcs[i]);
	if (a < 0) {
		for (int i = 0; i < s->nr_llcs; i++)
			fill_llc(s, s->llcs[i], since);
		return;
	}
	fill_llc(s, t->cpu[a].llc_id, since);
	if (t->cpu[b].llc_id != t->cpu[a].llc_id)
		fill_llc(s, t->cpu[b].llc_id, since);
}

/* ------------------------------------------------------------ WF_SYNC evidence */

/*
 * strncmp() == 0 over SR_COMM_LEN, with the usual case (the entry's bytes
 * copied from this very comm, junk past the NUL and all) as two word
 * compares: a placement looks up two entries, each once or twice.
 */
static inline bool same_comm(const char *a, const char *b)
{
	return !memcmp(a, b, SR_COMM_LEN) || !strncmp(a, b, SR_COMM_LEN);
}

/*
 * The entry of @t's comm, or with @t2 of the pair (@t's comm waking @t2's);
 * NULL for a hash collision between two names (no shared evidence).  The
 * key hashes the names (FNV-1a, the first's kept in the task).
 */
static struct sr_comm_sync *comm_entry(struct sr_state *s, const struct sr_task *t,
				       const struct sr_task *t2, bool create)
{
	const char *comm = t->comm, *comm2 = t2 ? t2->comm : NULL;
	uint32_t h = t->comm_fnv;
	int key = (int)(((comm2 ? sr_st_comm_fnv(h * SR_FNV_PRIME, comm2) : h) & 0x7ffffffe) | 1);
	struct sr_comm_sync *c = create ? sr_pidtab_get(&s->sync_by_comm, key) :
					  sr_pidtab_find(&s->sync_by_comm, key);

	if (!c)
		return NULL;
	if (!c->comm[0]) {
		memcpy(c->comm, comm, SR_COMM_LEN);
		if (comm2)
			memcpy(c->comm2, comm2, SR_COMM_LEN);
	}
	/* a single name's entry has no second one (strncmp() with "" reads one byte) */
	if (!same_comm(c->comm, comm) ||
	    (comm2 ? !same_comm(c->comm2, comm2) : c->comm2[0] != '\0'))
		return NULL;
	return c;
}

/* The entry of @comm alone. */
struct sr_comm_sync *sr_st_comm_sync(struct sr_state *s, const struct sr_task *t, bool create)
{
	return comm_entry(s, t, NULL, create);
}

void sr_st_evidence_add(struct sr_sync_evidence *e, int k)
{
	if (++e->wins[k] > SYNC_EVIDENCE_MAX) {
		e->wins[0] /= 2;
		e->wins[1] /= 2;
	}
}

int sr_st_evidence_margin(const struct sr_sync_evidence *e)
{
	return e ? (int)e->wins[1] - (int)e->wins[0] : 0;
}

/*
 * The primary answer's WF_SYNC: what wakers of this name showed waking
 * tasks of the wakee's name, or of any name while that pair has shown
 * nothing either way, with this waker's own record once it is clear, else
 * how the wakeup was issued (the *_sync wait-queue wakeups are pipe and
 * socket writes by a task; interrupts and the idle task issue none).  Each
 * lesson comes from one answer matching the kernel by chance as often as
 * by WF_SYNC: scored against the flag on probe traces, one waker's few
 * lessons mislead more than they tell (hackbench pipes: 2.6 % wrong with
 * them, 0.9 % without).  WF_SYNC belongs to the call site, which the pair
 * of names tells apart where the waker's name alone does not: hackbench's
 * parent wakes rcu_preempt (wake_up_process(), no WF_SYNC) before it
 * writes the pipe its children poll.  Scored against the probes' flag, the
 * guess is right on 98.7 % of the 36 probe traces' wakeups on average (was
 * 97.6 %; 6.12 sockets on 2 nodes 73.6 -> 85.6 %); make fidelity +65
 * placed wakeups on 6.1, +42 on 6.12, none lost on any trace.  Waiting for
 * a pair's lead of 3 before taking it gained less (+53, +16).
 */
enum sr_tristate sr_st_sync_guess(struct sr_state *s, const struct sr_task *waker,
				  const struct sr_task *p, const struct sr_event *ev,
				  enum sr_sync_source *src)
{
	const struct sr_comm_sync *c;
	enum sr_sync_source by = SR_SYNC_SRC_PAIR;
	int score, wm, cm;

	*src = SR_SYNC_SRC_IRQ;
	if (ev->irq_context || !waker || waker->v.pid <= 0)
		return SR_NO;
	wm = sr_st_evidence_margin(&waker->sync);
	if (wm > -SYNC_WAKER_MARGIN && wm < SYNC_WAKER_MARGIN)
		wm = 0;
	c = comm_entry(s, waker, p, false);
	cm = sr_st_evidence_margin(c ? &c->ev : NULL);
	if (!cm) {
		c = sr_st_comm_sync(s, waker, false);
		cm = sr_st_evidence_margin(c ? &c->ev : NULL);
		by = SR_SYNC_SRC_EVIDENCE;
	}
	score = wm + cm;
	*src = score ? by : SR_SYNC_SRC_TASK;
	return score < 0 ? SR_NO : SR_YES;
}

void sr_st_sync_learn(struct sr_state *s, struct sr_task *waker, const struct sr_task *p,
		       bool sync)
{
	struct sr_comm_sync *c;

	if (!waker || waker->v.pid <= 0)
		return;
	c = comm_entry(s, waker, p, true);
	if (c)
		sr_st_evidence_add(&c->ev, sync);
	c = sr_st_comm_sync(s, waker, true);
	sr_st_evidence_add(&waker->sync, sync);
	if (c)
		sr_st_evidence_add(&c->ev, sync);
}

const char *sr_sync_source_name(enum sr_sync_source src)
{
	static const char *const n[] = { "none", "irq_or_idle", "task", "evidence", "probe",
					 "evidence_pair" };

	return (unsigned int)src < SR_ARRAY_SIZE(n) ? n[src] : "invalid";
}
