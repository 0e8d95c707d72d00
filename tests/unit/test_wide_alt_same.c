// SPDX-License-Identifier: GPL-2.0
/*
 * decide() skips the wake_wide() what-if when the model says the other
 * answer gives the same CPU and reads nothing more (d->wide_alt_same):
 * whenever it says so, a replay under the forced other answer must agree,
 * on any runqueues, flips, affinity and topology.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "models.h"
#include "random-ctx.h"

#define ROUNDS	3000

static void random_case(struct rfx *f, unsigned int *seed)
{
	int n = f->t.nr_cpus, this = (int)rnd(seed, n);
	int prev = rnd(seed, 4) ? this : (int)rnd(seed, n);	/* mostly the waker's CPU */

	for (int c = 0; c < n; c++)
		rfx_rq(f, seed, c, 3);
	sr_mask_clear(&f->mask);
	for (int c = 0; c < n; c++)
		if (rnd(seed, 4))
			sr_mask_set(&f->mask, c);
	sr_mask_set(&f->mask, prev);
	rfx_wakeup(f, seed, this, prev, 40, -1);
	f->ctx.llc = NULL;
	f->ctx.rq_scratch = NULL;
	f->ctx.unknown = rnd(seed, 2) ? SR_DEP_TOPOLOGY | SR_DEP_AFFINITY : 0;
	f->ctx.allowed = rnd(seed, 3) ? NULL : &f->mask;
}

/* The replay decide() skipped agrees with the answer and adds no input. */
static void check_alt(struct rfx *f, const struct sr_decision *d, struct sr_decision *alt)
{
	struct sr_wake_ctx c = f->ctx;

	c.force_wide = d->wide ? -1 : 1;
	c.sync = d->sync_assumed ? SR_YES : SR_NO;
	memset(alt, 0, sizeof(*alt));
	alt->cpu = alt->alt_cpu = alt->wide_alt_cpu = -1;
	alt->trail.off = true;
	assert_int_equal(f->pol.ops->select_task_rq(&f->pol, &c, alt), 0);
	assert_int_equal(alt->cpu, d->cpu);
	assert_false(alt->sync_used);
	assert_int_equal((alt->depends | alt->stamp_turns) & ~d->depends, 0);
}

static void sweep(const char *spec, const char *preset)
{
	struct rfx *f = rfx_new(spec, preset);
	struct sr_decision *d = calloc(1, sizeof(*d)), *alt = calloc(1, sizeof(*alt));
	unsigned int seed = (unsigned int)strlen(preset), same = 0;

	assert_non_null(d);
	assert_non_null(alt);
	for (int i = 0; i < ROUNDS; i++) {
		random_case(f, &seed);
		assert_int_equal(sr_policy_decide_quiet(&f->pol, &f->ctx, d), 0);
		if (!d->wide_alt_same)
			continue;
		assert_true(d->wide_uncertain);
		check_alt(f, d, alt);
		same++;
	}
	assert_true(same > ROUNDS / 10);	/* the sweep reached the skip */
	rfx_free(f);
	free(d);
	free(alt);
}

static void test_same_smt_612(void **state)
{
	(void)state;
	sweep("sockets=2,llcs-per-socket=2,cores-per-llc=4,threads=2", "linux-6.12");
}

static void test_same_numa_54(void **state)
{
	(void)state;
	sweep("sockets=2,llcs-per-socket=1,cores-per-llc=4,threads=2", "linux-5.4");
}

static void test_same_414(void **state)
{
	(void)state;
	sweep("sockets=1,llcs-per-socket=2,cores-per-llc=4,threads=1", "linux-4.14");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_smt_612),
		cmocka_unit_test(test_same_numa_54),
		cmocka_unit_test(test_same_414),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
