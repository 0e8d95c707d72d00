// SPDX-License-Identifier: GPL-2.0
/*
 * wake_affine() of kernel/sched_fair.c: 2.6.37 with unsigned long loads
 * and "if (this_load)" (sr_wake_affine_2637), 2.6.38 - 3.0 with s64 loads
 * and "if (this_load > 0)" (sr_wake_affine_2638; verified 2.6.38, 3.0.1).
 * wake_idx is 0 on x86, so source_load() and target_load() are
 * weighted_cpuload().  Both eras share the bit patterns of modular
 * arithmetic; they differ in effective_load() and in which comparisons
 * are signed.  SR_F_HOT_IMBALANCE adds Paul Turner's alternative from the
 * "wake_afine fixes/improvements" thread (Jan 2011; an idea, never
 * posted as code): a hot wakee is pulled
 * only across an imbalance of knobs.hot_imbalance_pct, i.e. the bias moves
 * from prev's side of the comparison to this CPU's side.
 */
#include <errno.h>
#include "models-2637.h"

typedef int (*effective_load_fn)(const struct sr_tg *tg, int cpu, long wl, long wg, long *res,
				 struct sr_trail *t);

struct wake_affine_era {
	bool s64;			/* this_load/load and the effs are s64 (2.6.38+) */
	effective_load_fn effective_load;
	const char *load_test;
};

static const struct wake_affine_era era_2637 = {
	false, sr_effective_load_2637, "this_load != 0 (unsigned long)",
};

static const struct wake_affine_era era_2638 = {
	true, sr_effective_load_2638, "this_load > 0 (s64)",
};

/* Loads, the effective_load() corrections and the result, as u64 bit patterns. */
struct wake_affine_loads {
	uint64_t this_load, load, this_eff, prev_eff;
	long eff_this, eff_prev;
	unsigned int this_bias, prev_bias;
	bool balanced, hot_refused;	/* hot_refused: balanced but for the hot threshold */
};

static bool wa_le(const struct wake_affine_era *e, uint64_t a, uint64_t b)
{
	return e->s64 ? (int64_t)a <= (int64_t)b : a <= b;
}

static void wa_val(const struct wake_affine_era *e, struct sr_step *st, const char *name,
		   uint64_t v)
{
	if (e->s64)
		sr_step_val(st, name, (int64_t)v);
	else
		sr_step_uval(st, name, v);
}

/*
 * Sync: take the waker's (maximum possible) share off this CPU.  In an
 * interrupt on an idle CPU, current is the idle task: nice-0 weight
 * inherited from init_task, root group.
 */
static int wake_affine_sync(const struct wake_affine_era *e, const struct sr_wake_ctx *ctx,
			    struct sr_decision *d, struct wake_affine_loads *l)
{
	const struct sr_task_view *curr = ctx->curr;
	bool idle = !curr || curr->pid == 0;
	unsigned long w = idle ? SR_IDLE_TASK_WEIGHT : curr->weight;
	const struct sr_tg *tg = idle ? NULL : curr->tg;
	long neg = (long)(0UL - w);
	uint64_t before = l->this_load;
	struct sr_step *st;
	int ret;

	if (idle)
		sr_trail_add(&d->trail, "wake_affine", "current == rq->idle (interrupt wakeup)",
			     "waker is the idle task: weight 1024, root group", ctx->this_cpu);
	ret = e->effective_load(tg, ctx->this_cpu, neg, neg, &l->eff_this, &d->trail);
	if (!ret)
		ret = e->effective_load(tg, ctx->prev_cpu, 0, neg, &l->eff_prev, &d->trail);
	if (ret)
		return ret;
	l->this_load += (uint64_t)l->eff_this;
	l->load += (uint64_t)l->eff_prev;
	st = sr_trail_add(&d->trail, "wake_affine",
			  "sync: this_load += effective_load(tg, this_cpu, -w, -w); "
			  "load += effective_load(tg, prev_cpu, 0, -w)",
			  !e->s64 && l->eff_this < 0 && 0 - (uint64_t)l->eff_this > before ?
			  "this_load wrapped below zero (unsigned long)" : "corrected",
			  ctx->this_cpu);
	sr_step_uval(st, "weight", w);
	sr_step_val(st, "eff_this", l->eff_this);
	sr_step_val(st, "eff_prev", l->eff_prev);
	wa_val(e, st, "this_load", l->this_load);
	wa_val(e, st, "load", l->load);
	return 0;
}

/* The kernel's tolerance: 100 + (imbalance_pct - 100) / 2, in unsigned int. */
static unsigned int wa_bias(unsigned int pct)
{
	return 100 + (pct - 100U) / 2;
}

/*
 * SR_F_HOT_IMBALANCE: is the wakee hot, so that this CPU's side carries
 * the hot bias and prev's side none?  0 or -errno.
 */
static int wake_affine_hot(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   struct sr_decision *d, bool *hot)
{
	int knob = pol->knobs.hot_imbalance_pct, ret;
	struct sr_step *st;

	*hot = false;
	if (!(pol->knobs.features & SR_F_HOT_IMBALANCE))
		return 0;
	if (knob < 100)
		return -EINVAL;
	ret = sr_task_hot_lazy_wakee_2638(pol, ctx, d);
	if (ret < 0)
		return ret;
	*hot = ret;
	st = sr_trail_add(&d->trail, "wake_affine",
			  "sched_feat(HOT_IMBALANCE) && task_hot_lazy(p)",
			  ret ? "hot: pull only across hot_imbalance_pct" : "cold: sd->imbalance_pct",
			  ctx->this_cpu);
	sr_step_val(st, "hot_imbalance_pct", knob);
	return 0;
}

static uint64_t this_eff_load(const struct sr_wake_ctx *ctx, unsigned int bias,
			      const struct wake_affine_loads *l)
{
	return (uint64_t)bias * power_of_2637(ctx, ctx->prev_cpu) *
	       (l->this_load + (uint64_t)l->eff_this);
}

static uint64_t prev_eff_load(const struct sr_wake_ctx *ctx, unsigned int bias,
			      const struct wake_affine_loads *l)
{
	return (uint64_t)bias * power_of_2637(ctx, ctx->this_cpu) *
	       (l->load + (uint64_t)l->eff_prev);
}

static void wake_affine_balance_step(const struct wake_affine_era *e,
				     const struct sr_wake_ctx *ctx, struct sr_decision *d,
				     const struct wake_affine_loads *l)
{
	struct sr_step *st;

	st = sr_trail_add(&d->trail, "wake_affine",
			  "this_bias*power_of(prev)*(this_load + eff_this) <= "
			  "prev_bias*power_of(this)*(load + eff_prev)",
			  l->balanced ? "balanced" : "imbalanced", ctx->this_cpu);
	wa_val(e, st, "this_load", l->this_load);
	sr_step_val(st, "eff_this", l->eff_this);
	wa_val(e, st, "load", l->load);
	sr_step_val(st, "eff_prev", l->eff_prev);
	sr_step_uval(st, "this_bias", l->this_bias);
	sr_step_uval(st, "prev_bias", l->prev_bias);
	wa_val(e, st, "this_eff_load", l->this_eff);
	wa_val(e, st, "prev_eff_load", l->prev_eff);
}

/* The imbalance test proper: this_eff_load <= prev_eff_load. */
static int wake_affine_balance(const struct wake_affine_era *e, const struct sr_policy *pol,
			       const struct sr_wake_ctx *ctx, const struct sr_domain *sd,
			       struct sr_decision *d, struct wake_affine_loads *l)
{
	const struct sr_task_view *p = ctx->p;
	long w = (long)p->weight;
	bool hot;
	int ret;

	ret = wake_affine_hot(pol, ctx, d, &hot);
	if (!ret)
		ret = e->effective_load(p->tg, ctx->this_cpu, w, w, &l->eff_this, &d->trail);
	if (!ret)
		ret = e->effective_load(p->tg, ctx->prev_cpu, 0, w, &l->eff_prev, &d->trail);
	if (ret)
		return ret;
	l->this_bias = hot ? wa_bias((unsigned int)pol->knobs.hot_imbalance_pct) : 100;
	l->prev_bias = hot ? 100 : wa_bias(sd->imbalance_pct);
	l->this_eff = this_eff_load(ctx, l->this_bias, l);
	l->prev_eff = prev_eff_load(ctx, l->prev_bias, l);
	l->balanced = wa_le(e, l->this_eff, l->prev_eff);
	/* Would the kernel's own threshold have let it through? */
	if (hot && !l->balanced)
		l->hot_refused = wa_le(e, this_eff_load(ctx, 100, l),
				       prev_eff_load(ctx, wa_bias(sd->imbalance_pct), l));
	wake_affine_balance_step(e, ctx, d, l);
	return 0;
}

/* The tail: sync && balanced, then balanced or the tl_per_task fallback. */
static int wake_affine_tail(const struct wake_affine_era *e, const struct sr_wake_ctx *ctx,
			    struct sr_decision *d, const struct wake_affine_loads *l)
{
	unsigned long nr = ctx->rq[ctx->this_cpu].nr_running;
	uint64_t tl_per_task = nr ? weighted_cpuload_2637(ctx, d, ctx->this_cpu) / nr : 0;
	uint64_t prev_target = weighted_cpuload_2637(ctx, d, ctx->prev_cpu);
	bool fallback;
	struct sr_step *st;

	if (ctx->sync == SR_YES && l->balanced) {
		sr_trail_add(&d->trail, "wake_affine", "sync && balanced", "affine", ctx->this_cpu);
		d->decided_by = SR_BY_SYNC;
		return 1;
	}
	/* The sum is unsigned in both eras: s64 + unsigned long is u64. */
	fallback = wa_le(e, l->this_load, l->load) &&
		   l->this_load + prev_target <= tl_per_task;
	st = sr_trail_add(&d->trail, "wake_affine",
			  "balanced || (this_load <= load && "
			  "this_load + target_load(prev_cpu) <= tl_per_task)",
			  l->balanced ? "affine: balanced" :
			  fallback ? "affine: tl_per_task" : "not affine",
			  (l->balanced || fallback) ? ctx->this_cpu : ctx->prev_cpu);
	sr_step_val(st, "balanced", l->balanced);
	wa_val(e, st, "this_load", l->this_load);
	wa_val(e, st, "load", l->load);
	sr_step_uval(st, "target_load_prev", prev_target);
	sr_step_uval(st, "tl_per_task", tl_per_task);
	d->decided_by = l->hot_refused && !fallback ? SR_BY_TASK_HOT : SR_BY_WEIGHT;
	return l->balanced || fallback;
}

static int wake_affine_common(const struct wake_affine_era *e, const struct sr_policy *pol,
			      const struct sr_wake_ctx *ctx, const struct sr_domain *sd,
			      struct sr_decision *d)
{
	struct wake_affine_loads l = { 0 };
	struct sr_step *st;
	int ret;

	if (!pol || !ctx || !ctx->p || !ctx->rq || !ctx->topo || !sd || !d ||
	    !sr2637_cpu_valid(ctx, ctx->this_cpu) || !sr2637_cpu_valid(ctx, ctx->prev_cpu))
		return -EINVAL;
	d->depends |= ctx->unknown & SR_DEP_CGROUP;
	l.load = weighted_cpuload_2637(ctx, d, ctx->prev_cpu);
	l.this_load = weighted_cpuload_2637(ctx, d, ctx->this_cpu);
	st = sr_trail_add(&d->trail, "wake_affine",
			  "load = source_load(prev_cpu, 0); this_load = target_load(this_cpu, 0)",
			  "weighted_cpuload", ctx->this_cpu);
	sr_step_uval(st, "load", l.load);
	sr_step_uval(st, "this_load", l.this_load);
	if (ctx->sync == SR_YES) {
		ret = wake_affine_sync(e, ctx, d, &l);
		if (ret)
			return ret;
	}
	if (e->s64 ? (int64_t)l.this_load > 0 : l.this_load != 0) {
		ret = wake_affine_balance(e, pol, ctx, sd, d, &l);
		if (ret)
			return ret;
	} else {
		l.balanced = true;
		wa_val(e, sr_trail_add(&d->trail, "wake_affine", e->load_test,
				       "false: balanced", ctx->this_cpu), "this_load", l.this_load);
	}
	return wake_affine_tail(e, ctx, d, &l);
}

int sr_wake_affine_2637(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     const struct sr_domain *sd, struct sr_decision *d)
{
	return wake_affine_common(&era_2637, pol, ctx, sd, d);
}

int sr_wake_affine_2638(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		     const struct sr_domain *sd, struct sr_decision *d)
{
	return wake_affine_common(&era_2638, pol, ctx, sd, d);
}
