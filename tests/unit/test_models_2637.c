// SPDX-License-Identifier: GPL-2.0
/*
 * The 2.6.37 - 3.0 models: effective_load (both forms), wake_affine (both
 * eras), task_hot/task_hot_lazy/NO_HOT_AFFINE/HOT_IMBALANCE,
 * select_idle_sibling and select_task_rq_fair incl. the fork slow path.
 * Expected numbers are worked by hand in the comments (docs/models.md, W1 - W7, W20).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "models-2637.h"

#define KV_2637		(SR_KV(2, 6) | 37)
#define NOW		10000000000ULL		/* 10 s */
#define TWO64(x)	((uint64_t)0 - (uint64_t)(x))	/* 2^64 - x */

struct fx {
	struct sr_topo topo;
	struct sr_rq *rq;
	struct sr_task_view p, curr;
	struct sr_policy pol;
	struct sr_wake_ctx ctx;
	struct sr_decision d;
};

/* Every CPU busy with one nice-0 task; p (nice 0, root group) slept long ago on @prev. */
static void fx_init(struct fx *f, const char *spec, int this_cpu, int prev)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(sr_topo_from_spec(&f->topo, spec, SR_ERA_2637), 0);
	f->rq = calloc(f->topo.nr_cpus, sizeof(*f->rq));
	assert_non_null(f->rq);
	for (int i = 0; i < f->topo.nr_cpus; i++) {
		f->rq[i].curr_pid = 1000 + i;
		f->rq[i].nr_running = f->rq[i].cfs_nr_running = 1;
		f->rq[i].load_weight = 1024;
		f->rq[i].capacity = 1024;
	}
	f->p = (struct sr_task_view){ .pid = 1, .prio = 120, .weight = 1024, .cpu = prev,
				      .last_switch_out = NOW - 50000000, .recent_used_cpu = -1 };
	f->curr = (struct sr_task_view){ .pid = 1000 + this_cpu, .prio = 120, .weight = 1024,
					 .cpu = this_cpu, .on_cpu = true, .recent_used_cpu = -1 };
	snprintf(f->pol.name, sizeof(f->pol.name), "test-2.6.3x");
	f->pol.knobs.kver = KV_2637;
	f->pol.knobs.migration_cost_ns = 500000;
	f->pol.knobs.hot_imbalance_pct = 125;
	f->ctx = (struct sr_wake_ctx){ .now = NOW, .kind = SR_WAKE_TTWU, .this_cpu = this_cpu,
				       .prev_cpu = prev, .sync = SR_NO, .p = &f->p,
				       .curr = &f->curr, .rq = f->rq, .topo = &f->topo };
	f->d.cpu = f->d.alt_cpu = -1;
}

static void fx_free(struct fx *f)
{
	free(f->rq);
	sr_topo_free(&f->topo);
}

static void set_rq(struct fx *f, int cpu, unsigned long load, unsigned int nr)
{
	f->rq[cpu].load_weight = load;
	f->rq[cpu].nr_running = f->rq[cpu].cfs_nr_running = nr;
	f->rq[cpu].curr_pid = nr ? 1000 + cpu : 0;
}

static int run(struct fx *f, const struct sr_policy_ops *ops)
{
	f->pol.ops = ops;
	memset(&f->d, 0, sizeof(f->d));
	f->d.cpu = f->d.alt_cpu = -1;
	return ops->select_task_rq(&f->pol, &f->ctx, &f->d);
}

static void reset_d(struct fx *f)
{
	memset(&f->d, 0, sizeof(f->d));
}

/* The @nth step of @fn whose check contains @part, or NULL. */
static const struct sr_step *find_step(const struct sr_trail *t, const char *fn, const char *part,
				       int nth)
{
	for (int i = 0; i < t->n; i++) {
		const struct sr_step *s = &t->steps[i];

		if (!strcmp(s->fn, fn) && strstr(s->check, part) && nth-- == 0)
			return s;
	}
	return NULL;
}

static int64_t val(const struct sr_step *s, const char *name)
{
	assert_non_null(s);
	for (int i = 0; i < s->nvals; i++)
		if (!strcmp(s->vals[i].name, name))
			return s->vals[i].v;
	fail_msg("no value %s in step %s", name, s->check);
	return 0;
}

static bool is_unsigned(const struct sr_step *s, const char *name)
{
	for (int i = 0; i < s->nvals; i++)
		if (!strcmp(s->vals[i].name, name))
			return s->vals[i].is_unsigned;
	return false;
}

static bool has_fn(const struct sr_trail *t, const char *fn)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->steps[i].fn, fn))
			return true;
	return false;
}

static const struct sr_step *balance_step(const struct sr_trail *t)
{
	return find_step(t, "wake_affine", "this_bias*power_of(prev)", 0);
}

static const struct sr_step *tail_step(const struct sr_trail *t)
{
	return find_step(t, "wake_affine", "tl_per_task", 0);
}

/* ---------------------------------------------------------------- effective_load 2.6.37 */

/* W1: S 1024, rw 1024, s 341: (+1024, +1024) -> 170; prev side returns 0 at once. */
static void test_w1_effective_load_2637(void **state)
{
	struct sr_tg_cpu cpu[2] = { { .load_weight = 1024, .rq_weight = 1024, .shares = 341 },
				    { .load_weight = 2048, .rq_weight = 2048, .shares = 682 } };
	struct sr_tg tg = { .shares = 1024, .nr_cpus = 2, .cpu = cpu };
	struct sr_trail t = { 0 };
	long res;

	assert_int_equal(sr_effective_load_2637(&tg, 0, 1024, 1024, &res, &t), 0);
	assert_int_equal(res, 170);
	assert_int_equal(val(&t.steps[0], "more_w"), 0);
	assert_int_equal(val(&t.steps[0], "a"), 2097152);
	assert_int_equal(val(&t.steps[0], "b"), 1397760);
	assert_int_equal(sr_effective_load_2637(&tg, 1, 0, 1024, &res, &t), 0);
	assert_int_equal(res, 0);
	assert_string_equal(t.steps[1].check, "!wl && sched_feat(ASYM_EFF_LOAD)");
	/* The root group is not redistributed at all. */
	assert_int_equal(sr_effective_load_2637(NULL, 0, -88761, -88761, &res, &t), 0);
	assert_int_equal(res, -88761);
}

/* W2: rw 2048, s 512, (-1024, -1024): -268435456 / 1572864 = -170.67 -> -170, not -171. */
static void test_w2_truncation_toward_zero(void **state)
{
	struct sr_tg_cpu cpu[1] = { { .load_weight = 2048, .rq_weight = 2048, .shares = 512 } };
	struct sr_tg tg = { .shares = 1024, .nr_cpus = 1, .cpu = cpu };
	struct sr_trail t = { 0 };
	long res;

	assert_int_equal(sr_effective_load_2637(&tg, 0, -1024, -1024, &res, &t), 0);
	assert_int_equal(res, -170);
	assert_int_equal(val(&t.steps[0], "a"), 1048576);
	assert_int_equal(val(&t.steps[0], "b"), 1572864);
}

/* Weight queued since the snapshot (more_w) is added to both wl and wg. */
static void test_effective_load_2637_drift_and_b_zero(void **state)
{
	/* rw 1024, now 2048: more_w 1024; wl = wg = 2048 -> a 3145728, b 2097152 -> 256. */
	struct sr_tg_cpu cpu[2] = { { .load_weight = 2048, .rq_weight = 1024, .shares = 512 },
				    /* S*rw + s*wg = 1024*512 - 512*1024 = 0: no division */
				    { .load_weight = 512, .rq_weight = 512, .shares = 512 } };
	struct sr_tg tg = { .shares = 1024, .nr_cpus = 2, .cpu = cpu };
	struct sr_trail t = { 0 };
	long res;

	assert_int_equal(sr_effective_load_2637(&tg, 0, 1024, 1024, &res, &t), 0);
	assert_int_equal(val(&t.steps[0], "more_w"), 1024);
	assert_int_equal(res, 256);
	/* a = 1024*(512-1024) = -524288; wl = 512*(a - 0) = -268435456, left undivided. */
	assert_int_equal(sr_effective_load_2637(&tg, 1, -1024, -1024, &res, &t), 0);
	assert_int_equal(val(&t.steps[1], "b"), 0);
	assert_string_equal(t.steps[1].result, "b == 0: no division");
	assert_int_equal(res, -268435456);
}

/* Nested group: the parent level sees the child's delta with wg = 0. */
static void test_effective_load_2637_hierarchy(void **state)
{
	struct sr_tg_cpu pc[1] = { { .load_weight = 512, .rq_weight = 512, .shares = 1024 } };
	struct sr_tg parent = { .shares = 2048, .nr_cpus = 1, .cpu = pc };
	struct sr_tg_cpu cc[1] = { { .load_weight = 1024, .rq_weight = 1024, .shares = 512 } };
	struct sr_tg child = { .parent = &parent, .shares = 1024, .nr_cpus = 1, .cpu = cc };
	struct sr_trail t = { 0 };
	long res;

	/*
	 * child: a = 1024*2048 = 2097152, b = 1048576 + 524288 = 1572864,
	 *        512*524288/1572864 = 170.67 -> 170
	 * parent: a = 2048*(512+170) = 1396736, b = 1048576,
	 *        1024*348160/1048576 = 340
	 */
	assert_int_equal(sr_effective_load_2637(&child, 0, 1024, 1024, &res, &t), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(val(&t.steps[0], "wl"), 170);
	assert_int_equal(val(&t.steps[1], "a"), 1396736);
	assert_int_equal(res, 340);
}

static void test_effective_load_bad_input(void **state)
{
	struct sr_tg_cpu cpu[1] = { { .load_weight = 0, .rq_weight = 0, .shares = 1 } };
	struct sr_tg tg = { .shares = 1, .nr_cpus = 1, .cpu = cpu };
	struct sr_tg loop = { .shares = 1024, .nr_cpus = 1, .cpu = cpu };
	struct sr_trail t = { 0 };
	long res;

	assert_int_equal(sr_effective_load_2637(&tg, 1, 1024, 1024, &res, &t), -EINVAL);
	assert_int_equal(sr_effective_load_2638(&tg, 1, 1024, 1024, &res, &t), -EINVAL);
	assert_int_equal(sr_effective_load_2637(&tg, 0, 1024, 1024, NULL, &t), -EINVAL);
	loop.parent = &loop;
	assert_int_equal(sr_effective_load_2637(&loop, 0, 1024, 1024, &res, &t), -EINVAL);
	assert_int_equal(sr_effective_load_2638(&loop, 0, 1024, 1024, &res, &t), -EINVAL);
	/* b = 1*0 + 1*(-1) = -1 and s*(a-b) = LONG_MAX + 1 = LONG_MIN: idiv would trap. */
	t.n = 0;
	assert_int_equal(sr_effective_load_2637(&tg, 0, LONG_MAX, -1, &res, &t), -EOVERFLOW);
}

/* ---------------------------------------------------------------- effective_load 2.6.38 */

static const struct sr_tg_cpu w3_cpu[4] = {
	{ .load_weight = 1024, .load_contribution = 1024, .se_weight = 341 },	/* this */
	{ .load_weight = 2048, .load_contribution = 2048, .se_weight = 682 },	/* prev */
};
static const struct sr_tg w3_tg = { .shares = 1024, .load_weight = 3072, .nr_cpus = 4,
				    .cpu = w3_cpu };

/* W3: this +171 (lw 4096, share 512), prev -170. */
static void test_w3_effective_load_2638(void **state)
{
	struct sr_trail t = { 0 };
	long res;

	assert_int_equal(sr_effective_load_2638(&w3_tg, 0, 1024, 1024, &res, &t), 0);
	assert_int_equal(res, 171);
	assert_int_equal(val(&t.steps[0], "lw"), 4096);
	assert_int_equal(val(&t.steps[0], "share"), 512);
	assert_int_equal(sr_effective_load_2638(&w3_tg, 1, 0, 1024, &res, &t), 0);
	assert_int_equal(res, -170);
	assert_int_equal(val(&t.steps[1], "wl"), 2048);
}

static void test_effective_load_2638_clip_min_and_unsigned(void **state)
{
	struct sr_tg_cpu cpu[4] = {
		/* only member here: lw = 2048 = wl -> clip to shares: 1024 - 1024 = 0 */
		{ .load_weight = 1024, .load_contribution = 1024, .se_weight = 1024 },
		/* empty here: 0*1024/3072 = 0 -> MIN_SHARES 2; 2 - 10 = -8 */
		{ .load_weight = 0, .load_contribution = 0, .se_weight = 10 },
		/* wl = -2048 + 1024 < 0: (2^64 - 2^20) / 4096 = 2^52 - 256, minus 341 */
		{ .load_weight = 1024, .load_contribution = 1024, .se_weight = 341 },
		{ 0 },
	};
	struct sr_tg tg = { .shares = 1024, .load_weight = 1024, .nr_cpus = 4, .cpu = cpu };
	struct sr_trail t = { 0 };
	long res;

	assert_int_equal(sr_effective_load_2638(&tg, 0, 1024, 1024, &res, &t), 0);
	assert_string_equal(t.steps[0].result, "clip: tg->shares");
	assert_int_equal(res, 0);
	tg.load_weight = 4096;
	assert_int_equal(sr_effective_load_2638(&tg, 1, 0, -1024, &res, &t), 0);
	assert_int_equal(val(&t.steps[1], "lw"), 3072);
	assert_string_equal(t.steps[1].result, "below MIN_SHARES: share = MIN_SHARES");
	assert_int_equal(res, -8);
	/* lw = 4096 - 1024 + 1024 + 0 = 4096 */
	assert_int_equal(sr_effective_load_2638(&tg, 2, -2048, 0, &res, &t), 0);
	assert_string_equal(t.steps[2].result, "wl < 0: unsigned wl * shares / lw");
	assert_int_equal(res, 4503599627370240L - 341);
	/* !lw: the group is empty everywhere -> tg->shares: 1024 - 10 = 1014 */
	tg.load_weight = 0;
	assert_int_equal(sr_effective_load_2638(&tg, 1, 0, 0, &res, &t), 0);
	assert_int_equal(val(&t.steps[3], "lw"), 0);
	assert_int_equal(res, 1014);
	/* lw = 0 - 1024 + 1024 - 2048 < 0 and wl = -4000 + 1024 < lw: still tg->shares. */
	assert_int_equal(sr_effective_load_2638(&tg, 2, -4000, -2048, &res, &t), 0);
	assert_int_equal(val(&t.steps[4], "lw"), -2048);
	assert_string_equal(t.steps[4].result, "clip: tg->shares");
	assert_int_equal(res, 1024 - 341);
}

/* Nested: child 2048*1024/3072 = 682 -> +170; parent (170+512)*2048/2048 = 682 - 1024. */
static void test_effective_load_2638_hierarchy(void **state)
{
	struct sr_tg_cpu pc[1] = { { .load_weight = 512, .load_contribution = 512,
				     .se_weight = 1024 } };
	struct sr_tg parent = { .shares = 2048, .load_weight = 2048, .nr_cpus = 1, .cpu = pc };
	struct sr_tg_cpu cc[1] = { { .load_weight = 1024, .load_contribution = 1024,
				     .se_weight = 512 } };
	struct sr_tg child = { .parent = &parent, .shares = 1024, .load_weight = 2048,
			       .nr_cpus = 1, .cpu = cc };
	struct sr_trail t = { 0 };
	long res;

	assert_int_equal(sr_effective_load_2638(&child, 0, 1024, 1024, &res, &t), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(val(&t.steps[0], "delta"), 170);
	assert_int_equal(val(&t.steps[1], "lw"), 2048);
	assert_int_equal(res, -342);
}

/* ---------------------------------------------------------------- wake_affine */

/* W4: Turner loads 341/682, this_eff 52,428,800 <= prev_eff 58,720,256: affine. */
static void test_w4_wake_affine_2638_group(void **state)
{
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	set_rq(&f, 0, 341, 1);
	set_rq(&f, 1, 682, 1);
	f.p.tg = &w3_tg;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_WEIGHT);
	assert_int_equal(val(balance_step(&f.d.trail), "eff_this"), 171);
	assert_int_equal(val(balance_step(&f.d.trail), "eff_prev"), -170);
	assert_int_equal(val(balance_step(&f.d.trail), "prev_bias"), 112);
	assert_int_equal(val(balance_step(&f.d.trail), "this_eff_load"), 52428800);
	assert_int_equal(val(balance_step(&f.d.trail), "prev_eff_load"), 58720256);
	assert_string_equal(tail_step(&f.d.trail)->result, "affine: balanced");
	fx_free(&f);
}

/* W5: root group, this 2048: prev 3072 -> affine; prev 2048 -> tl_per_task 1024 fails. */
static void test_w5_root_group_both_eras(void **state)
{
	const struct sr_policy_ops *ops[] = { &sr_srqf_2637_ops, &sr_srqf_2638_ops };
	struct fx f;

	for (int e = 0; e < 2; e++) {
		fx_init(&f, "cpus=4", 0, 1);
		set_rq(&f, 0, 2048, 2);
		set_rq(&f, 1, 3072, 3);
		assert_int_equal(run(&f, ops[e]), 0);
		assert_int_equal(f.d.cpu, 0);
		assert_int_equal(val(balance_step(&f.d.trail), "this_eff_load"), 314572800);
		assert_int_equal(val(balance_step(&f.d.trail), "prev_eff_load"), 352321536);
		set_rq(&f, 1, 2048, 2);
		assert_int_equal(run(&f, ops[e]), 0);
		assert_int_equal(f.d.cpu, 1);
		assert_int_equal(f.d.decided_by, SR_BY_WEIGHT);
		assert_int_equal(val(tail_step(&f.d.trail), "tl_per_task"), 1024);
		assert_string_equal(tail_step(&f.d.trail)->result, "not affine");
		/* Only 2.6.37 refreshes the share snapshots first. */
		assert_int_equal(has_fn(&f.d.trail, "select_task_rq_fair") &&
				 find_step(&f.d.trail, "select_task_rq_fair", "LB_SHARES_UPDATE", 0)
				 != NULL, e == 0);
		fx_free(&f);
	}
}

/* W6: sync, nice -20 waker + nice 19: this_load 15; imbalanced; 15 + 423 <= 44388. */
static void test_w6_tl_per_task_fallback(void **state)
{
	const struct sr_policy_ops *ops[] = { &sr_srqf_2637_ops, &sr_srqf_2638_ops };
	struct fx f;

	for (int e = 0; e < 2; e++) {
		fx_init(&f, "cpus=4", 0, 1);
		set_rq(&f, 0, 88776, 2);
		set_rq(&f, 1, 423, 1);
		f.curr.prio = 100;
		f.curr.weight = 88761;
		f.ctx.sync = SR_YES;
		assert_int_equal(run(&f, ops[e]), 0);
		assert_int_equal(f.d.cpu, 0);
		assert_int_equal(val(balance_step(&f.d.trail), "this_load"), 15);
		assert_int_equal(val(balance_step(&f.d.trail), "this_eff_load"), 106393600);
		assert_int_equal(val(balance_step(&f.d.trail), "prev_eff_load"), 48513024);
		assert_int_equal(val(tail_step(&f.d.trail), "tl_per_task"), 44388);
		assert_string_equal(tail_step(&f.d.trail)->result, "affine: tl_per_task");
		assert_int_equal(f.d.decided_by, SR_BY_WEIGHT);
		/*
		 * Boundary: 2000 - 1900 = 100; 100*1124 > 112*900 imbalanced;
		 * 100 + 900 == tl_per_task 2000/2: "<=" still pulls.
		 */
		set_rq(&f, 0, 2000, 2);
		set_rq(&f, 1, 900, 1);
		f.curr.weight = 1900;
		assert_int_equal(run(&f, ops[e]), 0);
		assert_int_equal(f.d.cpu, 0);
		assert_string_equal(tail_step(&f.d.trail)->result, "affine: tl_per_task");
		set_rq(&f, 1, 901, 1);
		assert_int_equal(run(&f, ops[e]), 0);
		assert_int_equal(f.d.cpu, 1);
		fx_free(&f);
	}
}

/* W7 and the sync && balanced early return with this_load > 0. */
static void test_w7_sync_balanced(void **state)
{
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	set_rq(&f, 0, 1024, 1);
	set_rq(&f, 1, 5000, 3);
	f.ctx.sync = SR_YES;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_SYNC);
	assert_string_equal(find_step(&f.d.trail, "wake_affine", "this_load > 0", 0)->result,
			    "false: balanced");
	assert_null(balance_step(&f.d.trail));
	assert_null(tail_step(&f.d.trail));
	/* The same wakeup without sync: this_load 1024 + 1024 vs 0 on an empty prev. */
	set_rq(&f, 1, 0, 0);
	f.ctx.sync = SR_NO;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 1);
	/* this 2048 - 1024 = 1024: 100*1024*2048 <= 112*1024*3072, sync: early return. */
	set_rq(&f, 0, 2048, 2);
	set_rq(&f, 1, 3072, 3);
	f.ctx.sync = SR_YES;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_SYNC);
	assert_int_equal(val(balance_step(&f.d.trail), "this_eff_load"), 209715200);
	assert_non_null(find_step(&f.d.trail, "wake_affine", "sync && balanced", 0));
	fx_free(&f);
}

/*
 * 2.6.37: the waker's group correction (W2, -170) exceeds a stale this-rq
 * load of 100, so this_load wraps to 2^64 - 70; with a nice-19 wakee
 * this_eff = 102400 * (2^64 - 55) = 2^64 - 5,632,000 and the move fails.
 */
static void test_2637_group_correction_wraps(void **state)
{
	struct sr_tg_cpu cpu[4] = { { .load_weight = 2048, .rq_weight = 2048, .shares = 512 } };
	struct sr_tg tg = { .shares = 1024, .nr_cpus = 4, .cpu = cpu };
	const struct sr_step *s;
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	set_rq(&f, 0, 100, 2);
	set_rq(&f, 1, 2048, 2);
	f.curr.tg = &tg;
	f.p.weight = 15;
	f.ctx.sync = SR_YES;
	assert_int_equal(sr_wake_affine_2637(&f.pol, &f.ctx, &f.topo.cpu[0].sd[0], &f.d), 0);
	s = find_step(&f.d.trail, "wake_affine", "sync: this_load", 0);
	assert_string_equal(s->result, "this_load wrapped below zero (unsigned long)");
	assert_int_equal(val(s, "eff_this"), -170);
	assert_int_equal(val(s, "eff_prev"), 0);
	assert_true((uint64_t)val(s, "this_load") == TWO64(70) && is_unsigned(s, "this_load"));
	s = balance_step(&f.d.trail);
	assert_true((uint64_t)val(s, "this_eff_load") == TWO64(5632000));
	assert_int_equal(val(s, "prev_eff_load"), 234881024);
	assert_string_equal(tail_step(&f.d.trail)->result, "not affine");
	fx_free(&f);
}

/*
 * A sync wakeup from an RT waker (se.load.weight 1024, not in rq->load) on
 * a CPU with 110 of CFS load: 2.6.37 wraps to 2^64 - 914 and, with a nice-5
 * wakee, refuses; 2.6.38 sees -914, "balanced", and pulls.
 */
static void test_rt_waker_unsigned_vs_s64(void **state)
{
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	set_rq(&f, 0, 110, 2);
	f.rq[0].curr_policy = SR_SCHED_RT;
	f.curr.policy = SR_SCHED_RT;
	f.curr.prio = 50;
	set_rq(&f, 1, 2048, 2);
	f.p.weight = 335;
	f.ctx.sync = SR_YES;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 1);
	assert_true((uint64_t)val(balance_step(&f.d.trail), "this_eff_load") == TWO64(59289600));
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_SYNC);
	assert_int_equal(val(find_step(&f.d.trail, "wake_affine", "this_load > 0", 0),
			     "this_load"), -914);
	fx_free(&f);
}

/*
 * Interrupt wakeup on an idle CPU, sync: current is the idle task (weight
 * 1024, root).  2.6.37: 0 - 1024 wraps, the nice-5 wakee stays in prev's
 * LLC; 2.6.38: -1024 is "balanced", it comes to the idle waker CPU.
 */
static void test_irq_sync_idle_waker(void **state)
{
	struct fx f;

	fx_init(&f, "llcs-per-socket=2,cores-per-llc=2", 0, 2);
	set_rq(&f, 0, 0, 0);
	f.ctx.curr = NULL;
	f.p.weight = 335;
	f.ctx.sync = SR_YES;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 2);
	assert_non_null(find_step(&f.d.trail, "wake_affine", "current == rq->idle", 0));
	assert_true((uint64_t)val(balance_step(&f.d.trail), "this_load") == TWO64(1024));
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_SIS_TARGET);
	fx_free(&f);
}

/*
 * 2.6.38 sync with the waker in W3's group: this side lw 2048, wl 0 ->
 * MIN_SHARES: 2 - 341 = -339; prev side wl 2048 = lw -> clip 1024 - 682 =
 * +342.  this_load 2, load 1024: 100*1024*1026 <= 112*1024*1024, affine.
 */
static void test_2638_sync_group_correction(void **state)
{
	const struct sr_step *s;
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	set_rq(&f, 0, 341, 1);
	set_rq(&f, 1, 682, 1);
	f.curr.tg = &w3_tg;
	f.ctx.sync = SR_YES;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	s = find_step(&f.d.trail, "wake_affine", "sync: this_load", 0);
	assert_int_equal(val(s, "eff_this"), -339);
	assert_int_equal(val(s, "eff_prev"), 342);
	assert_int_equal(val(s, "load"), 1024);
	assert_int_equal(val(balance_step(&f.d.trail), "this_eff_load"), 105062400);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_SYNC);
	fx_free(&f);
}

/* 2.6.38: load + eff_prev = 100 - 170 < 0 makes prev_eff_load negative (s64): imbalanced. */
static void test_2638_negative_prev_eff(void **state)
{
	const struct sr_step *s;
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	set_rq(&f, 0, 341, 1);
	set_rq(&f, 1, 100, 1);
	f.p.tg = &w3_tg;
	assert_int_equal(sr_wake_affine_2638(&f.pol, &f.ctx, &f.topo.cpu[0].sd[0], &f.d), 0);
	s = balance_step(&f.d.trail);
	assert_int_equal(val(s, "prev_eff_load"), -8028160);
	assert_false(is_unsigned(s, "prev_eff_load"));
	assert_string_equal(s->result, "imbalanced");
	assert_string_equal(tail_step(&f.d.trail)->result, "not affine");
	fx_free(&f);
}

/* ---------------------------------------------------------------- select_task_rq_fair */

/* cpu == prev: no wake_affine; SIS stops at the SMT level, which spans both. */
static void test_cpu_eq_prev_shortcut(void **state)
{
	struct fx f;

	fx_init(&f, "cores-per-llc=4,threads=2", 2, 2);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 2);
	assert_int_equal(f.d.decided_by, SR_BY_SAME_CPU);
	assert_false(has_fn(&f.d.trail, "wake_affine"));
	assert_string_equal(find_step(&f.d.trail, "select_task_rq_fair", "cpu == prev_cpu", 0)
			    ->result, "true: target = cpu, no wake_affine()");
	/* An idle CPU on another core is not looked at: the SMT span already covers both. */
	set_rq(&f, 5, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 2);
	/* The idle sibling is taken. */
	set_rq(&f, 3, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 3);
	assert_int_equal(f.d.decided_by, SR_BY_SIS_SMT);
	fx_free(&f);
}

/* Nodes beyond RECLAIM_DISTANCE: no SD_WAKE_AFFINE spans both, prev as is, no SIS. */
static void test_no_affine_domain(void **state)
{
	struct fx f;

	fx_init(&f, "sockets=2,cores-per-llc=2,numa-distance=40", 0, 2);
	set_rq(&f, 3, 0, 0);
	set_rq(&f, 1, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 2);
	assert_int_equal(f.d.decided_by, SR_BY_NO_AFFINE_DOMAIN);
	assert_false(has_fn(&f.d.trail, "wake_affine"));
	assert_false(has_fn(&f.d.trail, "select_idle_sibling"));
	assert_string_equal(find_step(&f.d.trail, "select_task_rq_fair", "for_each_domain", 0)
			    ->result, "no affine_sd, no sd");
	/* The domain walk alone makes the answer depend on an assumed topology. */
	f.ctx.unknown = SR_DEP_TOPOLOGY | SR_DEP_CGROUP;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.depends, SR_DEP_TOPOLOGY);
	fx_free(&f);
}

/* select_idle_sibling: keep an idle target, take an idle sibling, stop or climb. */
static void test_select_idle_sibling(void **state)
{
	struct fx f;

	fx_init(&f, "cores-per-llc=4,threads=2", 0, 4);
	/* Interrupt wakeup onto an idle waker CPU: balanced, affine, target kept. */
	set_rq(&f, 0, 0, 0);
	f.ctx.curr = NULL;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_SIS_TARGET);
	/* Not affine (4096+1024 vs 0) and prev idle: prev kept. */
	f.ctx.curr = &f.curr;
	set_rq(&f, 0, 4096, 4);
	set_rq(&f, 4, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 4);
	assert_int_equal(f.d.decided_by, SR_BY_SIS_TARGET);
	/* Affine onto busy 0, sibling 1 idle: SMT level picks it, MC picks it again. */
	set_rq(&f, 0, 1024, 1);
	set_rq(&f, 4, 3072, 3);
	set_rq(&f, 1, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 1);
	assert_int_equal(f.d.decided_by, SR_BY_SIS_CPU);
	assert_string_equal(find_step(&f.d.trail, "select_idle_sibling", "first idle", 0)->result,
			    "target = idle cpu; go up");
	/* Nothing idle: target kept, the affine decision settled it. */
	set_rq(&f, 1, 1024, 1);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_WEIGHT);
	fx_free(&f);
}

/* A higher level overwrites the SMT sibling picked below; allowed CPUs only. */
static void test_sis_overwrite_and_allowed(void **state)
{
	struct sr_cpumask allowed;
	struct fx f;

	fx_init(&f, "cores-per-llc=4,threads=2", 0, 4);
	set_rq(&f, 0, 4096, 4);
	set_rq(&f, 5, 0, 0);
	set_rq(&f, 2, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_string_equal(tail_step(&f.d.trail)->result, "not affine");
	assert_int_equal(val(find_step(&f.d.trail, "select_idle_sibling", "first idle", 0),
			     "idle_cpu"), 5);
	assert_int_equal(f.d.cpu, 2);
	sr_mask_clear(&allowed);
	for (int i = 0; i < 8; i++)
		if (i != 2)
			sr_mask_set(&allowed, i);
	f.ctx.allowed = &allowed;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 5);
	fx_free(&f);
}

/* The waker's CPU not allowed: want_affine = 0, prev without SIS; prev not allowed: fallback. */
static void test_not_allowed_and_fallback(void **state)
{
	struct sr_cpumask allowed;
	struct fx f;

	fx_init(&f, "cores-per-llc=4,threads=2", 0, 4);
	set_rq(&f, 5, 0, 0);
	sr_mask_clear(&allowed);
	for (int i = 4; i < 8; i++)
		sr_mask_set(&allowed, i);
	f.ctx.allowed = &allowed;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 4);
	assert_int_equal(f.d.decided_by, SR_BY_NOT_ALLOWED);
	assert_false(has_fn(&f.d.trail, "select_idle_sibling"));
	sr_mask_clear(&allowed);
	sr_mask_set(&allowed, 3);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 3);
	assert_int_equal(f.d.decided_by, SR_BY_NOT_ALLOWED);
	assert_non_null(find_step(&f.d.trail, "select_task_rq", "select_fallback_rq", 0));
	/* Nothing allowed at all. */
	sr_mask_clear(&allowed);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), -EINVAL);
	fx_free(&f);
	/* The fallback prefers prev's node (1: CPUs 2, 3) over a lower CPU elsewhere. */
	fx_init(&f, "sockets=2,cores-per-llc=2", 0, 2);
	sr_mask_set(&allowed, 1);
	sr_mask_set(&allowed, 3);
	f.ctx.allowed = &allowed;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 3);
	fx_free(&f);
}

/* ---------------------------------------------------------------- task_hot & friends */

/* NO_HOT_AFFINE: a hot wakee (300 us) keeps prev, a cold one (1.2 ms) is pulled. */
static void test_no_hot_affine(void **state)
{
	struct fx f;

	fx_init(&f, "cores-per-llc=4,threads=2", 0, 4);
	set_rq(&f, 4, 3072, 3);
	f.pol.knobs.features = SR_F_NO_HOT_AFFINE;
	f.p.last_switch_out = NOW - 300000;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 4);
	assert_int_equal(f.d.decided_by, SR_BY_TASK_HOT);
	assert_false(has_fn(&f.d.trail, "wake_affine"));
	assert_string_equal(find_step(&f.d.trail, "task_hot", "exec_start", 1)->result, "hot");
	f.p.last_switch_out = NOW - 1200000;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	assert_int_equal(f.d.decided_by, SR_BY_WEIGHT);
	/* A SCHED_IDLE wakee is never hot. */
	f.p.policy = SR_SCHED_IDLE;
	f.p.last_switch_out = NOW - 1000;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 0);
	fx_free(&f);
}

/* NO_HOT_AFFINE also skips select_idle_sibling when cpu == prev. */
static void test_no_hot_affine_same_cpu(void **state)
{
	struct fx f;

	fx_init(&f, "cores-per-llc=4,threads=2", 2, 2);
	set_rq(&f, 3, 0, 0);
	f.pol.knobs.features = SR_F_NO_HOT_AFFINE;
	f.p.last_switch_out = NOW - 300000;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 2);
	assert_int_equal(f.d.decided_by, SR_BY_TASK_HOT);
	f.p.last_switch_out = NOW - 600000;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 3);
	fx_free(&f);
}

/* task_hot_lazy: the stale clock decides a cold task; a hot one is re-tested at now. */
static void test_task_hot_lazy(void **state)
{
	struct sr_policy pol = { .knobs = { .kver = KV_2637, .migration_cost_ns = 500000 } };
	struct sr_hot_in in = { .policy = SR_SCHED_NORMAL, .exec_start = 1000000 };
	struct sr_trail t = { 0 };
	struct fx f;

	assert_int_equal(sr_task_hot_lazy_2638(&pol, &in, 2000000, 2000000, &t), 0);
	assert_false(has_fn(&t, "task_hot_lazy"));
	t.n = 0;
	assert_int_equal(sr_task_hot_lazy_2638(&pol, &in, 1100000, 2000000, &t), 0);
	assert_int_equal(val(find_step(&t, "task_hot_lazy", "stale", 0), "now"), 2000000);
	assert_int_equal(val(find_step(&t, "task_hot", "exec_start", 1), "delta"), 1000000);
	t.n = 0;
	assert_int_equal(sr_task_hot_lazy_2638(&pol, &in, 1100000, 1400000, &t), 1);
	/* The wake path: exec_start is the switch-out time, buddies are assumed absent. */
	fx_init(&f, "cpus=2", 0, 1);
	f.p.last_switch_out = NOW - 499999;
	assert_int_equal(sr_task_hot_lazy_wakee_2638(&f.pol, &f.ctx, &f.d), 1);
	assert_string_equal(find_step(&f.d.trail, "task_hot", "nr_running", 0)->result,
			    "not a buddy (assumed)");
	reset_d(&f);
	f.p.last_switch_out = NOW - 500000;
	assert_int_equal(sr_task_hot_lazy_wakee_2638(&f.pol, &f.ctx, &f.d), 0);
	fx_free(&f);
}

/* W20, every row, plus the sysctl's integer edges. */
static void test_w20_task_hot(void **state)
{
	struct sr_policy pol = { .knobs = { .kver = KV_2637, .migration_cost_ns = 500000 } };
	struct sr_hot_in in = { .policy = SR_SCHED_NORMAL, .exec_start = 1000000,
				.dst_nr_running = 1 };
	struct sr_trail t = { 0 };

	assert_int_equal(sr_task_hot_2638(&pol, &in, 1300000, &t), 1);	/* 300 us */
	assert_int_equal(sr_task_hot_2638(&pol, &in, 2200000, &t), 0);	/* 1.2 ms */
	in.policy = SR_SCHED_IDLE;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 1300000, &t), 0);
	in.policy = SR_SCHED_RT;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 1300000, &t), 0);
	in.policy = SR_SCHED_NORMAL;
	/* The next buddy while the destination has work: hot however old. */
	in.next_buddy = true;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 9000000, &t), 1);
	in.dst_nr_running = 0;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 9000000, &t), 0);
	in.dst_nr_running = 1;
	in.next_buddy = false;
	/* The last buddy counts until EEVDF. */
	in.last_buddy = true;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 9000000, &t), 1);
	pol.knobs.kver = SR_KV(6, 6);
	assert_int_equal(sr_task_hot_2638(&pol, &in, 9000000, &t), 0);
	in.last_buddy = false;
	/* SMT level: cold from 5.10 on, timing decides before. */
	in.sd_flags = SD_SHARE_CPUCAPACITY;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 1300000, &t), 0);
	pol.knobs.kver = KV_2637;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 1300000, &t), 1);
	in.sd_flags = 0;
	/* migration_cost -1: always hot; 0: cold, but only after the buddy rule. */
	pol.knobs.migration_cost_ns = -1;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 9000000, &t), 1);
	pol.knobs.migration_cost_ns = 0;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 1000001, &t), 0);
	in.next_buddy = true;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 1000001, &t), 1);
	in.next_buddy = false;
	/* -2 is stored as 4294967294 ns: 1 s is still hot. */
	pol.knobs.migration_cost_ns = -2;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 1001000000, &t), 1);
	pol.knobs.migration_cost_ns = 500000;
	/* A clock behind exec_start: s64 delta < 0 is hot. */
	assert_int_equal(sr_task_hot_2638(&pol, &in, 999999, &t), 1);
	pol.knobs.migration_cost_ns = 1LL << 40;
	assert_int_equal(sr_task_hot_2638(&pol, &in, 999999, &t), -EINVAL);
	/* Hot is migrated anyway after more failed balances than cache_nice_tries. */
	t.n = 0;
	assert_int_equal(sr_can_migrate_task_hot_2637(1, 2, 1, &t), 1);
	assert_string_equal(t.steps[0].result, "hot, too many failed balances: migrate");
	assert_int_equal(sr_can_migrate_task_hot_2637(1, 1, 1, &t), 0);
	assert_int_equal(sr_can_migrate_task_hot_2637(0, 0, 1, &t), 1);
	assert_int_equal(sr_can_migrate_task_hot_2637(-EINVAL, 0, 1, &t), -EINVAL);
}

/*
 * HOT_IMBALANCE 125 (bias 112 on this side): this 1024 + 1024 vs prev 2048.
 * Cold: 100*2048 <= 112*2048, affine.  Hot: 112*2048 > 100*2048 and
 * 1024 + 2048 > tl 1024: refused.  Hot with prev 3072: 112*2048 <= 100*3072.
 */
static void test_hot_imbalance(void **state)
{
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	set_rq(&f, 1, 2048, 2);
	f.pol.knobs.features = SR_F_HOT_IMBALANCE;
	f.p.last_switch_out = NOW - 100000;
	assert_int_equal(sr_wake_affine_2638(&f.pol, &f.ctx, &f.topo.cpu[0].sd[0], &f.d), 0);
	assert_int_equal(f.d.decided_by, SR_BY_TASK_HOT);
	assert_int_equal(val(balance_step(&f.d.trail), "this_bias"), 112);
	assert_int_equal(val(balance_step(&f.d.trail), "prev_bias"), 100);
	assert_int_equal(val(balance_step(&f.d.trail), "this_eff_load"), 234881024);
	assert_int_equal(val(balance_step(&f.d.trail), "prev_eff_load"), 209715200);
	reset_d(&f);
	f.p.last_switch_out = NOW - 700000;
	assert_int_equal(sr_wake_affine_2637(&f.pol, &f.ctx, &f.topo.cpu[0].sd[0], &f.d), 1);
	assert_int_equal(f.d.decided_by, SR_BY_WEIGHT);
	assert_int_equal(val(balance_step(&f.d.trail), "this_bias"), 100);
	reset_d(&f);
	f.p.last_switch_out = NOW - 100000;
	set_rq(&f, 1, 3072, 3);
	assert_int_equal(sr_wake_affine_2638(&f.pol, &f.ctx, &f.topo.cpu[0].sd[0], &f.d), 1);
	assert_int_equal(f.d.decided_by, SR_BY_WEIGHT);
	reset_d(&f);
	f.pol.knobs.hot_imbalance_pct = 50;
	assert_int_equal(sr_wake_affine_2638(&f.pol, &f.ctx, &f.topo.cpu[0].sd[0], &f.d), -EINVAL);
	fx_free(&f);
}

/* ---------------------------------------------------------------- fork/exec slow path */

/*
 * 2 nodes x 2 CPUs, fork on CPU0.  NUMA: local (2048+1024)*1024/2048 =
 * 1536 vs remote 512; 100*1536 >= 112*512 -> remote group, CPU3 (load 0).
 * Then CPU3's MC: local 0 vs CPU2 1024 -> stay.
 */
static void test_fork_slow_path(void **state)
{
	struct fx f;

	fx_init(&f, "sockets=2,cores-per-llc=2", 0, 0);
	f.ctx.kind = SR_WAKE_FORK;
	set_rq(&f, 0, 2048, 2);
	set_rq(&f, 3, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 3);
	assert_int_equal(f.d.decided_by, SR_BY_SLOW_PATH);
	assert_int_equal(val(find_step(&f.d.trail, "find_idlest_group", "", 0), "this_load"),
			 1536);
	assert_int_equal(val(find_step(&f.d.trail, "find_idlest_group", "", 0), "min_load"), 512);
	assert_string_equal(find_step(&f.d.trail, "find_idlest_group", "", 1)->result,
			    "stay: NULL");
	/* Balanced nodes (512 each): stay local; MC then prefers the idle CPU1. */
	set_rq(&f, 0, 1024, 1);
	set_rq(&f, 1, 0, 0);
	f.ctx.kind = SR_WAKE_EXEC;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	assert_int_equal(f.d.cpu, 1);
	assert_string_equal(find_step(&f.d.trail, "find_idlest_group", "", 0)->result,
			    "stay: NULL");
	fx_free(&f);
}

/*
 * 4 nodes, fork on CPU2: the ring starts at the local group, so of two
 * empty groups {4,5} wins over {0,1}; inside it 0 vs 0 is not "100*0 <
 * 112*0", so the fork moves on to CPU5.
 */
static void test_fork_ring_order_and_ties(void **state)
{
	struct sr_cpumask allowed;
	struct fx f;

	fx_init(&f, "sockets=4,cores-per-llc=2", 2, 2);
	f.ctx.kind = SR_WAKE_FORK;
	set_rq(&f, 2, 2048, 2);
	set_rq(&f, 3, 2048, 2);
	set_rq(&f, 0, 0, 0);
	set_rq(&f, 1, 0, 0);
	set_rq(&f, 4, 0, 0);
	set_rq(&f, 5, 0, 0);
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(val(find_step(&f.d.trail, "find_idlest_group", "", 0),
			     "idlest_first_cpu"), 4);
	assert_int_equal(f.d.cpu, 5);
	/* Groups without an allowed CPU are skipped. */
	sr_mask_clear(&allowed);
	sr_mask_set(&allowed, 1);
	sr_mask_set(&allowed, 2);
	f.ctx.allowed = &allowed;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 1);
	fx_free(&f);
}

/* SD_PREFER_LOCAL with spare capacity keeps the fork inside the lower domain. */
static void test_prefer_local(void **state)
{
	struct fx f;

	fx_init(&f, "sockets=2,cores-per-llc=2", 0, 0);
	f.ctx.kind = SR_WAKE_FORK;
	set_rq(&f, 0, 2048, 1);
	set_rq(&f, 3, 0, 0);
	for (int i = 0; i < 4; i++)
		f.rq[i].capacity = 900;
	f.topo.cpu[0].sd[1].flags |= SD_PREFER_LOCAL;
	/*
	 * 1 + 1 + 1 + 0 = 3 < DIV_ROUND_CLOSEST(3600, 1024) = 4: want_sd = 0
	 * at NUMA.  MC: 2048*1024/900 = 2330 vs 1165: CPU1.
	 */
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 1);
	assert_int_equal(val(find_step(&f.d.trail, "select_task_rq_fair", "SD_PREFER_LOCAL", 0),
			     "capacity"), 4);
	/* Busy enough: NUMA balances, 3072*1024/1800 = 1747 vs 582: CPU3 wins. */
	set_rq(&f, 0, 2048, 2);
	assert_int_equal(run(&f, &sr_srqf_2637_ops), 0);
	assert_int_equal(f.d.cpu, 3);
	fx_free(&f);
}

/* ---------------------------------------------------------------- plumbing */

/*
 * Unknown sync through sr_policy_decide(): waker alone on CPU0, prev 1024.
 * sync=0: 100*2048 > 112*1024 and 2048 > tl 1024: prev; sync=1: W7, this.
 */
static void test_sync_fanout_and_depends(void **state)
{
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	f.ctx.sync = SR_UNKNOWN;
	f.ctx.unknown = SR_DEP_CGROUP | SR_DEP_TOPOLOGY;
	f.pol.ops = &sr_srqf_2638_ops;
	assert_int_equal(sr_policy_decide(&f.pol, &f.ctx, &f.d), 0);
	assert_int_equal(f.d.cpu, 1);
	assert_int_equal(f.d.alt_cpu, 0);
	assert_int_equal(f.d.depends, SR_DEP_SYNC | SR_DEP_CGROUP | SR_DEP_TOPOLOGY);
	assert_false(f.d.determined);
	/* cpu == prev never reaches the load test: no cgroup dependency. */
	f.ctx.prev_cpu = 0;
	f.ctx.sync = SR_NO;
	f.rq[3].uncertain = true;
	assert_int_equal(sr_policy_decide(&f.pol, &f.ctx, &f.d), 0);
	assert_int_equal(f.d.depends, SR_DEP_TOPOLOGY | SR_DEP_LOST_EVENTS);
	assert_int_equal(run(&f, &sr_srqf_2638_ops), 0);
	fx_free(&f);
}

static void test_bad_ctx(void **state)
{
	struct fx f;

	fx_init(&f, "cpus=4", 0, 1);
	f.ctx.sync = SR_UNKNOWN;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), -EINVAL);
	f.ctx.sync = SR_NO;
	f.ctx.this_cpu = 4;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), -EINVAL);
	f.ctx.this_cpu = 0;
	f.ctx.prev_cpu = -1;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), -EINVAL);
	f.ctx.prev_cpu = 1;
	f.ctx.kind = 7;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), -EINVAL);
	f.ctx.kind = SR_WAKE_TTWU;
	f.ctx.p = NULL;
	assert_int_equal(run(&f, &sr_srqf_2638_ops), -EINVAL);
	f.ctx.p = &f.p;
	assert_int_equal(sr_select_idle_sibling_2637(&f.pol, &f.ctx, 9, &f.d), -EINVAL);
	assert_int_equal(sr_wake_affine_2637(&f.pol, &f.ctx, NULL, &f.d), -EINVAL);
	/* A fork whose group has no power would divide by zero. */
	f.ctx.kind = SR_WAKE_FORK;
	for (int i = 0; i < 4; i++)
		f.rq[i].capacity = 0;
	assert_int_equal(run(&f, &sr_srqf_2637_ops), -EINVAL);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_w1_effective_load_2637),
		cmocka_unit_test(test_w2_truncation_toward_zero),
		cmocka_unit_test(test_effective_load_2637_drift_and_b_zero),
		cmocka_unit_test(test_effective_load_2637_hierarchy),
		cmocka_unit_test(test_effective_load_bad_input),
		cmocka_unit_test(test_w3_effective_load_2638),
		cmocka_unit_test(test_effective_load_2638_clip_min_and_unsigned),
		cmocka_unit_test(test_effective_load_2638_hierarchy),
		cmocka_unit_test(test_w4_wake_affine_2638_group),
		cmocka_unit_test(test_w5_root_group_both_eras),
		cmocka_unit_test(test_w6_tl_per_task_fallback),
		cmocka_unit_test(test_w7_sync_balanced),
		cmocka_unit_test(test_2637_group_correction_wraps),
		cmocka_unit_test(test_rt_waker_unsigned_vs_s64),
		cmocka_unit_test(test_irq_sync_idle_waker),
		cmocka_unit_test(test_2638_sync_group_correction),
		cmocka_unit_test(test_2638_negative_prev_eff),
		cmocka_unit_test(test_cpu_eq_prev_shortcut),
		cmocka_unit_test(test_no_affine_domain),
		cmocka_unit_test(test_select_idle_sibling),
		cmocka_unit_test(test_sis_overwrite_and_allowed),
		cmocka_unit_test(test_not_allowed_and_fallback),
		cmocka_unit_test(test_no_hot_affine),
		cmocka_unit_test(test_no_hot_affine_same_cpu),
		cmocka_unit_test(test_task_hot_lazy),
		cmocka_unit_test(test_w20_task_hot),
		cmocka_unit_test(test_hot_imbalance),
		cmocka_unit_test(test_fork_slow_path),
		cmocka_unit_test(test_fork_ring_order_and_ties),
		cmocka_unit_test(test_prefer_local),
		cmocka_unit_test(test_sync_fanout_and_depends),
		cmocka_unit_test(test_bad_ctx),
	};

	return cmocka_run_group_tests_name("models_2637", tests, NULL, NULL);
}
