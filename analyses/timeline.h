/* SPDX-License-Identifier: GPL-2.0 */
/* Private to analyses/: the per-CPU occupancy timeline.c records, for the pictures. */
#ifndef SR_TIMELINE_H
#define SR_TIMELINE_H

#include "analysis.h"

#define SR_TL_MAX_SEGS	200000		/* beyond, the picture says it was cut */

/* One CPU, one stretch with the same task current and the same queue length. */
struct sr_tl_seg {
	uint64_t start, end;
	int pid;			/* current task, 0 idle, -1 unknown */
	uint16_t cpu;
	uint16_t nr_running;
};

struct sr_tl_task {
	int pid;
	char comm[SR_COMM_LEN];
};

struct sr_timeline {
	uint64_t from, to;		/* the window asked */
	int pid;			/* explain: record until this task runs after @at ... */
	uint64_t at, margin;		/* ... and @margin more */
	uint64_t first, last;		/* what the trace had in it */
	int nr_cpus;
	struct sr_tl_seg *open;		/* per CPU: the stretch in progress (start 0: none) */
	struct sr_tl_seg *seg;
	size_t nr_seg, cap;
	bool truncated;
	struct sr_pidtab comms;		/* struct sr_tl_task: names of the tasks seen */
};

const char *sr_tl_comm(const struct sr_timeline *tl, int pid);

#endif /* SR_TIMELINE_H */
