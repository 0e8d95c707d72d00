// SPDX-License-Identifier: GPL-2.0
/*
 * Topology built from a spec or assumed flat, with sched-domain levels
 * derived the way sd_init()/build_sched_domains() would: SMT, MC (LLC),
 * DIE/PKG, NODE, NUMA; a level whose span equals its child's degenerates.
 * The same derivation serves machine snapshots without the kernel's own
 * domains (topology-load.c).  Also: SD flag names, CPU list parsing, and
 * the topology JSON format (docs/topology.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine.h"
#include "topology.h"

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

/* ------------------------------------------------------------ CPU lists */

/* A decimal CPU number; *s moves past it. */
static int parse_cpu(const char **s, int *cpu)
{
	long v = 0;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	while (**s >= '0' && **s <= '9') {
		v = v * 10 + (**s - '0');
		if (v >= SR_MAX_CPUS)
			return -ERANGE;
		(*s)++;
	}
	*cpu = (int)v;
	return 0;
}

int sr_cpulist_parse(const char *s, struct sr_cpumask *m)
{
	sr_mask_clear(m);
	while (*s == ' ' || *s == '\t')
		s++;
	while (*s && *s != '\n') {
		int a, b, ret = parse_cpu(&s, &a);

		if (ret)
			return ret;
		b = a;
		if (*s == '-') {
			s++;
			ret = parse_cpu(&s, &b);
			if (ret)
				return ret;
			if (b < a)
				return -EINVAL;
		}
		for (int c = a; c <= b; c++)
			sr_mask_set(m, c);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return *s && s[1] ? -EINVAL : 0;
}

int sr_cpulist_format(const struct sr_cpumask *m, char *buf, size_t len)
{
	size_t off = 0;
	int a;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (a = sr_mask_first(m); a >= 0; ) {
		int b = a, n;

		while (b + 1 < SR_MAX_CPUS && sr_mask_test(m, b + 1))
			b++;
		n = b == a ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", a) :
			     snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", a, b);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += n;
		a = sr_mask_next(m, b + 1);
	}
	return 0;
}

static int hex_val(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int sr_cpumask_parse_hex(const char *s, struct sr_cpumask *m)
{
	size_t len = strlen(s);
	int bit = 0, digits = 0;

	sr_mask_clear(m);
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	/* Least significant digit last, as %*pb prints; commas every 32 bits. */
	for (size_t i = len; i-- > 0; ) {
		int v = s[i] == ',' ? 0 : hex_val(s[i]);

		if (s[i] == ',')
			continue;
		if (v < 0)
			return -EINVAL;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= SR_MAX_CPUS)
				return -ERANGE;
			sr_mask_set(m, bit);
		}
		digits++;
	}
	return digits ? 0 : -EINVAL;
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

/* x86_has_numa_in_package: some node is narrower than its package. */
static bool numa_in_package(const struct sr_topo *t)
{
	for (int a = 0; a < t->nr_cpus; a++)
		for (int b = 0; b < t->nr_cpus; b++)
			if (t->cpu[a].package_id == t->cpu[b].package_id &&
			    t->cpu[a].node != t->cpu[b].node)
				return true;
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

static void spec_place(struct sr_topo *t, const struct topo_spec *s)
{
	int llcs_per_node = s->sockets * s->llcs / s->nodes;
	int cores_per_pkg = s->llcs * s->cores;

	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];
		int core = cpu_core(s, cpu), llc = core / s->cores;

		c->core_id = core;
		c->sys_core_id = core % cores_per_pkg;
		c->package_id = llc / s->llcs;
		c->die_id = c->package_id;
		c->node = llc / llcs_per_node;
	}
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &t->cpu[cpu];

		/* Siblings share core_id; the thread index is implied. */
		for (int o = 0; o < t->nr_cpus; o++) {
			if (t->cpu[o].core_id == c->core_id)
				sr_mask_set(&c->smt, o);
			if (t->cpu[o].core_id / s->cores == c->core_id / s->cores)
				sr_mask_set(&c->llc, o);
		}
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

/* ------------------------------------------------------------ JSON out */

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *mask_json(const struct sr_cpumask *m)
{
	char buf[SR_MAX_CPUS * 5];

	if (sr_cpulist_format(m, buf, sizeof(buf)))
		return NULL;
	return json_string(buf);
}

/* Space-separated words as an array of strings. */
static json_t *words_json(const char *s)
{
	char buf[64], *save = NULL, *w;
	json_t *a = json_array();

	snprintf(buf, sizeof(buf), "%s", s);
	for (w = strtok_r(buf, " ", &save); a && w; w = strtok_r(NULL, " ", &save)) {
		if (json_array_append_new(a, json_string(w))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *flags_json(unsigned int flags)
{
	json_t *a = json_array();

	for (int b = 0; a && b < SR_SD_NR_FLAGS; b++) {
		if (!(flags & (1U << b)))
			continue;
		if (json_array_append_new(a, json_string(sr_sd_flag_name(1U << b)))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *domain_json(const struct sr_domain *sd)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	bad |= json_object_set_new(o, "name", json_string(sd->name));
	bad |= json_object_set_new(o, "span", mask_json(&sd->span));
	bad |= json_object_set_new(o, "span_weight", json_integer(sd->span_weight));
	bad |= json_object_set_new(o, "flags", flags_json(sd->flags));
	if (sd->unknown_flags[0])
		bad |= json_object_set_new(o, "unknown_flags", words_json(sd->unknown_flags));
	bad |= json_object_set_new(o, "imbalance_pct", json_integer(sd->imbalance_pct));
	bad |= json_object_set_new(o, "origin", json_string(sr_sd_origin_name(sd->origin)));
	if (sd->span_derived)
		bad |= json_object_set_new(o, "span_derived", json_true());
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *levels_json(const struct sr_cpu_topo *c)
{
	json_t *a = json_array();

	for (int i = 0; a && i < c->nr_levels; i++) {
		if (json_array_append_new(a, domain_json(&c->sd[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *cpu_json(const struct sr_topo *t, int cpu)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];
	json_t *o = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "cpu", cpu,
			      "core", c->core_id, "core_id", c->sys_core_id,
			      "package", c->package_id, "die", c->die_id, "node", c->node,
			      "llc", c->llc_id, "llc_size", c->llc_size);
	int bad = !o;

	if (bad)
		return NULL;
	bad |= json_object_set_new(o, "smt", mask_json(&c->smt));
	bad |= json_object_set_new(o, "llc_span", mask_json(&c->llc));
	bad |= json_object_set_new(o, "domains", levels_json(c));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *distance_json(const struct sr_topo *t)
{
	json_t *a = json_array();

	for (int i = 0; a && i < t->nr_nodes; i++) {
		json_t *row = json_array();

		for (int j = 0; row && j < t->nr_nodes; j++) {
			if (json_array_append_new(row, json_integer(t->node_distance[i][j]))) {
				json_decref(row);
				row = NULL;
			}
		}
		if (json_array_append_new(a, row)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static bool same_domain(const struct sr_domain *a, const struct sr_domain *b)
{
	return !strcmp(a->name, b->name) && a->flags == b->flags &&
	       a->imbalance_pct == b->imbalance_pct && a->span_weight == b->span_weight &&
	       a->origin == b->origin && a->span_derived == b->span_derived &&
	       !strcmp(a->unknown_flags, b->unknown_flags);
}

/* Same hierarchy shape: the same levels, spans aside. */
static bool same_hierarchy(const struct sr_cpu_topo *a, const struct sr_cpu_topo *b)
{
	if (a->nr_levels != b->nr_levels)
		return false;
	for (int i = 0; i < a->nr_levels; i++)
		if (!same_domain(&a->sd[i], &b->sd[i]))
			return false;
	return true;
}

/* The hierarchies of CPU 0 and of every CPU whose hierarchy differs. */
static json_t *hierarchies_json(const struct sr_topo *t)
{
	json_t *a = json_array();
	struct sr_cpumask done, group;

	sr_mask_clear(&done);
	for (int cpu = 0; a && cpu < t->nr_cpus; cpu++) {
		json_t *h;

		if (sr_mask_test(&done, cpu))
			continue;
		sr_mask_clear(&group);
		for (int o = cpu; o < t->nr_cpus; o++) {
			if (!sr_mask_test(&done, o) && same_hierarchy(&t->cpu[cpu], &t->cpu[o])) {
				sr_mask_set(&group, o);
				sr_mask_set(&done, o);
			}
		}
		h = json_pack("{s:o, s:i, s:o}", "cpus", mask_json(&group), "cpu", cpu,
			      "levels", levels_json(&t->cpu[cpu]));
		if (json_array_append_new(a, h)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *llcs_json(const struct sr_topo *t)
{
	json_t *a = json_array();

	for (int cpu = 0; a && cpu < t->nr_cpus; cpu++) {
		const struct sr_cpu_topo *c = &t->cpu[cpu];

		if (c->llc_id != cpu)
			continue;
		if (json_array_append_new(a, json_pack("{s:i, s:o, s:i}", "id", cpu,
						       "span", mask_json(&c->llc),
						       "size", c->llc_size))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *notes_json(const char (*notes)[SR_MACHINE_NOTE_LEN], int n)
{
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++) {
		if (json_array_append_new(a, json_string(notes[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *features_json(const struct sr_machine *m)
{
	json_t *a;

	if (m->nr_features < 0)
		return json_null();
	a = json_array();
	for (int i = 0; a && i < m->nr_features; i++) {
		char name[40];

		snprintf(name, sizeof(name), "%s%s", m->features[i].enabled ? "" : "NO_",
			 m->features[i].name);
		if (json_array_append_new(a, json_string(name))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *sources_json(const struct sr_machine *m)
{
	json_t *o = json_object();

	for (int i = 0; o && i < SR_MI_NR; i++) {
		if (m->sources[i][0] &&
		    json_object_set_new(o, item_names[i], json_string(m->sources[i]))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *machine_json(const struct sr_machine *m)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	bad |= json_object_set_new(o, "kernel_version", str_or_null(m->kernel_version));
	bad |= json_object_set_new(o, "release", str_or_null(m->release));
	bad |= json_object_set_new(o, "sched_features", features_json(m));
	bad |= json_object_set_new(o, "migration_cost_ns", m->migration_cost_ns < 0 ?
				   json_null() : json_integer(m->migration_cost_ns));
	bad |= json_object_set_new(o, "autogroup_enabled", m->autogroup < 0 ? json_null() :
				   json_boolean(m->autogroup));
	bad |= json_object_set_new(o, "sources", sources_json(m));
	bad |= json_object_set_new(o, "missing", notes_json(m->missing, m->nr_missing));
	bad |= json_object_set_new(o, "warnings", notes_json(m->warnings, m->nr_warnings));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *cpus_json(const struct sr_topo *t)
{
	json_t *a = json_array();

	for (int cpu = 0; a && cpu < t->nr_cpus; cpu++) {
		if (json_array_append_new(a, cpu_json(t, cpu))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *sr_topo_to_json(const struct sr_topo *t, const struct sr_machine *m)
{
	struct sr_machine none;
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	if (!m) {
		sr_machine_init(&none);
		m = &none;
	}
	bad |= json_object_set_new(o, "format", json_string(SR_TOPO_JSON_FORMAT));
	bad |= json_object_set_new(o, "format_version", json_integer(SR_TOPO_JSON_VERSION));
	bad |= json_object_set_new(o, "source", json_string(sr_topo_source_name(t->source)));
	bad |= json_object_set_new(o, "loaded_from", str_or_null(m->loaded_from));
	bad |= json_object_set_new(o, "origin", str_or_null(m->origin));
	bad |= json_object_set_new(o, "origin_source", json_string(m->origin_source[0] ?
				   m->origin_source : sr_topo_source_name(t->source)));
	bad |= json_object_set_new(o, "nr_cpus", json_integer(t->nr_cpus));
	bad |= json_object_set_new(o, "nr_nodes", json_integer(t->nr_nodes));
	bad |= json_object_set_new(o, "node_distance", distance_json(t));
	bad |= json_object_set_new(o, "machine", machine_json(m));
	bad |= json_object_set_new(o, "cpus", cpus_json(t));
	bad |= json_object_set_new(o, "llcs", llcs_json(t));
	bad |= json_object_set_new(o, "hierarchies", hierarchies_json(t));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ------------------------------------------------------------ JSON in */

/* Where in the file a value is, for messages: "cpus[3].domains[1]". */
struct jpath {
	char at[64];
	struct sr_err *err;
};

static int jbad(const struct jpath *p, const char *key, const char *want)
{
	return sr_err_set(p->err, -EINVAL, "topology JSON: %s%s%s: %s", p->at,
			  p->at[0] && key ? "." : "", key ? key : "", want);
}

static int jint(const struct jpath *p, const json_t *o, const char *key, long long min,
		long long max, long long *out)
{
	const json_t *v = json_object_get(o, key);
	char want[80];

	if (json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max) {
		*out = json_integer_value(v);
		return 0;
	}
	snprintf(want, sizeof(want), "wants an integer in %lld..%lld", min, max);
	return jbad(p, key, want);
}

/* An optional integer, or null: @dflt. */
static int jint_opt(const struct jpath *p, const json_t *o, const char *key, long long min,
		    long long max, long long dflt, long long *out)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		*out = dflt;
		return 0;
	}
	return jint(p, o, key, min, max, out);
}

/* An optional string copied into @buf; "" when absent or null. */
static int jstr_opt(const struct jpath *p, const json_t *o, const char *key, char *buf,
		    size_t len)
{
	const json_t *v = json_object_get(o, key);

	buf[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || json_string_length(v) >= len)
		return jbad(p, key, "wants a string (or null)");
	snprintf(buf, len, "%s", json_string_value(v));
	return 0;
}

static int jmask(const struct jpath *p, const json_t *o, const char *key,
		 const struct sr_topo *t, int cpu, struct sr_cpumask *m)
{
	const char *s = json_string_value(json_object_get(o, key));
	int c;

	if (!s || sr_cpulist_parse(s, m))
		return jbad(p, key, "wants a CPU list such as \"0-3,8\"");
	sr_for_each_cpu(c, m)
		if (c >= t->nr_cpus)
			return jbad(p, key, "names a CPU beyond nr_cpus");
	if (cpu >= 0 && !sr_mask_test(m, cpu))
		return jbad(p, key, "does not include the CPU itself");
	return 0;
}

static int jflags(const struct jpath *p, const json_t *o, const char *key, struct sr_domain *sd)
{
	const json_t *a = json_object_get(o, key), *v;
	size_t i;

	if (!a && strcmp(key, "flags"))
		return 0;
	if (!json_is_array(a))
		return jbad(p, key, "wants an array of flag names");
	json_array_foreach(a, i, v) {
		const char *name = json_string_value(v);
		unsigned int bit = name ? sr_sd_flag_by_name(name) : 0;

		if (!name)
			return jbad(p, key, "wants an array of flag names");
		if (bit)
			sd->flags |= bit;
		else if (!sr_sd_add_unknown(sd, name))
			return jbad(p, key, "too many unknown flag names");
	}
	return 0;
}

static int jorigin(const struct jpath *p, const json_t *o, struct sr_domain *sd)
{
	const json_t *v = json_object_get(o, "origin");

	sd->origin = SR_SD_DERIVED;
	if (!v)
		return 0;
	for (int i = 0; i < (int)SR_ARRAY_SIZE(origin_names); i++) {
		if (json_is_string(v) && !strcmp(json_string_value(v), origin_names[i])) {
			sd->origin = i;
			return 0;
		}
	}
	return jbad(p, "origin", "wants \"derived\", \"debugfs\" or \"sysctl\"");
}

static int jdomain(struct jpath *p, const json_t *o, const struct sr_topo *t, int cpu,
		   struct sr_domain *sd)
{
	long long pct;
	int ret;

	*sd = (struct sr_domain){ 0 };
	if (!json_is_object(o))
		return jbad(p, NULL, "wants a domain object");
	ret = jstr_opt(p, o, "name", sd->name, sizeof(sd->name));
	if (!ret && !sd->name[0])
		ret = jbad(p, "name", "wants a level name");
	if (!ret)
		ret = jmask(p, o, "span", t, cpu, &sd->span);
	if (!ret)
		ret = jflags(p, o, "flags", sd);
	if (!ret)
		ret = jflags(p, o, "unknown_flags", sd);
	if (!ret)
		ret = jint(p, o, "imbalance_pct", 1, 10000, &pct);
	if (!ret)
		ret = jorigin(p, o, sd);
	if (ret)
		return ret;
	sd->imbalance_pct = (unsigned int)pct;
	sd->span_weight = sr_mask_weight(&sd->span);
	sd->span_derived = json_is_true(json_object_get(o, "span_derived"));
	return 0;
}

static int jlevels(struct jpath *p, const json_t *a, const struct sr_topo *t, int cpu,
		   struct sr_cpu_topo *c)
{
	size_t at = strlen(p->at);
	const json_t *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > SR_MAX_LEVELS)
		return jbad(p, "domains", "wants an array of at most 8 levels");
	json_array_foreach(a, i, v) {
		struct sr_domain *sd = &c->sd[i];
		int ret;

		snprintf(p->at + at, sizeof(p->at) - at, ".domains[%zu]", i);
		ret = jdomain(p, v, t, cpu, sd);
		if (ret)
			return ret;
		/* Each level spans its child: the kernel builds them nested. */
		if (i && (sd->span_weight <= c->sd[i - 1].span_weight ||
			  !sr_mask_subset(&c->sd[i - 1].span, &sd->span)))
			return jbad(p, "span", "does not contain the level below");
		c->nr_levels = (int)i + 1;
	}
	p->at[at] = '\0';
	return 0;
}

static int jcpu_place(struct jpath *p, const json_t *o, struct sr_topo *t, int cpu)
{
	struct sr_cpu_topo *c = &t->cpu[cpu];
	long long v[6];
	int ret;

	ret = jint(p, o, "cpu", cpu, cpu, &v[0]);
	if (!ret)
		ret = jint(p, o, "core", 0, INT32_MAX, &v[1]);
	if (!ret)
		ret = jint_opt(p, o, "core_id", -1, INT32_MAX, -1, &v[2]);
	if (!ret)
		ret = jint(p, o, "package", 0, INT32_MAX, &v[3]);
	if (!ret)
		ret = jint_opt(p, o, "die", 0, INT32_MAX, v[3], &v[4]);
	if (!ret)
		ret = jint(p, o, "node", 0, t->nr_nodes - 1, &v[5]);
	if (!ret)
		ret = jmask(p, o, "smt", t, cpu, &c->smt);
	if (!ret)
		ret = jmask(p, o, "llc_span", t, cpu, &c->llc);
	if (ret)
		return ret;
	c->core_id = (int)v[1];
	c->sys_core_id = (int)v[2];
	c->package_id = (int)v[3];
	c->die_id = (int)v[4];
	c->node = (int)v[5];
	return 0;
}

/* Every CPU's placement; *with_domains counts the CPUs that list their levels. */
static int jcpus(struct jpath *p, const json_t *root, struct sr_topo *t, int *with_domains)
{
	const json_t *a = json_object_get(root, "cpus"), *o;
	size_t i;

	*with_domains = 0;
	if (!json_is_array(a) || json_array_size(a) != (size_t)t->nr_cpus)
		return jbad(p, "cpus", "wants an array of nr_cpus CPU objects");
	json_array_foreach(a, i, o) {
		const json_t *levels = json_object_get(o, "domains");
		int ret;

		snprintf(p->at, sizeof(p->at), "cpus[%zu]", i);
		if (!json_is_object(o))
			return jbad(p, NULL, "wants a CPU object");
		ret = jcpu_place(p, o, t, (int)i);
		if (!ret && levels) {
			ret = jlevels(p, levels, t, (int)i, &t->cpu[i]);
			(*with_domains)++;
		}
		if (ret)
			return ret;
	}
	p->at[0] = '\0';
	return 0;
}

static int jdistances(struct jpath *p, const json_t *root, struct sr_topo *t)
{
	const json_t *a = json_object_get(root, "node_distance"), *row, *v;
	size_t i, j;

	if (!json_is_array(a) || json_array_size(a) != (size_t)t->nr_nodes)
		return jbad(p, "node_distance", "wants nr_nodes rows");
	json_array_foreach(a, i, row) {
		if (!json_is_array(row) || json_array_size(row) != (size_t)t->nr_nodes)
			return jbad(p, "node_distance", "wants nr_nodes columns in each row");
		json_array_foreach(row, j, v) {
			json_int_t d = json_integer_value(v);

			/* 0 is "unknown"; ACPI SLIT distances fit a byte. */
			if (!json_is_integer(v) || d < 0 || d > 255 || (i == j && d && d != 10))
				return jbad(p, "node_distance", "wants distances 0..255, 10 local");
			t->node_distance[i][j] = (int)d;
		}
	}
	return 0;
}

static int jfeatures(struct jpath *p, const json_t *o, struct sr_machine *m)
{
	const json_t *a = json_object_get(o, "sched_features"), *v;
	size_t i;

	m->nr_features = -1;
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > SR_MACHINE_MAX_FEATURES)
		return jbad(p, "sched_features", "wants an array of feature names");
	json_array_foreach(a, i, v) {
		const char *name = json_string_value(v);
		struct sr_sched_feature *f = &m->features[i];

		if (!name)
			return jbad(p, "sched_features", "wants an array of feature names");
		f->enabled = strncmp(name, "NO_", 3) != 0;
		if (!f->enabled)
			name += 3;
		if (!name[0] || strlen(name) >= sizeof(f->name))
			return jbad(p, "sched_features", "has a name too long or empty");
		snprintf(f->name, sizeof(f->name), "%s", name);
	}
	m->nr_features = (int)i;
	return 0;
}

static int jnotes(struct jpath *p, const json_t *o, const char *key,
		  char (*notes)[SR_MACHINE_NOTE_LEN], int *n)
{
	const json_t *a = json_object_get(o, key), *v;
	size_t i;

	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > SR_MACHINE_MAX_NOTES)
		return jbad(p, key, "wants an array of at most 32 strings");
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return jbad(p, key, "wants an array of strings");
		snprintf(notes[i], SR_MACHINE_NOTE_LEN, "%s", json_string_value(v));
	}
	*n = (int)i;
	return 0;
}

static int jsources(struct jpath *p, const json_t *o, struct sr_machine *m)
{
	const json_t *s = json_object_get(o, "sources");

	if (!s)
		return 0;
	if (!json_is_object(s))
		return jbad(p, "sources", "wants an object of paths");
	for (int i = 0; i < SR_MI_NR; i++) {
		int ret = jstr_opt(p, s, item_names[i], m->sources[i], sizeof(m->sources[i]));

		if (ret)
			return ret;
	}
	return 0;
}

static int jmachine(struct jpath *p, const json_t *root, struct sr_machine *m)
{
	const json_t *o = json_object_get(root, "machine"), *ag;
	long long cost;
	int ret;

	if (!o || json_is_null(o))
		return 0;
	snprintf(p->at, sizeof(p->at), "machine");
	if (!json_is_object(o))
		return jbad(p, NULL, "wants an object");
	ret = jstr_opt(p, o, "kernel_version", m->kernel_version, sizeof(m->kernel_version));
	if (!ret)
		ret = jstr_opt(p, o, "release", m->release, sizeof(m->release));
	if (!ret)
		ret = jfeatures(p, o, m);
	if (!ret)
		ret = jint_opt(p, o, "migration_cost_ns", 0, INT64_MAX, -1, &cost);
	if (!ret)
		ret = jsources(p, o, m);
	if (!ret)
		ret = jnotes(p, o, "missing", m->missing, &m->nr_missing);
	if (!ret)
		ret = jnotes(p, o, "warnings", m->warnings, &m->nr_warnings);
	if (ret)
		return ret;
	m->migration_cost_ns = cost;
	ag = json_object_get(o, "autogroup_enabled");
	if (ag && !json_is_null(ag) && !json_is_boolean(ag))
		return jbad(p, "autogroup_enabled", "wants true, false or null");
	m->autogroup = json_is_boolean(ag) ? json_is_true(ag) : -1;
	p->at[0] = '\0';
	return 0;
}

static int jheader(struct jpath *p, const json_t *root, struct sr_topo *t,
		   struct sr_machine *m)
{
	const char *fmt = json_string_value(json_object_get(root, "format"));
	long long ver, cpus, nodes;
	int ret;

	if (!json_is_object(root) || !fmt || strcmp(fmt, SR_TOPO_JSON_FORMAT))
		return jbad(p, "format", "wants \"" SR_TOPO_JSON_FORMAT "\"");
	ret = jint(p, root, "format_version", SR_TOPO_JSON_VERSION, SR_TOPO_JSON_VERSION, &ver);
	if (!ret)
		ret = jint(p, root, "nr_cpus", 1, SR_MAX_CPUS, &cpus);
	if (!ret)
		ret = jint(p, root, "nr_nodes", 1, SR_MAX_NODES, &nodes);
	if (!ret)
		ret = jstr_opt(p, root, "origin", m->origin, sizeof(m->origin));
	if (!ret)
		ret = jstr_opt(p, root, "origin_source", m->origin_source,
			       sizeof(m->origin_source));
	if (ret)
		return ret;
	ret = sr_topo_alloc(t, (int)cpus);
	if (ret)
		return sr_err_set(p->err, ret, "out of memory");
	t->nr_nodes = (int)nodes;
	return 0;
}

int sr_topo_from_json(struct sr_topo *t, struct sr_machine *m, const json_t *root,
		      enum sr_topo_era era, struct sr_err *err)
{
	struct jpath p = { .err = err };
	int with_domains, ret;

	memset(t, 0, sizeof(*t));
	ret = jheader(&p, root, t, m);
	if (!ret)
		ret = jdistances(&p, root, t);
	if (!ret)
		ret = jmachine(&p, root, m);
	if (!ret)
		ret = jcpus(&p, root, t, &with_domains);
	if (!ret && with_domains && with_domains != t->nr_cpus)
		ret = jbad(&p, "cpus", "lists domains for some CPUs only");
	if (ret) {
		sr_topo_free(t);
		return ret;
	}
	if (era == SR_ERA_AUTO)
		era = sr_topo_era_of(m->release);
	if (!with_domains)
		sr_topo_derive(t, era, sr_release_kv(m->release) >= SR_KV(6, 9) ?
			       "PKG" : "DIE");
	sr_topo_set_llc(t);
	t->source = SR_TOPO_JSON;
	return 0;
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
