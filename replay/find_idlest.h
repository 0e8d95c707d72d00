/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the fork/exec slow path (find_idlest_cpu-5.12.c and
 * find_idlest_group-5.7.c): the walk's context and its PELT comparisons.
 */
#ifndef SR_FIND_IDLEST_H
#define SR_FIND_IDLEST_H

#include "models-affine.h"
#include "models-sis.h"

struct fic {
	const struct sr_wake_ctx *ctx;
	const struct sr_topo *t;
	struct sr_trail *trail;
	struct sr_sis pred;		/* era predicates: available/sched-idle */
	unsigned int kver, sd_flag;
	bool used_pelt, relied_avail;
	bool idle_choice;		/* stamps chose between two or more idle CPUs */
	bool stamp_unknown;		/* ... one of them stamped before the trace */
	bool close_call;		/* a PELT comparison inside the estimate's error */
	bool delayed_dep;		/* delayed-dequeue sleepers could change a level's verdict */
	unsigned int stamp_turns;	/* inputs deciding an open stamp that could turn a pick */
};

/*
 * The state's PELT sums are estimates (ctx->load_error_pct): a comparison of
 * @a with @b closer than that could go the other way in the kernel.  Same
 * rule as wake_affine_weight()'s (replay/wake_affine-4.14.c), plus a floor:
 * the sums of idle CPUs are a few units whose relative error means nothing
 * (a dead task's average leaves at a moment the trace cannot pin).
 */
#define PELT_ABS_SLACK	32

static inline void pelt_cmp(struct fic *f, unsigned long a, unsigned long b)
{
	unsigned long big = a > b ? a : b, diff = a > b ? a - b : b - a;

	f->used_pelt = true;
	if (f->ctx->load_error_pct && (diff < PELT_ABS_SLACK || (double)diff * 100.0 <
				      (double)f->ctx->load_error_pct * (double)big))
		f->close_call = true;
}

static inline bool intersects_allowed(const struct fic *f, const struct sr_cpumask *m)
{
	int c;

	sr_for_each_cpu(c, m)
		if (!f->ctx->allowed || sr_mask_test(f->ctx->allowed, c))
			return true;
	return false;
}

/* find_idlest_group() at @cpu's domain @level; *out gets the idlest span when one wins. */
bool sr_fic_find_idlest_group(struct fic *f, int cpu, int level, struct sr_cpumask *out);

#endif
