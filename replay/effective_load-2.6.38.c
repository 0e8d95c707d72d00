// SPDX-License-Identifier: GPL-2.0
/*
 * effective_load() of kernel/sched_fair.c, 2.6.38 - 3.7 (verified against
 * 2.6.38 and 3.0.1): Paul Turner's rewrite, commit 977dda7c9b54 "sched:
 * Update effective_load() to use global share weights".  The group's share on a CPU is recomputed from the instantaneous
 * weight there over the global tg->load_weight, clamped to MIN_SHARES,
 * and the delta to the current entity weight is carried up.
 */
#include <errno.h>
#include "models-2637.h"

/* -fno-strict-overflow: long arithmetic wraps. */
static long ladd(long a, long b)
{
	return (long)((unsigned long)a + (unsigned long)b);
}

/*
 * wl * tg->shares is unsigned long * unsigned long in the kernel: a
 * negative wl (only from inconsistent state) turns into a huge share.
 */
static long share_of(long wl, long lw, unsigned long shares, const char **how)
{
	if (lw > 0 && wl < lw) {
		*how = wl < 0 ? "wl < 0: unsigned wl * shares / lw" : "wl * shares / lw";
		return (long)(((unsigned long)wl * shares) / (unsigned long)lw);
	}
	*how = "clip: tg->shares";
	return (long)shares;
}

/* One for_each_sched_entity() step: the group entity of @g on @cpu. */
static void effective_load_level_2638(const struct sr_tg *g, int cpu, long *wl, long *wg,
				      struct sr_trail *t)
{
	const struct sr_tg_cpu *q = &g->cpu[cpu];
	long w = (long)q->load_weight;
	/* This CPU's instantaneous weight replaces its windowed contribution. */
	long lw = (long)((unsigned long)(long)g->load_weight - q->load_contribution);
	long share, res;
	const char *how;
	struct sr_step *st;

	lw = ladd(lw, ladd(w, *wg));
	*wl = ladd(*wl, w);
	share = share_of(*wl, lw, g->shares, &how);
	if (share < SR_MIN_SHARES) {
		share = SR_MIN_SHARES;
		how = "below MIN_SHARES: share = MIN_SHARES";
	}
	res = (long)((unsigned long)share - q->se_weight);
	st = sr_trail_add(t, "effective_load",
			  "lw > 0 && wl < lw ? wl * tg->shares / lw : tg->shares", how, cpu);
	sr_step_val(st, "w", w);
	sr_step_val(st, "lw", lw);
	sr_step_val(st, "wl", *wl);
	sr_step_uval(st, "shares", g->shares);
	sr_step_val(st, "share", share);
	sr_step_uval(st, "se_weight", q->se_weight);
	sr_step_val(st, "delta", res);
	*wl = res;
	/* Further groups are assumed enqueued already: their weight stays. */
	*wg = 0;
}

int sr_effective_load_2638(const struct sr_tg *tg, int cpu, long wl, long wg, long *res,
			struct sr_trail *t)
{
	const struct sr_tg *g;
	int depth = 0;

	if (!res || !t || cpu < 0)
		return -EINVAL;
	if (!tg) {
		sr_step_val(sr_trail_add(t, "effective_load", "!tg->parent",
					 "root group: return wl", cpu), "wl", wl);
		*res = wl;
		return 0;
	}
	for (g = tg; g; g = g->parent) {
		if (++depth > SR_TG_MAX_DEPTH || !g->cpu || cpu >= g->nr_cpus)
			return -EINVAL;
		effective_load_level_2638(g, cpu, &wl, &wg, t);
	}
	*res = wl;
	return 0;
}
