// SPDX-License-Identifier: GPL-2.0
/*
 * wake_wide()'s doubt (d->wide_uncertain, replay/wake_wide-4.3.c) tests a
 * few points of the rectangle of flips the trace allows: it must say the
 * same as trying every pair of counters in it, for Galbraith's test and
 * Wang's, whatever order it tries its points in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "models.h"
#include "models-affine.h"

#define ROUNDS	4000

/* A deterministic generator: the same cases on every run. */
static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

/* A count in [lo, hi] (lo < 100, hi - lo < 24) that the view holds. */
static void random_flips(struct sr_task_view *t, unsigned int *seed)
{
	unsigned int lo = rnd(seed, 100), hi = lo + (rnd(seed, 3) ? rnd(seed, 24) : 0);

	t->wakee_flips_min = lo;
	t->wakee_flips_max = hi;
	t->wakee_flips = lo + rnd(seed, hi - lo + 1);
}

/* Whether some pair of counters within the views' bounds answers otherwise. */
static bool brute_force(const struct sr_policy *pol, struct sr_wake_ctx *ctx, bool wide)
{
	struct sr_task_view w = *ctx->curr, p = *ctx->p;
	struct sr_wake_ctx c = *ctx;
	bool other = false;

	c.curr = &w;
	c.p = &p;
	for (unsigned int a = ctx->curr->wakee_flips_min; a <= ctx->curr->wakee_flips_max; a++)
		for (unsigned int b = ctx->p->wakee_flips_min; b <= ctx->p->wakee_flips_max; b++) {
			w.wakee_flips = w.wakee_flips_min = w.wakee_flips_max = a;
			p.wakee_flips = p.wakee_flips_min = p.wakee_flips_max = b;
			other |= sr_wake_wide(pol, &c, NULL) != wide;
		}
	return other;
}

static void sweep(const char *spec, unsigned int kver)
{
	struct sr_task_view p = { .pid = 42 }, curr = { .pid = 100 };
	struct sr_decision *d = calloc(1, sizeof(*d));
	unsigned int seed = kver, doubtful = 0;
	struct sr_policy pol;
	struct sr_topo t;
	struct sr_wake_ctx ctx;

	assert_non_null(d);
	assert_int_equal(sr_topo_from_spec(&t, spec, SR_ERA_511), 0);
	assert_int_equal(sr_policy_from_spec(&pol, "linux-6.12"), 0);
	pol.knobs.kver = kver;
	ctx = (struct sr_wake_ctx){ .kind = SR_WAKE_TTWU, .p = &p, .curr = &curr, .topo = &t };
	for (int i = 0; i < ROUNDS; i++) {
		bool wide;

		random_flips(&p, &seed);
		random_flips(&curr, &seed);
		d->trail.off = true;
		wide = sr_wake_wide(&pol, &ctx, d);
		assert_int_equal(d->wide_uncertain, brute_force(&pol, &ctx, wide));
		doubtful += d->wide_uncertain;
	}
	assert_true(doubtful > ROUNDS / 25);	/* the sweep met doubt */
	sr_topo_free(&t);
	free(d);
}

static void test_galbraith_llc4(void **state)
{
	(void)state;
	sweep("cores-per-llc=4", SR_KV(6, 12));
}

static void test_galbraith_llc8(void **state)
{
	(void)state;
	sweep("cores-per-llc=8", SR_KV(4, 14));
}

static void test_wang_llc4(void **state)
{
	(void)state;
	sweep("cores-per-llc=4", SR_KV(4, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_galbraith_llc4),
		cmocka_unit_test(test_galbraith_llc8),
		cmocka_unit_test(test_wang_llc4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
