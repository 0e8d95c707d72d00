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

#define ROUNDS	3000

struct fx {
	struct sr_topo t;
	struct sr_rq *rq;
	struct sr_task_view p, curr;
	struct sr_cpumask allowed;
	struct sr_wake_ctx ctx;
	struct sr_policy pol;
};

/* A deterministic generator: the same cases on every run. */
static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static void random_case(struct fx *f, unsigned int *seed)
{
	int n = f->t.nr_cpus, this = (int)rnd(seed, n);
	int prev = rnd(seed, 4) ? this : (int)rnd(seed, n);	/* mostly the waker's CPU */

	for (int c = 0; c < n; c++) {
		int nr = (int)rnd(seed, 3);

		f->rq[c] = (struct sr_rq){ .capacity = 1024, .nr_running = nr,
					   .cfs_nr_running = nr, .curr_pid = nr ? 100 + c : 0,
					   .load_weight = 1024ul * nr, .load_avg = rnd(seed, 3000),
					   .util_avg = rnd(seed, 1024), .idle_since = nr ? 0 : 1000 };
	}
	f->rq[this].nr_running = f->rq[this].nr_running ? f->rq[this].nr_running : 1;
	f->rq[this].curr_pid = 100 + this;
	sr_mask_clear(&f->allowed);
	for (int c = 0; c < n; c++)
		if (rnd(seed, 4))
			sr_mask_set(&f->allowed, c);
	sr_mask_set(&f->allowed, prev);
	f->p = (struct sr_task_view){ .pid = 42, .prio = 120, .weight = 1024,
				      .load_avg = rnd(seed, 1024), .util_avg = rnd(seed, 1024),
				      .pelt_warm = true, .cpu = prev, .last_switch_out = 500,
				      .wakee_flips = rnd(seed, 40), .wakee_flips_min = 0,
				      .wakee_flips_max = 40, .recent_used_cpu = -1 };
	f->curr = (struct sr_task_view){ .pid = 100 + this, .prio = 120, .weight = 1024,
					 .load_avg = rnd(seed, 1024), .pelt_warm = true,
					 .cpu = this, .on_cpu = true, .wakee_flips = rnd(seed, 80),
					 .wakee_flips_max = UINT32_MAX, .recent_used_cpu = -1 };
	f->ctx = (struct sr_wake_ctx){ .now = 2000000, .ts = 2000000, .kind = SR_WAKE_TTWU,
				       .this_cpu = this, .prev_cpu = prev, .sync = SR_UNKNOWN,
				       .sync_guess = rnd(seed, 2) ? SR_YES : SR_NO, .p = &f->p,
				       .curr = &f->curr, .rq = f->rq, .topo = &f->t,
				       .in_task = true, .load_error_pct = 10,
				       .unknown = rnd(seed, 2) ? SR_DEP_TOPOLOGY | SR_DEP_AFFINITY : 0,
				       .allowed = rnd(seed, 3) ? NULL : &f->allowed };
}

/* The replay decide() skipped agrees with the answer and adds no input. */
static void check_alt(struct fx *f, const struct sr_decision *d, struct sr_decision *alt)
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
	struct fx *f = calloc(1, sizeof(*f));
	struct sr_decision *d = calloc(1, sizeof(*d)), *alt = calloc(1, sizeof(*alt));
	unsigned int seed = (unsigned int)strlen(preset), same = 0;

	assert_non_null(f);
	assert_non_null(d);
	assert_non_null(alt);
	assert_int_equal(sr_topo_from_spec(&f->t, spec, SR_ERA_511), 0);
	f->rq = calloc(f->t.nr_cpus, sizeof(*f->rq));
	assert_non_null(f->rq);
	assert_int_equal(sr_policy_from_spec(&f->pol, preset), 0);
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
	sr_topo_free(&f->t);
	free(f->rq);
	free(f);
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
