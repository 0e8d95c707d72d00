// SPDX-License-Identifier: GPL-2.0
/* The kernel's nice -> load weight table. */
#include "base.h"

/* sched_prio_to_weight[]: unchanged from 2.6.37 through 6.18. */
static const unsigned long prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
};

unsigned long sr_prio_to_weight(int prio)
{
	if (prio < 100 || prio > 139)
		return 0;
	return prio_to_weight[prio - 100];
}
