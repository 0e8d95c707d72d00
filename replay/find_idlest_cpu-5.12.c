// SPDX-License-Identifier: GPL-2.0
/*
 * Fork/exec slow path, Linux 5.7 - 6.18 (kernel/sched/fair.c): find_idlest_cpu()
 * and find_idlest_group_cpu() (sched_balance_find_dst_{cpu,group_cpu}() from
 * 6.12 [R 6.8 -> 6.12]); the groups are compared in find_idlest_group-5.7.c.
 * Assumed: no cpuidle driver (the most recently idled CPU wins; before 6.12
 * its stamp may be newer than its switch to idle); with one, a choice
 * between idle CPUs depends on their idle states (SR_DEP_IDLE_STATE), no
 * NUMA-balancing preferred node.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "find_idlest.h"

/* ---- find_idlest_group_cpu() and find_idlest_cpu() ---- */

static int find_idlest_group_cpu(struct fic *f, const struct sr_cpumask *span, int this_cpu)
{
	unsigned long min_load = ULONG_MAX;
	uint64_t latest = 0;
	int least = this_cpu, shallowest = -1, i, ret = -1, nr_idle = 0;
	bool unknown = false, scanned = false;
	const char *why = "least loaded";
	struct sr_step *st;

	if (sr_mask_weight(span) == 1) {
		ret = sr_mask_first(span);
		why = "group_weight == 1";
		goto out;
	}
	sr_for_each_cpu(i, span) {
		const struct sr_rq *rq = &f->ctx->rq[i];

		if (f->ctx->allowed && !sr_mask_test(f->ctx->allowed, i))
			continue;
		if (sr_sis_sched_idle(&f->pred, i)) {
			ret = i;
			why = "sched_idle_cpu(i)";
			goto out;
		}
		if (sr_sis_available_idle(&f->pred, i)) {
			/*
			 * Idle since before the trace: its newidle balance stamped it
			 * then, before any stamp the trace shows, never 0 (which is
			 * "none": least_loaded_cpu, this_cpu, would win).
			 */
			uint64_t stamp = rq->idle_stamp_known ? rq->idle_stamp : 1;

			/* No cpuidle state known: the most recently idled CPU (strictly later). */
			nr_idle++;
			unknown |= !rq->idle_stamp_known;
			if (stamp > latest) {
				latest = stamp;
				shallowest = i;
			}
		} else if (shallowest == -1) {
			if (min_load != ULONG_MAX)
				pelt_cmp(f, rq->load_avg, min_load);
			if (rq->load_avg < min_load) {
				min_load = rq->load_avg;
				least = i;
			}
		}
	}
	/*
	 * Between idle CPUs the stamps decide, and the trace shows them only
	 * from a switch to idle: those from before the trace are unknown,
	 * and before 6.12 so is any later one.  Until 3dcac251b066 ("sched/core:
	 * Introduce SM_IDLE and an idle re-entry fast-path in __schedule()",
	 * 6.12) an idle CPU whose idle task is asked to reschedule with nothing
	 * to run (a timer queued on it from another CPU: wake_up_idle_cpu())
	 * goes through pick_next_task() and newidle_balance() again, which
	 * stamps it anew; no event shows that.  make fidelity: 55 of the 605
	 * fork placements of 6.1 that counted as determined were not the
	 * kernel's, mostly a CPU idle longer than the one the stamps picked.
	 */
	f->idle_choice |= nr_idle > 1;
	f->stamp_unknown |= nr_idle > 1 && unknown;
	scanned = true;
	if (shallowest != -1) {
		ret = shallowest;
		why = "available_idle_cpu(i) with the latest idle_stamp";
		f->relied_avail = true;
	} else {
		ret = least;
		f->used_pelt = true;
	}
out:
	st = sr_trail_add(f->trail, "find_idlest_group_cpu", why, "cpu", ret);
	sr_step_uval(st, "idle_stamp", latest);
	if (min_load != ULONG_MAX)	/* else no busy CPU was compared */
		sr_step_uval(st, "min_load", min_load);
	if (scanned && nr_idle)
		f->stamp_turns |= sr_sis_stamp_turns(&f->pred, f->trail, span, shallowest);
	return ret;
}

static unsigned int sd_flag_of(enum sr_wake_kind kind)
{
	if (kind == SR_WAKE_FORK)
		return SD_BALANCE_FORK;
	return kind == SR_WAKE_EXEC ? SD_BALANCE_EXEC : SD_BALANCE_WAKE;
}

/* After a move: the highest domain of @cpu narrower than @weight that has sd_flag. */
static int lower_level(const struct fic *f, int cpu, unsigned int weight)
{
	const struct sr_cpu_topo *c = &f->t->cpu[cpu];
	int level = -1;

	for (int l = 0; l < c->nr_levels; l++) {
		if (weight <= c->sd[l].span_weight)
			break;
		if (c->sd[l].flags & f->sd_flag)
			level = l;
	}
	return level;
}

static int find_idlest_cpu(struct fic *f, int level, int prev)
{
	int cpu = f->ctx->this_cpu, new_cpu = cpu;
	struct sr_cpumask group;
	struct sr_step *st;

	if (!intersects_allowed(f, &f->t->cpu[cpu].sd[level].span)) {
		st = sr_trail_add(f->trail, "find_idlest_cpu",
				  "!cpumask_intersects(sched_domain_span(sd), p->cpus_ptr)",
				  "return prev", prev);
		sr_step_val(st, "level", level);
		return prev;
	}
	while (level >= 0) {
		const struct sr_domain *sd = &f->t->cpu[cpu].sd[level];

		if (!(sd->flags & f->sd_flag) || !sr_fic_find_idlest_group(f, cpu, level, &group)) {
			level--;
			continue;
		}
		new_cpu = find_idlest_group_cpu(f, &group, cpu);
		if (new_cpu == cpu) {
			level--;
			continue;
		}
		cpu = new_cpu;
		level = lower_level(f, cpu, sd->span_weight);
	}
	return new_cpu;
}

/* A CPU busy when the trace began, its sums not warmed up yet (sr_rq.pelt_cold). */
static bool any_cold(const struct sr_wake_ctx *ctx)
{
	for (int c = 0; c < ctx->topo->nr_cpus; c++)
		if (ctx->rq[c].pelt_cold)
			return true;
	return false;
}

int sr_find_idlest_cpu(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		       int sd_level, int prev, struct sr_decision *d)
{
	const struct sr_topo *t = ctx ? ctx->topo : NULL;
	struct fic f;
	int cpu;

	if (!pol || !ctx || !d || !t || !ctx->rq || !ctx->p || t->nr_cpus < 1)
		return -EINVAL;
	if (prev < 0 || prev >= t->nr_cpus || ctx->this_cpu < 0 || ctx->this_cpu >= t->nr_cpus)
		return -EINVAL;
	if (sd_level < 0 || sd_level >= t->cpu[ctx->this_cpu].nr_levels)
		return -EINVAL;
	if (pol->knobs.kver < SR_KV(5, 7))
		return -EOPNOTSUPP;
	memset(&f, 0, sizeof(f));
	f.ctx = ctx;
	f.t = t;
	f.trail = &d->trail;
	f.kver = pol->knobs.kver;
	f.sd_flag = sd_flag_of(ctx->kind);
	f.pred.ctx = ctx;
	f.pred.t = t;
	f.pred.kver = f.kver;
	cpu = find_idlest_cpu(&f, sd_level, prev);
	d->decided_by = SR_BY_SLOW_PATH;
	if (f.used_pelt)
		d->depends |= ctx->unknown & SR_DEP_PELT_WARMUP;
	if (f.used_pelt && any_cold(ctx))
		d->depends |= SR_DEP_PELT_WARMUP;
	if (f.close_call)
		d->depends |= SR_DEP_LOAD_ESTIMATE;
	if (f.delayed_dep)
		d->depends |= SR_DEP_DELAYED_DEQUEUE;
	if (f.relied_avail)
		d->depends |= ctx->unknown & SR_DEP_VCPU;
	if (f.stamp_unknown || (f.idle_choice && f.kver < SR_KV(6, 12)))
		d->depends |= SR_DEP_IDLE_STAMP;
	d->stamp_turns |= f.stamp_turns;
	/* with a cpuidle driver the shallowest idle state wins first: no event shows it */
	if (f.idle_choice)
		d->depends |= ctx->unknown & SR_DEP_IDLE_STATE;
	d->depends |= ctx->unknown & (SR_DEP_TOPOLOGY | SR_DEP_AFFINITY);
	if (ctx->rq[cpu].uncertain)
		d->depends |= SR_DEP_LOST_EVENTS;
	return cpu;
}
