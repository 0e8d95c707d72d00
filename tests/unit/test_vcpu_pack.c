// SPDX-License-Identifier: GPL-2.0
/*
 * The 6.18.44-fc guest kernel's sched_vcpu_pack prologue
 * (replay/vcpu_pack-6.18fc.c), run on contexts the state builds from
 * events, as src/run/run.c hands them on; and the boot parameter read from
 * a machine snapshot's command line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "models.h"
#include "machine.h"
#include "state-fx.h"
#include "model-hook.h"

#define US	1000ULL
#define MS	(1000 * US)

/* Every CPU idle when the trace began: their PELT sums start from zero, and so do the kernel's. */
static const struct sr_cpu_ingest idle_start[4] = {
	{ .first_pid = 0 }, { .first_pid = 0 }, { .first_pid = 0 }, { .first_pid = 0 },
};

static struct fx *pack_fx(struct fx_ref_run *r, const char *spec)
{
	struct sr_state_cfg cfg = { .delayed_dequeue = true, .initial = idle_start };
	struct fx *f;

	assert_int_equal(sr_policy_from_spec(&r->pol, spec), 0);
	f = fx_new_cfg(&cfg);
	f->s.cfg.hooks = (struct sr_state_hooks){ .data = r, .placement = fx_ref_hook };
	return f;
}

/*
 * CPU 0 runs the waker 100 with 101 queued behind it (no room there); 200
 * slept on CPU 1, which runs 300 alone, or nothing (@prev_busy false);
 * CPU 2 runs 400 alone.  100 wakes 200 from task context.
 */
static struct sr_task *pack_scene(struct fx *f, bool prev_busy)
{
	sw(f, 1 * MS, 0, 0, "", 100, "waker");
	waking(f, 1 * MS + 10 * US, 0, 101, "other", 0, 100, false);
	wakeup(f, 1 * MS + 11 * US, 0, 101, 0);
	sw(f, 1 * MS, 1, 0, "", 200, "wakee");
	sw(f, 2 * MS, 1, 200, "wakee", prev_busy ? 300 : 0, prev_busy ? "neighbour" : "");
	sw(f, 2 * MS, 2, 0, "", 400, "busy2");
	waking(f, 3 * MS, 0, 200, "wakee", 1, 100, false);
	return sr_state_task(&f->s, 200);
}

/* Bit 4: prev is busy with one light task: the wakee stays, by the patch, not the fast path. */
static void test_pack_onto_busy_prev(void **state)
{
	struct fx_ref_run r;
	struct fx *f = pack_fx(&r, "linux-6.18:vcpu_pack=15");

	(void)state;
	pack_scene(f, true);
	assert_int_equal(r.d.cpu, 1);
	assert_int_equal(r.d.decided_by, SR_BY_VCPU_PACK);
	assert_true(r.d.no_record_wakee);
	fx_free(f);
}

/* An idle prev is not packed onto: the lowest-numbered busy CPU with room is (CPU 2). */
static void test_pack_skips_idle_prev(void **state)
{
	struct fx_ref_run r;
	struct fx *f = pack_fx(&r, "linux-6.18:vcpu_pack=15");

	(void)state;
	pack_scene(f, false);
	assert_int_equal(r.d.cpu, 2);
	assert_int_equal(r.d.decided_by, SR_BY_VCPU_PACK);
	fx_free(f);
}

/* Mainline 6.18 on the same events takes its own road: the prologue is the patch's. */
static void test_mainline_ignores_pack(void **state)
{
	struct fx_ref_run r;
	struct fx *f = pack_fx(&r, "linux-6.18");

	(void)state;
	pack_scene(f, false);
	assert_int_not_equal(r.d.decided_by, SR_BY_VCPU_PACK);
	assert_false(r.d.no_record_wakee);
	fx_free(f);
}

/* Without bit 4 (vcpu_pack=3) nothing packs a task-context, crowded-waker wakeup. */
static void test_pack_bits(void **state)
{
	struct fx_ref_run r;
	struct fx *f = pack_fx(&r, "linux-6.18:vcpu_pack=3");

	(void)state;
	pack_scene(f, true);
	assert_int_not_equal(r.d.decided_by, SR_BY_VCPU_PACK);
	fx_free(f);
}

/* A packed wakeup came before record_wakee(): the waker's bookkeeping stays as it was. */
static void test_pack_leaves_flips(void **state)
{
	struct fx_ref_run r;
	struct fx *f = pack_fx(&r, "linux-6.18:vcpu_pack=15");
	struct sr_task *waker;

	(void)state;
	pack_scene(f, true);
	assert_int_equal(r.d.decided_by, SR_BY_VCPU_PACK);
	waker = sr_state_task(&f->s, 100);
	assert_int_equal(waker->v.last_wakee, 0);	/* still the one from before the trace */
	assert_int_equal(waker->v.wakee_flips, 0);
	fx_free(f);

	f = pack_fx(&r, "linux-6.18");
	pack_scene(f, true);
	waker = sr_state_task(&f->s, 100);
	assert_int_equal(waker->v.last_wakee, 200);
	fx_free(f);
}

/*
 * The kernel did not pack the wakee onto its busy prev (CPU 1), which had
 * room by the state's utilisation: its cpu_util_cfs() there was at least
 * pack_need higher (work older than the trace), and the next wakeup reads
 * that.  When the kernel then packs onto CPU 1 after all, the lesson
 * shrinks until it has room again; unused, it decays as PELT would.
 */
static void test_pack_lesson(void **state)
{
	struct fx_ref_run r;
	struct fx *f = pack_fx(&r, "linux-6.18:vcpu_pack=15");
	int need;

	(void)state;
	pack_scene(f, true);
	assert_int_equal(r.d.cpu, 1);
	need = r.d.fx.pack_need;
	assert_true(need > 0);
	wakeup(f, 3 * MS + 5 * US, 3, 200, 3);		/* the kernel: idle CPU 3 */
	assert_true(f->s.cpu[1].taught_util >= need);
	sw(f, 3 * MS + 20 * US, 3, 0, "", 200, "wakee");
	sw(f, 3 * MS + 30 * US, 3, 200, "wakee", 0, "");
	waking(f, 3 * MS + 40 * US, 0, 200, "wakee", 3, 100, false);
	assert_int_equal(r.d.fx.pack_tight_cpu, 1);	/* CPU 1 had room but for the lesson */
	assert_int_not_equal(r.d.cpu, 1);
	assert_true(r.d.depends & SR_DEP_PELT_WARMUP);	/* a lesson is an estimate */
	wakeup(f, 3 * MS + 45 * US, 1, 200, 1);		/* the kernel packed onto CPU 1 */
	assert_true(f->s.cpu[1].taught_util < need);
	assert_true(sr_st_taught_util(&f->s, 1, 3 * MS + 45 * US + 1000 * MS) < 1.0);
	fx_free(f);
}

/* The boot parameter, and which others leave the kernel unmodelled. */
static void test_machine_params(void **state)
{
	struct sr_machine m;

	(void)state;
	sr_machine_init(&m);
	assert_int_equal(sr_machine_vcpu_pack(&m), -1);
	assert_false(sr_machine_unmodelled_patches(&m));
	snprintf(m.kernel_patch_params, sizeof(m.kernel_patch_params), "sched_vcpu_pack=15");
	assert_int_equal(sr_machine_vcpu_pack(&m), 15);
	assert_false(sr_machine_unmodelled_patches(&m));
	snprintf(m.kernel_patch_params, sizeof(m.kernel_patch_params),
		 "sched_vcpu_pack=6 sched_other");
	assert_int_equal(sr_machine_vcpu_pack(&m), 6);
	assert_true(sr_machine_unmodelled_patches(&m));
	snprintf(m.kernel_patch_params, sizeof(m.kernel_patch_params), "sched_vcpu_pack=99");
	assert_int_equal(sr_machine_vcpu_pack(&m), -1);
	assert_true(sr_machine_unmodelled_patches(&m));
	snprintf(m.kernel_patch_params, sizeof(m.kernel_patch_params), "sched_vcpu_pack=");
	assert_int_equal(sr_machine_vcpu_pack(&m), -1);
	assert_true(sr_machine_unmodelled_patches(&m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_onto_busy_prev),
		cmocka_unit_test(test_pack_skips_idle_prev),
		cmocka_unit_test(test_mainline_ignores_pack),
		cmocka_unit_test(test_pack_bits),
		cmocka_unit_test(test_pack_leaves_flips),
		cmocka_unit_test(test_pack_lesson),
		cmocka_unit_test(test_machine_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
