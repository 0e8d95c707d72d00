// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/sched/pelt.c: decay_load() and runnable_avg_yN_inv[] (generated
 * into kernel/sched/sched-pelt.h), identical in 6.1.192 and 6.12.117; the
 * constant-time form is Paul Turner's commit 5b51f2f80b3b "sched: Make
 * __update_entity_runnable_avg() fast" (3.8), moved to pelt.c by commit
 * c079629862b2 (4.19).  y^n in 32-bit fixed point: y^32 = 1/2, so whole
 * halvings are a shift and the rest one multiply by y^(n % 32).
 *
 * The state's averages are continuous in time; the kernel decays only at
 * period boundaries (1024 * 1024 ns) and adds a partial period linearly
 * (accumulate_sum()), so the part of a period here decays linearly too:
 * 1 - (1 - y) * fraction.  No floating-point exp on the per-event path.
 */
#include "state-priv.h"

#define LOAD_AVG_PERIOD		32
#define PELT_PERIOD_SHIFT	20	/* a period: 1024 units of 1024 ns */

static const uint32_t runnable_avg_yN_inv[LOAD_AVG_PERIOD] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
	0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
	0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
	0x85aac367, 0x82cd8698,
};

/* val * y^n, as the kernel computes it. */
uint64_t sr_pelt_decay_load(uint64_t val, uint64_t n)
{
	if (n > LOAD_AVG_PERIOD * 63)
		return 0;
	if (n >= LOAD_AVG_PERIOD) {
		val >>= n / LOAD_AVG_PERIOD;
		n %= LOAD_AVG_PERIOD;
	}
	/* mul_u64_u32_shr() */
	return (uint64_t)(((unsigned __int128)val * runnable_avg_yN_inv[n]) >> 32);
}

double sr_pelt_decay(uint64_t dt)
{
	uint64_t periods = dt >> PELT_PERIOD_SHIFT;
	uint64_t part = dt & ((1ULL << PELT_PERIOD_SHIFT) - 1);
	uint64_t one = 1ULL << 32, d;

	if (!dt)
		return 1.0;
	d = sr_pelt_decay_load(one, periods);
	/* the partial period: 1 - (1 - y) * part / period, in 32-bit fixed point */
	d -= (uint64_t)(((unsigned __int128)d * (one - runnable_avg_yN_inv[1]) * part) >>
			(32 + PELT_PERIOD_SHIFT));
	return (double)d / (double)one;
}
