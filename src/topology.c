// SPDX-License-Identifier: GPL-2.0
/*
 * Topology built from a spec or assumed flat, with sched-domain levels
 * derived the way sd_init()/build_sched_domains() would: SMT, MC (LLC),
 * DIE/PKG, NUMA; a level whose span equals its child's degenerates.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "topology.h"

struct topo_spec {
	int sockets, llcs, cores, threads, nodes, distance;
	bool split_smt;			/* siblings are n and n + nr_cpus/threads */
};

static int spec_set(struct topo_spec *s, const char *key, long v)
{
	static const struct { const char *name; size_t off; } keys[] = {
		{ "sockets", offsetof(struct topo_spec, sockets) },
		{ "llcs-per-socket", offsetof(struct topo_spec, llcs) },
		{ "cores-per-llc", offsetof(struct topo_spec, cores) },
		{ "threads", offsetof(struct topo_spec, threads) },
		{ "nodes", offsetof(struct topo_spec, nodes) },
		{ "numa-distance", offsetof(struct topo_spec, distance) },
	};

	if (v < 1 || v > SR_MAX_CPUS)
		return -EINVAL;
	for (size_t i = 0; i < SR_ARRAY_SIZE(keys); i++) {
		if (!strcmp(key, keys[i].name)) {
			*(int *)((char *)s + keys[i].off) = (int)v;
			return 0;
		}
	}
	return -EINVAL;
}

static int spec_parse(struct topo_spec *s, const char *spec)
{
	char buf[256], *save = NULL, *tok;
	int cpus = 0;

	*s = (struct topo_spec){ 1, 1, 1, 1, 0, 20, false };
	if (!spec || strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		long v;

		if (!eq)
			return -EINVAL;
		*eq = '\0';
		if (!strcmp(tok, "smt-numbering")) {
			if (strcmp(eq + 1, "adjacent") && strcmp(eq + 1, "split"))
				return -EINVAL;
			s->split_smt = !strcmp(eq + 1, "split");
			continue;
		}
		v = strtol(eq + 1, &end, 10);
		if (*end || end == eq + 1)
			return -EINVAL;
		if (!strcmp(tok, "cpus")) {
			if (v < 1 || v > SR_MAX_CPUS)
				return -EINVAL;
			cpus = (int)v;
			continue;
		}
		if (spec_set(s, tok, v))
			return -EINVAL;
	}
	if (cpus) {
		if (s->sockets * s->llcs * s->threads != 1)
			return -EINVAL;
		s->cores = cpus;
	}
	if (!s->nodes)
		s->nodes = s->sockets;
	if ((s->sockets * s->llcs) % s->nodes)
		return -EINVAL;
	if ((long)s->sockets * s->llcs * s->cores * s->threads > SR_MAX_CPUS || s->nodes > 64)
		return -EINVAL;
	return 0;
}

static unsigned int era_pct(enum sr_topo_era era, const char *level)
{
	if (!strcmp(level, "SMT"))
		return 110;
	if (!strcmp(level, "MC"))
		return era == SR_ERA_2637 ? 125 : 117;
	return era == SR_ERA_511 ? 117 : 125;
}

static void add_level(struct sr_cpu_topo *c, const char *name, unsigned int flags,
		      enum sr_topo_era era, const struct sr_cpumask *span)
{
	struct sr_domain *sd;
	int w = sr_mask_weight(span);

	/* Degenerate: a level no wider than its child adds nothing. */
	if (w <= 1 || (c->nr_levels && c->sd[c->nr_levels - 1].span_weight >= (unsigned int)w))
		return;
	if (c->nr_levels == SR_MAX_LEVELS)
		return;
	sd = &c->sd[c->nr_levels++];
	snprintf(sd->name, sizeof(sd->name), "%s", name);
	sd->flags = SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC |
		    SD_BALANCE_FORK | SD_WAKE_AFFINE | flags;
	sd->imbalance_pct = era_pct(era, name);
	sd->span = *span;
	sd->span_weight = w;
}

static int topo_alloc(struct sr_topo *t, int nr_cpus)
{
	memset(t, 0, sizeof(*t));
	t->cpu = calloc(nr_cpus, sizeof(*t->cpu));
	if (!t->cpu)
		return -ENOMEM;
	t->nr_cpus = nr_cpus;
	for (int i = 0; i < nr_cpus; i++)
		sr_mask_set(&t->possible, i);
	return 0;
}

/* Core index (0..ncores-1) and thread of a CPU number. */
static void cpu_place(const struct topo_spec *s, int cpu, int *core, int *thread)
{
	int ncores = s->sockets * s->llcs * s->cores;

	if (s->split_smt) {
		*core = cpu % ncores;
		*thread = cpu / ncores;
	} else {
		*core = cpu / s->threads;
		*thread = cpu % s->threads;
	}
}

static void build_levels(struct sr_topo *t, const struct topo_spec *s, enum sr_topo_era era)
{
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];
		struct sr_cpumask pkg, node;

		sr_mask_clear(&pkg);
		sr_mask_clear(&node);
		for (int o = 0; o < t->nr_cpus; o++) {
			if (t->cpu[o].package_id == c->package_id)
				sr_mask_set(&pkg, o);
			if (t->cpu[o].node == c->node)
				sr_mask_set(&node, o);
		}
		add_level(c, "SMT", SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES, era, &c->smt);
		add_level(c, "MC", SD_SHARE_PKG_RESOURCES, era, &c->llc);
		/* Several nodes in one package (SNC): x86 drops the package level. */
		if (s->nodes <= s->sockets)
			add_level(c, "DIE", SD_PREFER_SIBLING, era, &pkg);
		else
			add_level(c, "NODE", SD_PREFER_SIBLING, era, &node);
		add_level(c, "NUMA", SD_NUMA | SD_SERIALIZE, era, &t->possible);
		/* Beyond RECLAIM_DISTANCE (30) a NUMA level takes no fork/exec/wake placement. */
		if (s->distance > 30 && c->nr_levels &&
		    (c->sd[c->nr_levels - 1].flags & SD_NUMA))
			c->sd[c->nr_levels - 1].flags &=
				~(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);
	}
}

int sr_topo_from_spec(struct sr_topo *t, const char *spec, enum sr_topo_era era)
{
	struct topo_spec s;
	int nr, ret, llcs_per_node;

	ret = spec_parse(&s, spec);
	if (ret)
		return ret;
	nr = s.sockets * s.llcs * s.cores * s.threads;
	ret = topo_alloc(t, nr);
	if (ret)
		return ret;
	t->source = SR_TOPO_SPEC;
	t->nr_nodes = s.nodes;
	llcs_per_node = s.sockets * s.llcs / s.nodes;
	for (int a = 0; a < s.nodes; a++)
		for (int b = 0; b < s.nodes; b++)
			t->node_distance[a][b] = a == b ? 10 : s.distance;
	for (int cpu = 0; cpu < nr; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];
		int core, thread, llc;

		cpu_place(&s, cpu, &core, &thread);
		llc = core / s.cores;
		c->core_id = core;
		c->package_id = llc / s.llcs;
		c->node = llc / llcs_per_node;
		c->llc_id = -1;
		(void)thread;	/* siblings share core_id; the thread index is implied */
	}
	for (int cpu = 0; cpu < nr; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];

		for (int o = 0; o < nr; o++) {
			if (t->cpu[o].core_id == c->core_id)
				sr_mask_set(&c->smt, o);
			if (t->cpu[o].core_id / s.cores == c->core_id / s.cores)
				sr_mask_set(&c->llc, o);
		}
		c->llc_id = sr_mask_first(&c->llc);
		c->llc_size = sr_mask_weight(&c->llc);
	}
	build_levels(t, &s, era);
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

const struct sr_domain *sr_lowest_flag_domain(const struct sr_topo *t, int cpu,
					      unsigned int flags)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];

	for (int i = 0; i < c->nr_levels; i++)
		if ((c->sd[i].flags & flags) == flags)
			return &c->sd[i];
	return NULL;
}

const struct sr_domain *sr_highest_flag_domain(const struct sr_topo *t, int cpu,
					       unsigned int flags)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];
	const struct sr_domain *hit = NULL;

	/* Like the kernel: stop at the first level lacking the flags. */
	for (int i = 0; i < c->nr_levels; i++) {
		if ((c->sd[i].flags & flags) != flags)
			break;
		hit = &c->sd[i];
	}
	return hit;
}
