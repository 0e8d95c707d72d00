// SPDX-License-Identifier: GPL-2.0
/*
 * Task groups (src/state/groups.c) as a trace feeds them: membership from
 * cgroup_attach_task, the autogroup probe and fork; each group's cfs_rq
 * load per CPU, its shares split by calc_group_shares(), and the root
 * cfs_rq load the models read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "state-fx.h"

static void attach(struct fx *f, uint64_t ts, int pid, int id)
{
	ev(f, (struct sr_event){ .type = SR_EV_CGROUP_ATTACH, .ts = ts, .cpu = 0, .pid = pid,
				 .cgroup_id = id, .common_pid = -1 });
}

/* b, asleep on CPU 1 from 1.000003 s, is woken by CPU 0 onto @cpu a microsecond later. */
static void wake_b_onto(struct fx *f, int cpu)
{
	sw(f, 1000003000, 1, 101, "b", 0, "");
	waking(f, 1000004000, 0, 101, "b", cpu, 100, false);
	migrate(f, 1000004000, 0, 101, 1, cpu, 100);
	wakeup(f, 1000005000, 0, 101, cpu);
}

/* Two tasks of one cgroup busy on CPUs 0 and 1 for a long time; a root task on CPU 2. */
static struct fx *busy_group(const struct sr_state_cfg *cfg)
{
	struct fx *f = fx_new_cfg(cfg);

	sw(f, 1000, 0, 0, "", 100, "a");
	sw(f, 1000, 1, 0, "", 101, "b");
	sw(f, 1000, 2, 0, "", 102, "c");
	attach(f, 2000, 100, 28);
	attach(f, 2000, 101, 28);
	/* one second later every average has converged */
	sw(f, 1000002000, 3, 0, "", 103, "d");
	for (int c = 0; c < 4; c++)	/* as a placement does */
		sr_st_cpu_advance(&f->s, c, f->s.now);
	sr_st_groups_fill(&f->s);
	return f;
}

/*
 * b sleeps on CPU 1: its cfs_rq keeps a blocked load but no weight.  4.15+
 * split the shares by max(weight, load), about half there; 4.9 - 4.14 by
 * weight alone, the minimum.
 */
static unsigned long blocked_share(bool pre_415)
{
	const struct sr_state_cfg era = { .shares_by_weight = pre_415 };
	struct fx *f = busy_group(&era);
	unsigned long shares;

	sw(f, 1000003000, 1, 101, "b", 0, "");
	for (int c = 0; c < 4; c++)
		sr_st_cpu_advance(&f->s, c, f->s.now);
	sr_st_groups_fill(&f->s);
	shares = sr_state_task(&f->s, 100)->grp->cpu[1].shares;
	fx_free(f);
	return shares;
}

static void test_shares_by_era(void **state)
{
	assert_in_range(blocked_share(false), 480, 530);
	assert_in_range(blocked_share(true), 0, 10);
}

static void test_attach_and_shares(void **state)
{
	struct fx *f = busy_group(NULL);
	struct sr_task *a = sr_state_task(&f->s, 100), *c = sr_state_task(&f->s, 102);
	const struct sr_tg_cpu *q;

	assert_int_equal(f->s.nr_groups, 1);
	assert_non_null(a->grp);
	assert_ptr_equal(a->v.tg, &a->grp->tg);
	assert_true(a->grp_known);
	assert_null(c->grp);
	assert_false(c->grp_known);		/* first seen: root assumed */
	/* the group's load sits on CPUs 0 and 1: 1024 shares split evenly */
	q = &a->grp->cpu[0];
	assert_int_equal(q->load_weight, 1024);
	assert_in_range(q->load_avg, 1000, 1024);
	assert_in_range(q->se_weight, 500, 524);
	assert_in_range(q->se_load_avg, 500, 524);
	assert_int_equal(a->grp->cpu[2].load_weight, 0);
	/* root cfs_rq: the group entity on 0, the root task's own load on 2 */
	assert_in_range(f->s.rq[0].load_avg, 500, 524);
	assert_in_range(f->s.rq[0].group_load_avg, 500, 524);
	assert_in_range(f->s.rq[2].load_avg, 1000, 1024);
	assert_int_equal(f->s.rq[2].group_load_avg, 0);
	/* shares unknown (default 1024 assumed): membership alone is not enough */
	assert_false(sr_st_group_known(&f->s, a));
	fx_free(f);
}

/* --cgroup-weight: cpu.weight 400 is 4096 shares, known. */
static void test_weight_given(void **state)
{
	struct sr_cgroup_weight w = { .id = 28, .weight = 400 };
	struct sr_state_cfg cfg = { .cgroup_weights = &w, .nr_cgroup_weights = 1 };
	struct fx *f = busy_group(&cfg);
	struct sr_task *a = sr_state_task(&f->s, 100);

	assert_int_equal(a->grp->tg.shares, 4096);
	assert_true(sr_st_group_known(&f->s, a));
	assert_in_range(a->grp->cpu[0].se_weight, 2000, 2048);
	fx_free(f);
}

/* A fork inherits the group; moving back to the root cgroup leaves the group. */
static void test_fork_and_root(void **state)
{
	struct fx *f = busy_group(NULL);
	struct sr_task *child, *a = sr_state_task(&f->s, 100);

	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 1000003000, .cpu = 0, .pid = 100,
				 .child_pid = 200, .common_pid = -1 });
	child = sr_state_task(&f->s, 200);
	assert_ptr_equal(child->grp, a->grp);
	assert_true(child->grp_known);
	attach(f, 1000004000, 100, 1);		/* id 1: the cgroup v2 root */
	assert_null(a->grp);
	assert_null(a->v.tg);
	/* its weight left the group's queue on CPU 0 */
	assert_int_equal(child->grp->weight[0], 0);
	assert_int_equal(f->s.cpu[0].root_weight, 1024);
	fx_free(f);
}

/*
 * --cgroup-member, a trace without cgroup events: pid 200, forked by a root
 * task, is in cgroup 7 (weight 400) from its fork, and so is what it forks;
 * pid 300, first seen running, from then on; the parent stays in the root.
 */
static void test_member_given(void **state)
{
	struct sr_cgroup_member m[] = { { .pid = 200, .id = 7 }, { .pid = 300, .id = 7 } };
	struct sr_cgroup_weight w = { .id = 7, .weight = 400 };
	struct sr_state_cfg cfg = { .cgroup_weights = &w, .nr_cgroup_weights = 1,
				    .cgroup_members = m, .nr_cgroup_members = 2 };
	struct fx *f = fx_new_cfg(&cfg);
	struct sr_task *parent, *child, *grandchild, *other;

	sw(f, 1000, 0, 0, "", 100, "sh");
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 2000, .cpu = 0, .pid = 100,
				 .child_pid = 200, .common_pid = -1 });
	ev(f, (struct sr_event){ .type = SR_EV_FORK, .ts = 3000, .cpu = 0, .pid = 200,
				 .child_pid = 201, .common_pid = -1 });
	sw(f, 4000, 1, 0, "", 300, "worker");
	parent = sr_state_task(&f->s, 100);
	child = sr_state_task(&f->s, 200);
	grandchild = sr_state_task(&f->s, 201);
	other = sr_state_task(&f->s, 300);
	assert_null(parent->grp);
	assert_non_null(child->grp);
	assert_int_equal(child->grp->tg.shares, 4096);
	assert_true(sr_st_group_known(&f->s, child));
	assert_ptr_equal(grandchild->grp, child->grp);
	assert_ptr_equal(other->grp, child->grp);
	assert_int_equal(f->s.nr_groups, 1);
	assert_int_equal(child->grp->weight[1], 1024);	/* 300 runs on CPU 1, in the group */
	fx_free(f);
}

/*
 * b, busy on CPU 1 for a second, sleeps and is woken onto CPU 3, where its
 * group never ran: attaching its load passes its load_sum to the group
 * entity (update_tg_cfs_load()), so the next placement reads CPU 3's root
 * load with the entity fully runnable — about its share of the 1024 —, not
 * one that has just begun to grow.
 */
static void test_migration_propagates(void **state)
{
	struct fx *f = busy_group(NULL);
	unsigned long se;

	wake_b_onto(f, 3);
	sw(f, 1000006000, 3, 0, "", 101, "b");
	sw(f, 1000100000, 2, 102, "c", 0, "");
	waking(f, 1000200000, 0, 102, "c", 2, 100, false);
	se = sr_state_task(&f->s, 101)->grp->cpu[3].se_load_avg;
	assert_in_range(se, 300, 524);
	assert_int_equal(f->ctx.rq[3].load_avg, se);
	assert_int_equal(f->ctx.rq[3].group_load_avg, se);
	fx_free(f);
}

/*
 * update_cfs_rq_h_load() caches the root cfs_rq's load_avg: on CPU 0 that
 * is a's group entity's, and a later placement in the jiffy reads it.
 */
static void test_h_load_cache_holds_groups(void **state)
{
	struct fx *f = busy_group(NULL);

	sw(f, 1000003000, 2, 102, "c", 0, "");
	f->next_ref = (struct sr_ref){ .valid = true, .h_load_cpu = { 0, -1 } };
	waking(f, 1000004000, 0, 102, "c", 2, 100, false);
	f->next_ref = (struct sr_ref){ 0 };
	sw(f, 1000005000, 2, 0, "", 102, "c");
	sw(f, 1000006000, 2, 102, "c", 0, "");
	waking(f, 1000007000, 0, 102, "c", 2, 100, false);
	assert_true(f->ctx.rq[0].h_load_cached);
	assert_in_range(f->ctx.rq[0].h_load, 500, 524);
	fx_free(f);
}

/*
 * b sleeps on CPU 1, which stays idle: its root cfs_rq, the group entity
 * in it and the group's cfs_rq keep the load of that moment until the CPU's next update,
 * and that is what a placement 2 ms later reads — not the value decayed
 * since (about 4 % lower).
 */
static void test_idle_cpu_holds_group_load(void **state)
{
	struct fx *f = busy_group(NULL);
	const struct sr_tg_cpu *q;

	sw(f, 1000003000, 1, 101, "b", 0, "");
	sw(f, 1002002000, 2, 102, "c", 0, "");
	waking(f, 1002003000, 0, 102, "c", 2, 100, false);
	assert_int_equal(sr_st_cpu_k_time(&f->s, 1), 1000003000);
	q = &sr_state_task(&f->s, 101)->grp->cpu[1];
	assert_in_range(q->se_load_avg, q->se_weight - 3, q->se_weight);
	assert_int_equal(f->ctx.rq[1].group_load_avg, q->se_load_avg);
	/* so does the group's cfs_rq there, which task_h_load() divides by: b's load */
	assert_in_range(q->load_avg, 1010, 1024);
	fx_free(f);
}

/*
 * b sleeps on CPU 1: the dequeue reweights its group's entity there for
 * the last time (update_cfs_group(): about half the shares).  c, a root
 * task busy on CPU 2, then joins the group: tg->load_avg grows by its
 * load, but the blocked entity on CPU 1 keeps its weight, and a placement
 * reads CPU 1's root load at it — not at the third it would be now.
 */
static void test_blocked_entity_keeps_weight(void **state)
{
	struct fx *f = busy_group(NULL);
	const struct sr_tg_cpu *q;

	sw(f, 1000003000, 1, 101, "b", 0, "");
	attach(f, 1000004000, 102, 28);
	sw(f, 1000005000, 3, 103, "d", 0, "");
	waking(f, 1000006000, 0, 103, "d", 3, 100, false);
	q = &sr_state_task(&f->s, 101)->grp->cpu[1];
	assert_in_range(q->se_weight, 480, 530);
	assert_in_range(q->se_load_avg, q->se_weight - 10, q->se_weight);
	assert_int_equal(f->ctx.rq[1].group_load_avg, q->se_load_avg);
	/* a queued entity's weight is the current one: CPU 0's now a third */
	assert_in_range(sr_state_task(&f->s, 100)->grp->cpu[0].se_weight, 320, 360);
	fx_free(f);
}

/*
 * b, asleep on CPU 1, wakes onto CPU 3: its load leaves the group's cfs_rq
 * on CPU 1, now empty, and update_tg_cfs_load() leaves the group entity
 * there only its running sum, nothing of the group's load being left: the
 * root load a placement reads on CPU 1 drops from about half the shares to
 * about nothing.
 */
static void test_detach_empties_entity(void **state)
{
	struct fx *f = busy_group(NULL);

	sw(f, 1000003000, 1, 101, "b", 0, "");
	sw(f, 1000004000, 3, 103, "d", 0, "");
	waking(f, 1000005000, 0, 103, "d", 3, 100, false);
	assert_in_range(f->ctx.rq[1].group_load_avg, 470, 530);
	waking(f, 1000006000, 0, 101, "b", 3, 100, false);
	migrate(f, 1000006000, 0, 101, 1, 3, 100);
	wakeup(f, 1000007000, 0, 101, 3);
	sw(f, 1000008000, 3, 0, "", 101, "b");
	sw(f, 1000009000, 2, 102, "c", 0, "");
	waking(f, 1000010000, 0, 102, "c", 2, 100, false);
	assert_in_range(f->ctx.rq[1].group_load_avg, 0, 5);
	fx_free(f);
}

/*
 * b sleeps on CPU 1 for a second, its load decays to nearly nothing, then
 * runs there 1 ms and sleeps again.  The dequeue that empties the group's
 * cfs_rq reweights its entity by that small load_avg on 6.1; with
 * DELAY_DEQUEUE, 66951e4860d3 skips it and the entity keeps the weight of
 * the update before, taken while b was queued (its weight counted): about
 * half the shares.
 */
static unsigned long short_run_weight(bool delayed_dequeue)
{
	const struct sr_state_cfg cfg = { .delayed_dequeue = delayed_dequeue };
	struct fx *f = busy_group(&cfg);
	unsigned long w;

	sw(f, 1000003000, 1, 101, "b", 0, "");
	waking(f, 2000000000, 0, 101, "b", 1, 100, false);
	wakeup(f, 2000001000, 0, 101, 1);
	sw(f, 2000002000, 1, 0, "", 101, "b");
	sw(f, 2001002000, 1, 101, "b", 0, "");
	sw(f, 2001003000, 3, 103, "d", 0, "");
	waking(f, 2001004000, 0, 103, "d", 3, 100, false);
	w = sr_state_task(&f->s, 101)->grp->cpu[1].se_weight;
	fx_free(f);
	return w;
}

static void test_emptying_dequeue_by_era(void **state)
{
	assert_in_range(short_run_weight(false), 2, 60);
	assert_in_range(short_run_weight(true), 480, 530);
}

/*
 * c, a root task busy on CPU 2 for a second, joins the group: its load,
 * brought up to date, leaves the root's cfs_rq there for the group's.
 */
static void test_attach_moves_current_load(void **state)
{
	struct fx *f = busy_group(NULL);
	struct sr_group *g;

	attach(f, 1000004000, 102, 28);
	g = sr_state_task(&f->s, 102)->grp;
	assert_non_null(g);
	assert_int_equal(g->weight[2], 1024);
	assert_in_range(g->load[2], 1000.0, 1024.0);
	assert_true(f->s.cpu[2].load_avg < 30.0);
	fx_free(f);
}

/* The autogroup probe: setsid() puts the caller in a group of its own, nice 0, known. */
static void test_autogroup_probe(void **state)
{
	struct fx *f = fx_new();
	struct sr_task *t;

	sw(f, 1000, 0, 0, "", 100, "sh");
	ev(f, (struct sr_event){ .type = SR_EV_AUTOGROUP, .ts = 2000, .cpu = 0, .pid = 100,
				 .common_pid = -1 });
	t = sr_state_task(&f->s, 100);
	assert_non_null(t->grp);
	assert_int_equal(t->grp->tg.shares, 1024);
	assert_true(sr_st_group_known(&f->s, t));
	assert_int_equal(t->grp->weight[0], 1024);
	assert_int_equal(f->s.cpu[0].root_weight, 0);
	fx_free(f);
}

/*
 * b sleeps on CPU 1 and is woken onto CPU 0, where a runs: the enqueue
 * reweights the group's entity on CPU 0 (update_cfs_group()) to nearly
 * all the shares.  c then joins the group from CPU 2: tg->load_avg grows
 * by its load, but the entity on CPU 0 keeps its weight until a tick of a,
 * its running task, reweights it (a jiffy later at most, HZ 250 here): to
 * about two thirds, c's CPU taking the other third.
 */
static void test_queued_entity_holds_weight(void **state)
{
	struct fx *f = busy_group(NULL);
	const struct sr_tg_cpu *q = &sr_state_task(&f->s, 100)->grp->cpu[0];
	unsigned long held;

	wake_b_onto(f, 0);
	sw(f, 1000006000, 3, 103, "d", 0, "");
	waking(f, 1000007000, 0, 103, "d", 3, 100, false);
	held = q->se_weight;
	assert_in_range(held, 1000, 1024);
	attach(f, 1000008000, 102, 28);
	wakeup(f, 1000009000, 0, 103, 3);
	sw(f, 1000010000, 3, 0, "", 103, "d");
	sw(f, 1000011000, 3, 103, "d", 0, "");
	waking(f, 1000012000, 0, 103, "d", 3, 100, false);	/* 7 us after the enqueue */
	assert_int_equal(q->se_weight, held);
	assert_int_equal(f->ctx.rq[0].group_load_avg, q->se_load_avg);
	wakeup(f, 1005000000, 0, 103, 3);
	sw(f, 1005001000, 3, 0, "", 103, "d");
	sw(f, 1005002000, 3, 103, "d", 0, "");
	waking(f, 1005003000, 0, 103, "d", 3, 100, false);	/* 5 ms after */
	assert_in_range(q->se_weight, 640, 720);
	assert_in_range(f->ctx.rq[0].group_load_avg, 640, 720);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_and_shares),
		cmocka_unit_test(test_shares_by_era),
		cmocka_unit_test(test_weight_given),
		cmocka_unit_test(test_fork_and_root),
		cmocka_unit_test(test_member_given),
		cmocka_unit_test(test_autogroup_probe),
		cmocka_unit_test(test_migration_propagates),
		cmocka_unit_test(test_h_load_cache_holds_groups),
		cmocka_unit_test(test_idle_cpu_holds_group_load),
		cmocka_unit_test(test_attach_moves_current_load),
		cmocka_unit_test(test_blocked_entity_keeps_weight),
		cmocka_unit_test(test_detach_empties_entity),
		cmocka_unit_test(test_emptying_dequeue_by_era),
		cmocka_unit_test(test_queued_entity_holds_weight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
