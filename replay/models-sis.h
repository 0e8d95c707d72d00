/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The idle-sibling family: select_idle_sibling() by era (4.9 -> 6.18), the
 * fork/exec slow path find_idlest_cpu() (5.7 -> 6.18) with its NUMA
 * imbalance rules, and the LLC-imbalance verdict of Jianyong Wu's patch (2025,
 * unmerged).  sr_select_idle_sibling()/sr_find_idlest_cpu() (models.h) are
 * the entry points; the pieces are exported for unit tests and state code.
 */
#ifndef SR_MODELS_SIS_H
#define SR_MODELS_SIS_H

#include "models.h"

/* The 5.13 - 6.6 ageing of rq->wake_avg_idle: halved once per jiffy since @stamp. */
uint64_t sr_sis_aged_wake_avg_idle(uint64_t wake_avg_idle, uint64_t stamp, uint64_t now);

/*
 * sd->imb_numa_nr (5.18 -> 6.18, topology.c) of level @level of @cpu,
 * computed on the kernel's domains before degenerate ones are removed (the
 * package level above a node-sized LLC still counts).  0 below an SD_NUMA
 * parent's LLC boundary or for kver < 5.18.
 */
unsigned int sr_imb_numa_nr(const struct sr_topo *t, int cpu, int level, unsigned int kver);

/* ---- internals shared by replay/select_idle_sibling*.c ---- */

/* One select_idle_sibling() evaluation; a NULL trail makes it a silent what-if. */
struct sr_sis {
	const struct sr_policy *pol;
	const struct sr_wake_ctx *ctx;
	const struct sr_topo *t;
	struct sr_trail *trail;
	unsigned int kver, feat;
	int prev, target;
	bool idle_cores;		/* test_idle_cores(target) value in use */
	int nr_idle_scan;		/* sd_llc_shared(target)->nr_idle_scan in use */
	/* the prefix's answer once run, else SR_SIS_UNSET: it reads neither value above */
	int prefix;
	/* outcome */
	enum sr_decider by;
	int recent_out;
	bool cleared_idle_cores;
	bool relied_avail;		/* the answer passed available_idle_cpu() */
	bool scan_cost_mattered;	/* another avg_scan_cost could change the answer */
	bool used_allowed;		/* p->cpus_ptr was consulted by the answer */
	bool used_topo;			/* cache sharing or the LLC span was consulted */
	bool recent_unknown;		/* p->recent_used_cpu was needed and unknown */
};

#define SR_SIS_NONE	(-1)
#define SR_SIS_UNSET	(-2)

bool sr_sis_available_idle(const struct sr_sis *s, int cpu);
bool sr_sis_sched_idle(const struct sr_sis *s, int cpu);
bool sr_sis_allowed(const struct sr_sis *s, int cpu);
bool sr_sis_smt_active(const struct sr_topo *t);
int sr_sis_smt_weight(const struct sr_topo *t);
struct sr_step *sr_sis_step(const struct sr_sis *s, const char *fn, const char *check,
			    const char *result, int cpu);
/* Record @cpu as the answer of a predicate-based pick (avail vs sched_idle). */
void sr_sis_pick(struct sr_sis *s, int cpu, enum sr_decider by);
/* A search of @target for the wakee of @ctx (prev @prev); @trail may be NULL (a what-if). */
void sr_sis_init(struct sr_sis *s, const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		 int prev, int target, struct sr_trail *trail);
/* The era's select_idle_sibling() body: the CPU it answers. */
int sr_sis_run(struct sr_sis *s);
/* select_idle_sibling-deps.c: the unknown inputs @cpu, the answer, depends on (enum sr_dep). */
unsigned int sr_sis_depends(const struct sr_sis *s, int cpu, struct sr_sis_fx *fx);

/*
 * The target/prev/kthread/recent_used_cpu/asym prefix; a CPU, or SR_SIS_NONE
 * to go on.  Run once: a what-if copies the answer (s->prefix).
 */
int sr_sis_prefix(struct sr_sis *s);

/* One era of the single-pass select_idle_sibling() (5.12 - 6.18). */
struct sr_sis_pass {
	const char *idle_cores_check;	/* how that era spells test_idle_cores() */
	int (*select_idle_smt)(struct sr_sis *s, const struct sr_domain *sd, int prev);
	int (*select_idle_cpu)(struct sr_sis *s, const struct sr_domain *sd, bool has_idle_core);
};
int sr_sis_single_pass(struct sr_sis *s, const struct sr_sis_pass *pass);

/*
 * The SIS_PROP depth of select_idle_cpu() (5.12 - 6.6) into *nr.  Returns
 * the depth the formula guarantees whatever avg_scan_cost is (4, or the
 * patch-3 floor times the SMT weight).
 */
int sr_sis_prop_depth(struct sr_sis *s, const struct sr_domain *sd, int *nr);

/* One for_each_cpu_wrap() pass of the single-pass select_idle_cpu() (5.12 -> 6.18). */
struct sr_sis_scan {
	int start;			/* target (5.12 - 5.14) or target + 1 */
	int nr, nr0;			/* the depth counter and its initial value */
	int floor;			/* depth SIS_PROP guarantees; INT_MAX: no SIS_PROP */
	bool stop_le0;			/* 6.8+: --nr <= 0 instead of !--nr */
	int visited, idle, core;
	bool limited;
};

/* span(sd) & p->cpus_ptr */
void sr_sis_scan_mask(const struct sr_sis *s, const struct sr_domain *sd,
		      struct sr_cpumask *cpus);
/* The loop: a core scan with @has_idle_core, else a depth-limited CPU scan. */
void sr_sis_scan_llc(struct sr_sis *s, struct sr_cpumask *cpus, bool has_idle_core,
		     struct sr_sis_scan *r);
/* Record the scan's step and effects; returns the CPU found or SR_SIS_NONE. */
int sr_sis_scan_done(struct sr_sis *s, bool has_idle_core, const char *check,
		     const struct sr_sis_scan *r);

/* The era bodies after the prefix: 4.9 - 5.11, 5.12 - 5.19, 6.0 - 6.18. */
int sr_select_idle_sibling_49(struct sr_sis *s);
int sr_select_idle_sibling_512(struct sr_sis *s);
int sr_select_idle_sibling_60(struct sr_sis *s);

/*
 * replay/idle_stamp.c: the inputs (SR_DEP_*) that could turn
 * find_idlest_group_cpu()'s choice of @winner (-1: none) among the
 * available idle CPUs of @span by their idle_stamp, where the trace leaves
 * some stamp open (sr_rq.idle_stamp_dep); 0 when none could.  A step on
 * @trail (may be NULL) names the first such CPU.
 */
unsigned int sr_sis_stamp_turns(const struct sr_sis *s, struct sr_trail *trail,
				const struct sr_cpumask *span, int winner);

#endif /* SR_MODELS_SIS_H */
