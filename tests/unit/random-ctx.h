/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random wakeup contexts for sweeps that compare two ways of deciding the
 * same placement (tests/unit/test_sis_memo.c, test_wide_alt_same.c): a
 * topology from a spec, runqueue views, a wakee and its waker, and a
 * deterministic generator, so that every run sweeps the same cases.
 */
#ifndef SR_TEST_RANDOM_CTX_H
#define SR_TEST_RANDOM_CTX_H

#include <stdlib.h>
#include "models.h"

struct rfx {
	struct sr_topo t;
	struct sr_rq *rq, *scratch;
	struct sr_llc_view *llc;
	struct sr_task_view p, curr;
	struct sr_cpumask mask;		/* the sweep's own: allowed CPUs, or CPUs in flight */
	struct sr_wake_ctx ctx;
	struct sr_policy pol;
};

static inline unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static inline struct rfx *rfx_new(const char *spec, const char *preset)
{
	struct rfx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(sr_topo_from_spec(&f->t, spec, SR_ERA_511), 0);
	f->rq = calloc(f->t.nr_cpus, sizeof(*f->rq));
	f->scratch = calloc(f->t.nr_cpus, sizeof(*f->scratch));
	f->llc = calloc(f->t.nr_cpus, sizeof(*f->llc));
	assert_non_null(f->rq);
	assert_non_null(f->scratch);
	assert_non_null(f->llc);
	assert_int_equal(sr_policy_from_spec(&f->pol, preset), 0);
	return f;
}

static inline void rfx_free(struct rfx *f)
{
	sr_topo_free(&f->t);
	free(f->rq);
	free(f->scratch);
	free(f->llc);
	free(f);
}

/* CPU @cpu runs up to @max_nr - 1 fair tasks, with random loads. */
static inline void rfx_rq(struct rfx *f, unsigned int *seed, int cpu, unsigned int max_nr)
{
	int nr = (int)rnd(seed, max_nr);

	f->rq[cpu] = (struct sr_rq){ .capacity = 1024, .nr_running = nr, .cfs_nr_running = nr,
				     .curr_pid = nr ? 100 + cpu : 0,
				     .load_weight = 1024ul * nr, .load_avg = rnd(seed, 3000),
				     .util_avg = rnd(seed, 1024), .idle_since = nr ? 0 : 1000,
				     .idle_stamp = 1000, .idle_stamp_known = true };
}

/*
 * The waker (current on @this, which it keeps busy) wakes pid 42, last on
 * @prev: random loads and flips (@flips_max bounds the wakee's), WF_SYNC
 * unknown with a random guess.
 */
static inline void rfx_wakeup(struct rfx *f, unsigned int *seed, int this, int prev,
			      unsigned int flips_max, int recent_used_cpu)
{
	f->rq[this].nr_running = f->rq[this].nr_running ? f->rq[this].nr_running : 1;
	f->rq[this].curr_pid = 100 + this;
	f->p = (struct sr_task_view){ .pid = 42, .prio = 120, .weight = 1024,
				      .load_avg = rnd(seed, 1024), .util_avg = rnd(seed, 1024),
				      .pelt_warm = true, .cpu = prev, .last_switch_out = 500,
				      .wakee_flips = rnd(seed, 40), .wakee_flips_min = 0,
				      .wakee_flips_max = flips_max, .recent_used_cpu = recent_used_cpu };
	f->curr = (struct sr_task_view){ .pid = 100 + this, .prio = 120, .weight = 1024,
					 .load_avg = rnd(seed, 1024), .pelt_warm = true,
					 .cpu = this, .on_cpu = true, .wakee_flips = rnd(seed, 80),
					 .wakee_flips_max = UINT32_MAX, .recent_used_cpu = -1 };
	f->ctx = (struct sr_wake_ctx){ .now = 2000000, .ts = 2000000, .kind = SR_WAKE_TTWU,
				       .this_cpu = this, .prev_cpu = prev, .sync = SR_UNKNOWN,
				       .sync_guess = rnd(seed, 2) ? SR_YES : SR_NO, .p = &f->p,
				       .curr = &f->curr, .rq = f->rq, .llc = f->llc,
				       .rq_scratch = f->scratch, .topo = &f->t, .in_task = true,
				       .load_error_pct = 10 };
}

/* What two runs must agree on to be the same answer (each test adds what it also holds equal). */
static inline void rfx_assert_same(const struct sr_decision *a, const struct sr_decision *b)
{
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->decided_by, b->decided_by);
	assert_int_equal(a->depends, b->depends);
	assert_int_equal(a->wide, b->wide);
	assert_int_equal(a->wide_uncertain, b->wide_uncertain);
	assert_memory_equal(&a->fx, &b->fx, sizeof(a->fx));
}

#endif
