// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/sched/fair.c: wake_wide() (record_wakee(), the bookkeeping it reads,
 * lives with the runqueue state in src/record_wakee.c).
 *
 *   sr_wake_wide_312()    Michael Wang's wake_wide(), 3.12 - 4.2
 *   sr_wake_wide_43()     Mike Galbraith's master/slave wake_wide(), 4.3 - 6.18.2
 *   *_heavy()          Mel Gorman, "sched/fair: Couple wakee flips with heavy wakers"
 *                      (Oct 2021, on 5.15-rc; never merged), on the *_heavy counters
 *
 * Counters are unsigned int as in task_struct, so products wrap at 2^32 as they
 * do in the kernel.
 */
#include <errno.h>
#include "models-affine.h"

static unsigned int waker_flips(const struct sr_wake_ctx *ctx, bool heavy)
{
	if (!ctx->curr)
		return 0;
	return heavy ? ctx->curr->wakee_flips_heavy : ctx->curr->wakee_flips;
}

static struct sr_step *wide_step(struct sr_decision *d, const char *check, bool wide)
{
	if (!d)
		return NULL;
	return sr_trail_add(&d->trail, "wake_wide", check, wide ? "wide" : "not wide", -1);
}

bool sr_wake_wide_312(const struct sr_wake_ctx *ctx, struct sr_decision *d)
{
	unsigned int factor = (unsigned int)sr_llc_size(ctx->topo, ctx->this_cpu);
	unsigned int wakee = ctx->p->wakee_flips, waker = waker_flips(ctx, false);
	/* Roles are fixed here: the wakee must flip, the waker far more. */
	bool wide = wakee > factor && waker > factor * wakee;
	struct sr_step *s;

	s = wide_step(d, "p->wakee_flips > factor && current->wakee_flips > factor * "
		      "p->wakee_flips", wide);
	sr_step_uval(s, "wakee_flips", wakee);
	sr_step_uval(s, "waker_flips", waker);
	sr_step_uval(s, "factor", factor);
	sr_step_uval(s, "factor_x_wakee", factor * wakee);
	return wide;
}

/* Galbraith's test; @heavy adds Gorman's heavy-waker rule (Oct 2021): "a heavy master
 * alone is enough". */
static bool wake_wide_ms(const struct sr_wake_ctx *ctx, struct sr_decision *d, bool heavy)
{
	unsigned int factor = (unsigned int)sr_llc_size(ctx->topo, ctx->this_cpu);
	unsigned int master = waker_flips(ctx, heavy);
	unsigned int slave = heavy ? ctx->p->wakee_flips_heavy : ctx->p->wakee_flips;
	unsigned int half_sq = (factor >> 1) * factor;
	bool narrow;
	struct sr_step *s;

	if (master < slave) {
		unsigned int tmp = master;

		master = slave;
		slave = tmp;
	}
	if (heavy) {
		narrow = (slave < factor && master < half_sq) || master < slave * factor;
		s = wide_step(d, "!((slave < factor && master < (factor >> 1) * factor) || "
			      "master < slave * factor)", !narrow);
	} else {
		narrow = slave < factor || master < slave * factor;
		s = wide_step(d, "!(slave < factor || master < slave * factor)", !narrow);
	}
	sr_step_uval(s, "master", master);
	sr_step_uval(s, "slave", slave);
	sr_step_uval(s, "factor", factor);
	sr_step_uval(s, "slave_x_factor", slave * factor);
	if (heavy)
		sr_step_uval(s, "half_factor_x_factor", half_sq);
	return !narrow;
}

bool sr_wake_wide_43(const struct sr_wake_ctx *ctx, struct sr_decision *d)
{
	return wake_wide_ms(ctx, d, false);
}

bool sr_wake_wide_heavy(const struct sr_wake_ctx *ctx, struct sr_decision *d)
{
	return wake_wide_ms(ctx, d, true);
}

bool sr_wake_wide(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		  struct sr_decision *d)
{
	if (pol->knobs.features & SR_F_WAKEE_HEAVY)
		return sr_wake_wide_heavy(ctx, d);
	if (pol->knobs.kver < SR_KV(4, 3))
		return sr_wake_wide_312(ctx, d);
	return sr_wake_wide_43(ctx, d);
}
