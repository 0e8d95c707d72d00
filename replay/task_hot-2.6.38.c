// SPDX-License-Identifier: GPL-2.0
/*
 * task_hot() of kernel/sched.c, 2.6.37 - 3.0 (task_hot(p, now, sd); sd is
 * unused there), with the later rule changes picked by knobs.kver: from
 * 5.10 a task is never hot at an SMT level, from 6.6 (EEVDF, [U]) only the
 * next buddy counts; core-scheduling cookies (5.14+) are assumed absent.
 * The cache-hot tail of can_migrate_task(), 2.6.37 - 3.0.
 * task_hot_lazy() and the NO_HOT_AFFINE gate it serves are Paul Turner's
 * unmerged "sched: introduce sched_feat(NO_HOT_AFFINE)", patch 3/3 of Paul
 * Turner's "wake_afine fixes/improvements" (Jan 2011, against 2.6.38-rc).
 */
#include <errno.h>
#include <limits.h>
#include "models-2637.h"

/*
 * sysctl_sched_migration_cost is an unsigned int set through
 * proc_dointvec: -1 is stored as UINT_MAX and means "always hot".
 */
static int migration_cost_2638(const struct sr_policy *pol, unsigned int *cost)
{
	int64_t v = pol->knobs.migration_cost_ns;

	if (v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*cost = (unsigned int)(int)v;
	return 0;
}

/* CACHE_HOT_BUDDY (default on): a buddy is hot while the destination has work. */
static bool buddy_hot_2638(const struct sr_policy *pol, const struct sr_hot_in *in,
			   struct sr_trail *t)
{
	/* EEVDF dropped the last buddy. */
	bool last = in->last_buddy && pol->knobs.kver < SR_KV(6, 6);
	bool hot = in->dst_nr_running && (in->next_buddy || last);
	const char *res;
	struct sr_step *st;

	if (hot)
		res = "buddy: hot";
	else
		res = in->buddy_assumed ? "not a buddy (assumed)" : "not a buddy";
	st = sr_trail_add(t, "task_hot",
			  "this_rq()->nr_running && (p == cfs_rq->next || p == cfs_rq->last)",
			  res, -1);
	sr_step_uval(st, "dst_nr_running", in->dst_nr_running);
	sr_step_val(st, "next", in->next_buddy);
	sr_step_val(st, "last", last);
	return hot;
}

/* The policy rules that make a task cold before any timing is looked at. */
static bool never_hot_2638(const struct sr_policy *pol, const struct sr_hot_in *in,
			   struct sr_trail *t)
{
	if (in->policy == SR_SCHED_RT) {
		sr_trail_add(t, "task_hot", "p->sched_class != &fair_sched_class", "cold", -1);
		return true;
	}
	if (in->policy == SR_SCHED_IDLE) {
		sr_trail_add(t, "task_hot", "p->policy == SCHED_IDLE", "cold", -1);
		return true;
	}
	if (pol->knobs.kver >= SR_KV(5, 10) && (in->sd_flags & SD_SHARE_CPUCAPACITY)) {
		sr_trail_add(t, "task_hot", "env->sd->flags & SD_SHARE_CPUCAPACITY",
			     "SMT level: cold", -1);
		return true;
	}
	return false;
}

int sr_task_hot_2638(const struct sr_policy *pol, const struct sr_hot_in *in, uint64_t now,
		  struct sr_trail *t)
{
	unsigned int cost;
	int64_t delta;
	struct sr_step *st;
	int hot;

	if (!pol || !in || !t || migration_cost_2638(pol, &cost))
		return -EINVAL;
	if (never_hot_2638(pol, in, t))
		return 0;
	if (buddy_hot_2638(pol, in, t))
		return 1;
	if (cost == UINT_MAX || cost == 0) {
		st = sr_trail_add(t, "task_hot", "sysctl_sched_migration_cost == -1 / == 0",
				  cost ? "-1: hot" : "0: cold", -1);
		sr_step_uval(st, "migration_cost", cost);
		return cost != 0;
	}
	delta = (int64_t)(now - in->exec_start);
	hot = delta < (int64_t)cost;
	st = sr_trail_add(t, "task_hot", "now - p->se.exec_start < sysctl_sched_migration_cost",
			  hot ? "hot" : "cold", -1);
	sr_step_uval(st, "now", now);
	sr_step_uval(st, "exec_start", in->exec_start);
	sr_step_val(st, "delta", delta);
	sr_step_uval(st, "migration_cost", cost);
	return hot;
}

int sr_task_hot_lazy_2638(const struct sr_policy *pol, const struct sr_hot_in *in,
		       uint64_t clock_task, uint64_t now, struct sr_trail *t)
{
	struct sr_step *st;
	int ret;

	/* The stale clock is never ahead: cold there means cold now. */
	ret = sr_task_hot_2638(pol, in, clock_task, t);
	if (ret <= 0)
		return ret;
	st = sr_trail_add(t, "task_hot_lazy", "task_hot(p, rq->clock_task) at the stale clock",
			  "hot: update_rq_clock() and test again", -1);
	sr_step_uval(st, "clock_task", clock_task);
	sr_step_uval(st, "now", now);
	return sr_task_hot_2638(pol, in, now, t);
}

int sr_task_hot_lazy_wakee_2638(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			     struct sr_decision *d)
{
	const struct sr_task_view *p = ctx->p;
	struct sr_hot_in in = {
		.policy = p->policy,
		/* exec_start is refreshed by update_curr() when the task stops running. */
		.exec_start = p->last_switch_out,
		/* Exact for a sleeper: dequeue_entity() cleared its buddy marks. */
		.buddy_assumed = true,
		.dst_nr_running = ctx->rq[ctx->this_cpu].nr_running,
	};

	sr2637_note_rq(ctx, d, ctx->this_cpu);
	/*
	 * task_rq(p)'s clock was last updated at some unknown time between
	 * exec_start and now; the result does not depend on which, so take
	 * the oldest and let the trail show both tests.
	 */
	return sr_task_hot_lazy_2638(pol, &in, in.exec_start, ctx->now, &d->trail);
}

int sr_can_migrate_task_hot_2637(int hot, unsigned int nr_balance_failed,
			      unsigned int cache_nice_tries, struct sr_trail *t)
{
	const char *res;
	struct sr_step *st;
	int ok;

	if (hot < 0 || !t)
		return -EINVAL;
	ok = !hot || nr_balance_failed > cache_nice_tries;
	if (!hot)
		res = "cold: migrate";
	else
		res = ok ? "hot, too many failed balances: migrate" : "hot: keep";
	st = sr_trail_add(t, "can_migrate_task",
			  "!task_hot() || sd->nr_balance_failed > sd->cache_nice_tries", res, -1);
	sr_step_val(st, "hot", hot);
	sr_step_uval(st, "nr_balance_failed", nr_balance_failed);
	sr_step_uval(st, "cache_nice_tries", cache_nice_tries);
	return ok;
}
