// SPDX-License-Identifier: GPL-2.0
/*
 * A machine from a short spec, "sockets=2,llcs-per-socket=2,cores-per-llc=4,threads=2",
 * numbered as QEMU numbers vCPUs (threads of a core adjacent) unless
 * "smt-numbering=split".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine-priv.h"

/* ------------------------------------------------------------ specs */

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
	if ((long)s->sockets * s->llcs * s->cores * s->threads > SR_MAX_CPUS ||
	    s->nodes > SR_MAX_NODES || s->distance <= 10 || s->distance > 255)
		return -EINVAL;
	return 0;
}

/* Core index (0..ncores-1) of a CPU number. */
static int cpu_core(const struct topo_spec *s, int cpu)
{
	int ncores = s->sockets * s->llcs * s->cores;

	return s->split_smt ? cpu % ncores : cpu / s->threads;
}

/* Until sr_topo_set_llc() gives it the kernel's meaning, llc_id is the LLC's index. */
static int key_llc_index(const struct sr_cpu_topo *c)
{
	return c->llc_id;
}

static void spec_place(struct sr_topo *t, const struct topo_spec *s)
{
	int llcs_per_node = s->sockets * s->llcs / s->nodes;
	int cores_per_pkg = s->llcs * s->cores, ncores = s->sockets * s->llcs * s->cores;
	int llc_key = INT_MIN;
	struct sr_cpumask llc;

	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];
		int core = cpu_core(s, cpu), llc_index = core / s->cores;

		c->core_id = core;
		c->sys_core_id = core % cores_per_pkg;
		c->llc_id = llc_index;
		c->package_id = llc_index / s->llcs;
		c->die_id = c->package_id;
		c->node = llc_index / llcs_per_node;
	}
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		int core = t->cpu[cpu].core_id;

		/* the threads of a core: adjacent, or one per block of all cores (split) */
		for (int k = 0; k < s->threads; k++)
			sr_mask_set(&t->cpu[cpu].smt, s->split_smt ? core + k * ncores :
								    core * s->threads + k);
		sr_topo_group(t, cpu, key_llc_index, &llc, &llc_key);
		t->cpu[cpu].llc = llc;
	}
}

int sr_topo_from_spec(struct sr_topo *t, const char *spec, enum sr_topo_era era)
{
	struct topo_spec s;
	int ret;

	ret = spec_parse(&s, spec);
	if (ret)
		return ret;
	ret = sr_topo_alloc(t, s.sockets * s.llcs * s.cores * s.threads);
	if (ret)
		return ret;
	t->source = SR_TOPO_SPEC;
	t->nr_nodes = s.nodes;
	for (int a = 0; a < s.nodes; a++)
		for (int b = 0; b < s.nodes; b++)
			t->node_distance[a][b] = a == b ? 10 : s.distance;
	spec_place(t, &s);
	sr_topo_derive(t, era, "DIE");
	return 0;
}
