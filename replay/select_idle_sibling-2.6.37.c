// SPDX-License-Identifier: GPL-2.0
/*
 * select_idle_sibling(p, target) of kernel/sched_fair.c, 2.6.36 [U] - 3.0
 * (verified identical in 2.6.37, 2.6.38 and 3.0.1): keep target if it is
 * the waker's CPU or prev and idle; otherwise walk target's domains while
 * they share the package resources, taking the first idle allowed CPU of
 * each span in CPU order, until a level spans both the waker's CPU and
 * prev.  A higher level may overwrite a lower level's pick.  idle_cpu()
 * is only rq->curr == rq->idle in this era.
 */
#include <errno.h>
#include "models-2637.h"

/* The kernel's early returns: an idle target that is the waker's CPU or prev. */
static bool sis_keep_target_2637(const struct sr_wake_ctx *ctx, int target,
				 struct sr_decision *d)
{
	int cpu = ctx->this_cpu, prev = ctx->prev_cpu;
	bool keep;
	struct sr_step *st;

	keep = target == cpu && idle_cpu_2637(ctx, d, cpu);
	st = sr_trail_add(&d->trail, "select_idle_sibling", "target == cpu && idle_cpu(cpu)",
			  keep ? "return cpu" : "false", target);
	sr_step_val(st, "cpu", cpu);
	if (keep)
		return true;
	keep = target == prev && idle_cpu_2637(ctx, d, prev);
	st = sr_trail_add(&d->trail, "select_idle_sibling",
			  "target == prev_cpu && idle_cpu(prev_cpu)",
			  keep ? "return prev_cpu" : "false", target);
	sr_step_val(st, "prev_cpu", prev);
	return keep;
}

/* First idle CPU of @sd's span that p may run on, or -1. */
static int sis_scan_2637(const struct sr_wake_ctx *ctx, const struct sr_domain *sd,
			 struct sr_decision *d)
{
	int i;

	d->depends |= ctx->unknown & SR_DEP_AFFINITY;
	sr_for_each_cpu(i, &sd->span) {
		if (i >= ctx->topo->nr_cpus)
			break;
		if (sr2637_allowed(ctx, i) && idle_cpu_2637(ctx, d, i))
			return i;
	}
	return -1;
}

static const char *sis_level_result(int idle, bool covers)
{
	if (idle >= 0)
		return covers ? "target = idle cpu; span covers cpu and prev: stop" :
				"target = idle cpu; go up";
	return covers ? "no idle cpu; span covers cpu and prev: stop" : "no idle cpu; go up";
}

int sr_select_idle_sibling_2637(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			     int target, struct sr_decision *d)
{
	const struct sr_cpu_topo *c;
	const struct sr_domain *picked_at = NULL;
	int lvl, orig = target;

	if (!pol || !ctx || !ctx->rq || !ctx->topo || !d || !sr2637_cpu_valid(ctx, target) ||
	    !sr2637_cpu_valid(ctx, ctx->this_cpu) || !sr2637_cpu_valid(ctx, ctx->prev_cpu))
		return -EINVAL;
	if (sis_keep_target_2637(ctx, target, d)) {
		d->decided_by = SR_BY_SIS_TARGET;
		return target;
	}
	c = &ctx->topo->cpu[orig];
	d->depends |= ctx->unknown & SR_DEP_TOPOLOGY;
	for (lvl = 0; lvl < c->nr_levels; lvl++) {
		const struct sr_domain *sd = &c->sd[lvl];
		bool covers;
		struct sr_step *st;
		int idle;

		if (!(sd->flags & SD_SHARE_PKG_RESOURCES)) {
			sr_trail_add(&d->trail, "select_idle_sibling",
				     "!(sd->flags & SD_SHARE_PKG_RESOURCES)", "stop", target);
			break;
		}
		idle = sis_scan_2637(ctx, sd, d);
		if (idle >= 0) {
			target = idle;
			picked_at = sd;
		}
		covers = sr_mask_test(&sd->span, ctx->this_cpu) &&
			 sr_mask_test(&sd->span, ctx->prev_cpu);
		st = sr_trail_add(&d->trail, "select_idle_sibling",
				  "first idle_cpu(i) in span(sd) & cpus_allowed; "
				  "stop when span(sd) has cpu and prev_cpu",
				  sis_level_result(idle, covers), target);
		sr_step_val(st, "level", lvl);
		sr_step_uval(st, "span_weight", sd->span_weight);
		sr_step_val(st, "idle_cpu", idle);
		if (covers)
			break;
	}
	if (target != orig)
		d->decided_by = picked_at->flags & SD_SHARE_CPUCAPACITY ? SR_BY_SIS_SMT :
									  SR_BY_SIS_CPU;
	return target;
}
