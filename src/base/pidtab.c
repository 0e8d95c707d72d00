// SPDX-License-Identifier: GPL-2.0
/* Per-pid tables : see include/base.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base.h"

void *sr_pidtab_slot(const struct sr_pidtab *t, size_t i)
{
	return (char *)t->slots + i * t->elsize;
}

static int *pid_at(void *slots, size_t elsize, size_t i)
{
	return (int *)((char *)slots + i * elsize);
}

static size_t probe(void *slots, size_t elsize, size_t n, int pid)
{
	size_t i = sr_pidtab_hash(pid, n);

	while (*pid_at(slots, elsize, i) && *pid_at(slots, elsize, i) != pid)
		i = (i + 1) & (n - 1);
	return i;
}

int sr_pidtab_init(struct sr_pidtab *t, size_t elsize)
{
	t->elsize = elsize;
	t->nr_slots = 256;
	t->used = 0;
	t->slots = calloc(t->nr_slots, elsize);
	return t->slots ? 0 : -ENOMEM;
}

static int grow(struct sr_pidtab *t)
{
	size_t n = t->nr_slots * 2;
	void *s = calloc(n, t->elsize);

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_slots; i++) {
		int pid = *pid_at(t->slots, t->elsize, i);

		if (pid)
			memcpy(pid_at(s, t->elsize, probe(s, t->elsize, n, pid)),
			       sr_pidtab_slot(t, i), t->elsize);
	}
	free(t->slots);
	t->slots = s;
	t->nr_slots = n;
	return 0;
}

void *sr_pidtab_find(const struct sr_pidtab *t, int pid)
{
	size_t i;

	if (pid <= 0 || !t->slots)
		return NULL;
	i = probe(t->slots, t->elsize, t->nr_slots, pid);
	return *pid_at(t->slots, t->elsize, i) ? sr_pidtab_slot(t, i) : NULL;
}

void *sr_pidtab_get_slow(struct sr_pidtab *t, int pid)
{
	int *slot;

	if (pid <= 0)
		return NULL;
	if ((t->used + 1) * 2 > t->nr_slots && grow(t))
		return NULL;
	slot = pid_at(t->slots, t->elsize, probe(t->slots, t->elsize, t->nr_slots, pid));
	if (!*slot) {
		*slot = pid;
		t->used++;
	}
	return slot;
}

void sr_pidtab_free(struct sr_pidtab *t)
{
	free(t->slots);
	t->slots = NULL;
}
