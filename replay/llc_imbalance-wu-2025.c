// SPDX-License-Identifier: GPL-2.0
/*
 * calculate_imbalance(), group_has_spare branch, Linux 6.0 - 6.18
 * (kernel/sched/fair.c), with and without Jianyong Wu's "sched/fair: allow
 * imbalance between LLCs under NUMA" (28 May 2025, against tip at fair.c
 * 0fb9bf995a47; never merged).  The patch adds, after the SD_NUMA
 * adjust_numa_imbalance() block and before "env->imbalance >>= 1":
 *   if sd->child has SD_SHARE_LLC and sd->parent has SD_NUMA:
 *       llc_nr = sd->span_weight / child_weight
 *       if llc_nr > 1 and max(child_weight >= 4 ? 2 : 1, child_weight >> 2) >= imbalance:
 *           imbalance = 0
 * Base kernel by kver: 6.0 - 6.5 spread by max(0, busiest.nr - local.nr)
 * under prefer_sibling; 6.6+ sibling_imbalance() [R 6.5 -> 6.8].
 */
#include <errno.h>
#include "models-sis.h"

struct wu {
	const struct sr_llc_imb_in *in;
	struct sr_llc_imb_verdict *v;
	const struct sr_lb_group *local, *busiest;
};

static enum sr_group_type type_of(const struct sr_llc_imb_in *in, const struct sr_lb_group *g)
{
	return g->type_given ? g->type : sr_group_classify(in->imbalance_pct, g);
}

static long lsub_positive(long v, long sub)
{
	return v - (v < sub ? v : sub);
}

/* sibling_imbalance() (6.6+): even out nr_running per core between the groups. */
static long sibling_imbalance(const struct wu *w)
{
	const struct sr_lb_group *b = w->busiest, *l = w->local;
	int nb = b->cores ? (int)b->cores : (int)b->group_weight;
	int nl = l->cores ? (int)l->cores : (int)l->group_weight;
	long imb;

	if (!w->in->dst_idle || !b->sum_nr_running)
		return 0;
	if (nb == nl)
		return lsub_positive(b->sum_nr_running, l->sum_nr_running);
	imb = (long)(unsigned int)(nl * b->sum_nr_running);
	imb = lsub_positive(imb, (long)(unsigned int)(nb * l->sum_nr_running));
	imb = (2 * imb + nl + nb) / (nl + nb);
	if (imb <= 1 && l->sum_nr_running == 0 && b->sum_nr_running > 1)
		imb = 2;
	return imb;
}

/* The imbalance of the group_has_spare branch before the NUMA adjustment. */
static long spare_imbalance(const struct wu *w)
{
	const struct sr_llc_imb_in *in = w->in;
	struct sr_step *st;
	long imb;

	if (w->busiest->group_weight == 1 || in->prefer_sibling) {
		if (in->kver >= SR_KV(6, 6))
			imb = sibling_imbalance(w);
		else
			imb = lsub_positive(w->busiest->sum_nr_running, w->local->sum_nr_running);
		st = sr_trail_add(&w->v->trail, "calculate_imbalance",
				  in->kver >= SR_KV(6, 6) ? "busiest->group_weight == 1 || "
				  "prefer_sibling: sibling_imbalance()" :
				  "busiest->group_weight == 1 || prefer_sibling: "
				  "busiest.sum_nr_running - local.sum_nr_running",
				  "migrate_task", -1);
	} else {
		/* max_t(long, 0, unsigned int difference): a negative difference wraps. */
		imb = (long)(unsigned int)(w->local->idle_cpus - w->busiest->idle_cpus);
		st = sr_trail_add(&w->v->trail, "calculate_imbalance",
				  "max_t(long, 0, local->idle_cpus - busiest->idle_cpus)",
				  "migrate_task", -1);
	}
	sr_step_val(st, "local_nr_running", w->local->sum_nr_running);
	sr_step_val(st, "busiest_nr_running", w->busiest->sum_nr_running);
	sr_step_val(st, "local_idle_cpus", w->local->idle_cpus);
	sr_step_val(st, "busiest_idle_cpus", w->busiest->idle_cpus);
	sr_step_val(st, "imbalance", imb);
	return imb;
}

static long adjust_numa(const struct wu *w, long imb)
{
	const struct sr_llc_imb_in *in = w->in;
	int dst = (int)w->local->sum_nr_running + 1;
	long adj = imb;
	struct sr_step *st;

	if (!(in->sd_flags & SD_NUMA))
		return imb;
	/* adjust_numa_imbalance() takes an int imbalance. */
	if (dst <= (int)in->imb_numa_nr && (int)imb <= 2)
		adj = 0;
	else
		adj = (int)imb;
	st = sr_trail_add(&w->v->trail, "adjust_numa_imbalance",
			  "local->sum_nr_running + 1 <= imb_numa_nr && imbalance <= 2",
			  adj ? "keep" : "imbalance = 0", -1);
	sr_step_val(st, "dst_running", dst);
	sr_step_val(st, "imb_numa_nr", in->imb_numa_nr);
	sr_step_val(st, "imbalance", adj);
	return adj;
}

/* Wu's block; returns the imbalance the patched kernel goes on with. */
static long wu_block(const struct wu *w, long imb)
{
	const struct sr_llc_imb_in *in = w->in;
	struct sr_llc_imb_verdict *v = w->v;
	bool cond = in->has_child && (in->child_flags & SD_SHARE_PKG_RESOURCES) &&
		    in->has_parent && (in->parent_flags & SD_NUMA);
	int cw = (int)in->child_span_weight, min;
	struct sr_step *st;

	if (cond) {
		v->llc_nr = (int)in->sd_span_weight / cw;
		min = cw >= 4 ? 2 : 1;
		v->imb_nr = cw >> 2 > min ? cw >> 2 : min;
		v->wu_applies = v->llc_nr > 1;
	}
	st = sr_trail_add(&v->trail, "calculate_imbalance (Wu)",
			  "child SD_SHARE_LLC && parent SD_NUMA && llc_nr > 1 && "
			  "imb_nr >= imbalance",
			  v->wu_applies && v->imb_nr >= imb ? "imbalance = 0" : "unchanged", -1);
	sr_step_val(st, "child_weight", cw);
	sr_step_val(st, "llc_nr", v->llc_nr);
	sr_step_val(st, "imb_nr", v->imb_nr);
	sr_step_val(st, "imbalance", imb);
	return v->wu_applies && v->imb_nr >= imb ? 0 : imb;
}

/* Everything before the group_has_spare branch; false when it returns first. */
static bool before_spare(const struct wu *w)
{
	struct sr_llc_imb_verdict *v = w->v;
	const char *why = NULL;
	struct sr_step *st;

	if (v->busiest_type == SR_GROUP_MISFIT_TASK || v->busiest_type == SR_GROUP_ASYM_PACKING ||
	    v->busiest_type == SR_GROUP_SMT_BALANCE || v->busiest_type == SR_GROUP_IMBALANCED)
		why = "busiest group type handled before group_has_spare";
	else if (v->local_type != SR_GROUP_HAS_SPARE)
		why = "local->group_type != group_has_spare";
	else if (v->busiest_type > SR_GROUP_FULLY_BUSY &&
		 !(w->in->sd_flags & SD_SHARE_PKG_RESOURCES))
		why = "busiest overloaded outside an LLC: migrate_util";
	if (!why)
		return true;
	st = sr_trail_add(&v->trail, "calculate_imbalance", why, "Wu's block not reached", -1);
	sr_step_val(st, "local_type", v->local_type);
	sr_step_val(st, "busiest_type", v->busiest_type);
	return false;
}

static bool bad_group(const struct sr_lb_group *g)
{
	return !g->type_given && (!g->group_capacity || !g->group_weight);
}

int sr_llc_imbalance_wu(const struct sr_llc_imb_in *in, struct sr_llc_imb_verdict *v)
{
	struct wu w = { in, v, in ? &in->local : NULL, in ? &in->busiest : NULL };
	long imb;

	if (!in || !v || in->kver < SR_KV(6, 0) || bad_group(&in->local) ||
	    bad_group(&in->busiest) || (in->has_child && !in->child_span_weight))
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	v->local_type = type_of(in, &in->local);
	v->busiest_type = type_of(in, &in->busiest);
	if (!before_spare(&w))
		return 0;
	v->reached = true;
	imb = adjust_numa(&w, spare_imbalance(&w));
	v->imbalance = imb;
	v->mainline = imb >> 1;
	v->patched = wu_block(&w, imb) >> 1;
	v->kept = v->mainline > 0 && v->patched == 0;
	return 0;
}

int sr_llc_imb_domain(const struct sr_topo *t, int cpu, int level, unsigned int kver,
		      struct sr_llc_imb_in *in)
{
	const struct sr_cpu_topo *c;

	if (!t || !in || cpu < 0 || cpu >= t->nr_cpus)
		return -EINVAL;
	c = &t->cpu[cpu];
	if (level < 0 || level >= c->nr_levels)
		return -EINVAL;
	in->kver = kver;
	in->sd_flags = c->sd[level].flags;
	in->sd_span_weight = c->sd[level].span_weight;
	in->imbalance_pct = c->sd[level].imbalance_pct;
	in->imb_numa_nr = sr_imb_numa_nr(t, cpu, level, kver);
	in->has_child = level > 0;
	in->child_flags = level > 0 ? c->sd[level - 1].flags : 0;
	in->child_span_weight = level > 0 ? c->sd[level - 1].span_weight : 0;
	in->has_parent = level + 1 < c->nr_levels;
	in->parent_flags = in->has_parent ? c->sd[level + 1].flags : 0;
	/* update_sd_lb_stats(): prefer_sibling comes from the child domain. */
	in->prefer_sibling = in->has_child && (in->child_flags & SD_PREFER_SIBLING);
	return 0;
}
