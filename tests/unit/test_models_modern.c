// SPDX-License-Identifier: GPL-2.0
/*
 * The 4.14 - 6.18 wakeup models (worked examples Wn of docs/models.md):
 * wake_affine_idle/weight/wake_affine (W8 - W12),
 * wake_wide and record_wakee with Gorman's heavy-waker variants (W13, W14),
 * task_h_load (W21), and the select_task_rq_fair() flow of sr_srqf_414_ops
 * (W8, W22 placement, affinity, NUMA, fork/exec), on topologies where
 * select_idle_sibling()/find_idlest_cpu() have an obvious answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "models.h"
#include "models-affine.h"
#include "policy.h"

#define NR_MAX	32

struct fx {
	struct sr_topo t;
	struct sr_rq rq[NR_MAX];
	struct sr_task_view p, curr;
	struct sr_policy pol;
	struct sr_wake_ctx ctx;
	struct sr_decision d;
};

static void set_pol(struct fx *f, unsigned int kver, unsigned int features)
{
	memset(&f->pol, 0, sizeof(f->pol));
	f->pol.knobs.kver = kver;
	f->pol.knobs.features = features;
	f->pol.knobs.migration_cost_ns = 500000;
}

#define WA_ALL	(SR_F_WA_IDLE | SR_F_WA_WEIGHT | SR_F_WA_BIAS)

/* Every CPU busy with one nice-0 task and no load; p on @prev, woken from @this. */
static struct fx *fx_new(const char *spec, enum sr_topo_era era, int this, int prev)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(sr_topo_from_spec(&f->t, spec, era), 0);
	assert_true(f->t.nr_cpus <= NR_MAX);
	for (int i = 0; i < f->t.nr_cpus; i++) {
		f->rq[i].curr_pid = 1000 + i;
		f->rq[i].nr_running = 1;
		f->rq[i].cfs_nr_running = 1;
		f->rq[i].capacity = 1024;
	}
	f->p = (struct sr_task_view){ .pid = 42, .prio = 120, .weight = 1024, .cpu = prev,
				      .recent_used_cpu = -1 };
	f->curr = (struct sr_task_view){ .pid = 1000 + this, .prio = 120, .weight = 1024,
					 .cpu = this, .on_cpu = true, .recent_used_cpu = -1 };
	f->ctx = (struct sr_wake_ctx){ .kind = SR_WAKE_TTWU, .this_cpu = this, .prev_cpu = prev,
				       .sync = SR_NO, .p = &f->p, .curr = &f->curr, .rq = f->rq,
				       .topo = &f->t };
	set_pol(f, SR_KV(5, 15), WA_ALL);
	f->d.cpu = -1;
	return f;
}

static void fx_free(struct fx *f)
{
	sr_topo_free(&f->t);
	free(f);
}

/* Idle since a distinct time: the higher CPU went idle last. */
static void set_idle(struct fx *f, int cpu)
{
	f->rq[cpu].idle_since = 1000000ULL * (cpu + 1);
	f->rq[cpu].idle_stamp = f->rq[cpu].idle_since;
	f->rq[cpu].idle_stamp_known = true;
	f->rq[cpu].curr_pid = 0;
	f->rq[cpu].nr_running = 0;
	f->rq[cpu].cfs_nr_running = 0;
}

/* Both PELT load fields of a CPU (runnable-only equals total: nothing blocked). */
static void set_load(struct fx *f, int cpu, unsigned long load)
{
	f->rq[cpu].load_avg = load;
	f->rq[cpu].runnable_load_avg = load;
}

static const struct sr_step *last_step(const struct fx *f)
{
	assert_true(f->d.trail.n > 0);
	return &f->d.trail.steps[f->d.trail.n - 1];
}

static int64_t val(const struct sr_step *s, const char *name)
{
	for (int i = 0; i < s->nvals; i++)
		if (!strcmp(s->vals[i].name, name))
			return s->vals[i].v;
	fail_msg("no value %s in step %s", name, s->check);
	return 0;
}

static const struct sr_domain *mc(const struct fx *f)
{
	return sr_lowest_flag_domain(&f->t, f->ctx.this_cpu, SD_WAKE_AFFINE |
				     SD_SHARE_PKG_RESOURCES);
}

/* W8: idle waker in prev's LLC; prev idle -> prev, else this (5.10+). */
static void test_w8_idle_waker_shared_llc(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 1, 5);

	set_idle(f, 1);
	set_idle(f, 5);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), 5);
	assert_int_equal(f->d.decided_by, SR_BY_IDLE_PREV);
	assert_string_equal(last_step(f)->check, "available_idle_cpu(prev_cpu)");

	memset(&f->d, 0, sizeof(f->d));
	f->rq[5].curr_pid = 77;
	f->rq[5].nr_running = 1;
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), 1);
	assert_int_equal(f->d.decided_by, SR_BY_IDLE_WAKER);
	assert_string_equal(last_step(f)->result, "this");
	/* A queued wakeup makes the waker CPU busy: nothing decided by the idle rule. */
	memset(&f->d, 0, sizeof(f->d));
	f->rq[1].ttwu_pending = true;
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), SR_WA_NONE);
	fx_free(f);
}

/* W8: across LLCs the idle-waker rule is skipped; 5.10+ still keeps an idle prev. */
static void test_w8_cross_llc(void **state)
{
	struct fx *f = fx_new("llcs-per-socket=2,cores-per-llc=4", SR_ERA_511, 1, 5);

	set_idle(f, 1);
	set_idle(f, 5);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), 5);
	assert_int_equal(f->d.trail.steps[0].vals[1].v, 0);	/* share_cache */
	assert_int_equal(f->d.decided_by, SR_BY_IDLE_PREV);

	/* 4.19 has no prev-idle rule: the weight test decides. */
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), SR_WA_NONE);
	assert_int_equal(f->d.trail.n, 2);

	/* prev busy on 5.15: none, wake_affine falls to the weight test. */
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 15), WA_ALL);
	f->rq[5].curr_pid = 9;
	f->rq[5].nr_running = 1;
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), SR_WA_NONE);

	/* 4.14: an idle waker is affine whatever the LLCs. */
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 14), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_414(&f->pol, &f->ctx, false, &f->d), 1);
	assert_int_equal(f->d.decided_by, SR_BY_IDLE_WAKER);
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 1);
	fx_free(f);
}

/* available_idle_cpu() from 4.18: a preempted vCPU is not idle; idle_cpu() ignores it. */
static void test_vcpu_preempted(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_316, 0, 2);

	set_idle(f, 0);
	f->rq[0].vcpu_preempted = true;
	f->ctx.unknown = SR_DEP_VCPU;
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), SR_WA_NONE);
	assert_int_equal(f->d.trail.steps[0].vals[0].v, 0);
	f->rq[0].vcpu_preempted = false;
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), 0);
	assert_true(f->d.depends & SR_DEP_VCPU);
	/* 4.16/4.17: plain idle_cpu(), no vCPU dependency. */
	f->rq[0].vcpu_preempted = true;
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 16), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), 0);
	assert_false(f->d.depends & SR_DEP_VCPU);
	assert_string_equal(f->d.trail.steps[0].check,
			    "idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev_cpu)");
	fx_free(f);
}

/* Sync with the waker alone on its CPU: this, in both forms; not without sync. */
static void test_sync_nr_running_one(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_316, 0, 2);

	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), SR_WA_NONE);
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d), 0);
	assert_int_equal(f->d.decided_by, SR_BY_SYNC);
	memset(&f->d, 0, sizeof(f->d));
	f->rq[0].nr_running = 2;
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d), SR_WA_NONE);

	set_pol(f, SR_KV(4, 14), WA_ALL);
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_idle_414(&f->pol, &f->ctx, true, &f->d), SR_WA_NONE);
	f->rq[0].nr_running = 1;
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_idle_414(&f->pol, &f->ctx, true, &f->d), 0);
	assert_int_equal(f->d.decided_by, SR_BY_SYNC);
	assert_string_equal(last_step(f)->check, "sync && cpu_rq(this_cpu)->nr_running == 1");
	fx_free(f);
}

/*
 * The sync test on delayed-dequeue kernels: a pass depends on delayed
 * dequeue only while tasks that slept here may still be queued.
 */
static void test_sync_delayed_dequeue(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_511, 0, 2);

	f->ctx.unknown = SR_DEP_DELAYED_DEQUEUE;
	set_pol(f, SR_KV(6, 12), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d), 0);
	assert_false(f->d.depends & SR_DEP_DELAYED_DEQUEUE);
	f->rq[0].maybe_delayed = 2;
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d), 0);
	assert_true(f->d.depends & SR_DEP_DELAYED_DEQUEUE);
	assert_string_equal(f->d.trail.steps[1].check,
			    "sync && rq->nr_running - cfs_h_nr_delayed(rq) == 1");
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(6, 14), WA_ALL);	/* released without aa3ee4f0b754 */
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d), 0);
	assert_true(f->d.depends & SR_DEP_DELAYED_DEQUEUE);
	assert_string_equal(f->d.trail.steps[1].check,
			    "sync && cpu_rq(this_cpu)->nr_running == 1");
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(6, 18), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d), 0);
	assert_true(f->d.depends & SR_DEP_DELAYED_DEQUEUE);
	assert_string_equal(f->d.trail.steps[1].check,
			    "sync && rq->nr_running - cfs_h_nr_delayed(rq) == 1");
	/* 5.15 has no delayed dequeue at all. */
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 15), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d), 0);
	assert_false(f->d.depends & SR_DEP_DELAYED_DEQUEUE);
	fx_free(f);
}

/* W9: this 1536, prev 2048, task_h_load(p) 512 -> prev. */
static void test_w9_weight_not_affine(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);
	const struct sr_step *s;

	set_load(f, 0, 1536);
	set_load(f, 4, 2048);
	f->p.load_avg = 513;		/* 513 * 2048 / 2049 = 512 */
	assert_int_equal(mc(f)->imbalance_pct, 117);
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d),
			 SR_WA_NONE);
	s = last_step(f);
	assert_int_equal(val(s, "task_load"), 512);
	assert_int_equal(val(s, "bias"), 108);
	assert_int_equal(val(s, "this_eff_load"), 209715200);
	assert_int_equal(val(s, "prev_eff_load"), 169869312);
	assert_string_equal(s->result, "none");
	assert_int_equal(f->d.decided_by, SR_BY_WEIGHT);
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 4);
	assert_string_equal(last_step(f)->result, "prev");
	fx_free(f);
}

/* W10: this 512 -> this. */
static void test_w10_weight_affine(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_load(f, 0, 512);
	set_load(f, 4, 2048);
	f->p.load_avg = 513;
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_int_equal(val(last_step(f), "this_eff_load"), 104857600);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 169869312);
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_int_equal(f->d.decided_by, SR_BY_WEIGHT);
	fx_free(f);
}

/* W11: non-sync tie -> prev from 4.16, this in 4.14 ("<="); sync tie -> this (+1). */
static void test_w11_ties(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_316, 0, 4);

	set_load(f, 0, 1000);
	set_load(f, 4, 1080);
	f->p.load_avg = 81;		/* 81 * 1080 / 1081 = 80 */
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d),
			 SR_WA_NONE);
	assert_int_equal(val(last_step(f), "this_eff_load"), 110592000);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 110592000);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 14), WA_ALL);
	assert_int_equal(sr_wake_affine_weight_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_string_equal(last_step(f)->check, "this_eff_load <= prev_eff_load");
	memset(&f->d, 0, sizeof(f->d));
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);

	/* Sync: this 1200, task_h_load(current) 200. */
	set_load(f, 0, 1200);
	f->curr.load_avg = 201;		/* 201 * 1200 / 1201 = 200 */
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), true, &f->d), 0);
	assert_int_equal(f->d.trail.steps[0].vals[0].v, 200);	/* current_load */
	assert_string_equal(f->d.trail.steps[0].result, "subtract");
	assert_int_equal(val(last_step(f), "this_load"), 1000);
	assert_int_equal(val(last_step(f), "this_eff_load"), 110592000);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 110592001);

	/* 4.14 has no sync +1: with unit capacities and no bias, T == P + 1 stays prev. */
	set_load(f, 0, 101);
	set_load(f, 4, 100);
	f->curr.load_avg = 0;
	f->p.load_avg = 0;
	f->rq[0].capacity = 1;
	f->rq[4].capacity = 1;
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 14), SR_F_WA_WEIGHT);
	assert_int_equal(sr_wake_affine_weight_414(&f->pol, &f->ctx, mc(f), true, &f->d),
			 SR_WA_NONE);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 100);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 16), SR_F_WA_WEIGHT);
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), true, &f->d),
			 SR_WA_NONE);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 101);
	fx_free(f);
}

/* W12: current outweighs this -> this at once; negative prev_eff_load -> prev. */
static void test_w12_sync_shortcut_negative(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_load(f, 0, 900);
	f->curr.load_avg = 1002;	/* 1002 * 900 / 901 = 1000 */
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), true, &f->d), 0);
	assert_int_equal(f->d.trail.n, 1);
	assert_string_equal(f->d.trail.steps[0].result, "this");
	assert_int_equal(f->d.decided_by, SR_BY_SYNC);
	/* Equal is not heavier: subtract, this_load becomes 0. */
	memset(&f->d, 0, sizeof(f->d));
	f->curr.load_avg = 901;		/* 901 * 900 / 901 = 900 */
	sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), true, &f->d);
	assert_string_equal(f->d.trail.steps[0].result, "subtract");
	assert_int_equal(val(last_step(f), "this_load"), 0);
	f->curr.load_avg = 1002;

	/* this runs an RT task (no CFS load, not idle), prev 300, t 400. */
	memset(&f->d, 0, sizeof(f->d));
	set_load(f, 0, 0);
	f->rq[0].curr_policy = SR_SCHED_RT;
	set_load(f, 4, 300);
	f->p.load_avg = 402;		/* 402 * 300 / 301 = 400 */
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 4);
	assert_int_equal(val(last_step(f) - 1, "this_eff_load"), 40960000);
	assert_int_equal(val(last_step(f) - 1, "prev_eff_load"), -11059200);
	assert_int_equal(f->d.decided_by, SR_BY_WEIGHT);
	fx_free(f);
}

/* cpu_load per era: runnable_load_avg up to 5.6, load_avg (blocked included) since 5.7. */
static void test_cpu_load_era(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_316, 0, 4);

	f->rq[0].runnable_load_avg = 300;
	f->rq[0].load_avg = 900;
	f->rq[4].runnable_load_avg = 1000;
	f->rq[4].load_avg = 1500;
	f->p.load_avg = 1501;		/* 1501 * 1500 / 1501 = 1500 on prev */
	set_pol(f, SR_KV(5, 4), WA_ALL);
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d),
			 SR_WA_NONE);
	assert_int_equal(val(last_step(f), "this_load"), 300);
	assert_int_equal(val(last_step(f), "prev_load"), 1000);
	assert_int_equal(val(last_step(f), "task_load"), 1500);
	/* 4.14-5.6 subtract a wakee the runnable figure never held: P goes negative. */
	assert_true(val(last_step(f), "prev_eff_load") < 0);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 7), WA_ALL);
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d),
			 SR_WA_NONE);
	assert_int_equal(val(last_step(f), "this_load"), 900);
	assert_int_equal(val(last_step(f), "prev_load"), 1500);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 0);
	fx_free(f);
}

/* WA_BIAS off drops the 100 / bias factors and can flip the answer. */
static void test_wa_bias_off(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_load(f, 0, 1000);
	set_load(f, 4, 1100);
	f->p.load_avg = 81;		/* 81 * 1100 / 1101 = 80 */
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_int_equal(val(last_step(f), "this_eff_load"), 110592000);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 112803840);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 15), SR_F_WA_IDLE | SR_F_WA_WEIGHT);
	assert_int_equal(sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d),
			 SR_WA_NONE);
	assert_int_equal(val(last_step(f), "bias"), 1);
	assert_int_equal(val(last_step(f), "this_eff_load"), 1080 * 1024);
	assert_int_equal(val(last_step(f), "prev_eff_load"), 1020 * 1024);
	fx_free(f);
}

/* Feature gates: WA_IDLE off skips the idle rule; both off always give prev. */
static void test_wa_features_off(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_idle(f, 0);
	set_load(f, 4, 2048);
	f->p.load_avg = 0;
	set_pol(f, SR_KV(5, 15), SR_F_WA_WEIGHT | SR_F_WA_BIAS);
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_string_equal(f->d.trail.steps[0].fn, "wake_affine_weight");
	assert_int_equal(f->d.decided_by, SR_BY_WEIGHT);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 15), 0);
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 4);
	assert_int_equal(f->d.trail.n, 1);
	assert_int_equal(f->d.decided_by, SR_BY_NONE);
	/* WA_IDLE only: a busy pair stays on prev without a weight test. */
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 14), SR_F_WA_IDLE);
	f->rq[0].curr_pid = 3;
	f->rq[0].nr_running = 1;
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 4);
	assert_int_equal(f->d.trail.n, 3);
	fx_free(f);
}

/* Unobservable inputs: cgroup and PELT when the weight test decided, not otherwise. */
static void test_weight_dependencies(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);
	static const struct sr_tg tg_dummy;	/* a real (empty) group: models read it */

	f->ctx.unknown = SR_DEP_CGROUP | SR_DEP_PELT_WARMUP | SR_DEP_TOPOLOGY;
	set_load(f, 4, 2048);
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_int_equal(f->d.depends, SR_DEP_CGROUP | SR_DEP_PELT_WARMUP | SR_DEP_TOPOLOGY);
	memset(&f->d, 0, sizeof(f->d));
	set_idle(f, 0);
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_int_equal(f->d.depends, SR_DEP_TOPOLOGY);	/* cpus_share_cache only */
	/* A known non-root group: shares not modelled, always a dependency. */
	memset(&f->d, 0, sizeof(f->d));
	f->ctx.unknown = 0;
	f->rq[0].curr_pid = 3;
	f->rq[0].nr_running = 1;
	f->p.tg = &tg_dummy;
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_int_equal(f->d.depends, SR_DEP_CGROUP);
	/* A runqueue not re-established after lost events. */
	memset(&f->d, 0, sizeof(f->d));
	f->p.tg = NULL;
	f->rq[4].uncertain = true;
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	assert_int_equal(f->d.depends, SR_DEP_LOST_EVENTS);
	fx_free(f);
}

/* Each era switch, one version below and at the version it lands in. */
static void test_era_boundaries(void **state)
{
	struct fx *f = fx_new("llcs-per-socket=2,cores-per-llc=4", SR_ERA_316, 0, 1);

	/* 4.16: strict "<" (W11 tie). */
	set_load(f, 0, 1000);
	set_load(f, 1, 1080);
	f->p.load_avg = 81;
	set_pol(f, SR_KV(4, 15), WA_ALL);
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 0);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 16), WA_ALL);
	assert_int_equal(sr_wake_affine_414(&f->pol, &f->ctx, mc(f), false, &f->d), 1);
	/* 5.7: cpu_load() is load_avg. */
	f->rq[0].load_avg = 5000;
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 6), WA_ALL);
	sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d);
	assert_int_equal(val(last_step(f), "this_load"), 1000);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 7), WA_ALL);
	sr_wake_affine_weight_416(&f->pol, &f->ctx, mc(f), false, &f->d);
	assert_int_equal(val(last_step(f), "this_load"), 5000);
	/* 4.18: available_idle_cpu(). */
	set_idle(f, 0);
	f->rq[0].vcpu_preempted = true;
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 17), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), 0);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(4, 18), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), SR_WA_NONE);
	/* 5.10: an idle prev in another LLC is kept. */
	f->ctx.prev_cpu = 5;
	f->p.cpu = 5;
	set_idle(f, 5);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 9), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), SR_WA_NONE);
	memset(&f->d, 0, sizeof(f->d));
	set_pol(f, SR_KV(5, 10), WA_ALL);
	assert_int_equal(sr_wake_affine_idle_416(&f->pol, &f->ctx, false, &f->d), 5);
	/* 6.16 (aa3ee4f0b754, v6.16-rc1; 6.12.37 on the LTS): the delayed-aware sync test. */
	f->rq[0].curr_pid = 3;
	f->rq[0].nr_running = 1;
	static const struct { unsigned int kv; bool aware; } eras[] = {
		{ SR_KV(6, 11), false }, { SR_KV(6, 12), true }, { SR_KV(6, 13), false },
		{ SR_KV(6, 15), false }, { SR_KV(6, 16), true }, { SR_KV(6, 18), true },
	};
	for (size_t i = 0; i < sizeof(eras) / sizeof(eras[0]); i++) {
		memset(&f->d, 0, sizeof(f->d));
		set_pol(f, eras[i].kv, WA_ALL);
		sr_wake_affine_idle_416(&f->pol, &f->ctx, true, &f->d);
		assert_string_equal(f->d.trail.steps[1].check,
				    eras[i].aware ? "sync && rq->nr_running - cfs_h_nr_delayed(rq) == 1"
						  : "sync && cpu_rq(this_cpu)->nr_running == 1");
	}
	fx_free(f);
}

/* W21: autogroup task on CPU0, group entity 256 of root 1280 -> h_load 255 -> 254. */
static void test_w21_task_h_load(void **state)
{
	const struct sr_hload_level lv[] = { { 1280, 0, 1280 }, { 1024, 256, 0 } };

	assert_int_equal(sr_task_h_load_414(1024, lv, 2), 254);
	assert_int_equal(sr_task_h_load_414(1025, lv, 2), 255);	/* grq.h_load itself */
	assert_int_equal(sr_task_h_load_414(1024, lv, 1), 1023);	/* root task: -1 at most */
	assert_int_equal(sr_task_h_load_414(0, lv, 2), 0);
	assert_int_equal(sr_task_h_load_414(77, NULL, 0), 77);
	/* a root h_load cached while the cfs_rq's load was twice today's */
	const struct sr_hload_level stale[] = { { 1280, 0, 2560 } };

	assert_int_equal(sr_task_h_load_414(1024, stale, 1), 2046);
}

/* W21 through a context: the state's group view feeds task_h_load(); a probe's value wins. */
static void test_task_h_load_ctx(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_511, 0, 1);
	struct sr_tg_cpu q[NR_MAX] = { [0] = { .load_avg = 1024, .se_load_avg = 256 } };
	struct sr_tg tg = { .shares = 1024, .nr_cpus = NR_MAX, .cpu = q };

	f->rq[0].load_avg = 1280;
	f->p.load_avg = 1024;
	assert_int_equal(sr_task_h_load_ctx(&f->ctx, &f->p, 0), 1023);	/* root group */
	/* the root's h_load cached earlier in the jiffy, at 2560: 1024 * 2560 / 1281 */
	f->rq[0].h_load = 2560;
	f->rq[0].h_load_cached = true;
	assert_int_equal(sr_task_h_load_ctx(&f->ctx, &f->p, 0), 2046);
	f->p.tg = &tg;		/* a group's cache is not followed: the values of now */
	assert_int_equal(sr_task_h_load_ctx(&f->ctx, &f->p, 0), 254);
	f->p.h_load_known = true;
	f->p.h_load = 77;
	assert_int_equal(sr_task_h_load_ctx(&f->ctx, &f->p, 0), 77);
	assert_int_equal(sr_task_h_load_ctx(&f->ctx, NULL, 0), 0);
	fx_free(f);
}

static void set_flips(struct fx *f, unsigned int waker, unsigned int wakee)
{
	f->curr.wakee_flips = waker;
	f->p.wakee_flips = wakee;
	f->curr.wakee_flips_heavy = waker;
	f->p.wakee_flips_heavy = wakee;
}

/*
 * Flips the trace cannot pin: a wakee whose count may be anywhere in [3, 9]
 * (factor 4) could make wake_wide() go either way; one known exactly cannot.
 */
static void test_wake_wide_bounds(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_511, 0, 4);

	set_flips(f, 40, 3);
	f->curr.wakee_flips_min = f->curr.wakee_flips_max = 40;
	f->p.wakee_flips_min = f->p.wakee_flips_max = 3;
	memset(&f->d, 0, sizeof(f->d));
	assert_false(sr_wake_wide(&f->pol, &f->ctx, &f->d));
	assert_false(f->d.wide_uncertain);
	f->p.wakee_flips_max = 9;		/* 4..9 with 40 would be wide */
	memset(&f->d, 0, sizeof(f->d));
	assert_false(sr_wake_wide(&f->pol, &f->ctx, &f->d));
	assert_true(f->d.wide_uncertain);
	/* a waker of 12: master 12 < 4 * slave for every slave in 4..11: narrow throughout */
	f->p.wakee_flips_max = 11;
	f->curr.wakee_flips_min = f->curr.wakee_flips_max = f->curr.wakee_flips = 12;
	memset(&f->d, 0, sizeof(f->d));
	assert_false(sr_wake_wide(&f->pol, &f->ctx, &f->d));
	assert_false(f->d.wide_uncertain);
	f->ctx.force_wide = 1;			/* a what-if replay */
	assert_true(sr_wake_wide(&f->pol, &f->ctx, &f->d));
	fx_free(f);
}

/* W13: Galbraith's wake_wide with llc_size 8, master/slave swapped as needed. */
static void test_w13_wake_wide(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);
	static const struct { unsigned int waker, wakee; bool wide; } v[] = {
		{ 70, 8, true }, { 63, 8, false }, { 20, 4, false }, { 8, 70, true },
		{ 64, 8, true }, { 0, 0, false },
	};

	for (size_t i = 0; i < SR_ARRAY_SIZE(v); i++) {
		set_flips(f, v[i].waker, v[i].wakee);
		memset(&f->d, 0, sizeof(f->d));
		assert_int_equal(sr_wake_wide_43(&f->ctx, &f->d), v[i].wide);
		assert_int_equal(val(last_step(f), "factor"), 8);
	}
	set_flips(f, 8, 70);
	assert_true(sr_wake_wide_43(&f->ctx, NULL));
	memset(&f->d, 0, sizeof(f->d));
	sr_wake_wide_43(&f->ctx, &f->d);
	assert_int_equal(val(last_step(f), "master"), 70);
	assert_int_equal(val(last_step(f), "slave"), 8);
	/* No view of current (irq on an idle CPU): master 0. */
	f->ctx.curr = NULL;
	set_flips(f, 0, 70);
	assert_false(sr_wake_wide_43(&f->ctx, NULL));
	fx_free(f);
}

/* W13: the heavy-waker wake_wide, and where it differs from mainline. */
static void test_w13_wake_wide_heavy(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);
	static const struct { unsigned int m, s; bool main, heavy; } v[] = {
		{ 40, 3, false, true }, { 33, 4, false, true }, { 31, 3, false, false },
		/* slave >= f: same result as mainline */
		{ 70, 8, true, true }, { 63, 8, false, false }, { 200, 9, true, true },
		/* slave < f, master >= 32 but < slave * f: still not wide */
		{ 40, 6, false, false }, { 32, 0, false, true },
	};

	for (size_t i = 0; i < SR_ARRAY_SIZE(v); i++) {
		set_flips(f, v[i].m, v[i].s);
		assert_int_equal(sr_wake_wide_43(&f->ctx, NULL), v[i].main);
		assert_int_equal(sr_wake_wide_heavy(&f->ctx, NULL), v[i].heavy);
	}
	/* The heavy variant reads only the *_heavy counters. */
	f->curr.wakee_flips = 0;
	f->p.wakee_flips = 0;
	f->curr.wakee_flips_heavy = 40;
	f->p.wakee_flips_heavy = 3;
	assert_true(sr_wake_wide_heavy(&f->ctx, &f->d));
	assert_int_equal(val(last_step(f), "half_factor_x_factor"), 32);
	assert_false(sr_wake_wide_43(&f->ctx, NULL));
	fx_free(f);
}

/* Michael Wang's wake_wide: strict, with fixed roles. */
static void test_wake_wide_312(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_2637, 0, 4);

	set_flips(f, 73, 9);
	assert_true(sr_wake_wide_312(&f->ctx, NULL));
	set_flips(f, 72, 9);		/* 72 > 8 * 9 fails */
	assert_false(sr_wake_wide_312(&f->ctx, NULL));
	set_flips(f, 1000, 8);		/* wakee must exceed f */
	assert_false(sr_wake_wide_312(&f->ctx, NULL));
	set_flips(f, 9, 100);		/* no swap: a busy wakee alone is not wide */
	assert_false(sr_wake_wide_312(&f->ctx, NULL));
	assert_true(sr_wake_wide_43(&f->ctx, NULL));
	fx_free(f);
}

/* Unsigned int products wrap as in task_struct; llc_size 1 degenerates. */
static void test_wake_wide_integer_edges(void **state)
{
	struct fx *f = fx_new("cores-per-llc=2", SR_ERA_511, 0, 1);

	set_flips(f, 0xffffffffu, 0x80000000u);	/* slave * 2 wraps to 0 */
	assert_true(sr_wake_wide_43(&f->ctx, NULL));
	set_flips(f, 0xffffffffu, 0x7fffffffu);	/* 0xfffffffe: master not below */
	assert_true(sr_wake_wide_43(&f->ctx, NULL));
	set_flips(f, 0xfffffffdu, 0x7fffffffu);
	assert_false(sr_wake_wide_43(&f->ctx, NULL));
	fx_free(f);

	f = fx_new("cpus=1", SR_ERA_511, 0, 0);
	set_flips(f, 0, 0);
	assert_false(sr_wake_wide_43(&f->ctx, NULL));	/* slave < 1 */
	assert_true(sr_wake_wide_heavy(&f->ctx, NULL));	/* (1 >> 1) * 1 == 0 */
	set_flips(f, 5, 1);
	assert_true(sr_wake_wide_43(&f->ctx, NULL));
	fx_free(f);
}

/* sr_wake_wide() picks the variant by feature and kver. */
static void test_wake_wide_dispatch(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_flips(f, 40, 3);
	assert_false(sr_wake_wide(&f->pol, &f->ctx, NULL));
	set_pol(f, SR_KV(5, 16), WA_ALL | SR_F_WAKEE_HEAVY);
	assert_true(sr_wake_wide(&f->pol, &f->ctx, NULL));
	set_flips(f, 9, 100);
	set_pol(f, SR_KV(4, 2), 0);
	assert_false(sr_wake_wide(&f->pol, &f->ctx, NULL));
	set_pol(f, SR_KV(4, 3), 0);
	assert_true(sr_wake_wide(&f->pol, &f->ctx, NULL));
	fx_free(f);
}

/* W14: HZ 250, flips 10 stamped at 1000; a new wakee at 1251 and at 1250. */
static void test_w14_record_wakee(void **state)
{
	struct sr_task_view w = { .pid = 1, .wakee_flips = 10, .wakee_flip_decay_ts = 1000,
				  .last_wakee = 7 };
	struct sr_task_view p = { .pid = 2, .wakee_flips = 3 };
	struct sr_task_view w2 = w;

	assert_int_equal(sr_record_wakee(&w, &p, 1251, 250, 8), 0);
	assert_int_equal(w.wakee_flips, 6);
	assert_int_equal(w.wakee_flip_decay_ts, 1251);
	assert_int_equal(w.last_wakee, 2);
	assert_int_equal(p.wakee_flips, 3);	/* only the waker's counter moves */
	assert_int_equal(sr_record_wakee(&w2, &p, 1250, 250, 8), 0);
	assert_int_equal(w2.wakee_flips, 11);
	assert_int_equal(w2.wakee_flip_decay_ts, 1000);
	/* Same wakee again: no flip; a long gap still halves once. */
	assert_int_equal(sr_record_wakee(&w2, &p, 1250, 250, 8), 0);
	assert_int_equal(w2.wakee_flips, 11);
	assert_int_equal(sr_record_wakee(&w2, &p, 100000, 250, 8), 0);
	assert_int_equal(w2.wakee_flips, 5);
	/* time_after() across a wrap of jiffies. */
	w2.wakee_flip_decay_ts = UINT64_MAX - 10;
	assert_int_equal(sr_record_wakee(&w2, &p, 300, 250, 8), 0);
	assert_int_equal(w2.wakee_flips, 2);
	assert_int_equal(sr_record_wakee(NULL, &p, 1, 250, 8), -EINVAL);
	assert_int_equal(sr_record_wakee(&w, &w, 1, 250, 8), -EINVAL);
	assert_int_equal(sr_record_wakee(&w, &p, 1, 0, 8), -EINVAL);
}

/* W14, heavy-waker variant: f 8, min 16; a waker at 40 > 2 * 16 lends its wakee a flip. */
static void test_w14_record_wakee_heavy(void **state)
{
	struct sr_task_view w = { .pid = 1, .wakee_flips_heavy = 40, .wakee_flips = 40,
				  .wakee_flip_decay_ts = 1000, .last_wakee = 7 };
	struct sr_task_view p = { .pid = 2, .wakee_flips_heavy = 2, .wakee_flips = 2 };

	assert_int_equal(sr_record_wakee_heavy(&w, &p, 1100, 250, 8), 0);
	assert_int_equal(sr_record_wakee(&w, &p, 1100, 250, 8), 0);
	assert_int_equal(p.wakee_flips_heavy, 3);
	assert_int_equal(w.wakee_flips_heavy, 41);
	assert_int_equal(p.wakee_flips, 2);
	assert_int_equal(w.wakee_flips, 41);
	assert_int_equal(w.last_wakee, 2);
	/* Not strictly heavier (32 > 32 fails): no lending. */
	w = (struct sr_task_view){ .pid = 1, .wakee_flips_heavy = 32, .last_wakee = 7,
				   .wakee_flip_decay_ts = 1000 };
	p.wakee_flips_heavy = 2;
	assert_int_equal(sr_record_wakee_heavy(&w, &p, 1100, 250, 8), 0);
	assert_int_equal(p.wakee_flips_heavy, 2);
	assert_int_equal(w.wakee_flips_heavy, 33);
	/* Decay first: 40 >> 1 = 20, not heavy any more; the stamp is left to record_wakee. */
	w = (struct sr_task_view){ .pid = 1, .wakee_flips_heavy = 40, .last_wakee = 7,
				   .wakee_flip_decay_ts = 1000 };
	assert_int_equal(sr_record_wakee_heavy(&w, &p, 1251, 250, 8), 0);
	assert_int_equal(w.wakee_flips_heavy, 21);
	assert_int_equal(p.wakee_flips_heavy, 2);
	assert_int_equal(w.wakee_flip_decay_ts, 1000);
	assert_int_equal(w.last_wakee, 7);
	assert_int_equal(sr_record_wakee_heavy(&w, &p, 1251, 250, 0), -EINVAL);
}

/* ---- the select_task_rq_fair() flow through sr_srqf_414_ops (every CPU busy unless said) ---- */

static int flow(struct fx *f)
{
	f->pol.ops = &sr_srqf_414_ops;
	memset(&f->d, 0, sizeof(f->d));
	return sr_policy_decide(&f->pol, &f->ctx, &f->d);
}

/* The first step of @fn in the trail, or NULL. */
static const struct sr_step *find_step(const struct fx *f, const char *fn, const char *result)
{
	for (int i = 0; i < f->d.trail.n; i++) {
		const struct sr_step *s = &f->d.trail.steps[i];

		if (!strcmp(s->fn, fn) && (!result || !strcmp(s->result, result)))
			return s;
	}
	return NULL;
}

/* A kernel with scheduler patches (machine.kernel_patch_params): the same answer, not determined. */
static void test_flow_kernel_patches(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_load(f, 0, 512);
	set_load(f, 4, 2048);
	f->p.load_avg = 513;
	f->ctx.sync = SR_NO;
	assert_int_equal(flow(f), 0);
	assert_true(f->d.determined);
	f->ctx.unknown = SR_DEP_KERNEL_PATCHES;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_false(f->d.determined);
	assert_true(f->d.depends & SR_DEP_KERNEL_PATCHES);
	assert_string_equal(sr_dep_name(SR_DEP_KERNEL_PATCHES), "kernel_patches");
	fx_free(f);
}

/* Every input has a name and a gloss for explain; the names are distinct. */
static void test_dep_names(void **state)
{
	for (int a = 0; a < SR_NR_DEPS; a++) {
		assert_string_not_equal(sr_dep_name(1u << a), "invalid");
		assert_string_not_equal(sr_dep_gloss(1u << a), "invalid");
		for (int b = 0; b < a; b++)
			assert_string_not_equal(sr_dep_name(1u << a), sr_dep_name(1u << b));
	}
	assert_string_equal(sr_dep_gloss(1u << SR_NR_DEPS), "invalid");
}

/* W10 through the whole path: wake_affine says this, a busy LLC keeps the target. */
static void test_flow_affine(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_load(f, 0, 512);
	set_load(f, 4, 2048);
	f->p.load_avg = 513;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_string_equal(f->d.trail.steps[0].check, "p->nr_cpus_allowed > 1");
	assert_string_equal(f->d.trail.steps[1].check,
			    "(wake_flags & WF_SYNC) && !(current->flags & PF_EXITING)");
	assert_non_null(find_step(f, "wake_wide", "not wide"));
	assert_non_null(find_step(f, "select_task_rq_fair", "want_affine"));
	assert_non_null(find_step(f, "select_task_rq_fair", "affine domain"));
	assert_non_null(find_step(f, "wake_affine", "this"));
	assert_null(find_step(f, "wake_cap", NULL));	/* gone in 5.7 */
	assert_true(f->d.determined);
	/* W9's loads: prev. */
	set_load(f, 0, 1536);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_non_null(find_step(f, "wake_affine", "prev"));
	fx_free(f);
}

/*
 * 4.16 - 5.14 leave the waker's CPU in current->recent_used_cpu under
 * want_affine (fast path); wide or 5.15+, nothing; flips that allow either
 * wake_wide() answer make it a maybe.
 */
static void test_flow_waker_recent(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_pol(f, SR_KV(5, 10), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.waker_recent_cpu, 0);
	assert_false(f->d.waker_recent_maybe);
	assert_non_null(find_step(f, "select_task_rq_fair", "set"));
	/* wake_wide(): 64 flips against 8 in an LLC of 8 */
	f->curr.wakee_flips = f->curr.wakee_flips_min = f->curr.wakee_flips_max = 64;
	f->p.wakee_flips = f->p.wakee_flips_min = f->p.wakee_flips_max = 8;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.waker_recent_cpu, -1);
	assert_non_null(find_step(f, "select_task_rq_fair", "kept"));
	f->p.wakee_flips_min = 0;	/* the wakee's count may be below the factor */
	assert_int_equal(flow(f), 0);
	assert_true(f->d.waker_recent_maybe);
	set_pol(f, SR_KV(5, 15), WA_ALL);
	f->p.wakee_flips_min = 8;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.waker_recent_cpu, -1);
	assert_false(f->d.waker_recent_maybe);
	assert_null(find_step(f, "select_task_rq_fair", "set"));
	fx_free(f);
}

/*
 * Loads estimated within 30 %: 256 + 256 on CPU 0 against 4096 - 256 on
 * CPU 4, apart even at the worst corner of the band: a determined answer.
 */
static void loads_apart(struct fx *f)
{
	f->ctx.load_error_pct = 30;
	set_load(f, 0, 256);
	set_load(f, 4, 4096);
	f->p.load_avg = 256;
}

/*
 * Reconstructed loads: each input of the weight test may be off by the band;
 * a comparison the box of inputs can turn is load_estimate-dependent.
 */
static void test_flow_load_estimate(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	loads_apart(f);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_true(f->d.determined);
	/*
	 * W10: 104,857,600 against 169,869,312 is 1.6x apart, but prev's side is
	 * a difference (2048 - 512): this and the task 30 % up, prev down by 1.3
	 * give 136,314,880 against about 100,600,000: the kernel may have kept prev.
	 */
	set_load(f, 0, 512);
	set_load(f, 4, 2048);
	f->p.load_avg = 512;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_true(f->d.depends & SR_DEP_LOAD_ESTIMATE);
	/* W9: 209,715,200 against 169,869,312: the answer stands but depends */
	set_load(f, 0, 1536);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_true(f->d.depends & SR_DEP_LOAD_ESTIMATE);
	assert_false(f->d.determined);
	/* exact loads (hand-made contexts): no such input */
	f->ctx.load_error_pct = 0;
	assert_int_equal(flow(f), 0);
	assert_true(f->d.determined);
	fx_free(f);
}

/*
 * An idle prev read after the nohz blocked-load update the state assumed:
 * had it not run, prev's cpu_load() would still be its last seen update's.
 * Where that value turns the comparison, the answer depends on the estimate.
 */
static void test_flow_prev_unrefreshed(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	loads_apart(f);
	f->rq[4].curr_pid = 0;
	f->rq[4].nr_running = 0;
	f->rq[4].ttwu_pending = true;	/* not idle to wake_affine_idle(): the weight test */
	f->rq[4].load_refreshed = true;
	f->rq[4].load_avg_unrefreshed = 4096;
	assert_int_equal(flow(f), 0);
	assert_true(f->d.determined);		/* the stale value gives the same answer */
	f->rq[4].load_avg_unrefreshed = 300;	/* ... this one the other */
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_true(f->d.depends & SR_DEP_LOAD_ESTIMATE);
	fx_free(f);
}

/* W11 with sync unknown: non-sync ties go to prev, sync ones to this. */
static void test_flow_sync_unknown(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_316, 0, 4);

	set_pol(f, SR_KV(4, 19), WA_ALL);
	set_load(f, 0, 1000);
	set_load(f, 4, 1080);
	f->p.load_avg = 81;
	f->rq[0].nr_running = 2;		/* keep the sync-alone rule out */
	f->ctx.sync = SR_UNKNOWN;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_int_equal(f->d.alt_cpu, 0);
	assert_true(f->d.depends & SR_DEP_SYNC);
	assert_false(f->d.determined);
	/* 4.14 "<=": both answers are this, sync does not matter. */
	set_pol(f, SR_KV(4, 14), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_int_equal(f->d.alt_cpu, 0);
	assert_false(f->d.depends & SR_DEP_SYNC);
	fx_free(f);
}

/* An exiting waker is no sync waker from 4.16; 4.15 still trusts WF_SYNC. */
static void test_flow_exiting_waker(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_316, 0, 4);

	set_load(f, 0, 2000);
	set_load(f, 4, 100);
	f->ctx.sync = SR_YES;
	f->curr.exiting = true;
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_string_equal(f->d.trail.steps[1].result, "no sync");
	set_pol(f, SR_KV(4, 15), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_string_equal(f->d.trail.steps[1].check, "wake_flags & WF_SYNC");
	assert_non_null(find_step(f, "wake_affine_idle", "affine"));
	fx_free(f);
}

/* W13 in the flow: a wide wakeup skips wake_affine and searches around prev. */
static void test_flow_wake_wide(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_load(f, 4, 4096);
	set_flips(f, 70, 8);
	f->ctx.unknown = SR_DEP_TOPOLOGY;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_non_null(find_step(f, "select_task_rq_fair", "break"));
	assert_null(find_step(f, "wake_affine", NULL));
	assert_true(f->d.depends & SR_DEP_TOPOLOGY);
	/* (40, 3) is wide only with the heavy-waker variant. */
	set_flips(f, 40, 3);
	f->ctx.unknown = 0;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	set_pol(f, SR_KV(5, 16), WA_ALL | SR_F_WAKEE_HEAVY);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	fx_free(f);
}

/*
 * Flips the trace cannot pin and WF_SYNC it does not record: the wide road
 * never reads sync, the affine one does (wake_affine_idle()'s sync test),
 * so only the pair moves the task — the answer depends on both.
 */
static void test_flow_wide_sync_unknown(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);

	set_load(f, 0, 2000);
	set_load(f, 4, 100);
	set_flips(f, 70, 8);
	f->curr.wakee_flips_min = f->curr.wakee_flips_max = 70;
	f->p.wakee_flips_min = 0;
	f->p.wakee_flips_max = 100;
	f->ctx.sync = SR_UNKNOWN;
	f->ctx.sync_guess = SR_NO;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_true(f->d.wide);
	/* not wide without sync: the weight test keeps prev too; with sync, this */
	assert_true(f->d.depends & SR_DEP_WAKEE_FLIPS);
	assert_true(f->d.depends & SR_DEP_SYNC);
	assert_int_equal(f->d.wide_alt_cpu, -1);
	assert_false(f->d.determined);
	/* sync known clear: neither road moves it */
	f->ctx.sync = SR_NO;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_true(f->d.determined);
	fx_free(f);
}

/* The waker's CPU outside p's mask: no affine step; a mask of one CPU: no fair at all. */
static void test_flow_affinity(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 0, 4);
	struct sr_cpumask m;

	set_load(f, 4, 4096);
	sr_mask_clear(&m);
	for (int i = 1; i < 8; i++)
		sr_mask_set(&m, i);
	f->ctx.allowed = &m;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	assert_non_null(find_step(f, "select_task_rq_fair", "no affine"));
	assert_null(find_step(f, "wake_affine", NULL));

	sr_mask_clear(&m);
	sr_mask_set(&m, 6);
	f->ctx.unknown = SR_DEP_AFFINITY;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 6);
	assert_int_equal(f->d.trail.n, 1);
	assert_string_equal(f->d.trail.steps[0].result, "cpumask_any(p->cpus_ptr)");
	assert_int_equal(f->d.decided_by, SR_BY_NOT_ALLOWED);
	assert_true(f->d.depends & SR_DEP_AFFINITY);
	/* Pinned by count only: stays on prev. */
	f->ctx.allowed = NULL;
	f->p.nr_cpus_allowed = 1;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	fx_free(f);
}

/* prev outside the mask (affinity changed while asleep): select_fallback_rq(). */
static void test_flow_fallback(void **state)
{
	struct fx *f = fx_new("sockets=2,cores-per-llc=4", SR_ERA_511, 0, 5);
	struct sr_cpumask m;

	sr_mask_clear(&m);
	sr_mask_set(&m, 2);
	sr_mask_set(&m, 6);
	f->ctx.allowed = &m;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 6);		/* an allowed CPU of prev's node first */
	assert_non_null(find_step(f, "select_task_rq", "select_fallback_rq"));
	assert_int_equal(f->d.decided_by, SR_BY_NOT_ALLOWED);
	sr_mask_unset(&m, 6);
	sr_mask_set(&m, 1);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 1);		/* none on node 1: the first allowed */
	assert_non_null(find_step(f, "select_task_rq", "select_fallback_rq"));
	fx_free(f);
}

/* SD_BALANCE_WAKE (off by default) sends wakeups to the slow path, but only from the bottom. */
static void test_flow_balance_wake(void **state)
{
	struct fx *f = fx_new("sockets=2,cores-per-llc=4", SR_ERA_511, 0, 1);

	set_idle(f, 6);
	set_flips(f, 70, 8);			/* wide: no affine domain search */
	f->t.cpu[0].sd[1].flags |= SD_BALANCE_WAKE;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 1);		/* MC lacks the flag: break, fast path */
	assert_null(find_step(f, "find_idlest_group", NULL));
	f->t.cpu[0].sd[0].flags |= SD_BALANCE_WAKE;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 6);
	assert_int_equal(f->d.decided_by, SR_BY_SLOW_PATH);
	/* An affine domain above a flagged level cancels it (prev on the other node). */
	set_flips(f, 0, 0);
	f->ctx.prev_cpu = 5;
	f->p.cpu = 5;
	set_load(f, 5, 4096);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_non_null(find_step(f, "wake_affine", "this"));
	assert_null(find_step(f, "find_idlest_group", NULL));
	/* The same within one level. */
	f->ctx.prev_cpu = 1;
	f->p.cpu = 1;
	set_load(f, 1, 4096);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_null(find_step(f, "find_idlest_group", NULL));
	fx_free(f);
}

/* Waker is prev: no wake_affine; the search starts from prev. */
static void test_flow_same_cpu(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 3, 3);

	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 3);
	assert_non_null(find_step(f, "select_task_rq_fair", "skip"));
	assert_null(find_step(f, "wake_affine", NULL));
	fx_free(f);
}

/* Far nodes lose SD_WAKE_AFFINE: no common affine domain; near ones use NUMA's bias. */
static void test_flow_numa(void **state)
{
	struct fx *f = fx_new("sockets=2,cores-per-llc=4,numa-distance=40", SR_ERA_316, 0, 5);

	set_pol(f, SR_KV(5, 4), WA_ALL);
	set_load(f, 5, 4096);
	f->ctx.unknown = SR_DEP_TOPOLOGY;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 5);
	assert_null(find_step(f, "wake_affine", NULL));
	assert_null(find_step(f, "select_task_rq_fair", "affine domain"));
	assert_true(f->d.depends & SR_DEP_TOPOLOGY);
	fx_free(f);

	f = fx_new("sockets=2,cores-per-llc=4", SR_ERA_316, 0, 5);
	set_pol(f, SR_KV(5, 4), WA_ALL);
	set_load(f, 0, 1000);
	set_load(f, 5, 1080);
	f->p.load_avg = 81;
	assert_int_equal(flow(f), 0);
	assert_int_equal(val(find_step(f, "wake_affine_weight", NULL), "bias"), 112);
	/* 100 * 1080 < 112 * 1000: affine across nodes. */
	assert_int_equal(f->d.cpu, 0);
	fx_free(f);
}

/* wake_cap() (4.14 - 5.6) on an asymmetric machine: a small waker CPU refuses a big task. */
static void test_flow_wake_cap(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_316, 0, 2);

	for (int i = 0; i < 4; i++)
		f->t.cpu[i].sd[0].flags |= SD_ASYM_CPUCAPACITY;
	f->rq[0].capacity = 512;
	set_load(f, 2, 4096);
	f->p.util_avg = 500;		/* 512 * 1024 < 500 * 1280 */
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 2);
	assert_non_null(find_step(f, "wake_cap", "1"));
	f->p.util_avg = 400;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	/* A tie (640 * 1024 == 512 * 1280): fits before 4.20, not since. */
	f->rq[0].capacity = 640;
	f->p.util_avg = 512;
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	set_pol(f, SR_KV(4, 20), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 2);
	assert_non_null(find_step(f, "wake_cap", "1"));
	/* Gone in 5.7. */
	set_pol(f, SR_KV(5, 7), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_null(find_step(f, "wake_cap", NULL));
	/* Within 12.5% of the biggest CPU: no opinion. */
	f->rq[0].capacity = 900;
	f->p.util_avg = 1000;
	set_pol(f, SR_KV(4, 19), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	assert_non_null(find_step(f, "wake_cap", "0"));
	fx_free(f);
}

/* ≤ 5.9 a level without SD_LOAD_BALANCE ends the walk. */
static void test_flow_load_balance_flag(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_316, 0, 2);

	f->t.cpu[0].sd[0].flags &= ~SD_LOAD_BALANCE;
	set_load(f, 2, 4096);
	set_pol(f, SR_KV(5, 4), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 2);
	assert_null(find_step(f, "wake_affine", NULL));
	set_pol(f, SR_KV(5, 10), WA_ALL);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 0);
	fx_free(f);
}

/* A fork's context on @topo (5.11 era), replayed by @kver's model (0: the fixture's). */
static struct fx *fork_fx(const char *topo, unsigned int kver)
{
	struct fx *f = fx_new(topo, SR_ERA_511, 0, 0);

	f->ctx.kind = SR_WAKE_FORK;
	if (kver)
		set_pol(f, kver, WA_ALL);
	return f;
}

/* Fork: want_affine stays 0, the highest SD_BALANCE_FORK level goes to find_idlest_cpu(). */
static void test_flow_fork(void **state)
{
	struct fx *f = fork_fx("cores-per-llc=4", 0);

	set_idle(f, 3);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 3);
	assert_non_null(find_step(f, "select_task_rq_fair", "sd = tmp"));
	assert_null(find_step(f, "wake_wide", NULL));
	assert_int_equal(f->d.decided_by, SR_BY_SLOW_PATH);
	fx_free(f);

	/* Far nodes carry no SD_BALANCE_FORK: the search stays in the MC level. */
	f = fork_fx("sockets=2,cores-per-llc=4,numa-distance=40", 0);
	set_idle(f, 2);
	for (int i = 4; i < 8; i++)
		set_idle(f, i);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 2);
	assert_string_equal(f->d.trail.steps[2].result, "break");
	fx_free(f);

	/* Near nodes: the NUMA level is the slow path's top; 5.15 leaves a 3/4-busy node. */
	f = fork_fx("sockets=2,cores-per-llc=4", 0);
	set_idle(f, 2);
	for (int i = 4; i < 8; i++)
		set_idle(f, i);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 7);		/* remote node, most recently idle */
	fx_free(f);
}

/*
 * 6.19 (82d6e01a0699): update_sg_wakeup_stats() counts only the CPUs the task
 * may use.  Two LLCs of 4, the task allowed on CPUs 0, 1, 4 and 5: LLC 0's
 * idle CPUs 2 and 3 are not its own, LLC 1 has its allowed 4 and 5 idle.
 * Counting every CPU both LLCs have two idle and the local one stays; from
 * 6.19 the local LLC has none the task may use and the fork goes to LLC 1.
 */
static void test_flow_fork_allowed_stats(void **state)
{
	static const struct { unsigned int kver; bool remote; } c[] = {
		{ SR_KV(6, 18), false }, { SR_KV(6, 19), true },
	};
	struct sr_cpumask m;

	sr_mask_clear(&m);
	sr_mask_set(&m, 0);
	sr_mask_set(&m, 1);
	sr_mask_set(&m, 4);
	sr_mask_set(&m, 5);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fx *f = fork_fx("llcs-per-socket=2,cores-per-llc=4", c[i].kver);

		f->ctx.allowed = &m;
		f->p.nr_cpus_allowed = 4;
		set_idle(f, 2);
		set_idle(f, 3);
		set_idle(f, 4);
		set_idle(f, 5);
		assert_int_equal(flow(f), 0);
		if (c[i].remote)
			assert_true(f->d.cpu == 4 || f->d.cpu == 5);
		else
			assert_true(f->d.cpu == 0 || f->d.cpu == 1);
		fx_free(f);
	}
}

/*
 * Between idle CPUs the latest stamp wins; before 6.12 (3dcac251b066) an idle
 * CPU's stamp may have been renewed by an idle re-entry no event shows, so the
 * choice depends on idle_stamp; from 6.12 the stamps the trace shows are the
 * kernel's.  One idle CPU leaves nothing to compare.
 */
static void test_flow_fork_idle_stamps(void **state)
{
	static const struct { unsigned int kver; int idle; bool depends; } c[] = {
		{ SR_KV(6, 1), 2, true }, { SR_KV(6, 11), 2, true },
		{ SR_KV(6, 12), 2, false }, { SR_KV(6, 1), 1, false },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		/* node 0 busy: the remote node's idle CPUs are compared */
		struct fx *f = fork_fx("sockets=2,cores-per-llc=4", c[i].kver);

		set_idle(f, 7);
		if (c[i].idle == 2)
			set_idle(f, 6);
		assert_int_equal(flow(f), 0);
		assert_int_equal(f->d.cpu, 7);	/* the latest stamp */
		assert_int_equal(!!(f->d.depends & SR_DEP_IDLE_STAMP), c[i].depends);
		assert_int_equal(f->d.determined, !c[i].depends);
		fx_free(f);
	}
}

/*
 * cpu_util_without() (4.17+, UTIL_EST): a CPU's util is the larger of its
 * util_avg and the util_est of its queued tasks.  Cores {2,3} and {4,5}
 * each have one idle CPU; CPU 3 runs a task just woken with a large
 * estimate (util_avg 100, util_est 600), CPU 5 a steady one (300, 300):
 * the has_spare tie on idle CPUs goes to the lower util, core {4,5}.
 */
static void test_flow_fork_util_est(void **state)
{
	struct fx *f = fork_fx("cores-per-llc=4,threads=2", SR_KV(6, 1));
	const struct sr_step *st;

	(void)state;
	set_idle(f, 2);
	set_idle(f, 4);
	f->rq[3].util_avg = 100;
	f->rq[3].util_est = 600;
	f->rq[5].util_avg = 300;
	f->rq[5].util_est = 300;
	for (int i = 0; i < 8; i++)
		if (i != 3 && i != 5 && f->rq[i].curr_pid)
			f->rq[i].util_avg = f->rq[i].util_est = 1024;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 4);
	/* explain shows the tie-break that no other step carries */
	st = find_step(f, "update_pick_idlest", "idlest group");
	assert_non_null(st);
	assert_string_equal(st->check, "same idle_cpus: lower group_util");
	assert_int_equal(val(st, "group_util"), 300);
	assert_int_equal(val(st, "runner_up"), 2);
	assert_int_equal(val(st, "runner_up_group_util"), 600);
	fx_free(f);
}

/* @cpu's stamp open in [@lo, @hi] (src/state/stamp.c), read as @hi. */
static void set_open(struct fx *f, int cpu, uint64_t lo, uint64_t hi, unsigned int dep)
{
	set_idle(f, cpu);
	f->rq[cpu].idle_stamp = hi;
	f->rq[cpu].idle_stamp_lo = lo;
	f->rq[cpu].idle_stamp_hi = hi;
	f->rq[cpu].idle_stamp_dep = dep;
}

/*
 * 6.12: a stamp the trace leaves open (a stopper's switch to idle next to
 * a maybe-delayed sleeper: 0 or that switch's time) counts when some value
 * of it moves the answer.  Node 1 is cores {4,5} and {6,7}, CPU 7 busy.
 * CPU 6 open in [0, 9 ms]: at the NUMA level it wins over 4 (5 ms) or
 * loses; either way the MC level takes core {4,5} (two idle CPUs against
 * one) and its latest, CPU 4: no input.  With CPU 5 busy too, staying on
 * CPU 6's core or not is the stamp's to say.
 */
static void test_flow_fork_open_stamp(void **state)
{
	struct sr_rq scratch[NR_MAX];

	for (int busy5 = 0; busy5 <= 1; busy5++) {
		struct fx *f = fork_fx("sockets=2,cores-per-llc=2,threads=2", SR_KV(6, 12));

		f->ctx.rq_scratch = scratch;
		set_idle(f, 4);
		f->rq[4].idle_stamp = 5000000;
		if (!busy5) {
			set_idle(f, 5);
			f->rq[5].idle_stamp = 4000000;
		}
		set_open(f, 6, 0, 9000000, SR_DEP_DELAYED_DEQUEUE);
		assert_int_equal(flow(f), 0);
		assert_int_equal(f->d.cpu, busy5 ? 6 : 4);
		assert_int_equal(!!(f->d.depends & SR_DEP_DELAYED_DEQUEUE), busy5);
		assert_non_null(find_step(f, "find_idlest_group_cpu", "the pick could lose"));
		/* no range: as before */
		f->rq[6].idle_stamp_dep = 0;
		assert_int_equal(flow(f), 0);
		assert_false(f->d.depends & SR_DEP_DELAYED_DEQUEUE);
		fx_free(f);
	}
}

/* A cpuidle driver (an unknown the state passes): the idle CPUs' states decide first. */
static void test_flow_fork_idle_states(void **state)
{
	for (int idle = 1; idle <= 2; idle++) {
		struct fx *f = fork_fx("sockets=2,cores-per-llc=4", SR_KV(6, 12));

		f->ctx.unknown = SR_DEP_IDLE_STATE;
		set_idle(f, 7);
		if (idle == 2)
			set_idle(f, 6);
		assert_int_equal(flow(f), 0);
		assert_int_equal(f->d.cpu, 7);
		assert_int_equal(!!(f->d.depends & SR_DEP_IDLE_STATE), idle == 2);
		fx_free(f);
	}
}

/*
 * 6.12+ DELAY_DEQUEUE: rq->nr_running counts a sleeper still queued, which
 * no event shows.  An exec on CPU 0 ties its own CPU (idle without it)
 * with idle CPU 1 and stays; a maybe-delayed sleeper on CPU 0 would make
 * the kernel move it, so the answer depends on delayed_dequeue.
 */
static void test_flow_exec_delayed(void **state)
{
	static const struct { unsigned int kver, delayed; bool depends; } c[] = {
		{ SR_KV(6, 12), 1, true }, { SR_KV(6, 12), 0, false }, { SR_KV(6, 11), 1, false },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fx *f = fx_new("cores-per-llc=4", SR_ERA_511, 0, 0);

		f->ctx.kind = SR_WAKE_EXEC;
		f->ctx.unknown = SR_DEP_DELAYED_DEQUEUE;
		set_pol(f, c[i].kver, WA_ALL);
		f->rq[0].curr_pid = f->p.pid;	/* the task execs where it runs */
		f->rq[0].maybe_delayed = c[i].delayed;
		set_idle(f, 1);
		assert_int_equal(flow(f), 0);
		assert_int_equal(f->d.cpu, 0);
		assert_int_equal(!!(f->d.depends & SR_DEP_DELAYED_DEQUEUE), c[i].depends);
		assert_int_equal(f->d.determined, !c[i].depends);
		/* the explanation says where: the level whose verdict the sleepers could turn */
		assert_int_equal(find_step(f, "update_sg_wakeup_stats", NULL) != NULL, c[i].depends);
		fx_free(f);
	}
}

/* Exec reaches the class hook even for a task allowed on one CPU; no fallback either. */
static void test_flow_exec(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_511, 0, 0);
	struct sr_cpumask m;

	f->ctx.kind = SR_WAKE_EXEC;
	sr_mask_clear(&m);
	sr_mask_set(&m, 1);
	f->ctx.allowed = &m;
	set_idle(f, 3);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 1);
	assert_null(find_step(f, "select_task_rq", NULL));
	assert_int_equal(f->d.decided_by, SR_BY_SLOW_PATH);
	fx_free(f);
}

/* W8 through the flow: an idle prev keeps the task, else the idle waker takes it. */
static void test_flow_w8(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 1, 5);

	set_idle(f, 1);
	set_idle(f, 5);
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 5);
	assert_non_null(find_step(f, "wake_affine_idle", "prev"));
	f->rq[5].curr_pid = 9;
	f->rq[5].nr_running = 1;
	assert_int_equal(flow(f), 0);
	assert_int_equal(f->d.cpu, 1);
	assert_non_null(find_step(f, "wake_affine_idle", "this"));
	fx_free(f);
}

/* W22's placement on the 5.15 and 6.12 presets: CPU2 wakes p of busy CPU5, CPU6 idle. */
static void test_flow_w22(void **state)
{
	static const char *const presets[] = { "linux-5.15", "linux-6.12" };
	struct sr_llc_view llc[8];

	for (size_t i = 0; i < SR_ARRAY_SIZE(presets); i++) {
		struct fx *f = fx_new("cores-per-llc=8", SR_ERA_511, 2, 5);

		for (int c = 0; c < 8; c++)
			llc[c] = (struct sr_llc_view){ .has_idle_cores = false, .nr_idle_scan = 8 };
		f->ctx.llc = llc;
		assert_int_equal(sr_policy_from_spec(&f->pol, presets[i]), 0);
		set_idle(f, 6);
		set_load(f, 2, 2048);
		set_load(f, 5, 1024);
		assert_int_equal(sr_policy_decide(&f->pol, &f->ctx, &f->d), 0);
		assert_non_null(find_step(f, "wake_affine", "prev"));
		assert_int_equal(f->d.cpu, 6);
		fx_free(f);
	}
}

/* Bad contexts are -EINVAL, never a crash. */
static void test_flow_bad_input(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4", SR_ERA_511, 0, 2);
	struct sr_cpumask empty;

	f->ctx.prev_cpu = 4;
	assert_int_equal(flow(f), -EINVAL);
	f->ctx.prev_cpu = -1;
	assert_int_equal(flow(f), -EINVAL);
	f->ctx.prev_cpu = 2;
	f->ctx.kind = 7;
	assert_int_equal(flow(f), -EINVAL);
	f->ctx.kind = SR_WAKE_TTWU;
	sr_mask_clear(&empty);
	f->ctx.allowed = &empty;
	assert_int_equal(flow(f), -EINVAL);
	f->ctx.allowed = NULL;
	f->ctx.p = NULL;
	assert_int_equal(flow(f), -EINVAL);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_w8_idle_waker_shared_llc),
		cmocka_unit_test(test_w8_cross_llc),
		cmocka_unit_test(test_vcpu_preempted),
		cmocka_unit_test(test_sync_nr_running_one),
		cmocka_unit_test(test_sync_delayed_dequeue),
		cmocka_unit_test(test_w9_weight_not_affine),
		cmocka_unit_test(test_w10_weight_affine),
		cmocka_unit_test(test_w11_ties),
		cmocka_unit_test(test_w12_sync_shortcut_negative),
		cmocka_unit_test(test_cpu_load_era),
		cmocka_unit_test(test_wa_bias_off),
		cmocka_unit_test(test_wa_features_off),
		cmocka_unit_test(test_weight_dependencies),
		cmocka_unit_test(test_era_boundaries),
		cmocka_unit_test(test_w21_task_h_load),
		cmocka_unit_test(test_task_h_load_ctx),
		cmocka_unit_test(test_w13_wake_wide),
		cmocka_unit_test(test_wake_wide_bounds),
		cmocka_unit_test(test_w13_wake_wide_heavy),
		cmocka_unit_test(test_wake_wide_312),
		cmocka_unit_test(test_wake_wide_integer_edges),
		cmocka_unit_test(test_wake_wide_dispatch),
		cmocka_unit_test(test_w14_record_wakee),
		cmocka_unit_test(test_w14_record_wakee_heavy),
		cmocka_unit_test(test_flow_affine),
		cmocka_unit_test(test_flow_waker_recent),
		cmocka_unit_test(test_flow_kernel_patches),
		cmocka_unit_test(test_flow_load_estimate),
		cmocka_unit_test(test_flow_prev_unrefreshed),
		cmocka_unit_test(test_flow_sync_unknown),
		cmocka_unit_test(test_flow_exiting_waker),
		cmocka_unit_test(test_flow_wake_wide),
		cmocka_unit_test(test_flow_wide_sync_unknown),
		cmocka_unit_test(test_flow_affinity),
		cmocka_unit_test(test_flow_fallback),
		cmocka_unit_test(test_flow_balance_wake),
		cmocka_unit_test(test_flow_same_cpu),
		cmocka_unit_test(test_flow_numa),
		cmocka_unit_test(test_flow_wake_cap),
		cmocka_unit_test(test_flow_load_balance_flag),
		cmocka_unit_test(test_flow_fork),
		cmocka_unit_test(test_flow_fork_idle_stamps),
		cmocka_unit_test(test_flow_fork_allowed_stats),
		cmocka_unit_test(test_flow_fork_util_est),
		cmocka_unit_test(test_flow_fork_open_stamp),
		cmocka_unit_test(test_flow_exec_delayed),
		cmocka_unit_test(test_dep_names),
		cmocka_unit_test(test_flow_fork_idle_states),
		cmocka_unit_test(test_flow_exec),
		cmocka_unit_test(test_flow_w8),
		cmocka_unit_test(test_flow_w22),
		cmocka_unit_test(test_flow_bad_input),
	};

	return cmocka_run_group_tests_name("models_modern", tests, NULL, NULL);
}
