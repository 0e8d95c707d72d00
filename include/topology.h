/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine topology and sched-domain hierarchy as placement models see it.
 *
 * Flags mirror the kernel's SD_* names; bit values are ours.  Domains are
 * stored per CPU and per level, lowest level first, as the kernel walks them
 * in for_each_domain().
 *
 * Loading a topology from a machine snapshot or a JSON file is in machine.h.
 */
#ifndef SR_TOPOLOGY_H
#define SR_TOPOLOGY_H

#include <stddef.h>
#include "base.h"

#define SR_MAX_LEVELS	8
#define SR_MAX_NODES	64
#define SR_SD_NAME_LEN	16		/* the kernel's CORENAME_MAX_SIZE */

enum sr_sd_flags {
	SD_LOAD_BALANCE		= 1 << 0,	/* gone in 5.8; set on every level by us */
	SD_BALANCE_NEWIDLE	= 1 << 1,
	SD_BALANCE_EXEC		= 1 << 2,
	SD_BALANCE_FORK		= 1 << 3,
	SD_BALANCE_WAKE		= 1 << 4,
	SD_WAKE_AFFINE		= 1 << 5,
	SD_SHARE_CPUCAPACITY	= 1 << 6,	/* SMT; SD_SHARE_CPUPOWER in 2.6.x */
	SD_SHARE_PKG_RESOURCES	= 1 << 7,	/* LLC; SD_SHARE_LLC in 6.10+ */
	SD_SERIALIZE		= 1 << 8,
	SD_ASYM_PACKING		= 1 << 9,
	SD_PREFER_SIBLING	= 1 << 10,
	SD_NUMA			= 1 << 11,
	SD_ASYM_CPUCAPACITY	= 1 << 12,
	SD_PREFER_LOCAL		= 1 << 13,	/* 2.6.3x */
	/* Read from kernels, not modelled: */
	SD_OVERLAP		= 1 << 14,
	SD_SHARE_POWERDOMAIN	= 1 << 15,	/* 3.16 - 5.9 */
	SD_POWERSAVINGS_BALANCE	= 1 << 16,	/* 2.6.x - 3.4 */
	SD_CLUSTER		= 1 << 17,	/* 5.16+ */
	SD_ASYM_CPUCAPACITY_FULL = 1 << 18,	/* 5.14+ */
};

#define SR_SD_NR_FLAGS	19

/* Where a domain level came from. */
enum sr_sd_origin {
	SR_SD_DERIVED,			/* built from the topology by sd_init() rules */
	SR_SD_DEBUGFS,			/* the kernel's own, from debugfs (5.13+) */
	SR_SD_SYSCTL,			/* the kernel's own, /proc/sys/kernel/sched_domain */
};

struct sr_domain {
	char name[SR_SD_NAME_LEN];	/* "SMT", "MC", "DIE"/"PKG", "NODE", "NUMA", ... */
	unsigned int flags;		/* enum sr_sd_flags */
	unsigned int imbalance_pct;
	unsigned int span_weight;
	struct sr_cpumask span;
	/* Groups of the level below, as the balancer sees them (first CPU of each). */
	int nr_groups;
	unsigned char origin;		/* enum sr_sd_origin */
	bool span_derived;		/* kernel level whose span was matched from topology */
	char unknown_flags[48];		/* kernel flag names unknown to us */
};

struct sr_cpu_topo {
	int core_id;			/* unique across the machine */
	int package_id;
	int llc_id;			/* first CPU of the LLC span (sd_llc_id) */
	int node;
	struct sr_cpumask smt;		/* SMT siblings including itself */
	struct sr_cpumask llc;		/* CPUs sharing the LLC including itself */
	int llc_size;			/* weight of llc (sd_llc_size) */
	int nr_levels;
	struct sr_domain sd[SR_MAX_LEVELS];
	int die_id;			/* sysfs die_id (the package when unknown) */
	int sys_core_id;		/* sysfs core_id, unique per package only; -1 unknown */
};

enum sr_topo_source {
	SR_TOPO_ASSUMED_FLAT,		/* nothing known: one LLC, no SMT */
	SR_TOPO_SPEC,			/* from a short spec string */
	SR_TOPO_SYSFS,			/* from a machine snapshot's sysfs */
	SR_TOPO_DEBUGFS,		/* with the kernel's own domain hierarchy */
	SR_TOPO_JSON,
};

/* Kernel era for default imbalance_pct and flags when the snapshot lacks them. */
enum sr_topo_era {
	SR_ERA_2637,			/* 2.6.37-3.x: SMT 110, MC 125, others 125 */
	SR_ERA_316,			/* 3.16-5.9: 110 / 117 / 125 */
	SR_ERA_511,			/* 5.11+: 110 / 117 / 117 */
	SR_ERA_AUTO,			/* sr_topo_load(): the snapshot's kernel, else 5.11+ */
};

struct sr_topo {
	int nr_cpus;
	int nr_nodes;
	int smt_max;			/* most SMT siblings of any CPU (sched_smt_active() > 1) */
	/* some domain has SD_ASYM_CPUCAPACITY: 2 yes, 1 no, 0 not cached (count) */
	int asym_cached;			/* highest node id + 1 */
	enum sr_topo_source source;
	struct sr_cpumask possible;
	int node_distance[SR_MAX_NODES][SR_MAX_NODES];	/* 10 on the diagonal, 0 unknown */
	struct sr_cpu_topo *cpu;	/* nr_cpus entries */
};

/*
 * Build a topology from a spec such as
 * "sockets=2,llcs-per-socket=2,cores-per-llc=4,threads=2[,nodes=2]"
 * (nodes default to sockets; "cpus=N" alone gives a flat machine).
 * CPUs are numbered as QEMU does: threads of one core are adjacent
 * ("smt-numbering=split" numbers all first threads, then all second
 * threads, as many real x86 BIOSes do).  "numa-distance=N" (default 20)
 * above 30 strips wake/fork/exec balancing from the NUMA level.
 * Returns 0 or -EINVAL.
 */
int sr_topo_from_spec(struct sr_topo *t, const char *spec, enum sr_topo_era era);
/* Flat machine of @nr_cpus CPUs: one LLC, no SMT, one node (the assumed default). */
int sr_topo_flat(struct sr_topo *t, int nr_cpus, enum sr_topo_era era);
void sr_topo_free(struct sr_topo *t);
/* Cache asym_cached once the domains are final (the placement path asks per wakeup). */
void sr_topo_cache_asym(struct sr_topo *t);

/* @nr_cpus zeroed CPUs, all possible; the caller fills placement, then derives. */
int sr_topo_alloc(struct sr_topo *t, int nr_cpus);
/*
 * Derive every CPU's domain levels from its SMT/LLC/package/node placement
 * and the node distances, as sd_init()/build_sched_domains() would: SMT,
 * MC (LLC), @pkg_name ("DIE", "PKG" from 6.9) unless a node is narrower
 * than its package, NODE, then one NUMA level per distinct distance.  A
 * level no wider than its child degenerates.  Also sets llc_id/llc_size.
 */
void sr_topo_derive(struct sr_topo *t, enum sr_topo_era era, const char *pkg_name);
/* llc_id and llc_size from each CPU's llc mask. */
void sr_topo_set_llc(struct sr_topo *t);
/* imbalance_pct sd_init() gives a level with @flags in @era. */
unsigned int sr_sd_default_pct(enum sr_topo_era era, unsigned int flags);

/* Our name of one flag bit ("SD_WAKE_AFFINE"), or NULL. */
const char *sr_sd_flag_name(unsigned int flag);
/* The bit of a kernel flag name, old spellings included; 0 when unknown. */
unsigned int sr_sd_flag_by_name(const char *name);
/* Keep a flag name we do not model in sd->unknown_flags; false when full. */
bool sr_sd_add_unknown(struct sr_domain *sd, const char *name);

/*
 * CPU lists as sysfs prints them ("0-3,8-11", "" for none).  Parsing
 * returns 0, -EINVAL for text that is not a list, -ERANGE for a CPU at or
 * above SR_MAX_CPUS.  Formatting returns 0 or -ENOSPC.
 */
/*
 * A task's allowed CPUs (p->cpus_ptr) where they are not every CPU: from a
 * snapshot's proc/<pid>/status (Cpus_allowed_list) or the user (--affinity).
 */
struct sr_affinity {
	int pid;
	struct sr_cpumask mask;
};

int sr_cpulist_parse(const char *s, struct sr_cpumask *m);
int sr_cpulist_format(const struct sr_cpumask *m, char *buf, size_t len);
/* Hex masks as %*pb prints them ("00000000,0000000f"); same returns. */
int sr_cpumask_parse_hex(const char *s, struct sr_cpumask *m);

/* How far apart two CPUs are, for divergence and diff breakdowns. */
enum sr_cpu_relation {
	SR_REL_SAME_CORE, SR_REL_SAME_LLC, SR_REL_CROSS_LLC, SR_REL_CROSS_NODE, SR_REL_NR
};

enum sr_cpu_relation sr_topo_relation(const struct sr_topo *t, int a, int b);
/* "same_core", "same_llc", "cross_llc", "cross_node" */
const char *sr_relation_name(enum sr_cpu_relation r);

static inline bool sr_cpus_share_cache(const struct sr_topo *t, int a, int b)
{
	return t->cpu[a].llc_id == t->cpu[b].llc_id;
}

static inline int sr_llc_size(const struct sr_topo *t, int cpu)
{
	return t->cpu[cpu].llc_size;
}

/* Lowest domain of @cpu with all of @flags set, or NULL (like lowest_flag_domain()). */
const struct sr_domain *sr_lowest_flag_domain(const struct sr_topo *t, int cpu,
					      unsigned int flags);
/*
 * Highest domain of @cpu with all of @flags set, or NULL (like
 * highest_flag_domain()).  Inline: every select_idle_sibling() asks it.
 */
static inline const struct sr_domain *sr_highest_flag_domain(const struct sr_topo *t, int cpu,
							     unsigned int flags)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];
	const struct sr_domain *hit = NULL;

	/* Like the kernel: stop at the first level lacking the flags. */
	for (int i = 0; i < c->nr_levels; i++) {
		if ((c->sd[i].flags & flags) != flags)
			break;
		hit = &c->sd[i];
	}
	return hit;
}

#endif /* SR_TOPOLOGY_H */
