// SPDX-License-Identifier: GPL-2.0
/*
 * The runs of one placement share select_idle_sibling()'s answers
 * (struct sr_sis_memo, replay/policy.c): the decision must be the one
 * every run computing its own gives, on any runqueues, hints, WF_SYNC
 * guess, wake_wide() doubt and concurrent wakeups.
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
	int n = f->t.nr_cpus, this = (int)rnd(seed, n), prev = (int)rnd(seed, n);
	unsigned int flips_max;
	int recent;

	for (int c = 0; c < n; c++) {
		rfx_rq(f, seed, c, 4);
		f->llc[c] = (struct sr_llc_view){
			.has_idle_cores = rnd(seed, 2), .idle_cores_unknown = rnd(seed, 2),
			.nr_idle_scan = (int)rnd(seed, 6) - 1, .nr_idle_scan_estimated = rnd(seed, 2) };
	}
	sr_mask_clear(&f->mask);
	if (rnd(seed, 2))
		sr_mask_set(&f->mask, (int)rnd(seed, n));
	flips_max = rnd(seed, 2) ? 40 : UINT32_MAX;
	recent = (int)rnd(seed, n + 1) - 1;
	rfx_wakeup(f, seed, this, prev, flips_max, recent);
	f->ctx.in_flight = &f->mask;	/* another wakeup in flight to one CPU, or none */
}

static void assert_same(const struct sr_decision *a, const struct sr_decision *b)
{
	rfx_assert_same(a, b);
	assert_int_equal(a->alt_cpu, b->alt_cpu);
	assert_int_equal(a->sync_assumed, b->sync_assumed);
	assert_int_equal(a->determined, b->determined);
	assert_int_equal(a->wide_alt_cpu, b->wide_alt_cpu);
	assert_memory_equal(&a->alt_fx, &b->alt_fx, sizeof(a->alt_fx));
}

static void sweep(const char *spec, const char *preset)
{
	struct rfx *f = rfx_new(spec, preset);
	struct sr_decision *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	unsigned int seed = (unsigned int)strlen(preset), uncertain = 0, moved = 0;

	assert_non_null(a);
	assert_non_null(b);
	for (int i = 0; i < ROUNDS; i++) {
		random_case(f, &seed);
		assert_int_equal(sr_policy_decide_quiet(&f->pol, &f->ctx, a), 0);
		assert_int_equal(sr_policy_decide_unshared(&f->pol, &f->ctx, b), 0);
		assert_same(a, b);
		uncertain += a->wide_uncertain;
		moved += a->cpu != f->ctx.prev_cpu;
	}
	/* the sweep reached the what-ifs and the scans, not only prev */
	assert_true(uncertain > ROUNDS / 10);
	assert_true(moved > ROUNDS / 10);
	rfx_free(f);
	free(a);
	free(b);
}

static void test_memo_smt_sis_util(void **state)
{
	(void)state;
	sweep("sockets=2,llcs-per-socket=2,cores-per-llc=4,threads=2", "linux-6.12");
}

static void test_memo_sis_prop(void **state)
{
	(void)state;
	sweep("sockets=1,llcs-per-socket=2,cores-per-llc=4,threads=2", "linux-5.16");
}

static void test_memo_multipass(void **state)
{
	(void)state;
	sweep("sockets=2,llcs-per-socket=1,cores-per-llc=4,threads=2", "linux-5.4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_smt_sis_util),
		cmocka_unit_test(test_memo_sis_prop),
		cmocka_unit_test(test_memo_multipass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
