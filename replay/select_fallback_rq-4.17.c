// SPDX-License-Identifier: GPL-2.0
/*
 * select_task_rq()'s last check, kernel/sched/core.c 4.17 - 6.18: the CPU
 * the class chose must pass is_cpu_allowed(), else select_fallback_rq()
 * picks another.  It only ever fails around a CPU hotplug: a CPU out of
 * cpu_active_mask takes no user task nor ordinary kthread ("sched/core: Fix
 * rules for running on online && !active CPUs", 4.17), a per-CPU kthread
 * (kthread_is_per_cpu(), 5.11) as long as the CPU is online.  The class
 * does not know: until the sched domains are rebuilt without it, a dying or
 * dead CPU reads idle to select_idle_sibling() and is chosen.
 */
#include "models.h"

/* @cpu is in @m, a mask the context may leave out (NULL: empty). */
static bool in_mask(const struct sr_cpumask *m, int cpu)
{
	return m && sr_mask_test(m, cpu);
}

/* is_cpu_allowed(): migration-disabled tasks are not told apart from the others. */
static bool is_cpu_allowed(const struct sr_wake_ctx *ctx, int cpu)
{
	if (cpu < 0 || cpu >= ctx->topo->nr_cpus)
		return false;
	if (ctx->allowed && !sr_mask_test(ctx->allowed, cpu))
		return false;
	if (in_mask(ctx->offline, cpu))
		return false;
	return ctx->p_percpu_kthread || !in_mask(ctx->inactive, cpu);
}

/*
 * select_fallback_rq(task_cpu(p), p): the first allowed CPU of prev's node,
 * else of the task's mask, else (cpuset_cpus_allowed_fallback()) any
 * active CPU.
 */
static int select_fallback_rq(const struct sr_wake_ctx *ctx)
{
	const struct sr_topo *t = ctx->topo;
	int node = ctx->prev_cpu >= 0 && ctx->prev_cpu < t->nr_cpus ? t->cpu[ctx->prev_cpu].node : -1;

	for (int c = 0; node >= 0 && c < t->nr_cpus; c++)
		if (t->cpu[c].node == node && is_cpu_allowed(ctx, c))
			return c;
	for (int c = 0; c < t->nr_cpus; c++)
		if (is_cpu_allowed(ctx, c))
			return c;
	for (int c = 0; c < t->nr_cpus; c++)
		if (!in_mask(ctx->inactive, c) && !in_mask(ctx->offline, c))
			return c;
	return ctx->prev_cpu;
}

void sr_select_task_rq_allowed(const struct sr_wake_ctx *ctx, struct sr_decision *d)
{
	struct sr_step *s;
	int cpu = d->cpu;

	if ((!ctx->inactive && !ctx->offline) || cpu < 0 || is_cpu_allowed(ctx, cpu))
		return;
	d->cpu = select_fallback_rq(ctx);
	s = sr_trail_add(&d->trail, "select_task_rq", "!is_cpu_allowed(p, cpu)",
			 "select_fallback_rq(task_cpu(p), p)", d->cpu);
	sr_step_val(s, "refused_cpu", cpu);
}
