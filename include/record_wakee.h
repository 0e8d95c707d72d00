/* SPDX-License-Identifier: GPL-2.0 */
/* record_wakee(): the waker/wakee flip bookkeeping the kernel keeps on tasks. */
#ifndef SR_RECORD_WAKEE_H
#define SR_RECORD_WAKEE_H

#include "policy.h"

/*
 * record_wakee() (3.12 -> 6.18): the waker's flip counter, decayed once (a
 * single halving) when more than @hz jiffies passed since its decay stamp.
 * Updates @waker's wakee_flips, wakee_flip_decay_ts and last_wakee; @wakee
 * is not modified.  Since 4.9 the kernel calls it only from
 * select_task_rq_fair(): not for pinned tasks (nr_cpus_allowed == 1), not
 * for the 5.8+ on_cpu wakelist shortcut.  The flow models read the flips
 * as given, so call this (and record_wakee_heavy(), first) before the
 * decision, as the kernel does.  Returns 0 or -EINVAL.
 */
int record_wakee(struct sr_task_view *waker, struct sr_task_view *wakee, uint64_t jiffies,
		 unsigned int hz, int llc_size);

/*
 * Seed 002's record_wakee() evolved on the wakee_flips_heavy counters: a
 * heavy waker (flips > wakee flips * 2 * @llc_size) passes one flip on to
 * its wakee.  It shares decay stamp and last_wakee with record_wakee() and
 * leaves them alone: call it first, then record_wakee(), for each wakeup.
 */
int record_wakee_heavy(struct sr_task_view *waker, struct sr_task_view *wakee,
		       uint64_t jiffies, unsigned int hz, int llc_size);

#endif /* SR_RECORD_WAKEE_H */
