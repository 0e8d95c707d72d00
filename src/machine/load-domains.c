// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot's own sched domains: names, flags and imbalance_pct from
 * debugfs (5.13+) or the older sysctl directory, spans from /proc/schedstat
 * (the only place 6.x prints them), checked against the derived levels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine-priv.h"

/* ------------------------------------------------------------ kernel domains */

/* SD_* bit @bit of kernels that printed flags as a number (before 5.10). */
static unsigned int numeric_bit(unsigned int kv, int bit)
{
	/* 5.8 dropped SD_LOAD_BALANCE and renumbered. */
	static const unsigned int v58[] = {
		SD_BALANCE_NEWIDLE, SD_BALANCE_EXEC, SD_BALANCE_FORK, SD_BALANCE_WAKE,
		SD_WAKE_AFFINE, SD_ASYM_CPUCAPACITY, SD_SHARE_CPUCAPACITY, SD_SHARE_POWERDOMAIN,
		SD_SHARE_PKG_RESOURCES, SD_SERIALIZE, SD_ASYM_PACKING, SD_PREFER_SIBLING,
		SD_OVERLAP, SD_NUMA,
	};
	static const unsigned int old[] = {
		SD_LOAD_BALANCE, SD_BALANCE_NEWIDLE, SD_BALANCE_EXEC, SD_BALANCE_FORK,
		SD_BALANCE_WAKE, SD_WAKE_AFFINE, 0, SD_SHARE_CPUCAPACITY, 0,
		SD_SHARE_PKG_RESOURCES, SD_SERIALIZE, SD_ASYM_PACKING, SD_PREFER_SIBLING,
		SD_OVERLAP, SD_NUMA,
	};

	if (kv >= SR_KV(5, 8))
		return bit < (int)SR_ARRAY_SIZE(v58) ? v58[bit] : 0;
	/* 0x40 and 0x100 changed meaning; unknown kernels get the 4.10-5.7 one. */
	if (bit == 6)
		return kv && kv < SR_KV(4, 10) ? SD_PREFER_LOCAL : SD_ASYM_CPUCAPACITY;
	if (bit == 8)
		return kv && kv < SR_KV(3, 5) ? SD_POWERSAVINGS_BALANCE :
		       SD_SHARE_POWERDOMAIN;
	return bit < (int)SR_ARRAY_SIZE(old) ? old[bit] : 0;
}

static void unknown_flag(struct snap *s, int cpu, int lvl, struct sr_domain *sd,
			 const char *name)
{
	if (!sr_sd_add_unknown(sd, name) && sr_ld_first_note(s, NOTE_UNKNOWN_FULL))
		sr_ld_warn(s, "cpu%d domain%d: unknown flag %s not kept (too many)", cpu, lvl, name);
}

static void numeric_flags(struct snap *s, unsigned long v, int cpu, int lvl,
			  struct sr_domain *sd)
{
	for (int bit = 0; bit < 32; bit++) {
		unsigned int f = numeric_bit(s->kv, bit);
		char name[16];

		if (!(v & (1UL << bit)))
			continue;
		if (f) {
			sd->flags |= f;
			continue;
		}
		snprintf(name, sizeof(name), "0x%lx", 1UL << bit);
		unknown_flag(s, cpu, lvl, sd, name);
	}
}

/* 5.10+ print names ("SD_BALANCE_NEWIDLE SD_SHARE_PKG_RESOURCES "), older a number. */
static int parse_flags(struct snap *s, const char *rel, char *text, int cpu, int lvl,
		       struct sr_domain *sd)
{
	size_t n = strspn(text, "0123456789");
	char *save = NULL, *w;

	if (n && !text[n + strspn(text + n, " \n")]) {
		if (!s->kv && sr_ld_first_note(s, NOTE_NUMERIC))
			sr_ld_warn(s, "numeric domain flags of an unknown kernel: read with the "
			     "4.10-5.7 values");
		numeric_flags(s, strtoul(text, NULL, 10), cpu, lvl, sd);
	} else {
		for (w = strtok_r(text, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
			unsigned int f = sr_sd_flag_by_name(w);

			if (strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(w))
				return sr_ld_garbage(s, rel, w, "an SD_ flag name");
			if (f)
				sd->flags |= f;
			else
				unknown_flag(s, cpu, lvl, sd, w);
		}
	}
	/* SD_LOAD_BALANCE went in 5.8: every domain balances since. */
	if (!n || s->kv >= SR_KV(5, 8))
		sd->flags |= SD_LOAD_BALANCE;
	return 0;
}

static int required(struct snap *s, const char *rel, int ret)
{
	if (!sr_ld_absent(ret))
		return ret;
	return sr_err_set(s->err, -EINVAL, "%s/%s: %s: the domain is incomplete", s->root.path, rel,
			  strerror(-ret));
}

static int kernel_level(struct snap *s, const char *dir, int cpu, int lvl,
			struct sr_domain *sd)
{
	char rel[192], *text;
	int n = snprintf(rel, sizeof(rel), "%s/cpu%d/domain%d/", dir, cpu, lvl), ret;
	long long pct;

	snprintf(rel + n, sizeof(rel) - n, "name");
	ret = required(s, rel, sr_ld_word(s, rel, sd->name, sizeof(sd->name)));
	if (ret)
		return ret;
	snprintf(rel + n, sizeof(rel) - n, "flags");
	ret = required(s, rel, sr_root_read(&s->root, rel, &text));
	if (ret)
		return ret;
	ret = parse_flags(s, rel, text, cpu, lvl, sd);
	free(text);
	if (ret)
		return ret;
	snprintf(rel + n, sizeof(rel) - n, "imbalance_pct");
	ret = sr_ld_int(s, rel, 1, 10000, &pct);
	if (sr_ld_absent(ret)) {
		if (sr_ld_first_note(s, NOTE_PCT))
			sr_ld_missing(s, "%s: %s: imbalance_pct of the era assumed", rel, strerror(-ret));
		pct = sr_sd_default_pct(s->era, sd->flags);
		ret = 0;
	}
	sd->imbalance_pct = (unsigned int)pct;
	return ret;
}

static int kernel_cpu(struct snap *s, const char *dir, enum sr_sd_origin origin, int cpu,
		      struct sr_cpu_topo *kc)
{
	char rel[160];
	int lvl;

	snprintf(rel, sizeof(rel), "%s/cpu%d", dir, cpu);
	if (!sr_root_is_dir(&s->root, rel))
		return sr_err_set(s->err, -EINVAL, "%s/%s: missing, yet other CPUs' domains are "
				  "there", s->root.path, rel);
	for (lvl = 0; ; lvl++) {
		int ret;

		snprintf(rel, sizeof(rel), "%s/cpu%d/domain%d", dir, cpu, lvl);
		if (!sr_root_is_dir(&s->root, rel))
			break;
		if (lvl == SR_MAX_LEVELS)
			return sr_err_set(s->err, -EINVAL, "%s/%s: more than %d domain levels",
					  s->root.path, rel, SR_MAX_LEVELS);
		kc->sd[lvl] = (struct sr_domain){ .origin = origin };
		ret = kernel_level(s, dir, cpu, lvl, &kc->sd[lvl]);
		if (ret)
			return ret;
	}
	/* An isolated CPU (isolcpus=domain) has none: kept as the kernel has it. */
	kc->nr_levels = lvl;
	return 0;
}

/* ------------------------------------------------------------ /proc/schedstat */

static char *next_tok(char **p)
{
	char *t = *p + strspn(*p, " "), *e;

	if (!*t)
		return NULL;
	e = t + strcspn(t, " ");
	if (*e)
		*e++ = '\0';
	*p = e;
	return t;
}

static bool is_hex_mask(const char *w)
{
	return w[0] && strspn(w, "0123456789abcdefABCDEF,") == strlen(w);
}

/* "domainN [NAME] MASK counters...": the name is there from version 17 (6.14). */
static int schedstat_domain(struct snap *s, const char *num, char *p, int version, int cpu,
			    struct sr_cpu_topo *ss)
{
	char *a = next_tok(&p), *mask = a, *end;
	long lvl = strtol(num, &end, 10);
	struct sr_domain *sd;
	int ret;

	if (cpu < 0 || *end || end == num || !a || lvl != ss[cpu].nr_levels)
		return sr_ld_garbage(s, "proc/schedstat", num - 6, "a domain line of the CPU above it");
	if (lvl >= SR_MAX_LEVELS)
		return sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: cpu%d has more than %d "
				  "domains", s->root.path, cpu, SR_MAX_LEVELS);
	sd = &ss[cpu].sd[lvl];
	if (version >= 17 || !is_hex_mask(a)) {
		snprintf(sd->name, sizeof(sd->name), "%s", a);
		mask = next_tok(&p);
	}
	ret = mask ? sr_cpumask_parse_hex(mask, &sd->span) : -EINVAL;
	if (ret == -ERANGE)
		return sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: cpu%d domain%ld spans CPUs "
				  "beyond %d (SR_MAX_CPUS)", s->root.path, cpu, lvl, SR_MAX_CPUS - 1);
	if (ret)
		return sr_ld_garbage(s, "proc/schedstat", mask ? mask : a, "a CPU mask");
	ss[cpu].nr_levels++;
	return 0;
}

static int schedstat_cpu(struct snap *s, const char *num, struct sr_cpumask *seen, int *cpu)
{
	char *end;
	long c = strtol(num, &end, 10);

	if (*end || end == num || c < 0)
		return sr_ld_garbage(s, "proc/schedstat", num - 3, "a cpuN line");
	if (c >= s->t->nr_cpus)
		return sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: lists cpu%ld, which is not "
				  "online in the snapshot", s->root.path, c);
	*cpu = (int)c;
	sr_mask_set(seen, *cpu);
	return 0;
}

/* Every CPU's domain spans (and names, version 16+) from /proc/schedstat into @ss. */
static int parse_schedstat(struct snap *s, char *text, struct sr_cpu_topo *ss)
{
	char *save = NULL, *line;
	struct sr_cpumask seen;
	int version = 0, cpu = -1, ret = 0;

	sr_mask_clear(&seen);
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *w = next_tok(&p);

		if (!w)
			continue;
		if (!strcmp(w, "version") && (w = next_tok(&p)))
			version = atoi(w);
		else if (!strncmp(w, "cpu", 3))
			ret = schedstat_cpu(s, w + 3, &seen, &cpu);
		else if (!strncmp(w, "domain", 6))
			ret = schedstat_domain(s, w + 6, p, version, cpu, ss);
		/* timestamp, and whatever later versions add: not ours. */
	}
	if (!ret && !version)
		ret = sr_ld_garbage(s, "proc/schedstat", text, "a schedstat file (no version line)");
	for (int c = 0; !ret && c < s->t->nr_cpus; c++)
		if (!sr_mask_test(&seen, c))
			ret = sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: no line for cpu%d",
					 s->root.path, c);
	return ret;
}

/* @ss filled from /proc/schedstat: 1; 0 when the snapshot has none. */
static int read_schedstat(struct snap *s, struct sr_cpu_topo *ss)
{
	char *text;
	int ret = sr_root_read(&s->root, "proc/schedstat", &text);

	if (sr_ld_absent(ret)) {
		sr_ld_missing(s, "proc/schedstat: %s", strerror(-ret));
		return 0;
	}
	if (ret)
		return sr_err_set(s->err, ret, "%s/proc/schedstat: %s", s->root.path, strerror(-ret));
	ret = parse_schedstat(s, text, ss);
	free(text);
	if (ret)
		return ret;
	snprintf(s->m->sources[SR_MI_SPANS], sizeof(s->m->sources[0]), "proc/schedstat");
	return 1;
}

/* ------------------------------------------------------------ spans */

static int spans_from_schedstat(struct snap *s, struct sr_cpu_topo *kd,
				const struct sr_cpu_topo *ss, const char *dir)
{
	for (int cpu = 0; cpu < s->t->nr_cpus; cpu++) {
		if (ss[cpu].nr_levels != kd[cpu].nr_levels)
			return sr_err_set(s->err, -EINVAL, "%s: proc/schedstat lists %d domains "
					  "for cpu%d, %s %d: not one snapshot", s->root.path,
					  ss[cpu].nr_levels, cpu, dir, kd[cpu].nr_levels);
		for (int l = 0; l < kd[cpu].nr_levels; l++) {
			const struct sr_domain *sd = &ss[cpu].sd[l];

			kd[cpu].sd[l].span = sd->span;
			if (sd->name[0] && strcmp(sd->name, kd[cpu].sd[l].name))
				sr_ld_warn(s, "cpu%d domain%d is %s in proc/schedstat, %s in %s", cpu, l,
				     sd->name, kd[cpu].sd[l].name, dir);
		}
	}
	return 0;
}

/* 6.9 renamed DIE to PKG. */
static bool same_level_name(const char *a, const char *b)
{
	bool pa = !strcmp(a, "DIE") || !strcmp(a, "PKG");
	bool pb = !strcmp(b, "DIE") || !strcmp(b, "PKG");

	return !strcmp(a, b) || (pa && pb);
}

/* The k-th level named like @name among @c's levels, or NULL. */
static const struct sr_domain *nth_named(const struct sr_cpu_topo *c, const char *name, int k)
{
	for (int l = 0; l < c->nr_levels; l++)
		if (same_level_name(c->sd[l].name, name) && !k--)
			return &c->sd[l];
	return NULL;
}

/* Without /proc/schedstat: each kernel level takes the span of the derived level of its name. */
static bool spans_by_name(struct snap *s, struct sr_cpu_topo *kd)
{
	for (int cpu = 0; cpu < s->t->nr_cpus; cpu++) {
		for (int l = 0; l < kd[cpu].nr_levels; l++) {
			struct sr_domain *sd = &kd[cpu].sd[l];
			const struct sr_domain *d;
			int k = 0;

			for (int o = 0; o < l; o++)
				k += same_level_name(kd[cpu].sd[o].name, sd->name);
			d = nth_named(&s->t->cpu[cpu], sd->name, k);
			if (!d)
				return false;
			sd->span = d->span;
			sd->span_derived = true;
		}
	}
	return true;
}

/* The kernel builds each level over its child, and every level holds its CPU. */
static int check_spans(struct snap *s, int cpu, struct sr_cpu_topo *kc)
{
	for (int l = 0; l < kc->nr_levels; l++) {
		struct sr_domain *sd = &kc->sd[l];

		sd->span_weight = sr_mask_weight(&sd->span);
		if (!sr_mask_test(&sd->span, cpu) ||
		    (l && !sr_mask_subset(&kc->sd[l - 1].span, &sd->span)))
			return sr_err_set(s->err, -EINVAL, "%s: cpu%d domain%d (%s): its span does "
					  "not hold the CPU and the level below", s->root.path, cpu, l,
					  sd->name);
		if (!sr_mask_subset(&sd->span, &s->t->possible))
			return sr_err_set(s->err, -EINVAL, "%s: cpu%d domain%d spans CPUs that "
					  "are not online", s->root.path, cpu, l);
	}
	return 0;
}

/* The kernel's sd_llc: the highest level sharing the LLC, else the CPU alone. */
static void llc_from_domains(struct snap *s, int cpu)
{
	struct sr_cpu_topo *c = &s->t->cpu[cpu];
	const struct sr_domain *sd = sr_highest_flag_domain(s->t, cpu, SD_SHARE_PKG_RESOURCES);
	struct sr_cpumask llc;

	sr_mask_clear(&llc);
	sr_mask_set(&llc, cpu);
	if (sd)
		llc = sd->span;
	if (!sr_mask_equal(&llc, &c->llc) && sr_ld_first_note(s, NOTE_LLC_DIFF)) {
		char a[64], b[64];

		sr_cpulist_format(&c->llc, a, sizeof(a));
		sr_cpulist_format(&llc, b, sizeof(b));
		sr_ld_warn(s, "cpu%d: sysfs caches give an LLC of %s, the kernel's domains %s: the "
		     "domains win", cpu, a, b);
	}
	c->llc = llc;
}

static void install_kernel(struct snap *s, const struct sr_cpu_topo *kd)
{
	for (int cpu = 0; cpu < s->t->nr_cpus; cpu++) {
		struct sr_cpu_topo *c = &s->t->cpu[cpu];

		c->nr_levels = kd[cpu].nr_levels;
		memcpy(c->sd, kd[cpu].sd, sizeof(c->sd));
		llc_from_domains(s, cpu);
	}
	sr_topo_set_llc(s->t);
	s->t->source = SR_TOPO_DEBUGFS;
}

/* No kernel domains: say whether /proc/schedstat's spans agree with the derived ones. */
static void compare_derived(struct snap *s, const struct sr_cpu_topo *ss)
{
	for (int cpu = 0; cpu < s->t->nr_cpus; cpu++) {
		const struct sr_cpu_topo *c = &s->t->cpu[cpu];
		bool same = c->nr_levels == ss[cpu].nr_levels;

		for (int l = 0; same && l < c->nr_levels; l++)
			same = sr_mask_equal(&c->sd[l].span, &ss[cpu].sd[l].span);
		if (!same) {
			sr_ld_warn(s, "cpu%d: the derived levels differ from the kernel's in "
			     "proc/schedstat (%d levels there, %d derived)", cpu,
			     ss[cpu].nr_levels, c->nr_levels);
			return;
		}
	}
}

/* ------------------------------------------------------------ domains */

static const struct {
	const char *dir;
	enum sr_sd_origin origin;
} domain_dirs[] = {
	{ "sys/kernel/debug/sched/domains", SR_SD_DEBUGFS },	/* 5.13+ */
	{ "proc/sys/kernel/sched_domain", SR_SD_SYSCTL },	/* before 5.13 */
};

static int find_domains(struct snap *s)
{
	char rel[96];

	for (size_t i = 0; i < SR_ARRAY_SIZE(domain_dirs); i++) {
		snprintf(rel, sizeof(rel), "%s/cpu0", domain_dirs[i].dir);
		if (sr_root_is_dir(&s->root, rel))
			return (int)i;
	}
	return -1;
}

/* Kernel levels in @kd get their spans, from /proc/schedstat or by name. */
static int kernel_spans(struct snap *s, struct sr_cpu_topo *kd, const struct sr_cpu_topo *ss,
			int have_ss, const char *dir)
{
	if (have_ss)
		return spans_from_schedstat(s, kd, ss, dir);
	if (spans_by_name(s, kd)) {
		sr_ld_missing(s, "proc/schedstat: the kernel's domain spans are matched from the "
			"topology by level name");
		return 0;
	}
	sr_ld_warn(s, "%s: levels without spans (no proc/schedstat) that match no derived level: "
	     "the derived hierarchy is kept", dir);
	return 1;
}

static int load_kernel_domains(struct snap *s, int which, struct sr_cpu_topo *kd,
			       struct sr_cpu_topo *ss)
{
	const char *dir = domain_dirs[which].dir;
	int ret = 0, have_ss;

	for (int cpu = 0; !ret && cpu < s->t->nr_cpus; cpu++)
		ret = kernel_cpu(s, dir, domain_dirs[which].origin, cpu, &kd[cpu]);
	have_ss = ret ? ret : read_schedstat(s, ss);
	if (have_ss < 0)
		return have_ss;
	ret = kernel_spans(s, kd, ss, have_ss, dir);
	if (ret)
		return ret < 0 ? ret : 0;
	for (int cpu = 0; !ret && cpu < s->t->nr_cpus; cpu++)
		ret = check_spans(s, cpu, &kd[cpu]);
	if (ret)
		return ret;
	install_kernel(s, kd);
	snprintf(s->m->sources[SR_MI_DOMAINS], sizeof(s->m->sources[0]), "%s", dir);
	return 0;
}

int sr_ld_domains(struct snap *s)
{
	int which = find_domains(s), ret = 0;
	struct sr_cpu_topo *kd, *ss;

	kd = calloc(s->t->nr_cpus, sizeof(*kd));
	ss = calloc(s->t->nr_cpus, sizeof(*ss));
	if (!kd || !ss) {
		ret = sr_err_set(s->err, -ENOMEM, "out of memory");
	} else if (which >= 0) {
		ret = load_kernel_domains(s, which, kd, ss);
	} else {
		sr_ld_missing(s, "%s: no sched domains (they need CONFIG_SCHED_DEBUG, debugfs and, "
			"from 6.x, sched verbose): levels derived from the topology",
			domain_dirs[0].dir);
		ret = read_schedstat(s, ss);
		if (ret > 0)
			compare_derived(s, ss);
		ret = ret < 0 ? ret : 0;
	}
	free(kd);
	free(ss);
	return ret;
}
