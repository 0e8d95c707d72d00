// SPDX-License-Identifier: GPL-2.0
/*
 * select_idle_sibling() single pass, Linux 5.12 - 5.19 (kernel/sched/fair.c):
 * Mel Gorman's "Scan for an idle sibling in a single pass" (v3, Jan 2021, merged
 * for 5.12 without patch 3) with Rik van Riel's select_idle_smt() on prev's
 * siblings (c722f35b513f, in 5.12.9), select_idle_core() for one core and
 * select_idle_cpu() with the SIS_PROP depth:
 *   5.12        avg_idle = rq->avg_idle / 512, scan from target
 *   5.13 - 5.14 avg_idle = rq->wake_avg_idle halved per jiffy since wake_stamp
 *   5.15 - 5.19 ... and the scan starts at target + 1
 * SR_F_SIS_SMT_WEIGHT replays the dropped patch 3 (Peter Zijlstra, "Make
 * select_idle_cpu() proportional to cores"): depth floor sis_min_cores (our
 * knobs.sis_min_loops) instead of 4, then nr *= sched_smt_weight.
 * The entry checks live in select_idle_sibling.c.
 */
#include <limits.h>
#include "models-sis.h"

static bool select_idle_cpu_ok(const struct sr_sis *s, int cpu)
{
	return sr_sis_available_idle(s, cpu) || sr_sis_sched_idle(s, cpu);
}

uint64_t sr_sis_aged_wake_avg_idle(uint64_t wake_avg_idle, uint64_t stamp, uint64_t now)
{
	while (stamp < now && wake_avg_idle) {
		stamp++;
		wake_avg_idle >>= 1;
	}
	return wake_avg_idle;
}

static int sr_select_idle_core_512(struct sr_sis *s, int core, struct sr_cpumask *cpus, int *idle)
{
	bool all = true;
	int c;

	if (!sr_sis_smt_active(s->t))
		return select_idle_cpu_ok(s, core) ? core : SR_SIS_NONE;
	sr_for_each_cpu(c, &s->t->cpu[core].smt) {
		if (!sr_sis_available_idle(s, c)) {
			all = false;
			if (*idle != SR_SIS_NONE)
				break;
			/* No idle CPU yet: a sched-idle sibling will do, and ends this core. */
			if (sr_sis_sched_idle(s, c) && sr_sis_allowed(s, c)) {
				*idle = c;
				break;
			}
			continue;
		}
		if (*idle == SR_SIS_NONE && sr_sis_allowed(s, c))
			*idle = c;
	}
	if (all)
		return core;
	sr_for_each_cpu(c, &s->t->cpu[core].smt)
		sr_mask_unset(cpus, c);
	return SR_SIS_NONE;
}

/* Rik van Riel's select_idle_smt(p, sd, prev): prev's siblings, prev included. */
static int select_idle_smt_512(struct sr_sis *s, const struct sr_domain *sd, int prev)
{
	int c, found = SR_SIS_NONE;
	struct sr_step *st;

	sr_for_each_cpu(c, &s->t->cpu[prev].smt) {
		if (!sr_sis_allowed(s, c) || !sr_mask_test(&sd->span, c))
			continue;
		if (select_idle_cpu_ok(s, c)) {
			found = c;
			break;
		}
	}
	st = sr_sis_step(s, "select_idle_smt", "first allowed idle CPU of cpu_smt_mask(prev)",
			 found >= 0 ? "idle sibling of prev" : "none", found);
	sr_step_val(st, "prev", prev);
	sr_step_val(st, "found", found);
	return found;
}

/* avg_idle in the SIS_PROP formula: 5.12 avg_idle/512, 5.13+ the aged wake_avg_idle. */
static uint64_t sis_prop_avg_idle(const struct sr_sis *s)
{
	const struct sr_wake_ctx *ctx = s->ctx;
	uint64_t avg_idle = s->ctx->rq[s->ctx->this_cpu].avg_idle;

	if (s->kver < SR_KV(5, 13))
		return avg_idle / 512;
	if (ctx->wake_avg.known)
		return sr_sis_aged_wake_avg_idle(ctx->wake_avg.avg_idle, ctx->wake_avg.stamp,
						 ctx->wake_avg.jiffies);
	/* What ttwu set it to when this CPU last left idle; its age is unknown. */
	return avg_idle / 2;
}

int sr_sis_prop_depth(struct sr_sis *s, const struct sr_domain *sd, int *nr)
{
	uint64_t avg_idle = sis_prop_avg_idle(s), span_avg;
	uint64_t avg_cost = (uint64_t)s->pol->knobs.sis_avg_scan_cost_ns + 1;
	bool cores = (s->feat & SR_F_SIS_SMT_WEIGHT) && s->kver < SR_KV(6, 0);
	int min = 4, w = 1;
	struct sr_step *st;

	if (cores) {
		min = s->pol->knobs.sis_min_loops > 0 ? s->pol->knobs.sis_min_loops : 2;
		w = sr_sis_smt_weight(s->t);
	}
	span_avg = sd->span_weight * avg_idle;
	*nr = span_avg > (uint64_t)min * avg_cost ? (int)(span_avg / avg_cost) : min;
	*nr = (int)((unsigned int)*nr * (unsigned int)w);
	st = sr_sis_step(s, "select_idle_cpu",
			 cores ? "nr = (span_avg > sis_min_cores * avg_cost ? "
				 "span_avg / avg_cost : sis_min_cores) * sched_smt_weight"
			       : "nr = span_avg > 4 * avg_cost ? span_avg / avg_cost : 4",
			 "SIS_PROP depth", -1);
	sr_step_uval(st, "avg_idle", avg_idle);
	sr_step_uval(st, "avg_cost", avg_cost);
	sr_step_uval(st, "span_avg", span_avg);
	sr_step_val(st, "sis_min", min);
	sr_step_val(st, "smt_weight", w);
	sr_step_val(st, "nr", *nr);
	return min * w;
}

void sr_sis_scan_mask(const struct sr_sis *s, const struct sr_domain *sd,
		      struct sr_cpumask *cpus)
{
	/* a word at a time: this runs for every scan of every what-if */
	sr_mask_copy(cpus, &sd->span);
	if (s->ctx->allowed)
		sr_mask_and(cpus, s->ctx->allowed);
}

/* The int nr wraps like the kernel's (-fwrapv); 6.8+ stop at <= 0, before at 0. */
static bool depth_out(struct sr_sis_scan *r)
{
	r->nr = (int)((unsigned int)r->nr - 1u);
	return r->stop_le0 ? r->nr <= 0 : r->nr == 0;
}

void sr_sis_scan_llc(struct sr_sis *s, struct sr_cpumask *cpus, bool has_idle_core,
		     struct sr_sis_scan *r)
{
	int n = s->t->nr_cpus, c;

	r->visited = 0;
	r->idle = r->core = SR_SIS_NONE;
	r->limited = false;
	/* the walk re-reads the mask, which select_idle_core() trims as it goes */
	sr_for_each_cpu_wrap(c, cpus, r->start % n) {
		if (c >= n)
			continue;
		if (has_idle_core) {
			r->visited++;
			r->core = sr_select_idle_core_512(s, c, cpus, &r->idle);
			if (r->core != SR_SIS_NONE)
				return;
			continue;
		}
		if (depth_out(r)) {
			r->limited = true;
			return;
		}
		r->visited++;
		if (select_idle_cpu_ok(s, c)) {
			r->idle = c;
			return;
		}
	}
}

int sr_sis_scan_done(struct sr_sis *s, bool has_idle_core, const char *check,
		     const struct sr_sis_scan *r)
{
	int ret = r->core != SR_SIS_NONE ? r->core : r->limited ? SR_SIS_NONE : r->idle;
	struct sr_step *st;

	st = sr_sis_step(s, "select_idle_cpu", check,
			 r->core != SR_SIS_NONE ? "idle core" : r->limited ? "depth exhausted" :
			 ret != SR_SIS_NONE ? "idle cpu" : "none", ret);
	sr_step_val(st, "visited", r->visited);
	sr_step_val(st, "nr", r->nr0);
	sr_step_val(st, "start", r->start % s->t->nr_cpus);
	sr_step_val(st, "found", ret);
	s->used_allowed = true;
	if (has_idle_core && r->core == SR_SIS_NONE)
		s->cleared_idle_cores = true;	/* set_idle_cores(target, false) */
	/* Deeper than the SIS_PROP floor: another avg_scan_cost could have stopped it. */
	if (r->floor != INT_MAX && (r->limited || (ret != SR_SIS_NONE && r->visited >= r->floor)))
		s->scan_cost_mattered = true;
	if (ret != SR_SIS_NONE)
		sr_sis_pick(s, ret, r->core != SR_SIS_NONE ? SR_BY_SIS_CORE : SR_BY_SIS_CPU);
	return ret;
}

/* select_idle_cpu() of 5.12 - 5.19: a whole-LLC core scan, or a CPU scan of nr - 1 CPUs. */
static int select_idle_cpu_512(struct sr_sis *s, const struct sr_domain *sd, bool has_idle_core)
{
	struct sr_sis_scan r = { .start = s->target + (s->kver >= SR_KV(5, 15)),
				 .nr = INT_MAX, .floor = INT_MAX };
	struct sr_cpumask cpus;

	if (!sr_highest_flag_domain(s->t, s->ctx->this_cpu, SD_SHARE_PKG_RESOURCES))
		return SR_SIS_NONE;
	sr_sis_scan_mask(s, sd, &cpus);
	if ((s->feat & SR_F_SIS_PROP) && !has_idle_core)
		r.floor = sr_sis_prop_depth(s, sd, &r.nr);
	r.nr0 = r.nr;
	sr_sis_scan_llc(s, &cpus, has_idle_core, &r);
	return sr_sis_scan_done(s, has_idle_core, has_idle_core ?
				"for_each_cpu_wrap(cpu, cpus, target): select_idle_core()" :
				"for_each_cpu_wrap(cpu, cpus, target): !--nr, "
				"available_idle_cpu || sched_idle_cpu", &r);
}

int sr_select_idle_sibling_512(struct sr_sis *s)
{
	static const struct sr_sis_pass pass = {
		"test_idle_cores(target, false)", select_idle_smt_512, select_idle_cpu_512,
	};

	return sr_sis_single_pass(s, &pass);
}
