// SPDX-License-Identifier: GPL-2.0
/*
 * Probe events (`schedreplay record --probes`): kprobes on the kernel's
 * select_task_rq_fair() and task_h_load() record what a plain sched trace
 * cannot show — the wakeup's WF_SYNC flag, the wakee's se.avg, the
 * task_h_load() values wake_affine_weight() compared — and the CPU the
 * kernel returned.  They are inputs (the placement is replayed at
 * srqf_ret with them) and a yardstick: every reconstruction they replace
 * is first measured against them.
 *
 * Order on one CPU inside try_to_wake_up() (6.1, 6.12): sched_waking,
 * srqf, [thl/thl_ret for current, then for p], [fig/fig_ret], srqf_ret,
 * sched_migrate_task, sched_wakeup.  select_task_rq_fair() runs with
 * p->pi_lock held and preemption off, so nothing else opens on that CPU.
 */
#include <limits.h>
#include <stdlib.h>
#include "state-priv.h"

const unsigned int sr_err_bucket_pct[SR_ERR_BUCKETS - 1] = { 5, 10, 20, 30, 50 };

static void count_err(uint64_t *hist, double est, double truth)
{
	double base = truth > SR_ERR_FLOOR ? truth : SR_ERR_FLOOR;
	double pct = (est > truth ? est - truth : truth - est) * 100.0 / base;
	int b = 0;

	while (b < SR_ERR_BUCKETS - 1 && pct >= sr_err_bucket_pct[b])
		b++;
	hist[b]++;
}

/*
 * The kernel's se.avg of a sleeping task is what its last dequeue left:
 * take it as that, decay it over the sleep for the task's blocked share of
 * its CPU, and move that CPU's sums by the same amount.  The probe does not
 * read runnable_avg: it accrues as load_avg does (both while on_rq), so it
 * moves by the load's correction.
 */
static void calibrate(struct sr_state *s, struct sr_task *p, uint64_t load, uint64_t util)
{
	struct sr_cpu_state *c = sr_st_cpu_ok(s, p->v.cpu) ? &s->cpu[p->v.cpu] : NULL;
	double d = p->sleep_known && s->now > p->sleep_ts ? sr_pelt_decay(s->now - p->sleep_ts) : 1;
	double lf = p->v.weight ? (double)load / (double)p->v.weight : 0;
	double uf = (double)util / (double)SR_CAPACITY_SCALE;
	double dl, du, rf, dr;

	if (sr_st_on_rq(p->state))
		return;
	lf = (lf < 1.0 ? lf : 1.0) * d;
	uf = (uf < 1.0 ? uf : 1.0) * d;
	rf = p->run_frac + lf - p->load_frac;
	rf = rf < 0 ? 0 : rf < 1.0 ? rf : 1.0;
	dl = (lf - p->load_frac) * (double)p->v.weight;
	du = (uf - p->util_frac) * (double)SR_CAPACITY_SCALE;
	dr = (rf - p->run_frac) * (double)SR_CAPACITY_SCALE;
	if (c) {
		sr_st_cpu_advance(s, p->v.cpu, s->now);
		c->load_avg = c->load_avg + dl > 0 ? c->load_avg + dl : 0;
		c->util_avg = c->util_avg + du > 0 ? c->util_avg + du : 0;	/* uncapped, as the kernel's */
		c->k_load = c->k_load + dl > 0 ? c->k_load + dl : 0;
		c->k_util = c->k_util + du > 0 ? c->k_util + du : 0;
		c->runnable_avg = c->runnable_avg + dr > 0 ? c->runnable_avg + dr : 0;
		c->k_runnable = c->k_runnable + dr > 0 ? c->k_runnable + dr : 0;
		sr_st_cpu_advance(s, p->v.cpu, s->now);
	}
	p->load_frac = lf;
	p->util_frac = uf;
	p->run_frac = rf;
	p->pelt_ts = s->now;
	sr_st_task_avgs(p);
	p->sleep_load = (unsigned long)load;
	p->sleep_util = (unsigned long)util;
	p->sleep_run = d > 1e-6 ? (unsigned long)(int64_t)(rf / d * SR_CAPACITY_SCALE + 0.5) :
				  p->v.runnable_avg;
	p->sleep_known = true;
}

/*
 * The state's cpu_load() of @cpu against the kernel's; only where no task
 * group is followed, as the state's root load then holds everything.
 */
static void measure_cpu_load(struct sr_state *s, int cpu, uint64_t truth)
{
	if (truth == UINT64_MAX || !sr_st_cpu_ok(s, cpu) || s->nr_groups)
		return;
	sr_st_cpu_advance(s, cpu, s->now);
	s->probes.cpu_loads++;
	count_err(s->probes.cpu_load_err, (double)s->rq[cpu].load_avg, (double)truth);
}

/* prev's cfs_rq util_avg (cpu_util() before util_est) against the state's. */
static void measure_cpu_util(struct sr_state *s, int cpu, uint64_t truth)
{
	if (truth == UINT64_MAX || !sr_st_cpu_ok(s, cpu) || s->nr_groups)
		return;
	sr_st_cpu_advance(s, cpu, s->now);
	count_err(s->probes.cpu_util_err, (double)s->rq[cpu].util_avg, (double)truth);
}

/*
 * The task's wakee_flips and decay stamp as the kernel held them — at srqf
 * the wakee's, which wake_wide() reads as its slave; at thl of current the
 * waker's, after its record_wakee() — scored against the state's estimate
 * and bounds, then taken (the stamp by its age in jiffies, when the probe
 * read jiffies too).  Forks inherit them, so no trace shows them otherwise.
 */
static void probe_flips(struct sr_state *s, struct sr_task *t, const struct sr_event *ev)
{
	struct sr_task_view *v = &t->v;

	if (ev->flips == UINT64_MAX || ev->flips > UINT_MAX)
		return;
	s->probes.flips++;
	s->probes.flips_err[v->wakee_flips == ev->flips ? 0 :
			    v->wakee_flips_min <= ev->flips && ev->flips <= v->wakee_flips_max ?
			    1 : 2]++;
	if (s->cfg.probes_measure_only)
		return;
	v->wakee_flips = v->wakee_flips_min = v->wakee_flips_max = (unsigned int)ev->flips;
	sr_st_flips_pinned(t);
	if (ev->flip_ts != UINT64_MAX && ev->jiffies != UINT64_MAX)
		v->wakee_flip_decay_ts = sr_st_jiffies(s) - (ev->jiffies - ev->flip_ts);
}

/*
 * A probe read the kernel's jiffies: keep the trace clock's jiffies in step.
 * On an overcommitted VM the two drift apart by up to ten jiffies within a
 * second (a stalled vCPU's ticks come late, then catch up: the 6.12 probe
 * traces), so a task's decay one second after its stamp, which record_wakee()
 * times by the kernel's jiffies, came earlier or later than the trace clock
 * said.  The drift counts from the first read, so the stamps taken before it
 * keep their meaning.
 */
static void probe_jiffies(struct sr_state *s, const struct sr_event *ev)
{
	int64_t off;

	if (ev->jiffies == UINT64_MAX || s->cfg.probes_measure_only)
		return;
	off = (int64_t)(ev->jiffies - s->now / (SR_NSEC_PER_SEC / (uint64_t)s->cfg.hz));
	if (!s->jiffy_off_known) {
		s->jiffy_off0 = off;
		s->jiffy_off_known = true;
	}
	s->jiffy_drift = off - s->jiffy_off0;
}

/* The hints of @cpu's LLC the probe read: SIS_UTIL's budget and has_idle_cores. */
static void llc_hints_seen(struct sr_state *s, int cpu, const struct sr_event *ev)
{
	sr_st_llc_scan_seen(s, cpu, ev->sd_weight, ev->llc_scan);
	sr_st_llc_idle_cores_seen(s, cpu, ev->sd_weight, ev->llc_idle_cores);
}

/*
 * thl of current (the sync test): it also read this CPU's cpu_load() and
 * LLC budget; thl of p, prev's LLC budget.
 */
static void on_hload(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_cpu_state *c = &s->cpu[ev->cpu];
	struct sr_task *cur;

	probe_jiffies(s, ev);
	c->thl_pid = ev->pid;
	if (c->sel_pid < 0)
		return;
	if (ev->pid != ev->common_pid) {
		struct sr_task *t = sr_state_task(s, ev->pid);	/* p: prev's LLC */

		if (t)
			llc_hints_seen(s, t->v.cpu, ev);
		return;
	}
	llc_hints_seen(s, ev->cpu, ev);	/* this CPU's LLC */
	cur = sr_state_task(s, ev->pid);
	if (cur)
		probe_flips(s, cur, ev);
	if (ev->cpu_load == UINT64_MAX)
		return;
	measure_cpu_load(s, ev->cpu, ev->cpu_load);
	if (!s->cfg.probes_measure_only)
		c->probe_load = ev->cpu_load;
}

/*
 * The kernel's cfs_rq->avg of @cpu, as a probe read it, taken as the CPU's
 * averages.  The read leaves out the sleepers moved here whose enqueue has
 * not come yet (attach_entity_load_avg() runs from their enqueue_entity(),
 * a wakelist's later), which the state's sums already hold (attach_load):
 * they stay on top, so that cpu_load() reads the probe's value now and
 * gains them at their sched_wakeup.  UINT64_MAX: not read.
 */
static void take_cpu_avgs(struct sr_state *s, int cpu, uint64_t load, uint64_t util,
			  uint64_t run)
{
	struct sr_cpu_state *c = &s->cpu[cpu];

	c->load_avg = (double)load + c->attach_load;
	if (util != UINT64_MAX)
		c->util_avg = (double)util + c->attach_util;
	if (run != UINT64_MAX)
		c->runnable_avg = (double)run + c->attach_run;
	sr_st_cpu_kupdate(s, cpu);
}

/*
 * rqs: CPUs' rq->cfs.avg as select_task_rq_fair() entered, the state's
 * estimate scored against each, idle and busy apart, then taken: the
 * placement at srqf_ret reads the kernel's loads of every CPU.
 */
static void on_rqs(struct sr_state *s, const struct sr_event *ev)
{
	bool groups = s->nr_groups;

	/* under task groups the root's load holds their entities: measured, never taken */
	if (groups && !s->cfg.probes_measure_only)
		return;
	if (groups) {
		sr_st_cpu_advance_all(s);
		sr_st_groups_fill(s);	/* adds the group entities' loads to the root's */
	}
	for (int i = 0; i < SR_RQS_CPUS; i++) {
		const uint32_t *v = &ev->rqs[SR_RQS_FIELDS * i];
		int cpu = ev->rqs_base + i;
		const struct sr_rq *rq;
		int idle;

		if (!sr_st_cpu_ok(s, cpu) || v[SR_RQS_LOAD] == UINT32_MAX)
			continue;
		if (!groups)
			sr_st_cpu_advance(s, cpu, s->now);
		rq = &s->rq[cpu];
		idle = rq->nr_running == 0;
		s->probes.rqs_reads++;
		count_err(s->probes.rqs_err[0][idle], (double)rq->load_avg, v[SR_RQS_LOAD]);
		count_err(s->probes.rqs_err[1][idle], (double)rq->util_avg, v[SR_RQS_UTIL]);
		count_err(s->probes.rqs_err[2][idle], (double)rq->util_est, v[SR_RQS_EST]);
		if (v[SR_RQS_RUN] != UINT32_MAX)
			count_err(s->probes.rqs_err[3][idle], (double)rq->runnable_avg, v[SR_RQS_RUN]);
		if (!s->cfg.probes_measure_only)
			take_cpu_avgs(s, cpu, v[SR_RQS_LOAD], v[SR_RQS_UTIL],
				      v[SR_RQS_RUN] != UINT32_MAX ? v[SR_RQS_RUN] : UINT64_MAX);
	}
}

/*
 * Use the kernel's cpu_load() of prev (srqf) and this (thl of current) for
 * the placement, and take them as the CPUs' PELT from now on.
 */
/*
 * Under task groups the state's root load is its root tasks' plus the group
 * entities' (sr_st_groups_fill()), which a root read cannot be split back
 * into: the placement reads the kernel's cpu_load() of prev and this as the
 * probes read them, the state's averages stay its own.  The next refresh
 * publishes them again.
 */
static void probe_group_cpu_loads(struct sr_state *s, struct sr_task *p, int this_cpu)
{
	if (p->probe.valid && p->probe.prev_load != UINT64_MAX && sr_st_cpu_ok(s, p->v.cpu))
		s->rq[p->v.cpu].load_avg = (unsigned long)p->probe.prev_load;
	if (sr_st_cpu_ok(s, this_cpu) && s->cpu[this_cpu].probe_load != UINT64_MAX) {
		s->rq[this_cpu].load_avg = (unsigned long)s->cpu[this_cpu].probe_load;
		s->cpu[this_cpu].probe_load = UINT64_MAX;
	}
}

void sr_st_probe_cpu_loads(struct sr_state *s, struct sr_task *p, int this_cpu)
{
	if (s->cfg.probes_measure_only)
		return;
	if (s->nr_groups) {
		probe_group_cpu_loads(s, p, this_cpu);
		return;
	}
	if (p->probe.valid && p->probe.prev_load != UINT64_MAX && sr_st_cpu_ok(s, p->v.cpu))
		take_cpu_avgs(s, p->v.cpu, p->probe.prev_load, p->probe.prev_util, UINT64_MAX);
	if (sr_st_cpu_ok(s, this_cpu) && s->cpu[this_cpu].probe_load != UINT64_MAX) {
		take_cpu_avgs(s, this_cpu, s->cpu[this_cpu].probe_load, UINT64_MAX, UINT64_MAX);
		s->cpu[this_cpu].probe_load = UINT64_MAX;
	}
}

/* srqf: select_task_rq_fair(p, prev_cpu, wake_flags) entered on ev->cpu; returns p. */
static struct sr_task *on_select(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *p = sr_st_task_get(s, ev->pid);

	s->probes.selects++;
	probe_jiffies(s, ev);
	s->cpu[ev->cpu].sel_pid = ev->pid;
	s->cpu[ev->cpu].thl_pid = -1;
	s->cpu[ev->cpu].probe_load = UINT64_MAX;
	if (!p)
		return NULL;
	sr_st_task_pelt(s, p, s->now);
	if (ev->load_avg != UINT64_MAX && p->v.pelt_warm && !(ev->wake_flags & s->cfg.wf_fork)) {
		struct sr_task_view kv;

		sr_st_kernel_view(p, &kv);

		count_err(s->probes.load_err, (double)kv.load_avg, (double)ev->load_avg);
		if (ev->util_avg != UINT64_MAX)
			count_err(s->probes.util_err, (double)kv.util_avg, (double)ev->util_avg);
	}
	/* select_task_rq_fair() runs record_wakee() for every ttwu it sees */
	if (!(ev->wake_flags & s->cfg.wf_fork) && (ev->wake_flags & s->cfg.wf_ttwu)) {
		struct sr_task *waker = sr_st_waker(s, ev->common_pid, ev->cpu);

		if (waker && waker != p)
			sr_st_track_wakee(s, waker, p, ev->cpu);
	}
	probe_flips(s, p, ev);
	llc_hints_seen(s, p->v.cpu, ev);
	p->probe = (struct sr_probe_in){
		.valid = true, .wake_flags = ev->wake_flags, .ts = ev->ts,
		.load_avg = ev->load_avg, .util_avg = ev->util_avg,
		.prev_load = ev->cpu_load, .prev_util = ev->cpu_util, .ret_cpu = -1,
	};
	measure_cpu_load(s, p->v.cpu, ev->cpu_load);
	measure_cpu_util(s, p->v.cpu, ev->cpu_util);
	if (!s->cfg.probes_measure_only && ev->load_avg != UINT64_MAX && ev->util_avg != UINT64_MAX &&
	    !(ev->wake_flags & s->cfg.wf_fork))
		calibrate(s, p, ev->load_avg, ev->util_avg);
	return p;
}

/* srqf: with WF_EXEC, sched_exec() itself: its exec is replayed at this moment. */
static int on_select_exec(struct sr_state *s, struct sr_task *p, const struct sr_event *ev)
{
	if (!p || !(ev->wake_flags & s->cfg.wf_exec) || (ev->wake_flags & s->cfg.wf_ttwu) ||
	    s->cfg.probes_measure_only)
		return 0;
	return sr_st_exec_select(s, p, ev);
}

/* sr_st_kernel_view()'s load_avg: a sleeper's from its last dequeue. */
static unsigned long kernel_load(const struct sr_task *t)
{
	return sr_st_sleep_held(t) ? t->sleep_load : t->v.load_avg;
}

/*
 * task_h_load() in the root-group form, what models derive without a probe:
 * from the task's se.avg as the kernel holds it (a sleeper's last dequeue),
 * scaled by the h_load cached this jiffy.
 */
static double h_load_root(const struct sr_state *s, const struct sr_task *t)
{
	const struct sr_rq *rq = sr_st_cpu_ok(s, t->v.cpu) ? &s->rq[t->v.cpu] : NULL;
	double l = rq ? (double)rq->load_avg : 0;
	double h = rq && rq->h_load_cached ? (double)rq->h_load : l;

	return (double)kernel_load(t) * h / (l + 1.0);
}

/*
 * The same for a task in a group, as the models derive it (one level):
 * the root's h_load scaled by the group entity's share of the root, then
 * by the task's of its group's cfs_rq.
 */
static double h_load_group(const struct sr_state *s, const struct sr_task *t)
{
	const struct sr_rq *rq = &s->rq[t->v.cpu];
	const struct sr_tg_cpu *q = &t->grp->cpu[t->v.cpu];
	double h = (double)rq->load_avg * (double)q->se_load_avg / ((double)rq->load_avg + 1.0);

	return (double)kernel_load(t) * h / ((double)q->load_avg + 1.0);
}

/* thl_ret: the task_h_load() value of the thl just before on this CPU. */
static void on_hload_ret(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_cpu_state *c = &s->cpu[ev->cpu];
	struct sr_task *t = c->thl_pid > 0 ? sr_state_task(s, c->thl_pid) : NULL;

	c->thl_pid = -1;
	/* only those inside select_task_rq_fair() belong to a placement */
	if (!t || c->sel_pid < 0 || ev->h_load == UINT64_MAX)
		return;
	s->probes.hloads++;
	sr_st_cpu_advance_all(s);
	if (s->nr_groups)
		sr_st_groups_fill(s);	/* the root's load with the group entities' */
	if (t->grp && sr_st_cpu_ok(s, t->v.cpu))
		count_err(s->probes.hload_err, h_load_group(s, t), (double)ev->h_load);
	else
		count_err(s->probes.hload_err, h_load_root(s, t), (double)ev->h_load);
	if (!s->cfg.probes_measure_only) {
		t->v.h_load = (unsigned long)ev->h_load;
		t->v.h_load_known = true;
	}
}

/* srqf_ret: the kernel's answer; a deferred ttwu placement replays now. */
static int on_select_ret(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_cpu_state *c = &s->cpu[ev->cpu];
	struct sr_task *p = c->sel_pid > 0 ? sr_state_task(s, c->sel_pid) : NULL;
	int ret;

	c->sel_pid = -1;
	c->thl_pid = -1;
	if (!p) {
		c->probe_load = UINT64_MAX;
		return 0;
	}
	if (p->probe.valid)
		p->probe.ret_cpu = ev->target_cpu;
	if (p->exec.valid && p->exec.probed && p->exec.kernel_cpu < 0 && p->exec.from == ev->cpu)
		return sr_st_exec_select_ret(s, p, ev);
	if (p->pending && p->pend_deferred) {
		s->probes.at_select++;
		ret = sr_st_place_deferred(s, p);
		if (ret)
			return ret;
	}
	sr_st_follow_early(s, p, ev->target_cpu);
	return 0;
}

/* The kernel's WF_SYNC for @p's placement, when a probe recorded it. */
enum sr_tristate sr_st_probe_sync(const struct sr_state *s, const struct sr_task *p)
{
	if (!p->probe.valid || (p->probe.wake_flags & s->cfg.wf_fork))
		return SR_UNKNOWN;
	return (p->probe.wake_flags & s->cfg.wf_sync) ? SR_YES : SR_NO;
}

/* After a placement: what the probes said held for that one call only. */
void sr_st_probe_done(struct sr_task *p, struct sr_task *waker)
{
	p->v.h_load_known = false;
	if (waker)
		waker->v.h_load_known = false;
}

/*
 * The wakeup completed: its WF_SYNC guess is scored against the flag, the
 * kernel's answer against the CPU it landed on.
 */
void sr_st_probe_check(struct sr_state *s, struct sr_task *p, int cpu)
{
	enum sr_tristate truth = sr_st_probe_sync(s, p);

	if (truth != SR_UNKNOWN && p->pend_cls == SR_W_PLACED && p->pend_guess != SR_UNKNOWN)
		s->probes.sync[p->pend_guess == SR_YES][truth == SR_YES]++;
	if (p->probe.valid && p->probe.ret_cpu >= 0 && p->probe.ret_cpu != cpu)
		s->probes.ret_moved++;
	p->probe.valid = false;
}

int sr_st_on_probe(struct sr_state *s, const struct sr_event *ev)
{
	switch (ev->type) {
	case SR_EV_SELECT:
		return on_select_exec(s, on_select(s, ev), ev);
	case SR_EV_SELECT_RET:
		return on_select_ret(s, ev);
	case SR_EV_HLOAD:
		on_hload(s, ev);
		return 0;
	case SR_EV_HLOAD_RET:
		on_hload_ret(s, ev);
		return 0;
	case SR_EV_RQS:
		on_rqs(s, ev);
		return 0;
	case SR_EV_IDLEST_GROUP: {
		struct sr_task *p = sr_state_task(s, ev->pid);

		return p ? sr_st_exec_probe_point(s, p, ev) : 0;
	}
	default:
		return 0;
	}
}
