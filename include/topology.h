/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine topology and sched-domain hierarchy as placement models see it.
 *
 * Flags mirror the kernel's SD_* names; bit values are ours.  Domains are
 * stored per CPU and per level, lowest level first, as the kernel walks them
 * in for_each_domain().
 */
#ifndef SR_TOPOLOGY_H
#define SR_TOPOLOGY_H

#include "sr.h"

#define SR_MAX_LEVELS	8

enum sr_sd_flags {
	SD_LOAD_BALANCE		= 1 << 0,	/* gone in 5.10; always set by us before */
	SD_BALANCE_NEWIDLE	= 1 << 1,
	SD_BALANCE_EXEC		= 1 << 2,
	SD_BALANCE_FORK		= 1 << 3,
	SD_BALANCE_WAKE		= 1 << 4,
	SD_WAKE_AFFINE		= 1 << 5,
	SD_SHARE_CPUCAPACITY	= 1 << 6,	/* SMT; SD_SHARE_CPUPOWER in 2.6.x */
	SD_SHARE_PKG_RESOURCES	= 1 << 7,	/* LLC; SD_SHARE_LLC in 6.x */
	SD_SERIALIZE		= 1 << 8,
	SD_ASYM_PACKING		= 1 << 9,
	SD_PREFER_SIBLING	= 1 << 10,
	SD_NUMA			= 1 << 11,
	SD_ASYM_CPUCAPACITY	= 1 << 12,
	SD_PREFER_LOCAL		= 1 << 13,	/* 2.6.3x */
};

struct sr_domain {
	char name[8];			/* "SMT", "MC", "DIE"/"PKG", "NUMA" */
	unsigned int flags;		/* enum sr_sd_flags */
	unsigned int imbalance_pct;
	unsigned int span_weight;
	struct sr_cpumask span;
	/* Groups of the level below, as the balancer sees them (first CPU of each). */
	int nr_groups;
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
};

struct sr_topo {
	int nr_cpus;
	int nr_nodes;
	enum sr_topo_source source;
	struct sr_cpumask possible;
	int node_distance[64][64];	/* 10 on the diagonal */
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
/* Highest domain of @cpu with all of @flags set, or NULL (like highest_flag_domain()). */
const struct sr_domain *sr_highest_flag_domain(const struct sr_topo *t, int cpu,
					       unsigned int flags);

#endif /* SR_TOPOLOGY_H */
