/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small open-addressed table keyed by pid for analyses that keep
 * something per task (O(tasks)).  Elements are any struct whose first
 * member is `int pid`; pid 0 marks an empty slot.
 */
#ifndef SR_PIDTAB_H
#define SR_PIDTAB_H

#include <stddef.h>

struct sr_pidtab {
	void *slots;
	size_t elsize, nr_slots, used;
};

int sr_pidtab_init(struct sr_pidtab *t, size_t elsize);
/* The element for @pid, created zeroed if new; NULL on ENOMEM or pid <= 0. */
void *sr_pidtab_get(struct sr_pidtab *t, int pid);
/* The element for @pid, or NULL. */
void *sr_pidtab_find(const struct sr_pidtab *t, int pid);
/* Element @i of the slot array (may be empty: pid 0), for sorting and listing. */
void *sr_pidtab_slot(const struct sr_pidtab *t, size_t i);
void sr_pidtab_free(struct sr_pidtab *t);

#endif /* SR_PIDTAB_H */
