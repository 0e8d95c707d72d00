/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine snapshot: copy the files that describe how a machine schedules
 * (CPU topology, caches, NUMA distances, sched features and domains,
 * sched sysctls, kernel version and command line) into a directory laid
 * out like the machine's root, so that later code can read it as if it
 * were the machine ("--root DIR").  schedreplay-snapshot.json in that
 * directory says what was captured and what was not, and why.
 *
 * Returns 0 or a negative errno, like the rest of the library.
 */
#ifndef SR_SNAPSHOT_H
#define SR_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define SR_SNAPSHOT_JSON	"schedreplay-snapshot.json"
#define SR_SNAPSHOT_SCHEMA	"schedreplay-snapshot/1"

struct sr_snapshot_opts {
	/*
	 * Root to copy from: NULL or "/" for this machine.  Any other
	 * directory is read as a machine root (tests, re-snapshotting a
	 * snapshot); debugfs is then never mounted.
	 */
	const char *root;
	/* Members merged into schedreplay-snapshot.json; borrowed, may be NULL. */
	json_t *extra;
};

struct sr_snapshot_result {
	int captured;		/* files copied */
	int missing;		/* entries in "missing" (absent or unreadable) */
};

/*
 * Create @dir (it must not exist: an old snapshot is never mixed with a
 * new one) and fill it.  Absent and unreadable files are listed in the
 * JSON, not treated as errors; only failing to write @dir is.  When
 * debugfs is not mounted, it is mounted on a private temporary directory
 * for reading and unmounted again.  @res may be NULL.
 */
int sr_snapshot_write(const char *dir, const struct sr_snapshot_opts *opts,
		      struct sr_snapshot_result *res);

/* Where a filesystem of type @fstype ("tracefs", "debugfs") is first mounted. */
bool sr_find_mount(const char *fstype, char *dir, size_t size);

#endif /* SR_SNAPSHOT_H */
