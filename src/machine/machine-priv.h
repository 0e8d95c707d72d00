/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/machine: what its files share beyond machine.h. */
#ifndef SR_MACHINE_PRIV_H
#define SR_MACHINE_PRIV_H

#include <limits.h>
#include "machine.h"
#include "topology.h"

/* ------------------------------------------------------------ topology.c */

/* A CPU's value of one of its placement fields (package, node, core...). */
typedef int (*sr_topo_key)(const struct sr_cpu_topo *c);
int sr_key_package(const struct sr_cpu_topo *c);
int sr_key_node(const struct sr_cpu_topo *c);

/*
 * The CPUs whose @key equals @cpu's, in @m.  *@built is the key @m holds
 * (start with INT_MIN): walking CPUs in order, @m is rebuilt only when the
 * key changes, so machines numbered package by package cost O(groups x
 * CPUs), not O(CPUs^2) — thousands of CPUs stay quick.
 */
void sr_topo_group(const struct sr_topo *t, int cpu, sr_topo_key key, struct sr_cpumask *m,
		   int *built);

/* ------------------------------------------------------------ root.c */

/* A directory laid out like a machine's root: "/" itself, or a snapshot of one. */
struct sr_root {
	char path[PATH_MAX];		/* without a trailing '/': "" for "/" */
};

/* 0, or -ENAMETOOLONG. */
int sr_root_set(struct sr_root *r, const char *dir);
/* "ROOT/REL" into @buf; 0 or -ENAMETOOLONG. */
int sr_root_path(const struct sr_root *r, const char *rel, char *buf, size_t len);
bool sr_root_is_dir(const struct sr_root *r, const char *rel);
/* The whole of a small file, NUL-terminated, in *@out (free it); 0 or -errno. */
int sr_root_read(const struct sr_root *r, const char *rel, char **out);

/* ------------------------------------------------------------ affinity.c */

/*
 * The task proc/PID/status or proc/PID/task/TID/status (@rel) describes:
 * TID, else PID; its thread group PID in *@tgid (0: not a pid).
 */
int sr_proc_status_task(const char *rel, int *tgid);

/* ------------------------------------------------------------ load*.c: reading a snapshot */

#define CPU_DIR		"sys/devices/system/cpu"
#define NODE_DIR	"sys/devices/system/node"

/* Notes given once per snapshot. */
enum note_once { NOTE_CORE_ID, NOTE_DIE_ID, NOTE_SIBLINGS, NOTE_PKG, NOTE_CACHE, NOTE_PCT,
		 NOTE_SMT_ASYM, NOTE_LLC_DIFF, NOTE_UNKNOWN_FULL, NOTE_DISTANCE,
		 NOTE_NUMERIC };

/* One snapshot being read into a topology and a machine. */
struct snap {
	struct sr_root root;
	struct sr_topo *t;
	struct sr_machine *m;
	struct sr_err *err;
	enum sr_topo_era era;
	unsigned int kv;		/* SR_KV() of the snapshot's kernel, 0 unknown */
	unsigned int noted;		/* (1 << enum note_once) of the notes already given */
};

/* load.c: notes, and files read with a message on garbage */
__attribute__((format(printf, 2, 3)))
void sr_ld_missing(struct snap *s, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void sr_ld_warn(struct snap *s, const char *fmt, ...);
/* True the first time a note of @kind is asked for. */
bool sr_ld_first_note(struct snap *s, enum note_once kind);
/* A read error that means "the kernel has no such file", not a failure. */
bool sr_ld_absent(int ret);
int sr_ld_garbage(struct snap *s, const char *rel, const char *text, const char *want);
/* One integer; absent files return their -errno without a message. */
int sr_ld_int(struct snap *s, const char *rel, long long min, long long max, long long *out);
/* A CPU list holding only CPUs of the snapshot. */
int sr_ld_cpulist(struct snap *s, const char *rel, int nr_cpus, struct sr_cpumask *m);
/* A one-word file such as a level name or a cache type. */
int sr_ld_word(struct snap *s, const char *rel, char *buf, size_t len);
/* Numbers N of the entries "<prefix>N" of a directory, below @limit, into @m. */
int sr_ld_list_numbered(struct snap *s, const char *rel, const char *prefix, int limit,
			struct sr_cpumask *m, long *too_big);

/* load-cpus.c */
int sr_ld_cpus(struct snap *s, int *nr);
int sr_ld_cpu_topo(struct snap *s, int cpu);
/* Machine-wide core numbers from the sibling masks; sibling lists must agree. */
void sr_ld_number_cores(struct snap *s);
int sr_ld_caches(struct snap *s);
int sr_ld_nodes(struct snap *s);

/* load-domains.c */
int sr_ld_domains(struct snap *s);

#endif /* SR_MACHINE_PRIV_H */
