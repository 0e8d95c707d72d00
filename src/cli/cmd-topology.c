// SPDX-License-Identifier: GPL-2.0
/*
 * schedreplay topology: print the machine as schedreplay understood it,
 * from this machine's /, a snapshot directory, a topology JSON file or a
 * spec.  `--json` output is itself a topology JSON file (docs/topology.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "machine.h"

static void topology_usage(FILE *f)
{
	fprintf(f,
		"usage: schedreplay topology [--root DIR | --topology ARG] [--json] [-o FILE]\n\n"
		"Print the machine as schedreplay understands it: per CPU its core, package,\n"
		"die, LLC and node, the LLC spans, NUMA distances, and the sched-domain levels\n"
		"of CPU 0 and of every CPU whose hierarchy differs, with where each came from.\n\n"
		"  --root DIR       a directory laid out like a machine's root (sys/, proc/);\n"
		"                   default / (this machine)\n"
		"  --topology ARG   a snapshot directory, a topology JSON file or a spec\n"
		"                   (docs/topology.md)\n"
		"  --json           a topology JSON file, which --topology reads back\n"
		"  -o, --output FILE  write to FILE instead of stdout\n");
}

struct topo_opts {
	const char *arg;
	const char *out;
	bool json;
};

enum { OPT_ROOT = 256, OPT_TOPOLOGY, OPT_JSON };

static int parse_args(const struct sr_cli *cli, int argc, char **argv, struct topo_opts *o)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "topology", required_argument, NULL, OPT_TOPOLOGY },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+ho:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ROOT:
		case OPT_TOPOLOGY:
			if (o->arg)
				return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "topology: give one of "
						    "--root and --topology, once");
			o->arg = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			topology_usage(stdout);
			return -1;
		default:
			return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "topology: bad option '%s' "
					    "(see 'schedreplay topology --help')",
					    argv[optind - 1]);
		}
	}
	if (optind != argc)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "topology takes no argument '%s' "
				    "(see --help)", argv[optind]);
	return 0;
}

/* ------------------------------------------------------------ text */

static const char *list(const struct sr_cpumask *m, char *buf, size_t len)
{
	if (sr_cpulist_format(m, buf, len))
		snprintf(buf, len, "(too long)");
	return buf;
}

static int count_distinct(const struct sr_topo *t, size_t off)
{
	struct sr_cpumask seen;
	int n = 0;

	sr_mask_clear(&seen);
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		int id = *(const int *)((const char *)&t->cpu[cpu] + off);

		if (id >= 0 && id < SR_MAX_CPUS && !sr_mask_test(&seen, id)) {
			sr_mask_set(&seen, id);
			n++;
		}
	}
	return n;
}

static void print_machine(FILE *f, const struct sr_topo *t, const struct sr_machine *m)
{
	fprintf(f, "machine: %s (%s)\n", m->origin[0] ? m->origin : "?",
		m->origin_source[0] ? m->origin_source : sr_topo_source_name(t->source));
	if (t->source == SR_TOPO_JSON)
		fprintf(f, "loaded from: %s\n", m->loaded_from);
	fprintf(f, "kernel: %s\n", m->release[0] ? m->release : "unknown");
	fprintf(f, "sched_features:");
	if (m->nr_features < 0)
		fprintf(f, " unknown");
	for (int i = 0; i < m->nr_features; i++)
		fprintf(f, " %s%s", m->features[i].enabled ? "" : "NO_", m->features[i].name);
	fputc('\n', f);
	if (m->migration_cost_ns < 0)
		fprintf(f, "migration_cost_ns: unknown\n");
	else
		fprintf(f, "migration_cost_ns: %lld\n", (long long)m->migration_cost_ns);
	fprintf(f, "autogroup: %s\n", m->autogroup < 0 ? "unknown" :
		m->autogroup ? "enabled" : "disabled");
	if (m->kernel_patch_params[0])
		fprintf(f, "scheduler boot parameters outside mainline: %s (kernel patched: %s)\n",
			m->kernel_patch_params, sr_machine_unmodelled_patches(m) ?
			"placements not modelled" : "sched_vcpu_pack modelled");
	if (sr_machine_idle_states(m))
		fprintf(f, "cpuidle driver: %s (the slow path's choice between idle CPUs "
			"depends on their idle states)\n", m->cpuidle_driver);
	else
		fprintf(f, "cpuidle driver: %s\n", m->cpuidle_driver[0] ? "none" :
			"unknown (taken as none)");
	fprintf(f, "CPUs %d, cores %d, packages %d, LLCs %d, nodes %d\n\n", t->nr_cpus,
		count_distinct(t, offsetof(struct sr_cpu_topo, core_id)),
		count_distinct(t, offsetof(struct sr_cpu_topo, package_id)),
		count_distinct(t, offsetof(struct sr_cpu_topo, llc_id)),
		count_distinct(t, offsetof(struct sr_cpu_topo, node)));
}

static void print_cpus(FILE *f, const struct sr_topo *t)
{
	char smt[64], llc[64];

	fprintf(f, "%5s %5s %7s %7s %4s %4s %5s  %-12s %s\n", "cpu", "core", "core_id",
		"package", "die", "node", "llc", "smt", "llc span");
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		const struct sr_cpu_topo *c = &t->cpu[cpu];
		char core_id[16];

		snprintf(core_id, sizeof(core_id), c->sys_core_id < 0 ? "?" : "%d", c->sys_core_id);
		fprintf(f, "%5d %5d %7s %7d %4d %4d %5d  %-12s %s\n", cpu, c->core_id, core_id,
			c->package_id, c->die_id, c->node, c->llc_id,
			list(&c->smt, smt, sizeof(smt)), list(&c->llc, llc, sizeof(llc)));
	}
	fputc('\n', f);
}

static void print_llcs_and_nodes(FILE *f, const struct sr_topo *t)
{
	char buf[256];

	fprintf(f, "LLCs:\n");
	for (int cpu = 0; cpu < t->nr_cpus; cpu++)
		if (t->cpu[cpu].llc_id == cpu)
			fprintf(f, "  llc %d: %s (%d CPUs)\n", cpu,
				list(&t->cpu[cpu].llc, buf, sizeof(buf)), t->cpu[cpu].llc_size);
	fprintf(f, "\nNUMA distances:\n  node");
	for (int b = 0; b < t->nr_nodes; b++)
		fprintf(f, " %4d", b);
	fputc('\n', f);
	for (int a = 0; a < t->nr_nodes; a++) {
		fprintf(f, "  %4d", a);
		for (int b = 0; b < t->nr_nodes; b++)
			fprintf(f, " %4d", t->node_distance[a][b]);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void print_flags(FILE *f, const struct sr_domain *sd)
{
	fprintf(f, "      flags:");
	for (int b = 0; b < SR_SD_NR_FLAGS; b++)
		if (sd->flags & (1U << b))
			fprintf(f, " %s", sr_sd_flag_name(1U << b));
	if (sd->unknown_flags[0])
		fprintf(f, " (unknown: %s)", sd->unknown_flags);
	fputc('\n', f);
}

static void print_levels(FILE *f, const struct sr_cpu_topo *c)
{
	char buf[256];

	if (!c->nr_levels)
		fprintf(f, "  no domain (a single CPU, or isolated)\n");
	for (int l = 0; l < c->nr_levels; l++) {
		const struct sr_domain *sd = &c->sd[l];

		fprintf(f, "  domain%d %-5s span %s (%u)  imbalance_pct %u  %s%s\n", l, sd->name,
			list(&sd->span, buf, sizeof(buf)), sd->span_weight, sd->imbalance_pct,
			sr_sd_origin_name(sd->origin), sd->span_derived ? ", span derived" : "");
		print_flags(f, sd);
	}
}

/* The levels of CPU 0, then of each CPU whose hierarchy differs from those shown. */
static void print_domains(FILE *f, const struct sr_topo *t, const json_t *hier)
{
	const json_t *h;
	size_t i;

	json_array_foreach(hier, i, h) {
		int cpu = (int)json_integer_value(json_object_get(h, "cpu"));
		const char *cpus = json_string_value(json_object_get(h, "cpus"));

		bool one = !strpbrk(cpus, ",-");

		if (!i)
			fprintf(f, "Domains of CPU %d (hierarchy shared by CPU%s %s):\n", cpu,
				one ? "" : "s", cpus);
		else if (one)
			fprintf(f, "\nCPU %s differs:\n", cpus);
		else
			fprintf(f, "\nCPUs %s differ; domains of CPU %d:\n", cpus, cpu);
		print_levels(f, &t->cpu[cpu]);
	}
}

static void print_notes(FILE *f, const char *title, const char (*notes)[SR_MACHINE_NOTE_LEN],
			int n)
{
	if (!n)
		return;
	fprintf(f, "\n%s:\n", title);
	for (int i = 0; i < n; i++)
		fprintf(f, "  - %s\n", notes[i]);
}

static void print_text(FILE *f, const struct sr_topo *t, const struct sr_machine *m,
		       const json_t *doc)
{
	print_machine(f, t, m);
	print_cpus(f, t);
	print_llcs_and_nodes(f, t);
	print_domains(f, t, json_object_get(doc, "hierarchies"));
	print_notes(f, "missing", m->missing, m->nr_missing);
	print_notes(f, "warnings", m->warnings, m->nr_warnings);
}

/* ------------------------------------------------------------ command */

static int write_out(const struct sr_cli *cli, const struct topo_opts *o,
		     const struct sr_topo *t, const struct sr_machine *m, const json_t *doc)
{
	FILE *f = o->out ? fopen(o->out, "w") : stdout;
	int bad = 0;

	if (!f)
		return sr_cli_error(cli, SR_EXIT_FAIL, "%s: %s", o->out, strerror(errno));
	if (o->json)
		bad = json_dumpf(doc, f, JSON_INDENT(2)) || fputc('\n', f) == EOF;
	else
		print_text(f, t, m, doc);
	bad |= ferror(f);
	bad |= o->out ? fclose(f) : fflush(f);
	return bad ? sr_cli_error(cli, SR_EXIT_FAIL, "cannot write the topology") : SR_EXIT_OK;
}

int sr_cmd_topology(const struct sr_cli *cli, int argc, char **argv)
{
	struct topo_opts o = { .json = cli->json };
	struct sr_err err = { "" };
	struct sr_machine *m;
	struct sr_topo t;
	json_t *doc;
	int ret;

	ret = parse_args(cli, argc, argv, &o);
	if (ret)
		return ret < 0 ? SR_EXIT_OK : ret;
	m = malloc(sizeof(*m));
	if (!m)
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	ret = sr_topo_load(&t, m, o.arg ? o.arg : "/", SR_ERA_AUTO, &err);
	if (ret) {
		ret = sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg[0] ? err.msg :
				   strerror(-ret));
		free(m);
		return ret;
	}
	doc = sr_topo_to_json(&t, m);
	ret = doc ? write_out(cli, &o, &t, m, doc) :
		    sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	json_decref(doc);
	sr_topo_free(&t);
	free(m);
	return ret;
}
