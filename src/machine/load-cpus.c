// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot's sysfs: which CPUs are online, each CPU's core, package and
 * die, its last-level cache, and the NUMA nodes with their distances.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine-priv.h"

/* ------------------------------------------------------------ CPUs */

static int check_online(struct snap *s, const struct sr_cpumask *dirs,
			const struct sr_cpumask *online, int nr)
{
	char list[256];
	int c;

	if (sr_cpulist_format(online, list, sizeof(list)))
		snprintf(list, sizeof(list), "many CPUs");
	for (c = 0; c < nr; c++)
		if (!sr_mask_test(online, c))
			return sr_err_set(s->err, -EINVAL, "%s: cpu%d is offline (online: %s): "
					  "its topology and domains are unknown; snapshot a "
					  "machine with every CPU online", s->root.path, c, list);
	sr_for_each_cpu(c, dirs)
		if (!sr_mask_test(online, c))
			return sr_err_set(s->err, -EINVAL, "%s: cpu%d is offline (online: %s): "
					  "its topology and domains are unknown; snapshot a "
					  "machine with every CPU online", s->root.path, c, list);
	sr_for_each_cpu(c, online)
		if (!sr_mask_test(dirs, c))
			return sr_err_set(s->err, -EINVAL, "%s/%s/cpu%d: missing, yet cpu%d is "
					  "online", s->root.path, CPU_DIR, c, c);
	return 0;
}

/* Without an online file: every cpuN directory whose own online file does not say 0. */
static int online_from_dirs(struct snap *s, const struct sr_cpumask *dirs,
			    struct sr_cpumask *online)
{
	char rel[96];
	long long v;
	int c;

	sr_ld_missing(s, "%s/online: missing; every cpuN directory taken as online", CPU_DIR);
	*online = *dirs;
	sr_for_each_cpu(c, dirs) {
		int ret;

		snprintf(rel, sizeof(rel), "%s/cpu%d/online", CPU_DIR, c);
		ret = sr_ld_int(s, rel, 0, 1, &v);
		if (!ret && !v)
			sr_mask_unset(online, c);
		else if (ret && !sr_ld_absent(ret))
			return ret;
	}
	return 0;
}

/* Some architectures list possible but absent CPUs too: only present ones count. */
static int present_only(struct snap *s, struct sr_cpumask *dirs)
{
	struct sr_cpumask present;
	int ret = sr_ld_cpulist(s, CPU_DIR "/present", 0, &present);

	if (sr_ld_absent(ret))
		return 0;
	if (ret)
		return ret;
	sr_mask_and(dirs, &present);
	return 0;
}

int sr_ld_cpus(struct snap *s, int *nr)
{
	struct sr_cpumask dirs, online;
	long big = 0;
	int ret = sr_ld_list_numbered(s, CPU_DIR, "cpu", SR_MAX_CPUS, &dirs, &big);

	if (ret == -ERANGE)
		return sr_err_set(s->err, -EINVAL, "%s/%s/cpu%ld: more CPUs than schedreplay "
				  "supports (%d)", s->root.path, CPU_DIR, big, SR_MAX_CPUS);
	if (ret)
		return sr_err_set(s->err, ret, "%s/%s: %s: not a machine snapshot", s->root.path,
				  CPU_DIR, strerror(-ret));
	ret = present_only(s, &dirs);
	if (ret)
		return ret;
	if (sr_mask_first(&dirs) < 0)
		return sr_err_set(s->err, -EINVAL, "%s/%s: no cpuN directory", s->root.path, CPU_DIR);
	ret = sr_ld_cpulist(s, CPU_DIR "/online", 0, &online);
	if (sr_ld_absent(ret))
		ret = online_from_dirs(s, &dirs, &online);
	if (ret)
		return ret;
	if (sr_mask_first(&online) < 0)
		return sr_err_set(s->err, -EINVAL, "%s/%s/online: no CPU online", s->root.path, CPU_DIR);
	*nr = 0;
	for (int c = sr_mask_first(&online); c >= 0; c = sr_mask_next(&online, c + 1))
		*nr = c + 1;
	ret = check_online(s, &dirs, &online, *nr);
	if (!ret)
		snprintf(s->m->sources[SR_MI_CPUS], sizeof(s->m->sources[0]), "%s", CPU_DIR);
	return ret;
}

/* An optional per-CPU topology integer: @dflt when the kernel lacks the file. */
static int cpu_int(struct snap *s, int cpu, const char *file, enum note_once kind,
		   long long dflt, long long *v)
{
	char rel[128];
	int ret;

	snprintf(rel, sizeof(rel), "%s/cpu%d/topology/%s", CPU_DIR, cpu, file);
	ret = sr_ld_int(s, rel, -1, INT_MAX, v);
	if (!sr_ld_absent(ret))
		return ret;
	if (sr_ld_first_note(s, kind))
		sr_ld_missing(s, "%s: %s", rel, strerror(-ret));
	*v = dflt;
	return 0;
}

/* SMT siblings: core_cpus_list (5.4+), else thread_siblings_list, else none known. */
static int cpu_siblings(struct snap *s, int cpu, struct sr_cpumask *smt)
{
	static const char *const files[] = { "core_cpus_list", "thread_siblings_list" };
	char rel[128];
	int ret = -ENOENT;

	for (size_t i = 0; i < SR_ARRAY_SIZE(files) && sr_ld_absent(ret); i++) {
		snprintf(rel, sizeof(rel), "%s/cpu%d/topology/%s", CPU_DIR, cpu, files[i]);
		ret = sr_ld_cpulist(s, rel, s->t->nr_cpus, smt);
	}
	if (sr_ld_absent(ret)) {
		if (sr_ld_first_note(s, NOTE_SIBLINGS))
			sr_ld_missing(s, "%s: %s: no SMT assumed", rel, strerror(-ret));
		sr_mask_clear(smt);
		ret = 0;
	}
	if (!ret && !sr_mask_test(smt, cpu))
		sr_mask_set(smt, cpu);
	return ret;
}

int sr_ld_cpu_topo(struct snap *s, int cpu)
{
	struct sr_cpu_topo *c = &s->t->cpu[cpu];
	char rel[128];
	long long pkg, core, die;
	int ret;

	snprintf(rel, sizeof(rel), "%s/cpu%d/topology", CPU_DIR, cpu);
	if (!sr_root_is_dir(&s->root, rel))
		return sr_err_set(s->err, -EINVAL, "%s/%s: missing: cpu%d's place is unknown",
				  s->root.path, rel, cpu);
	ret = cpu_int(s, cpu, "physical_package_id", NOTE_PKG, 0, &pkg);
	if (!ret)
		ret = cpu_int(s, cpu, "core_id", NOTE_CORE_ID, -1, &core);
	if (!ret)
		ret = cpu_int(s, cpu, "die_id", NOTE_DIE_ID, pkg < 0 ? 0 : pkg, &die);
	if (!ret)
		ret = cpu_siblings(s, cpu, &c->smt);
	if (ret)
		return ret;
	/* Some arm64 firmware gives no package: -1.  One package then, as the kernel's. */
	if (pkg < 0 && sr_ld_first_note(s, NOTE_PKG))
		sr_ld_missing(s, "%s/physical_package_id: -1: one package assumed", rel);
	c->package_id = pkg < 0 ? 0 : (int)pkg;
	c->sys_core_id = (int)core;
	c->die_id = die < 0 ? c->package_id : (int)die;
	return 0;
}

/* Machine-wide core numbers from the sibling masks; sibling lists must agree. */
void sr_ld_number_cores(struct snap *s)
{
	struct sr_topo *t = s->t;
	int idx[SR_MAX_CPUS], next = 0;

	for (int i = 0; i < t->nr_cpus; i++)
		idx[i] = -1;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		int first = sr_mask_first(&t->cpu[cpu].smt), o;

		if (idx[first] < 0)
			idx[first] = next++;
		t->cpu[cpu].core_id = idx[first];
		sr_for_each_cpu(o, &t->cpu[cpu].smt)
			if (!sr_mask_equal(&t->cpu[o].smt, &t->cpu[cpu].smt) &&
			    sr_ld_first_note(s, NOTE_SMT_ASYM))
				sr_ld_warn(s, "SMT sibling lists of cpu%d and cpu%d disagree", cpu, o);
	}
}

/* ------------------------------------------------------------ caches */

/* One cache index: 1 when it is a data or unified cache, with its level and span. */
static int cache_index(struct snap *s, int cpu, int idx, long long *level,
		       struct sr_cpumask *span)
{
	char rel[128], type[16];
	int n = snprintf(rel, sizeof(rel), "%s/cpu%d/cache/index%d/", CPU_DIR, cpu, idx);
	int ret;

	snprintf(rel + n, sizeof(rel) - n, "level");
	ret = sr_ld_int(s, rel, 0, 9, level);
	if (!ret) {
		snprintf(rel + n, sizeof(rel) - n, "type");
		ret = sr_ld_word(s, rel, type, sizeof(type));
	}
	if (!ret && strcmp(type, "Data") && strcmp(type, "Unified") && strcmp(type, "Instruction"))
		ret = sr_ld_garbage(s, rel, type, "Data, Instruction or Unified");
	if (ret)
		return ret;
	if (!strcmp(type, "Instruction"))
		return 0;
	snprintf(rel + n, sizeof(rel) - n, "shared_cpu_list");
	ret = sr_ld_cpulist(s, rel, s->t->nr_cpus, span);
	return ret ? ret : 1;
}

/* The LLC: the highest-level data or unified cache; 0 when nothing is known. */
static int cpu_llc(struct snap *s, int cpu, struct sr_cpumask *llc)
{
	long long best = 0, level;
	struct sr_cpumask span;

	for (int idx = 0; idx < 16; idx++) {
		int ret = cache_index(s, cpu, idx, &level, &span);

		if (sr_ld_absent(ret))
			break;
		if (ret < 0)
			return ret;
		if (ret && level > best) {
			best = level;
			*llc = span;
		}
	}
	return best > 0;
}

int sr_ld_caches(struct snap *s)
{
	struct sr_topo *t = s->t;
	bool any = false;

	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];
		int ret = cpu_llc(s, cpu, &c->llc);

		if (ret < 0)
			return ret;
		any |= ret;
		if (ret && !sr_mask_test(&c->llc, cpu)) {
			sr_ld_warn(s, "cpu%d: its LLC's shared_cpu_list does not hold it: added", cpu);
			sr_mask_set(&c->llc, cpu);
		}
		if (ret)
			continue;
		/* No cache information: the kernel's MC level falls back to the package too. */
		if (sr_ld_first_note(s, NOTE_CACHE))
			sr_ld_missing(s, "%s/cpu%d/cache: no data or unified cache listed: the LLC is "
				"assumed to span the package", CPU_DIR, cpu);
		sr_mask_clear(&c->llc);
		for (int o = 0; o < t->nr_cpus; o++)
			if (t->cpu[o].package_id == c->package_id)
				sr_mask_set(&c->llc, o);
	}
	if (any)
		snprintf(s->m->sources[SR_MI_CACHES], sizeof(s->m->sources[0]),
			 "%s/cpu*/cache/index*", CPU_DIR);
	return 0;
}

/* ------------------------------------------------------------ nodes */

/* A node's distance file: one entry per online node, in node order. */
static int node_distances(struct snap *s, int node, const struct sr_cpumask *nodes)
{
	char rel[96], *text, *p, *end;
	int ret, other = sr_mask_first(nodes);

	snprintf(rel, sizeof(rel), "%s/node%d/distance", NODE_DIR, node);
	ret = sr_root_read(&s->root, rel, &text);
	if (ret)
		return ret;
	for (p = text; other >= 0; other = sr_mask_next(nodes, other + 1)) {
		long v = strtol(p, &end, 10);

		if (end == p || v < 1 || v > 255)
			break;
		s->t->node_distance[node][other] = (int)v;
		p = end;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	ret = other >= 0 || *p ? sr_ld_garbage(s, rel, text, "one distance per node") : 0;
	free(text);
	return ret;
}

static int node_cpus(struct snap *s, int node)
{
	struct sr_cpumask m;
	char rel[96];
	int ret, c;

	snprintf(rel, sizeof(rel), "%s/node%d/cpulist", NODE_DIR, node);
	ret = sr_ld_cpulist(s, rel, s->t->nr_cpus, &m);
	if (ret)
		return sr_ld_absent(ret) ? sr_err_set(s->err, -EINVAL, "%s/%s: %s", s->root.path, rel,
						strerror(-ret)) : ret;
	sr_for_each_cpu(c, &m) {
		if (s->t->cpu[c].node >= 0)
			return sr_err_set(s->err, -EINVAL, "%s/%s: cpu%d is also in node%d",
					  s->root.path, rel, c, s->t->cpu[c].node);
		s->t->cpu[c].node = node;
	}
	return 0;
}

static void one_node(struct snap *s, const char *why)
{
	sr_ld_missing(s, "%s: %s: one node assumed", NODE_DIR, why);
	for (int c = 0; c < s->t->nr_cpus; c++)
		s->t->cpu[c].node = 0;
	s->t->nr_nodes = 1;
	s->t->node_distance[0][0] = 10;
}

/* A node without a distance file: 20 to every other node, noted once. */
static void assume_distances(struct snap *s, int node, const struct sr_cpumask *nodes, int why)
{
	int b;

	if (sr_ld_first_note(s, NOTE_DISTANCE))
		sr_ld_missing(s, "%s/node%d/distance: %s: distance 20 assumed between nodes", NODE_DIR,
			node, strerror(-why));
	sr_for_each_cpu(b, nodes)
		s->t->node_distance[node][b] = node == b ? 10 : 20;
}

int sr_ld_nodes(struct snap *s)
{
	struct sr_cpumask nodes;
	long big = 0;
	int ret = sr_ld_list_numbered(s, NODE_DIR, "node", SR_MAX_NODES, &nodes, &big), n;

	if (ret == -ERANGE)
		return sr_err_set(s->err, -EINVAL, "%s/%s/node%ld: more than %d nodes", s->root.path,
				  NODE_DIR, big, SR_MAX_NODES);
	if (sr_ld_absent(ret) || (!ret && sr_mask_first(&nodes) < 0)) {
		one_node(s, ret ? strerror(-ret) : "no nodeN directory");
		return 0;
	}
	if (ret)
		return sr_err_set(s->err, ret, "%s/%s: %s", s->root.path, NODE_DIR, strerror(-ret));
	for (int c = 0; c < s->t->nr_cpus; c++)
		s->t->cpu[c].node = -1;
	sr_for_each_cpu(n, &nodes) {
		ret = node_cpus(s, n);
		if (!ret)
			ret = node_distances(s, n, &nodes);
		if (sr_ld_absent(ret)) {
			assume_distances(s, n, &nodes, ret);
			ret = 0;
		}
		if (ret)
			return ret;
		s->t->nr_nodes = n + 1;
	}
	for (int c = 0; c < s->t->nr_cpus; c++)
		if (s->t->cpu[c].node < 0)
			return sr_err_set(s->err, -EINVAL, "%s/%s: cpu%d is in no node's cpulist",
					  s->root.path, NODE_DIR, c);
	snprintf(s->m->sources[SR_MI_NODES], sizeof(s->m->sources[0]), "%s", NODE_DIR);
	return 0;
}
