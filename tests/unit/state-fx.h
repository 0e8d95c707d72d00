/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small state fixture for unit tests that feed sr_state_event() as a
 * trace would: two cores of two SMT threads in one LLC, a placement hook
 * that keeps copies of the last context, and event builders.
 */
#ifndef SR_TEST_STATE_FX_H
#define SR_TEST_STATE_FX_H

#include <stdio.h>
#include <stdlib.h>
#include "state-priv.h"

/* One core of two SMT threads (CPUs 0, 1) and another (2, 3), one LLC. */
struct fx {
	struct sr_topo topo;
	struct sr_state s;
	struct sr_wake_ctx ctx;		/* the last placement's context */
	struct sr_task_view p, curr;	/* copies: the state's may move on */
	bool has_curr;
	struct sr_ref next_ref;		/* what the hook hands the state next */
	int nr_placements;
};

static inline int h_place(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
		   struct sr_ref *ref)
{
	struct fx *f = data;

	f->nr_placements++;
	f->ctx = *ctx;
	f->p = *ctx->p;
	f->has_curr = ctx->curr != NULL;
	if (ctx->curr)
		f->curr = *ctx->curr;
	*ref = f->next_ref;
	dec[0].cpu = (int16_t)ctx->prev_cpu;
	return 0;
}

/* The fixture on @nr_cpus CPUs of topology @spec (NULL: a machine assumed flat). */
static inline struct fx *fx_new_on(const char *spec, int nr_cpus, const struct sr_state_cfg *extra)
{
	struct fx *f = calloc(1, sizeof(*f));
	/* the test's own settings, on the fixture's machine and clock */
	struct sr_state_cfg cfg = extra ? *extra : (struct sr_state_cfg){ 0 };

	assert_non_null(f);
	if (spec)
		assert_int_equal(sr_topo_from_spec(&f->topo, spec, SR_ERA_511), 0);
	else
		assert_int_equal(sr_topo_flat(&f->topo, nr_cpus, SR_ERA_511), 0);
	cfg.nr_cpus = nr_cpus;
	cfg.migration_cost_ns = 500000;
	cfg.hz = 250;
	cfg.has_waking = true;
	cfg.nr_policies = 1;
	cfg.topo = &f->topo;
	cfg.hooks = (struct sr_state_hooks){ .data = f, .placement = h_place };
	assert_int_equal(sr_state_init(&f->s, &cfg), 0);
	return f;
}

static inline void fx_free(struct fx *f)
{
	sr_state_fini(&f->s);
	sr_topo_free(&f->topo);
	free(f);
}

static inline void ev(struct fx *f, struct sr_event e)
{
	if (e.common_pid == 0 && e.type != SR_EV_SWITCH)
		e.common_pid = -1;	/* rule 3 (common_pid names curr) stays out of these tests */
	assert_int_equal(sr_state_event(&f->s, &e), 0);
}

static inline void sw(struct fx *f, uint64_t ts, int cpu, int prev, const char *comm, int next,
	       const char *next_comm)
{
	struct sr_event e = { .type = SR_EV_SWITCH, .ts = ts, .cpu = cpu, .pid = prev,
			      .prio = 120, .prev_state = SR_PS_SLEEPING, .next_pid = next,
			      .next_prio = 120 };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	snprintf(e.next_comm, sizeof(e.next_comm), "%s", next_comm);
	ev(f, e);
}

static inline void waking(struct fx *f, uint64_t ts, int cpu, int pid, const char *comm, int target,
		   int waker, bool irq)
{
	struct sr_event e = { .type = SR_EV_WAKING, .ts = ts, .cpu = cpu, .pid = pid, .prio = 120,
			      .target_cpu = target, .common_pid = waker ? waker : -2,
			      .irq_context = irq };

	if (!waker)
		e.common_pid = 0;	/* the idle task: sr_state_event() sees pid 0 */
	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	assert_int_equal(sr_state_event(&f->s, &e), 0);
}

static inline void wakeup(struct fx *f, uint64_t ts, int cpu, int pid, int target)
{
	ev(f, (struct sr_event){ .type = SR_EV_WAKEUP, .ts = ts, .cpu = cpu, .pid = pid,
				 .prio = 120, .target_cpu = target, .common_pid = -1 });
}

/* @pid, current on @cpu, wakes migration/@cpu (pid 10 + cpu, prio 0): a self-stop. */
static inline void stopper_waking(struct fx *f, uint64_t ts, int cpu, int pid)
{
	struct sr_event e = { .type = SR_EV_WAKING, .ts = ts, .cpu = cpu, .pid = 10 + cpu,
			      .prio = 0, .target_cpu = cpu, .common_pid = pid };

	snprintf(e.comm, sizeof(e.comm), "migration/%d", cpu);
	ev(f, e);
}

/* The rq fields the models read, as of the state's now. */
static inline unsigned long load_read(struct fx *f, int cpu)
{
	sr_st_cpu_advance(&f->s, cpu, f->s.now);
	return f->s.rq[cpu].load_avg;
}

static inline unsigned long util_read(struct fx *f, int cpu)
{
	sr_st_cpu_advance(&f->s, cpu, f->s.now);
	return f->s.rq[cpu].util_avg;
}

/* sched_migrate_task of @pid from @from to @to, emitted on @cpu by @by (-1: unknown). */
static inline void migrate(struct fx *f, uint64_t ts, int cpu, int pid, int from, int to, int by)
{
	ev(f, (struct sr_event){ .type = SR_EV_MIGRATE, .ts = ts, .cpu = cpu, .pid = pid,
				 .prio = 120, .orig_cpu = from, .dest_cpu = to, .common_pid = by });
}

/* An event on CPU 3 only moves the state's clock (CPU 3 stays idle). */
static inline void tick_elsewhere(struct fx *f, uint64_t ts)
{
	sw(f, ts, 3, 0, "swapper/3", 0, "swapper/3");
}

static inline struct fx *fx_new_cfg(const struct sr_state_cfg *extra)
{
	return fx_new_on("cores-per-llc=2,threads=2", 4, extra);
}

/* A reference of answer @cpu on LLC 0 whose other budgets give @no_scan / @full (-1: none). */
static inline struct sr_ref fx_scan_ref(int cpu, int no_scan, int no_budget, int full,
					int full_budget)
{
	return (struct sr_ref){ .valid = true, .cpu = { (int16_t)cpu, (int16_t)cpu },
		.recent_used_cpu = { -1, -1 }, .cleared_idle_cores = { -1, -1 },
		.no_scan_cpu = { (int16_t)no_scan, (int16_t)no_scan },
		.no_scan_budget = { (int16_t)no_budget, (int16_t)no_budget },
		.full_scan_cpu = { (int16_t)full, (int16_t)full },
		.full_scan_budget = { (int16_t)full_budget, (int16_t)full_budget },
		.scan_llc = { 0, 0 }, .cores_no_scan_cpu = { -1, -1 }, .wide_alt_cpu = -1 };
}

static inline struct fx *fx_new(void)
{
	return fx_new_cfg(NULL);
}

#endif /* SR_TEST_STATE_FX_H */
