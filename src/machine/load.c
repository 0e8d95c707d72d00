// SPDX-License-Identifier: GPL-2.0
/*
 * The machine as an input: a snapshot directory laid out like a machine's
 * root, schedreplay's topology JSON, or a spec.
 *
 * From a snapshot, sysfs gives the placement of every CPU (cores, packages,
 * caches, nodes and their distances: load-cpus.c).  When debugfs (5.13+) or
 * the older sysctl directory holds the kernel's own sched domains, they
 * replace the derived levels (load-domains.c).  This file holds the entry
 * point, the reading helpers the others share, the kernel version and the
 * scheduler knobs.  Files a kernel may lack are noted in m->missing; files
 * that are there but cannot be parsed are errors.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "machine-priv.h"

/* ------------------------------------------------------------ machine */

void sr_machine_init(struct sr_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->nr_features = -1;
	m->migration_cost_ns = -1;
	m->autogroup = -1;
}

bool sr_machine_idle_states(const struct sr_machine *m)
{
	return m->cpuidle_driver[0] && strcmp(m->cpuidle_driver, "none");
}

#define VCPU_PACK_PARAM	"sched_vcpu_pack="

/* @w (one word of kernel_patch_params, @len long) as a sched_vcpu_pack mask, else -1. */
static int vcpu_pack_of(const char *w, size_t len)
{
	size_t n = strlen(VCPU_PACK_PARAM);
	int v = 0;

	if (len <= n || len > n + 2 || strncmp(w, VCPU_PACK_PARAM, n))
		return -1;
	for (size_t i = n; i < len; i++) {
		if (w[i] < '0' || w[i] > '9')
			return -1;
		v = v * 10 + (w[i] - '0');
	}
	return v <= 15 ? v : -1;
}

int sr_machine_vcpu_pack(const struct sr_machine *m)
{
	const char *w = m->kernel_patch_params;
	int v = -1;

	for (size_t len; *w; w += len + (w[len] == ' ')) {
		len = strcspn(w, " ");
		if (vcpu_pack_of(w, len) >= 0)
			v = vcpu_pack_of(w, len);
	}
	return v;
}

bool sr_machine_unmodelled_patches(const struct sr_machine *m)
{
	const char *w = m->kernel_patch_params;

	for (size_t len; *w; w += len + (w[len] == ' ')) {
		len = strcspn(w, " ");
		if (len && vcpu_pack_of(w, len) < 0)
			return true;
	}
	return false;
}

int sr_machine_feature(const struct sr_machine *m, const char *name)
{
	for (int i = 0; i < m->nr_features; i++)
		if (!strcmp(m->features[i].name, name))
			return m->features[i].enabled;
	return -1;
}

enum sr_topo_era sr_topo_era_of(const char *release)
{
	unsigned int kv = sr_release_kv(release);

	if (!kv)
		return SR_ERA_511;
	if (kv < SR_KV(3, 16))
		return SR_ERA_2637;
	/* 5.10 lowered the default imbalance_pct of upper levels to 117. */
	if (kv < SR_KV(5, 10))
		return SR_ERA_316;
	return SR_ERA_511;
}

static void add_note(char (*list)[SR_MACHINE_NOTE_LEN], int *n, const char *fmt, va_list ap)
{
	if (*n >= SR_MACHINE_MAX_NOTES)
		return;
	vsnprintf(list[(*n)++], SR_MACHINE_NOTE_LEN, fmt, ap);
}

void __attribute__((format(printf, 2, 3))) sr_ld_missing(struct snap *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_note(s->m->missing, &s->m->nr_missing, fmt, ap);
	va_end(ap);
}

void __attribute__((format(printf, 2, 3))) sr_ld_warn(struct snap *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_note(s->m->warnings, &s->m->nr_warnings, fmt, ap);
	va_end(ap);
}

/* True the first time a note of @kind is asked for. */
bool sr_ld_first_note(struct snap *s, enum note_once kind)
{
	bool first = !(s->noted & (1U << kind));

	s->noted |= 1U << kind;
	return first;
}

/* ------------------------------------------------------------ files */

/* A file the kernel may not have, or that is not readable: noted, not fatal. */
bool sr_ld_absent(int ret)
{
	return ret == -ENOENT || ret == -ENOTDIR || ret == -EACCES || ret == -EPERM;
}

/* Up to @len - 1 printable bytes of @in, for messages and kept strings. */
static void printable(const char *in, char *buf, size_t len)
{
	size_t i;

	for (i = 0; in[i] && in[i] != '\n' && i + 1 < len; i++)
		buf[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	buf[i] = '\0';
}

int sr_ld_garbage(struct snap *s, const char *rel, const char *text, const char *want)
{
	char shown[48];

	printable(text, shown, sizeof(shown));
	return sr_err_set(s->err, -EINVAL, "%s/%s: '%s' is not %s", s->root.path, rel, shown, want);
}

static int parse_ll(const char *text, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || end == text || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* One integer; absent files return their -errno without a message. */
int sr_ld_int(struct snap *s, const char *rel, long long min, long long max,
		    long long *out)
{
	char *text, want[64];
	int ret = sr_root_read(&s->root, rel, &text);

	if (ret)
		return ret;
	if (parse_ll(text, min, max, out)) {
		snprintf(want, sizeof(want), "a number in %lld..%lld", min, max);
		ret = sr_ld_garbage(s, rel, text, want);
	}
	free(text);
	return ret;
}

/* A CPU list holding only CPUs of the snapshot. */
int sr_ld_cpulist(struct snap *s, const char *rel, int nr_cpus, struct sr_cpumask *m)
{
	char *text;
	int ret = sr_root_read(&s->root, rel, &text), c;

	if (ret)
		return ret;
	ret = sr_cpulist_parse(text, m);
	if (ret == -ERANGE)
		ret = sr_err_set(s->err, -EINVAL, "%s/%s: names a CPU beyond %d (SR_MAX_CPUS)",
				 s->root.path, rel, SR_MAX_CPUS - 1);
	else if (ret)
		ret = sr_ld_garbage(s, rel, text, "a CPU list");
	free(text);
	if (ret || nr_cpus <= 0)
		return ret;
	sr_for_each_cpu(c, m)
		if (c >= nr_cpus)
			return sr_err_set(s->err, -EINVAL, "%s/%s: names cpu%d, which is not "
					  "online in the snapshot", s->root.path, rel, c);
	return 0;
}

/* A one-word file such as a level name or a cache type. */
int sr_ld_word(struct snap *s, const char *rel, char *buf, size_t len)
{
	char *text;
	int ret = sr_root_read(&s->root, rel, &text);
	size_t n;

	if (ret)
		return ret;
	n = strcspn(text, " \n");
	if (!n || n >= len || text[n + strspn(text + n, " \n")])
		ret = sr_ld_garbage(s, rel, text, "a single word");
	else
		printable(text, buf, n + 1);
	free(text);
	return ret;
}

/* Numbers N of the entries "<prefix>N" of a directory, below @limit, into @m. */
int sr_ld_list_numbered(struct snap *s, const char *rel, const char *prefix, int limit,
			 struct sr_cpumask *m, long *too_big)
{
	char path[PATH_MAX];
	size_t plen = strlen(prefix);
	struct dirent *de;
	DIR *d;
	int ret = sr_root_path(&s->root, rel, path, sizeof(path));

	sr_mask_clear(m);
	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *num = de->d_name + plen;
		char *end;
		long v;

		if (strncmp(de->d_name, prefix, plen) || *num < '0' || *num > '9')
			continue;
		errno = 0;
		v = strtol(num, &end, 10);
		if (*end)
			continue;
		if (errno || v >= limit) {
			*too_big = errno ? LONG_MAX : v;
			ret = -ERANGE;
			break;
		}
		sr_mask_set(m, (int)v);
	}
	closedir(d);
	return ret;
}

/* ------------------------------------------------------------ version */

static int snap_version(struct snap *s)
{
	static const char head[] = "Linux version ";
	char *text;
	int ret = sr_root_read(&s->root, "proc/version", &text);

	if (sr_ld_absent(ret)) {
		sr_ld_missing(s, "proc/version: %s: kernel unknown", strerror(-ret));
		return 0;
	}
	if (ret)
		return sr_err_set(s->err, ret, "%s/proc/version: %s", s->root.path, strerror(-ret));
	if (strncmp(text, head, sizeof(head) - 1) || !sr_release_kv(text + sizeof(head) - 1)) {
		ret = sr_ld_garbage(s, "proc/version", text, "a 'Linux version X.Y...' line");
		free(text);
		return ret;
	}
	printable(text, s->m->kernel_version, sizeof(s->m->kernel_version));
	printable(text + sizeof(head) - 1, s->m->release, sizeof(s->m->release));
	s->m->release[strcspn(s->m->release, " ")] = '\0';
	snprintf(s->m->sources[SR_MI_VERSION], sizeof(s->m->sources[0]), "proc/version");
	s->kv = sr_release_kv(s->m->release);
	free(text);
	return 0;
}

/* ------------------------------------------------------------ scheduler knobs */

/* The first of @rels the snapshot has; 0 with its text, or why none could be read. */
static int read_first(struct snap *s, const char *what, const char *const *rels, size_t n,
		      char **text, size_t *which)
{
	int ret = -ENOENT, why = -ENOENT;
	size_t i;

	for (i = 0; i < n; i++) {
		ret = sr_root_read(&s->root, rels[i], text);
		if (!ret) {
			*which = i;
			return 0;
		}
		if (!sr_ld_absent(ret))
			return sr_err_set(s->err, ret, "%s/%s: %s", s->root.path, rels[i],
					  strerror(-ret));
		if (ret != -ENOENT && why == -ENOENT) {
			why = ret;
			*which = i;
		}
	}
	if (why != -ENOENT)
		sr_ld_missing(s, "%s: %s: %s", what, rels[*which], strerror(-why));
	else
		sr_ld_missing(s, "%s: not in the snapshot (%s%s%s)", what, rels[0], n > 1 ? ", " : "",
			n > 1 ? rels[1] : "");
	return ret;
}

static int parse_features(struct snap *s, const char *rel, char *text)
{
	struct sr_machine *m = s->m;
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(text, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		bool on = strncmp(w, "NO_", 3) != 0;
		const char *name = on ? w : w + 3;

		if (!name[0] || strlen(name) >= sizeof(m->features[0].name) ||
		    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name))
			return sr_ld_garbage(s, rel, w, "a sched feature name");
		if (n == SR_MACHINE_MAX_FEATURES)
			return sr_err_set(s->err, -EINVAL, "%s/%s: more than %d features",
					  s->root.path, rel, SR_MACHINE_MAX_FEATURES);
		snprintf(m->features[n].name, sizeof(m->features[n].name), "%s", name);
		m->features[n++].enabled = on;
	}
	m->nr_features = n;
	return 0;
}

static int snap_features(struct snap *s)
{
	static const char *const rels[] = {
		"sys/kernel/debug/sched/features",	/* 5.13+ */
		"sys/kernel/debug/sched_features",
	};
	size_t which = 0;
	char *text;
	int ret = read_first(s, "sched_features", rels, SR_ARRAY_SIZE(rels), &text, &which);

	if (ret)
		return sr_ld_absent(ret) ? 0 : ret;
	ret = parse_features(s, rels[which], text);
	free(text);
	if (!ret)
		snprintf(s->m->sources[SR_MI_FEATURES], sizeof(s->m->sources[0]), "%s",
			 rels[which]);
	return ret;
}

/* The sched_* boot parameters of mainline kernels (Documentation/admin-guide/kernel-parameters.txt). */
static bool mainline_sched_param(const char *name, size_t len)
{
	static const char *const known[] = { "sched_debug", "sched_verbose",
					     "sched_thermal_decay_shift", "sched_proxy_exec" };

	for (size_t i = 0; i < SR_ARRAY_SIZE(known); i++)
		if (strlen(known[i]) == len && !strncmp(known[i], name, len))
			return true;
	return false;
}

/*
 * proc/cmdline: a sched_* parameter no mainline kernel has says the kernel
 * carries scheduler patches (a vendor's "sched_vcpu_pack=15"), whose
 * placements no model reproduces.  Arguments after "--" are init's.
 */
static int snap_cmdline(struct snap *s)
{
	struct sr_machine *m = s->m;
	char *text, *save = NULL, *w;
	int ret = sr_root_read(&s->root, "proc/cmdline", &text);

	if (ret)
		return sr_ld_absent(ret) ? 0 : ret;
	for (w = strtok_r(text, " \t\n", &save); w && strcmp(w, "--");
	     w = strtok_r(NULL, " \t\n", &save)) {
		size_t len = strcspn(w, "="), used = strlen(m->kernel_patch_params);
		int keep = strlen(w) < 48 ? (int)strlen(w) : 48;	/* a long one, cut */

		if (strncmp(w, "sched_", 6) || mainline_sched_param(w, len))
			continue;
		if (used + (size_t)keep + 2 > sizeof(m->kernel_patch_params))
			break;
		snprintf(m->kernel_patch_params + used, sizeof(m->kernel_patch_params) - used,
			 "%s%.*s", used ? " " : "", keep, w);
	}
	free(text);
	return 0;
}

/*
 * proc/sys/kernel/sched_vcpu_pack, the value the kernel ran with when the
 * snapshot was taken, replaces the boot parameter's (kernel_patch_params
 * then names it as "sched_vcpu_pack=N").  Absent: mainline, or an older
 * snapshot.
 */
static int snap_vcpu_pack(struct snap *s)
{
	struct sr_machine *m = s->m;
	char *text, kept[sizeof(m->kernel_patch_params)] = "", *save = NULL, *w;
	long long v = 0;
	int ret = sr_root_read(&s->root, "proc/sys/kernel/sched_vcpu_pack", &text);

	if (ret)
		return sr_ld_absent(ret) ? 0 : ret;
	ret = parse_ll(text, 0, 15, &v);
	if (ret)
		ret = sr_ld_garbage(s, "proc/sys/kernel/sched_vcpu_pack", text, "a mask 0-15");
	free(text);
	if (ret)
		return ret;
	for (w = strtok_r(m->kernel_patch_params, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (strncmp(w, VCPU_PACK_PARAM, strlen(VCPU_PACK_PARAM)))
			snprintf(kept + strlen(kept), sizeof(kept) - strlen(kept), "%s ", w);
	snprintf(m->kernel_patch_params, sizeof(m->kernel_patch_params), "%s" VCPU_PACK_PARAM "%lld",
		 kept, v);
	return 0;
}

/*
 * cpuidle's driver: with one, find_idlest_group_cpu() prefers the idle CPU
 * in the shallowest state before the most recently idled one.  Absent (an
 * older snapshot, no CONFIG_CPU_IDLE): unknown, taken as none.
 */
static int snap_cpuidle(struct snap *s)
{
	char *text;
	int ret = sr_root_read(&s->root, "sys/devices/system/cpu/cpuidle/current_driver", &text);

	if (ret)
		return sr_ld_absent(ret) ? 0 : ret;
	text[strcspn(text, " \t\n")] = '\0';
	if (!sr_utf8_valid(text) || !text[0])
		snprintf(s->m->cpuidle_driver, sizeof(s->m->cpuidle_driver), "unknown");
	else
		snprintf(s->m->cpuidle_driver, sizeof(s->m->cpuidle_driver), "%.31s", text);
	free(text);
	return 0;
}

/* One integer knob from the first file of @rels the snapshot has; -1 when none. */
static int snap_knob(struct snap *s, const char *what, const char *const *rels, size_t n,
		     long long max, long long *v, enum sr_machine_item item)
{
	size_t which = 0;
	char *text;
	int ret = read_first(s, what, rels, n, &text, &which);

	*v = -1;
	if (ret)
		return sr_ld_absent(ret) ? 0 : ret;
	if (parse_ll(text, 0, max, v))
		ret = sr_ld_garbage(s, rels[which], text, "a number");
	free(text);
	if (!ret)
		snprintf(s->m->sources[item], sizeof(s->m->sources[0]), "%s", rels[which]);
	return ret;
}

static int snap_knobs(struct snap *s)
{
	static const char *const cost[] = {
		"sys/kernel/debug/sched/migration_cost_ns",	/* 5.13+ */
		"proc/sys/kernel/sched_migration_cost_ns",
	};
	static const char *const autogroup[] = { "proc/sys/kernel/sched_autogroup_enabled" };
	long long v;
	int ret = snap_features(s);

	if (!ret)
		ret = snap_knob(s, "migration_cost_ns", cost, SR_ARRAY_SIZE(cost), INT64_MAX / 2,
				&v, SR_MI_MIGRATION_COST);
	if (ret)
		return ret;
	s->m->migration_cost_ns = v;
	ret = snap_knob(s, "autogroup", autogroup, 1, 1, &v, SR_MI_AUTOGROUP);
	s->m->autogroup = (int)v;
	if (!ret)
		ret = snap_cmdline(s);
	if (!ret)
		ret = snap_vcpu_pack(s);
	return ret ? ret : snap_cpuidle(s);
}

/* ------------------------------------------------------------ loading */

static int snap_topology(struct snap *s)
{
	int nr, ret = sr_ld_cpus(s, &nr);

	if (ret)
		return ret;
	ret = sr_topo_alloc(s->t, nr);
	if (ret)
		return sr_err_set(s->err, ret, "out of memory");
	s->t->source = SR_TOPO_SYSFS;
	for (int cpu = 0; !ret && cpu < nr; cpu++)
		ret = sr_ld_cpu_topo(s, cpu);
	if (ret)
		return ret;
	sr_ld_number_cores(s);
	ret = sr_ld_caches(s);
	if (!ret)
		ret = sr_ld_nodes(s);
	if (ret)
		return ret;
	sr_topo_derive(s->t, s->era, s->kv >= SR_KV(6, 9) ? "PKG" : "DIE");
	return sr_ld_domains(s);
}

static int load_root(struct sr_topo *t, struct sr_machine *m, const char *dir,
		     enum sr_topo_era era, struct sr_err *err)
{
	struct snap *s = calloc(1, sizeof(*s));
	size_t len = strlen(dir);
	int ret;

	if (!s)
		return sr_err_set(err, -ENOMEM, "out of memory");
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof(s->root.path)) {
		free(s);
		return sr_err_set(err, -ENAMETOOLONG, "%s: path too long", dir);
	}
	*s = (struct snap){ .t = t, .m = m, .err = err, .era = era };
	/* "/" is this machine: paths are then "/sys/...". */
	snprintf(s->root.path, sizeof(s->root.path), "%.*s", (int)(len == 1 && dir[0] == '/' ? 0 : len),
		 dir);
	ret = snap_version(s);
	if (s->era == SR_ERA_AUTO)
		s->era = sr_topo_era_of(m->release);
	if (!ret)
		ret = snap_topology(s);
	if (!ret)
		ret = snap_knobs(s);
	if (ret)
		sr_topo_free(t);
	free(s);
	return ret;
}

static int load_json_file(struct sr_topo *t, struct sr_machine *m, const char *path,
			  enum sr_topo_era era, struct sr_err *err)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	char msg[sizeof(err->msg)];
	int ret;

	if (!root)
		return sr_err_set(err, -EINVAL, "%s: neither a snapshot directory nor topology "
				  "JSON (line %d: %s)", path, jerr.line, jerr.text);
	ret = sr_topo_from_json(t, m, root, era, err);
	json_decref(root);
	if (ret && err) {
		snprintf(msg, sizeof(msg), "%s", err->msg);
		sr_err_set(err, ret, "%s: %s", path, msg);
	}
	return ret;
}

static int load_spec(struct sr_topo *t, struct sr_machine *m, const char *spec,
		     enum sr_topo_era era, struct sr_err *err)
{
	int ret = sr_topo_from_spec(t, spec, era == SR_ERA_AUTO ? SR_ERA_511 : era);

	if (ret == -ENOMEM)
		return sr_err_set(err, ret, "out of memory");
	if (ret)
		return sr_err_set(err, -EINVAL, "bad topology spec '%s' (see docs/topology.md)",
				  spec);
	snprintf(m->origin, sizeof(m->origin), "%s", spec);
	snprintf(m->origin_source, sizeof(m->origin_source), "spec");
	return 0;
}

int sr_topo_load(struct sr_topo *t, struct sr_machine *m, const char *arg,
		 enum sr_topo_era era, struct sr_err *err)
{
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	sr_machine_init(m);
	if (!arg || !arg[0])
		return sr_err_set(err, -EINVAL, "no machine given");
	snprintf(m->loaded_from, sizeof(m->loaded_from), "%s", arg);
	if (stat(arg, &st)) {
		ret = -errno;
		/* Not a path: a spec, unless it looks like one. */
		if (strchr(arg, '=') && !strchr(arg, '/'))
			return load_spec(t, m, arg, era, err);
		return sr_err_set(err, ret, "%s: %s (wants a snapshot directory, a topology "
				  "JSON file or a spec)", arg, strerror(-ret));
	}
	if (!S_ISDIR(st.st_mode)) {
		ret = load_json_file(t, m, arg, era, err);
		if (!ret && !m->origin[0])
			snprintf(m->origin, sizeof(m->origin), "%s", arg);
		return ret;
	}
	ret = load_root(t, m, arg, era, err);
	if (!ret) {
		snprintf(m->origin, sizeof(m->origin), "%s", arg);
		snprintf(m->origin_source, sizeof(m->origin_source), "%s",
			 sr_topo_source_name(t->source));
	}
	return ret;
}
