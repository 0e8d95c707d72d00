// SPDX-License-Identifier: GPL-2.0
/*
 * Machine snapshot writer (see snapshot.h).  Files are copied byte for
 * byte and never parsed here: the snapshot is evidence, and reading it is
 * the job of the code that consumes it (topology, presets).
 */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <glob.h>
#include <limits.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "machine-priv.h"

/*
 * proc/PID/task/TID/status of a thread other than the group leader (whose
 * own is proc/PID/status): threads set their affinity one by one
 * (pthread_setaffinity_np()), and /proc lists only thread groups.
 */
static bool other_thread(const char *rel)
{
	int tgid;

	return sr_proc_status_task(rel, &tgid) != tgid;
}

/* Copied when present; relative to the machine root. */
static const struct {
	const char *pattern;
	const char *absent;	/* why it may be absent, for the "missing" list */
	bool (*keep)(const char *rel);	/* NULL: every match */
} items[] = {
	{ "sys/devices/system/cpu/online", "absent", NULL },
	{ "sys/devices/system/cpu/possible", "absent", NULL },
	{ "sys/devices/system/cpu/present", "absent", NULL },
	{ "sys/devices/system/cpu/cpu[0-9]*/topology/*", "absent", NULL },
	{ "sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/level", "absent", NULL },
	{ "sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/type", "absent", NULL },
	{ "sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/shared_cpu_list", "absent", NULL },
	{ "sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/size", "absent", NULL },
	{ "sys/devices/system/cpu/cpuidle/current_driver", "absent (kernel without CONFIG_CPU_IDLE?)", NULL },
	{ "sys/devices/system/node/node[0-9]*/cpulist", "absent (kernel without CONFIG_NUMA?)", NULL },
	{ "sys/devices/system/node/node[0-9]*/distance", "absent (kernel without CONFIG_NUMA?)", NULL },
	{ "proc/sys/kernel/sched_autogroup_enabled", "absent (kernel without CONFIG_SCHED_AUTOGROUP?)", NULL },
	{ "proc/sys/kernel/sched_migration_cost_ns",
	  "absent (since 5.13 it is sys/kernel/debug/sched/migration_cost_ns)", NULL },
	/* Kernels before 5.13 publish their sched domains here, not in debugfs. */
	{ "proc/sys/kernel/sched_domain/cpu[0-9]*/domain[0-9]*/*", "absent (before 5.13 only)", NULL },
	{ "proc/version", "absent", NULL },
	{ "proc/schedstat", "absent (kernel without CONFIG_SCHEDSTATS?)", NULL },
	{ "proc/cmdline", "absent", NULL },
	/* a patched kernel's placement sysctl (docs/models.md); no note where absent */
	{ "proc/sys/kernel/sched_vcpu_pack", NULL, NULL },
	/* each task's Cpus_allowed_list (src/machine/affinity.c) */
	{ "proc/[0-9]*/status", "absent", NULL },
	{ "proc/[0-9]*/task/[0-9]*/status", "absent (no thread besides the leaders)",
	  other_thread },
};

#define DEBUGFS_REL	"sys/kernel/debug"
#define SCHED_REL	DEBUGFS_REL "/sched"

/* A snapshot being written: the machine it copies (src) into dir. */
struct snap_out {
	struct sr_root src;
	const char *dir;		/* destination */
	json_t *captured;		/* relative paths */
	json_t *missing;		/* { path, reason } */
	json_t *debugfs;		/* where sched debugfs files came from, or why not */
};

static int join(char *buf, size_t size, const char *a, const char *b)
{
	int n = snprintf(buf, size, "%s/%s", a, b);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int list_add(json_t *list, json_t *item)
{
	return item && !json_array_append_new(list, item) ? 0 : -ENOMEM;
}

static int note_missing(struct snap_out *s, const char *rel, const char *reason)
{
	return list_add(s->missing, json_pack("{s:o, s:o}", "path", sr_json_str(rel), "reason",
						   sr_json_str(reason)));
}

/* mkdir -p for the directories of @rel below s->dir. */
static int make_parents(const struct snap_out *s, const char *rel)
{
	char path[PATH_MAX];
	int ret = join(path, sizeof(path), s->dir, rel);
	char *p = path + strlen(s->dir) + 1;

	if (ret)
		return ret;
	while ((p = strchr(p, '/'))) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p++ = '/';
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Copy the open file @in to @dst.  Returns -errno when @dst cannot be
 * written (a real failure); a read error on @in is returned in *src_err,
 * because a machine that hides a file is information, not an error.
 * sysfs, procfs and debugfs report size 0, so read to EOF.
 */
static int copy_fd(int in, const char *dst, int *src_err)
{
	char buf[65536];
	int out, ret = 0;
	ssize_t n;

	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*src_err = errno;
			break;
		}
		ret = write_all(out, buf, n);
		if (ret)
			break;
	}
	if (close(out) && !ret)
		ret = -errno;
	if (ret || *src_err)
		unlink(dst);
	return ret;
}

/* Why a file could not be read, with the one cause worth explaining. */
static void read_error(char *buf, size_t size, const char *rel, int err)
{
	if (err == EPERM && !strncmp(rel, DEBUGFS_REL "/", strlen(DEBUGFS_REL) + 1))
		snprintf(buf, size, "%s (kernel lockdown hides debugfs files that are writable)",
			 strerror(err));
	else
		snprintf(buf, size, "%s", strerror(err));
}

/* Copy one file, @src on the machine, to @rel in the snapshot. */
static int capture(struct snap_out *s, const char *src, const char *rel)
{
	char dst[PATH_MAX], reason[256];
	int in, ret, err = 0;

	ret = join(dst, sizeof(dst), s->dir, rel);
	if (ret)
		return ret;
	/* Open first: no empty directories for files the machine hides. */
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		err = errno;
	} else {
		ret = make_parents(s, rel);
		if (!ret)
			ret = copy_fd(in, dst, &err);
		close(in);
	}
	if (ret)
		return ret;
	if (!err)
		return list_add(s->captured, sr_json_str(rel));
	read_error(reason, sizeof(reason), rel, err);
	return note_missing(s, rel, reason);
}

static bool is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int capture_pattern(struct snap_out *s, const char *pattern, const char *absent,
			   bool (*keep)(const char *rel))
{
	char src[PATH_MAX];
	size_t skip = strlen(s->src.path) + 1;
	int ret, rc, found = 0;
	glob_t g;

	ret = sr_root_path(&s->src, pattern, src, sizeof(src));
	if (ret)
		return ret;
	/* GLOB_NOMATCH and GLOB_ABORTED both mean: nothing to copy. */
	rc = glob(src, 0, NULL, &g);
	for (size_t i = 0; !rc && !ret && i < g.gl_pathc; i++) {
		if ((keep && !keep(g.gl_pathv[i] + skip)) || !is_regular(g.gl_pathv[i]))
			continue;
		ret = capture(s, g.gl_pathv[i], g.gl_pathv[i] + skip);
		found++;
	}
	globfree(&g);
	if (rc == GLOB_NOSPACE)
		return -ENOMEM;
	if (!ret && !found && absent)
		ret = note_missing(s, pattern, absent);
	return ret;
}

/* A file read earlier (@f), where the copy found none: its task has exited. */
static int capture_kept(struct snap_out *s, const struct sr_snapshot_file *f)
{
	char dst[PATH_MAX];
	int fd, ret;

	if (!f->rel || !f->text || f->rel[0] == '/' || strstr(f->rel, ".."))
		return 0;
	ret = join(dst, sizeof(dst), s->dir, f->rel);
	if (ret || !access(dst, F_OK))
		return ret;		/* still alive at the snapshot: its own copy */
	ret = make_parents(s, f->rel);
	if (ret)
		return ret;
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, f->text, strlen(f->text));
	if (close(fd) && !ret)
		ret = -errno;
	return ret ? ret : list_add(s->captured, sr_json_str(f->rel));
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

/* Every regular file below @mnt/sched, as sys/kernel/debug/sched/... */
static int walk_sched(struct snap_out *s, const char *mnt)
{
	char top[PATH_MAX], rel[PATH_MAX];
	char *paths[] = { top, NULL };
	size_t skip = strlen(mnt);
	FTSENT *e;
	FTS *fts;
	int ret;

	ret = join(top, sizeof(top), mnt, "sched");
	if (ret)
		return ret;
	fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, by_name);
	if (!fts)
		return -errno;
	while (!ret && (e = fts_read(fts))) {
		if (e->fts_info != FTS_F && e->fts_info != FTS_DNR)
			continue;
		if (snprintf(rel, sizeof(rel), "%s%s", DEBUGFS_REL, e->fts_path + skip) >=
		    (int)sizeof(rel))
			ret = -ENAMETOOLONG;
		else if (e->fts_info == FTS_DNR)
			ret = note_missing(s, rel, strerror(e->fts_errno));
		else
			ret = capture(s, e->fts_path, rel);
	}
	fts_close(fts);
	return ret;
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return !join(path, sizeof(path), dir, name) && !stat(path, &st);
}

static int capture_sched_debug(struct snap_out *s, const char *mnt)
{
	char sched[PATH_MAX];
	int ret;

	ret = join(sched, sizeof(sched), mnt, "sched");
	if (ret)
		return ret;
	if (!exists(mnt, "sched"))
		return note_missing(s, SCHED_REL,
				    "absent (kernel built without CONFIG_SCHED_DEBUG?)");
	ret = walk_sched(s, mnt);
	if (!ret && !exists(sched, "domains"))
		ret = note_missing(s, SCHED_REL "/domains",
				   "absent (the kernel shows sched domains only while "
				   "sched/verbose is Y)");
	return ret;
}

bool sr_find_mount(const char *fstype, char *dir, size_t size)
{
	struct mntent ent, *m;
	char line[4096];
	bool found = false;
	FILE *f;

	f = setmntent("/proc/mounts", "re");
	if (!f)
		return false;
	while (!found && (m = getmntent_r(f, &ent, line, sizeof(line)))) {
		if (strcmp(m->mnt_type, fstype))
			continue;
		found = (size_t)snprintf(dir, size, "%s", m->mnt_dir) < size;
	}
	endmntent(f);
	return found;
}

/*
 * Mount debugfs on a private temporary directory.  Not MS_RDONLY: debugfs
 * has a single superblock, and a read-only mount would turn every other
 * debugfs mount read-only too; we only ever open files for reading.
 */
static int mount_debugfs(char *tmp, size_t size)
{
	if ((size_t)snprintf(tmp, size, "/tmp/schedreplay-debugfs-XXXXXX") >= size)
		return -ENAMETOOLONG;
	if (!mkdtemp(tmp))
		return -errno;
	if (mount("none", tmp, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		int err = -errno;

		rmdir(tmp);
		return err;
	}
	return 0;
}

static void unmount_debugfs(const char *tmp)
{
	if (umount2(tmp, 0) && errno == EBUSY)
		umount2(tmp, MNT_DETACH);
	rmdir(tmp);
}

static int set_debugfs_note(struct snap_out *s, const char *fmt, const char *arg)
{
	char note[PATH_MAX + 128];

	snprintf(note, sizeof(note), fmt, arg);
	s->debugfs = sr_json_str(note);
	return s->debugfs ? 0 : -ENOMEM;
}

/* sys/kernel/debug/sched: wherever debugfs is, mounting it if we must. */
static int capture_debugfs(struct snap_out *s)
{
	char mnt[PATH_MAX];
	int ret;

	if (s->src.path[0]) {
		ret = sr_root_path(&s->src, DEBUGFS_REL, mnt, sizeof(mnt));
		if (!ret)
			ret = set_debugfs_note(s, "read from %s", mnt);
		return ret ? ret : capture_sched_debug(s, mnt);
	}
	if (sr_find_mount("debugfs", mnt, sizeof(mnt))) {
		ret = set_debugfs_note(s, "mounted at %s", mnt);
		return ret ? ret : capture_sched_debug(s, mnt);
	}
	ret = mount_debugfs(mnt, sizeof(mnt));
	if (ret) {
		ret = set_debugfs_note(s, "unavailable: cannot mount debugfs: %s", strerror(-ret));
		return ret ? ret : note_missing(s, SCHED_REL, "debugfs unavailable");
	}
	ret = set_debugfs_note(s, "mounted for the snapshot on %s, then unmounted", mnt);
	if (!ret)
		ret = capture_sched_debug(s, mnt);
	unmount_debugfs(mnt);
	return ret;
}

static json_t *uname_json(void)
{
	struct utsname u;

	if (uname(&u))
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "sysname", sr_json_str(u.sysname),
			 "nodename", sr_json_str(u.nodename), "release", sr_json_str(u.release),
			 "version", sr_json_str(u.version), "machine", sr_json_str(u.machine));
}

static json_t *date_json(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(buf);
}

static int write_json(const struct snap_out *s, const struct sr_snapshot_opts *o)
{
	char path[PATH_MAX];
	json_t *j;
	int ret;

	ret = join(path, sizeof(path), s->dir, SR_SNAPSHOT_JSON);
	if (ret)
		return ret;
	j = json_pack("{s:s, s:o, s:o, s:o, s:O, s:O, s:O}", "schema", SR_SNAPSHOT_SCHEMA,
		      "date", date_json(), "uname", uname_json(),
		      "root", sr_json_str(s->src.path[0] ? s->src.path : "/"), "debugfs", s->debugfs,
		      "captured", s->captured, "missing", s->missing);
	if (!j)
		return -ENOMEM;
	if (o && o->extra && json_object_update(j, o->extra))
		ret = -ENOMEM;
	else if (json_dump_file(j, path, JSON_INDENT(2)))
		ret = -EIO;
	json_decref(j);
	return ret;
}

static int snap_init(struct snap_out *s, const char *dir, const struct sr_snapshot_opts *o)
{
	int ret = sr_root_set(&s->src, o && o->root ? o->root : "/");

	if (ret)
		return ret;
	s->dir = dir;
	s->captured = json_array();
	s->missing = json_array();
	return s->captured && s->missing ? 0 : -ENOMEM;
}

int sr_snapshot_write(const char *dir, const struct sr_snapshot_opts *opts,
		      struct sr_snapshot_result *res)
{
	struct snap_out s = { .dir = NULL };
	int ret;

	ret = snap_init(&s, dir, opts);
	if (ret)
		goto out;
	if (mkdir(dir, 0755)) {
		ret = -errno;
		goto out;
	}
	for (size_t i = 0; !ret && i < sizeof(items) / sizeof(items[0]); i++)
		ret = capture_pattern(&s, items[i].pattern, items[i].absent, items[i].keep);
	for (size_t i = 0; !ret && opts && i < opts->nr_kept; i++)
		ret = capture_kept(&s, &opts->kept[i]);
	if (!ret)
		ret = capture_debugfs(&s);
	if (!ret)
		ret = write_json(&s, opts);
	if (!ret && res) {
		res->captured = (int)json_array_size(s.captured);
		res->missing = (int)json_array_size(s.missing);
	}
out:
	json_decref(s.captured);
	json_decref(s.missing);
	json_decref(s.debugfs);
	return ret;
}
