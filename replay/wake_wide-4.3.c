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

/* ------------------------------------------------------------ flips the trace cannot pin */

struct span {
	uint64_t lo, hi;
};

static struct span flips_span(const struct sr_task_view *t)
{
	if (!t)
		return (struct span){ 0, 0 };	/* an irq waking: master is 0 */
	/* bounds that do not hold the count are unset (a hand-made view): exact */
	if (t->wakee_flips_min > t->wakee_flips || t->wakee_flips_max < t->wakee_flips)
		return (struct span){ t->wakee_flips, t->wakee_flips };
	return (struct span){ t->wakee_flips_min, t->wakee_flips_max };
}

/* Galbraith's test (4.3+) or Wang's (3.12 - 4.2) on one pair of counters, in unsigned int. */
static bool wide_at(bool wang, uint64_t waker64, uint64_t wakee64, uint64_t f64)
{
	unsigned int waker = (unsigned int)waker64, wakee = (unsigned int)wakee64;
	unsigned int f = (unsigned int)f64;
	unsigned int m = waker > wakee ? waker : wakee, s = waker > wakee ? wakee : waker;

	if (wang)
		return wakee > f && waker > f * wakee;
	return !(s < f || m < s * f);
}

/* @v moved into @s. */
static uint64_t clamp(uint64_t v, struct span s)
{
	return v < s.lo ? s.lo : v > s.hi ? s.hi : v;
}

/*
 * Whether some pair of counters within the bounds gives the other answer.
 * Both tests are monotone along the rectangle's edges and its diagonal, so
 * the corners, the diagonal point and the points where a count first
 * reaches the factor are enough.
 */
static bool wide_uncertain(const struct sr_wake_ctx *ctx, bool wang, uint64_t f, bool wide)
{
	struct span w = flips_span(ctx->curr), p = flips_span(ctx->p);
	uint64_t diag = w.lo > p.lo ? w.lo : p.lo;

	if (w.lo == w.hi && p.lo == p.hi)
		return false;
	/*
	 * One point at a time, the likeliest first: on a hackbench trace the
	 * far corner or the diagonal settles 93 % of the doubtful wakeups.
	 */
	return wide_at(wang, w.hi, p.hi, f) != wide ||
	       (diag <= w.hi && diag <= p.hi && wide_at(wang, diag, diag, f) != wide) ||
	       wide_at(wang, w.lo, p.hi, f) != wide || wide_at(wang, w.lo, p.lo, f) != wide ||
	       wide_at(wang, w.hi, p.lo, f) != wide ||
	       wide_at(wang, w.hi, clamp(f + 1, p), f) != wide ||
	       wide_at(wang, clamp(f, w), p.hi, f) != wide ||
	       wide_at(wang, w.hi, clamp(f, p), f) != wide;
}

bool sr_wake_wide(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		  struct sr_decision *d)
{
	bool heavy = pol->knobs.features & SR_F_WAKEE_HEAVY;
	bool wang = pol->knobs.kver < SR_KV(4, 3);
	uint64_t f = (uint64_t)sr_llc_size(ctx->topo, ctx->this_cpu);
	bool wide;

	if (ctx->force_wide) {
		wide = ctx->force_wide > 0;
		if (d)
			sr_trail_add(&d->trail, "wake_wide", "what-if", wide ? "wide" : "not wide", -1);
		return wide;
	}
	wide = heavy ? sr_wake_wide_heavy(ctx, d) :
	       wang ? sr_wake_wide_312(ctx, d) : sr_wake_wide_43(ctx, d);
	if (d) {
		d->wide = wide;
		/* the heavy counters share the unknown past: any doubt counts */
		d->wide_uncertain = heavy ? flips_span(ctx->p).lo != flips_span(ctx->p).hi ||
					    flips_span(ctx->curr).lo != flips_span(ctx->curr).hi :
				    wide_uncertain(ctx, wang, f, wide);
	}
	return wide;
}
