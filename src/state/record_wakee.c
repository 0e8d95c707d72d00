// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/sched/fair.c: record_wakee(), 3.12 - 6.18.2 (unchanged; called from
 * task_waking_fair() up to 4.4, from select_task_rq_fair() since 4.9), and
 * the same counter evolved by Mel Gorman's "sched/fair: Couple wakee flips
 * with heavy wakers" (Oct 2021, never merged).  Runqueue state keeps these
 * counters; wake_wide() in replay/ reads them.
 *
 * Counters are unsigned int as in task_struct, so products wrap at 2^32 as they
 * do in the kernel.
 */
#include <errno.h>
#include <limits.h>
#include "state.h"

/* time_after(a, b): a is later than b, wrap-safe as the kernel's signed difference. */
static bool time_after_jiffies(uint64_t a, uint64_t b)
{
	return (int64_t)(b - a) < 0;
}

static int record_args_ok(const struct sr_task_view *waker, const struct sr_task_view *wakee,
			  unsigned int hz)
{
	if (!waker || !wakee || waker == wakee || !hz)
		return -EINVAL;
	return 0;
}

/*
 * The bounds on the kernel's counter (struct sr_task_view).  The trace
 * clock and jiffies tick at unknown phases to each other, so the kernel's
 * jiffies since the last decay may be one more or one less than ours: a
 * halving within a tick of the boundary may or may not have happened yet.
 */
static void bound_flips(struct sr_task_view *w, uint64_t jiffies, unsigned int hz, bool inc,
			bool sure)
{
	bool may = time_after_jiffies(jiffies + 1, w->wakee_flip_decay_ts + hz);
	bool must = time_after_jiffies(jiffies, w->wakee_flip_decay_ts + hz + 1);

	if (may)
		w->wakee_flips_min >>= 1;
	if (must)
		w->wakee_flips_max >>= 1;
	if (!inc)
		return;
	/* an unknown last_wakee may have been this wakee: no flip then */
	if (sure || w->wakee_flips_min == w->wakee_flips_max)
		w->wakee_flips_min++;
	if (w->wakee_flips_max < UINT_MAX)
		w->wakee_flips_max++;
}

int sr_record_wakee(struct sr_task_view *waker, struct sr_task_view *wakee, uint64_t jiffies,
		 unsigned int hz, int llc_size)
{
	int ret = record_args_ok(waker, wakee, hz);
	bool inc, known;	/* known: whether this wakee is the last one is known */

	if (ret)
		return ret;
	inc = waker->last_wakee != wakee->pid;
	known = waker->last_wakee || wakee->pid == waker->last_wakee_not;
	bound_flips(waker, jiffies, hz, inc, known);
	/*
	 * last_wakee 0: the pointer the task (or the ancestor it was forked
	 * from) held before the trace.  The estimate takes it to be this first
	 * wakee — an ambient wakee such as rcu_preempt, woken from softirq with
	 * any task current, is what most tasks last woke: on the --probes
	 * traces that record wakee_flips this makes the estimate exact for
	 * 85 - 91 % of the kernel's values instead of 2 - 26 %.
	 */
	if (!known) {
		waker->last_wakee = wakee->pid;
		inc = false;
	}
	/* One halving however long the gap: rare wakers never built up flips. */
	if (time_after_jiffies(jiffies, waker->wakee_flip_decay_ts + hz)) {
		waker->wakee_flips >>= 1;
		waker->wakee_flip_decay_ts = jiffies;
	}
	if (inc) {
		waker->last_wakee = wakee->pid;
		waker->wakee_flips++;
	}
	/* the bounds hold the estimate (a decay it made may be one the kernel has not) */
	if (waker->wakee_flips_min > waker->wakee_flips)
		waker->wakee_flips_min = waker->wakee_flips;
	if (waker->wakee_flips_max < waker->wakee_flips)
		waker->wakee_flips_max = waker->wakee_flips;
	return 0;
}

int sr_record_wakee_heavy(struct sr_task_view *waker, struct sr_task_view *wakee,
		       uint64_t jiffies, unsigned int hz, int llc_size)
{
	int ret = record_args_ok(waker, wakee, hz);
	unsigned int min;

	if (ret)
		return ret;
	if (llc_size < 1)
		return -EINVAL;
	/* Same decay test as record_wakee(), which moves the shared stamp afterwards. */
	if (time_after_jiffies(jiffies, waker->wakee_flip_decay_ts + hz))
		waker->wakee_flips_heavy >>= 1;
	if (waker->last_wakee == wakee->pid)
		return 0;
	/* The patch's "int min = sd_llc_size << 1", compared against unsigned flips. */
	min = (unsigned int)(llc_size << 1);
	/* A heavy waker lends its wakee a flip, so a decayed wakee still looks busy. */
	if (waker->wakee_flips_heavy > wakee->wakee_flips_heavy * min)
		wakee->wakee_flips_heavy++;
	waker->wakee_flips_heavy++;
	return 0;
}

/*
 * What the kernel's choices suggest: the count is at least @n now.  Only
 * the estimate moves: the bounds stay what the trace showed, so a decision
 * that turns on the difference still depends on wakee_flips.
 */
void sr_flips_at_least(struct sr_task_view *t, unsigned int n)
{
	if (t->wakee_flips_max < n)
		return;
	if (t->wakee_flips < n)
		t->wakee_flips = n;
}
