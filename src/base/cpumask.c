// SPDX-License-Identifier: GPL-2.0
/* CPU masks: counting the set bits; the CPUs this process may use. */
#define _GNU_SOURCE		/* sched_getaffinity */
#include <sched.h>
#include <unistd.h>
#include "base.h"

/*
 * Without -mpopcnt, __builtin_popcountll() is a libgcc call; the clone
 * picks the popcnt instruction at load time where the CPU has it.
 */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
/*
 * clang 14 emits no symbol for a target_clones function its unit does not
 * call; ThreadSanitizer instruments the resolver, which runs before it starts.
 */
__attribute__((target_clones("popcnt", "default")))
#endif
int sr_mask_weight(const struct sr_cpumask *m)
{
	int w = 0;

	for (int i = 0; i < m->nw; i++)
		w += __builtin_popcountll(m->bits[i]);
	return w;
}

int sr_cpus_allowed(void)
{
	cpu_set_t set;
	long n;

	/* EINVAL: the kernel's mask is wider than cpu_set_t (> 1024 CPUs) */
	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
