// SPDX-License-Identifier: GPL-2.0
/*
 * The whole path from the state through the linux-6.12 model and back: a
 * wakeup whose kernel choice both the wide answer and the answer without
 * WF_SYNC give (follow.c weigh_ambiguous()).  Where wakers of the name
 * have shown WF_SYNC clearly, the family's inherited wakee_flips rise
 * until the model's own primary answer is wide; the bounds stay the
 * trace's, so the answer still depends on wakee_flips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"
#include "policy.h"

#define MS 1000000ULL

struct amb {
	struct sr_policy pol;
	struct sr_decision last;	/* the wakee's last decision */
};

/* linux-6.12 answers, handed on as src/run/run.c fill_ref() does. */
static int h_model(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
		   struct sr_ref *ref)
{
	struct amb *a = data;
	struct sr_decision *d = calloc(1, sizeof(*d));
	int k;

	assert_non_null(d);
	assert_int_equal(sr_policy_decide_quiet(&a->pol, ctx, d), 0);
	dec[0] = (struct sr_brief){ .cpu = (int16_t)d->cpu, .alt_cpu = (int16_t)d->alt_cpu,
				    .determined = d->determined, .sync_assumed = d->sync_assumed,
				    .depends = (uint32_t)d->depends };
	k = d->sync_assumed ? 1 : 0;
	*ref = (struct sr_ref){ .valid = d->cpu >= 0, .recent_used_cpu = { -1, -1 },
		.cleared_idle_cores = { -1, -1 }, .no_scan_cpu = { -1, -1 },
		.full_scan_cpu = { -1, -1 }, .scan_llc = { -1, -1 },
		.cores_no_scan_cpu = { -1, -1 }, .h_load_cpu = { -1, -1 },
		.waker_recent_cpu = -1, .stores_prev = true,
		.wide_alt_cpu = (int16_t)d->wide_alt_cpu, .primary_wide = d->wide,
		.wide_factor = (uint16_t)sr_llc_size(ctx->topo, ctx->this_cpu) };
	ref->cpu[k] = (int16_t)d->cpu;
	ref->cpu[!k] = (int16_t)(ctx->sync == SR_UNKNOWN ? d->alt_cpu : d->cpu);
	if (ctx->p->pid == 200)
		a->last = *d;
	free(d);
	return 0;
}

/* A switch on @cpu to @next at nice 19 (weight 15): a CPU busy but light. */
static void sw_light(struct fx *f, uint64_t ts, int cpu, int prev, const char *comm, int next,
		     const char *next_comm)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts, .cpu = cpu, .pid = prev,
			      .prio = 139, .prev_state = SR_PS_RUNNING, .next_pid = next,
			      .next_prio = 139 };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	snprintf(e.next_comm, sizeof(e.next_comm), "%s", next_comm);
	ev(f, e);
}

/*
 * 90, from before the trace, forks the sender 100 (CPU 0, alone: WF_SYNC
 * pulls to it) and the receiver 200, which sleeps on CPU 2; CPUs 1 and 3
 * are busy and CPU 2 runs a nice-19 task.  Each round 100 wakes 200: with
 * WF_SYNC the model answers CPU 0, without it prev (CPU 2 is far the
 * lighter), and wide prev too; the kernel chose prev.  Wide needs the
 * receiver's count at least 4 (the LLC's size) and the sender's 4 times it.  @sync_wins: the
 * WF_SYNC lessons wakers named "sender" showed before.
 */
static void rounds(struct fx *f, struct amb *a, int n, int sync_wins)
{
	sw(f, 1 * MS, 0, 0, "", 90, "sh");
	sw(f, 1 * MS, 1, 0, "", 101, "busy1");
	sw(f, 1 * MS, 3, 0, "", 103, "busy3");
	for (int i = 0; i < 2; i++) {
		int pid = i ? 200 : 100;

		ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2 * MS + (uint64_t)i, .cpu = 0,
					 .pid = 90, .child_pid = pid, .common_pid = -1 });
		snprintf(sr_state_task(&f->s, pid)->comm, sizeof(sr_state_task(&f->s, pid)->comm),
			 "%s", i ? "recv" : "sender");
	}
	sw(f, 3 * MS, 2, 0, "", 200, "recv");
	sw(f, 4 * MS, 2, 200, "recv", 0, "");
	sw_light(f, 4 * MS, 2, 0, "", 202, "light");
	sw(f, 5 * MS, 0, 90, "sh", 100, "sender");
	/* the sender has flipped 40 times (its other receivers): master enough for B 4..10 */
	sr_state_task(&f->s, 100)->v.wakee_flips += 40;
	for (int i = 0; i < sync_wins; i++)
		sr_st_sync_learn(&f->s, sr_state_task(&f->s, 100), sr_state_task(&f->s, 200), true);
	for (int i = 0; i < n; i++) {
		uint64_t t = 60 * MS + 10 * MS * (uint64_t)i;

		waking(f, t, 0, 200, "recv", 2, 100, false);
		if (!i)
			assert_int_equal(a->last.wide_alt_cpu, 2);
		wakeup(f, t + MS / 10, 2, 200, 2);
		sw_light(f, t + MS / 5, 2, 202, "light", 200, "recv");
		sw(f, t + MS / 2, 2, 200, "recv", 0, "");
		sw_light(f, t + MS / 2, 2, 0, "", 202, "light");
	}
}

static struct fx *amb_new(struct amb *a)
{
	struct fx *f = fx_new();

	assert_int_equal(sr_policy_from_spec(&a->pol, "linux-6.12"), 0);
	f->s.cfg.hooks = (struct sr_state_hooks){ .data = a, .placement = h_model };
	return f;
}

/* WF_SYNC clear for the name: the kernel's prev reads as wide, and the family's count rises. */
static void test_ambiguous_reads_wide(void **state)
{
	struct amb a = { 0 };
	struct fx *f = amb_new(&a);
	struct sr_task *p;

	(void)state;
	rounds(f, &a, 1, 16);
	/* the primary answer: WF_SYNC and narrow, CPU 0; without WF_SYNC prev, as wide */
	assert_true(a.last.sync_assumed);
	assert_int_equal(a.last.cpu, 0);
	assert_int_equal(a.last.alt_cpu, 2);
	assert_false(a.last.wide);
	fx_free(f);
	f = amb_new(&a);
	rounds(f, &a, 6, 16);
	p = sr_state_task(&f->s, 200);
	assert_true(p->flips_fam >= 0);
	assert_true(f->s.fam[p->flips_fam].base >= 4);
	assert_true(p->v.wakee_flips >= 4);
	assert_true(p->v.wakee_flips_min < 4);		/* the bounds are the trace's */
	/* the next wakeup: the model's own answer is now wide, still labelled by the flips */
	waking(f, 200 * MS, 0, 200, "recv", 2, 100, false);
	assert_true(a.last.wide);
	assert_int_equal(a.last.cpu, 2);
	assert_true(a.last.depends & SR_DEP_WAKEE_FLIPS);
	assert_false(a.last.determined);
	fx_free(f);
}

/* No clear WF_SYNC for the name: "no WF_SYNC" explains it as well, the count stays. */
static void test_ambiguous_without_sync_evidence(void **state)
{
	struct amb a = { 0 };
	struct fx *f = amb_new(&a);
	struct sr_task *p;

	(void)state;
	rounds(f, &a, 6, 0);
	p = sr_state_task(&f->s, 200);
	assert_true(p->flips_fam < 0 || f->s.fam[p->flips_fam].base == 0);
	assert_true(p->v.wakee_flips < 4);
	fx_free(f);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ambiguous_reads_wide),
		cmocka_unit_test(test_ambiguous_without_sync_evidence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
