// SPDX-License-Identifier: GPL-2.0
/*
 * decide() replays under the other WF_SYNC value only when the model says
 * it read sync (d->sync_used): whenever it says not, a run under the other
 * value must give the same answer, dependencies and hints, on any
 * runqueues, flips, wake_wide() answer, exiting waker, affinity and knobs.
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
	int prev = rnd(seed, 5) ? (int)rnd(seed, n) : this;

	for (int c = 0; c < n; c++) {
		rfx_rq(f, seed, c, 3);
		f->rq[c].maybe_delayed = rnd(seed, 2);
		f->llc[c] = (struct sr_llc_view){ .has_idle_cores = rnd(seed, 2),
						  .nr_idle_scan = (int)rnd(seed, 6) - 1 };
	}
	sr_mask_clear(&f->mask);
	for (int c = 0; c < n; c++)
		if (rnd(seed, 5))
			sr_mask_set(&f->mask, c);
	sr_mask_set(&f->mask, prev);
	rfx_wakeup(f, seed, this, prev, rnd(seed, 2) ? 40 : UINT32_MAX, (int)rnd(seed, n + 1) - 1);
	f->curr.exiting = !rnd(seed, 8);
	f->ctx.allowed = rnd(seed, 3) ? NULL : &f->mask;
	f->ctx.force_wide = (int)rnd(seed, 3) - 1;
	f->ctx.unknown = rnd(seed, 2) ? SR_DEP_TOPOLOGY | SR_DEP_CGROUP | SR_DEP_DELAYED_DEQUEUE : 0;
}

/* One run under @sync, started as decide() starts one; its trail kept. */
static int run(struct rfx *f, enum sr_tristate sync, struct sr_decision *d)
{
	struct sr_wake_ctx c = f->ctx;

	c.sync = sync;
	sr_decision_reset(d, false);
	return f->pol.ops->select_task_rq(&f->pol, &c, d);
}

static void assert_same(const struct sr_decision *a, const struct sr_decision *b)
{
	rfx_assert_same(a, b);
	assert_int_equal(a->stamp_turns, b->stamp_turns);
	assert_int_equal(a->wide_alt_same, b->wide_alt_same);
	assert_int_equal(a->waker_recent_cpu, b->waker_recent_cpu);
	assert_int_equal(a->waker_recent_maybe, b->waker_recent_maybe);
	assert_int_equal(a->no_record_wakee, b->no_record_wakee);
}

/* @min_unread, @min_read: of ROUNDS, the least where sync was not read, and was */
static void sweep(const char *spec, const char *preset, unsigned int min_unread,
		  unsigned int min_read)
{
	struct rfx *f = rfx_new(spec, preset);
	struct sr_decision *d = calloc(1, sizeof(*d)), *o = calloc(1, sizeof(*o));
	unsigned int seed = (unsigned int)strlen(preset), unread = 0, read = 0;

	assert_non_null(d);
	assert_non_null(o);
	for (int i = 0; i < ROUNDS; i++) {
		enum sr_tristate s = rnd(&seed, 2) ? SR_YES : SR_NO;
		enum sr_tristate other = s == SR_YES ? SR_NO : SR_YES;
		int ret;

		random_case(f, &seed);
		ret = run(f, s, d);
		if (d->sync_used) {
			read++;
			continue;
		}
		assert_int_equal(run(f, other, o), ret);
		if (ret)
			continue;
		assert_false(o->sync_used);
		assert_same(d, o);
		unread++;
	}
	assert_true(unread >= min_unread);
	assert_true(read >= min_read);
	rfx_free(f);
	free(d);
	free(o);
}

/* Each era's model on a machine it meets, as data: of ROUNDS, the least unread and read. */
static const struct sweep_case {
	const char *spec, *preset;
	unsigned int min_unread, min_read;
} cases[] = {
	{ "sockets=2,llcs-per-socket=2,cores-per-llc=4,threads=2", "linux-6.12",
	  ROUNDS / 20, ROUNDS / 10 },
	{ "sockets=1,llcs-per-socket=2,cores-per-llc=4,threads=2", "linux-4.14",
	  ROUNDS / 20, ROUNDS / 10 },
	{ "sockets=2,llcs-per-socket=1,cores-per-llc=4,threads=2", "linux-5.4",
	  ROUNDS / 20, ROUNDS / 10 },
	{ "sockets=1,llcs-per-socket=2,cores-per-llc=4,threads=2", "linux-6.1:WA_WEIGHT=0",
	  ROUNDS / 20, ROUNDS / 10 },
	/* its prologue reads sync first */
	{ "sockets=1,llcs-per-socket=2,cores-per-llc=4,threads=2", "linux-6.18:vcpu_pack=15",
	  0, ROUNDS / 10 },
};

static void test_sync_used(void **state)
{
	const struct sweep_case *c = *state;

	sweep(c->spec, c->preset, c->min_unread, c->min_read);
}

int main(void)
{
	struct CMUnitTest tests[SR_ARRAY_SIZE(cases)];

	for (size_t i = 0; i < SR_ARRAY_SIZE(cases); i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].preset, .test_func = test_sync_used,
						.initial_state = (void *)&cases[i] };
	return _cmocka_run_group_tests("sync_used", tests, SR_ARRAY_SIZE(cases), NULL, NULL);
}
