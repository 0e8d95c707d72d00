// SPDX-License-Identifier: GPL-2.0
/*
 * select_idle_sibling() with SIS_UTIL, Linux 6.0 - 6.18 (kernel/sched/fair.c):
 * select_idle_cpu() budgeted by sd_llc_shared->nr_idle_scan (SIS_UTIL, on by
 * default; the state keeps it with sr_update_idle_cpu_scan()) and, until its
 * removal in 6.7 [U], by SIS_PROP (off by default, 5.15 form);
 * select_idle_smt() on prev's siblings.
 *   6.0         sd_llc(this) checked before the scan; stop on !--nr
 *   6.1 - 6.6   sd_llc(this) checked only for SIS_PROP; select_idle_smt()
 *               skips prev and drops the LLC-span test
 *   6.8+        stop on --nr <= 0 (the cluster rework)
 *   6.12+       select_idle_smt() tests the LLC span again [R 6.8 -> 6.12]
 * Clusters (6.6+) are not modelled: our topology has no cluster level.
 * The entry checks live in select_idle_sibling.c.
 */
#include <errno.h>
#include <limits.h>
#include "models-sis.h"

static bool idle_ok(const struct sr_sis *s, int cpu)
{
	return sr_sis_available_idle(s, cpu) || sr_sis_sched_idle(s, cpu);
}

static int select_idle_smt_60(struct sr_sis *s, const struct sr_domain *sd, int prev)
{
	bool v60 = s->kver < SR_KV(6, 1), span = v60 || s->kver >= SR_KV(6, 12);
	int c, found = SR_SIS_NONE;
	struct sr_step *st;

	sr_for_each_cpu(c, &s->t->cpu[prev].smt) {
		if (!sr_sis_allowed(s, c) || (!v60 && c == prev))
			continue;
		if (span && !sr_mask_test(&sd->span, c))
			continue;
		if (idle_ok(s, c)) {
			found = c;
			break;
		}
	}
	st = sr_sis_step(s, "select_idle_smt",
			 v60 ? "first allowed idle CPU of cpu_smt_mask(prev)"
			     : "first allowed idle CPU of cpu_smt_mask(prev) other than prev",
			 found >= 0 ? "idle sibling of prev" : "none", found);
	sr_step_val(st, "prev", prev);
	sr_step_val(st, "found", found);
	return found;
}

/* The SIS_UTIL budget: false when nr_idle_scan == 0 stops the search at once. */
static bool sis_util_depth(struct sr_sis *s, int *nr)
{
	struct sr_step *st;

	*nr = (int)((unsigned int)s->nr_idle_scan + 1u);
	st = sr_sis_step(s, "select_idle_cpu", "nr = sd_share->nr_idle_scan + 1; nr == 1",
			 *nr == 1 ? "overloaded LLC: give up" : "scan", -1);
	sr_step_val(st, "nr_idle_scan", s->nr_idle_scan);
	sr_step_val(st, "nr", *nr);
	return *nr != 1;
}

static int select_idle_cpu_60(struct sr_sis *s, const struct sr_domain *sd, bool has_idle_core)
{
	bool prop = s->kver < SR_KV(6, 7) && (s->feat & SR_F_SIS_PROP) && !has_idle_core;
	bool util = s->feat & SR_F_SIS_UTIL, v68 = s->kver >= SR_KV(6, 8);
	struct sr_sis_scan r = { .start = s->target + 1, .nr = INT_MAX, .floor = INT_MAX,
				 .stop_le0 = v68 };
	struct sr_cpumask cpus;

	if (!sr_highest_flag_domain(s->t, s->ctx->this_cpu, SD_SHARE_PKG_RESOURCES) &&
	    (s->kver < SR_KV(6, 1) || prop))
		return SR_SIS_NONE;
	/*
	 * The kernel fills cpus first; read by the scan only, it is filled
	 * once SIS_UTIL's budget let the scan go on (half the what-ifs stop
	 * there).  SIS_PROP's depth never reads it.
	 */
	if (prop)
		r.floor = sr_sis_prop_depth(s, sd, &r.nr);
	if (util && !sis_util_depth(s, &r.nr))
		return SR_SIS_NONE;
	sr_sis_scan_mask(s, sd, &cpus);
	/* SIS_UTIL's budget replaces SIS_PROP's: the scan cost no longer matters. */
	if (util)
		r.floor = INT_MAX;
	r.nr0 = r.nr;
	sr_sis_scan_llc(s, &cpus, has_idle_core, &r);
	return sr_sis_scan_done(s, has_idle_core, has_idle_core ?
				"for_each_cpu_wrap(cpu, cpus, target + 1): select_idle_core()" :
				v68 ? "for_each_cpu_wrap(cpu, cpus, target + 1): --nr <= 0, idle" :
				"for_each_cpu_wrap(cpu, cpus, target + 1): !--nr, idle", &r);
}

int sr_select_idle_sibling_60(struct sr_sis *s)
{
	static const struct sr_sis_pass pass = {
		"test_idle_cores(target)", select_idle_smt_60, select_idle_cpu_60,
	};

	return sr_sis_single_pass(s, &pass);
}
