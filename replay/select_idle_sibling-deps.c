// SPDX-License-Identifier: GPL-2.0
/*
 * What an answer of select_idle_sibling() depends on among the inputs a
 * trace cannot show: the LLC's hints (has_idle_cores, SIS_UTIL's
 * nr_idle_scan, 6.0+), p->recent_used_cpu, the scan's cost (SIS_PROP), a
 * vCPU's preemption, the affinity and topology — each hint replayed as a
 * what-if on the same runqueues, and the answers other hints give kept
 * for the state to learn from the kernel's choice (src/state/follow.c).
 */
#include <stdbool.h>
#include "models-sis.h"

/* The answer under another has_idle_cores (@flip_cores) or nr_idle_scan (@scan >= 0), silently. */
static int sis_what_if(const struct sr_sis *s, bool flip_cores, int scan)
{
	struct sr_sis alt;

	sr_sis_init(&alt, s->pol, s->ctx, s->prev, s->target, NULL);
	/* the same checks on the same runqueues: only their answer is needed here */
	alt.prefix = s->prefix;
	if (flip_cores)
		alt.idle_cores = !s->idle_cores;
	if (scan >= 0)
		alt.nr_idle_scan = scan;
	return sr_sis_run(&alt);
}

/* The smallest budget in [@lo, @hi] whose answer is @cpu (@hi's is). */
static int least_budget(const struct sr_sis *s, int cpu, int lo, int hi)
{
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (sis_what_if(s, false, mid) == cpu)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/*
 * An unknown budget may be 0; an estimated one anything from 0 to the whole
 * LLC.  @fx receives the answers a budget of 0 and of the whole LLC give,
 * when they differ.
 */
static bool scan_mattered(const struct sr_sis *s, int cpu, const struct sr_llc_view *llc,
			  struct sr_sis_fx *fx)
{
	int full = sr_llc_size(s->t, s->target), alt;
	bool mattered = false;

	if (llc && llc->nr_idle_scan >= 0 && !llc->nr_idle_scan_estimated)
		return false;
	if (s->nr_idle_scan != 0) {
		alt = sis_what_if(s, false, 0);
		if (alt != cpu) {
			fx->cpu_no_scan = alt;
			fx->no_scan_budget = least_budget(s, cpu, 1, s->nr_idle_scan) - 1;
			mattered = true;
		}
	}
	if (!llc || !llc->nr_idle_scan_estimated || s->nr_idle_scan >= full)
		return mattered;
	alt = sis_what_if(s, false, full);
	if (alt == cpu)
		return mattered;
	fx->cpu_full_scan = alt;
	fx->full_scan_budget = least_budget(s, alt, s->nr_idle_scan + 1, full);
	return true;
}

/*
 * A guessed clear has_idle_cores sent the search to select_idle_smt(), which
 * found an idle sibling of prev: set, it skips that, and a budget of 0 then
 * ends select_idle_cpu() at once (6.0+), answering the target — what
 * neither hint alone gives.  @fx receives that answer when it differs.
 */
static bool both_hints_mattered(const struct sr_sis *s, int cpu, const struct sr_llc_view *llc,
				struct sr_sis_fx *fx)
{
	int alt;

	if (s->by != SR_BY_SIS_SMT || s->idle_cores || (llc && !llc->idle_cores_unknown) ||
	    s->kver < SR_KV(6, 0) || !(s->feat & SR_F_SIS_UTIL) ||
	    (llc && llc->nr_idle_scan >= 0 && !llc->nr_idle_scan_estimated))
		return false;
	alt = sis_what_if(s, true, 0);
	if (alt == cpu)
		return false;
	fx->cpu_cores_no_scan = alt;
	return true;
}

/* Some CPU of @m idle by every era's test (idle_cpu(), available_idle_cpu(), sched_idle_cpu()). */
static bool any_idle(const struct sr_sis *s, const struct sr_cpumask *m)
{
	int c;

	sr_for_each_cpu(c, m)
		if (c < s->t->nr_cpus && (sr_sis_available_idle(s, c) || sr_sis_sched_idle(s, c)))
			return true;
	return false;
}

/* With SMT: a sibling of a CPU of @m (select_idle_core()'s idle_cpu may be one). */
static bool sibling_idle(const struct sr_sis *s, const struct sr_cpumask *m)
{
	int c;

	sr_for_each_cpu(c, m)
		if (c < s->t->nr_cpus && any_idle(s, &s->t->cpu[c].smt))
			return true;
	return false;
}

/*
 * Whether a what-if could answer other than @cpu: each copies the prefix's
 * answer, and past it every era's body answers target or an idle (or
 * sched-idle) CPU of sd_llc(target), of a sibling of one (select_idle_core()),
 * or of prev's or target's siblings (select_idle_smt()).  With none such,
 * every what-if answers target as this run did: running them (most
 * placements on a busy machine) would change nothing.
 */
static bool what_if_may_move(const struct sr_sis *s, int cpu)
{
	const struct sr_domain *sd;

	if (s->prefix == SR_SIS_UNSET)
		return true;	/* never: each era's body runs the prefix first */
	if (s->prefix != SR_SIS_NONE)
		return false;
	if (cpu != s->target)
		return true;
	sd = sr_highest_flag_domain(s->t, s->target, SD_SHARE_PKG_RESOURCES);
	if (!sd)
		return false;
	if (any_idle(s, &sd->span))
		return true;
	return sr_sis_smt_active(s->t) &&
	       (sibling_idle(s, &sd->span) || any_idle(s, &s->t->cpu[s->prev].smt) ||
		any_idle(s, &s->t->cpu[s->target].smt));
}

unsigned int sr_sis_depends(const struct sr_sis *s, int cpu, struct sr_sis_fx *fx)
{
	const struct sr_wake_ctx *ctx = s->ctx;
	const struct sr_llc_view *llc = ctx->llc ? &ctx->llc[s->target] : NULL;
	bool may_move = what_if_may_move(s, cpu);
	unsigned int deps = 0;

	if (may_move && (!llc || llc->idle_cores_unknown) && sr_sis_smt_active(s->t) &&
	    sis_what_if(s, true, -1) != cpu)
		deps |= SR_DEP_IDLE_HINT;
	if (may_move && both_hints_mattered(s, cpu, llc, fx))
		deps |= SR_DEP_IDLE_HINT;
	if (may_move && s->kver >= SR_KV(6, 0) && (s->feat & SR_F_SIS_UTIL) &&
	    scan_mattered(s, cpu, llc, fx))
		deps |= SR_DEP_IDLE_HINT;
	if (s->recent_unknown)
		deps |= SR_DEP_RECENT_CPU;
	if (s->scan_cost_mattered)
		deps |= SR_DEP_SCAN_COST;
	if (s->relied_avail)
		deps |= ctx->unknown & SR_DEP_VCPU;
	if (s->used_allowed)
		deps |= ctx->unknown & SR_DEP_AFFINITY;
	if (s->used_topo)
		deps |= ctx->unknown & SR_DEP_TOPOLOGY;
	if (ctx->rq[cpu].uncertain)
		deps |= SR_DEP_LOST_EVENTS;
	return deps;
}
