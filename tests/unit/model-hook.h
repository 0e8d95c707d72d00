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

#endif
