// SPDX-License-Identifier: GPL-2.0
/*
 * Loading machines: hand-made snapshot directories under tests/data/machines
 * (real sysfs/debugfs/schedstat formats), a copy of a real 2-CPU machine,
 * broken snapshots, the topology JSON round trip, and the topology command.
 * Run from the repository root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "machine.h"
#include "cli.h"
#include "files-fx.h"

#define M(name) "tests/data/machines/" name

int sr_cmd_topology(const struct sr_cli *cli, int argc, char **argv);

/* main.c is not in the library: the command's error path lands here. */
int sr_cli_error(const struct sr_cli *cli, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int sr_cli_exit_for(int err)
{
	return err == -ENOMEM || err == -EIO ? SR_EXIT_FAIL : SR_EXIT_BAD_INPUT;
}

struct loaded {
	struct sr_topo t;
	struct sr_machine m;
	struct sr_err err;
};

static struct loaded *load(const char *arg, enum sr_topo_era era, int want)
{
	struct loaded *l = calloc(1, sizeof(*l));
	int ret;

	assert_non_null(l);
	ret = sr_topo_load(&l->t, &l->m, arg, era, &l->err);
	if (ret != want)
		fail_msg("%s: %d, wanted %d (%s)", arg, ret, want, l->err.msg);
	return l;
}

static void unload(struct loaded *l)
{
	sr_topo_free(&l->t);
	free(l);
}

static struct sr_cpumask mask(const char *list)
{
	struct sr_cpumask m;

	assert_int_equal(sr_cpulist_parse(list, &m), 0);
	return m;
}

static void assert_span(const struct sr_domain *sd, const char *name, const char *span)
{
	struct sr_cpumask want = mask(span);

	assert_string_equal(sd->name, name);
	assert_true(sr_mask_equal(&sd->span, &want));
	assert_int_equal(sd->span_weight, sr_mask_weight(&want));
}

static bool has_note(const char (*notes)[SR_MACHINE_NOTE_LEN], int n, const char *part)
{
	for (int i = 0; i < n; i++)
		if (strstr(notes[i], part))
			return true;
	return false;
}

/* A scratch copy of a fixture, to damage. */
static void scratch(char *dir, size_t len, const char *from)
{
	char cmd[512];

	snprintf(dir, len, "/tmp/sr-topo-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a %s/. %s/", from, dir);
	assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------ snapshots */

#define NUMA_6_1 (SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_SERIALIZE | SD_OVERLAP | SD_NUMA)

static void test_debugfs_wins(void **state)
{
	struct loaded *l = load(M("2s2t-debugfs"), SR_ERA_AUTO, 0);
	const struct sr_cpu_topo *c = &l->t.cpu[3];

	assert_int_equal(l->t.source, SR_TOPO_DEBUGFS);
	assert_int_equal(l->t.nr_cpus, 4);
	assert_int_equal(l->t.nr_nodes, 2);
	assert_int_equal(l->t.node_distance[0][1], 21);
	assert_int_equal(l->t.node_distance[1][1], 10);
	/* Two sockets of one core of two threads: core_id 0 twice, unique cores 0 and 1. */
	assert_int_equal(l->t.cpu[1].core_id, 0);
	assert_int_equal(c->core_id, 1);
	assert_int_equal(c->sys_core_id, 0);
	assert_int_equal(c->package_id, 1);
	assert_int_equal(c->node, 1);
	assert_int_equal(c->llc_id, 2);
	assert_int_equal(c->llc_size, 2);
	assert_true(sr_mask_equal(&c->smt, &(struct sr_cpumask){ .bits = { 0xc }, .nw = 1 }));
	assert_int_equal(c->nr_levels, 2);
	assert_span(&c->sd[0], "SMT", "2-3");
	assert_int_equal(c->sd[0].imbalance_pct, 110);
	assert_int_equal(c->sd[0].origin, SR_SD_DEBUGFS);
	assert_true(c->sd[0].flags & SD_SHARE_CPUCAPACITY);
	assert_true(c->sd[0].flags & SD_PREFER_SIBLING);
	/* The kernel's tuned NUMA level, not the derived one (117, wake-affine). */
	assert_span(&c->sd[1], "NUMA", "0-3");
	assert_int_equal(c->sd[1].flags, NUMA_6_1);
	assert_int_equal(c->sd[1].imbalance_pct, 140);
	assert_false(c->sd[1].span_derived);
	/* What is not topology. */
	assert_string_equal(l->m.release, "6.1.0-18-amd64");
	assert_int_equal(l->m.nr_features, 26);
	assert_int_equal(sr_machine_feature(&l->m, "SIS_UTIL"), 1);
	assert_int_equal(sr_machine_feature(&l->m, "NEXT_BUDDY"), 0);
	assert_int_equal(sr_machine_feature(&l->m, "SIS_CACHE"), -1);
	assert_int_equal(l->m.migration_cost_ns, 500000);
	assert_int_equal(l->m.autogroup, 1);
	assert_string_equal(l->m.sources[SR_MI_DOMAINS], "sys/kernel/debug/sched/domains");
	assert_string_equal(l->m.sources[SR_MI_SPANS], "proc/schedstat");
	assert_string_equal(l->m.origin_source, "debugfs");
	assert_int_equal(l->m.nr_warnings, 0);
	assert_int_equal(l->m.nr_missing, 0);
	unload(l);
}

/* The same machine without debugfs: what derivation gives, hence what debugfs overrode. */
static void test_same_machine_derived(void **state)
{
	struct loaded *l = load(M("2s2t-sysfs"), SR_ERA_AUTO, 0);
	const struct sr_cpu_topo *c = &l->t.cpu[0];

	assert_int_equal(l->t.source, SR_TOPO_SYSFS);
	assert_int_equal(c->nr_levels, 2);
	assert_span(&c->sd[0], "SMT", "0-1");
	assert_int_equal(c->sd[0].origin, SR_SD_DERIVED);
	assert_span(&c->sd[1], "NUMA", "0-3");
	assert_int_equal(c->sd[1].imbalance_pct, 117);
	assert_int_equal(c->sd[1].flags, NUMA_6_1 | SD_BALANCE_EXEC | SD_BALANCE_FORK |
			 SD_WAKE_AFFINE);
	assert_true(has_note(l->m.missing, l->m.nr_missing, "sched/domains"));
	assert_int_equal(l->m.nr_features, -1);
	unload(l);
}

static void test_sysfs_419_ccx(void **state)
{
	struct loaded *l = load(M("4.19-ccx-sysfs"), SR_ERA_AUTO, 0);
	const struct sr_cpu_topo *c = &l->t.cpu[5];

	assert_int_equal(l->t.source, SR_TOPO_SYSFS);
	assert_int_equal(l->t.nr_cpus, 8);
	/* split SMT numbering: 1 and 5 are siblings; CCX LLCs 0-1,4-5 and 2-3,6-7 */
	assert_int_equal(c->core_id, 1);
	assert_int_equal(l->t.cpu[2].sys_core_id, 4);
	assert_int_equal(c->llc_id, 0);
	assert_int_equal(l->t.cpu[6].llc_id, 2);
	assert_int_equal(c->nr_levels, 3);
	assert_span(&c->sd[0], "SMT", "1,5");
	assert_span(&c->sd[1], "MC", "0-1,4-5");
	assert_span(&c->sd[2], "DIE", "0-7");
	/* the 3.16-5.9 era, from proc/version */
	assert_int_equal(c->sd[0].imbalance_pct, 110);
	assert_int_equal(c->sd[1].imbalance_pct, 117);
	assert_int_equal(c->sd[2].imbalance_pct, 125);
	assert_string_equal(l->m.sources[SR_MI_FEATURES], "sys/kernel/debug/sched_features");
	assert_string_equal(l->m.sources[SR_MI_MIGRATION_COST],
			    "proc/sys/kernel/sched_migration_cost_ns");
	assert_int_equal(sr_machine_feature(&l->m, "SIS_PROP"), 1);
	/* 4.19 has no die_id; its schedstat spans agree with the derived levels */
	assert_true(has_note(l->m.missing, l->m.nr_missing, "die_id"));
	assert_int_equal(l->m.nr_warnings, 0);
	unload(l);

	l = load(M("4.19-ccx-sysfs"), SR_ERA_511, 0);
	assert_int_equal(l->t.cpu[0].sd[2].imbalance_pct, 117);
	unload(l);
}

static void test_numa4_isolated(void **state)
{
	struct loaded *l = load(M("6.14-numa4-isolated"), SR_ERA_AUTO, 0);
	const struct sr_topo *t = &l->t;

	assert_int_equal(t->source, SR_TOPO_DEBUGFS);
	assert_int_equal(t->nr_nodes, 4);
	assert_int_equal(t->node_distance[0][1], 16);
	assert_int_equal(t->node_distance[1][2], 32);
	assert_int_equal(t->cpu[0].nr_levels, 3);
	assert_span(&t->cpu[0].sd[0], "MC", "0-1");
	/* SD_SHARE_LLC (6.10+) is our SD_SHARE_PKG_RESOURCES */
	assert_true(t->cpu[0].sd[0].flags & SD_SHARE_PKG_RESOURCES);
	assert_span(&t->cpu[0].sd[1], "NUMA", "0-3");
	assert_true(t->cpu[0].sd[1].flags & SD_WAKE_AFFINE);
	assert_span(&t->cpu[0].sd[2], "NUMA", "0-6");
	assert_false(t->cpu[0].sd[2].flags & SD_WAKE_AFFINE);
	assert_span(&t->cpu[4].sd[1], "NUMA", "4-6");
	/* isolcpus=domain,7: CPU 6 lost its MC level, CPU 7 has none */
	assert_int_equal(t->cpu[6].nr_levels, 2);
	assert_span(&t->cpu[6].sd[0], "NUMA", "4-6");
	assert_int_equal(t->cpu[6].llc_size, 1);
	assert_int_equal(t->cpu[7].nr_levels, 0);
	assert_int_equal(t->cpu[7].llc_id, 7);
	assert_true(has_note(l->m.warnings, l->m.nr_warnings, "the domains win"));
	assert_int_equal(l->m.autogroup, 0);
	assert_string_equal(l->m.release, "6.14.0-15-generic");
	unload(l);
}

static void test_missing_files(void **state)
{
	struct loaded *l = load(M("missing-files"), SR_ERA_AUTO, 0);
	const struct sr_topo *t = &l->t;
	static const char *const notes[] = {
		"proc/version", "cpu/online", "cpu3/topology/core_id", "LLC is assumed",
		"one node assumed", "sched_features", "migration_cost_ns", "autogroup",
	};

	assert_int_equal(t->source, SR_TOPO_SYSFS);
	assert_string_equal(l->m.release, "");
	for (size_t i = 0; i < SR_ARRAY_SIZE(notes); i++)
		if (!has_note(l->m.missing, l->m.nr_missing, notes[i]))
			fail_msg("no note about %s", notes[i]);
	assert_int_equal(t->cpu[3].sys_core_id, -1);
	assert_int_equal(t->nr_nodes, 1);
	/* LLC = package; two packages in one node give a NODE level */
	assert_int_equal(t->cpu[3].llc_id, 2);
	assert_int_equal(t->cpu[0].nr_levels, 2);
	assert_span(&t->cpu[0].sd[0], "MC", "0-1");
	assert_span(&t->cpu[0].sd[1], "NODE", "0-3");
	assert_int_equal(l->m.nr_features, -1);
	assert_int_equal(l->m.migration_cost_ns, -1);
	assert_int_equal(l->m.autogroup, -1);
	unload(l);
}

static void test_local_2cpu(void **state)
{
	struct loaded *l = load(M("local-2cpu"), SR_ERA_AUTO, 0);
	const struct sr_topo *t = &l->t;

	assert_int_equal(t->source, SR_TOPO_SYSFS);
	assert_int_equal(t->nr_cpus, 2);
	assert_int_equal(t->nr_nodes, 1);
	assert_int_equal(t->cpu[1].core_id, 1);
	assert_int_equal(t->cpu[1].llc_id, 0);
	assert_int_equal(t->cpu[1].nr_levels, 1);
	assert_span(&t->cpu[1].sd[0], "MC", "0-1");
	assert_int_equal(t->cpu[1].sd[0].imbalance_pct, 117);
	assert_memory_equal(l->m.release, "6.18.", 5);
	assert_int_equal(l->m.autogroup, 1);
	unload(l);
}

/*
 * proc/cmdline: sched_* boot parameters no mainline kernel has name a
 * patched scheduler; mainline ones, other parameters and init's arguments
 * after "--" do not.  A snapshot without a command line names none.
 */
static void test_kernel_patch_params(void **state)
{
	char dir[64];
	struct loaded *l;

	scratch(dir, sizeof(dir), M("2s2t-debugfs"));
	put(dir, "proc/cmdline", "quiet sched_verbose sched_vcpu_pack=15 isolcpus=1 "
	    "sched_other -- sched_init_arg=1\n");
	l = load(dir, SR_ERA_AUTO, 0);
	assert_string_equal(l->m.kernel_patch_params, "sched_vcpu_pack=15 sched_other");
	unload(l);
	/* a long one is cut, and those after it still listed */
	put(dir, "proc/cmdline", "sched_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaa=1 sched_b=2\n");
	l = load(dir, SR_ERA_AUTO, 0);
	assert_string_equal(l->m.kernel_patch_params,
			    "sched_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa sched_b=2");
	unload(l);
	put(dir, "proc/cmdline", "quiet sched_verbose sched_thermal_decay_shift=2\n");
	l = load(dir, SR_ERA_AUTO, 0);
	assert_string_equal(l->m.kernel_patch_params, "");
	unload(l);
	/* the sysctl at snapshot time replaces the boot parameter, or names it alone */
	put(dir, "proc/sys/kernel/sched_vcpu_pack", "6\n");
	l = load(dir, SR_ERA_AUTO, 0);
	assert_string_equal(l->m.kernel_patch_params, "sched_vcpu_pack=6");
	unload(l);
	put(dir, "proc/cmdline", "sched_vcpu_pack=15 sched_other\n");
	l = load(dir, SR_ERA_AUTO, 0);
	assert_string_equal(l->m.kernel_patch_params, "sched_other sched_vcpu_pack=6");
	assert_int_equal(sr_machine_vcpu_pack(&l->m), 6);
	unload(l);
	drop(dir);
}

/* The machine @dir loads with its current_driver holding @text (NULL: none). */
static void expect_driver(const char *dir, const char *text, const char *want)
{
	struct loaded *l;

	if (text)
		put(dir, "sys/devices/system/cpu/cpuidle/current_driver", text);
	l = load(dir, SR_ERA_AUTO, 0);
	assert_string_equal(l->m.cpuidle_driver, want);
	unload(l);
}

/*
 * cpuidle's driver: named, "none", or unknown when the snapshot lacks it;
 * a garbled one is unknown, not taken as none.
 */
static void test_cpuidle_driver(void **state)
{
	char dir[64];

	scratch(dir, sizeof(dir), M("2s2t-debugfs"));
	expect_driver(dir, NULL, "");
	expect_driver(dir, "intel_idle\n", "intel_idle");
	expect_driver(dir, "none\n", "none");
	expect_driver(dir, "\xff\xfe\n", "unknown");
	drop(dir);
}

static void test_broken(void **state)
{
	struct loaded *l = load(M("broken-garbage"), SR_ERA_AUTO, -EINVAL);

	assert_non_null(strstr(l->err.msg, "cpu2/topology/core_id: 'banana'"));
	unload(l);
	l = load(M("broken-offline"), SR_ERA_AUTO, -EINVAL);
	assert_non_null(strstr(l->err.msg, "cpu1 is offline"));
	unload(l);
	l = load(M("no-such-machine"), SR_ERA_AUTO, -ENOENT);
	unload(l);
	l = load("sockets=x", SR_ERA_AUTO, -EINVAL);
	assert_non_null(strstr(l->err.msg, "bad topology spec"));
	unload(l);
	l = load("", SR_ERA_AUTO, -EINVAL);
	unload(l);
	/* a file that is not JSON */
	l = load(M("local-2cpu/proc/version"), SR_ERA_AUTO, -EINVAL);
	assert_non_null(strstr(l->err.msg, "neither a snapshot directory nor topology JSON"));
	unload(l);
}

static void test_too_many_cpus(void **state)
{
	char dir[64], rel[64], online[32];
	struct loaded *l;

	scratch(dir, sizeof(dir), M("local-2cpu"));
	snprintf(online, sizeof(online), "0-%d\n", SR_MAX_CPUS + 1000);
	put(dir, "sys/devices/system/cpu/online", online);
	l = load(dir, SR_ERA_AUTO, -EINVAL);
	assert_non_null(strstr(l->err.msg, "SR_MAX_CPUS"));
	unload(l);
	put(dir, "sys/devices/system/cpu/online", "0-1\n");
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/online", SR_MAX_CPUS + 500);
	put(dir, rel, "1\n");
	l = load(dir, SR_ERA_AUTO, -EINVAL);
	assert_non_null(strstr(l->err.msg, "more CPUs than schedreplay supports"));
	unload(l);
	drop(dir);
}

static void test_damaged_debugfs(void **state)
{
	char dir[64];
	struct loaded *l;

	scratch(dir, sizeof(dir), M("2s2t-debugfs"));
	/* Spans from another boot: fewer domains than debugfs lists. */
	put(dir, "proc/schedstat", "version 15\ntimestamp 1\ncpu0 0 0 1 1 1 1 1 1 1\n"
	    "domain0 3 0 0\ncpu1 0 0 1 1 1 1 1 1 1\ncpu2 0 0 1 1 1 1 1 1 1\n"
	    "cpu3 0 0 1 1 1 1 1 1 1\n");
	l = load(dir, SR_ERA_AUTO, -EINVAL);
	assert_non_null(strstr(l->err.msg, "not one snapshot"));
	unload(l);
	put(dir, "proc/schedstat", "version 17\ncpu0 0\ndomain0 SMT 0x3 1\n");
	l = load(dir, SR_ERA_AUTO, -EINVAL);
	assert_non_null(strstr(l->err.msg, "a CPU mask"));
	unload(l);
	put(dir, "sys/kernel/debug/sched/domains/cpu1/domain0/flags", "sd_balance_newidle\n");
	l = load(dir, SR_ERA_AUTO, -EINVAL);
	unload(l);
	drop(dir);
}

/* No /proc/schedstat: spans by level name; unknown flag names are kept. */
static void test_debugfs_without_schedstat(void **state)
{
	char dir[64];
	struct loaded *l;

	scratch(dir, sizeof(dir), M("2s2t-debugfs"));
	assert_int_equal(unlink(strcat(strcpy((char[96]){ 0 }, dir), "/proc/schedstat")), 0);
	put(dir, "sys/kernel/debug/sched/domains/cpu0/domain1/flags",
	    "SD_BALANCE_NEWIDLE SD_SERIALIZE SD_NUMA SD_FUTURE_THING \n");
	l = load(dir, SR_ERA_AUTO, 0);
	assert_int_equal(l->t.source, SR_TOPO_DEBUGFS);
	assert_true(l->t.cpu[0].sd[1].span_derived);
	assert_span(&l->t.cpu[0].sd[1], "NUMA", "0-3");
	assert_string_equal(l->t.cpu[0].sd[1].unknown_flags, "SD_FUTURE_THING");
	assert_int_equal(l->t.cpu[0].sd[1].flags, SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE |
			 SD_SERIALIZE | SD_NUMA);
	assert_true(has_note(l->m.missing, l->m.nr_missing, "matched from the topology"));
	unload(l);
	drop(dir);
}

/* Before 5.10 the flags are a number, before 5.13 under /proc/sys/kernel/sched_domain. */
static void test_numeric_sysctl_flags(void **state)
{
	static const char *const names[] = { "SMT", "MC", "DIE" };
	/* 4.19 values: SMT 0x12af, MC 0x122f, DIE 0x102f; DIE of cpu0 also 0x8040 */
	static const char *const flags[] = { "4783\n", "4655\n", "4143\n" };
	char dir[64], rel[96];
	struct loaded *l;

	scratch(dir, sizeof(dir), M("4.19-ccx-sysfs"));
	for (int cpu = 0; cpu < 8; cpu++) {
		for (int lvl = 0; lvl < 3; lvl++) {
			int n = snprintf(rel, sizeof(rel), "proc/sys/kernel/sched_domain/cpu%d/"
					 "domain%d/", cpu, lvl);

			strcpy(rel + n, "name");
			put(dir, rel, names[lvl]);
			strcpy(rel + n, "flags");
			put(dir, rel, cpu == 0 && lvl == 2 ? "36975\n" : flags[lvl]);
			strcpy(rel + n, "imbalance_pct");
			put(dir, rel, lvl ? "125\n" : "110\n");
		}
	}
	l = load(dir, SR_ERA_AUTO, 0);
	assert_int_equal(l->t.source, SR_TOPO_DEBUGFS);
	assert_int_equal(l->t.cpu[3].sd[0].origin, SR_SD_SYSCTL);
	assert_int_equal(l->t.cpu[3].sd[0].flags, SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE |
			 SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE |
			 SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES | SD_PREFER_SIBLING);
	assert_int_equal(l->t.cpu[3].sd[1].imbalance_pct, 125);
	assert_span(&l->t.cpu[3].sd[1], "MC", "2-3,6-7");
	/* 36975 = 0x906f: 0x40 is SD_ASYM_CPUCAPACITY in 4.19, 0x8000 unknown */
	assert_true(l->t.cpu[0].sd[2].flags & SD_ASYM_CPUCAPACITY);
	assert_string_equal(l->t.cpu[0].sd[2].unknown_flags, "0x8000");
	assert_string_equal(l->m.sources[SR_MI_DOMAINS], "proc/sys/kernel/sched_domain");
	unload(l);
	drop(dir);
}

/* ------------------------------------------------------------ JSON */

static void assert_same_topology(const struct sr_topo *a, const struct sr_topo *b)
{
	assert_int_equal(a->nr_cpus, b->nr_cpus);
	assert_int_equal(a->nr_nodes, b->nr_nodes);
	assert_memory_equal(a->node_distance, b->node_distance, sizeof(a->node_distance));
	for (int cpu = 0; cpu < a->nr_cpus; cpu++) {
		const struct sr_cpu_topo *x = &a->cpu[cpu], *y = &b->cpu[cpu];

		assert_int_equal(x->core_id, y->core_id);
		assert_int_equal(x->sys_core_id, y->sys_core_id);
		assert_int_equal(x->package_id, y->package_id);
		assert_int_equal(x->die_id, y->die_id);
		assert_int_equal(x->node, y->node);
		assert_int_equal(x->llc_id, y->llc_id);
		assert_int_equal(x->llc_size, y->llc_size);
		assert_true(sr_mask_equal(&x->smt, &y->smt));
		assert_true(sr_mask_equal(&x->llc, &y->llc));
		assert_int_equal(x->nr_levels, y->nr_levels);
		for (int l = 0; l < x->nr_levels; l++) {
			assert_string_equal(x->sd[l].name, y->sd[l].name);
			assert_int_equal(x->sd[l].flags, y->sd[l].flags);
			assert_int_equal(x->sd[l].imbalance_pct, y->sd[l].imbalance_pct);
			assert_int_equal(x->sd[l].span_weight, y->sd[l].span_weight);
			assert_true(sr_mask_equal(&x->sd[l].span, &y->sd[l].span));
			assert_int_equal(x->sd[l].origin, y->sd[l].origin);
			assert_int_equal(x->sd[l].span_derived, y->sd[l].span_derived);
			assert_string_equal(x->sd[l].unknown_flags, y->sd[l].unknown_flags);
		}
	}
}

/* The JSON text without what says how this copy was loaded. */
static char *dump_body(const struct loaded *l)
{
	json_t *doc = sr_topo_to_json(&l->t, &l->m);
	char *s;

	assert_non_null(doc);
	json_object_del(doc, "source");
	json_object_del(doc, "loaded_from");
	s = json_dumps(doc, JSON_INDENT(1));
	json_decref(doc);
	assert_non_null(s);
	return s;
}

static void round_trip(const char *arg)
{
	char path[] = "/tmp/sr-topo-json-XXXXXX";
	struct loaded *a = load(arg, SR_ERA_AUTO, 0), *b;
	json_t *doc = sr_topo_to_json(&a->t, &a->m);
	char *s1, *s2;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(json_dump_file(doc, path, JSON_INDENT(2)), 0);
	json_decref(doc);
	b = load(path, SR_ERA_AUTO, 0);
	assert_int_equal(b->t.source, SR_TOPO_JSON);
	assert_string_equal(b->m.origin_source, a->m.origin_source);
	assert_same_topology(&a->t, &b->t);
	assert_memory_equal(&a->m.features, &b->m.features, sizeof(a->m.features));
	assert_int_equal(a->m.nr_missing, b->m.nr_missing);
	assert_int_equal(a->m.migration_cost_ns, b->m.migration_cost_ns);
	assert_string_equal(a->m.kernel_patch_params, b->m.kernel_patch_params);
	s1 = dump_body(a);
	s2 = dump_body(b);
	assert_string_equal(s1, s2);
	free(s1);
	free(s2);
	unload(a);
	unload(b);
	unlink(path);
}

static void test_json_round_trip(void **state)
{
	round_trip(M("2s2t-debugfs"));
	round_trip(M("6.14-numa4-isolated"));
	round_trip(M("4.19-ccx-sysfs"));
	round_trip(M("missing-files"));
	round_trip("sockets=2,llcs-per-socket=2,cores-per-llc=2,threads=2,nodes=4");
}

static int load_json_text(struct loaded *l, const char *text)
{
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);
	int ret;

	assert_non_null(doc);
	sr_machine_init(&l->m);
	ret = sr_topo_from_json(&l->t, &l->m, doc, SR_ERA_AUTO, &l->err);
	json_decref(doc);
	return ret;
}

/* A hand-written file: placement only, the levels derived; and its errors. */
static void test_json_hand_written(void **state)
{
	static const char head[] = "{\"format\": \"schedreplay-topology\", \"format_version\": 1, "
		"\"nr_cpus\": 4, \"nr_nodes\": 2, \"node_distance\": [[10, 40], [40, 10]], "
		"\"machine\": {\"release\": \"6.12.1\"}, \"cpus\": [";
	static const char cpus[] =
		"{\"cpu\": 0, \"core\": 0, \"package\": 0, \"node\": 0, \"smt\": \"0\", "
		"\"llc_span\": \"0-1\"}, {\"cpu\": 1, \"core\": 1, \"package\": 0, \"node\": 0, "
		"\"smt\": \"1\", \"llc_span\": \"0-1\"}, {\"cpu\": 2, \"core\": 2, \"package\": 1, "
		"\"node\": 1, \"smt\": \"2\", \"llc_span\": \"2-3\"}, {\"cpu\": 3, \"core\": 3, "
		"\"package\": 1, \"node\": 1, \"smt\": \"3\", \"llc_span\": \"2-3\"}]}";
	struct loaded *l = calloc(1, sizeof(*l));
	char text[2048];

	assert_non_null(l);
	snprintf(text, sizeof(text), "%s%s", head, cpus);
	assert_int_equal(load_json_text(l, text), 0);
	assert_int_equal(l->t.source, SR_TOPO_JSON);
	assert_int_equal(l->t.cpu[2].nr_levels, 2);
	assert_span(&l->t.cpu[2].sd[0], "MC", "2-3");
	assert_span(&l->t.cpu[2].sd[1], "NUMA", "0-3");
	assert_false(l->t.cpu[2].sd[1].flags & SD_WAKE_AFFINE);	/* distance 40 */
	assert_int_equal(l->t.cpu[2].die_id, 1);
	assert_int_equal(l->t.cpu[2].sys_core_id, -1);
	sr_topo_free(&l->t);

	snprintf(text, sizeof(text), "%s%s", head, "]}");
	assert_int_equal(load_json_text(l, text), -EINVAL);
	assert_non_null(strstr(l->err.msg, "cpus"));
	snprintf(text, sizeof(text), "%s", "{\"format\": \"something-else\"}");
	assert_int_equal(load_json_text(l, text), -EINVAL);
	strcpy(text, head);
	strcat(text, cpus);
	memcpy(strstr(text, "\"0-1\""), "\"0-9\"", 5);
	assert_int_equal(load_json_text(l, text), -EINVAL);
	assert_non_null(strstr(l->err.msg, "cpus[0].llc_span"));
	free(l);
}

/* ------------------------------------------------------------ command */

static void test_command(void **state)
{
	char path[] = "/tmp/sr-topo-cmd-XXXXXX";
	struct sr_cli cli = { .prog = "schedreplay" };
	char *argv[] = { "topology", "--root", M("2s2t-debugfs"), "--json", "-o", path, NULL };
	char *bad[] = { "topology", "--root", M("broken-offline"), "-o", path, NULL };
	json_error_t jerr;
	json_t *doc;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sr_cmd_topology(&cli, 6, argv), SR_EXIT_OK);
	doc = json_load_file(path, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "source")), "debugfs");
	assert_int_equal(json_array_size(json_object_get(doc, "hierarchies")), 1);
	json_decref(doc);
	argv[3] = "-o";
	argv[4] = path;
	assert_int_equal(sr_cmd_topology(&cli, 5, argv), SR_EXIT_OK);	/* text */
	assert_int_equal(sr_cmd_topology(&cli, 5, bad), SR_EXIT_BAD_INPUT);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debugfs_wins),
		cmocka_unit_test(test_same_machine_derived),
		cmocka_unit_test(test_sysfs_419_ccx),
		cmocka_unit_test(test_numa4_isolated),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_local_2cpu),
		cmocka_unit_test(test_kernel_patch_params),
		cmocka_unit_test(test_cpuidle_driver),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_too_many_cpus),
		cmocka_unit_test(test_damaged_debugfs),
		cmocka_unit_test(test_debugfs_without_schedstat),
		cmocka_unit_test(test_numeric_sysctl_flags),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_hand_written),
		cmocka_unit_test(test_command),
	};

	return cmocka_run_group_tests_name("topology-load", tests, NULL, NULL);
}
