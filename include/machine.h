/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine as an input: a topology plus what is not topology (kernel
 * version, sched_features, migration cost, autogroup), loaded from a
 * snapshot directory laid out like a machine's root, from schedreplay's
 * own topology JSON (docs/topology.md), or from a short spec.
 *
 * struct sr_machine owns no memory: it needs no free.
 */
#ifndef SR_MACHINE_H
#define SR_MACHINE_H

#include <stdint.h>
#include <jansson.h>
#include "base.h"
#include "topology.h"

#define SR_MACHINE_MAX_FEATURES	128
#define SR_MACHINE_MAX_NOTES	32
#define SR_MACHINE_NOTE_LEN	200
#define SR_MACHINE_PATH_LEN	512
#define SR_TOPO_JSON_FORMAT	"schedreplay-topology"
#define SR_TOPO_JSON_VERSION	1

/* What each source path in struct sr_machine is for. */
enum sr_machine_item {
	SR_MI_VERSION,			/* proc/version */
	SR_MI_CPUS,			/* sys/devices/system/cpu */
	SR_MI_CACHES,			/* cpuN/cache/indexM */
	SR_MI_NODES,			/* sys/devices/system/node */
	SR_MI_DOMAINS,			/* debugfs or sysctl sched_domain directory */
	SR_MI_SPANS,			/* proc/schedstat */
	SR_MI_FEATURES,
	SR_MI_MIGRATION_COST,
	SR_MI_AUTOGROUP,
	SR_MI_NR
};

struct sr_sched_feature {
	char name[32];
	bool enabled;			/* false: listed as NO_name */
};

struct sr_machine {
	char loaded_from[SR_MACHINE_PATH_LEN];	/* the argument sr_topo_load() was given */
	/* Where and how the machine was measured; kept through a JSON round trip. */
	char origin[SR_MACHINE_PATH_LEN];
	char origin_source[16];		/* "debugfs", "sysfs", "spec", ... */
	char kernel_version[256];	/* the proc/version line; "" unknown */
	char release[64];		/* e.g. "6.1.0-18-amd64"; "" unknown */
	int nr_features;		/* -1: unknown */
	struct sr_sched_feature features[SR_MACHINE_MAX_FEATURES];
	int64_t migration_cost_ns;	/* -1: unknown */
	int autogroup;			/* -1 unknown, 0 or 1 */
	/*
	 * Boot parameters (proc/cmdline) named sched_* that no mainline kernel
	 * has, space separated ("sched_vcpu_pack=15"): the kernel runs scheduler
	 * code outside mainline.  "" none, or no command line in the snapshot.
	 */
	char kernel_patch_params[160];
	/*
	 * sys/devices/system/cpu/cpuidle/current_driver: "none" (no idle
	 * states), a driver's name ("intel_idle", "acpi_idle", ...), or ""
	 * unknown (a snapshot without it; taken as none).
	 */
	char cpuidle_driver[32];
	/* Paths relative to the snapshot root each item was read from; "" none. */
	char sources[SR_MI_NR][128];
	int nr_missing;			/* what the snapshot lacked, and what was assumed */
	char missing[SR_MACHINE_MAX_NOTES][SR_MACHINE_NOTE_LEN];
	int nr_warnings;		/* inconsistencies found while loading */
	char warnings[SR_MACHINE_MAX_NOTES][SR_MACHINE_NOTE_LEN];
};

/*
 * Load the machine @arg describes into @t and @m:
 *  - a directory laid out like a machine's root (sys/devices/system/cpu,
 *    sys/devices/system/node, sys/kernel/debug/sched, proc/...; "/" is this
 *    machine): source SR_TOPO_DEBUGFS when the kernel's own domains are
 *    there (they win), else SR_TOPO_SYSFS with derived levels;
 *  - a schedreplay topology JSON file (sr_topo_to_json()): SR_TOPO_JSON;
 *  - otherwise a spec for sr_topo_from_spec(): SR_TOPO_SPEC.
 * @era sets the defaults of derived levels; SR_ERA_AUTO takes the
 * snapshot's kernel.  Returns 0, -EINVAL (bad or inconsistent input, offline
 * CPUs, more than SR_MAX_CPUS CPUs), -ENOENT, -EACCES or -ENOMEM, with a
 * message in @err.  On error @t holds nothing to free.
 */
int sr_topo_load(struct sr_topo *t, struct sr_machine *m, const char *arg,
		 enum sr_topo_era era, struct sr_err *err);

/* Everything unknown, nothing missing. */
void sr_machine_init(struct sr_machine *m);
/* 1 enabled, 0 disabled (NO_), -1 unknown. */
int sr_machine_feature(const struct sr_machine *m, const char *name);
/*
 * sched_vcpu_pack=N among kernel_patch_params (the 6.18.44-fc guest kernel's
 * placement patch, modelled by replay/vcpu_pack-6.18fc.c): N, else -1.
 */
int sr_machine_vcpu_pack(const struct sr_machine *m);
/* kernel_patch_params names a parameter no model reproduces. */
bool sr_machine_unmodelled_patches(const struct sr_machine *m);
/* A cpuidle driver gives the idle CPUs states (exit latencies); unknown counts as none. */
bool sr_machine_idle_states(const struct sr_machine *m);
/* Kernel era of a release string ("6.1.0-18-amd64"); 5.11+ when it does not parse. */
enum sr_topo_era sr_topo_era_of(const char *release);

/* "debugfs", "sysfs", ... for a source. */
const char *sr_topo_source_name(enum sr_topo_source s);
const char *sr_sd_origin_name(enum sr_sd_origin o);
/* The origin named @name ("derived", "debugfs", "sysctl"), or -1. */
int sr_sd_origin_by_name(const char *name);
/* The key of an item in the topology JSON's "sources" ("version", "cpus", ...). */
const char *sr_machine_item_name(enum sr_machine_item i);

/* The topology JSON object (docs/topology.md); NULL on ENOMEM. */
json_t *sr_topo_to_json(const struct sr_topo *t, const struct sr_machine *m);
/* Read what sr_topo_to_json() wrote; the topology's source becomes SR_TOPO_JSON. */
int sr_topo_from_json(struct sr_topo *t, struct sr_machine *m, const json_t *root,
		      enum sr_topo_era era, struct sr_err *err);

/* ------------------------------------------------------------ snapshots */

/*
 * Machine snapshot: copy the files that describe how a machine schedules
 * (CPU topology, caches, NUMA distances, sched features and domains,
 * sched sysctls, kernel version and command line) into a directory laid
 * out like the machine's root, so that sr_topo_load() can read it as if it
 * were the machine.  schedreplay-snapshot.json in that directory says what
 * was captured and what was not, and why.
 */
#define SR_SNAPSHOT_JSON	"schedreplay-snapshot.json"
#define SR_SNAPSHOT_SCHEMA	"schedreplay-snapshot/1"

/* A file as read earlier, while the task it describes ran: @rel (below the root) holds @text. */
struct sr_snapshot_file {
	const char *rel;
	const char *text;
};

struct sr_snapshot_opts {
	/*
	 * Root to copy from: NULL or "/" for this machine.  Any other
	 * directory is read as a machine root (tests, re-snapshotting a
	 * snapshot); debugfs is then never mounted.
	 */
	const char *root;
	/* Members merged into schedreplay-snapshot.json; borrowed, may be NULL. */
	json_t *extra;
	/*
	 * Files of tasks that may have exited before the snapshot (record's
	 * COMMAND): each written, and listed as captured, where the root no
	 * longer had it.  Borrowed.
	 */
	const struct sr_snapshot_file *kept;
	size_t nr_kept;
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

/*
 * The tasks of the machine root @dir whose Cpus_allowed_list is not all of
 * CPUs 0 .. @nr_cpus - 1, sorted by pid, in *@out (free() it; NULL when
 * none).  Returns their count (0 when the root has no proc/<pid>/status, as
 * snapshots before 2026-12 do), or -errno (-ENOMEM).  A file that cannot be
 * read or parsed is skipped: the task keeps every CPU.
 */
int sr_affinity_load(const char *dir, int nr_cpus, struct sr_affinity **out);
/* Sort @n entries by pid, as sr_affinity_load() returns them and the state looks them up. */
void sr_affinity_sort(struct sr_affinity *a, size_t n);

/* Where a filesystem of type @fstype ("tracefs", "debugfs") is first mounted. */
bool sr_find_mount(const char *fstype, char *dir, size_t size);

#endif /* SR_MACHINE_H */

