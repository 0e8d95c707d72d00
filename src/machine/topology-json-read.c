// SPDX-License-Identifier: GPL-2.0
/*
 * The topology JSON read back, checked field by field: a message names the
 * place ("cpus[3].domains[1].flags") and what it wants.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine-priv.h"

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
	if (sr_sd_origin_by_name(json_string_value(v)) >= 0) {
		sd->origin = sr_sd_origin_by_name(json_string_value(v));
		return 0;
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
		int ret = jstr_opt(p, s, sr_machine_item_name(i), m->sources[i],
				   sizeof(m->sources[i]));

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
		ret = jstr_opt(p, o, "kernel_patch_params", m->kernel_patch_params,
			       sizeof(m->kernel_patch_params));
	if (!ret)
		ret = jstr_opt(p, o, "cpuidle_driver", m->cpuidle_driver,
			       sizeof(m->cpuidle_driver));
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
