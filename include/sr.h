/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common definitions shared by every layer of schedreplay: error
 * conventions, CPU masks, load-weight constants.
 *
 * Library code returns 0 or a negative errno; only main() exits.
 */
#ifndef SR_H
#define SR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SR_MAX_CPUS	1024
#define SR_MASK_WORDS	(SR_MAX_CPUS / 64)

/* Load of a nice-0 task in the kernel's scaled-down unit. */
#define SR_NICE_0_LOAD	1024UL
#define SR_WEIGHT_IDLEPRIO 3UL
#define SR_CAPACITY_SCALE 1024UL

#define SR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct sr_cpumask {
	uint64_t bits[SR_MASK_WORDS];
};

static inline void sr_mask_clear(struct sr_cpumask *m)
{
	memset(m, 0, sizeof(*m));
}

static inline void sr_mask_set(struct sr_cpumask *m, int cpu)
{
	m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline void sr_mask_unset(struct sr_cpumask *m, int cpu)
{
	m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool sr_mask_test(const struct sr_cpumask *m, int cpu)
{
	if (cpu < 0 || cpu >= SR_MAX_CPUS)
		return false;
	return m->bits[cpu / 64] & (1ULL << (cpu % 64));
}

int sr_mask_weight(const struct sr_cpumask *m);
/* Next set CPU at or after @cpu, or -1. */
int sr_mask_next(const struct sr_cpumask *m, int cpu);
/* First set CPU, or -1. */
static inline int sr_mask_first(const struct sr_cpumask *m)
{
	return sr_mask_next(m, 0);
}

#define sr_for_each_cpu(cpu, m) \
	for ((cpu) = sr_mask_first(m); (cpu) >= 0; (cpu) = sr_mask_next(m, (cpu) + 1))

/*
 * Kernel nice -> weight table (sched_prio_to_weight[], identical in every
 * version from 2.6.37 to 6.18).  @prio is the kernel prio (100..139 for
 * CFS tasks); RT/DL prios return 0 (they add no CFS load).
 */
unsigned long sr_prio_to_weight(int prio);

#endif /* SR_H */
