// SPDX-License-Identifier: GPL-2.0
/* The topology JSON (docs/topology.md): a topology and its machine, written. */
#include <errno.h>
#include <stdio.h>
#include "machine-priv.h"

/* ------------------------------------------------------------ JSON out */

static json_t *str_or_null(const char *s)
{
	return sr_json_str(s && s[0] ? s : NULL);
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
		if (json_array_append_new(a, sr_json_str(w))) {
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
	bad |= json_object_set_new(o, "name", sr_json_str(sd->name));
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
		if (json_array_append_new(a, sr_json_str(notes[i]))) {
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
		if (json_array_append_new(a, sr_json_str(name))) {
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
		    json_object_set_new(o, sr_machine_item_name(i), sr_json_str(m->sources[i]))) {
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
	bad |= json_object_set_new(o, "kernel_patch_params", str_or_null(m->kernel_patch_params));
	bad |= json_object_set_new(o, "cpuidle_driver", str_or_null(m->cpuidle_driver));
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
	/* "schema" is every schedreplay JSON's convention; format/version are what we read */
	bad |= json_object_set_new(o, "schema", json_string("schedreplay-topology/1"));
	bad |= json_object_set_new(o, "format", json_string(SR_TOPO_JSON_FORMAT));
	bad |= json_object_set_new(o, "format_version", json_integer(SR_TOPO_JSON_VERSION));
	bad |= json_object_set_new(o, "source", json_string(sr_topo_source_name(t->source)));
	bad |= json_object_set_new(o, "loaded_from", str_or_null(m->loaded_from));
	bad |= json_object_set_new(o, "origin", str_or_null(m->origin));
	bad |= json_object_set_new(o, "origin_source", sr_json_str(m->origin_source[0] ?
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
