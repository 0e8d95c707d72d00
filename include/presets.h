/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Named policies: a kernel version (optionally plus an unmerged patch) as a
 * model family (ops), the kernel version it selects variants by, and the
 * sched_features / sysctl values of that kernel.  Users pick one with a spec
 * "NAME[:KNOB=VALUE,...]", where NAME is a preset ("linux-6.1",
 * "linux-5.16+wakee-heavy") or a bare release ("6.1.12", "6.1.0-27-amd64",
 * "linux-6.3"): the nearest unpatched preset at or below it, with kver set to
 * the release's own major.minor so the era variants follow the real kernel.
 */
#ifndef SR_PRESETS_H
#define SR_PRESETS_H

#include <stddef.h>
#include "policy.h"

/* 2.6.x kernels keep their third number in SR_KV's low byte: 2.6.37 < 2.6.38 < 3.0. */
#define SR_KV3(major, minor, sub) (SR_KV(major, minor) | (sub))

struct sr_preset {
	const char *name;		/* "linux-6.1", "linux-2.6.38+no-hot-affine" */
	const char *kernel_range;	/* releases it stands for, e.g. "6.1-6.5" */
	const char *parts;		/* which model functions, by era */
	const char *description;	/* one line */
	bool patched;			/* carries an unmerged patch: never picked for a release */
	const struct sr_policy_ops *ops;
	struct sr_knobs knobs;
};

enum sr_knob_kind {
	SR_KNOB_FEATURE,		/* a bit of sr_knobs.features; values 0/1 */
	SR_KNOB_INT,			/* an integer field of struct sr_knobs */
};

struct sr_knob_desc {
	const char *name;		/* as written in a spec: "WA_BIAS", "migration_cost" */
	enum sr_knob_kind kind;
	unsigned int feature;		/* SR_KNOB_FEATURE: enum sr_feature bit */
	size_t offset;			/* SR_KNOB_INT: offsetof(struct sr_knobs, field) */
	size_t size;			/* SR_KNOB_INT: sizeof the field (bool, int, int64_t) */
	int64_t min, max;		/* accepted values */
	unsigned int kver_min;		/* the knob exists (and a model reads it) in */
	unsigned int kver_max;		/*   kernels kver_min..kver_max (0: no upper end) */
	const char *description;
};

/* Presets and knobs in listing order; _at() returns NULL past the end. */
size_t sr_preset_count(void);
const struct sr_preset *sr_preset_at(size_t i);
const struct sr_preset *sr_preset_find(const char *name);
size_t sr_knob_count(void);
const struct sr_knob_desc *sr_knob_at(size_t i);
const struct sr_knob_desc *sr_knob_find(const char *name);

/* Whether @k exists for a policy modelling kernel @kver. */
bool sr_knob_applies(const struct sr_knob_desc *k, unsigned int kver);
/* Current value of @k in @knobs (features as 0/1).  0 or -EINVAL. */
int sr_knob_get(const struct sr_knobs *knobs, const struct sr_knob_desc *k, int64_t *val);
/* Set @k in @knobs (features take 0/1).  0, or -EINVAL when @v is out of range. */
int sr_knob_set(struct sr_knobs *knobs, const struct sr_knob_desc *k, int64_t v);

/*
 * Fill @pol from a spec such as "linux-6.1:WA_BIAS=0,migration_cost=250000".
 * Unknown preset or knob, a knob absent from that kernel, a value out of
 * range or malformed: -EINVAL, @pol untouched.
 */
int sr_policy_from_spec(struct sr_policy *pol, const char *spec);

/*
 * The unpatched preset a `uname -r` release maps to ("6.18.44-fc-v782" ->
 * "linux-6.18", "2.6.38-rc1" -> "linux-2.6.38"), or NULL when it is older
 * than anything modelled or falls in a gap (3.1 - 4.13).
 */
const char *sr_preset_for_release(const char *uname_release);

#endif /* SR_PRESETS_H */
