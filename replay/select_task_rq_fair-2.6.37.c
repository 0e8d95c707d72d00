// SPDX-License-Identifier: GPL-2.0
/*
 * select_task_rq_fair() of kernel/sched_fair.c, 2.6.37 - 3.0 (verified
 * 2.6.37.6, 2.6.38, 3.0.1), with its fork/exec slow path
 * find_idlest_group()/find_idlest_cpu() and the select_fallback_rq() of
 * the select_task_rq() wrapper in kernel/sched.c.  2.6.37 also calls
 * update_shares() (LB_SHARES_UPDATE) before the affine decision.
 * The NO_HOT_AFFINE gate on want_affine is Paul Turner's unmerged "sched:
 * introduce sched_feat(NO_HOT_AFFINE)" (Jan 2011).
 * forkexec_idx and wake_idx are 0 on x86: every load is weighted_cpuload().
 */
#include <errno.h>
#include "models-2637.h"

enum srqf_era { SRQF_2637, SRQF_2638 };

/* Where the domain walk left affine_sd and sd: levels of ctx->this_cpu, -1 for NULL. */
struct srqf_walk {
	int affine_lvl;
	int sd_lvl;
};

static int srqf_validate(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			 struct sr_decision *d)
{
	if (!pol || !ctx || !d || !ctx->p || !ctx->rq || !ctx->topo || !ctx->topo->cpu)
		return -EINVAL;
	if (ctx->topo->nr_cpus < 1 || ctx->topo->nr_cpus > SR_MAX_CPUS)
		return -EINVAL;
	if (!sr2637_cpu_valid(ctx, ctx->this_cpu) || !sr2637_cpu_valid(ctx, ctx->prev_cpu))
		return -EINVAL;
	if (ctx->sync != SR_NO && ctx->sync != SR_YES)
		return -EINVAL;
	if (ctx->kind != SR_WAKE_TTWU && ctx->kind != SR_WAKE_FORK && ctx->kind != SR_WAKE_EXEC)
		return -EINVAL;
	return 0;
}

/* want_affine: the waker's CPU is allowed, and with NO_HOT_AFFINE p is not hot. */
static int srqf_want_affine(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			    struct sr_decision *d, bool *want, enum sr_decider *why)
{
	bool allowed = sr2637_allowed(ctx, ctx->this_cpu);
	int hot;

	*want = false;
	d->depends |= ctx->unknown & SR_DEP_AFFINITY;
	sr_trail_add(&d->trail, "select_task_rq_fair", "cpumask_test_cpu(cpu, &p->cpus_allowed)",
		     allowed ? "allowed" : "not allowed: want_affine = 0", ctx->this_cpu);
	if (!allowed) {
		*why = SR_BY_NOT_ALLOWED;
		return 0;
	}
	if (pol->knobs.features & SR_F_NO_HOT_AFFINE) {
		hot = sr_task_hot_lazy_wakee_2638(pol, ctx, d);
		if (hot < 0)
			return hot;
		sr_trail_add(&d->trail, "select_task_rq_fair",
			     "!sched_feat(NO_HOT_AFFINE) || !task_hot_lazy(p)",
			     hot ? "hot: want_affine = 0" : "cold: want_affine = 1", ctx->prev_cpu);
		if (hot) {
			*why = SR_BY_TASK_HOT;
			return 0;
		}
	}
	*want = true;
	*why = SR_BY_NO_AFFINE_DOMAIN;
	return 0;
}

/* SD_PREFER_LOCAL: stop widening while the domain has spare capacity. */
static bool srqf_prefer_local(const struct sr_wake_ctx *ctx, const struct sr_domain *tmp,
			      struct sr_decision *d)
{
	unsigned long power = 0, nr = 0, capacity;
	struct sr_step *st;
	int i;

	sr_for_each_cpu(i, &tmp->span) {
		if (i >= ctx->topo->nr_cpus)
			break;
		sr2637_note_rq(ctx, d, i);
		power += power_of_2637(ctx, i);
		/* cfs.nr_running counts root entities; tasks stand in for them. */
		nr += ctx->rq[i].cfs_nr_running;
	}
	capacity = (power + SR_CAPACITY_SCALE / 2) / SR_CAPACITY_SCALE;
	st = sr_trail_add(&d->trail, "select_task_rq_fair",
			  "SD_PREFER_LOCAL: nr_running < DIV_ROUND_CLOSEST(power, 1024)",
			  nr < capacity ? "spare capacity: want_sd = 0" : "busy: want_sd stays",
			  ctx->this_cpu);
	sr_step_uval(st, "nr_running", nr);
	sr_step_uval(st, "capacity", capacity);
	return nr < capacity;
}

/* for_each_domain(cpu, tmp): the lowest affine domain holding prev, the widest sd_flag one. */
static void srqf_walk_domains(const struct sr_wake_ctx *ctx, struct sr_decision *d,
			      unsigned int sd_flag, bool want_affine, struct srqf_walk *w)
{
	const struct sr_cpu_topo *c = &ctx->topo->cpu[ctx->this_cpu];
	bool want_sd = true;
	struct sr_step *st;
	int lvl;

	w->affine_lvl = w->sd_lvl = -1;
	d->depends |= ctx->unknown & SR_DEP_TOPOLOGY;
	for (lvl = 0; lvl < c->nr_levels; lvl++) {
		const struct sr_domain *tmp = &c->sd[lvl];

		if (!(tmp->flags & SD_LOAD_BALANCE))
			continue;
		if ((tmp->flags & SD_PREFER_LOCAL) && srqf_prefer_local(ctx, tmp, d))
			want_sd = false;
		if (want_affine && (tmp->flags & SD_WAKE_AFFINE) &&
		    sr_mask_test(&tmp->span, ctx->prev_cpu)) {
			w->affine_lvl = lvl;
			want_affine = false;
		}
		if (!want_sd && !want_affine)
			break;
		if (!(tmp->flags & sd_flag))
			continue;
		if (want_sd)
			w->sd_lvl = lvl;
	}
	st = sr_trail_add(&d->trail, "select_task_rq_fair",
			  "for_each_domain(cpu): SD_WAKE_AFFINE && prev_cpu in span -> affine_sd; "
			  "sd_flag -> sd", w->affine_lvl >= 0 ? "affine_sd found" :
			  w->sd_lvl >= 0 ? "no affine_sd; sd found" : "no affine_sd, no sd",
			  ctx->this_cpu);
	sr_step_val(st, "affine_level", w->affine_lvl);
	sr_step_val(st, "sd_level", w->sd_lvl);
	sr_step_val(st, "nr_levels", c->nr_levels);
}

/* 2.6.37 refreshes the group share snapshots here; they are inputs to the model. */
static void srqf_update_shares_2637(const struct sr_wake_ctx *ctx, struct sr_decision *d,
				    const struct srqf_walk *w)
{
	if (w->affine_lvl < 0 && w->sd_lvl < 0)
		return;
	sr_trail_add(&d->trail, "select_task_rq_fair",
		     "sched_feat(LB_SHARES_UPDATE): update_shares(wider of sd, affine_sd)",
		     "not modelled: ratelimited; group snapshots taken as given", ctx->this_cpu);
}

/* The affine path: wake_affine() unless cpu == prev, then select_idle_sibling(). */
static int srqf_affine(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		       struct sr_decision *d, enum srqf_era era, const struct sr_domain *affine_sd)
{
	int cpu = ctx->this_cpu, prev = ctx->prev_cpu, ret;

	sr_trail_add(&d->trail, "select_task_rq_fair", "cpu == prev_cpu",
		     cpu == prev ? "true: target = cpu, no wake_affine()" : "false: wake_affine()",
		     cpu);
	if (cpu == prev) {
		d->decided_by = SR_BY_SAME_CPU;
		ret = 1;
	} else if (era == SRQF_2637) {
		d->sync_used = true;	/* WF_SYNC matters only to wake_affine() */
		ret = sr_wake_affine_2637(pol, ctx, affine_sd, d);
	} else {
		d->sync_used = true;
		ret = sr_wake_affine_2638(pol, ctx, affine_sd, d);
	}
	if (ret < 0)
		return ret;
	return sr_select_idle_sibling_2637(pol, ctx, ret ? cpu : prev, d);
}

/* The sched_group of @sd holding @i: the widest domain of i strictly inside sd, else {i}. */
static void sd_group_of(const struct sr_topo *t, const struct sr_domain *sd, int i,
			struct sr_cpumask *g)
{
	const struct sr_cpu_topo *c = &t->cpu[i];

	for (int l = c->nr_levels - 1; l >= 0; l--) {
		if (c->sd[l].span_weight < sd->span_weight &&
		    sr_mask_subset(&c->sd[l].span, &sd->span)) {
			*g = c->sd[l].span;
			return;
		}
	}
	sr_mask_clear(g);
	sr_mask_set(g, i);
}

/* First CPUs of @sd's groups: the kernel links them in that order into a ring. */
static void sd_group_leaders(const struct sr_topo *t, const struct sr_domain *sd,
			     struct sr_cpumask *leaders)
{
	struct sr_cpumask covered, g;
	int i;

	sr_mask_clear(leaders);
	sr_mask_clear(&covered);
	sr_for_each_cpu(i, &sd->span) {
		if (i >= t->nr_cpus)
			break;
		if (sr_mask_test(&covered, i))
			continue;
		sd_group_of(t, sd, i, &g);
		sr_mask_or(&covered, &g);
		sr_mask_set(leaders, i);
	}
}

/* Σ load of the group's CPUs scaled by the group's power: avg_load; -EINVAL if powerless. */
static int group_avg_load(const struct sr_wake_ctx *ctx, struct sr_decision *d,
			  const struct sr_cpumask *g, unsigned long *avg)
{
	unsigned long load = 0, power = 0;
	int i;

	sr_for_each_cpu(i, g) {
		if (i >= ctx->topo->nr_cpus)
			break;
		/* source_load() for the local group, target_load() else: equal at idx 0. */
		load += weighted_cpuload_2637(ctx, d, i);
		power += power_of_2637(ctx, i);
	}
	if (!power)
		return -EINVAL;
	*avg = load * SR_CAPACITY_SCALE / power;
	return 0;
}

struct idlest_group {
	unsigned long this_load, min_load;
	int idlest;			/* first CPU of the idlest non-local group, -1 */
};

/* One group of the ring: the local one gives this_load, the others compete for min_load. */
static int find_idlest_group_one(const struct sr_wake_ctx *ctx, struct sr_decision *d,
				 const struct sr_domain *sd, int leader, int this_cpu,
				 struct idlest_group *ig)
{
	struct sr_cpumask g;
	unsigned long avg;
	int ret;

	sd_group_of(ctx->topo, sd, leader, &g);
	if (ctx->allowed && !sr_mask_intersects(&g, ctx->allowed))
		return 0;
	ret = group_avg_load(ctx, d, &g, &avg);
	if (ret)
		return ret;
	if (sr_mask_test(&g, this_cpu)) {
		ig->this_load = avg;
	} else if (avg < ig->min_load) {
		ig->min_load = avg;
		ig->idlest = leader;
	}
	return 0;
}

/*
 * find_idlest_group(): the least loaded group of @sd, walked as the ring
 * from the local group on, or -1 to stay when it is not enough lighter.
 */
static int find_idlest_group_2637(const struct sr_wake_ctx *ctx, struct sr_decision *d,
				  const struct sr_domain *sd, int this_cpu, int *idlest)
{
	struct idlest_group ig = { 0, (unsigned long)-1, -1 };
	/* int imbalance = 100 + (sd->imbalance_pct - 100) / 2, in unsigned int. */
	int imbalance = (int)(100 + (sd->imbalance_pct - 100U) / 2);
	struct sr_cpumask leaders, g;
	int i, local, ret;
	bool stay;
	struct sr_step *st;

	sd_group_leaders(ctx->topo, sd, &leaders);
	sd_group_of(ctx->topo, sd, this_cpu, &g);
	local = sr_mask_first(&g);
	for (int pass = 0; pass < 2; pass++) {
		sr_for_each_cpu(i, &leaders) {
			if ((pass == 0) != (i >= local))
				continue;
			ret = find_idlest_group_one(ctx, d, sd, i, this_cpu, &ig);
			if (ret)
				return ret;
		}
	}
	stay = ig.idlest < 0 ||
	       100UL * ig.this_load < (unsigned long)(long)imbalance * ig.min_load;
	st = sr_trail_add(&d->trail, "find_idlest_group",
			  "!idlest || 100*this_load < imbalance*min_load",
			  stay ? "stay: NULL" : "idlest group", stay ? this_cpu : ig.idlest);
	sr_step_uval(st, "span_weight", sd->span_weight);
	sr_step_uval(st, "this_load", ig.this_load);
	sr_step_uval(st, "min_load", ig.min_load);
	sr_step_val(st, "imbalance", imbalance);
	sr_step_val(st, "idlest_first_cpu", ig.idlest);
	*idlest = stay ? -1 : ig.idlest;
	return 0;
}

/* find_idlest_cpu(): the allowed CPU of the group with the least load, ties to this_cpu. */
static int find_idlest_cpu_2637(const struct sr_wake_ctx *ctx, struct sr_decision *d,
				const struct sr_domain *sd, int leader, int this_cpu)
{
	unsigned long load, min_load = (unsigned long)-1;
	struct sr_cpumask g;
	struct sr_step *st;
	int i, idlest = -1;

	sd_group_of(ctx->topo, sd, leader, &g);
	sr_for_each_cpu(i, &g) {
		if (i >= ctx->topo->nr_cpus)
			break;
		if (!sr2637_allowed(ctx, i))
			continue;
		load = weighted_cpuload_2637(ctx, d, i);
		if (load < min_load || (load == min_load && i == this_cpu)) {
			min_load = load;
			idlest = i;
		}
	}
	st = sr_trail_add(&d->trail, "find_idlest_cpu",
			  "min weighted_cpuload(i), ties to this_cpu; -1 or this_cpu: go to child",
			  idlest < 0 || idlest == this_cpu ? "stay: sd = sd->child" :
							     "move: new_cpu", idlest);
	sr_step_uval(st, "min_load", min_load);
	return idlest;
}

/* Highest domain of @cpu narrower than @weight that has @sd_flag, or -1. */
static int srqf_lower_domain(const struct sr_topo *t, int cpu, unsigned int weight,
			     unsigned int sd_flag)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];
	int lvl = -1;

	for (int l = 0; l < c->nr_levels; l++) {
		if (weight <= c->sd[l].span_weight)
			break;
		if (c->sd[l].flags & sd_flag)
			lvl = l;
	}
	return lvl;
}

/* The fork/exec (and SD_BALANCE_WAKE) descent from sd down to a CPU. */
static int srqf_slow_path(const struct sr_wake_ctx *ctx, struct sr_decision *d,
			  unsigned int sd_flag, int lvl, int new_cpu)
{
	int cpu = ctx->this_cpu, leader, guard = 0, ret;

	d->decided_by = SR_BY_SLOW_PATH;
	d->depends |= ctx->unknown & (SR_DEP_CGROUP | SR_DEP_AFFINITY);
	while (lvl >= 0) {
		const struct sr_domain *sd = &ctx->topo->cpu[cpu].sd[lvl];

		/* Each pass narrows the domain; more passes mean a broken topology. */
		if (++guard > SR_MAX_LEVELS * SR_MAX_LEVELS)
			return -ELOOP;
		if (!(sd->flags & sd_flag)) {
			lvl--;
			continue;
		}
		ret = find_idlest_group_2637(ctx, d, sd, cpu, &leader);
		if (ret)
			return ret;
		if (leader < 0) {
			lvl--;
			continue;
		}
		new_cpu = find_idlest_cpu_2637(ctx, d, sd, leader, cpu);
		if (new_cpu == -1 || new_cpu == cpu) {
			lvl--;
			continue;
		}
		cpu = new_cpu;
		lvl = srqf_lower_domain(ctx->topo, cpu, sd->span_weight, sd_flag);
	}
	return new_cpu;
}

/*
 * select_fallback_rq(task_cpu(p), p) of the select_task_rq() wrapper: an
 * allowed CPU on prev's node, else any allowed CPU.
 */
static int select_fallback_rq_2637(const struct sr_wake_ctx *ctx, struct sr_decision *d,
				   int cpu)
{
	const struct sr_topo *t = ctx->topo;
	int node = t->cpu[ctx->prev_cpu].node, any = -1, dest = -1;

	for (int i = 0; i < t->nr_cpus && dest < 0; i++) {
		if (!sr2637_allowed(ctx, i))
			continue;
		if (any < 0)
			any = i;
		if (t->cpu[i].node == node)
			dest = i;
	}
	if (dest < 0)
		dest = any;
	if (dest < 0)
		return -EINVAL;
	sr_step_val(sr_trail_add(&d->trail, "select_task_rq",
				 "!cpumask_test_cpu(cpu, &p->cpus_allowed): select_fallback_rq()",
				 "allowed cpu on prev's node, else any allowed", dest),
		    "cpu", cpu);
	d->decided_by = SR_BY_NOT_ALLOWED;
	return dest;
}

static unsigned int srqf_sd_flag(enum sr_wake_kind kind)
{
	if (kind == SR_WAKE_FORK)
		return SD_BALANCE_FORK;
	return kind == SR_WAKE_EXEC ? SD_BALANCE_EXEC : SD_BALANCE_WAKE;
}

static int select_task_rq_fair_2637(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
				    struct sr_decision *d, enum srqf_era era)
{
	unsigned int sd_flag;
	enum sr_decider why = SR_BY_NONE;
	bool want_affine = false;
	struct srqf_walk w;
	int new_cpu, ret;

	ret = srqf_validate(pol, ctx, d);
	if (ret)
		return ret;
	sd_flag = srqf_sd_flag(ctx->kind);
	new_cpu = ctx->this_cpu;
	if (sd_flag & SD_BALANCE_WAKE) {
		ret = srqf_want_affine(pol, ctx, d, &want_affine, &why);
		if (ret)
			return ret;
		new_cpu = ctx->prev_cpu;
	}
	srqf_walk_domains(ctx, d, sd_flag, want_affine, &w);
	if (era == SRQF_2637)
		srqf_update_shares_2637(ctx, d, &w);
	if (w.affine_lvl >= 0)
		new_cpu = srqf_affine(pol, ctx, d, era,
				      &ctx->topo->cpu[ctx->this_cpu].sd[w.affine_lvl]);
	else if (w.sd_lvl >= 0)
		new_cpu = srqf_slow_path(ctx, d, sd_flag, w.sd_lvl, new_cpu);
	else
		d->decided_by = why;
	if (new_cpu < 0)
		return new_cpu;
	/* sched_exec() calls the class hook directly, without the wrapper. */
	if (ctx->kind != SR_WAKE_EXEC && !sr2637_allowed(ctx, new_cpu))
		new_cpu = select_fallback_rq_2637(ctx, d, new_cpu);
	if (new_cpu < 0)
		return new_cpu;
	d->cpu = new_cpu;
	return 0;
}

static int srqf_2637(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     struct sr_decision *d)
{
	return select_task_rq_fair_2637(pol, ctx, d, SRQF_2637);
}

static int srqf_2638(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     struct sr_decision *d)
{
	return select_task_rq_fair_2637(pol, ctx, d, SRQF_2638);
}

const struct sr_policy_ops sr_srqf_2637_ops = {
	.name = "select_task_rq_fair-2.6.37",
	.select_task_rq = srqf_2637,
};

const struct sr_policy_ops sr_srqf_2638_ops = {
	.name = "select_task_rq_fair-2.6.38",
	.select_task_rq = srqf_2638,
};
