// SPDX-License-Identifier: GPL-2.0
/*
 * The idle-sibling family: select_idle_sibling() by era (docs/models.md W15 - W17 and every
 * branch of 4.9 - 6.18), find_idlest_cpu() with the NUMA imbalance rules
 * (W18), and Jianyong Wu's LLC-imbalance verdict (W19).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include "models-sis.h"

struct fx {
	struct sr_topo t;
	struct sr_rq *rq;
	struct sr_llc_view *llc;
	struct sr_task_view p, curr;
	struct sr_policy pol;
	struct sr_wake_ctx ctx;
	struct sr_decision d;
	struct sr_cpumask allowed;
};

/* The set_* helpers keep a CPU's capacity (1024 unless a test set another). */
static unsigned long cap_of(const struct fx *f, int cpu)
{
	return f->rq[cpu].capacity ? f->rq[cpu].capacity : 1024;
}

static void set_busy(struct fx *f, int cpu)
{
	f->rq[cpu] = (struct sr_rq){ .curr_pid = 100 + cpu, .nr_running = 1, .cfs_nr_running = 1,
				     .load_weight = 1024, .load_avg = 1024, .util_avg = 1024,
				     .capacity = cap_of(f, cpu) };
}

static void set_idle(struct fx *f, int cpu, uint64_t since)
{
	f->rq[cpu] = (struct sr_rq){ .capacity = cap_of(f, cpu), .idle_since = since,
				     .idle_stamp = since, .idle_stamp_known = true };
}

/* Only SCHED_IDLE work: sched_idle_cpu() from 5.4. */
static void set_sched_idle(struct fx *f, int cpu)
{
	set_busy(f, cpu);
	f->rq[cpu].curr_policy = SR_SCHED_IDLE;
	f->rq[cpu].idle_nr_running = 1;
}

/* Every CPU busy, hints known (no idle core, whole-LLC budget), p woken on this = prev. */
static struct fx *fx_new(const char *spec, unsigned int kver, unsigned int feat, int this)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(sr_topo_from_spec(&f->t, spec, SR_ERA_511), 0);
	f->rq = calloc(f->t.nr_cpus, sizeof(*f->rq));
	f->llc = calloc(f->t.nr_cpus, sizeof(*f->llc));
	assert_non_null(f->rq);
	assert_non_null(f->llc);
	for (int c = 0; c < f->t.nr_cpus; c++) {
		set_busy(f, c);
		f->llc[c] = (struct sr_llc_view){ .nr_idle_scan = sr_llc_size(&f->t, c) };
	}
	f->p = (struct sr_task_view){ .pid = 42, .prio = 120, .weight = 1024, .load_avg = 300,
				      .util_avg = 300, .cpu = this, .recent_used_cpu = -1 };
	f->curr = (struct sr_task_view){ .pid = 100 + this, .prio = 120, .weight = 1024,
					 .cpu = this, .on_cpu = true, .recent_used_cpu = -1 };
	f->ctx = (struct sr_wake_ctx){ .kind = SR_WAKE_TTWU, .this_cpu = this, .prev_cpu = this,
				       .sync = SR_NO, .p = &f->p, .curr = &f->curr, .rq = f->rq,
				       .llc = f->llc, .topo = &f->t };
	f->pol.knobs = (struct sr_knobs){ .kver = kver, .features = feat,
					  .migration_cost_ns = 500000, .sis_min_loops = 2,
					  .sis_avg_scan_cost_ns = 2000 };
	return f;
}

static void fx_free(struct fx *f)
{
	sr_topo_free(&f->t);
	free(f->rq);
	free(f->llc);
	free(f);
}

static void set_kver(struct fx *f, unsigned int kver)
{
	f->pol.knobs.kver = kver;
}

static int sis(struct fx *f, int prev, int target)
{
	memset(&f->d, 0, sizeof(f->d));
	f->d.cpu = -1;
	f->d.fx = (struct sr_sis_fx){ .target = -1, .recent_used_cpu = -1 };
	return sr_select_idle_sibling(&f->pol, &f->ctx, prev, target, &f->d);
}

/* The @nth step of @fn (0 first) whose check contains @frag (NULL: any). */
static const struct sr_step *step_of(const struct sr_trail *t, const char *fn, const char *frag,
				     int nth)
{
	for (int i = 0; i < t->n; i++) {
		const struct sr_step *s = &t->steps[i];

		if (strcmp(s->fn, fn) || (frag && !strstr(s->check, frag)))
			continue;
		if (nth-- == 0)
			return s;
	}
	fail_msg("no step %s [%s]", fn, frag ? frag : "");
	return NULL;
}

static int64_t val(const struct sr_step *s, const char *name)
{
	for (int i = 0; i < s->nvals; i++)
		if (!strcmp(s->vals[i].name, name))
			return s->vals[i].v;
	fail_msg("step %s has no value %s", s->fn, name);
	return 0;
}

#define F_PROP	SR_F_SIS_PROP
#define F_UTIL	SR_F_SIS_UTIL

/* ---- prefix: target, prev, kthread, recent_used_cpu ---- */

static void test_target_idle(void **state)
{
	static const unsigned int kv[] = { SR_KV(4, 9), SR_KV(5, 12), SR_KV(6, 12) };
	struct fx *f = fx_new("cpus=8", SR_KV(4, 9), F_PROP, 0);

	set_idle(f, 3, 1);
	f->ctx.unknown = SR_DEP_VCPU;
	for (size_t i = 0; i < SR_ARRAY_SIZE(kv); i++) {
		set_kver(f, kv[i]);
		assert_int_equal(sis(f, 5, 3), 3);
		assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
		assert_string_equal(f->d.trail.steps[0].result, "return target");
		/* available_idle_cpu() (4.18+) relies on the unknowable vCPU state. */
		assert_int_equal(f->d.depends, kv[i] >= SR_KV(4, 18) ? SR_DEP_VCPU : 0);
	}
	/* A preempted vCPU is not available from 4.18; 4.9 does not ask. */
	f->rq[3].vcpu_preempted = true;
	assert_int_equal(sis(f, 5, 3), 3);
	set_kver(f, SR_KV(4, 9));
	assert_int_equal(sis(f, 5, 3), 3);
	set_kver(f, SR_KV(4, 19));
	assert_int_equal(sis(f, 5, 3), 3);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);	/* fell through to the end */
	assert_string_equal(f->d.trail.steps[0].result, "busy");
	fx_free(f);
}

static void test_prev_idle_cache_affine(void **state)
{
	struct fx *f = fx_new("llcs-per-socket=2,cores-per-llc=4", SR_KV(5, 4), F_PROP, 0);

	set_idle(f, 2, 1);
	assert_int_equal(sis(f, 2, 1), 2);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_PREV);
	assert_string_equal(step_of(&f->d.trail, "select_idle_sibling", "prev != target",
				    0)->result, "return prev");
	/* prev idle in the other LLC: not taken; LLC 0 has nothing idle -> target. */
	set_busy(f, 2);
	set_idle(f, 5, 1);
	f->ctx.unknown = SR_DEP_TOPOLOGY;
	assert_int_equal(sis(f, 5, 1), 1);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_sibling", "prev != target", 0),
			     "share_cache"), 0);
	assert_true(f->d.depends & SR_DEP_TOPOLOGY);
	fx_free(f);
}

static void test_recent_used_cpu(void **state)
{
	struct fx *f = fx_new("cpus=8", SR_KV(4, 16), F_PROP, 0);
	const struct sr_step *s;

	set_idle(f, 4, 1);
	set_idle(f, 6, 1);
	f->p.recent_used_cpu = 6;
	assert_int_equal(sis(f, 5, 3), 6);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_RECENT);
	assert_int_equal(f->d.fx.recent_used_cpu, 5);	/* replaced by prev on a hit */
	/* 4.15 has no recent_used_cpu: the scan from target finds 4 first. */
	set_kver(f, SR_KV(4, 15));
	assert_int_equal(sis(f, 5, 3), 4);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CPU);
	/* 5.12: a miss leaves it; 5.15+ always store prev. */
	set_kver(f, SR_KV(5, 12));
	f->p.recent_used_cpu = 7;
	assert_int_equal(sis(f, 5, 3), 4);
	assert_int_equal(f->d.fx.recent_used_cpu, 7);
	set_kver(f, SR_KV(5, 15));
	assert_int_equal(sis(f, 5, 3), 4);
	assert_int_equal(f->d.fx.recent_used_cpu, 5);
	/* 5.15 - 6.4 test prev's affinity bit (already stored); 6.5 the saved CPU's. */
	f->p.recent_used_cpu = 6;
	sr_mask_clear(&f->allowed);
	for (int c = 0; c < 8; c++)
		if (c != 5)
			sr_mask_set(&f->allowed, c);
	f->ctx.allowed = &f->allowed;
	assert_int_equal(sis(f, 5, 3), 4);
	s = step_of(&f->d.trail, "select_idle_sibling", "r != prev", 0);
	assert_int_equal(val(s, "affinity_tested_cpu"), 5);
	assert_string_equal(s->result, "no");
	set_kver(f, SR_KV(6, 5));
	assert_int_equal(sis(f, 5, 3), 6);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_RECENT);
	/* Unknown (-1): skipped. */
	f->p.recent_used_cpu = -1;
	assert_int_equal(sis(f, 5, 3), 4);
	assert_string_equal(step_of(&f->d.trail, "select_idle_sibling", "r != prev", 0)->result,
			    "unknown: skipped");
	fx_free(f);
}

static void test_percpu_kthread(void **state)
{
	struct fx *f = fx_new("cpus=8", SR_KV(5, 6), F_PROP, 2);

	set_idle(f, 7, 1);
	f->ctx.curr_percpu_kthread = true;
	f->ctx.in_task = true;
	assert_int_equal(sis(f, 2, 6), 2);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_PREV);
	/* 5.4 has no such rule: scan from 6 finds 7. */
	set_kver(f, SR_KV(5, 4));
	assert_int_equal(sis(f, 2, 6), 7);
	/* A second task on the waker's CPU, or prev elsewhere, defeats it. */
	set_kver(f, SR_KV(5, 19));
	f->rq[2].nr_running = 2;
	assert_int_equal(sis(f, 2, 6), 7);
	f->rq[2].nr_running = 1;
	assert_int_equal(sis(f, 3, 6), 7);
	assert_int_equal(sis(f, 2, 6), 2);
	/* 5.19 adds in_task(): an interrupt that hit the kthread does not stack. */
	f->ctx.in_task = false;
	assert_int_equal(sis(f, 2, 6), 7);
	fx_free(f);
}

static void test_sched_idle_accepted(void **state)
{
	struct fx *f = fx_new("cpus=8", SR_KV(5, 4), F_PROP, 0);

	set_sched_idle(f, 3);
	set_idle(f, 5, 1);
	assert_int_equal(sis(f, 3, 3), 3);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
	/* 4.19: a SCHED_IDLE CPU is busy; nr = 4 tests 3, 4, 5. */
	set_kver(f, SR_KV(4, 19));
	assert_int_equal(sis(f, 3, 3), 5);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CPU);
	fx_free(f);
}

/* 5.4 falls back to a sched-idle CPU only when the depth runs out; 5.5+ takes it at once. */
static void test_sched_idle_fallback_54(void **state)
{
	struct fx *f = fx_new("cpus=8", SR_KV(5, 4), F_PROP, 0);

	set_sched_idle(f, 4);
	assert_int_equal(sis(f, 3, 3), 4);
	assert_string_equal(step_of(&f->d.trail, "select_idle_cpu", "for_each", 0)->result,
			    "depth exhausted");
	/* Without SIS_PROP the loop runs out instead and 5.4 returns nr_cpumask_bits. */
	f->pol.knobs.features = 0;
	assert_int_equal(sis(f, 3, 3), 3);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
	set_kver(f, SR_KV(5, 5));
	assert_int_equal(sis(f, 3, 3), 4);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CPU);
	fx_free(f);
}

/* ---- the three passes (4.9 - 5.11) ---- */

static void test_idle_core_vs_thread_multipass(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4,threads=2", SR_KV(5, 11), F_PROP, 0);
	const struct sr_step *s;

	f->llc[0].has_idle_cores = true;
	f->rq[0].avg_idle = 1000000;	/* nr = 8 * 1953 / 2001 = 7 */
	set_idle(f, 3, 1);
	set_idle(f, 6, 1);
	set_idle(f, 7, 1);
	assert_int_equal(sis(f, 0, 0), 6);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CORE);
	s = step_of(&f->d.trail, "select_idle_core", NULL, 0);
	assert_int_equal(val(s, "cores_visited"), 4);
	assert_false(f->d.fx.cleared_idle_cores);
	/* Only a thread idle: the core pass clears the hint, the CPU pass finds 3. */
	set_busy(f, 7);
	assert_int_equal(sis(f, 0, 0), 3);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CPU);
	assert_true(f->d.fx.cleared_idle_cores);
	/* Hint clear: no core pass at all. */
	f->llc[0].has_idle_cores = false;
	assert_int_equal(sis(f, 0, 0), 3);
	assert_string_equal(step_of(&f->d.trail, "select_idle_core", NULL, 0)->result,
			    "no idle core: skip");
	fx_free(f);
}

/* select_idle_smt(target) is the last pass: reached when select_idle_cpu() gives up. */
static void test_select_idle_smt_multipass(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4,threads=2", SR_KV(4, 9), F_PROP, 0);

	set_idle(f, 1, 1);
	f->rq[0].avg_idle = 0;		/* 0 / 512 < avg_scan_cost: select_idle_cpu() gives up */
	assert_int_equal(sis(f, 0, 0), 1);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_SMT);
	assert_true(f->d.depends & SR_DEP_SCAN_COST);
	/* Not allowed on the sibling: nothing left but target. */
	sr_mask_clear(&f->allowed);
	sr_mask_set(&f->allowed, 0);
	f->ctx.allowed = &f->allowed;
	assert_int_equal(sis(f, 0, 0), 0);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
	fx_free(f);
}

/* W15 in 4.13 - 5.11: nr = 7 tests six CPUs from target. */
static void test_w15_sis_prop_multipass(void **state)
{
	struct fx *f = fx_new("cpus=16", SR_KV(4, 19), F_PROP, 0);
	const struct sr_step *s;

	f->rq[0].avg_idle = 500000;
	set_idle(f, 8, 1);
	assert_int_equal(sis(f, 2, 2), 2);
	s = step_of(&f->d.trail, "select_idle_cpu", "nr =", 0);
	assert_int_equal(val(s, "avg_idle"), 976);
	assert_int_equal(val(s, "avg_cost"), 2001);
	assert_int_equal(val(s, "span_avg"), 15616);
	assert_int_equal(val(s, "nr"), 7);
	s = step_of(&f->d.trail, "select_idle_cpu", "for_each", 0);
	assert_int_equal(val(s, "tested"), 6);
	assert_string_equal(s->result, "depth exhausted");
	assert_true(f->d.depends & SR_DEP_SCAN_COST);
	set_busy(f, 8);
	set_idle(f, 7, 1);
	assert_int_equal(sis(f, 2, 2), 7);
	fx_free(f);
}

/* 4.9 - 5.2 scan the whole span: disallowed CPUs use up the depth; 5.3+ skip them. */
static void test_disallowed_cpus_use_depth(void **state)
{
	struct fx *f = fx_new("cpus=8", SR_KV(4, 19), F_PROP, 0);

	sr_mask_clear(&f->allowed);
	for (int c = 0; c < 8; c++)
		if (c != 3 && c != 4)
			sr_mask_set(&f->allowed, c);
	f->ctx.allowed = &f->allowed;
	f->ctx.unknown = SR_DEP_AFFINITY;
	set_idle(f, 5, 1);
	assert_int_equal(sis(f, 2, 2), 2);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "for_each", 0), "tested"), 1);
	set_kver(f, SR_KV(5, 4));
	assert_int_equal(sis(f, 2, 2), 5);
	assert_true(f->d.depends & SR_DEP_AFFINITY);
	fx_free(f);
}

/* 4.9/4.10 give up on avg_idle / 512 < avg_scan_cost; 4.11+ only under SIS_AVG_CPU. */
static void test_avg_cpu_gate(void **state)
{
	struct fx *f = fx_new("cpus=8", SR_KV(4, 9), 0, 0);
	const struct sr_step *s;

	f->rq[0].avg_idle = 500000;
	set_idle(f, 7, 1);
	assert_int_equal(sis(f, 2, 2), 2);
	s = step_of(&f->d.trail, "select_idle_cpu", "avg_idle", 0);
	assert_int_equal(val(s, "avg_idle"), 976);
	assert_int_equal(val(s, "avg_cost"), 2000);
	assert_string_equal(s->result, "give up");
	assert_int_equal(f->d.depends & SR_DEP_SCAN_COST, SR_DEP_SCAN_COST);
	/* A cheaper scan passes; the answer still rests on the assumed cost. */
	f->pol.knobs.sis_avg_scan_cost_ns = 500;
	assert_int_equal(sis(f, 2, 2), 7);
	assert_true(f->d.depends & SR_DEP_SCAN_COST);
	/* 4.11 without SIS_AVG_CPU: no gate, no dependency. */
	f->pol.knobs.sis_avg_scan_cost_ns = 2000;
	set_kver(f, SR_KV(4, 11));
	assert_int_equal(sis(f, 2, 2), 7);
	assert_false(f->d.depends & SR_DEP_SCAN_COST);
	f->pol.knobs.features = SR_F_SIS_AVG_CPU;
	assert_int_equal(sis(f, 2, 2), 2);
	fx_free(f);
}

/* ---- single pass (5.12 - 5.19) ---- */

/* W15 in 5.12: the same depth; the scan starts at target itself. */
static void test_w15_sis_prop_512(void **state)
{
	struct fx *f = fx_new("cpus=16", SR_KV(5, 12), F_PROP, 0);
	const struct sr_step *s;

	f->rq[0].avg_idle = 500000;
	set_idle(f, 8, 1);
	assert_int_equal(sis(f, 2, 2), 2);
	s = step_of(&f->d.trail, "select_idle_cpu", "nr =", 0);
	assert_int_equal(val(s, "avg_idle"), 976);
	assert_int_equal(val(s, "avg_cost"), 2001);
	assert_int_equal(val(s, "span_avg"), 15616);
	assert_int_equal(val(s, "nr"), 7);
	s = step_of(&f->d.trail, "select_idle_cpu", "for_each", 0);
	assert_int_equal(val(s, "visited"), 6);
	assert_int_equal(val(s, "start"), 2);
	assert_string_equal(s->result, "depth exhausted");
	assert_true(f->d.depends & SR_DEP_SCAN_COST);
	set_busy(f, 8);
	set_idle(f, 7, 1);
	assert_int_equal(sis(f, 2, 2), 7);
	assert_true(f->d.depends & SR_DEP_SCAN_COST);	/* 6th CPU: beyond the floor of 3 */
	/* avg_idle 100,000: 195, span_avg 3,120 <= 8,004, nr = 4: three CPUs. */
	f->rq[0].avg_idle = 100000;
	assert_int_equal(sis(f, 2, 2), 2);
	s = step_of(&f->d.trail, "select_idle_cpu", "nr =", 0);
	assert_int_equal(val(s, "avg_idle"), 195);
	assert_int_equal(val(s, "span_avg"), 3120);
	assert_int_equal(val(s, "nr"), 4);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "for_each", 0), "visited"), 3);
	set_busy(f, 7);
	set_idle(f, 4, 1);
	assert_int_equal(sis(f, 2, 2), 4);
	assert_false(f->d.depends & SR_DEP_SCAN_COST);	/* within the guaranteed 3 */
	fx_free(f);
}

/* W16: 5.13+ age wake_avg_idle per jiffy; 5.15+ scan from target + 1, target last. */
static void test_w16_wake_avg_idle_aging(void **state)
{
	struct fx *f = fx_new("cpus=16", SR_KV(5, 15), F_PROP, 0);
	const struct sr_step *s;

	assert_int_equal(sr_sis_aged_wake_avg_idle(400000, 1000, 1003), 50000);
	assert_int_equal(sr_sis_aged_wake_avg_idle(400000, 1003, 1003), 400000);
	assert_int_equal(sr_sis_aged_wake_avg_idle(1, 0, 1000), 0);
	f->pol.knobs.sis_avg_scan_cost_ns = 20000;
	f->ctx.wake_avg.known = true;
	f->ctx.wake_avg.avg_idle = 400000;
	f->ctx.wake_avg.stamp = 1000;
	f->ctx.wake_avg.jiffies = 1003;
	set_idle(f, 4, 1);
	assert_int_equal(sis(f, 5, 5), 4);
	s = step_of(&f->d.trail, "select_idle_cpu", "nr =", 0);
	assert_int_equal(val(s, "avg_idle"), 50000);
	assert_int_equal(val(s, "avg_cost"), 20001);
	assert_int_equal(val(s, "span_avg"), 800000);
	assert_int_equal(val(s, "nr"), 39);
	s = step_of(&f->d.trail, "select_idle_cpu", "for_each", 0);
	assert_int_equal(val(s, "start"), 6);
	assert_int_equal(val(s, "visited"), 15);
	/* Nothing idle: all 16 CPUs, target the 16th. */
	set_busy(f, 4);
	assert_int_equal(sis(f, 5, 5), 5);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "for_each", 0), "visited"),
			 16);
	/* 5.13/5.14 age the same way but start at target. */
	set_kver(f, SR_KV(5, 14));
	assert_int_equal(sis(f, 5, 5), 5);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "for_each", 0), "start"), 5);
	/* Unknown wake_avg_idle: avg_idle / 2 as ttwu last set it. */
	f->ctx.wake_avg.known = false;
	f->rq[0].avg_idle = 600000;
	sis(f, 5, 5);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "nr =", 0), "avg_idle"),
			 300000);
	fx_free(f);
}

/* Same input, 5.11 three passes vs 5.12 single pass. */
static void test_single_vs_multi_pass(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4,threads=2", SR_KV(5, 11), F_PROP, 0);

	f->llc[0].has_idle_cores = true;	/* stale: no core is idle */
	set_idle(f, 3, 1);
	set_idle(f, 6, 1);
	/* 5.11: core pass fails, CPU pass tests 0, 1, 2 only, smt(target 0) busy. */
	assert_int_equal(sis(f, 0, 0), 0);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
	assert_true(f->d.fx.cleared_idle_cores);
	/* 5.12: the core scan is not depth-limited and remembers the first idle thread. */
	set_kver(f, SR_KV(5, 12));
	assert_int_equal(sis(f, 0, 0), 3);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CPU);
	assert_true(f->d.fx.cleared_idle_cores);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "for_each", 0), "visited"), 4);
	/* A sched-idle sibling is taken as the fallback too (and ends that core). */
	set_busy(f, 3);
	set_busy(f, 6);
	set_sched_idle(f, 4);
	assert_int_equal(sis(f, 0, 0), 4);
	/* A fully idle core wins over the remembered thread. */
	set_idle(f, 3, 1);
	set_idle(f, 6, 1);
	set_idle(f, 7, 1);
	assert_int_equal(sis(f, 0, 0), 6);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CORE);
	assert_false(f->d.fx.cleared_idle_cores);
	fx_free(f);
}

/* has_idle_cores false: Rik van Riel's select_idle_smt() on prev's siblings first. */
static void test_no_idle_cores_smt_of_prev(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4,threads=2", SR_KV(5, 12), F_PROP, 0);
	const struct sr_step *s;

	set_idle(f, 1, 1);
	set_idle(f, 5, 1);
	assert_int_equal(sis(f, 4, 0), 5);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_SMT);
	s = step_of(&f->d.trail, "select_idle_sibling", "test_idle_cores", 0);
	assert_int_equal(val(s, "has_idle_cores"), 0);
	/* 5.11 has no such step: the CPU scan from target finds 1. */
	set_kver(f, SR_KV(5, 11));
	assert_int_equal(sis(f, 4, 0), 1);
	/* 6.1+: the same, prev itself skipped. */
	set_kver(f, SR_KV(6, 1));
	f->pol.knobs.features = F_UTIL;
	assert_int_equal(sis(f, 4, 0), 5);
	assert_string_equal(step_of(&f->d.trail, "select_idle_smt", NULL, 0)->check,
			    "first allowed idle CPU of cpu_smt_mask(prev) other than prev");
	set_kver(f, SR_KV(6, 12));
	assert_int_equal(sis(f, 4, 0), 5);
	/* prev in another LLC: no sibling search. */
	fx_free(f);
	f = fx_new("llcs-per-socket=2,cores-per-llc=2,threads=2", SR_KV(5, 12), F_PROP, 0);
	set_idle(f, 5, 1);
	assert_int_equal(sis(f, 4, 0), 0);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
	fx_free(f);
}

/*
 * Mel Gorman, "sched/fair: Make select_idle_cpu() proportional to cores" (patch 3/5 of
 * "Scan for an idle sibling in a single pass" v3, Jan 2021, dropped): depth floor
 * sis_min_loops, scaled by the SMT weight.
 */
static void test_sis_smt_weight_variant(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8,threads=2", SR_KV(5, 12),
			      F_PROP | SR_F_SIS_SMT_WEIGHT, 0);
	const struct sr_step *s;

	set_idle(f, 4, 1);
	assert_int_equal(sis(f, 2, 2), 4);		/* nr = 2 * 2: tests 2, 3, 4 */
	s = step_of(&f->d.trail, "select_idle_cpu", "sched_smt_weight", 0);
	assert_int_equal(val(s, "sis_min"), 2);
	assert_int_equal(val(s, "smt_weight"), 2);
	assert_int_equal(val(s, "nr"), 4);
	set_busy(f, 4);
	set_idle(f, 6, 1);
	assert_int_equal(sis(f, 2, 2), 2);
	f->pol.knobs.sis_min_loops = 3;			/* nr = 6: tests 2 .. 6 */
	assert_int_equal(sis(f, 2, 2), 6);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "sched_smt_weight", 0), "nr"),
			 6);
	fx_free(f);
	/* !SMT: the floor drops from 4 to 2 (Vincent Guittot's regression). */
	f = fx_new("cpus=16", SR_KV(5, 12), F_PROP | SR_F_SIS_SMT_WEIGHT, 0);
	set_idle(f, 3, 1);
	assert_int_equal(sis(f, 2, 2), 2);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "sched_smt_weight", 0), "nr"),
			 2);
	f->pol.knobs.features = F_PROP;
	assert_int_equal(sis(f, 2, 2), 3);
	/* A large avg_idle: span_avg / avg_cost times the weight. */
	fx_free(f);
	f = fx_new("cores-per-llc=8,threads=2", SR_KV(5, 12), F_PROP | SR_F_SIS_SMT_WEIGHT, 0);
	f->rq[0].avg_idle = 500000;			/* 16 * 976 / 2001 = 7, * 2 = 14 */
	assert_int_equal(sis(f, 2, 2), 2);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "sched_smt_weight", 0), "nr"),
			 14);
	fx_free(f);
}

/* ---- SIS_UTIL (6.0+) ---- */

static void test_w17_nr_idle_scan(void **state)
{
	static const struct { unsigned long sum; uint64_t x, tmp, y; int nr; } w17[] = {
		{ 8192, 512, 350, 674, 10 },
		{ 4096, 256, 87, 937, 14 },
		{ 14000, 875, 1023, 1, 0 },
		{ 13552, 847, 959, 65, 1 },
		{ 13568, 848, 961, 63, 0 },
	};
	struct sr_idle_scan_calc c;

	for (size_t i = 0; i < SR_ARRAY_SIZE(w17); i++) {
		assert_int_equal(sr_update_idle_cpu_scan(w17[i].sum, 16, 117, &c), w17[i].nr);
		assert_int_equal(c.x, w17[i].x);
		assert_int_equal(c.tmp, w17[i].tmp);
		assert_int_equal(c.y, w17[i].y);
	}
	/* Over-utilised: tmp capped at 1024. */
	assert_int_equal(sr_update_idle_cpu_scan(32768, 16, 117, &c), 0);
	assert_int_equal(c.tmp, 1024);
	assert_int_equal(sr_update_idle_cpu_scan(0, 8, 117, NULL), 8);
	assert_int_equal(sr_update_idle_cpu_scan(100, 0, 117, NULL), -EINVAL);
}

static void test_w17_sis_util_scan(void **state)
{
	struct fx *f = fx_new("cpus=16", SR_KV(6, 0), F_UTIL, 0);
	const struct sr_step *s;

	f->llc[5].nr_idle_scan = 1;			/* nr = 2: one CPU tested */
	set_idle(f, 6, 1);
	assert_int_equal(sis(f, 5, 5), 6);
	s = step_of(&f->d.trail, "select_idle_cpu", "nr_idle_scan", 0);
	assert_int_equal(val(s, "nr"), 2);
	set_busy(f, 6);
	set_idle(f, 7, 1);
	assert_int_equal(sis(f, 5, 5), 5);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "for_each", 0), "visited"), 1);
	/* nr_idle_scan 10: at most 10 CPUs, 6 .. 15. */
	f->llc[5].nr_idle_scan = 10;
	set_busy(f, 7);
	set_idle(f, 15, 1);
	assert_int_equal(sis(f, 5, 5), 15);
	set_busy(f, 15);
	set_idle(f, 0, 1);
	assert_int_equal(sis(f, 5, 5), 5);
	/* 6.8's --nr <= 0 stops at the same depth. */
	set_kver(f, SR_KV(6, 8));
	assert_int_equal(sis(f, 5, 5), 5);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_cpu", "--nr <= 0", 0), "visited"),
			 10);
	/* nr_idle_scan 0: give up at once. */
	f->llc[5].nr_idle_scan = 0;
	set_idle(f, 6, 1);
	assert_int_equal(sis(f, 5, 5), 5);
	assert_string_equal(step_of(&f->d.trail, "select_idle_cpu", "nr_idle_scan", 0)->result,
			    "overloaded LLC: give up");
	/* Unknown budget (-1): the whole LLC, and the answer depends on the hint. */
	f->llc[5].nr_idle_scan = -1;
	assert_int_equal(sis(f, 5, 5), 6);
	assert_true(f->d.depends & SR_DEP_IDLE_HINT);
	/* SIS_UTIL off: unlimited. */
	f->pol.knobs.features = 0;
	f->llc[5].nr_idle_scan = 0;
	assert_int_equal(sis(f, 5, 5), 6);
	assert_false(f->d.depends & SR_DEP_IDLE_HINT);
	fx_free(f);
}

/*
 * An estimated budget: the answers a budget of 0 and of the whole LLC give,
 * each with the budget nearest the estimate that gives it, so the state can
 * take the least change that explains the kernel's choice.
 */
static void test_sis_util_budget_bounds(void **state)
{
	struct fx *f = fx_new("cpus=16", SR_KV(6, 0), F_UTIL, 0);

	f->llc[5].nr_idle_scan = 2;			/* tests 6 and 7 */
	f->llc[5].nr_idle_scan_estimated = true;
	set_idle(f, 10, 1);				/* the 5th CPU the scan tests */
	assert_int_equal(sis(f, 5, 5), 5);
	assert_true(f->d.depends & SR_DEP_IDLE_HINT);
	assert_int_equal(f->d.fx.cpu_no_scan, -1);	/* 0 gives 5 as well */
	assert_int_equal(f->d.fx.cpu_full_scan, 10);
	assert_int_equal(f->d.fx.full_scan_budget, 5);
	/* found with 12: a budget of 0 .. 4 gives the target */
	f->llc[5].nr_idle_scan = 12;
	assert_int_equal(sis(f, 5, 5), 10);
	assert_int_equal(f->d.fx.cpu_no_scan, 5);
	assert_int_equal(f->d.fx.no_scan_budget, 4);
	assert_int_equal(f->d.fx.cpu_full_scan, -1);
	fx_free(f);
}

/*
 * A busy LLC: every budget answers target, so the estimated one of 0 does
 * not matter and its what-ifs are not run; one idle CPU makes it matter.
 */
static void test_sis_util_busy_llc(void **state)
{
	struct fx *f = fx_new("cpus=8", SR_KV(6, 12), F_UTIL, 2);

	f->llc[2].nr_idle_scan = 0;
	f->llc[2].nr_idle_scan_estimated = true;
	assert_int_equal(sis(f, 2, 2), 2);
	assert_false(f->d.depends & SR_DEP_IDLE_HINT);
	assert_int_equal(f->d.fx.cpu_full_scan, -1);
	set_idle(f, 6, 1);
	assert_int_equal(sis(f, 2, 2), 2);
	assert_true(f->d.depends & SR_DEP_IDLE_HINT);
	assert_int_equal(f->d.fx.cpu_full_scan, 6);
	fx_free(f);
}

/* nr_idle_scan == 0 ends select_idle_cpu() even when has_idle_cores says look for a core. */
static void test_sis_util_stops_core_scan(void **state)
{
	struct fx *f = fx_new("cores-per-llc=8,threads=2", SR_KV(6, 12), F_UTIL, 0);

	f->llc[0].has_idle_cores = true;
	f->llc[0].nr_idle_scan = 0;
	set_idle(f, 10, 1);
	set_idle(f, 11, 1);
	assert_int_equal(sis(f, 0, 0), 0);
	assert_false(f->d.fx.cleared_idle_cores);
	f->llc[0].nr_idle_scan = 3;		/* a core scan ignores the budget otherwise */
	assert_int_equal(sis(f, 0, 0), 10);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CORE);
	/* 6.0 - 6.6 still had SIS_PROP (off by default); with SIS_UTIL it is overridden. */
	set_kver(f, SR_KV(6, 5));
	f->pol.knobs.features = F_UTIL | F_PROP;
	f->llc[0].has_idle_cores = false;
	f->llc[0].nr_idle_scan = 16;
	assert_int_equal(sis(f, 0, 0), 10);
	assert_false(f->d.depends & SR_DEP_SCAN_COST);
	f->pol.knobs.features = F_PROP;			/* SIS_PROP alone: nr = 4 */
	assert_int_equal(sis(f, 0, 0), 0);
	assert_true(f->d.depends & SR_DEP_SCAN_COST);
	fx_free(f);
}

/* ctx->llc NULL: has_idle_cores assumed true; the dependency only when it mattered. */
static void test_unknown_idle_hint(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4,threads=2", SR_KV(5, 15), F_PROP, 0);

	f->ctx.llc = NULL;
	set_idle(f, 6, 1);
	set_idle(f, 7, 1);
	assert_int_equal(sis(f, 0, 0), 6);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CORE);
	assert_true(f->d.depends & SR_DEP_IDLE_HINT);	/* false: depth 4 finds nothing */
	set_busy(f, 6);
	set_busy(f, 7);
	set_idle(f, 1, 1);
	assert_int_equal(sis(f, 0, 0), 1);		/* core scan remembers 1; smt(prev) too */
	assert_false(f->d.depends & SR_DEP_IDLE_HINT);
	fx_free(f);
}

/* ---- asymmetric capacity ---- */

static void asym_topo(struct fx *f)
{
	for (int c = 0; c < f->t.nr_cpus; c++) {
		f->t.cpu[c].sd[0].flags |= SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL;
		f->rq[c].capacity = c < 2 ? 512 : 1024;
	}
	f->p.util_avg = 500;	/* 500 * 1280 = 640,000: fits 1024, not 512 */
}

static void test_asym_capacity(void **state)
{
	struct fx *f = fx_new("cpus=4", SR_KV(5, 9), F_PROP, 0);

	asym_topo(f);
	for (int c = 0; c < 4; c++)
		set_idle(f, c, 1);
	set_busy(f, 1);
	/* 5.7 - 5.9: the capacity search comes first, even with target idle. */
	assert_int_equal(sis(f, 0, 0), 2);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_CPU);
	/* 5.10+: an idle target that does not fit falls through to the same search. */
	set_kver(f, SR_KV(5, 10));
	assert_int_equal(sis(f, 0, 0), 2);
	assert_string_equal(f->d.trail.steps[0].result, "busy");
	/* No big CPU idle: the idle CPU of largest capacity (first found). */
	set_busy(f, 2);
	set_busy(f, 3);
	assert_int_equal(sis(f, 0, 0), 0);
	assert_int_equal(val(step_of(&f->d.trail, "select_idle_capacity", NULL, 0), "found"), 0);
	/* Nothing idle at all: target. */
	set_busy(f, 0);
	assert_int_equal(sis(f, 1, 1), 1);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_TARGET);
	/* The capacity scan honours affinity. */
	set_idle(f, 2, 1);
	sr_mask_clear(&f->allowed);
	sr_mask_set(&f->allowed, 0);
	sr_mask_set(&f->allowed, 1);
	f->ctx.allowed = &f->allowed;
	assert_int_equal(sis(f, 1, 1), 1);
	f->ctx.allowed = NULL;
	set_busy(f, 2);
	/* 5.4: no asymmetric path. */
	set_idle(f, 0, 1);
	set_kver(f, SR_KV(5, 4));
	assert_int_equal(sis(f, 0, 0), 0);
	/* 6.4 - 6.7 start one past target: of two equal little CPUs the other wins. */
	set_idle(f, 1, 1);
	set_kver(f, SR_KV(6, 4));
	f->pol.knobs.features = F_UTIL;
	assert_int_equal(sis(f, 0, 0), 1);
	set_kver(f, SR_KV(6, 8));
	assert_int_equal(sis(f, 0, 0), 0);
	fx_free(f);
}

/* ---- inputs and odd topologies ---- */

static void test_sis_bad_input(void **state)
{
	struct fx *f = fx_new("sockets=2", SR_KV(5, 15), F_PROP, 0);

	/* No LLC domain (one CPU per LLC): target. */
	assert_int_equal(sis(f, 0, 0), 0);
	assert_string_equal(step_of(&f->d.trail, "select_idle_sibling", "sd_llc", 0)->result,
			    "return target");
	assert_int_equal(sis(f, 0, 2), -EINVAL);
	assert_int_equal(sis(f, -1, 0), -EINVAL);
	assert_int_equal(sr_select_idle_sibling(NULL, &f->ctx, 0, 0, &f->d), -EINVAL);
	assert_int_equal(sr_select_idle_sibling(&f->pol, &f->ctx, 0, 0, NULL), -EINVAL);
	set_kver(f, SR_KV(4, 8));
	assert_int_equal(sis(f, 0, 0), -EOPNOTSUPP);
	set_kver(f, SR_KV(6, 0));
	assert_int_equal(sr_select_idle_sibling(&f->pol, &f->ctx, 1, 1, &f->d), 1);
	fx_free(f);
}

/* ---- find_idlest_cpu() ---- */

static int fic(struct fx *f, int level, int prev)
{
	memset(&f->d, 0, sizeof(f->d));
	f->d.cpu = -1;
	return sr_find_idlest_cpu(&f->pol, &f->ctx, level, prev, &f->d);
}

/* W18: 2 nodes x 64 CPUs, one LLC per node; fork from CPU 0 with @busy tasks on node 0. */
static struct fx *w18(unsigned int kver, int busy)
{
	struct fx *f = fx_new("sockets=2,cores-per-llc=64", kver, F_UTIL, 0);

	f->ctx.kind = SR_WAKE_FORK;
	for (int c = 0; c < 128; c++) {
		if (c < busy)
			set_busy(f, c);
		else
			set_idle(f, c, 1000 + c);
	}
	return f;
}

static void test_w18_numa_fork(void **state)
{
	struct fx *f = w18(SR_KV(6, 0), 3);
	const struct sr_step *s;

	assert_int_equal(f->t.cpu[0].nr_levels, 2);
	assert_int_equal(sr_imb_numa_nr(&f->t, 0, 1, SR_KV(6, 0)), 8);
	assert_int_equal(sr_imb_numa_nr(&f->t, 0, 1, SR_KV(5, 19)), 16);
	assert_int_equal(sr_imb_numa_nr(&f->t, 0, 1, SR_KV(5, 17)), 0);
	assert_int_equal(sr_imb_numa_nr(&f->t, 0, 0, SR_KV(6, 0)), 0);
	/* >= 6.0: imb = 64 - 61 = 3 > 2 (local + 1 = 4 <= 8): remote, its latest idler. */
	assert_int_equal(fic(f, 1, 0), 127);
	assert_int_equal(f->d.decided_by, SR_BY_SLOW_PATH);
	s = step_of(&f->d.trail, "find_idlest_group", "adjust_numa_imbalance", 0);
	assert_int_equal(val(s, "imb_numa_nr"), 8);
	assert_int_equal(val(s, "imbalance"), 3);
	assert_int_equal(val(s, "adjusted"), 3);
	assert_int_equal(val(s, "local_idle_cpus"), 61);
	assert_int_equal(val(s, "idlest_idle_cpus"), 64);
	fx_free(f);
	/* >= 6.0 with 2 running: imb = 2 -> 0, stay local (first idle CPU, 2). */
	f = w18(SR_KV(6, 12), 2);
	assert_int_equal(fic(f, 1, 0), 2);
	assert_int_equal(val(step_of(&f->d.trail, "find_idlest_group", "adjust_numa", 0),
			     "adjusted"), 0);
	fx_free(f);
	/* 5.19: 3 + 1 <= 16; 5.11 - 5.17: 3 < 128 / 4; 5.7 - 5.10: local idle CPUs. */
	f = w18(SR_KV(5, 19), 3);
	assert_int_equal(fic(f, 1, 0), 3);
	assert_string_equal(step_of(&f->d.trail, "find_idlest_group", "imb_numa_nr", 0)->result,
			    "stay local (NUMA imbalance allowed)");
	set_kver(f, SR_KV(5, 17));
	assert_int_equal(fic(f, 1, 0), 3);
	set_kver(f, SR_KV(5, 11));
	assert_int_equal(fic(f, 1, 0), 3);
	assert_int_equal(val(step_of(&f->d.trail, "find_idlest_group", "span_weight >> 2", 0),
			     "span_weight"), 128);
	set_kver(f, SR_KV(5, 7));
	assert_int_equal(fic(f, 1, 0), 3);
	fx_free(f);
}

/* The 25% rule and the idle-CPU rule, both ways. */
static void test_numa_rules_both_ways(void **state)
{
	struct fx *f = w18(SR_KV(5, 11), 40);

	assert_int_equal(fic(f, 1, 0), 127);		/* 40 >= 32: spread */
	set_kver(f, SR_KV(6, 0));			/* 41 > 8: imbalance 40 kept */
	assert_int_equal(fic(f, 1, 0), 127);
	assert_int_equal(val(step_of(&f->d.trail, "find_idlest_group", "adjust_numa", 0),
			     "adjusted"), 40);
	set_kver(f, SR_KV(5, 10));
	assert_int_equal(fic(f, 1, 0), 40);		/* local has idle CPUs: stay */
	fx_free(f);
	/* 5.7: has_spare without an idle CPU (a wakeup in flight on the last one). */
	f = w18(SR_KV(5, 7), 63);
	f->rq[63] = (struct sr_rq){ .capacity = 1024, .ttwu_pending = true };
	assert_int_equal(fic(f, 1, 0), 127);
	fx_free(f);
}

static struct fx *small_numa(unsigned int kver)
{
	struct fx *f = fx_new("sockets=2,cores-per-llc=2", kver, F_UTIL, 0);

	f->ctx.kind = SR_WAKE_FORK;
	return f;
}

static void test_find_idlest_group_cpu(void **state)
{
	struct fx *f = small_numa(SR_KV(6, 12));

	const struct sr_step *s;

	/* Node 1 has spare: a sched-idle CPU is taken before an idle one ... */
	set_sched_idle(f, 2);
	set_idle(f, 3, 500);
	assert_int_equal(fic(f, 1, 0), 3);
	s = step_of(&f->d.trail, "find_idlest_group_cpu", NULL, 0);
	assert_string_equal(s->check, "sched_idle_cpu(i)");
	assert_int_equal(s->cpu, 2);
	/* ... though the MC level of CPU 2 then prefers its idle sibling (2 runs a task). */
	assert_int_equal(step_of(&f->d.trail, "find_idlest_group_cpu", NULL, 1)->cpu, 3);
	/* Otherwise the idle CPU with the latest idle stamp. */
	set_busy(f, 2);
	f->ctx.unknown = SR_DEP_VCPU;
	assert_int_equal(fic(f, 1, 0), 3);
	assert_int_equal(step_of(&f->d.trail, "find_idlest_group_cpu", NULL, 0)->cpu, 3);
	assert_true(f->d.depends & SR_DEP_VCPU);
	/* A stamp of 0 never beats the initial 0: the least loaded busy CPU, 2. */
	f->rq[3].idle_stamp = 0;
	assert_int_equal(fic(f, 1, 0), 3);
	s = step_of(&f->d.trail, "find_idlest_group_cpu", NULL, 0);
	assert_string_equal(s->check, "least loaded");
	assert_int_equal(s->cpu, 2);
	/* Idle since before the trace: stamped then, so taken (and the stamp is an input) */
	f->rq[2] = (struct sr_rq){ .capacity = 1024 };
	f->d.depends = 0;
	assert_int_equal(fic(f, 1, 0), 2);
	s = step_of(&f->d.trail, "find_idlest_group_cpu", NULL, 0);
	assert_string_equal(s->check, "available_idle_cpu(i) with the latest idle_stamp");
	/* No stamp and nothing busy: this_cpu itself, and the walk goes down a level. */
	f->rq[2].idle_stamp_known = true;
	assert_int_equal(fic(f, 1, 0), 0);
	assert_int_equal(step_of(&f->d.trail, "find_idlest_group_cpu", NULL, 0)->cpu, 0);
	assert_int_equal(val(step_of(&f->d.trail, "find_idlest_group", NULL, 1), "level"), 0);
	fx_free(f);
}

static void test_find_idlest_busy_groups(void **state)
{
	struct fx *f = small_numa(SR_KV(6, 0));

	/* Both nodes fully busy: node 1 avg_load 600 vs 1024 -> push, least loaded CPU 3. */
	f->rq[2].load_avg = 700;
	f->rq[3].load_avg = 500;
	f->ctx.unknown = SR_DEP_PELT_WARMUP;
	assert_int_equal(fic(f, 1, 0), 3);
	assert_int_equal(val(step_of(&f->d.trail, "find_idlest_group", NULL, 0), "idlest_avg_load"),
			 600);
	assert_true(f->d.depends & SR_DEP_PELT_WARMUP);
	/* SD_NUMA: 950 + 174 >= 1024 keeps it local; then MC: 100 * 1024 <= 117 * 1024. */
	f->rq[2].load_avg = 1000;
	f->rq[3].load_avg = 900;
	assert_int_equal(fic(f, 1, 0), 0);
	step_of(&f->d.trail, "find_idlest_group", "SD_NUMA: idlest.avg_load + imbalance", 0);
	step_of(&f->d.trail, "find_idlest_group", "100 * local.avg_load", 0);
	fx_free(f);
}

/* exec discounts the task from its own CPU; fork (new task) does not. */
static void test_find_idlest_exec_vs_fork(void **state)
{
	struct fx *f = fx_new("cpus=4", SR_KV(5, 12), F_PROP, 0);

	f->p.pid = f->rq[0].curr_pid;
	f->p.load_avg = 1024;
	f->p.util_avg = 1024;
	f->rq[1].load_avg = 2048;
	f->rq[2].load_avg = 512;
	f->ctx.kind = SR_WAKE_EXEC;
	assert_int_equal(fic(f, 0, 0), 0);
	assert_int_equal(val(step_of(&f->d.trail, "find_idlest_group", NULL, 0), "local_idle_cpus"),
			 1);
	f->ctx.kind = SR_WAKE_FORK;
	assert_int_equal(fic(f, 0, 0), 2);
	/* Within imbalance_pct: 100 * 1024 <= 117 * 900. */
	f->rq[2].load_avg = 900;
	assert_int_equal(fic(f, 0, 0), 0);
	/* The SD_BALANCE_WAKE slow path (not set by default) walks nothing. */
	f->ctx.kind = SR_WAKE_TTWU;
	assert_int_equal(fic(f, 0, 0), 0);
	fx_free(f);
}

static void test_find_idlest_affinity_and_misfit(void **state)
{
	struct fx *f = small_numa(SR_KV(6, 0));

	sr_mask_clear(&f->allowed);
	sr_mask_set(&f->allowed, 3);
	f->ctx.allowed = &f->allowed;
	assert_int_equal(fic(f, 0, 1), 1);		/* MC {0, 1} & {3} empty: prev */
	assert_string_equal(step_of(&f->d.trail, "find_idlest_cpu", NULL, 0)->result,
			    "return prev");
	sr_mask_set(&f->allowed, 2);
	f->rq[2].load_avg = 2000;
	assert_int_equal(fic(f, 1, 1), 3);		/* local node not allowed */
	assert_string_equal(step_of(&f->d.trail, "find_idlest_group", NULL, 0)->check,
			    "local group not allowed");
	fx_free(f);
	/* Misfit groups: the larger max capacity wins. */
	f = fx_new("cpus=4", SR_KV(6, 0), F_UTIL, 0);
	f->ctx.kind = SR_WAKE_FORK;
	asym_topo(f);
	for (int c = 0; c < 4; c++)
		set_idle(f, c, 10 + c);
	assert_int_equal(fic(f, 0, 0), 2);		/* misfit local vs has_spare big CPU */
	f->p.util_avg = 700;				/* misfits 512 and 768 */
	f->rq[1].capacity = 768;
	sr_mask_clear(&f->allowed);
	sr_mask_set(&f->allowed, 0);
	sr_mask_set(&f->allowed, 1);
	f->ctx.allowed = &f->allowed;
	assert_int_equal(fic(f, 0, 0), 1);
	f->rq[1].capacity = 512;
	assert_int_equal(fic(f, 0, 0), 0);
	fx_free(f);
}

static void test_find_idlest_bad_input(void **state)
{
	struct fx *f = small_numa(SR_KV(5, 6));

	assert_int_equal(fic(f, 1, 0), -EOPNOTSUPP);
	set_kver(f, SR_KV(5, 7));
	assert_int_equal(fic(f, 2, 0), -EINVAL);
	assert_int_equal(fic(f, 0, 9), -EINVAL);
	assert_int_equal(sr_find_idlest_cpu(&f->pol, NULL, 0, 0, &f->d), -EINVAL);
	assert_int_equal(sr_imb_numa_nr(NULL, 0, 0, SR_KV(6, 0)), 0);
	fx_free(f);
}

/* ---- group_classify() and Jianyong Wu's LLC allowance (May 2025, unmerged) ---- */

static void test_group_classify(void **state)
{
	struct sr_lb_group g = { .sum_nr_running = 9, .group_weight = 8, .group_capacity = 8192,
				 .group_util = 7100, .group_runnable = 7100 };

	/* 8192 * 100 = 819200 < 7100 * 117 = 830700 */
	assert_int_equal(sr_group_classify(117, &g), SR_GROUP_OVERLOADED);
	g.group_util = g.group_runnable = 7000;		/* 819200 > 819000: capacity left */
	assert_int_equal(sr_group_classify(117, &g), SR_GROUP_HAS_SPARE);
	g.group_runnable = 9600;			/* 8192 * 117 = 958464 < 960000 */
	assert_int_equal(sr_group_classify(117, &g), SR_GROUP_OVERLOADED);
	g.sum_nr_running = 8;
	assert_int_equal(sr_group_classify(117, &g), SR_GROUP_FULLY_BUSY);
	g.group_runnable = 7000;
	assert_int_equal(sr_group_classify(117, &g), SR_GROUP_HAS_SPARE);
	g.group_util = 7002;				/* 819200 > 819234 fails */
	assert_int_equal(sr_group_classify(117, &g), SR_GROUP_FULLY_BUSY);
	g.sum_nr_running = 7;
	assert_int_equal(sr_group_classify(117, &g), SR_GROUP_HAS_SPARE);
}

/* W19's domain: a node of 4 LLCs x @llc CPUs, balanced from an idle LLC. */
static struct sr_llc_imb_in w19(int llc, unsigned int busiest_nr)
{
	struct sr_llc_imb_in in = {
		.kver = SR_KV(6, 12),
		.local = { 0, llc, llc, llc, 1024UL * llc, 0, 0 },
		.busiest = { busiest_nr, llc - busiest_nr, llc, llc, 1024UL * llc,
			     1024UL * busiest_nr, 1024UL * busiest_nr },
		.sd_flags = SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_PREFER_SIBLING,
		.sd_span_weight = 4 * llc, .imbalance_pct = 117,
		.has_child = true, .child_flags = SD_SHARE_PKG_RESOURCES | SD_PREFER_SIBLING,
		.child_span_weight = llc, .has_parent = true, .parent_flags = SD_NUMA,
		.prefer_sibling = true, .dst_idle = true,
	};

	return in;
}

static void test_w19_wu_verdict(void **state)
{
	struct sr_llc_imb_in in = w19(8, 2);
	struct sr_llc_imb_verdict v;

	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_true(v.reached);
	assert_int_equal(v.imbalance, 2);		/* sibling_imbalance() */
	assert_int_equal(v.llc_nr, 4);
	assert_int_equal(v.imb_nr, 2);			/* max(2, 8 >> 2) */
	assert_true(v.wu_applies);
	assert_int_equal(v.mainline, 1);		/* 2 >> 1: one task moved */
	assert_int_equal(v.patched, 0);
	assert_true(v.kept);
	assert_string_equal(step_of(&v.trail, "calculate_imbalance (Wu)", NULL, 0)->result,
			    "imbalance = 0");
	/* 3 running: 3 > 2, the patch moves one too. */
	in = w19(8, 3);
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.mainline, 1);
	assert_int_equal(v.patched, 1);
	assert_false(v.kept);
	/* 16-CPU LLCs: imb_nr = 4. */
	in = w19(16, 4);
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imb_nr, 4);
	assert_int_equal(v.mainline, 2);
	assert_true(v.kept);
	in = w19(16, 5);
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_false(v.kept);
	assert_int_equal(v.patched, 2);
}

/* The same decision with the domain read from a topology. */
static void test_w19_from_topology(void **state)
{
	struct sr_llc_imb_in in = w19(8, 2);
	struct sr_llc_imb_verdict v;
	struct sr_topo t;

	assert_int_equal(sr_topo_from_spec(&t, "sockets=2,llcs-per-socket=4,cores-per-llc=8",
					   SR_ERA_511), 0);
	assert_int_equal(sr_llc_imb_domain(&t, 8, 1, SR_KV(6, 12), &in), 0);
	assert_int_equal(in.sd_span_weight, 32);
	assert_int_equal(in.child_span_weight, 8);
	assert_true(in.parent_flags & SD_NUMA);
	assert_int_equal(in.imb_numa_nr, 4);			/* nr_llcs */
	assert_int_equal(sr_imb_numa_nr(&t, 8, 2, SR_KV(6, 12)), 4);
	assert_int_equal(in.prefer_sibling, !!(t.cpu[8].sd[0].flags & SD_PREFER_SIBLING));
	/* Either way (sibling_imbalance or the idle-CPU difference) the imbalance is 2. */
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imbalance, 2);
	assert_true(v.kept);
	/* At the NUMA level the child is not an LLC: no allowance. */
	assert_int_equal(sr_llc_imb_domain(&t, 8, 2, SR_KV(6, 12), &in), 0);
	in.prefer_sibling = true;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_false(v.wu_applies);
	assert_int_equal(sr_llc_imb_domain(&t, 8, 3, SR_KV(6, 12), &in), -EINVAL);
	assert_int_equal(sr_llc_imb_domain(NULL, 8, 1, SR_KV(6, 12), &in), -EINVAL);
	sr_topo_free(&t);
}

static void test_wu_bases_and_edges(void **state)
{
	struct sr_llc_imb_in in = w19(8, 2);
	struct sr_llc_imb_verdict v;

	/* 6.0 - 6.5: busiest.nr - local.nr. */
	in.kver = SR_KV(6, 0);
	in.local.sum_nr_running = 1;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imbalance, 1);
	/* 6.6+ sibling_imbalance() across core counts, with its floor of 2. */
	in = w19(8, 2);
	in.local.cores = 2;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imbalance, 2);		/* (2*4 + 10) / 10 = 1 -> 2 */
	in.busiest.sum_nr_running = 1;
	in.busiest.idle_cpus = 7;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imbalance, 1);		/* (2*2 + 10) / 10, busiest has one */
	in.dst_idle = false;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imbalance, 0);
	assert_false(v.kept);
	/* No prefer_sibling: max_t(long, 0, unsigned difference) wraps when local is busier. */
	in = w19(8, 3);
	in.prefer_sibling = false;
	in.local.sum_nr_running = 6;
	in.local.idle_cpus = 2;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imbalance, 4294967293L);
	assert_int_equal(v.mainline, 2147483646L);
	assert_int_equal(v.patched, 2147483646L);
	/* ... and through adjust_numa_imbalance()'s int it turns negative. */
	in.sd_flags |= SD_NUMA;
	in.imb_numa_nr = 4;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imbalance, -3);
	assert_int_equal(v.mainline, -2);
	/* adjust_numa_imbalance() itself: local + 1 <= imb_numa_nr and imbalance <= 2. */
	in = w19(8, 2);
	in.sd_flags |= SD_NUMA;
	in.imb_numa_nr = 2;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.mainline, 0);
	assert_false(v.kept);
	/* Small LLCs: min 1; llc_nr 1 never applies. */
	in = w19(2, 1);
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.imb_nr, 1);
	in = w19(8, 2);
	in.sd_span_weight = 8;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_false(v.wu_applies);
	in = w19(8, 2);
	in.parent_flags = 0;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_false(v.wu_applies);
	assert_int_equal(v.patched, 1);
}

static void test_wu_not_reached(void **state)
{
	struct sr_llc_imb_in in = w19(8, 2);
	struct sr_llc_imb_verdict v;

	in.local.type_given = true;
	in.local.type = SR_GROUP_FULLY_BUSY;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_false(v.reached);
	assert_false(v.kept);
	in = w19(8, 10);				/* 10 on 8 CPUs: overloaded */
	in.busiest.idle_cpus = 0;
	in.busiest.group_util = 8192;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_int_equal(v.busiest_type, SR_GROUP_OVERLOADED);
	assert_false(v.reached);			/* migrate_util */
	in.sd_flags |= SD_SHARE_PKG_RESOURCES;		/* inside an LLC it is counted in tasks */
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_true(v.reached);
	in = w19(8, 2);
	in.busiest.type_given = true;
	in.busiest.type = SR_GROUP_MISFIT_TASK;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), 0);
	assert_false(v.reached);
	in = w19(8, 2);
	in.kver = SR_KV(5, 19);
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), -EINVAL);
	in.kver = SR_KV(6, 0);
	in.local.group_capacity = 0;
	assert_int_equal(sr_llc_imbalance_wu(&in, &v), -EINVAL);
	assert_int_equal(sr_llc_imbalance_wu(NULL, &v), -EINVAL);
}

/* 5.4's select_idle_smt() also falls back to a sched-idle sibling; affinity is honoured. */
static void test_smt_sched_idle_and_affinity(void **state)
{
	struct fx *f = fx_new("cores-per-llc=4,threads=2", SR_KV(5, 4), 0, 0);

	set_sched_idle(f, 1);		/* select_idle_cpu() runs out and loses it (5.4) */
	assert_int_equal(sis(f, 0, 0), 1);
	assert_int_equal(f->d.decided_by, SR_BY_SIS_SMT);
	/* 5.12: Rik's select_idle_smt(prev) skips a sibling the task may not use. */
	set_kver(f, SR_KV(5, 12));
	f->pol.knobs.features = F_PROP;
	set_idle(f, 1, 1);
	sr_mask_clear(&f->allowed);
	for (int c = 0; c < 8; c++)
		if (c != 1)
			sr_mask_set(&f->allowed, c);
	f->ctx.allowed = &f->allowed;
	set_idle(f, 2, 1);
	assert_int_equal(sis(f, 0, 0), 2);
	assert_string_equal(step_of(&f->d.trail, "select_idle_smt", NULL, 0)->result, "none");
	/* Lost events on the chosen CPU carry into the decision. */
	f->rq[2].uncertain = true;
	assert_int_equal(sis(f, 0, 0), 2);
	assert_true(f->d.depends & SR_DEP_LOST_EVENTS);
	fx_free(f);
}

/* Groups of several CPUs: more idle CPUs win; misfit groups by capacity; flags and affinity. */
static void test_find_idlest_group_choice(void **state)
{
	struct fx *f = fx_new("llcs-per-socket=3,cores-per-llc=2", SR_KV(6, 0), F_UTIL, 0);

	f->ctx.kind = SR_WAKE_FORK;
	set_idle(f, 2, 10);		/* {2, 3}: one idle */
	set_idle(f, 4, 20);		/* {4, 5}: two idle */
	set_idle(f, 5, 30);
	assert_int_equal(fic(f, 1, 0), 5);
	/* A CPU the task may not use is skipped inside the chosen group. */
	sr_mask_clear(&f->allowed);
	for (int c = 0; c < 6; c++)
		if (c != 5)
			sr_mask_set(&f->allowed, c);
	f->ctx.allowed = &f->allowed;
	f->rq[5].uncertain = true;
	assert_int_equal(fic(f, 1, 0), 4);
	assert_false(f->d.depends & SR_DEP_LOST_EVENTS);
	f->ctx.allowed = NULL;
	assert_int_equal(fic(f, 1, 0), 5);
	assert_true(f->d.depends & SR_DEP_LOST_EVENTS);
	/* Only the local group allowed: no idlest group at any level. */
	sr_mask_clear(&f->allowed);
	sr_mask_set(&f->allowed, 0);
	f->ctx.allowed = &f->allowed;
	assert_int_equal(fic(f, 1, 0), 0);
	assert_string_equal(step_of(&f->d.trail, "find_idlest_group", NULL, 0)->check,
			    "no idlest group");
	/* A level without SD_BALANCE_FORK is passed over. */
	f->ctx.allowed = NULL;
	for (int c = 0; c < 6; c++)
		f->t.cpu[c].sd[1].flags &= ~SD_BALANCE_FORK;
	assert_int_equal(fic(f, 1, 0), 0);	/* MC {0, 1}: both busy, stay */
	set_idle(f, 1, 5);
	assert_int_equal(fic(f, 1, 0), 1);
	fx_free(f);
	/* Two misfit candidates: the larger capacity replaces the first. */
	f = fx_new("cpus=4", SR_KV(6, 0), F_UTIL, 0);
	f->ctx.kind = SR_WAKE_FORK;
	asym_topo(f);
	f->p.util_avg = 700;
	f->rq[1].capacity = 600;
	f->rq[2].capacity = 768;
	for (int c = 0; c < 4; c++)
		set_idle(f, c, 10 + c);
	sr_mask_clear(&f->allowed);
	for (int c = 0; c < 3; c++)
		sr_mask_set(&f->allowed, c);
	f->ctx.allowed = &f->allowed;
	assert_int_equal(fic(f, 0, 0), 2);
	fx_free(f);
	/* imb_numa_nr floor of 1 (6.0+) on a small node. */
	f = small_numa(SR_KV(6, 0));
	assert_int_equal(sr_imb_numa_nr(&f->t, 0, 1, SR_KV(6, 0)), 1);	/* 2 >> 3 = 0 -> 1 */
	assert_int_equal(sr_imb_numa_nr(&f->t, 0, 1, SR_KV(5, 19)), 0);	/* 2 >> 2 */
	fx_free(f);
}

/* The waker's CPU without an LLC domain: select_idle_cpu() bails out (sd_llc(this)). */
static void test_waker_without_llc(void **state)
{
	static const unsigned int kv[] = { SR_KV(4, 19), SR_KV(5, 15), SR_KV(6, 0) };
	struct fx *f = fx_new("cpus=8", SR_KV(4, 19), F_PROP, 0);

	f->t.cpu[0].sd[0].flags &= ~SD_SHARE_PKG_RESOURCES;
	set_idle(f, 6, 1);
	for (size_t i = 0; i < SR_ARRAY_SIZE(kv); i++) {
		set_kver(f, kv[i]);
		assert_int_equal(sis(f, 5, 5), 5);
	}
	/* 6.1+ look at sd_llc(this) only for SIS_PROP. */
	set_kver(f, SR_KV(6, 1));
	f->pol.knobs.features = F_UTIL;
	assert_int_equal(sis(f, 5, 5), 6);
	f->pol.knobs.features = F_UTIL | F_PROP;
	assert_int_equal(sis(f, 5, 5), 5);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_idle),
		cmocka_unit_test(test_prev_idle_cache_affine),
		cmocka_unit_test(test_recent_used_cpu),
		cmocka_unit_test(test_percpu_kthread),
		cmocka_unit_test(test_sched_idle_accepted),
		cmocka_unit_test(test_sched_idle_fallback_54),
		cmocka_unit_test(test_idle_core_vs_thread_multipass),
		cmocka_unit_test(test_select_idle_smt_multipass),
		cmocka_unit_test(test_w15_sis_prop_multipass),
		cmocka_unit_test(test_disallowed_cpus_use_depth),
		cmocka_unit_test(test_avg_cpu_gate),
		cmocka_unit_test(test_w15_sis_prop_512),
		cmocka_unit_test(test_w16_wake_avg_idle_aging),
		cmocka_unit_test(test_single_vs_multi_pass),
		cmocka_unit_test(test_no_idle_cores_smt_of_prev),
		cmocka_unit_test(test_sis_smt_weight_variant),
		cmocka_unit_test(test_w17_nr_idle_scan),
		cmocka_unit_test(test_sis_util_budget_bounds),
		cmocka_unit_test(test_sis_util_busy_llc),
		cmocka_unit_test(test_w17_sis_util_scan),
		cmocka_unit_test(test_sis_util_stops_core_scan),
		cmocka_unit_test(test_unknown_idle_hint),
		cmocka_unit_test(test_asym_capacity),
		cmocka_unit_test(test_sis_bad_input),
		cmocka_unit_test(test_w18_numa_fork),
		cmocka_unit_test(test_numa_rules_both_ways),
		cmocka_unit_test(test_find_idlest_group_cpu),
		cmocka_unit_test(test_find_idlest_busy_groups),
		cmocka_unit_test(test_find_idlest_exec_vs_fork),
		cmocka_unit_test(test_find_idlest_affinity_and_misfit),
		cmocka_unit_test(test_find_idlest_bad_input),
		cmocka_unit_test(test_smt_sched_idle_and_affinity),
		cmocka_unit_test(test_find_idlest_group_choice),
		cmocka_unit_test(test_waker_without_llc),
		cmocka_unit_test(test_group_classify),
		cmocka_unit_test(test_w19_wu_verdict),
		cmocka_unit_test(test_w19_from_topology),
		cmocka_unit_test(test_wu_bases_and_edges),
		cmocka_unit_test(test_wu_not_reached),
	};

	return cmocka_run_group_tests_name("models_sis", tests, NULL, NULL);
}
