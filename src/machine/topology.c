// SPDX-License-Identifier: GPL-2.0
/*
 * The topology model: sched-domain levels derived the way
 * sd_init()/build_sched_domains() would (SMT, MC (LLC), DIE/PKG, NODE,
 * NUMA; a level whose span equals its child's degenerates), a flat machine,
 * lookups models use, SD flag names and the names of sources.  Built from
 * a spec (topology-spec.c), a snapshot (load*.c) or JSON (topology-json-*.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine-priv.h"

/* ------------------------------------------------------------ flag names */

static const struct {
	unsigned int flag;
	const char *name;
} sd_names[] = {
	{ SD_LOAD_BALANCE, "SD_LOAD_BALANCE" },
	{ SD_BALANCE_NEWIDLE, "SD_BALANCE_NEWIDLE" },
	{ SD_BALANCE_EXEC, "SD_BALANCE_EXEC" },
	{ SD_BALANCE_FORK, "SD_BALANCE_FORK" },
	{ SD_BALANCE_WAKE, "SD_BALANCE_WAKE" },
	{ SD_WAKE_AFFINE, "SD_WAKE_AFFINE" },
	{ SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUCAPACITY" },
	{ SD_SHARE_PKG_RESOURCES, "SD_SHARE_PKG_RESOURCES" },
	{ SD_SERIALIZE, "SD_SERIALIZE" },
	{ SD_ASYM_PACKING, "SD_ASYM_PACKING" },
	{ SD_PREFER_SIBLING, "SD_PREFER_SIBLING" },
	{ SD_NUMA, "SD_NUMA" },
	{ SD_ASYM_CPUCAPACITY, "SD_ASYM_CPUCAPACITY" },
	{ SD_PREFER_LOCAL, "SD_PREFER_LOCAL" },
	{ SD_OVERLAP, "SD_OVERLAP" },
	{ SD_SHARE_POWERDOMAIN, "SD_SHARE_POWERDOMAIN" },
	{ SD_POWERSAVINGS_BALANCE, "SD_POWERSAVINGS_BALANCE" },
	{ SD_CLUSTER, "SD_CLUSTER" },
	{ SD_ASYM_CPUCAPACITY_FULL, "SD_ASYM_CPUCAPACITY_FULL" },
	/* Spellings of other kernels; lookups by bit find ours first. */
	{ SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUPOWER" },
	{ SD_SHARE_PKG_RESOURCES, "SD_SHARE_LLC" },
};

const char *sr_sd_flag_name(unsigned int flag)
{
	for (size_t i = 0; i < SR_ARRAY_SIZE(sd_names); i++)
		if (sd_names[i].flag == flag)
			return sd_names[i].name;
	return NULL;
}

unsigned int sr_sd_flag_by_name(const char *name)
{
	for (size_t i = 0; i < SR_ARRAY_SIZE(sd_names); i++)
		if (!strcmp(sd_names[i].name, name))
			return sd_names[i].flag;
	return 0;
}

bool sr_sd_add_unknown(struct sr_domain *sd, const char *name)
{
	size_t used = strlen(sd->unknown_flags), len = sizeof(sd->unknown_flags);

	if (used + strlen(name) + (used ? 1 : 0) >= len)
		return false;
	snprintf(sd->unknown_flags + used, len - used, "%s%s", used ? " " : "", name);
	return true;
}

/* ------------------------------------------------------------ derivation */

unsigned int sr_sd_default_pct(enum sr_topo_era era, unsigned int flags)
{
	if (flags & SD_SHARE_CPUCAPACITY)
		return 110;
	if (flags & SD_SHARE_PKG_RESOURCES)
		return era == SR_ERA_2637 ? 125 : 117;
	return era == SR_ERA_2637 || era == SR_ERA_316 ? 125 : 117;
}

static struct sr_domain *add_level(struct sr_cpu_topo *c, const char *name, unsigned int flags,
				   enum sr_topo_era era, const struct sr_cpumask *span)
{
	struct sr_domain *sd;
	int w = sr_mask_weight(span);

	/* Degenerate: a level no wider than its child adds nothing. */
	if (w <= 1 || (c->nr_levels && c->sd[c->nr_levels - 1].span_weight >= (unsigned int)w))
		return NULL;
	if (c->nr_levels == SR_MAX_LEVELS)
		return NULL;
	sd = &c->sd[c->nr_levels++];
	*sd = (struct sr_domain){ .origin = SR_SD_DERIVED };
	snprintf(sd->name, sizeof(sd->name), "%s", name);
	sd->flags = SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC |
		    SD_BALANCE_FORK | SD_WAKE_AFFINE | flags;
	/*
	 * sd_init() since 3.16 prefers siblings on every level but NUMA; the
	 * 2.6.3x SD_*_INIT did so from MC up (sched_mc_power_savings off).
	 */
	if (!(flags & SD_NUMA) && (era != SR_ERA_2637 || !(flags & SD_SHARE_CPUCAPACITY)))
		sd->flags |= SD_PREFER_SIBLING;
	sd->imbalance_pct = sr_sd_default_pct(era, sd->flags);
	sd->span = *span;
	sd->span_weight = w;
	return sd;
}

int sr_key_package(const struct sr_cpu_topo *c)
{
	return c->package_id;
}

int sr_key_node(const struct sr_cpu_topo *c)
{
	return c->node;
}

void sr_topo_group(const struct sr_topo *t, int cpu, sr_topo_key key, struct sr_cpumask *m,
		   int *built)
{
	int k = key(&t->cpu[cpu]);

	if (*built == k)
		return;
	sr_mask_clear(m);
	for (int o = 0; o < t->nr_cpus; o++)
		if (key(&t->cpu[o]) == k)
			sr_mask_set(m, o);
	*built = k;
}

/* x86_has_numa_in_package: some node is narrower than its package. */
static bool numa_in_package(const struct sr_topo *t)
{
	struct sr_cpumask pkg = { .nw = 0 }, node = { .nw = 0 };
	int pkg_key = INT_MIN, node_key = INT_MIN;

	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		sr_topo_group(t, cpu, sr_key_package, &pkg, &pkg_key);
		sr_topo_group(t, cpu, sr_key_node, &node, &node_key);
		if (!sr_mask_subset(&pkg, &node))
			return true;
	}
	return false;
}

/* Smallest node distance above @above (sched_domains_numa_distance[]), or 0. */
static int next_distance(const struct sr_topo *t, int above)
{
	int best = 0;

	for (int a = 0; a < t->nr_nodes; a++)
		for (int b = 0; b < t->nr_nodes; b++) {
			int d = t->node_distance[a][b];

			if (d > above && (!best || d < best))
				best = d;
		}
	return best;
}

static void numa_span(const struct sr_topo *t, int node, int dist, struct sr_cpumask *m)
{
	sr_mask_clear(m);
	for (int o = 0; o < t->nr_cpus; o++) {
		int d = t->node_distance[node][t->cpu[o].node];

		if (d && d <= dist)
			sr_mask_set(m, o);
	}
}

static void derive_numa(struct sr_topo *t, struct sr_cpu_topo *c, enum sr_topo_era era)
{
	struct sr_cpumask span;

	for (int d = next_distance(t, 10); d; d = next_distance(t, d)) {
		struct sr_domain *sd;

		numa_span(t, c->node, d, &span);
		/* NUMA levels overlap (SDTL_OVERLAP) since 3.x; 2.6.3x had node levels instead. */
		sd = add_level(c, "NUMA", SD_NUMA | SD_SERIALIZE |
			       (era == SR_ERA_2637 ? 0 : SD_OVERLAP), era, &span);
		/* Beyond RECLAIM_DISTANCE (30) a NUMA level takes no fork/exec/wake placement. */
		if (sd && d > 30)
			sd->flags &= ~(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);
	}
}

void sr_topo_derive(struct sr_topo *t, enum sr_topo_era era, const char *pkg_name)
{
	bool snc = numa_in_package(t);
	struct sr_cpumask pkg = { .nw = 0 }, node = { .nw = 0 };
	int pkg_key = INT_MIN, node_key = INT_MIN;

	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];

		sr_topo_group(t, cpu, sr_key_package, &pkg, &pkg_key);
		sr_topo_group(t, cpu, sr_key_node, &node, &node_key);
		c->nr_levels = 0;
		add_level(c, "SMT", SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES, era, &c->smt);
		add_level(c, "MC", SD_SHARE_PKG_RESOURCES, era, &c->llc);
		/* Several nodes in one package (SNC): x86 drops the package level. */
		if (!snc)
			add_level(c, pkg_name, SD_PREFER_SIBLING, era, &pkg);
		add_level(c, "NODE", SD_PREFER_SIBLING, era, &node);
		derive_numa(t, c, era);
	}
	sr_topo_set_llc(t);
}

void sr_topo_set_llc(struct sr_topo *t)
{
	t->smt_max = 1;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];
		int smt = sr_mask_weight(&c->smt);

		if (!sr_mask_test(&c->llc, cpu))
			sr_mask_set(&c->llc, cpu);
		c->llc_id = sr_mask_first(&c->llc);
		c->llc_size = sr_mask_weight(&c->llc);
		if (smt > t->smt_max)
			t->smt_max = smt;
	}
}

int sr_topo_alloc(struct sr_topo *t, int nr_cpus)
{
	memset(t, 0, sizeof(*t));
	if (nr_cpus < 1 || nr_cpus > SR_MAX_CPUS)
		return -EINVAL;
	t->cpu = calloc(nr_cpus, sizeof(*t->cpu));
	if (!t->cpu)
		return -ENOMEM;
	t->nr_cpus = nr_cpus;
	for (int i = 0; i < nr_cpus; i++)
		sr_mask_set(&t->possible, i);
	return 0;
}

int sr_topo_flat(struct sr_topo *t, int nr_cpus, enum sr_topo_era era)
{
	char spec[32];
	int ret;

	if (nr_cpus < 1 || nr_cpus > SR_MAX_CPUS)
		return -EINVAL;
	snprintf(spec, sizeof(spec), "cpus=%d", nr_cpus);
	ret = sr_topo_from_spec(t, spec, era);
	if (!ret)
		t->source = SR_TOPO_ASSUMED_FLAT;
	return ret;
}

void sr_topo_free(struct sr_topo *t)
{
	free(t->cpu);
	t->cpu = NULL;
	t->nr_cpus = 0;
}

void sr_topo_cache_asym(struct sr_topo *t)
{
	t->asym_cached = 1;
	for (int c = 0; c < t->nr_cpus; c++)
		if (sr_lowest_flag_domain(t, c, SD_ASYM_CPUCAPACITY))
			t->asym_cached = 2;
}

const struct sr_domain *sr_lowest_flag_domain(const struct sr_topo *t, int cpu,
					      unsigned int flags)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];

	for (int i = 0; i < c->nr_levels; i++)
		if ((c->sd[i].flags & flags) == flags)
			return &c->sd[i];
	return NULL;
}

enum sr_cpu_relation sr_topo_relation(const struct sr_topo *t, int a, int b)
{
	if (t->cpu[a].core_id == t->cpu[b].core_id && t->cpu[a].package_id == t->cpu[b].package_id)
		return SR_REL_SAME_CORE;
	if (sr_cpus_share_cache(t, a, b))
		return SR_REL_SAME_LLC;
	return t->cpu[a].node == t->cpu[b].node ? SR_REL_CROSS_LLC : SR_REL_CROSS_NODE;
}

const char *sr_relation_name(enum sr_cpu_relation r)
{
	static const char *const names[SR_REL_NR] = {
		"same_core", "same_llc", "cross_llc", "cross_node",
	};

	return (unsigned int)r < SR_REL_NR ? names[r] : "invalid";
}

/* ------------------------------------------------------------ names */

static const char *const source_names[] = {
	[SR_TOPO_ASSUMED_FLAT] = "assumed-flat", [SR_TOPO_SPEC] = "spec",
	[SR_TOPO_SYSFS] = "sysfs", [SR_TOPO_DEBUGFS] = "debugfs", [SR_TOPO_JSON] = "json",
};

static const char *const origin_names[] = {
	[SR_SD_DERIVED] = "derived", [SR_SD_DEBUGFS] = "debugfs", [SR_SD_SYSCTL] = "sysctl",
};

static const char *const item_names[SR_MI_NR] = {
	[SR_MI_VERSION] = "version", [SR_MI_CPUS] = "cpus", [SR_MI_CACHES] = "caches",
	[SR_MI_NODES] = "nodes", [SR_MI_DOMAINS] = "domains", [SR_MI_SPANS] = "spans",
	[SR_MI_FEATURES] = "sched_features", [SR_MI_MIGRATION_COST] = "migration_cost_ns",
	[SR_MI_AUTOGROUP] = "autogroup",
};

const char *sr_topo_source_name(enum sr_topo_source s)
{
	return (unsigned int)s < SR_ARRAY_SIZE(source_names) ? source_names[s] : "unknown";
}

const char *sr_sd_origin_name(enum sr_sd_origin o)
{
	return (unsigned int)o < SR_ARRAY_SIZE(origin_names) ? origin_names[o] : "unknown";
}

int sr_sd_origin_by_name(const char *name)
{
	for (int i = 0; name && i < (int)SR_ARRAY_SIZE(origin_names); i++)
		if (!strcmp(name, origin_names[i]))
			return i;
	return -1;
}

const char *sr_machine_item_name(enum sr_machine_item i)
{
	return (unsigned int)i < SR_MI_NR ? item_names[i] : "unknown";
}
