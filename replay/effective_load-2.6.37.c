// SPDX-License-Identifier: GPL-2.0
/*
 * effective_load() of kernel/sched_fair.c, 2.6.37 (verified against
 * 2.6.37.6; the form dates from about 2.6.29): the "S, rw, s" form that
 * works from the shares snapshots update_shares()/tg_shares_up() leave in
 * each group cfs_rq, with sched_feat(ASYM_EFF_LOAD) on as shipped.
 * Replaced by Paul Turner's rewrite in 2.6.38 (effective_load-2.6.38.c).
 */
#include <errno.h>
#include <limits.h>
#include "models-2637.h"

/* The kernel builds with -fno-strict-overflow: long arithmetic wraps. */
static long ladd(long a, long b)
{
	return (long)((unsigned long)a + (unsigned long)b);
}

static long lsub(long a, long b)
{
	return (long)((unsigned long)a - (unsigned long)b);
}

static long lmul(long a, long b)
{
	return (long)((unsigned long)a * (unsigned long)b);
}

/* One for_each_sched_entity() step: the group entity of @g on @cpu. */
static int effective_load_level_2637(const struct sr_tg *g, int cpu, long *wl, long *wg,
				     struct sr_trail *t)
{
	const struct sr_tg_cpu *q = &g->cpu[cpu];
	long S = (long)g->shares, s = (long)q->shares, rw = (long)q->rq_weight;
	/* Weight queued since the last update_shares() counts as added load. */
	long more_w = (long)(q->load_weight - q->rq_weight);
	long a, b, res;
	struct sr_step *st;

	*wl = ladd(*wl, more_w);
	*wg = ladd(*wg, more_w);
	a = lmul(S, ladd(rw, *wl));
	b = ladd(lmul(S, rw), lmul(s, *wg));
	res = lmul(s, lsub(a, b));
	if (b) {
		/* LONG_MIN / -1 raises #DE on x86: the kernel would oops. */
		if (b == -1 && res == LONG_MIN)
			return -EOVERFLOW;
		res /= b;	/* C division: truncates toward zero */
	}
	st = sr_trail_add(t, "effective_load", "wl = s * (S*(rw + wl) - (S*rw + s*wg)) / b",
			  b ? "share shift" : "b == 0: no division", cpu);
	sr_step_val(st, "more_w", more_w);
	sr_step_val(st, "S", S);
	sr_step_val(st, "s", s);
	sr_step_val(st, "rw", rw);
	sr_step_val(st, "a", a);
	sr_step_val(st, "b", b);
	sr_step_val(st, "wl", res);
	*wl = res;
	/* Upper levels only redistribute: the group weight does not change. */
	*wg = 0;
	return 0;
}

int sr_effective_load_2637(const struct sr_tg *tg, int cpu, long wl, long wg, long *res,
			struct sr_trail *t)
{
	const struct sr_tg *g;
	int depth = 0, ret;

	if (!res || !t || cpu < 0)
		return -EINVAL;
	if (!tg) {
		sr_step_val(sr_trail_add(t, "effective_load", "!tg->parent",
					 "root group: return wl", cpu), "wl", wl);
		*res = wl;
		return 0;
	}
	/* Ignoring the share drop on the other CPU biases against affine wakeups. */
	if (!wl) {
		sr_trail_add(t, "effective_load", "!wl && sched_feat(ASYM_EFF_LOAD)",
			     "return 0", cpu);
		*res = 0;
		return 0;
	}
	for (g = tg; g; g = g->parent) {
		if (++depth > SR_TG_MAX_DEPTH || !g->cpu || cpu >= g->nr_cpus)
			return -EINVAL;
		ret = effective_load_level_2637(g, cpu, &wl, &wg, t);
		if (ret)
			return ret;
	}
	*res = wl;
	return 0;
}
