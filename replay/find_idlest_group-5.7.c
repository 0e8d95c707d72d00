// SPDX-License-Identifier: GPL-2.0
/*
 * find_idlest_group() (sched_balance_find_dst_group() from 6.12), Linux 5.7 -
 * 6.18 (kernel/sched/fair.c): update_sg_wakeup_stats(), update_pick_idlest(),
 * group_classify(), and the NUMA has_spare rules:
 *   5.7 - 5.10  stay local while the local node has an idle CPU
 *   5.11 - 5.17 allow_numa_imbalance(): local.nr_running < span_weight / 4
 *   5.18 - 5.19 local.nr_running + 1 <= sd->imb_numa_nr
 *   6.0 - 6.18  adjust_numa_imbalance(|idle difference|, local.nr + 1,
 *               imb_numa_nr capped by the task's CPUs in the local group)
 * sd->imb_numa_nr as topology.c computes it (5.18: 25%, 6.0+: 12.5%, min 1).
 * From 6.19 update_sg_wakeup_stats() sums only the CPUs the task may run on,
 * capacity and weight still the whole group's (commit 82d6e01a0699 "sched/fair:
 * Only update stats for allowed CPUs when looking for dst group"; in 6.12.y
 * stable too, e.g. Debian's 6.12.117, which the 6.12 preset cannot tell from
 * 6.12.0: the release's sublevel is not kept).
 * group_runnable sums cpu_runnable_without(): the root cfs_rq's runnable_avg
 * (9f68395333ad "sched/pelt: Add a new runnable average signal", compared
 * by 070f5e860ee2 "sched/fair: Take into account runnable_avg to classify
 * group", both 5.7), less the task's own se.avg.runnable_avg where it is
 * attached (task_cpu(p), not at fork: last_update_time 0).
 * Assumed: group imbalance flags clear, no core-scheduling cookies.
 */
#include <limits.h>
#include <stdlib.h>
#include "find_idlest.h"

/* ---- sd->imb_numa_nr ---- */

static int llc_level(const struct sr_cpu_topo *c)
{
	int l = -1;

	for (int i = 0; i < c->nr_levels && (c->sd[i].flags & SD_SHARE_PKG_RESOURCES); i++)
		l = i;
	return l;
}

unsigned int sr_imb_numa_nr(const struct sr_topo *t, int cpu, int level, unsigned int kver)
{
	const struct sr_cpu_topo *c;
	unsigned int llc_w, above_w, imb, imb_span, nr_llcs;
	int llc, above, numa = -1;

	if (!t || cpu < 0 || cpu >= t->nr_cpus || kver < SR_KV(5, 18))
		return 0;
	c = &t->cpu[cpu];
	llc = llc_level(c);
	if (level < 0 || level >= c->nr_levels || llc < 0 || level <= llc)
		return 0;
	llc_w = c->sd[llc].span_weight;
	/*
	 * The level just above the LLC.  topology.c computes this before
	 * degenerate domains go, so a package no wider than the LLC (removed
	 * from our hierarchy) still counts, with nr_llcs == 1.
	 */
	above = llc + 1;
	above_w = (c->sd[above].flags & SD_NUMA) ? llc_w : c->sd[above].span_weight;
	nr_llcs = above_w / llc_w;
	imb = nr_llcs == 1 ? above_w >> (kver >= SR_KV(6, 0) ? 3 : 2) : nr_llcs;
	if (kver >= SR_KV(6, 0) && imb < 1)
		imb = 1;
	if (level == above && !(c->sd[above].flags & SD_NUMA))
		return imb;
	for (int i = above; i < c->nr_levels && numa < 0; i++)
		if (c->sd[i].flags & SD_NUMA)
			numa = i;
	imb_span = numa >= 0 ? c->sd[numa].span_weight : above_w;
	return imb * (c->sd[level].span_weight / imb_span > 1 ? c->sd[level].span_weight / imb_span
							       : 1);
}

/* ---- group statistics ---- */

struct fig_stats {
	unsigned long avg_load, group_load, group_util, group_runnable, group_capacity, max_cap,
		      fit_cap;
	unsigned int sum_nr_running, idle_cpus, group_weight;
	enum sr_group_type type;
	int first;
	struct sr_cpumask span;
};


static bool group_is_overloaded(unsigned int pct, const struct sr_lb_group *g)
{
	if (g->sum_nr_running <= g->group_weight)
		return false;
	if (g->group_capacity * 100 < g->group_util * pct)
		return true;
	return g->group_capacity * pct < g->group_runnable * 100;
}

static bool group_has_capacity(unsigned int pct, const struct sr_lb_group *g)
{
	if (g->sum_nr_running < g->group_weight)
		return true;
	if (g->group_capacity * pct < g->group_runnable * 100)
		return false;
	return g->group_capacity * 100 > g->group_util * pct;
}

enum sr_group_type sr_group_classify(unsigned int imbalance_pct, const struct sr_lb_group *g)
{
	if (group_is_overloaded(imbalance_pct, g))
		return SR_GROUP_OVERLOADED;
	if (!group_has_capacity(imbalance_pct, g))
		return SR_GROUP_FULLY_BUSY;
	return SR_GROUP_HAS_SPARE;
}

static void lsub_positive(unsigned long *v, unsigned long sub)
{
	*v -= *v < sub ? *v : sub;
}

/* A task has no PELT contribution at fork (last_update_time == 0). */
static bool task_on(const struct fic *f, int cpu)
{
	return f->ctx->kind != SR_WAKE_FORK && cpu == f->ctx->p->cpu;
}

/* @delayed: count the sleepers that may still be queued (6.12+ DELAY_DEQUEUE) */
static void cpu_stats(const struct fic *f, int i, bool delayed, struct fig_stats *g)
{
	const struct sr_rq *rq = &f->ctx->rq[i];
	const struct sr_task_view *p = f->ctx->p;
	unsigned long load = rq->load_avg, util = rq->util_avg, run = rq->runnable_avg;
	unsigned long est = rq->util_est;
	unsigned long cap = rq->capacity ? rq->capacity : SR_CAPACITY_SCALE;
	unsigned int local = 0, nr;

	g->group_capacity += cap;
	g->group_weight++;
	if (cap > g->max_cap)		/* sgc->max_capacity */
		g->max_cap = cap;
	/* 6.19+: for_each_cpu_and(i, sched_group_span(group), p->cpus_ptr) */
	if (f->kver >= SR_KV(6, 19) && f->ctx->allowed && !sr_mask_test(f->ctx->allowed, i))
		return;
	if (task_on(f, i)) {
		lsub_positive(&load, sr_task_h_load_ctx(f->ctx, p, i));	/* cpu_load_without() */
		lsub_positive(&util, p->util_avg);
		lsub_positive(&run, p->runnable_avg);	/* cpu_runnable_without() */
		lsub_positive(&est, p->util_est);	/* non-zero only while it is queued */
		local = f->ctx->kind == SR_WAKE_EXEC;	/* task_running_on_cpu(): queued */
	}
	/* cpu_util_without(): UTIL_EST (4.17+) takes the larger of the two */
	if (est > util)
		util = est;
	g->group_load += load;
	g->group_util += util < SR_CAPACITY_SCALE ? util : SR_CAPACITY_SCALE;
	g->group_runnable += run;
	nr = rq->nr_running - local + (delayed ? rq->maybe_delayed : 0);
	g->sum_nr_running += nr;
	/* idle_cpu_without() */
	if (!nr && (rq->curr_pid == 0 || rq->curr_pid == p->pid) && !rq->ttwu_pending &&
	    !rq->idle_unrecorded && !rq->silent_busy)
		g->idle_cpus++;
	if (cap > g->fit_cap)		/* task_fits_cpu() is asked of these only */
		g->fit_cap = cap;
}

static void update_sg_wakeup_stats(struct fic *f, const struct sr_domain *sd,
				   const struct sr_cpumask *span, bool delayed, struct fig_stats *g)
{
	struct sr_lb_group lb;
	int i;

	memset(g, 0, sizeof(*g));
	g->span = *span;
	g->first = sr_mask_first(span);
	sr_for_each_cpu(i, span)
		cpu_stats(f, i, delayed, g);
	lb = (struct sr_lb_group){ .sum_nr_running = g->sum_nr_running,
				   .group_weight = g->group_weight,
				   .group_capacity = g->group_capacity,
				   .group_util = g->group_util,
				   .group_runnable = g->group_runnable };
	g->type = sr_group_classify(sd->imbalance_pct, &lb);
	if (g->sum_nr_running >= g->group_weight) {
		/* util/runnable against capacity decided the type */
		pelt_cmp(f, g->group_capacity * sd->imbalance_pct, g->group_runnable * 100);
		pelt_cmp(f, g->group_capacity * 100, g->group_util * sd->imbalance_pct);
	}
	/* Misfit sits between the overloaded test and the capacity test. */
	if (g->type != SR_GROUP_OVERLOADED && (sd->flags & SD_ASYM_CPUCAPACITY) &&
	    f->ctx->p->util_avg * 1280 >= g->fit_cap * 1024)
		g->type = SR_GROUP_MISFIT_TASK;
	if (g->type == SR_GROUP_FULLY_BUSY || g->type == SR_GROUP_OVERLOADED)
		g->avg_load = g->group_load * SR_CAPACITY_SCALE / g->group_capacity;
}

static bool update_pick_idlest(struct fic *f, const struct fig_stats *idlest,
			       const struct fig_stats *g)
{
	if (g->type != idlest->type)
		return g->type < idlest->type;
	switch (g->type) {
	case SR_GROUP_OVERLOADED:
	case SR_GROUP_FULLY_BUSY:
		pelt_cmp(f, idlest->avg_load, g->avg_load);
		return idlest->avg_load > g->avg_load;
	case SR_GROUP_MISFIT_TASK:
		return idlest->max_cap < g->max_cap;
	case SR_GROUP_HAS_SPARE:
		if (idlest->idle_cpus != g->idle_cpus)
			return idlest->idle_cpus < g->idle_cpus;
		pelt_cmp(f, idlest->group_util, g->group_util);
		return idlest->group_util > g->group_util;
	default:
		return false;		/* imbalanced/asym_packing: not used here */
	}
}

/* The span of the group of @cpu at @level: the child domain's span, or the CPU. */
static void group_span(const struct sr_topo *t, int cpu, int level, struct sr_cpumask *m)
{
	if (level > 0 && level - 1 < t->cpu[cpu].nr_levels) {
		sr_mask_copy(m, &t->cpu[cpu].sd[level - 1].span);
		return;
	}
	sr_mask_clear(m);
	sr_mask_set(m, cpu);
}

/* ---- the NUMA has_spare rules ---- */

/* adjust_numa_imbalance() 5.18+ (allow_numa_imbalance() folded in from 6.0). */
static int adjust_numa_imbalance(int imbalance, int dst_running, int imb_numa_nr)
{
	if (dst_running > imb_numa_nr)
		return imbalance;
	if (imbalance <= 2)		/* NUMA_IMBALANCE_MIN */
		return 0;
	return imbalance;
}

static int allowed_weight(const struct fic *f, const struct sr_cpumask *m)
{
	int c, n = 0;

	sr_for_each_cpu(c, m)
		n += !f->ctx->allowed || sr_mask_test(f->ctx->allowed, c);
	return n;
}

/* true: keep the task on the local node ("return NULL"). */
static bool numa_keep_local(struct fic *f, const struct sr_domain *sd, int cpu, int level,
			    const struct fig_stats *local, const struct fig_stats *idlest)
{
	unsigned int kv = f->kver, inr = sr_imb_numa_nr(f->t, cpu, level, kv);
	int imb = 0, cap = (int)inr, adj = -1;
	const char *rule;
	struct sr_step *st;
	bool keep;

	if (kv < SR_KV(5, 11)) {
		rule = "local_sgs.idle_cpus";
		keep = local->idle_cpus;
	} else if (kv < SR_KV(5, 18)) {
		rule = "allow_numa_imbalance(): local.sum_nr_running < (sd->span_weight >> 2)";
		keep = local->sum_nr_running < (sd->span_weight >> 2);
	} else if (kv < SR_KV(6, 0)) {
		rule = "allow_numa_imbalance(): local.sum_nr_running + 1 <= sd->imb_numa_nr";
		keep = (int)local->sum_nr_running + 1 <= (int)inr;
	} else {
		/* p->nr_cpus_allowed != NR_CPUS holds on any machine smaller than NR_CPUS. */
		int w = allowed_weight(f, &local->span);

		cap = w < (int)inr ? w : (int)inr;
		imb = abs((int)(local->idle_cpus - idlest->idle_cpus));
		adj = adjust_numa_imbalance(imb, (int)local->sum_nr_running + 1, cap);
		rule = "!adjust_numa_imbalance(|local.idle_cpus - idlest.idle_cpus|, "
		       "local.sum_nr_running + 1, min(|local & cpus_ptr|, sd->imb_numa_nr))";
		keep = !adj;
	}
	st = sr_trail_add(f->trail, "find_idlest_group", rule,
			      keep ? "stay local (NUMA imbalance allowed)" : "not allowed", cpu);
	sr_step_val(st, "local_nr_running", local->sum_nr_running);
	sr_step_val(st, "local_idle_cpus", local->idle_cpus);
	sr_step_val(st, "idlest_idle_cpus", idlest->idle_cpus);
	sr_step_val(st, "span_weight", sd->span_weight);
	sr_step_val(st, "imb_numa_nr", cap);
	sr_step_val(st, "imbalance", imb);
	sr_step_val(st, "adjusted", adj);
	return keep;
}

/* ---- find_idlest_group() ---- */

static void group_step_vals(struct sr_step *st, const struct fig_stats *local,
			    const struct fig_stats *idlest)
{
	/* Seven values: the step also carries the level (SR_STEP_MAXVALS is 8). */
	sr_step_val(st, "local_type", local ? (int64_t)local->type : -1);
	sr_step_val(st, "local_nr_running", local ? local->sum_nr_running : 0);
	sr_step_val(st, "local_idle_cpus", local ? local->idle_cpus : 0);
	sr_step_uval(st, "local_avg_load", local ? local->avg_load : 0);
	sr_step_val(st, "idlest_type", idlest ? (int64_t)idlest->type : -1);
	sr_step_val(st, "idlest_idle_cpus", idlest ? idlest->idle_cpus : 0);
	sr_step_uval(st, "idlest_avg_load", idlest ? idlest->avg_load : 0);
}

/* The verdict of comparing local with idlest: true to push to idlest. */
static bool push_busy(struct fic *f, const struct sr_domain *sd, const struct fig_stats *local,
		      const struct fig_stats *idlest, const char **why)
{
	unsigned long imbalance = SR_NICE_0_LOAD * (sd->imbalance_pct - 100) / 100;

	if (sd->flags & SD_NUMA)
		pelt_cmp(f, idlest->avg_load + imbalance, local->avg_load);
	if ((sd->flags & SD_NUMA) && idlest->avg_load + imbalance >= local->avg_load) {
		*why = "SD_NUMA: idlest.avg_load + imbalance >= local.avg_load";
		return false;
	}
	pelt_cmp(f, idlest->avg_load, local->avg_load + imbalance);
	if (idlest->avg_load >= local->avg_load + imbalance) {
		*why = "idlest.avg_load >= local.avg_load + imbalance";
		return false;
	}
	pelt_cmp(f, 100 * local->avg_load, sd->imbalance_pct * idlest->avg_load);
	if (100 * local->avg_load <= sd->imbalance_pct * idlest->avg_load) {
		*why = "100 * local.avg_load <= imbalance_pct * idlest.avg_load";
		return false;
	}
	*why = "local busier than idlest by more than imbalance_pct";
	return true;
}

static bool push_spare(struct fic *f, const struct sr_domain *sd, int cpu, int level,
		       const struct fig_stats *local, const struct fig_stats *idlest,
		       const char **why)
{
	if ((sd->flags & SD_NUMA) && numa_keep_local(f, sd, cpu, level, local, idlest)) {
		*why = "SD_NUMA: imbalance allowed";
		return false;
	}
	*why = "local.idle_cpus >= idlest.idle_cpus";
	return local->idle_cpus < idlest->idle_cpus;
}

/* Compare local with idlest as find_idlest_group() ends; true to push to idlest. */
static bool push_to_idlest(struct fic *f, const struct sr_domain *sd, int cpu, int level,
			   const struct fig_stats *local, const struct fig_stats *idlest,
			   const char **why)
{
	if (local->type != idlest->type) {
		*why = "local.group_type vs idlest.group_type";
		return local->type > idlest->type;
	}
	switch (local->type) {
	case SR_GROUP_OVERLOADED:
	case SR_GROUP_FULLY_BUSY:
		return push_busy(f, sd, local, idlest, why);
	case SR_GROUP_MISFIT_TASK:
		*why = "local.max_capacity >= idlest.max_capacity";
		return local->max_cap < idlest->max_cap;
	case SR_GROUP_HAS_SPARE:
		return push_spare(f, sd, cpu, level, local, idlest, why);
	default:
		*why = "group type unused by the slow path";
		return false;
	}
}

/* What-if worlds for delayed sleepers: none counted, the local group's, the others'. */
enum fig_world { FIG_SEEN, FIG_LOCAL_DELAYED, FIG_OTHERS_DELAYED };

struct fig_walk {
	struct fig_stats local, idlest, runner;	/* runner: the best the idlest beat */
	bool have_local, have_idlest, have_runner;
};

/* Keep the runner-up for the trail only: compared without marking PELT inputs. */
static void note_runner(const struct fic *f, struct fig_walk *w, const struct fig_stats *g)
{
	struct fic quiet = *f;

	if (!f->trail)
		return;
	quiet.trail = NULL;
	if (!w->have_runner || update_pick_idlest(&quiet, &w->runner, g)) {
		w->runner = *g;
		w->have_runner = true;
	}
}

/* The groups of @cpu's domain @level: local and the idlest of the others. */
static void walk_groups(struct fic *f, int cpu, int level, enum fig_world world,
			struct fig_walk *w)
{
	const struct sr_domain *sd = &f->t->cpu[cpu].sd[level];
	struct sr_cpumask covered, span;
	struct fig_stats g;
	int n = f->t->nr_cpus, i;

	sr_mask_clear(&covered);
	memset(w, 0, sizeof(*w));
	w->idlest.type = SR_GROUP_OVERLOADED;	/* idlest_sgs' initial value */
	w->idlest.avg_load = UINT_MAX;
	sr_for_each_cpu_wrap(i, &sd->span, cpu % n) {
		bool local;

		if (i >= n || sr_mask_test(&covered, i))
			continue;
		group_span(f->t, i, level, &span);
		sr_mask_or(&covered, &span);
		if (!intersects_allowed(f, &span))
			continue;
		local = sr_mask_test(&span, cpu);
		update_sg_wakeup_stats(f, sd, &span,
				       world == (local ? FIG_LOCAL_DELAYED : FIG_OTHERS_DELAYED), &g);
		if (local) {
			w->local = g;
			w->have_local = true;
		} else if (update_pick_idlest(f, &w->idlest, &g)) {
			if (w->have_idlest)
				note_runner(f, w, &w->idlest);
			w->idlest = g;
			w->have_idlest = true;
		} else {
			note_runner(f, w, &g);
		}
	}
}

/* find_idlest_group()'s verdict on a walk: true to push to its idlest group. */
static bool walk_verdict(struct fic *f, int cpu, int level, const struct fig_walk *w,
			 const char **why)
{
	if (!w->have_idlest)
		return false;
	if (!w->have_local) {
		*why = "local group not allowed";
		return true;
	}
	return push_to_idlest(f, &f->t->cpu[cpu].sd[level], cpu, level, &w->local, &w->idlest,
			      why);
}

static unsigned int nr_delayed(const struct fic *f, const struct sr_cpumask *span)
{
	unsigned int n = 0;
	int i;

	sr_for_each_cpu(i, span)
		n += f->ctx->rq[i].maybe_delayed;
	return n;
}

/*
 * 6.12+ (152e11f6df29, DELAY_DEQUEUE): update_sg_wakeup_stats() reads
 * rq->nr_running, which counts a sleeper still queued for its negative
 * lag; no event shows which ones are.  The verdict depends on them when
 * counting them in the local group, or in the others, changes it (more of
 * them only ever makes a group look busier).
 */
static bool delayed_changes(struct fic *f, int cpu, int level, bool push,
			    const struct fig_stats *idlest)
{
	struct fic quiet = *f;
	struct fig_walk w;
	const char *why;

	if (!(f->ctx->unknown & SR_DEP_DELAYED_DEQUEUE) || f->kver < SR_KV(6, 12) ||
	    !nr_delayed(f, &f->t->cpu[cpu].sd[level].span))
		return false;
	quiet.trail = NULL;
	for (enum fig_world x = FIG_LOCAL_DELAYED; x <= FIG_OTHERS_DELAYED; x++) {
		walk_groups(&quiet, cpu, level, x, &w);
		if (walk_verdict(&quiet, cpu, level, &w, &why) != push ||
		    (push && w.idlest.first != idlest->first))
			return true;
	}
	return false;
}

/*
 * Why the idlest group beat the best of the others (update_pick_idlest()):
 * the values it compared, for explain; on a tie of has_spare groups' idle
 * CPUs the lower group_util, which no other step shows.
 */
static void runner_step(struct fic *f, int level, const struct fig_walk *w)
{
	const struct fig_stats *a = &w->idlest, *b = &w->runner;
	const char *check, *name, *rname;
	uint64_t va, vb;
	struct sr_step *st;

	if (!f->trail || !w->have_idlest || !w->have_runner)
		return;
	if (a->type != b->type) {
		check = "lower group_type", name = "group_type", rname = "runner_up_group_type";
		va = a->type, vb = b->type;
	} else if (a->type == SR_GROUP_HAS_SPARE && a->idle_cpus != b->idle_cpus) {
		check = "more idle_cpus", name = "idle_cpus", rname = "runner_up_idle_cpus";
		va = a->idle_cpus, vb = b->idle_cpus;
	} else if (a->type == SR_GROUP_HAS_SPARE) {
		check = a->group_util < b->group_util ? "same idle_cpus: lower group_util" :
			"same idle_cpus and group_util: the first in the walk";
		name = "group_util";
		rname = "runner_up_group_util";
		va = a->group_util, vb = b->group_util;
	} else if (a->type == SR_GROUP_OVERLOADED || a->type == SR_GROUP_FULLY_BUSY) {
		check = "lower avg_load", name = "avg_load", rname = "runner_up_avg_load";
		va = a->avg_load, vb = b->avg_load;
	} else {
		return;
	}
	st = sr_trail_add(f->trail, "update_pick_idlest", check, "idlest group", a->first);
	sr_step_val(st, "level", level);
	sr_step_uval(st, name, va);
	sr_step_val(st, "runner_up", b->first);
	sr_step_uval(st, rname, vb);
}

/* find_idlest_group() at @cpu's domain @level; *out gets the idlest span when one wins. */
bool sr_fic_find_idlest_group(struct fic *f, int cpu, int level, struct sr_cpumask *out)
{
	const char *why = "no idlest group";
	struct sr_step *st;
	struct fig_walk w;
	bool push;

	walk_groups(f, cpu, level, FIG_SEEN, &w);
	runner_step(f, level, &w);
	push = walk_verdict(f, cpu, level, &w, &why);
	st = sr_trail_add(f->trail, "find_idlest_group", why,
			  push ? "idlest group" : "stay (NULL)", push ? w.idlest.first : -1);
	sr_step_val(st, "level", level);
	group_step_vals(st, w.have_local ? &w.local : NULL, w.have_idlest ? &w.idlest : NULL);
	if (delayed_changes(f, cpu, level, push, &w.idlest)) {
		unsigned int all = nr_delayed(f, &f->t->cpu[cpu].sd[level].span);
		unsigned int mine = w.have_local ? nr_delayed(f, &w.local.span) : 0;

		st = sr_trail_add(f->trail, "update_sg_wakeup_stats",
				  "rq->nr_running counts sleepers still queued (DELAY_DEQUEUE)",
				  "counting them changes this level's verdict", -1);
		sr_step_val(st, "level", level);
		sr_step_val(st, "maybe_delayed_local", mine);
		sr_step_val(st, "maybe_delayed_others", all - mine);
		f->delayed_dep = true;
	}
	if (push)
		*out = w.idlest.span;
	return push;
}
