// SPDX-License-Identifier: GPL-2.0
/*
 * Preset registry and policy specs.
 *
 * Feature defaults are kernel/sched/features.h (sched_features.h before 3.3)
 * of each version, read in the releases 2.6.37.6, 2.6.38, 4.14.177, 4.19.304,
 * 5.4.59, 5.10, 5.11, 5.15, 6.0, 6.1.192, 6.12.117 and 6.18.2: SIS_AVG_CPU
 * until 5.11, SIS_UTIL on and SIS_PROP off from 6.0 (commit 70fb5ccf2ebb,
 * "sched/fair: Introduce SIS_UTIL to search idle CPU based on sum of util_avg"),
 * SIS_PROP gone by 6.8.  TTWU_QUEUE is the !PREEMPT_RT default.
 *
 * Values that no kernel fixes, chosen here:
 *  - hot_imbalance_pct = 150: Paul Turner ("[wake_afine fixes/improvements 0/3]",
 *    Jan 2011) proposes raising
 *    the imbalance_pct "required for a hot task rather than blocking the move
 *    entirely" (Mike Galbraith's objection to NO_HOT_AFFINE: a perturbed
 *    ping-pong pair would never come back together) and names no number.  150
 *    doubles the 25% margin of the 2.6.38 MC domain (125), between stock
 *    behaviour and NO_HOT_AFFINE's outright refusal.
 *  - sis_min_loops = 2: sis_min_cores of Mel Gorman's "sched/fair: Make
 *    select_idle_cpu() proportional to cores" (patch 3/5 of "Scan for an idle
 *    sibling in a single pass" v3, Jan 2021, dropped): "a min of 2 loops
 *    instead of 4", before it is scaled by the SMT weight.
 *  - sis_avg_scan_cost_ns = 2000: sd->avg_scan_cost is never traced; 2 us is
 *    the order of one scan of a 16-CPU LLC (docs/models.md, W15).  Results
 *    that depend on it carry SR_DEP_SCAN_COST.
 *  - migration_cost_ns = 500000: sysctl_sched_migration_cost in every version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "models.h"
#include "policy.h"

#define F_2637	(SR_F_AFFINE_WAKEUPS | SR_F_LB_BIAS)
#define F_WA	(SR_F_WA_IDLE | SR_F_WA_WEIGHT | SR_F_WA_BIAS | SR_F_TTWU_QUEUE)
#define F_414	(F_WA | SR_F_SIS_PROP | SR_F_LB_BIAS)
#define F_54	(F_WA | SR_F_SIS_PROP)
#define F_60	(F_WA | SR_F_SIS_UTIL)

#define KNOBS(kv, feat, ag) { .kver = (kv), .features = (feat), \
	.migration_cost_ns = 500000, .hot_imbalance_pct = 150, .sis_min_loops = 2, \
	.sis_avg_scan_cost_ns = 2000, .autogroup = (ag) }

#define SIS_C	"select_idle_sibling(4.9 three-pass)"
#define SIS_D	"select_idle_sibling(5.12 single-pass)"
#define SIS_E	"select_idle_sibling(6.0 SIS_UTIL)"
#define WA_416	"wake_wide(galbraith) + wake_affine_idle/weight(4.16)"
#define WA_510	"wake_wide(galbraith) + wake_affine_idle/weight(5.10 prev-idle, load_avg)"

struct preset_entry {
	struct sr_preset p;
	unsigned int kver_last;		/* newest release the model family covers; 0: open */
};

static const struct preset_entry presets[] = {
	{ { "linux-2.6.37", "2.6.37",
	    "wake_affine(2.6.37, unsigned) + effective_load(S/rw/s) + select_idle_sibling(2.6.37)",
	    "2.6.37: pre-Turner effective_load, unsigned loads, no autogroup", false,
	    &sr_srqf_2637_ops, KNOBS(SR_KV3(2, 6, 37), F_2637, false) }, SR_KV3(2, 6, 37) },
	{ { "linux-2.6.38", "2.6.38-3.0",
	    "wake_affine(2.6.38, s64) + effective_load(Turner) + select_idle_sibling(2.6.37)",
	    "2.6.38: Paul Turner's effective_load rewrite (977dda7c9b54), autogroup", false,
	    &sr_srqf_2638_ops, KNOBS(SR_KV3(2, 6, 38), F_2637, true) }, SR_KV(3, 0) },
	{ { "linux-2.6.38+no-hot-affine", "2.6.38-3.0",
	    "linux-2.6.38 + task_hot_lazy() gate on want_affine (NO_HOT_AFFINE)",
	    "2.6.38 + Turner's NO_HOT_AFFINE (2011, unmerged): no affine wakeup of a hot task", true,
	    &sr_srqf_2638_ops, KNOBS(SR_KV3(2, 6, 38), F_2637 | SR_F_NO_HOT_AFFINE, true) }, 0 },
	{ { "linux-2.6.38+hot-imbalance", "2.6.38-3.0",
	    "linux-2.6.38 + hot_imbalance_pct in wake_affine for hot wakees (HOT_IMBALANCE)",
	    "2.6.38 + Turner's unwritten alternative (2011): other imbalance_pct when hot",
	    true, &sr_srqf_2638_ops, KNOBS(SR_KV3(2, 6, 38), F_2637 | SR_F_HOT_IMBALANCE, true) },
	  0 },
	{ { "linux-4.14", "4.14-4.18",
	    "wake_wide(galbraith) + wake_affine_idle/weight(4.14 bool, <=) + " SIS_C,
	    "4.14: Peter Zijlstra's wake_affine rewrite, ties go to the waker", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(4, 14), F_414, true) }, 0 },
	{ { "linux-4.19", "4.19-5.3",
	    WA_416 " + wake_cap + " SIS_C " + recent_used_cpu",
	    "4.19: CPU-returning wake_affine, idle prev kept, sync +1 tie-break", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(4, 19), F_414, true) }, 0 },
	{ { "linux-5.4", "5.4-5.9",
	    WA_416 " (cpu_runnable_load) + " SIS_C " + sched_idle_cpu",
	    "5.4: cpu_load[] gone, runnable_load_avg loads, SCHED_IDLE CPUs count as idle", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(5, 4), F_54, true) }, 0 },
	{ { "linux-5.10", "5.10", WA_510 " + " SIS_C,
	    "5.10: wake_affine_idle keeps an idle prev, cpu_load includes blocked load", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(5, 10), F_54, true) }, 0 },
	{ { "linux-5.11", "5.11", WA_510 " + " SIS_C " (asym after prev/recent)",
	    "5.11: last three-pass select_idle_sibling (SIS_AVG_CPU still present, off)", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(5, 11), F_54, true) }, 0 },
	{ { "linux-5.12", "5.12-5.14", WA_510 " + " SIS_D,
	    "5.12: Mel Gorman's single-pass idle scan (\"Scan for an idle sibling in a single pass\")", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(5, 12), F_54, true) }, 0 },
	{ { "linux-5.12+sis-smt-weight", "5.12-5.14",
	    WA_510 " + " SIS_D " scanning cores (sched_smt_weight, sis_min_loops)",
	    "5.12 + Gorman's dropped patch: select_idle_cpu() depth proportional to cores", true,
	    &sr_srqf_414_ops, KNOBS(SR_KV(5, 12), F_54 | SR_F_SIS_SMT_WEIGHT, true) }, 0 },
	{ { "linux-5.15", "5.15-5.19", WA_510 " + " SIS_D " (wake_avg_idle aging)",
	    "5.15: SIS_PROP budget from the aged wake_avg_idle", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(5, 15), F_54, true) }, 0 },
	{ { "linux-5.16+wakee-heavy", "5.16-5.19",
	    "wake_wide(heavy) + record_wakee(heavy) + wake_affine_idle/weight(5.10) + " SIS_D,
	    "5.16 + Gorman's \"Couple wakee flips with heavy wakers\" (2021, unmerged)", true,
	    &sr_srqf_414_ops, KNOBS(SR_KV(5, 16), F_54 | SR_F_WAKEE_HEAVY, true) }, 0 },
	{ { "linux-6.0", "6.0", WA_510 " + " SIS_E,
	    "6.0: SIS_UTIL replaces SIS_PROP (default off)", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(6, 0), F_60, true) }, 0 },
	{ { "linux-6.1", "6.1-6.5", WA_510 " + " SIS_E,
	    "6.1 LTS: SIS_UTIL idle scan", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(6, 1), F_60, true) }, 0 },
	{ { "linux-6.6", "6.6-6.7", WA_510 " + " SIS_E " + clusters",
	    "6.6 LTS: EEVDF, cluster-first idle scan", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(6, 6), F_60, true) }, 0 },
	{ { "linux-6.8", "6.8-6.11", WA_510 " + " SIS_E " + select_idle_smt(6.8)",
	    "6.8: SIS_PROP removed", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(6, 8), F_60, true) }, 0 },
	{ { "linux-6.12", "6.12-6.17", WA_510 " + " SIS_E " + sched_balance_find_dst_cpu",
	    "6.12 LTS: delayed dequeue; the sync test ignores delayed tasks from 6.12.37", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(6, 12), F_60, true) }, 0 },
	{ { "linux-6.18", "6.18-",
	    "wake_wide(galbraith) + wake_affine_idle(6.16 delayed-aware sync)/weight + " SIS_E,
	    "6.18: wake_affine_idle's sync test ignores delayed-dequeue entities", false,
	    &sr_srqf_414_ops, KNOBS(SR_KV(6, 18), F_60, true) }, 0 },
	/* Baselines, no kernel: never picked for a release (patched = true). */
	{ { "naive-prev", "-", "prev_cpu", "baseline: the task stays where it last ran", true,
	    &sr_naive_prev_ops, KNOBS(0, 0, false) }, 0 },
	{ { "naive-waker", "-", "this_cpu", "baseline: every wakeup is pulled to the waker's CPU",
	    true, &sr_naive_waker_ops, KNOBS(0, 0, false) }, 0 },
	{ { "naive-idle-first", "-", "idle prev, else idle waker CPU, else first idle CPU",
	    "baseline: the first idle CPU, prev and the waker's first", true,
	    &sr_naive_idle_first_ops, KNOBS(0, 0, false) }, 0 },
};

#define FEAT(n, bit, lo, hi, desc) { n, SR_KNOB_FEATURE, bit, 0, 0, 0, 1, lo, hi, desc }
#define INTK(n, field, mn, mx, lo, hi, desc) { n, SR_KNOB_INT, 0, \
	offsetof(struct sr_knobs, field), sizeof(((struct sr_knobs *)0)->field), \
	mn, mx, lo, hi, desc }

#define KV_OLD	SR_KV3(2, 6, 37)

static const struct sr_knob_desc knobs[] = {
	FEAT("WA_IDLE", SR_F_WA_IDLE, SR_KV(4, 14), 0,
	     "wake_affine_idle(): idle or sync-alone waker CPU, idle prev"),
	FEAT("WA_WEIGHT", SR_F_WA_WEIGHT, SR_KV(4, 14), 0,
	     "wake_affine_weight(): load comparison of waker and prev CPU"),
	FEAT("WA_BIAS", SR_F_WA_BIAS, SR_KV(4, 14), 0,
	     "wake_affine_weight(): imbalance_pct bias towards prev"),
	FEAT("SIS_PROP", SR_F_SIS_PROP, SR_KV(4, 13), SR_KV(6, 6),
	     "select_idle_cpu() depth from avg_idle / avg_scan_cost"),
	FEAT("SIS_UTIL", SR_F_SIS_UTIL, SR_KV(6, 0), 0,
	     "select_idle_cpu() depth from LLC utilisation (nr_idle_scan)"),
	FEAT("SIS_AVG_CPU", SR_F_SIS_AVG_CPU, SR_KV(4, 11), SR_KV(5, 11),
	     "select_idle_cpu() gives up when avg_idle < avg_scan_cost"),
	FEAT("TTWU_QUEUE", SR_F_TTWU_QUEUE, SR_KV(3, 0), 0,
	     "remote wakeups through the target's wakelist (IPI)"),
	FEAT("LB_BIAS", SR_F_LB_BIAS, KV_OLD, SR_KV(5, 3),
	     "source_load()/target_load() bias with cpu_load[] indexes"),
	FEAT("AFFINE_WAKEUPS", SR_F_AFFINE_WAKEUPS, KV_OLD, SR_KV(3, 0),
	     "2.6.3x: allow affine wakeups at all"),
	FEAT("NO_HOT_AFFINE", SR_F_NO_HOT_AFFINE, SR_KV3(2, 6, 38), SR_KV(3, 0),
	     "Turner, sched_feat(NO_HOT_AFFINE), 2011, unmerged: no affine wakeup of a hot task"),
	FEAT("HOT_IMBALANCE", SR_F_HOT_IMBALANCE, SR_KV3(2, 6, 38), SR_KV(3, 0),
	     "Turner's unwritten alternative, 2011: hot wakees use hot_imbalance_pct"),
	FEAT("WAKEE_HEAVY", SR_F_WAKEE_HEAVY, SR_KV(4, 14), 0,
	     "Gorman, Couple wakee flips with heavy wakers, 2021, unmerged: wider wake_wide"),
	FEAT("SIS_SMT_WEIGHT", SR_F_SIS_SMT_WEIGHT, SR_KV(5, 12), SR_KV(5, 19),
	     "Gorman, select_idle_cpu() proportional to cores, 2021, dropped: sis_min_loops"),
	FEAT("LLC_IMBALANCE", SR_F_LLC_IMBALANCE, SR_KV(6, 0), 0,
	     "Wu, allow imbalance between LLCs under NUMA, 2025, unmerged"),
	INTK("migration_cost", migration_cost_ns, -1, INT32_MAX, KV_OLD, 0,
	     "sysctl_sched_migration_cost, ns (-1: always hot)"),
	INTK("hot_imbalance_pct", hot_imbalance_pct, 100, 1000, SR_KV3(2, 6, 38), SR_KV(3, 0),
	     "HOT_IMBALANCE: imbalance_pct applied to a hot wakee"),
	INTK("sis_min_loops", sis_min_loops, 1, SR_MAX_CPUS, SR_KV(5, 12), SR_KV(5, 19),
	     "SIS_SMT_WEIGHT: minimum select_idle_cpu() loops before SMT scaling"),
	INTK("sis_avg_scan_cost", sis_avg_scan_cost_ns, 0, 1000000000, SR_KV(4, 9), SR_KV(6, 6),
	     "assumed sd->avg_scan_cost, ns (SIS_PROP / SIS_AVG_CPU)"),
	INTK("autogroup", autogroup, 0, 1, SR_KV3(2, 6, 38), 0,
	     "kernel.sched_autogroup_enabled"),
	INTK("vcpu_pack", vcpu_pack, 0, 15, SR_KV(6, 18), 0,
	     "sched_vcpu_pack of the 6.18.44-fc guest kernel, not mainline: 8 fork/exec stay, "
	     "1 idle waker keeps, 2 sync to this CPU, 4 pack onto busy CPUs with room"),
};

size_t sr_preset_count(void)
{
	return SR_ARRAY_SIZE(presets);
}

const struct sr_preset *sr_preset_at(size_t i)
{
	return i < SR_ARRAY_SIZE(presets) ? &presets[i].p : NULL;
}

const struct sr_preset *sr_preset_find(const char *name)
{
	for (size_t i = 0; name && i < SR_ARRAY_SIZE(presets); i++)
		if (!strcmp(presets[i].p.name, name))
			return &presets[i].p;
	return NULL;
}

size_t sr_knob_count(void)
{
	return SR_ARRAY_SIZE(knobs);
}

const struct sr_knob_desc *sr_knob_at(size_t i)
{
	return i < SR_ARRAY_SIZE(knobs) ? &knobs[i] : NULL;
}

const struct sr_knob_desc *sr_knob_find(const char *name)
{
	for (size_t i = 0; name && i < SR_ARRAY_SIZE(knobs); i++)
		if (!strcmp(knobs[i].name, name))
			return &knobs[i];
	return NULL;
}

bool sr_knob_applies(const struct sr_knob_desc *k, unsigned int kver)
{
	return k && kver >= k->kver_min && (!k->kver_max || kver <= k->kver_max);
}

/*
 * The one place that knows how an integer knob is stored: read (@v NULL)
 * or write (@v given) the field of @kn that @k names, as int64_t.
 */
static int knob_field(struct sr_knobs *kn, const struct sr_knob_desc *k, int64_t *out,
		      const int64_t *v)
{
	char *field = (char *)kn + k->offset;

	switch (k->size) {
	case sizeof(bool):
		if (v)
			*(bool *)field = *v;
		*out = *(bool *)field;
		return 0;
	case sizeof(int):
		if (v)
			*(int *)field = (int)*v;
		*out = *(int *)field;
		return 0;
	case sizeof(int64_t):
		if (v)
			*(int64_t *)field = *v;
		*out = *(int64_t *)field;
		return 0;
	}
	return -EINVAL;
}

int sr_knob_get(const struct sr_knobs *knobs_in, const struct sr_knob_desc *k, int64_t *val)
{
	if (!knobs_in || !k || !val)
		return -EINVAL;
	if (k->kind == SR_KNOB_FEATURE) {
		*val = !!(knobs_in->features & k->feature);
		return 0;
	}
	/* read-only use of the accessor: no value is written */
	return knob_field((struct sr_knobs *)knobs_in, k, val, NULL);
}

int sr_knob_set(struct sr_knobs *kn, const struct sr_knob_desc *k, int64_t v)
{
	int64_t now;

	if (v < k->min || v > k->max)
		return -EINVAL;
	if (k->kind == SR_KNOB_FEATURE) {
		kn->features = v ? kn->features | k->feature : kn->features & ~k->feature;
		return 0;
	}
	return knob_field(kn, k, &now, &v);
}

/* Nearest unpatched preset at or below @kv whose model family still covers @kv. */
static const struct preset_entry *preset_for_kver(unsigned int kv)
{
	const struct preset_entry *best = NULL;

	for (size_t i = 0; i < SR_ARRAY_SIZE(presets); i++) {
		const struct preset_entry *e = &presets[i];

		if (e->p.patched || e->p.knobs.kver > kv)
			continue;
		if (!best || e->p.knobs.kver > best->p.knobs.kver)
			best = e;
	}
	if (best && best->kver_last && kv > best->kver_last)
		return NULL;
	return best;
}

const char *sr_preset_for_release(const char *uname_release)
{
	const struct preset_entry *e;
	unsigned int kv;

	if (!uname_release)
		return NULL;
	kv = sr_release_kv(uname_release);
	e = kv ? preset_for_kver(kv) : NULL;
	return e ? e->p.name : NULL;
}

static void policy_set(struct sr_policy *pol, const struct sr_preset *p)
{
	memset(pol, 0, sizeof(*pol));
	snprintf(pol->name, sizeof(pol->name), "%s", p->name);
	pol->preset = p->name;
	pol->kernel_range = p->kernel_range;
	pol->ops = p->ops;
	pol->knobs = p->knobs;
}

/* A preset by name, else a release ("6.1.12", "linux-6.3") on its nearest preset. */
static int policy_from_name(struct sr_policy *pol, const char *name)
{
	const struct sr_preset *p = sr_preset_find(name);
	const struct preset_entry *e;
	unsigned int kv;

	if (p) {
		policy_set(pol, p);
		return 0;
	}
	if (!strncmp(name, "linux-", 6))
		name += 6;
	kv = sr_release_kv(name);
	e = kv ? preset_for_kver(kv) : NULL;
	if (!e)
		return -EINVAL;
	policy_set(pol, &e->p);
	pol->knobs.kver = kv;
	if ((kv >> 16) == 2)
		snprintf(pol->name, sizeof(pol->name), "linux-2.6.%u", kv & 0xff);
	else
		snprintf(pol->name, sizeof(pol->name), "linux-%u.%u", kv >> 16, (kv >> 8) & 0xff);
	return 0;
}

/* "KNOB=VALUE": a decimal value in the knob's range, for a knob of this kernel. */
static int apply_override(struct sr_policy *pol, char *tok, struct sr_err *err)
{
	char *eq = strchr(tok, '='), *end;
	const struct sr_knob_desc *k;
	long long v;

	if (!eq || eq == tok || !eq[1])
		return sr_err_set(err, -EINVAL, "'%s' is not KNOB=VALUE", tok);
	*eq = '\0';
	k = sr_knob_find(tok);
	if (!k)
		return sr_err_set(err, -EINVAL, "unknown knob '%s' (knobs are case-sensitive; see "
				  "'schedreplay policies')", tok);
	if (!sr_knob_applies(k, pol->knobs.kver))
		return sr_err_set(err, -EINVAL, "knob %s does not exist in the kernel %s models",
				  tok, pol->name);
	errno = 0;
	v = strtoll(eq + 1, &end, 10);
	if (errno || *end || sr_knob_set(&pol->knobs, k, v))
		return sr_err_set(err, -EINVAL, "knob %s takes %lld..%lld, not '%s'", tok,
				  (long long)k->min, (long long)k->max, eq + 1);
	return 0;
}

int sr_policy_parse(struct sr_policy *pol, const char *spec, struct sr_err *err)
{
	struct sr_policy tmp;
	char buf[512], *opts, *tok, *save = NULL;
	size_t len;
	int ret;

	if (!pol || !spec || strlen(spec) >= sizeof(buf))
		return sr_err_set(err, -EINVAL, "a policy spec of at most %zu characters",
				  sizeof(buf) - 1);
	strcpy(buf, spec);
	opts = strchr(buf, ':');
	if (opts)
		*opts++ = '\0';
	if (policy_from_name(&tmp, buf))
		return sr_err_set(err, -EINVAL, "unknown policy '%s': neither a preset nor a "
				  "modelled release (see 'schedreplay policies')", buf);
	len = strlen(tmp.name);
	/* the label keeps the overrides as given: "linux-6.1:WA_IDLE=0" */
	if (opts && snprintf(tmp.name + len, sizeof(tmp.name) - len, "%s",
			     spec + (opts - 1 - buf)) >= (int)(sizeof(tmp.name) - len))
		return sr_err_set(err, -EINVAL, "policy spec '%s' is too long", spec);
	/* strtok_r would skip empty fields: "NAME:" or a stray comma is a typo, not a no-op. */
	for (tok = opts; tok; tok = save) {
		save = strchr(tok, ',');
		if (save)
			*save++ = '\0';
		ret = apply_override(&tmp, tok, err);
		if (ret)
			return ret;
	}
	*pol = tmp;
	return 0;
}

int sr_policy_from_spec(struct sr_policy *pol, const char *spec)
{
	return sr_policy_parse(pol, spec, NULL);
}
