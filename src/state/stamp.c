// SPDX-License-Identifier: GPL-2.0
/*
 * rq->idle_stamp, which find_idlest_group_cpu() (sched_balance_find_dst_group_cpu()
 * from 6.12) reads to prefer the most recently idled CPU.  sched_balance_newidle()
 * (newidle_balance() before 6.10) stamps it with rq_clock() on the way to idle,
 * unless a wakeup is pending (5.13+); ttwu_do_activate() clears it, forks and
 * migrations keep it.
 */
#include "state-priv.h"

void sr_st_idle_stamp(struct sr_state *s, int cpu, bool set, uint64_t ts)
{
	struct sr_rq *rq = &s->rq[cpu];

	/* 5.13+ (9c9f520a1467): newidle balance returns before stamping */
	if (set && rq->ttwu_pending && !s->cfg.newidle_stamps_pending)
		return;
	rq->idle_stamp = set ? ts : 0;
	rq->idle_stamp_known = true;
	rq->idle_stamp_dep = 0;
}
