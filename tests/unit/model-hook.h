/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A state placement hook that runs one policy (@data, a struct sr_policy)
 * and hands its answer on as src/run/run.c does: for unit tests that run
 * the whole path, events -> state -> model.
 */
#ifndef SR_TEST_MODEL_HOOK_H
#define SR_TEST_MODEL_HOOK_H

#include <stdlib.h>
#include "models.h"

static inline int fx_model_hook(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
				struct sr_ref *ref)
{
	struct sr_policy *pol = data;
	struct sr_decision *d = calloc(1, sizeof(*d));

	(void)ref;
	assert_non_null(d);
	assert_int_equal(sr_policy_decide_quiet(pol, ctx, d), 0);
	dec[0] = (struct sr_brief){ .cpu = (int16_t)d->cpu, .alt_cpu = (int16_t)d->alt_cpu,
				    .decided_by = (uint8_t)d->decided_by,
				    .determined = d->determined, .sync_assumed = d->sync_assumed,
				    .depends = (uint32_t)d->depends };
	free(d);
	return 0;
}

/*
 * The reference's hook, as src/run/run.c runs the recorded kernel's model:
 * its answer handed on, and the ref the state follows once the kernel's
 * choice is seen (sr_policy_ref()).  @data: a struct fx_ref_run.
 */
struct fx_ref_run {
	struct sr_policy pol;
	struct sr_decision d;		/* the last answer */
	struct sr_brief *decp;		/* the briefs the state holds (depends as it left them) */
};

static inline int fx_ref_hook(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
			      struct sr_ref *ref)
{
	struct fx_ref_run *r = data;

	assert_int_equal(sr_policy_decide_quiet(&r->pol, ctx, &r->d), 0);
	dec[0] = (struct sr_brief){ .cpu = (int16_t)r->d.cpu, .alt_cpu = (int16_t)r->d.alt_cpu,
				    .decided_by = (uint8_t)r->d.decided_by,
				    .determined = r->d.determined, .depends = r->d.depends };
	r->decp = dec;
	sr_policy_ref(&r->pol, ctx, &r->d, ref);
	return 0;
}

#endif
