// SPDX-License-Identifier: GPL-2.0
/* CPU masks: counting and walking the set bits. */
#include "base.h"

int sr_mask_weight(const struct sr_cpumask *m)
{
	int w = 0;

	for (int i = 0; i < SR_MASK_WORDS; i++)
		if (m->bits[i])		/* most words are empty: skip the popcount */
			w += __builtin_popcountll(m->bits[i]);
	return w;
}

int sr_mask_next(const struct sr_cpumask *m, int cpu)
{
	if (cpu < 0)
		cpu = 0;
	while (cpu < SR_MAX_CPUS) {
		uint64_t word = m->bits[cpu / 64] >> (cpu % 64);

		if (word)
			return cpu + __builtin_ctzll(word);
		cpu = (cpu / 64 + 1) * 64;
	}
	return -1;
}
