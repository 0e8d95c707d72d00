// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/sched/pelt.c: decay_load() and runnable_avg_yN_inv[] (generated
 * into kernel/sched/sched-pelt.h), identical in 6.1.192 and 6.12.117; the
 * constant-time form is Paul Turner's commit 5b51f2f80b3b "sched: Make
 * __update_entity_runnable_avg() fast" (3.8), moved to pelt.c by commit
 * c079629862b2 (4.19).  y^n in 32-bit fixed point: y^32 = 1/2, so whole
 * halvings are a shift and the rest one multiply by y^(n % 32).
 *
 * The state's averages are continuous in time; the kernel decays only at
 * period boundaries (1024 * 1024 ns) and adds a partial period linearly
 * (accumulate_sum()), so the part of a period here decays linearly too:
 * 1 - (1 - y) * fraction.  No floating-point exp on the per-event path.
 */
#include "state-priv.h"

#define LOAD_AVG_PERIOD		32
#define PELT_PERIOD_SHIFT	20	/* a period: 1024 units of 1024 ns */

static const uint32_t runnable_avg_yN_inv[LOAD_AVG_PERIOD] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
	0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
	0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
	0x85aac367, 0x82cd8698,
};

/* val * y^n, as the kernel computes it. */
uint64_t sr_pelt_decay_load(uint64_t val, uint64_t n)
{
	if (n > LOAD_AVG_PERIOD * 63)
		return 0;
	if (n >= LOAD_AVG_PERIOD) {
		val >>= n / LOAD_AVG_PERIOD;
		n %= LOAD_AVG_PERIOD;
	}
	/* mul_u64_u32_shr() */
	return (uint64_t)(((unsigned __int128)val * runnable_avg_yN_inv[n]) >> 32);
}

/*
 * y^(dt / period) as a double, by the fixed-point steps above.  Every
 * task and CPU update calls it: sr_pelt_decay_load(1 << 32, n) is written
 * out as the shift it equals ((2^32 * inv) >> 32 = inv, and 2^(32-k) * inv
 * >> 32 = inv >> k), and the partial period's product d * (1 - y) fits 64
 * bits (d <= 2^32, 1 - y < 2^27): one 64 x 64 multiply where the __int128
 * expression made three.  The values are the same to the bit.
 */
double sr_pelt_decay(uint64_t dt)
{
	uint64_t periods = dt >> PELT_PERIOD_SHIFT;
	uint64_t part = dt & ((1ULL << PELT_PERIOD_SHIFT) - 1);
	uint64_t one = 1ULL << 32, d, d_1_y;

	if (!dt)
		return 1.0;
	if (periods > LOAD_AVG_PERIOD * 63)
		return 0.0;
	d = (uint64_t)runnable_avg_yN_inv[periods % LOAD_AVG_PERIOD] >> (periods / LOAD_AVG_PERIOD);
	/* the partial period: 1 - (1 - y) * part / period, in 32-bit fixed point */
	d_1_y = d * (one - runnable_avg_yN_inv[1]);
	d -= (uint64_t)(((unsigned __int128)d_1_y * part) >> (32 + PELT_PERIOD_SHIFT));
	/* d < 2^32: the signed conversion is exact and one instruction */
	return (double)(int64_t)d / (double)one;
}

/*
 * The CPU's root cfs_rq averages.  The state keeps them continuous (c->load_avg
 * ...), but cpu_load() and cpu_util() read cfs_rq->avg as the last
 * update_load_avg() on that CPU left it: an enqueue, dequeue or switch there
 * (c->k_*, at c->k_ts).  A busy CPU also updates at every tick
 * (entity_tick()), which the trace does not show: past a tick, the read is
 * the continuous value.
 */
#define NOHZ_BLOCKED_NS		32000000ULL	/* LOAD_AVG_PERIOD ms */

/* Through int64_t: a signed conversion is one instruction, the unsigned one branches. */
static unsigned long round_pos(double v)
{
	return v > 0 ? (unsigned long)(int64_t)(v + 0.5) : 0;
}

static bool k_stale(const struct sr_state *s, int cpu, uint64_t now)
{
	const struct sr_cpu_state *c = &s->cpu[cpu];

	if (!c->k_ts)
		return true;
	return !s->ticks_seen && s->rq[cpu].curr_pid && now - c->k_ts >= s->tick_late_ns;
}

/*
 * A busy CPU read past its tick: the tick, at a phase the trace does not
 * show, applied what left before it; what left within the tick's window
 * most likely is still in the kernel's average.  (Its decay over that
 * window is not applied.)
 */
static double left_since_tick(const struct sr_state *s, const struct sr_cpu_state *c,
			      uint64_t now)
{
	unsigned int n = c->left_head < SR_LEFT_RING ? c->left_head : SR_LEFT_RING;
	double sum = 0;

	/* newest first: the ring is in time order, so the first too old ends it */
	for (unsigned int i = 1; i <= n; i++) {
		const struct sr_left *l = &c->left[(c->left_head - i) % SR_LEFT_RING];

		if (now - l->ts >= s->tick_late_ns)
			break;
		sum += l->load;
	}
	return sum;
}

void sr_st_cpu_left(struct sr_state *s, int cpu, double load)
{
	struct sr_cpu_state *c = &s->cpu[cpu];

	c->left[c->left_head++ % SR_LEFT_RING] = (struct sr_left){ s->now, load };
}

/*
 * Under an overcommitted hypervisor a vCPU stalls for milliseconds: its
 * ticks come that late, and so does a wakelist IPI to it.  The IPIs are in
 * the trace (a sched_wakeup on the target, after the sched_waking on
 * another CPU), the ticks are not: take the IPIs' 95th percentile so far
 * as the ticks' lateness, from the first IPI on, at most 100 ms.  Measured on
 * QEMU TCG guests against the kernel's own cpu_load() (probe traces): p90
 * 3 - 85 ms (142 ms on the 64-vCPU guest); on this KVM guest 25 - 112 us, on
 * bare metal less, where the jiffy floor decides.  Waiting for 32 IPIs
 * first left a trace's start read as if ticks came each jiffy: on one LLC,
 * where wakeups take the wakelist only to idle CPUs, for its first 0.5 s.
 * Against the probes' reads, from the first IPI on, busy CPUs' cpu_load()
 * within 5 %: 74.4 -> 79.9 % and 62.0 -> 73.6 % (6.1, 4 and 2 LLCs),
 * wakees' load_avg 53.3 -> 60.2 % on the second; make fidelity +256 placed
 * wakeups on 6.1, +163 on 6.12 (hackbench sockets on one LLC of 16:
 * 92.6 -> 94.1 %, 91.7 -> 94.3 %); estimating after 4 or 8 IPIs gains less.
 * From the 90th percentile to the 95th, over every probe fixture
 * (--probes-measure-only): busy prevs' cpu_load() reads 20 % or more off
 * 4,329 -> 3,776 of 60,364; make fidelity +74 placed wakeups on 6.1, +89 on
 * 6.12.  The cap: a busy vCPU's thread runs, an idle one's must be woken
 * for the IPI, so on the 64-vCPU guest the IPIs' tail outruns the ticks'
 * (its traces: uncapped -21 placed wakeups, capped +19).
 */
void sr_st_ipi_delivered(struct sr_state *s, uint64_t waking_ts, uint64_t ts)
{
	uint64_t jiffy = SR_NSEC_PER_SEC / (uint64_t)s->cfg.hz, late;

	if (ts < waking_ts)
		return;
	sr_hist_add(&s->ipi_late, ts - waking_ts);
	late = sr_hist_pct(&s->ipi_late, SR_TICK_LATE_PCT);
	late = late < SR_TICK_LATE_MAX_NS ? late : SR_TICK_LATE_MAX_NS;
	s->tick_late_ns = late > jiffy ? late : jiffy;
}

/* When @cpu's cfs_rq was last brought up to date (cfs_rq_last_update_time()). */
uint64_t sr_st_cpu_k_time(const struct sr_state *s, int cpu)
{
	return k_stale(s, cpu, s->now) ? s->now : s->cpu[cpu].k_ts;
}

/* sr_st_cpu_decay() past its inline test: @now is later, or the CPU has no average yet. */
void sr_st_cpu_decay_to(struct sr_state *s, int cpu, uint64_t now)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	const struct sr_rq *rq = &s->rq[cpu];
	double d;

	if (c->pelt_ts && now > c->pelt_ts) {
		d = sr_st_decay(s, now - c->pelt_ts);
		c->load_avg = c->load_avg * d + (double)c->root_weight * (1.0 - d);
		c->runnable_load_avg = c->runnable_load_avg * d + (double)rq->load_weight * (1.0 - d);
		/* cfs_rq->curr: only a fair task running adds to the CPU's cfs util */
		c->util_avg = c->util_avg * d + (rq->curr_pid && rq->curr_policy != SR_SCHED_RT ?
						 (double)SR_CAPACITY_SCALE : 0.0) * (1.0 - d);
		/* __update_load_avg_cfs_rq() (5.7+): runnable = h_nr_running, each task 1024 */
		c->runnable_avg = c->runnable_avg * d +
				  (double)rq->cfs_nr_running * SR_CAPACITY_SCALE * (1.0 - d);
		c->removed_load *= d;
		c->removed_util *= d;
		c->removed_run *= d;
		c->attach_load *= d;
		c->attach_util *= d;
		c->attach_run *= d;
		if (rq->pelt_cold) {
			c->warm_util = c->warm_util * d + (rq->curr_pid && rq->curr_policy != SR_SCHED_RT ?
							   (double)SR_CAPACITY_SCALE : 0.0) * (1.0 - d);
			c->warm_load = c->warm_load * d + (double)c->root_weight * (1.0 - d);
		}
	}
	if (!c->pelt_ts && rq->pelt_cold)
		c->warm_ts = now;
	if (!c->pelt_ts || now > c->pelt_ts)
		c->pelt_ts = now;
}

/*
 * What a CPU busy when the trace began holds from before it, at @now: the
 * kernel's averages are the state's (which start from zero) plus the
 * pre-trace sums decayed by y^n, n the periods since.  Those sums are
 * unknown; the guess is that the CPU ran before the trace as it has since:
 * the average from zero over n periods, divided by 1 - y^n, is that
 * stationary value.  Only decisions read it (sr_rq.pelt_pre_*): folded
 * into the state's sums it would reach forked tasks through
 * post_init_entity_util_avg() and every later average.
 */
static void warm_prior(struct sr_state *s, int cpu, uint64_t now)
{
	const struct sr_cpu_state *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];
	double y_n, w;

	rq->pelt_pre_util = rq->pelt_pre_load = 0;
	if (!rq->pelt_cold || !c->warm_ts || now <= c->warm_ts)
		return;
	y_n = sr_pelt_decay(now - c->warm_ts);
	if (y_n >= 1.0)
		return;
	w = y_n / (1.0 - y_n);
	rq->pelt_pre_util = round_pos(c->warm_util * w);
	rq->pelt_pre_load = round_pos(c->warm_load * w);
}

/*
 * @cpu's first record follows a lost window that began with the trace (its
 * ring buffer overwrote its oldest pages): what the state has of the CPU
 * before that record was not read from it, only guessed from the other
 * CPUs' records (tasks they woke onto it, none seen leaving).  The
 * stationary guess must not extrapolate from that: it is part of the "before
 * the trace" it stands for, and the CPU's own record, from which it
 * extrapolates, starts now.  Its warm-up starts now too.
 */
void sr_st_pelt_trace_starts(struct sr_state *s, int cpu)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];

	if (!rq->pelt_cold)
		return;
	c->warm_ts = s->now;
	c->warm_load = c->warm_util = 0;
	c->pelt_known_ts = s->now + SR_PELT_WARM_NS;
	if (s->pelt_cold_until < c->pelt_known_ts)
		s->pelt_cold_until = c->pelt_known_ts;
}

static void rcu_tick_update(struct sr_state *s, int cpu, uint64_t now);

/* The rq fields the models read, from the averages at @now: @stale as k_stale() says. */
static void publish(struct sr_state *s, int cpu, uint64_t now, bool stale)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];

	if (stale) {
		/* a tick has run since: it applied what left before it */
		rq->load_avg = round_pos(c->load_avg - c->removed_load - c->attach_load +
					 left_since_tick(s, c, now));
		rq->runnable_load_avg = round_pos(c->runnable_load_avg);
		rq->util_avg = round_pos(c->util_avg - c->removed_util - c->attach_util);
		rq->runnable_avg = round_pos(c->runnable_avg - c->removed_run - c->attach_run);
	} else {
		rq->load_avg = round_pos(c->k_load);
		rq->runnable_load_avg = round_pos(c->k_runnable_load);
		rq->util_avg = round_pos(c->k_util);
		rq->runnable_avg = round_pos(c->k_runnable);
	}
	rq->h_load = c->h_load;
	rq->h_load_cached = now < c->h_load_until;
	rq->load_refreshed = c->k_refreshed && !rq->curr_pid;
	rq->load_avg_unrefreshed = round_pos(c->k_load_seen);
	if (rq->pelt_cold || rq->pelt_pre_util || rq->pelt_pre_load)
		warm_prior(s, cpu, now);
	rq->util_taught = round_pos(sr_st_taught_util(s, cpu, now));
}

/* What the kernel's choices taught of @cpu's utilisation (follow.c), decayed to @now. */
double sr_st_taught_util(const struct sr_state *s, int cpu, uint64_t now)
{
	const struct sr_cpu_state *c = &s->cpu[cpu];

	if (c->taught_util <= 0.0 || now <= c->taught_ts)
		return c->taught_util;
	return c->taught_util * sr_pelt_decay(now - c->taught_ts);
}

/* The averages decay to @now; the rq fields the models read follow. */
void sr_st_cpu_pelt(struct sr_state *s, int cpu, uint64_t now)
{
	if (s->cpu[cpu].rcu_tick)
		rcu_tick_update(s, cpu, now);
	sr_st_cpu_decay(s, cpu, now);
	publish(s, cpu, now, k_stale(s, cpu, now));
}

/*
 * task_h_load() read @cpu's root cfs_rq: update_cfs_rq_h_load() caches its
 * load_avg as h_load, unless it did so earlier in the same jiffy; later
 * reads in that jiffy scale by the cached value (probe traces: task_h_load()
 * within 5 % of the kernel's in 45.0 -> 49.7 % of the reads).  Jiffies are
 * cut from the trace clock, whose phase against the kernel's is unknown.
 */
void sr_st_h_load_read(struct sr_state *s, int cpu)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	uint64_t jiffy = SR_NSEC_PER_SEC / (uint64_t)s->cfg.hz;

	if (s->now < c->h_load_until)
		return;
	sr_st_cpu_advance(s, cpu, s->now);
	/* the root cfs_rq's load: its group entities' too (the advance published its tasks') */
	c->h_load = s->rq[cpu].load_avg + (s->nr_groups ? sr_st_groups_se_load(s, cpu) : 0);
	c->h_load_until = (s->now / jiffy + 1) * jiffy;
	s->rq[cpu].h_load = c->h_load;
	s->rq[cpu].h_load_cached = true;
}

/*
 * @p switches out asleep on @cpu with a wakeup pending that came while it
 * ran and showed no sched_wakeup: try_to_wake_up() found it already
 * dequeued (p->on_rq 0, still p->on_cpu), so the dequeue came before that
 * sched_waking and the switch-out shows late — a vCPU stalled in
 * schedule() (qemu-probes-6.1 srrec-own.dat: 76 ms, pid 3202).  The task
 * and its CPU stopped counting it runnable by the sched_waking at the
 * latest; its se.avg is what that dequeue left.
 */
void sr_st_dequeued_by_waking(struct sr_state *s, struct sr_task *p, int cpu, bool update)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	double d, run, w = (double)p->v.weight;
	unsigned long at_dequeue_load, at_dequeue_util, at_dequeue_run;

	if (!p->pending || p->pend_cls != SR_W_RUNNABLE || p->state != SR_T_RUNNING ||
	    p->v.cpu != cpu || p->pend_ts <= p->last_in || p->pend_ts >= s->now) {
		sr_st_task_switch_out(s, p, SR_T_SLEEPING, cpu, update);
		return;
	}
	sr_st_task_pelt(s, p, s->now);
	sr_st_cpu_advance(s, cpu, s->now);
	d = sr_pelt_decay(s->now - p->pend_ts);
	run = 1.0 - d;			/* what running since the dequeue added */
	/* a stall of over 2 s leaves nothing of the dequeue's value to recover: take the last */
	at_dequeue_load = d > 1e-6 ? round_pos((p->load_frac - run) / d * w) : p->v.load_avg;
	at_dequeue_util = d > 1e-6 ? round_pos((p->util_frac - run) / d * SR_CAPACITY_SCALE) :
				     p->v.util_avg;
	at_dequeue_run = d > 1e-6 ? round_pos((p->run_frac - run) / d * SR_CAPACITY_SCALE) :
				    p->v.runnable_avg;
	p->load_frac = p->load_frac > run ? p->load_frac - run : 0;
	p->util_frac = p->util_frac > run ? p->util_frac - run : 0;
	p->run_frac = p->run_frac > run ? p->run_frac - run : 0;
	sr_st_task_avgs(p);
	c->load_avg = c->load_avg > w * run ? c->load_avg - w * run : 0;
	c->runnable_load_avg = c->runnable_load_avg > w * run ? c->runnable_load_avg - w * run : 0;
	c->util_avg = c->util_avg > SR_CAPACITY_SCALE * run ? c->util_avg - SR_CAPACITY_SCALE * run : 0;
	c->runnable_avg = c->runnable_avg > SR_CAPACITY_SCALE * run ?
			  c->runnable_avg - SR_CAPACITY_SCALE * run : 0;
	sr_st_task_move(s, p, SR_T_SLEEPING, cpu);
	p->sleep_load = at_dequeue_load;
	p->sleep_util = at_dequeue_util;
	p->sleep_run = at_dequeue_run;
	p->sleep_ts = p->pend_ts;
}

/*
 * task_dead_fair() -> remove_entity_load_avg(): a dead task's averages
 * leave its CPU at that cfs_rq's next update, after the switch away from it.
 */
void sr_st_cpu_remove(struct sr_state *s, int cpu, double load, double util, double run)
{
	struct sr_cpu_state *c = &s->cpu[cpu];

	sr_st_cpu_pelt(s, cpu, s->now);
	c->removed_load += load;
	sr_st_cpu_left(s, cpu, load);
	c->removed_util += util;
	c->removed_run += run;
	c->removed_ts = s->now;
	if (!s->cfg.blocked_unrefreshed)	/* before 4.17 no idle update is assumed */
		c->rcu_tick = s->now + SR_NSEC_PER_SEC / (uint64_t)s->cfg.hz;
}

/*
 * An update_load_avg() of @cpu's cfs_rq (update_cfs_rq_load_avg() applies
 * what was removed first): the kernel's reads take these values until the
 * next one.  A migration away is not one: the state subtracts the task at
 * once, the read sees it at the CPU's next update, as the kernel's does.
 * @assumed: the nohz update the state assumes, which the kernel may not
 * have made — the last seen update's load is kept beside it.
 */
static void kupdate_at(struct sr_state *s, int cpu, uint64_t ts, bool assumed)
{
	struct sr_cpu_state *c = &s->cpu[cpu];

	/* the rq fields are published once, below, from the updated averages */
	sr_st_cpu_decay(s, cpu, ts);
	if (ts > c->removed_ts) {
		c->load_avg = c->load_avg > c->removed_load ? c->load_avg - c->removed_load : 0;
		c->util_avg = c->util_avg > c->removed_util ? c->util_avg - c->removed_util : 0;
		c->runnable_avg = c->runnable_avg > c->removed_run ? c->runnable_avg - c->removed_run : 0;
		c->removed_load = c->removed_util = c->removed_run = 0;
	}
	/* the sleepers moved here but not enqueued yet are not in the kernel's sums */
	c->k_load = c->load_avg > c->attach_load ? c->load_avg - c->attach_load : 0;
	if (!assumed)
		c->k_load_seen = c->k_load;
	c->k_refreshed = assumed;
	c->k_runnable_load = c->runnable_load_avg;
	c->k_util = c->util_avg > c->attach_util ? c->util_avg - c->attach_util : 0;
	c->k_runnable = c->runnable_avg > c->attach_run ? c->runnable_avg - c->attach_run : 0;
	c->k_ts = ts;
	/*
	 * An update now, as nearly all are, needs none of sr_st_cpu_pelt()'s
	 * tests: the averages are at now, and k_ts == now is not stale
	 * (tick_late_ns is a jiffy at least).  A pending RCU tick goes the long way.
	 */
	if (ts && ts == s->now && !c->rcu_tick)
		publish(s, cpu, ts, false);
	else
		sr_st_cpu_pelt(s, cpu, s->now);
}

static void kupdate(struct sr_state *s, int cpu, bool assumed)
{
	kupdate_at(s, cpu, s->now, assumed);
}

/*
 * A task died on this CPU and left it idle: the task_struct goes through
 * call_rcu() (put_task_struct_rcu_user()), and while that callback is
 * queued rcu_needs_cpu() keeps the idle CPU's tick from stopping.  Its next
 * tick runs the rebalance softirq (an idle CPU's interval is a jiffy or
 * two), whose sched_balance_update_blocked_averages() applies what
 * task_dead_fair() removed.  One jiffy stands for it (make fidelity: forks
 * on 6.12 +104, 87.1 -> 88.5 %; 6.1 unchanged; wakeups -12 of 574,514).
 */
static void rcu_tick_update(struct sr_state *s, int cpu, uint64_t now)
{
	struct sr_cpu_state *c = &s->cpu[cpu];
	uint64_t tick = c->rcu_tick;

	if (now < tick)
		return;
	c->rcu_tick = 0;
	if (!s->rq[cpu].curr_pid && c->k_ts && c->k_ts < tick)
		kupdate_at(s, cpu, tick > c->pelt_ts ? tick : c->pelt_ts, true);
}

void sr_st_cpu_kupdate(struct sr_state *s, int cpu)
{
	kupdate(s, cpu, false);
}

/*
 * An update the state makes before the kernel may have: a sleeper moved by
 * its wakeup is attached at once, while try_to_wake_up() enqueues it (and
 * updates the target's cfs_rq) only at its sched_wakeup, which a wakelist
 * delays until the target runs its IPI.  Until then the target's last seen
 * load is kept beside the new one, as for the assumed nohz update.
 */
void sr_st_cpu_kupdate_early(struct sr_state *s, int cpu)
{
	kupdate(s, cpu, true);
}

/*
 * The target of a sleeper's wakeup move, attached early (runqueue.c,
 * attach_begin()): the move itself updates no cfs_rq of the kernel's, so
 * cpu_load() there reads its last update — unless exactly one CPU has
 * tasks waiting.  Its ticks then kick the nohz balancer at each
 * nohz.next_balance, a jiffy or a few (nohz_balancer_kick(): rq->nr_running
 * >= 2 sets NOHZ_STATS_KICK | NOHZ_BALANCE_KICK, since 4550487a993d
 * "sched/fair: Restructure nohz_balance_kick()", 4.17; 6.1 and 6.12 alike),
 * and the balance brings the idle CPUs' blocked averages up to date
 * (update_nohz_stats(); before 4.17 rebalance_domains() of each): an update
 * now, kept beside the last seen one, stands for the latest of those.  With
 * none waiting nothing kicks; with two or more the kick most likely comes to
 * nothing (blocked_kick_lost()).
 * Against the probes' reads, idle CPUs' load_avg within 5 %: 6.1 srrec_rqs
 * 50.1 -> 52.9 %, srrec_sock_rqs 37.4 -> 38.4 %; 6.12 srrec_rqs
 * 59.6 -> 61.4 %, srrec_sock_rqs 46.8 -> 49.1 %, SMT srrec_rqs
 * 53.6 -> 52.5 %.  Updating early always (as before) served
 * qemu-ipc-6.1 numa2-2s4c2t msg_thread.dat, whose one overloaded waker
 * kept the idle CPUs' averages fresh: never updating lost 727 of its
 * placed wakeups.
 */
void sr_st_cpu_moved_in(struct sr_state *s, int cpu)
{
	if (s->nr_overloaded == 1)
		kupdate(s, cpu, true);
	else
		sr_st_cpu_pelt(s, cpu, s->now);
}

/*
 * Whether a nohz blocked-load kick now most likely comes to nothing: two
 * or more CPUs have tasks waiting.  The kick is an IPI to an idle CPU
 * (kick_ilb(), find_new_ilb()), and on a machine that overloaded that CPU
 * gets work first: nohz_csd_func() (kernel/sched/core.c, commit
 * 90b5363acd47 "sched: Clean up scheduler_ipi()", 5.8) raises the balance
 * softirq only while it is still idle with no need_resched(), and
 * _nohz_idle_balance() (kernel/sched/fair.c) stops at need_resched()
 * without moving nohz.next_blocked — 6.1 and 6.12 alike.  The state then
 * waits for a quieter moment.  Against the probes' reads
 * (--probes-measure-only), idle prevs' cpu_load() 20 % or more off
 * 5,701 -> 5,474 of 27,611 (after an assumed update 30.0 -> 27.2 %),
 * cpu_util() 10,080 -> 9,896; make fidelity placed wakeups +22 on 6.1,
 * +51 on 6.12 (forks -1, -1).
 */
static bool blocked_kick_lost(const struct sr_state *s)
{
	return s->nr_overloaded >= 2;
}

/*
 * The idle CPUs' blocked averages are brought up to date by the nohz idle
 * balancer at most every LOAD_AVG_PERIOD ms (nohz.next_blocked, commit
 * f643ea220701 "sched/nohz: Stop NOHZ stats when decayed", 4.17); the trace
 * does not show when, so the first event after that period stands for it,
 * unless blocked_kick_lost().
 * Before 4.17 only a balance that a kick or the CPU's own idle balance ran
 * updated them: they stay as their last seen update left them.
 * The balancer passes over a CPU that idle_cpu() calls busy
 * (_nohz_idle_balance(): `if (!idle_cpu(balance_cpu)) continue;`, 6.1 and
 * 6.12): one with a task queued or a wakeup on its wakelist
 * (rq->ttwu_pending, commit 126c2092e5c8 "sched: Add rq::ttwu_pending",
 * 5.8), as on a stalled vCPU whose IPI waits.  Against the probes' reads
 * (--probes-measure-only, the 7 rqs fixtures, 233,458 idle reads), idle
 * CPUs' load_avg within 5 %: 51.5 -> 52.2 %, within 20 %: 75.9 -> 77.3 %
 * (util_avg 59.5 -> 59.7 %, runnable_avg 53.0 -> 53.8 %); make fidelity:
 * placed wakeups -2 on 6.1, +5 on 6.12, forks +3 and +2.
 */
void sr_st_blocked_refresh(struct sr_state *s)
{
	if (s->now < s->next_blocked || s->cfg.blocked_unrefreshed || blocked_kick_lost(s))
		return;
	for (int c = 0; c < s->cfg.nr_cpus; c++)
		if (sr_rq_idle(&s->rq[c]) && s->cpu[c].k_ts)
			kupdate(s, c, true);
	s->next_blocked = s->now + NOHZ_BLOCKED_NS;
}
