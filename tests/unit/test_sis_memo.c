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

#define ROUNDS	3000

struct fx {
	struct sr_topo t;
	struct sr_rq *rq, *scratch;
	struct sr_llc_view *llc;
	struct sr_task_view p, curr;
	struct sr_cpumask flight;
	struct sr_wake_ctx ctx;
	struct sr_policy pol;
};

/* A deterministic generator: the same cases on every run. */
static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static void random_rq(struct fx *f, unsigned int *seed, int cpu)
{
	int nr = (int)rnd(seed, 4);

	f->rq[cpu] = (struct sr_rq){ .capacity = 1024, .nr_running = nr, .cfs_nr_running = nr,
				     .curr_pid = nr ? 100 + cpu : 0,
				     .load_weight = 1024ul * nr, .load_avg = rnd(seed, 3000),
				     .util_avg = rnd(seed, 1024), .idle_since = nr ? 0 : 1000,
				     .idle_stamp = 1000, .idle_stamp_known = true };
}

static void random_case(struct fx *f, unsigned int *seed)
{
	int n = f->t.nr_cpus, this = (int)rnd(seed, n), prev = (int)rnd(seed, n);

	for (int c = 0; c < n; c++) {
		random_rq(f, seed, c);
		f->llc[c] = (struct sr_llc_view){
			.has_idle_cores = rnd(seed, 2), .idle_cores_unknown = rnd(seed, 2),
			.nr_idle_scan = (int)rnd(seed, 6) - 1, .nr_idle_scan_estimated = rnd(seed, 2) };
	}
	f->rq[this].nr_running = f->rq[this].nr_running ? f->rq[this].nr_running : 1;
	f->rq[this].curr_pid = 100 + this;
	sr_mask_clear(&f->flight);
	if (rnd(seed, 2))
		sr_mask_set(&f->flight, (int)rnd(seed, n));
	f->p = (struct sr_task_view){ .pid = 42, .prio = 120, .weight = 1024,
				      .load_avg = rnd(seed, 1024), .util_avg = rnd(seed, 1024),
				      .pelt_warm = true, .cpu = prev, .last_switch_out = 500,
				      .wakee_flips = rnd(seed, 40), .wakee_flips_min = 0,
				      .wakee_flips_max = rnd(seed, 2) ? 40 : UINT32_MAX,
				      .recent_used_cpu = (int)rnd(seed, n + 1) - 1 };
	f->curr = (struct sr_task_view){ .pid = 100 + this, .prio = 120, .weight = 1024,
					 .load_avg = rnd(seed, 1024), .pelt_warm = true,
					 .cpu = this, .on_cpu = true, .wakee_flips = rnd(seed, 80),
					 .wakee_flips_max = UINT32_MAX, .recent_used_cpu = -1 };
	f->ctx = (struct sr_wake_ctx){ .now = 2000000, .ts = 2000000, .kind = SR_WAKE_TTWU,
				       .this_cpu = this, .prev_cpu = prev, .sync = SR_UNKNOWN,
				       .sync_guess = rnd(seed, 2) ? SR_YES : SR_NO, .p = &f->p,
				       .curr = &f->curr, .rq = f->rq, .llc = f->llc,
				       .topo = &f->t, .in_task = true, .load_error_pct = 10,
				       .in_flight = &f->flight, .rq_scratch = f->scratch };
}

static void assert_same(const struct sr_decision *a, const struct sr_decision *b)
{
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->alt_cpu, b->alt_cpu);
	assert_int_equal(a->sync_assumed, b->sync_assumed);
	assert_int_equal(a->decided_by, b->decided_by);
	assert_int_equal(a->depends, b->depends);
	assert_int_equal(a->determined, b->determined);
	assert_int_equal(a->wide, b->wide);
	assert_int_equal(a->wide_uncertain, b->wide_uncertain);
	assert_int_equal(a->wide_alt_cpu, b->wide_alt_cpu);
	assert_memory_equal(&a->fx, &b->fx, sizeof(a->fx));
	assert_memory_equal(&a->alt_fx, &b->alt_fx, sizeof(a->alt_fx));
}

static void sweep(const char *spec, const char *preset)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct sr_decision *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	unsigned int seed = (unsigned int)strlen(preset), uncertain = 0, moved = 0;

	assert_non_null(f);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(sr_topo_from_spec(&f->t, spec, SR_ERA_511), 0);
	f->rq = calloc(f->t.nr_cpus, sizeof(*f->rq));
	f->scratch = calloc(f->t.nr_cpus, sizeof(*f->scratch));
	f->llc = calloc(f->t.nr_cpus, sizeof(*f->llc));
	assert_non_null(f->rq);
	assert_non_null(f->scratch);
	assert_non_null(f->llc);
	assert_int_equal(sr_policy_from_spec(&f->pol, preset), 0);
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
	sr_topo_free(&f->t);
	free(f->rq);
	free(f->scratch);
	free(f->llc);
	free(f);
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
