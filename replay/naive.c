// SPDX-License-Identifier: GPL-2.0
/*
 * Naive predictors, no kernel version: the baselines a placement model
 * must beat to be worth its detail.  naive-prev keeps the task where it
 * last ran; naive-waker always pulls it to the waker's CPU; naive-idle-first
 * takes prev if idle, else the waker's CPU if idle, else the first idle CPU
 * of prev's LLC (then of the machine) scanning from prev + 1, else prev.
 */
#include <errno.h>
#include "models.h"

static bool idle(const struct sr_wake_ctx *ctx, int cpu)
{
	return sr_rq_idle(&ctx->rq[cpu]);
}

static bool ctx_ok(const struct sr_wake_ctx *ctx)
{
	int n = ctx->topo ? ctx->topo->nr_cpus : 0;

	return ctx->rq && ctx->prev_cpu >= 0 && ctx->prev_cpu < n && ctx->this_cpu >= 0 &&
	       ctx->this_cpu < n;
}

static int decide(struct sr_decision *d, const char *fn, const char *check, int cpu,
		  enum sr_decider by)
{
	sr_trail_add(&d->trail, fn, check, "chosen", cpu);
	d->cpu = cpu;
	d->decided_by = by;
	return 0;
}

static int naive_prev(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		      struct sr_decision *d)
{
	if (!ctx_ok(ctx))
		return -EINVAL;
	return decide(d, "naive_prev", "always prev_cpu", ctx->prev_cpu, SR_BY_IDLE_PREV);
}

static int naive_waker(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		       struct sr_decision *d)
{
	if (!ctx_ok(ctx))
		return -EINVAL;
	return decide(d, "naive_waker", "always this_cpu", ctx->this_cpu, SR_BY_IDLE_WAKER);
}

/* First idle CPU of @span, scanning from @from + 1 and wrapping; -1 if none. */
static int first_idle(const struct sr_wake_ctx *ctx, const struct sr_cpumask *span, int from)
{
	int n = ctx->topo->nr_cpus;

	for (int i = 1; i <= n; i++) {
		int cpu = (from + i) % n;

		if (sr_mask_test(span, cpu) && idle(ctx, cpu))
			return cpu;
	}
	return -1;
}

static int naive_idle_first(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			    struct sr_decision *d)
{
	const char *fn = "naive_idle_first";
	int cpu;

	if (!ctx_ok(ctx))
		return -EINVAL;
	if (idle(ctx, ctx->prev_cpu))
		return decide(d, fn, "idle(prev_cpu)", ctx->prev_cpu, SR_BY_IDLE_PREV);
	if (idle(ctx, ctx->this_cpu))
		return decide(d, fn, "idle(this_cpu)", ctx->this_cpu, SR_BY_IDLE_WAKER);
	cpu = first_idle(ctx, &ctx->topo->cpu[ctx->prev_cpu].llc, ctx->prev_cpu);
	if (cpu >= 0)
		return decide(d, fn, "first idle CPU of prev's LLC", cpu, SR_BY_SIS_CPU);
	cpu = first_idle(ctx, &ctx->topo->possible, ctx->prev_cpu);
	if (cpu >= 0)
		return decide(d, fn, "first idle CPU", cpu, SR_BY_SIS_CPU);
	return decide(d, fn, "nothing idle: prev_cpu", ctx->prev_cpu, SR_BY_SIS_TARGET);
}

const struct sr_policy_ops sr_naive_prev_ops = { "naive-prev", naive_prev };
const struct sr_policy_ops sr_naive_waker_ops = { "naive-waker", naive_waker };
const struct sr_policy_ops sr_naive_idle_first_ops = { "naive-idle-first", naive_idle_first };
