// SPDX-License-Identifier: GPL-2.0
/*
 * The machine as an input: a snapshot directory laid out like a machine's
 * root, schedreplay's topology JSON, or a spec.
 *
 * From a snapshot, sysfs gives the placement of every CPU (cores, packages,
 * caches, nodes and their distances).  When debugfs (5.13+) or the older
 * sysctl directory holds the kernel's own sched domains, they replace the
 * derived levels: their names, flags and imbalance_pct are read there, their
 * spans from /proc/schedstat, which is the only place 6.x prints them.
 * Files a kernel may lack are noted in m->missing; files that are there but
 * cannot be parsed are errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "machine.h"

/* /proc/schedstat of a big machine is the largest file read. */
#define SNAP_MAX_FILE	(16 << 20)
#define CPU_DIR		"sys/devices/system/cpu"
#define NODE_DIR	"sys/devices/system/node"

struct snap {
	char root[PATH_MAX];		/* without a trailing '/': "" for "/" */
	struct sr_topo *t;
	struct sr_machine *m;
	struct sr_err *err;
	enum sr_topo_era era;
	unsigned int kv;		/* SR_KV() of the snapshot's kernel, 0 unknown */
	unsigned int noted;		/* notes given once per snapshot (1 << enum note_once) */
};

enum note_once { NOTE_CORE_ID, NOTE_DIE_ID, NOTE_SIBLINGS, NOTE_PKG, NOTE_CACHE, NOTE_PCT,
		 NOTE_SMT_ASYM, NOTE_LLC_DIFF, NOTE_UNKNOWN_FULL, NOTE_DISTANCE,
		 NOTE_NUMERIC };

/* ------------------------------------------------------------ machine */

void sr_machine_init(struct sr_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->nr_features = -1;
	m->migration_cost_ns = -1;
	m->autogroup = -1;
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

static void __attribute__((format(printf, 2, 3))) missing(struct snap *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_note(s->m->missing, &s->m->nr_missing, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3))) warn(struct snap *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_note(s->m->warnings, &s->m->nr_warnings, fmt, ap);
	va_end(ap);
}

/* True the first time a note of @kind is asked for. */
static bool first_note(struct snap *s, enum note_once kind)
{
	bool first = !(s->noted & (1U << kind));

	s->noted |= 1U << kind;
	return first;
}

/* ------------------------------------------------------------ files */

/* A file the kernel may not have, or that is not readable: noted, not fatal. */
static bool absent(int ret)
{
	return ret == -ENOENT || ret == -ENOTDIR || ret == -EACCES || ret == -EPERM;
}

static int snap_path(const struct snap *s, const char *rel, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", s->root, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool snap_is_dir(const struct snap *s, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	return !snap_path(s, rel, path, sizeof(path)) && !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int read_fd(int fd, char **out)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while ((n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		len += n;
		if (len < cap)
			continue;
		if (cap >= SNAP_MAX_FILE) {
			free(buf);
			return -EFBIG;
		}
		cap *= 2;
		nb = realloc(buf, cap + 1);
		if (!nb) {
			free(buf);
			return -ENOMEM;
		}
		buf = nb;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* The whole of a small file, NUL-terminated; -errno. */
static int snap_read(const struct snap *s, const char *rel, char **out)
{
	char path[PATH_MAX];
	int fd, ret = snap_path(s, rel, path, sizeof(path));

	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_fd(fd, out);
	close(fd);
	return ret;
}

/* Up to @len - 1 printable bytes of @in, for messages and kept strings. */
static void printable(const char *in, char *buf, size_t len)
{
	size_t i;

	for (i = 0; in[i] && in[i] != '\n' && i + 1 < len; i++)
		buf[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	buf[i] = '\0';
}

static int garbage(struct snap *s, const char *rel, const char *text, const char *want)
{
	char shown[48];

	printable(text, shown, sizeof(shown));
	return sr_err_set(s->err, -EINVAL, "%s/%s: '%s' is not %s", s->root, rel, shown, want);
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
static int snap_int(struct snap *s, const char *rel, long long min, long long max,
		    long long *out)
{
	char *text, want[64];
	int ret = snap_read(s, rel, &text);

	if (ret)
		return ret;
	if (parse_ll(text, min, max, out)) {
		snprintf(want, sizeof(want), "a number in %lld..%lld", min, max);
		ret = garbage(s, rel, text, want);
	}
	free(text);
	return ret;
}

/* A CPU list holding only CPUs of the snapshot. */
static int snap_cpulist(struct snap *s, const char *rel, int nr_cpus, struct sr_cpumask *m)
{
	char *text;
	int ret = snap_read(s, rel, &text), c;

	if (ret)
		return ret;
	ret = sr_cpulist_parse(text, m);
	if (ret == -ERANGE)
		ret = sr_err_set(s->err, -EINVAL, "%s/%s: names a CPU beyond %d (SR_MAX_CPUS)",
				 s->root, rel, SR_MAX_CPUS - 1);
	else if (ret)
		ret = garbage(s, rel, text, "a CPU list");
	free(text);
	if (ret || nr_cpus <= 0)
		return ret;
	sr_for_each_cpu(c, m)
		if (c >= nr_cpus)
			return sr_err_set(s->err, -EINVAL, "%s/%s: names cpu%d, which is not "
					  "online in the snapshot", s->root, rel, c);
	return 0;
}

/* A one-word file such as a level name or a cache type. */
static int snap_word(struct snap *s, const char *rel, char *buf, size_t len)
{
	char *text;
	int ret = snap_read(s, rel, &text);
	size_t n;

	if (ret)
		return ret;
	n = strcspn(text, " \n");
	if (!n || n >= len || text[n + strspn(text + n, " \n")])
		ret = garbage(s, rel, text, "a single word");
	else
		printable(text, buf, n + 1);
	free(text);
	return ret;
}

/* Numbers N of the entries "<prefix>N" of a directory, below @limit, into @m. */
static int list_numbered(struct snap *s, const char *rel, const char *prefix, int limit,
			 struct sr_cpumask *m, long *too_big)
{
	char path[PATH_MAX];
	size_t plen = strlen(prefix);
	struct dirent *de;
	DIR *d;
	int ret = snap_path(s, rel, path, sizeof(path));

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
	int ret = snap_read(s, "proc/version", &text);

	if (absent(ret)) {
		missing(s, "proc/version: %s: kernel unknown", strerror(-ret));
		return 0;
	}
	if (ret)
		return sr_err_set(s->err, ret, "%s/proc/version: %s", s->root, strerror(-ret));
	if (strncmp(text, head, sizeof(head) - 1) || !sr_release_kv(text + sizeof(head) - 1)) {
		ret = garbage(s, "proc/version", text, "a 'Linux version X.Y...' line");
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
					  "machine with every CPU online", s->root, c, list);
	sr_for_each_cpu(c, dirs)
		if (!sr_mask_test(online, c))
			return sr_err_set(s->err, -EINVAL, "%s: cpu%d is offline (online: %s): "
					  "its topology and domains are unknown; snapshot a "
					  "machine with every CPU online", s->root, c, list);
	sr_for_each_cpu(c, online)
		if (!sr_mask_test(dirs, c))
			return sr_err_set(s->err, -EINVAL, "%s/%s/cpu%d: missing, yet cpu%d is "
					  "online", s->root, CPU_DIR, c, c);
	return 0;
}

/* Without an online file: every cpuN directory whose own online file does not say 0. */
static int online_from_dirs(struct snap *s, const struct sr_cpumask *dirs,
			    struct sr_cpumask *online)
{
	char rel[96];
	long long v;
	int c;

	missing(s, "%s/online: missing; every cpuN directory taken as online", CPU_DIR);
	*online = *dirs;
	sr_for_each_cpu(c, dirs) {
		int ret;

		snprintf(rel, sizeof(rel), "%s/cpu%d/online", CPU_DIR, c);
		ret = snap_int(s, rel, 0, 1, &v);
		if (!ret && !v)
			sr_mask_unset(online, c);
		else if (ret && !absent(ret))
			return ret;
	}
	return 0;
}

/* Some architectures list possible but absent CPUs too: only present ones count. */
static int present_only(struct snap *s, struct sr_cpumask *dirs)
{
	struct sr_cpumask present;
	int ret = snap_cpulist(s, CPU_DIR "/present", 0, &present);

	if (absent(ret))
		return 0;
	if (ret)
		return ret;
	for (int i = 0; i < SR_MASK_WORDS; i++)
		dirs->bits[i] &= present.bits[i];
	return 0;
}

static int snap_cpus(struct snap *s, int *nr)
{
	struct sr_cpumask dirs, online;
	long big = 0;
	int ret = list_numbered(s, CPU_DIR, "cpu", SR_MAX_CPUS, &dirs, &big);

	if (ret == -ERANGE)
		return sr_err_set(s->err, -EINVAL, "%s/%s/cpu%ld: more CPUs than schedreplay "
				  "supports (%d)", s->root, CPU_DIR, big, SR_MAX_CPUS);
	if (ret)
		return sr_err_set(s->err, ret, "%s/%s: %s: not a machine snapshot", s->root,
				  CPU_DIR, strerror(-ret));
	ret = present_only(s, &dirs);
	if (ret)
		return ret;
	if (sr_mask_first(&dirs) < 0)
		return sr_err_set(s->err, -EINVAL, "%s/%s: no cpuN directory", s->root, CPU_DIR);
	ret = snap_cpulist(s, CPU_DIR "/online", 0, &online);
	if (absent(ret))
		ret = online_from_dirs(s, &dirs, &online);
	if (ret)
		return ret;
	if (sr_mask_first(&online) < 0)
		return sr_err_set(s->err, -EINVAL, "%s/%s/online: no CPU online", s->root, CPU_DIR);
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
	ret = snap_int(s, rel, -1, INT_MAX, v);
	if (!absent(ret))
		return ret;
	if (first_note(s, kind))
		missing(s, "%s: %s", rel, strerror(-ret));
	*v = dflt;
	return 0;
}

/* SMT siblings: core_cpus_list (5.4+), else thread_siblings_list, else none known. */
static int cpu_siblings(struct snap *s, int cpu, struct sr_cpumask *smt)
{
	static const char *const files[] = { "core_cpus_list", "thread_siblings_list" };
	char rel[128];
	int ret = -ENOENT;

	for (size_t i = 0; i < SR_ARRAY_SIZE(files) && absent(ret); i++) {
		snprintf(rel, sizeof(rel), "%s/cpu%d/topology/%s", CPU_DIR, cpu, files[i]);
		ret = snap_cpulist(s, rel, s->t->nr_cpus, smt);
	}
	if (absent(ret)) {
		if (first_note(s, NOTE_SIBLINGS))
			missing(s, "%s: %s: no SMT assumed", rel, strerror(-ret));
		sr_mask_clear(smt);
		ret = 0;
	}
	if (!ret && !sr_mask_test(smt, cpu))
		sr_mask_set(smt, cpu);
	return ret;
}

static int snap_cpu_topo(struct snap *s, int cpu)
{
	struct sr_cpu_topo *c = &s->t->cpu[cpu];
	char rel[128];
	long long pkg, core, die;
	int ret;

	snprintf(rel, sizeof(rel), "%s/cpu%d/topology", CPU_DIR, cpu);
	if (!snap_is_dir(s, rel))
		return sr_err_set(s->err, -EINVAL, "%s/%s: missing: cpu%d's place is unknown",
				  s->root, rel, cpu);
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
	if (pkg < 0 && first_note(s, NOTE_PKG))
		missing(s, "%s/physical_package_id: -1: one package assumed", rel);
	c->package_id = pkg < 0 ? 0 : (int)pkg;
	c->sys_core_id = (int)core;
	c->die_id = die < 0 ? c->package_id : (int)die;
	return 0;
}

/* Machine-wide core numbers from the sibling masks; sibling lists must agree. */
static void number_cores(struct snap *s)
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
			    first_note(s, NOTE_SMT_ASYM))
				warn(s, "SMT sibling lists of cpu%d and cpu%d disagree", cpu, o);
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
	ret = snap_int(s, rel, 0, 9, level);
	if (!ret) {
		snprintf(rel + n, sizeof(rel) - n, "type");
		ret = snap_word(s, rel, type, sizeof(type));
	}
	if (!ret && strcmp(type, "Data") && strcmp(type, "Unified") && strcmp(type, "Instruction"))
		ret = garbage(s, rel, type, "Data, Instruction or Unified");
	if (ret)
		return ret;
	if (!strcmp(type, "Instruction"))
		return 0;
	snprintf(rel + n, sizeof(rel) - n, "shared_cpu_list");
	ret = snap_cpulist(s, rel, s->t->nr_cpus, span);
	return ret ? ret : 1;
}

/* The LLC: the highest-level data or unified cache; 0 when nothing is known. */
static int cpu_llc(struct snap *s, int cpu, struct sr_cpumask *llc)
{
	long long best = 0, level;
	struct sr_cpumask span;

	for (int idx = 0; idx < 16; idx++) {
		int ret = cache_index(s, cpu, idx, &level, &span);

		if (absent(ret))
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

static int snap_caches(struct snap *s)
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
			warn(s, "cpu%d: its LLC's shared_cpu_list does not hold it: added", cpu);
			sr_mask_set(&c->llc, cpu);
		}
		if (ret)
			continue;
		/* No cache information: the kernel's MC level falls back to the package too. */
		if (first_note(s, NOTE_CACHE))
			missing(s, "%s/cpu%d/cache: no data or unified cache listed: the LLC is "
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
	ret = snap_read(s, rel, &text);
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
	ret = other >= 0 || *p ? garbage(s, rel, text, "one distance per node") : 0;
	free(text);
	return ret;
}

static int node_cpus(struct snap *s, int node)
{
	struct sr_cpumask m;
	char rel[96];
	int ret, c;

	snprintf(rel, sizeof(rel), "%s/node%d/cpulist", NODE_DIR, node);
	ret = snap_cpulist(s, rel, s->t->nr_cpus, &m);
	if (ret)
		return absent(ret) ? sr_err_set(s->err, -EINVAL, "%s/%s: %s", s->root, rel,
						strerror(-ret)) : ret;
	sr_for_each_cpu(c, &m) {
		if (s->t->cpu[c].node >= 0)
			return sr_err_set(s->err, -EINVAL, "%s/%s: cpu%d is also in node%d",
					  s->root, rel, c, s->t->cpu[c].node);
		s->t->cpu[c].node = node;
	}
	return 0;
}

static void one_node(struct snap *s, const char *why)
{
	missing(s, "%s: %s: one node assumed", NODE_DIR, why);
	for (int c = 0; c < s->t->nr_cpus; c++)
		s->t->cpu[c].node = 0;
	s->t->nr_nodes = 1;
	s->t->node_distance[0][0] = 10;
}

/* A node without a distance file: 20 to every other node, noted once. */
static void assume_distances(struct snap *s, int node, const struct sr_cpumask *nodes, int why)
{
	int b;

	if (first_note(s, NOTE_DISTANCE))
		missing(s, "%s/node%d/distance: %s: distance 20 assumed between nodes", NODE_DIR,
			node, strerror(-why));
	sr_for_each_cpu(b, nodes)
		s->t->node_distance[node][b] = node == b ? 10 : 20;
}

static int snap_nodes(struct snap *s)
{
	struct sr_cpumask nodes;
	long big = 0;
	int ret = list_numbered(s, NODE_DIR, "node", SR_MAX_NODES, &nodes, &big), n;

	if (ret == -ERANGE)
		return sr_err_set(s->err, -EINVAL, "%s/%s/node%ld: more than %d nodes", s->root,
				  NODE_DIR, big, SR_MAX_NODES);
	if (absent(ret) || (!ret && sr_mask_first(&nodes) < 0)) {
		one_node(s, ret ? strerror(-ret) : "no nodeN directory");
		return 0;
	}
	if (ret)
		return sr_err_set(s->err, ret, "%s/%s: %s", s->root, NODE_DIR, strerror(-ret));
	for (int c = 0; c < s->t->nr_cpus; c++)
		s->t->cpu[c].node = -1;
	sr_for_each_cpu(n, &nodes) {
		ret = node_cpus(s, n);
		if (!ret)
			ret = node_distances(s, n, &nodes);
		if (absent(ret)) {
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
					  s->root, NODE_DIR, c);
	snprintf(s->m->sources[SR_MI_NODES], sizeof(s->m->sources[0]), "%s", NODE_DIR);
	return 0;
}

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
	if (!sr_sd_add_unknown(sd, name) && first_note(s, NOTE_UNKNOWN_FULL))
		warn(s, "cpu%d domain%d: unknown flag %s not kept (too many)", cpu, lvl, name);
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
		if (!s->kv && first_note(s, NOTE_NUMERIC))
			warn(s, "numeric domain flags of an unknown kernel: read with the "
			     "4.10-5.7 values");
		numeric_flags(s, strtoul(text, NULL, 10), cpu, lvl, sd);
	} else {
		for (w = strtok_r(text, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
			unsigned int f = sr_sd_flag_by_name(w);

			if (strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(w))
				return garbage(s, rel, w, "an SD_ flag name");
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
	if (!absent(ret))
		return ret;
	return sr_err_set(s->err, -EINVAL, "%s/%s: %s: the domain is incomplete", s->root, rel,
			  strerror(-ret));
}

static int kernel_level(struct snap *s, const char *dir, int cpu, int lvl,
			struct sr_domain *sd)
{
	char rel[192], *text;
	int n = snprintf(rel, sizeof(rel), "%s/cpu%d/domain%d/", dir, cpu, lvl), ret;
	long long pct;

	snprintf(rel + n, sizeof(rel) - n, "name");
	ret = required(s, rel, snap_word(s, rel, sd->name, sizeof(sd->name)));
	if (ret)
		return ret;
	snprintf(rel + n, sizeof(rel) - n, "flags");
	ret = required(s, rel, snap_read(s, rel, &text));
	if (ret)
		return ret;
	ret = parse_flags(s, rel, text, cpu, lvl, sd);
	free(text);
	if (ret)
		return ret;
	snprintf(rel + n, sizeof(rel) - n, "imbalance_pct");
	ret = snap_int(s, rel, 1, 10000, &pct);
	if (absent(ret)) {
		if (first_note(s, NOTE_PCT))
			missing(s, "%s: %s: imbalance_pct of the era assumed", rel, strerror(-ret));
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
	if (!snap_is_dir(s, rel))
		return sr_err_set(s->err, -EINVAL, "%s/%s: missing, yet other CPUs' domains are "
				  "there", s->root, rel);
	for (lvl = 0; ; lvl++) {
		int ret;

		snprintf(rel, sizeof(rel), "%s/cpu%d/domain%d", dir, cpu, lvl);
		if (!snap_is_dir(s, rel))
			break;
		if (lvl == SR_MAX_LEVELS)
			return sr_err_set(s->err, -EINVAL, "%s/%s: more than %d domain levels",
					  s->root, rel, SR_MAX_LEVELS);
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
		return garbage(s, "proc/schedstat", num - 6, "a domain line of the CPU above it");
	if (lvl >= SR_MAX_LEVELS)
		return sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: cpu%d has more than %d "
				  "domains", s->root, cpu, SR_MAX_LEVELS);
	sd = &ss[cpu].sd[lvl];
	if (version >= 17 || !is_hex_mask(a)) {
		snprintf(sd->name, sizeof(sd->name), "%s", a);
		mask = next_tok(&p);
	}
	ret = mask ? sr_cpumask_parse_hex(mask, &sd->span) : -EINVAL;
	if (ret == -ERANGE)
		return sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: cpu%d domain%ld spans CPUs "
				  "beyond %d (SR_MAX_CPUS)", s->root, cpu, lvl, SR_MAX_CPUS - 1);
	if (ret)
		return garbage(s, "proc/schedstat", mask ? mask : a, "a CPU mask");
	ss[cpu].nr_levels++;
	return 0;
}

static int schedstat_cpu(struct snap *s, const char *num, struct sr_cpumask *seen, int *cpu)
{
	char *end;
	long c = strtol(num, &end, 10);

	if (*end || end == num || c < 0)
		return garbage(s, "proc/schedstat", num - 3, "a cpuN line");
	if (c >= s->t->nr_cpus)
		return sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: lists cpu%ld, which is not "
				  "online in the snapshot", s->root, c);
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
		ret = garbage(s, "proc/schedstat", text, "a schedstat file (no version line)");
	for (int c = 0; !ret && c < s->t->nr_cpus; c++)
		if (!sr_mask_test(&seen, c))
			ret = sr_err_set(s->err, -EINVAL, "%s/proc/schedstat: no line for cpu%d",
					 s->root, c);
	return ret;
}

/* @ss filled from /proc/schedstat: 1; 0 when the snapshot has none. */
static int read_schedstat(struct snap *s, struct sr_cpu_topo *ss)
{
	char *text;
	int ret = snap_read(s, "proc/schedstat", &text);

	if (absent(ret)) {
		missing(s, "proc/schedstat: %s", strerror(-ret));
		return 0;
	}
	if (ret)
		return sr_err_set(s->err, ret, "%s/proc/schedstat: %s", s->root, strerror(-ret));
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
					  "for cpu%d, %s %d: not one snapshot", s->root,
					  ss[cpu].nr_levels, cpu, dir, kd[cpu].nr_levels);
		for (int l = 0; l < kd[cpu].nr_levels; l++) {
			const struct sr_domain *sd = &ss[cpu].sd[l];

			kd[cpu].sd[l].span = sd->span;
			if (sd->name[0] && strcmp(sd->name, kd[cpu].sd[l].name))
				warn(s, "cpu%d domain%d is %s in proc/schedstat, %s in %s", cpu, l,
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
					  "not hold the CPU and the level below", s->root, cpu, l,
					  sd->name);
		if (!sr_mask_subset(&sd->span, &s->t->possible))
			return sr_err_set(s->err, -EINVAL, "%s: cpu%d domain%d spans CPUs that "
					  "are not online", s->root, cpu, l);
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
	if (!sr_mask_equal(&llc, &c->llc) && first_note(s, NOTE_LLC_DIFF)) {
		char a[64], b[64];

		sr_cpulist_format(&c->llc, a, sizeof(a));
		sr_cpulist_format(&llc, b, sizeof(b));
		warn(s, "cpu%d: sysfs caches give an LLC of %s, the kernel's domains %s: the "
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
			warn(s, "cpu%d: the derived levels differ from the kernel's in "
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
		if (snap_is_dir(s, rel))
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
		missing(s, "proc/schedstat: the kernel's domain spans are matched from the "
			"topology by level name");
		return 0;
	}
	warn(s, "%s: levels without spans (no proc/schedstat) that match no derived level: "
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

static int snap_domains(struct snap *s)
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
		missing(s, "%s: no sched domains (they need CONFIG_SCHED_DEBUG, debugfs and, "
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

/* ------------------------------------------------------------ scheduler knobs */

/* The first of @rels the snapshot has; 0 with its text, or why none could be read. */
static int read_first(struct snap *s, const char *what, const char *const *rels, size_t n,
		      char **text, size_t *which)
{
	int ret = -ENOENT, why = -ENOENT;
	size_t i;

	for (i = 0; i < n; i++) {
		ret = snap_read(s, rels[i], text);
		if (!ret) {
			*which = i;
			return 0;
		}
		if (!absent(ret))
			return sr_err_set(s->err, ret, "%s/%s: %s", s->root, rels[i],
					  strerror(-ret));
		if (ret != -ENOENT && why == -ENOENT) {
			why = ret;
			*which = i;
		}
	}
	if (why != -ENOENT)
		missing(s, "%s: %s: %s", what, rels[*which], strerror(-why));
	else
		missing(s, "%s: not in the snapshot (%s%s%s)", what, rels[0], n > 1 ? ", " : "",
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
			return garbage(s, rel, w, "a sched feature name");
		if (n == SR_MACHINE_MAX_FEATURES)
			return sr_err_set(s->err, -EINVAL, "%s/%s: more than %d features",
					  s->root, rel, SR_MACHINE_MAX_FEATURES);
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
		return absent(ret) ? 0 : ret;
	ret = parse_features(s, rels[which], text);
	free(text);
	if (!ret)
		snprintf(s->m->sources[SR_MI_FEATURES], sizeof(s->m->sources[0]), "%s",
			 rels[which]);
	return ret;
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
		return absent(ret) ? 0 : ret;
	if (parse_ll(text, 0, max, v))
		ret = garbage(s, rels[which], text, "a number");
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
	return ret;
}

/* ------------------------------------------------------------ loading */

static int snap_topology(struct snap *s)
{
	int nr, ret = snap_cpus(s, &nr);

	if (ret)
		return ret;
	ret = sr_topo_alloc(s->t, nr);
	if (ret)
		return sr_err_set(s->err, ret, "out of memory");
	s->t->source = SR_TOPO_SYSFS;
	for (int cpu = 0; !ret && cpu < nr; cpu++)
		ret = snap_cpu_topo(s, cpu);
	if (ret)
		return ret;
	number_cores(s);
	ret = snap_caches(s);
	if (!ret)
		ret = snap_nodes(s);
	if (ret)
		return ret;
	sr_topo_derive(s->t, s->era, s->kv >= SR_KV(6, 9) ? "PKG" : "DIE");
	return snap_domains(s);
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
	if (len >= sizeof(s->root)) {
		free(s);
		return sr_err_set(err, -ENAMETOOLONG, "%s: path too long", dir);
	}
	*s = (struct snap){ .t = t, .m = m, .err = err, .era = era };
	/* "/" is this machine: paths are then "/sys/...". */
	snprintf(s->root, sizeof(s->root), "%.*s", (int)(len == 1 && dir[0] == '/' ? 0 : len),
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
