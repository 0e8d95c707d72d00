// SPDX-License-Identifier: GPL-2.0
/* --time, --pid, --comm, --cpu: which placements the analyses see. */
#include <string.h>
#include "analysis.h"

bool sr_filter_time(const struct sr_filter *f, uint64_t ts)
{
	return (!f->has_start || ts >= f->start_ns) && (!f->has_end || ts <= f->end_ns);
}

bool sr_filter_pass(const struct sr_filter *f, uint64_t ts, int pid, const char *comm, int cpu)
{
	if (!sr_filter_time(f, ts))
		return false;
	if (f->pid && pid != f->pid)
		return false;
	if (f->comm[0] && (!comm || strncmp(comm, f->comm, sizeof(f->comm))))
		return false;
	return !f->has_cpus || cpu < 0 || sr_mask_test(&f->cpus, cpu);
}
