// SPDX-License-Identifier: GPL-2.0
/*
 * select_idle_sibling() three passes, Linux 4.9 - 5.11 (kernel/sched/fair.c):
 * select_idle_core(), select_idle_cpu(), select_idle_smt() over sd_llc(target).
 *   4.9 - 4.10  select_idle_cpu() gives up when avg_idle/512 < avg_scan_cost
 *   4.11 - 4.12 ... only under SIS_AVG_CPU
 *   4.13 - 5.11 avg_scan_cost + 1, SIS_AVG_CPU, SIS_PROP scan depth
 *   4.9 - 5.2   scan over the LLC span, disallowed CPUs use up the depth too
 *   5.3 - 5.11  scan over span & p->cpus_ptr
 *   4.18+ available_idle_cpu(); 5.4 sched-idle fallback (si_cpu); 5.5+
 *   sched_idle_cpu() counts as idle [5.5: U, 5.6.4 read]; 5.10+ select_idle_smt()
 *   checks the LLC span.
 * The entry checks live in select_idle_sibling.c.
 */
#include <limits.h>
#include "models-sis.h"

/* select_idle_cpu()/select_idle_smt() idle test by era. */
static bool idle_49(const struct sr_sis *s, int cpu)
{
	if (s->kver >= SR_KV(5, 5))
		return sr_sis_available_idle(s, cpu) || sr_sis_sched_idle(s, cpu);
	return sr_sis_available_idle(s, cpu);
}

static bool si_fallback(const struct sr_sis *s)
{
	return s->kver >= SR_KV(5, 4) && s->kver < SR_KV(5, 5);
}

/* The kernel decrements an int nr and stops when it reaches 0 (!--nr), wrapping like -fwrapv. */
static int nr_dec(int *nr)
{
	*nr = (int)((unsigned int)*nr - 1u);
	return *nr;
}

static int select_idle_core_49(struct sr_sis *s, const struct sr_domain *sd)
{
	int nr = s->t->nr_cpus, visited = 0, found = SR_SIS_NONE, c, sib;
	struct sr_cpumask cpus;
	struct sr_step *st;

	if (!sr_sis_smt_active(s->t))
		return SR_SIS_NONE;
	if (!s->idle_cores) {
		st = sr_sis_step(s, "select_idle_core", "test_idle_cores(target, false)",
				 "no idle core: skip", s->target);
		sr_step_val(st, "has_idle_cores", 0);
		return SR_SIS_NONE;
	}
	sr_mask_clear(&cpus);
	sr_for_each_cpu(c, &sd->span)
		if (sr_sis_allowed(s, c))
			sr_mask_set(&cpus, c);
	sr_for_each_cpu_wrap(c, &cpus, s->target % nr) {
		bool idle = true;

		if (found != SR_SIS_NONE)
			break;
		if (c >= nr)
			continue;
		visited++;
		sr_for_each_cpu(sib, &s->t->cpu[c].smt) {
			sr_mask_unset(&cpus, sib);
			if (!sr_sis_available_idle(s, sib))
				idle = false;
		}
		if (idle)
			found = c;
	}
	st = sr_sis_step(s, "select_idle_core",
			 "for_each_cpu_wrap(core, span & cpus_allowed, target): "
			 "every cpu_smt_mask(core) CPU idle",
			 found >= 0 ? "idle core" : "none: set_idle_cores(target, 0)", found);
	sr_step_val(st, "cores_visited", visited);
	sr_step_val(st, "limit", INT_MAX);
	sr_step_val(st, "found", found);
	s->used_allowed = true;
	if (found == SR_SIS_NONE)
		s->cleared_idle_cores = true;
	else
		sr_sis_pick(s, found, SR_BY_SIS_CORE);
	return found;
}

/* The scan depth before the loop; false when SIS_AVG_CPU (or 4.9's test) gives up. */
static bool scan_depth_49(struct sr_sis *s, const struct sr_domain *sd, int *nr, bool *gate)
{
	uint64_t avg_idle = s->ctx->rq[s->ctx->this_cpu].avg_idle;
	uint64_t avg_cost = (uint64_t)s->pol->knobs.sis_avg_scan_cost_ns, span_avg = 0;
	bool old = s->kver < SR_KV(4, 13), prop = !old && (s->feat & SR_F_SIS_PROP);
	struct sr_step *st;
	const char *check;
	bool give_up;

	*gate = s->kver < SR_KV(4, 11) || (s->feat & SR_F_SIS_AVG_CPU);
	avg_idle /= 512;
	if (!old)
		avg_cost += 1;
	give_up = *gate && avg_idle < avg_cost;
	if (prop && !give_up) {
		span_avg = sd->span_weight * avg_idle;
		*nr = span_avg > 4 * avg_cost ? (int)(span_avg / avg_cost) : 4;
	}
	if (!*gate && !prop)
		return true;
	if (give_up || !prop)
		check = "avg_idle / 512 < avg_cost";
	else
		check = "nr = span_weight * avg_idle > 4 * avg_cost ? "
			"span_weight * avg_idle / avg_cost : 4";
	st = sr_sis_step(s, "select_idle_cpu", check, give_up ? "give up" : "scan", -1);
	sr_step_uval(st, "avg_idle", avg_idle);
	sr_step_uval(st, "avg_cost", avg_cost);
	sr_step_uval(st, "span_avg", span_avg);
	sr_step_val(st, "nr", *nr);
	if (give_up)
		s->scan_cost_mattered = true;
	return !give_up;
}

static int select_idle_cpu_49(struct sr_sis *s, const struct sr_domain *sd)
{
	int n = s->t->nr_cpus, nr = INT_MAX, nr0, iters = 0, tested = 0;
	int found = SR_SIS_NONE, si = SR_SIS_NONE, ret, c;
	bool all_span = s->kver < SR_KV(5, 3), limited = false, gate, prop;
	struct sr_step *st;

	if (!sr_highest_flag_domain(s->t, s->ctx->this_cpu, SD_SHARE_PKG_RESOURCES))
		return SR_SIS_NONE;
	if (!scan_depth_49(s, sd, &nr, &gate))
		return SR_SIS_NONE;
	nr0 = nr;
	sr_for_each_cpu_wrap(c, &sd->span, s->target % n) {
		if (c >= n || (!all_span && !sr_sis_allowed(s, c)))
			continue;
		if (!nr_dec(&nr)) {
			limited = true;
			break;
		}
		iters++;
		if (all_span && !sr_sis_allowed(s, c))
			continue;
		tested++;
		if (idle_49(s, c)) {
			found = c;
			break;
		}
		if (si_fallback(s) && si == SR_SIS_NONE && sr_sis_sched_idle(s, c))
			si = c;
	}
	/* 5.4 returns the sched-idle CPU only when the depth ran out. */
	ret = limited && si_fallback(s) ? si : found;
	st = sr_sis_step(s, "select_idle_cpu",
			 all_span ? "for_each_cpu_wrap(cpu, span, target): !--nr, allowed, idle"
				  : "for_each_cpu_wrap(cpu, span & cpus_ptr, target): !--nr, idle",
			 limited ? "depth exhausted" : found >= 0 ? "idle cpu" : "none", ret);
	sr_step_val(st, "tested", tested);
	sr_step_val(st, "nr", nr0);
	sr_step_val(st, "found", ret);
	s->used_allowed = true;
	/* The minimum depth (4) always allows 3 iterations; more needed the assumed cost. */
	prop = s->kver >= SR_KV(4, 13) && (s->feat & SR_F_SIS_PROP);
	if (limited || (ret >= 0 && (gate || (prop && iters >= 4))))
		s->scan_cost_mattered = true;
	if (ret >= 0)
		sr_sis_pick(s, ret, SR_BY_SIS_CPU);
	return ret;
}

static int select_idle_smt_49(struct sr_sis *s, const struct sr_domain *sd)
{
	int c, si = SR_SIS_NONE, found = SR_SIS_NONE;
	struct sr_step *st;

	if (!sr_sis_smt_active(s->t))
		return SR_SIS_NONE;
	sr_for_each_cpu(c, &s->t->cpu[s->target].smt) {
		if (!sr_sis_allowed(s, c))
			continue;
		if (s->kver >= SR_KV(5, 10) && !sr_mask_test(&sd->span, c))
			continue;
		if (idle_49(s, c)) {
			found = c;
			break;
		}
		if (si_fallback(s) && si == SR_SIS_NONE && sr_sis_sched_idle(s, c))
			si = c;
	}
	if (found == SR_SIS_NONE)
		found = si;
	st = sr_sis_step(s, "select_idle_smt", "first allowed idle CPU of cpu_smt_mask(target)",
			 found >= 0 ? "idle sibling" : "none", found);
	sr_step_val(st, "found", found);
	if (found >= 0) {
		s->used_allowed = true;
		sr_sis_pick(s, found, SR_BY_SIS_SMT);
	}
	return found;
}

int sr_select_idle_sibling_49(struct sr_sis *s)
{
	const struct sr_domain *sd;
	int i = sr_sis_prefix(s);

	if (i != SR_SIS_NONE)
		return i;
	sd = sr_highest_flag_domain(s->t, s->target, SD_SHARE_PKG_RESOURCES);
	s->used_topo = true;
	if (sd) {
		i = select_idle_core_49(s, sd);
		if (i == SR_SIS_NONE)
			i = select_idle_cpu_49(s, sd);
		if (i == SR_SIS_NONE)
			i = select_idle_smt_49(s, sd);
		if (i != SR_SIS_NONE)
			return i;
	}
	sr_sis_step(s, "select_idle_sibling", sd ? "no idle CPU found" : "sd_llc(target) == NULL",
		    "return target", s->target);
	s->by = SR_BY_SIS_TARGET;
	s->relied_avail = false;
	return s->target;
}
