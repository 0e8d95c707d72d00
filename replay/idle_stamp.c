// SPDX-License-Identifier: GPL-2.0
/*
 * Between available idle CPUs find_idlest_group_cpu()
 * (sched_balance_find_dst_group_cpu() from 6.12, kernel/sched/fair.c) takes
 * the first, in CPU order, whose rq->idle_stamp beats the latest so far:
 * "rq->idle_stamp > latest_idle_timestamp", from 0 (no cpuidle state).
 * Where the state leaves a stamp open (src/state/stamp.c: some value in
 * [idle_stamp_lo, idle_stamp_hi]), the pick may turn on it.  Two tools:
 * sr_sis_stamp_turns() tells, inside one pick, whether another value could
 * make another CPU win (or none); the grid gives decide() the values at
 * which the whole answer can change (replay/policy.c replays them).
 */
#include <string.h>
#include "models-sis.h"

/* The bounds of @rq's stamp: its range, or the stamp as the model reads it. */
static void stamp_bounds(const struct sr_rq *rq, uint64_t *lo, uint64_t *hi)
{
	/* stamped before the trace: read as 1, older than any the trace shows */
	*lo = *hi = rq->idle_stamp_known ? rq->idle_stamp : 1;
	if (rq->idle_stamp_known && rq->idle_stamp_dep) {
		*lo = rq->idle_stamp_lo;
		*hi = rq->idle_stamp_hi;
	}
}

/* A step naming the CPU whose open stamp could turn the pick, and its range. */
static void turn_step(struct sr_trail *trail, const struct sr_rq *rq, int cpu, bool winner)
{
	struct sr_step *st;
	uint64_t lo, hi;

	if (!trail)
		return;
	stamp_bounds(rq, &lo, &hi);
	st = sr_trail_add(trail, "find_idlest_group_cpu",
			  "an idle_stamp the trace leaves open (stopper or balancer next to "
			  "delayed sleepers) could turn the pick",
			  winner ? "the pick could lose" : "could win instead", cpu);
	sr_step_uval(st, "idle_stamp_lo", lo);
	sr_step_uval(st, "idle_stamp_hi", hi);
}

unsigned int sr_sis_stamp_turns(const struct sr_sis *s, struct sr_trail *trail,
				const struct sr_cpumask *span, int winner)
{
	const struct sr_rq *w = winner >= 0 ? &s->ctx->rq[winner] : NULL;
	unsigned int wdep = w ? w->idle_stamp_dep : 0, dep = 0;
	uint64_t lo = 0, hi;
	int i;

	if (w)
		stamp_bounds(w, &lo, &hi);
	/* the winner's own stamp could be 0: then it never wins */
	if (w && !lo && wdep) {
		dep |= wdep;
		turn_step(trail, w, winner, true);
	}
	sr_for_each_cpu(i, span) {
		const struct sr_rq *rq = &s->ctx->rq[i];
		uint64_t a;

		if (i == winner || !sr_sis_allowed(s, i) || !sr_sis_available_idle(s, i))
			continue;
		stamp_bounds(rq, &a, &hi);
		/* later, or as late and scanned first */
		if (!(hi > lo || (hi && hi == lo && i < winner)) || !(rq->idle_stamp_dep | wdep))
			continue;
		if (!dep)
			turn_step(trail, rq->idle_stamp_dep ? rq : w, rq->idle_stamp_dep ? i : winner,
				  !rq->idle_stamp_dep);
		dep |= rq->idle_stamp_dep | wdep;
	}
	return dep;
}

/* ---- the grid of values decide() replays ---- */

/* Add @x to open CPU @i's values once, if in its range; false when full. */
static bool grid_add(struct sr_stamp_grid *g, const struct sr_rq *rq, int i, uint64_t x)
{
	if (x < rq->idle_stamp_lo || x > rq->idle_stamp_hi)
		return true;
	for (int k = 0; k < g->nv[i]; k++)
		if (g->v[i][k] == x)
			return true;
	if (g->nv[i] == SR_STAMP_VALUES)
		return false;
	g->v[i][g->nv[i]++] = x;
	return true;
}

/*
 * Each open CPU's values: 0 and 1 (a stamp of 0 never wins), every bound of
 * the idle CPUs' stamps (a known one, an open range's ends), and one past.
 */
static bool grid_fill(struct sr_stamp_grid *g, const struct sr_wake_ctx *ctx)
{
	for (int i = 0; i < g->n; i++)
		if (!grid_add(g, &ctx->rq[g->cpu[i]], i, 0) || !grid_add(g, &ctx->rq[g->cpu[i]], i, 1))
			return false;
	for (int k = 0; k < ctx->topo->nr_cpus; k++) {
		uint64_t a, b;

		if (!sr_rq_idle(&ctx->rq[k]))
			continue;
		stamp_bounds(&ctx->rq[k], &a, &b);
		for (int i = 0; i < g->n; i++) {
			const struct sr_rq *o = &ctx->rq[g->cpu[i]];

			if (!grid_add(g, o, i, a) || !grid_add(g, o, i, b) ||
			    (a < UINT64_MAX && !grid_add(g, o, i, a + 1)) ||
			    (b < UINT64_MAX && !grid_add(g, o, i, b + 1)))
				return false;
		}
	}
	return true;
}

/*
 * Open @j's range holds 0 or a bound of another idle CPU's stamp: some
 * value in it orders it otherwise against that one.  If not, every value
 * orders it alike against all the others: the one the model read stands
 * for them all.
 */
static bool stamp_straddles(const struct sr_wake_ctx *ctx, int j)
{
	const struct sr_rq *o = &ctx->rq[j];

	if (!o->idle_stamp_lo)
		return true;
	for (int k = 0; k < ctx->topo->nr_cpus; k++) {
		uint64_t a, b;

		if (k == j || !sr_rq_idle(&ctx->rq[k]))
			continue;
		stamp_bounds(&ctx->rq[k], &a, &b);
		if ((a >= o->idle_stamp_lo && a <= o->idle_stamp_hi) ||
		    (b >= o->idle_stamp_lo && b <= o->idle_stamp_hi) ||
		    (a <= o->idle_stamp_lo && b >= o->idle_stamp_hi))
			return true;
	}
	return false;
}

bool sr_stamp_grid_init(struct sr_stamp_grid *g, const struct sr_wake_ctx *ctx)
{
	unsigned long runs = 1;

	memset(g, 0, sizeof(*g));
	for (int k = 0; k < ctx->topo->nr_cpus; k++) {
		const struct sr_rq *rq = &ctx->rq[k];

		if (!rq->idle_stamp_known || !rq->idle_stamp_dep || !sr_rq_idle(rq) ||
		    !stamp_straddles(ctx, k))
			continue;
		if (g->n == SR_STAMP_OPEN_MAX)
			return false;
		g->cpu[g->n++] = k;
	}
	if (!g->n)
		return true;
	if (!grid_fill(g, ctx))
		return false;
	for (int i = 0; i < g->n; i++)
		runs *= (unsigned long)g->nv[i];
	return runs <= SR_STAMP_RUNS;
}

bool sr_stamp_grid_next(struct sr_stamp_grid *g, const struct sr_wake_ctx *ctx, bool first)
{
	int i = 0;

	if (first) {
		memcpy(ctx->rq_scratch, ctx->rq, (size_t)ctx->topo->nr_cpus * sizeof(*ctx->rq));
		for (int k = 0; k < ctx->topo->nr_cpus; k++)
			ctx->rq_scratch[k].idle_stamp_dep = 0;
	} else {
		for (; i < g->n && ++g->at[i] == g->nv[i]; i++)
			g->at[i] = 0;
		if (i == g->n)
			return false;
	}
	for (i = 0; i < g->n; i++)
		ctx->rq_scratch[g->cpu[i]].idle_stamp = g->v[i][g->at[i]];
	return true;
}
