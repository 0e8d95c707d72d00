// SPDX-License-Identifier: GPL-2.0
/* The analyses compiled in, in report order. */
#include "analysis.h"

extern const struct sr_analysis_ops sr_divergence_analysis;
extern const struct sr_analysis_ops sr_latency_analysis;
extern const struct sr_analysis_ops sr_cache_hot_analysis;
extern const struct sr_analysis_ops sr_work_conservation_analysis;
extern const struct sr_analysis_ops sr_decisions_analysis;
extern const struct sr_analysis_ops sr_rows_analysis;
extern const struct sr_analysis_ops sr_diff_analysis;
extern const struct sr_analysis_ops sr_explain_analysis;
extern const struct sr_analysis_ops sr_perfetto_analysis;
extern const struct sr_analysis_ops sr_tasks_analysis;

static const struct sr_analysis_ops *const all[] = {
	&sr_divergence_analysis,
	&sr_cache_hot_analysis,
	&sr_latency_analysis,
	&sr_tasks_analysis,
	&sr_work_conservation_analysis,
	&sr_decisions_analysis,
	&sr_rows_analysis,
	&sr_diff_analysis,
	&sr_explain_analysis,
	&sr_timeline_analysis,
	&sr_perfetto_analysis,
	NULL,	/* end marker; not counted */
};

const struct sr_analysis_ops *const *sr_analyses(int *nr)
{
	*nr = (int)SR_ARRAY_SIZE(all) - 1;
	return all;
}
