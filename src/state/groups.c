// SPDX-License-Identifier: GPL-2.0
/*
 * Task groups (CONFIG_FAIR_GROUP_SCHED): a cgroup with the cpu controller
 * or an autogroup holds its tasks in a cfs_rq of its own on every CPU, and
 * appears in the root cfs_rq as one group entity whose weight is the
 * group's shares split by where its load is (calc_group_shares(), 4.15+).
 * What placement reads changes with it: cpu_load() is the root cfs_rq's
 * load_avg (root tasks plus group entities), task_h_load() scales a task's
 * load by its group's share of the root.
 *
 * Membership comes from the trace: cgroup:cgroup_attach_task, the
 * sched_autogroup_create_attach() probe, and fork inheritance; or, for a
 * trace recorded without cgroup events, from the user (--cgroup-member
 * PID=ID: the task, from its fork or first appearance, and what it forks).
 * A task first seen otherwise is taken to be in the root group, not known
 * to be.
 */
#include <errno.h>
#include <stdlib.h>
#include "state-priv.h"

#define SR_MIN_SHARES_PELT	2UL	/* MIN_SHARES */
#define SR_ROOT_CGROUP_ID	1	/* cgroup v2: the root's kernfs id */
#define SR_CGROUP_WEIGHT_DFL	100	/* CGROUP_WEIGHT_DFL */

static void group_free(struct sr_group *g)
{
	if (!g)
		return;
	free(g->cpu);
	free(g->load);
	free(g->run);
	free(g->weight);
	free(g->ts);
	free(g->chg);
	free(g->se_w);
	free(g->se_w_ts);
	free(g);
}

static struct sr_group *group_new(struct sr_state *s, int64_t key)
{
	struct sr_group *g = calloc(1, sizeof(*g));
	int n = s->cfg.nr_cpus;

	if (!g)
		return NULL;
	g->key = key;
	g->cpu = calloc(n, sizeof(*g->cpu));
	g->load = calloc(n, sizeof(*g->load));
	g->run = calloc(n, sizeof(*g->run));
	g->weight = calloc(n, sizeof(*g->weight));
	g->ts = calloc(n, sizeof(*g->ts));
	g->chg = calloc(n, sizeof(*g->chg));
	g->se_w = calloc(n, sizeof(*g->se_w));
	g->se_w_ts = calloc(n, sizeof(*g->se_w_ts));
	if (!g->cpu || !g->load || !g->run || !g->weight || !g->ts || !g->chg || !g->se_w ||
	    !g->se_w_ts) {
		group_free(g);
		return NULL;
	}
	g->tg.shares = SR_NICE_0_LOAD;
	g->tg.nr_cpus = n;
	g->tg.cpu = g->cpu;
	return g;
}

void sr_st_groups_free(struct sr_state *s)
{
	for (int i = 0; i < s->nr_groups; i++)
		group_free(s->groups[i]);
	free(s->groups);
	s->groups = NULL;
	s->nr_groups = 0;
}

/* The group of @key, created on first use; NULL when there is no room or memory. */
static struct sr_group *group_get(struct sr_state *s, int64_t key)
{
	struct sr_group **grown, *g;

	for (int i = 0; i < s->nr_groups; i++)
		if (s->groups[i]->key == key)
			return s->groups[i];
	if (s->nr_groups >= SR_MAX_GROUPS) {
		s->groups_dropped++;
		return NULL;
	}
	grown = realloc(s->groups, (s->nr_groups + 1) * sizeof(*s->groups));
	if (!grown)
		return NULL;
	s->groups = grown;
	g = group_new(s, key);
	if (!g)
		return NULL;
	for (int i = 0; i < s->cfg.nr_cgroup_weights; i++) {
		const struct sr_cgroup_weight *w = &s->cfg.cgroup_weights[i];

		if (w->id == key) {
			/* sched_weight_from_cgroup(): weight 100 is nice 0 */
			g->tg.shares = (unsigned long)w->weight * SR_NICE_0_LOAD / SR_CGROUP_WEIGHT_DFL;
			g->shares_known = true;
		}
	}
	s->groups[s->nr_groups++] = g;
	return g;
}

/* Decay the group's cfs_rq averages on @cpu up to now under what is queued there. */
static void group_advance(struct sr_state *s, struct sr_group *g, int cpu)
{
	uint64_t now = s->now;
	double d;

	if (g->ts[cpu] && now > g->ts[cpu]) {
		d = sr_pelt_decay(now - g->ts[cpu]);
		g->load[cpu] = g->load[cpu] * d + (double)g->weight[cpu] * (1.0 - d);
		g->run[cpu] = g->run[cpu] * d + (g->weight[cpu] ? 1.0 : 0.0) * (1.0 - d);
	}
	if (!g->ts[cpu] || now > g->ts[cpu])
		g->ts[cpu] = now;
}

static void group_reweight(struct sr_state *s, struct sr_group *g, int cpu);

/*
 * Each enqueue and dequeue of a group's task reweights the group's entity
 * on that CPU (group_reweight()), O(CPUs) for tg->load_avg: the weight
 * holds until the next, or a tick of the group's running task.
 */
void sr_st_group_account(struct sr_state *s, struct sr_task *t, int cpu, int sign)
{
	struct sr_group *g = t->grp;
	bool empties = sign < 0 && g->weight[cpu] <= t->v.weight;

	group_advance(s, g, cpu);
	g->chg[cpu] = s->now;
	if (empties && s->cfg.delayed_dequeue)
		group_reweight(s, g, cpu);	/* the last while queued: kept, 66951e4860d3 */
	if (sign > 0)
		g->weight[cpu] += t->v.weight;
	else
		g->weight[cpu] -= g->weight[cpu] >= t->v.weight ? t->v.weight : g->weight[cpu];
	if (!empties || !s->cfg.delayed_dequeue)
		group_reweight(s, g, cpu);	/* this enqueue's or dequeue's own */
}

/*
 * A task's load attached to or detached from the group's cfs_rq on @cpu
 * reaches the group entity: attach_entity_load_avg() / detach_entity_load_avg()
 * (or a removed load, update_cfs_rq_load_avg()) pass the task's load_sum on
 * (add_tg_cfs_propagate()), and update_tg_cfs_load() sets the entity's
 * runnable sum from it (0e2d2aaaae52 "sched/fair: Rewrite PELT migration
 * propagation", 4.15; the same in 6.1 and 6.12).  An attach adds it,
 * clipped at the PELT divider: the group is taken to have been runnable
 * there as long as the task was (a new task's load_sum is the whole
 * divider).  A detach estimates the rest by "all tasks equally runnable":
 * the cfs_rq's load_sum per queued weight, never above the entity's own —
 * and, with nothing queued, 0: the entity keeps only its running sum, the
 * group's util there (update_tg_cfs_util() ran first), which the state
 * does not follow; its bound, the group's blocked load per NICE_0_LOAD
 * (a nice-0 task's util is at most its load), stands for it.
 * Measured by the rqs probes (--probes-measure-only) on
 * srrec_cgroup-own.dat, root load_avg of busy CPUs within 20 %: the attach,
 * 61.0 -> 64.7 % (6.12), 56.1 -> 59.1 % (6.1); the detach, with the blocked
 * entity's weight kept (group_reweight()), see there.
 */
static void group_propagate(struct sr_group *g, int cpu, const struct sr_task *t, double delta)
{
	double frac, est;

	if (delta < 0) {
		est = g->load[cpu] / (double)(g->weight[cpu] ? g->weight[cpu] : SR_NICE_0_LOAD);
		if (est < g->run[cpu])
			g->run[cpu] = est;
		return;
	}
	if (!delta || !t->v.weight)
		return;
	frac = delta / (double)t->v.weight;
	g->run[cpu] = g->run[cpu] + frac < 1.0 ? g->run[cpu] + frac : 1.0;
}

void sr_st_group_load(struct sr_state *s, struct sr_task *t, int cpu, double delta)
{
	struct sr_group *g = t->grp;

	group_advance(s, g, cpu);
	g->load[cpu] = g->load[cpu] + delta > 0 ? g->load[cpu] + delta : 0;
	g->chg[cpu] = s->now;
	group_propagate(g, cpu, t, delta);
}

/*
 * Move @t to group @g (NULL: root): sched_move_task() dequeues it, moves
 * its load from one cfs_rq to the other and enqueues it again.  What moves
 * is its load as of now: the dequeue (dequeue_entity()) or, asleep,
 * detach_entity_cfs_rq() first brings se.avg up to date (update_load_avg(),
 * 6.1 and 6.12).  The state's may be stale: a task running since it was
 * first seen has had no update.
 */
static void set_group(struct sr_state *s, struct sr_task *t, struct sr_group *g, bool known)
{
	bool queued = sr_st_on_rq(t->state);
	int cpu = t->v.cpu;

	t->grp_known = known;
	if (t->grp == g)
		return;
	sr_st_task_pelt(s, t, s->now);
	if (queued)
		sr_st_rq_account(s, t, cpu, -1);
	sr_st_blocked_load(s, t, cpu, -1);
	t->grp = g;
	t->v.tg = g ? &g->tg : NULL;
	sr_st_blocked_load(s, t, cpu, +1);
	if (queued)
		sr_st_rq_account(s, t, cpu, +1);
}

/* cgroup_attach_task: the task joins cgroup @id (the root when it is the root's id). */
static void on_attach(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *t = sr_st_task_get(s, ev->pid);
	struct sr_group *g = NULL;

	if (!t)
		return;
	if (ev->cgroup_id != SR_ROOT_CGROUP_ID) {
		g = group_get(s, ev->cgroup_id);
		if (!g)
			return;		/* no room: the task stays where it was, unknown */
	}
	set_group(s, t, g, true);
}

/* --cgroup-member: @t, just forked or first seen, is in the cgroup the user gave for its pid. */
void sr_st_group_member(struct sr_state *s, struct sr_task *t)
{
	struct sr_group *g = NULL;

	for (int i = 0; i < s->cfg.nr_cgroup_members; i++) {
		const struct sr_cgroup_member *m = &s->cfg.cgroup_members[i];

		if (m->pid != t->v.pid)
			continue;
		if (m->id != SR_ROOT_CGROUP_ID) {
			g = group_get(s, m->id);
			if (!g)
				return;
		}
		set_group(s, t, g, true);
		return;
	}
}

/* sched_autogroup_create_attach(): setsid() puts the caller in a new autogroup (nice 0). */
static void on_autogroup(struct sr_state *s, const struct sr_event *ev)
{
	struct sr_task *t = sr_st_task_get(s, ev->pid);
	struct sr_group *g;

	if (!t)
		return;
	g = group_get(s, -(int64_t)ev->pid - SR_AUTOGROUP_KEY_BASE);
	if (!g)
		return;
	g->shares_known = true;
	set_group(s, t, g, true);
}

void sr_st_on_group_event(struct sr_state *s, const struct sr_event *ev)
{
	if (ev->type == SR_EV_CGROUP_ATTACH)
		on_attach(s, ev);
	else if (ev->type == SR_EV_AUTOGROUP)
		on_autogroup(s, ev);
}

/* fork: the child runs in its parent's cgroup and autogroup. */
void sr_st_group_inherit(struct sr_state *s, struct sr_task *child, const struct sr_task *parent)
{
	child->grp = NULL;
	child->v.tg = NULL;
	set_group(s, child, parent->grp, parent->grp_known || s->cfg.root_cgroup);
	sr_st_group_member(s, child);
}

/*
 * calc_group_shares() (4.15+): the group's shares split in proportion to
 * each CPU's cfs_rq load, this CPU's counted at max(load.weight, load_avg);
 * calc_cfs_shares() before (4.9 - 4.14) counted its queued weight alone.
 */
static unsigned long group_shares(const struct sr_group *g, int cpu, double tg_load,
				  bool by_weight)
{
	double load = by_weight || (double)g->weight[cpu] > g->load[cpu] ? (double)g->weight[cpu]
									   : g->load[cpu];
	double tg_weight = tg_load - g->load[cpu] + load;
	double shares = tg_weight > 0 ? (double)g->tg.shares * load / tg_weight
				      : (double)g->tg.shares;

	if (shares < (double)SR_MIN_SHARES_PELT)
		return SR_MIN_SHARES_PELT;
	return shares > (double)g->tg.shares ? g->tg.shares : (unsigned long)shares;
}

/*
 * @v, an average of the group's on @cpu that has moved toward @target since
 * the CPU's cfs_rq was last brought up to date (sr_st_cpu_k_time()), as it
 * was then: the kernel's root cfs_rq and group entity hold it until their
 * next update, and so does the CPU's contribution to tg->load_avg
 * (update_tg_load_avg() runs at the cfs_rq's updates only).  Only while
 * the group's queue there has not changed since (an enqueue, a dequeue or
 * an attach updated them).  Against the rqs reads on srrec_cgroup-own.dat
 * (--probes-measure-only), root load_avg within 20 %: busy CPUs 64.7 ->
 * 65.7 % (6.12), 59.1 -> 62.2 % (6.1), idle 60.6 -> 62.8, 62.0 -> 62.7 %.
 */
static double at_k_time(struct sr_state *s, const struct sr_group *g, int cpu, double v,
			double target)
{
	uint64_t kt = sr_st_cpu_k_time(s, cpu);
	double d, was;

	if (kt >= s->now || kt < g->chg[cpu])
		return v;
	d = sr_pelt_decay(s->now - kt);
	was = (v - target * (1.0 - d)) / d;	/* v = was * d + target * (1 - d) */
	return was > 0 ? was : 0;
}

/* The cfs_rq's tg_load_avg_contrib: its load_avg at its last update. */
static double group_contrib(struct sr_state *s, const struct sr_group *g, int cpu)
{
	return at_k_time(s, g, cpu, g->load[cpu], (double)g->weight[cpu]);
}

/* tg->load_avg: the sum of the CPUs' contributions, each as of its last update. */
static double group_tg_load(struct sr_state *s, struct sr_group *g)
{
	double tg_load = 0;

	for (int c = 0; c < s->cfg.nr_cpus; c++) {
		group_advance(s, g, c);
		tg_load += group_contrib(s, g, c);
	}
	return tg_load;
}

/*
 * The group entity on @cpu: its weight, calc_group_shares() with this
 * cfs_rq's own load current and the others' contributions; its load_avg,
 * that weight times the share of time the group was runnable there, as of
 * the root cfs_rq's last update.
 */
static unsigned long group_se_shares(struct sr_state *s, const struct sr_group *g, int cpu,
				     double tg_load)
{
	return group_shares(g, cpu, tg_load - group_contrib(s, g, cpu) + g->load[cpu],
			    s->cfg.shares_by_weight);
}

/*
 * update_cfs_group() (since 4.15; 6.1, 6.12): the kernel sets a group
 * entity's weight to calc_group_shares() only when it updates the entity
 * with its group — at each enqueue and dequeue of one of the group's tasks
 * on that CPU (enqueue_entity() / dequeue_entity(), or the parents' loop
 * of enqueue_task_fair() / dequeue_task_fair()) and at the tick of the
 * running one (entity_tick()).  Blocked (its group's cfs_rq empty), the
 * entity keeps the weight of its last reweight, and its load_avg decays at
 * it (reweight_entity() rescales load_avg to the new weight, 1ea6c46a23f1
 * "sched/fair: Propagate an effective runnable_load_avg", 4.15; nothing
 * after).  Which is the last: up to 6.12.y's backport of 66951e4860d3
 * ("sched/fair: Fix update_cfs_group() vs DELAY_DEQUEUE", v6.14; fixes
 * 152e11f6df29, the DELAY_DEQUEUE of 6.12) the dequeue that empties the
 * cfs_rq reweights it once more, by that cfs_rq's load_avg alone; with it
 * update_cfs_group() returns on an empty cfs_rq and the weight is the one
 * of the update before (the last enqueue, dequeue or tick), taken here as
 * the shares with the leaving task still queued.  The state takes the
 * kernels with DELAY_DEQUEUE to have it (6.12.117 of the fixtures does:
 * against the probes below, idle CPUs 65.0 -> 73.4 %).
 * A queued entity's weight: group_se_weight().
 * Against the rqs reads on srrec_cgroup-own.dat (--probes-measure-only),
 * root load_avg within 20 % — busy / idle CPUs, task_h_load(), this with
 * the detach's estimate of group_propagate(); either alone did worse:
 * 6.1  62.2 / 63.5 -> 64.3 / 67.9 %, 70.1 -> 69.0 %;
 * 6.12 65.7 / 63.1 -> 68.0 / 73.4 %, 71.8 -> 72.2 %.
 */
static void group_reweight(struct sr_state *s, struct sr_group *g, int cpu)
{
	g->se_w[cpu] = group_se_shares(s, g, cpu, group_tg_load(s, g));
	g->se_w_ts[cpu] = s->now;
}

/*
 * Has a tick reweighted @g's entity on @cpu since its last enqueue or
 * dequeue?  entity_tick() runs update_cfs_group() for the running task's
 * entities only, so only while one of @g's tasks runs there; a busy CPU's
 * tick may come as late as tick_late_ns (sr_st_ipi_delivered()).
 */
static bool group_ticked(struct sr_state *s, const struct sr_group *g, int cpu)
{
	int pid = s->rq[cpu].curr_pid;
	const struct sr_task *cur = pid > 0 ? sr_state_task(s, pid) : NULL;

	return cur && cur->grp == g && s->now - g->se_w_ts[cpu] >= s->tick_late_ns;
}

/*
 * The group entity's weight now: of its last reweight, unless a tick has
 * reweighted it since (then the current).  Read as now, queued entities'
 * weights had root load_avg of busy CPUs within 5 % / 20 % of the rqs
 * reads on srrec_cgroup-own.dat (--probes-measure-only) on 27.2 / 64.5 %
 * (6.1) and 33.6 / 68.1 % (6.12); held so, 30.8 / 67.1 % and 34.3 / 68.6 %.
 * make fidelity: +155 placed wakeups on 6.1, +48 on 6.12, all on the
 * cgroup and autogroup traces (+7 .. +41 each on 6.1's).
 */
static unsigned long group_se_weight(struct sr_state *s, const struct sr_group *g, int cpu,
				     double tg_load)
{
	if (g->se_w[cpu] && (!g->weight[cpu] || !group_ticked(s, g, cpu)))
		return g->se_w[cpu];
	return group_se_shares(s, g, cpu, tg_load);
}

static unsigned long group_se_load(struct sr_state *s, const struct sr_group *g, int cpu,
				   unsigned long shares)
{
	double run = at_k_time(s, g, cpu, g->run[cpu], g->weight[cpu] ? 1.0 : 0.0);

	return (unsigned long)((double)shares * (run < 1.0 ? run : 1.0) + 0.5);
}

/*
 * At a placement: each group's per-CPU view, and every CPU's root cfs_rq
 * load as the sum of its root tasks' loads and its group entities' loads
 * (a group entity's load_avg is its weight times the fraction of time the
 * group had something queued there, update_tg_cfs_load()).  The group's
 * cfs_rq load_avg, which task_h_load() divides by (cfs_rq_load_avg()), is
 * the one of its last update, as its tg_load_avg_contrib: against the thl
 * reads on srrec_cgroup-own.dat (--probes-measure-only), task_h_load()
 * within 5 % / 20 % on 36.6 / 67.3 -> 38.9 / 69.4 % (6.1), 36.5 / 69.8 ->
 * 38.3 / 71.8 % (6.12); make fidelity +0 / +3 placed wakeups on 6.1 /
 * 6.12, +24 / +27 of those placed off prev.
 */
void sr_st_groups_fill(struct sr_state *s)
{
	for (int c = 0; c < s->cfg.nr_cpus; c++)
		s->rq[c].group_load_avg = 0;
	for (int i = 0; i < s->nr_groups; i++) {
		struct sr_group *g = s->groups[i];
		double tg_load = group_tg_load(s, g);

		g->tg.load_weight = (int)(tg_load + 0.5);
		for (int c = 0; c < s->cfg.nr_cpus; c++) {
			struct sr_tg_cpu *q = &g->cpu[c];
			unsigned long shares = group_se_weight(s, g, c, tg_load);

			*q = (struct sr_tg_cpu){
				.load_weight = g->weight[c], .rq_weight = g->weight[c],
				.shares = shares, .se_weight = shares,
				.load_avg = (unsigned long)(group_contrib(s, g, c) + 0.5),
				.load_contribution = (unsigned long)(g->load[c] + 0.5),
				.se_load_avg = group_se_load(s, g, c, shares),
			};
			s->rq[c].load_avg += q->se_load_avg;
			s->rq[c].group_load_avg += q->se_load_avg;
		}
	}
}

/*
 * What @cpu's group entities add to its root cfs_rq's load_avg now, as
 * sr_st_groups_fill() adds it: for a read of that one CPU's (an h_load).
 */
unsigned long sr_st_groups_se_load(struct sr_state *s, int cpu)
{
	unsigned long sum = 0;

	for (int i = 0; i < s->nr_groups; i++) {
		struct sr_group *g = s->groups[i];

		sum += group_se_load(s, g, cpu, group_se_weight(s, g, cpu, group_tg_load(s, g)));
	}
	return sum;
}

/* Are @t's group and that group's shares known, or assumed? */
bool sr_st_group_known(const struct sr_state *s, const struct sr_task *t)
{
	if (s->cfg.root_cgroup)
		return true;
	return t->grp_known && (!t->grp || t->grp->shares_known);
}

int sr_state_groups_shares_known(const struct sr_state *s)
{
	int n = 0;

	for (int i = 0; i < s->nr_groups; i++)
		n += s->groups[i]->shares_known;
	return n;
}
