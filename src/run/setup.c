// SPDX-License-Identifier: GPL-2.0
/*
 * Setting a run up: the topology (given, snapshotted or assumed flat, checked
 * against the trace) and the policies with the machine's sched_features and
 * migration cost applied, plus the reference model the state follows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy.h"
#include "run.h"
#include "run-priv.h"

/* Used when the trace names no kernel we have a preset for. */
#define SR_DEFAULT_PRESET "linux-6.12"

static void check_machine(struct sr_run *r)
{
	const struct sr_machine *m = &r->machine;

	if (r->topo.source == SR_TOPO_SPEC)
		return;		/* a spec says nothing but the topology */
	if (m->release[0] && r->info->release[0] && strcmp(m->release, r->info->release))
		sr_run_warn(r, "the machine snapshot is of kernel %s but the trace of %s",
			    m->release, r->info->release);
	else if (!m->release[0] && r->info->release[0])
		sr_run_warn(r, "the machine snapshot does not name its kernel: nothing shows it is "
			    "the machine of this %s trace", r->info->release);
	if (m->nr_features <= 0)
		sr_run_warn(r, "the machine snapshot has no sched_features (debugfs unreadable, "
			    "e.g. lockdown): the preset's defaults are assumed");
	if (m->migration_cost_ns < 0)
		sr_run_warn(r, "the machine snapshot has no migration cost: the preset's %s is "
			    "assumed", "500 us");
}

/* --affinity PID=CPULIST (checked by the CLI): a CPU the trace lacks is bad input. */
static int user_affinity(struct sr_run *r, const char *arg, struct sr_affinity *a,
			 struct sr_err *err)
{
	int cpu;

	a->pid = atoi(arg);
	sr_mask_clear(&a->mask);
	if (sr_cpulist_parse(strchr(arg, '=') + 1, &a->mask))
		return sr_err_set(err, -EINVAL, "--affinity %s: not a CPU list", arg);
	sr_for_each_cpu(cpu, &a->mask)
		if (cpu >= r->info->nr_cpus)
			return sr_err_set(err, -EINVAL, "--affinity %s: the trace has CPUs 0-%d",
					  arg, r->info->nr_cpus - 1);
	return 0;
}

/*
 * Tasks' allowed CPUs: a snapshot's proc/<pid>/status (src/machine/affinity.c),
 * then --affinity, which wins for its pid.  Sorted by pid for the state.
 */
static int setup_affinity(struct sr_run *r, struct sr_err *err)
{
	struct sr_affinity *snap = NULL, *all;
	int n = 0, ret;

	if (r->opts.topology && r->topo.source != SR_TOPO_SPEC && r->topo.source != SR_TOPO_JSON) {
		n = sr_affinity_load(r->opts.topology, r->info->nr_cpus, &snap);
		if (n < 0)
			return sr_err_set(err, n, "cannot read the tasks' affinity in %s",
					  r->opts.topology);
	}
	if (!n && !r->opts.nr_affinity)
		return 0;
	all = realloc(snap, (size_t)(n + r->opts.nr_affinity) * sizeof(*all));
	if (!all) {
		free(snap);
		return sr_err_set(err, -ENOMEM, "out of memory");
	}
	r->affinity = all;
	r->nr_affinity = n;
	for (int i = 0; i < r->opts.nr_affinity; i++) {
		struct sr_affinity a;
		int j = 0;

		ret = user_affinity(r, r->opts.affinity[i], &a, err);
		if (ret)
			return ret;
		while (j < r->nr_affinity && all[j].pid != a.pid)
			j++;
		all[j] = a;		/* the snapshot's entry for that pid, or a new one */
		r->nr_affinity += j == r->nr_affinity;
	}
	sr_affinity_sort(all, (size_t)r->nr_affinity);
	return 0;
}

int sr_run_setup_topology(struct sr_run *r, struct sr_err *err)
{
	static const char beside[] = " (the snapshot found beside the trace; --topology names "
				     "another, --topology flat none)";
	enum sr_topo_era era = sr_topo_era_of(r->info->release);
	int ret;

	sr_machine_init(&r->machine);
	if (!r->opts.topology) {
		ret = sr_topo_flat(&r->topo, r->info->nr_cpus, era);
		if (!ret)
			sr_run_warn(r, "topology not given: assumed flat (%d CPUs, one LLC, no SMT, "
				    "one node); SMT/LLC/NUMA conclusions are weakened",
				    r->info->nr_cpus);
		return ret ? sr_err_set(err, ret, "cannot build a flat topology") :
			     setup_affinity(r, err);
	}
	ret = sr_topo_load(&r->topo, &r->machine, r->opts.topology, era, err);
	if (ret && r->opts.topology_beside && err) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		return sr_err_set(err, ret, "%s%s", why, beside);
	}
	if (ret)
		return ret;
	if (r->topo.nr_cpus != r->info->nr_cpus)
		return sr_err_set(err, -EINVAL, "%s describes %d CPUs but the trace has %d%s",
				  r->opts.topology_beside ? r->opts.topology : "--topology",
				  r->topo.nr_cpus, r->info->nr_cpus,
				  r->opts.topology_beside ? beside : "");
	check_machine(r);
	return setup_affinity(r, err);
}

/*
 * A machine snapshot knows the sched_features and migration cost the kernel
 * really ran with: they override the preset's defaults for the policy
 * picked to model that kernel.
 */
static int apply_machine(struct sr_run *r, struct sr_policy *pol)
{
	int n = 0;

	for (size_t i = 0; i < sr_knob_count(); i++) {
		const struct sr_knob_desc *k = sr_knob_at(i);
		int on = sr_machine_feature(&r->machine, k->name);

		if (k->kind != SR_KNOB_FEATURE || on < 0 || !sr_knob_applies(k, pol->knobs.kver))
			continue;
		if (!!(pol->knobs.features & k->feature) != on)
			n++;
		sr_knob_set(&pol->knobs, k, on);
	}
	if (r->machine.migration_cost_ns >= 0) {
		n += pol->knobs.migration_cost_ns != r->machine.migration_cost_ns;
		pol->knobs.migration_cost_ns = r->machine.migration_cost_ns;
	}
	return n;
}

/*
 * The 6.18.44-fc guest kernel's sched_vcpu_pack (its sysctl in the snapshot,
 * else the boot parameter) sets the knob of the same name (replay/vcpu_pack-6.18fc.c) for the recorded kernel.
 */
static void apply_vcpu_pack(struct sr_run *r, struct sr_policy *pol)
{
	int v = sr_machine_vcpu_pack(&r->machine);
	const struct sr_knob_desc *k = sr_knob_find("vcpu_pack");
	size_t len = strlen(r->policy_note);

	if (v < 0 || !k || !sr_knob_applies(k, pol->knobs.kver) || sr_knob_set(&pol->knobs, k, v))
		return;
	/* a model mainline does not have: its label says so (and is a spec that gives it) */
	len = strlen(pol->name);
	snprintf(pol->name + len, sizeof(pol->name) - len, "%svcpu_pack=%d",
		 strchr(pol->name, ':') ? "," : ":", v);
	len = strlen(r->policy_note);
	snprintf(r->policy_note + len, sizeof(r->policy_note) - len,
		 "; vcpu_pack=%d from the machine snapshot (sched_vcpu_pack, a placement patch "
		 "of the 6.18.44-fc guest kernel)", v);
}

/*
 * The reference: the model of the recorded kernel, with kver from the
 * trace's own release (a 6.3 trace runs the 6.1 family with 6.3's era
 * gates) and the machine snapshot's sched_features.  The state follows the
 * kernel's hints through its answers; with no --policy it is the policy.
 * @quiet: only the kernel's era is wanted (--policy none): no note, no
 * warning, and no reference run (has_ref stays false).
 */
static int setup_reference(struct sr_run *r, bool quiet, struct sr_err *err)
{
	const char *rel = r->info->release;
	const char *name = rel[0] ? sr_preset_for_release(rel) : NULL;

	if (name) {
		snprintf(r->policy_note, sizeof(r->policy_note),
			 "preset %s matches the recorded kernel %s", name, rel);
		if (sr_policy_from_spec(&r->ref, rel))
			return sr_err_set(err, -EINVAL, "internal: release %s does not parse", rel);
	} else {
		name = SR_DEFAULT_PRESET;
		snprintf(r->policy_note, sizeof(r->policy_note),
			 "default preset %s: %s", name, rel[0] ?
			 "no preset models the recorded kernel" : "the trace names no kernel");
		if (sr_policy_from_spec(&r->ref, name))
			return sr_err_set(err, -EINVAL, "internal: preset %s does not parse", name);
	}
	if (quiet)
		return 0;
	r->has_ref = true;
	if (strncmp(r->ref.name, name, sizeof(r->ref.name)))
		sr_run_warn(r, "no preset is named after kernel %s: the recorded kernel is modelled "
			    "by %s (kernels %s) with %s's era gates", rel, name,
			    r->ref.kernel_range ? r->ref.kernel_range : "?", r->ref.name);
	apply_vcpu_pack(r, &r->ref);
	if (r->machine.nr_features > 0 || r->machine.migration_cost_ns >= 0) {
		int changed = apply_machine(r, &r->ref);
		size_t len = strlen(r->policy_note);

		snprintf(r->policy_note + len, sizeof(r->policy_note) - len,
			 "; sched_features and migration cost from the machine snapshot "
			 "(%d differ from the preset)", changed);
	}
	return 0;
}

static bool same_policy(const struct sr_policy *a, const struct sr_policy *b)
{
	return a->ops == b->ops && !memcmp(&a->knobs, &b->knobs, sizeof(a->knobs));
}

/* A release that no preset is named after runs the nearest older preset: say so. */
static void warn_mapped(struct sr_run *r, const struct sr_policy *pol)
{
	size_t n = strcspn(pol->name, ":");

	if (pol->preset && (strlen(pol->preset) != n || strncmp(pol->name, pol->preset, n)))
		sr_run_warn(r, "policy %.*s has no preset of its own: it runs %s's model "
			    "(kernels %s) with the era gates of %.*s", (int)n, pol->name,
			    pol->preset, pol->kernel_range ? pol->kernel_range : "?", (int)n,
			    pol->name);
}

/* --policy as given, else the reference; --policy none: nothing at all. */
int sr_run_setup_policies(struct sr_run *r, struct sr_err *err)
{
	int ret;

	r->ref_index = -1;
	if (r->opts.nr_policies == 1 && !strcmp(r->opts.policies[0], "none")) {
		/*
		 * Accounting only: no model runs at placements.  The state still
		 * follows the recorded kernel's era (wakelists, delayed dequeue),
		 * so placements are numbered as in any other run (explain's first
		 * pass relies on it).
		 */
		ret = setup_reference(r, true, err);
		snprintf(r->policy_note, sizeof(r->policy_note), "--policy none: nothing replayed");
		return ret;
	}
	ret = setup_reference(r, false, err);
	if (ret)
		return ret;
	if (!r->opts.nr_policies) {
		if (!sr_preset_for_release(r->info->release))
			sr_run_warn(r, "%s", r->policy_note);
		r->policy[0] = r->ref;
		r->nr_policies = 1;
		r->ref_index = 0;
		return 0;
	}
	snprintf(r->policy_note, sizeof(r->policy_note), "given with --policy");
	for (int i = 0; i < r->opts.nr_policies; i++) {
		struct sr_err why = { "" };

		if (sr_policy_parse(&r->policy[i], r->opts.policies[i], &why))
			return sr_err_set(err, -EINVAL, "bad --policy '%s': %s",
					  r->opts.policies[i], why.msg);
		warn_mapped(r, &r->policy[i]);
		if (r->ref_index < 0 && same_policy(&r->policy[i], &r->ref))
			r->ref_index = i;
	}
	r->nr_policies = r->opts.nr_policies;
	return 0;
}

/* ------------------------------------------------------------ hooks */

/* The reference's answers and the hints each leaves, by WF_SYNC value, for the state. */
