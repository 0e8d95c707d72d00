// SPDX-License-Identifier: GPL-2.0
/*
 * select_idle_sibling() entry checks shared by every era, Linux 4.9 - 6.18
 * (kernel/sched/fair.c, kernel/sched/core.c):
 *   idle_cpu() 4.9+, available_idle_cpu() 4.18+, sched_idle_cpu() 5.4+;
 *   the target / prev / per-CPU kthread (5.6+) / recent_used_cpu (4.16+)
 *   tests; select_idle_capacity() and asym_fits_capacity() (5.7+) over
 *   sd_asym_cpucapacity (SD_ASYM_CPUCAPACITY_FULL from 5.14);
 *   and the dispatch to the era bodies of select_idle_sibling-{4.9,5.12,6.0}.c
 *   (what an answer depends on: select_idle_sibling-deps.c).
 * Not modelled: CONFIG_SCHED_CLUSTER (6.6+; our topology has no cluster
 * level), core scheduling cookies (5.14+), uclamp (utilisation is p->util_avg).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "models-sis.h"

static const struct sr_rq *rq_of(const struct sr_sis *s, int cpu)
{
	return &s->ctx->rq[cpu];
}

/* idle_cpu(): curr is the idle task, nothing queued, no wakeup in flight (3.x+). */
static bool sr_sis_idle_cpu(const struct sr_sis *s, int cpu)
{
	const struct sr_rq *rq = rq_of(s, cpu);

	return sr_rq_idle(rq);
}

/* available_idle_cpu() from 4.18; plain idle_cpu() before. */
bool sr_sis_available_idle(const struct sr_sis *s, int cpu)
{
	if (!sr_sis_idle_cpu(s, cpu))
		return false;
	return s->kver < SR_KV(4, 18) || !rq_of(s, cpu)->vcpu_preempted;
}

/* sched_idle_cpu() (5.4+): only SCHED_IDLE tasks are runnable. */
bool sr_sis_sched_idle(const struct sr_sis *s, int cpu)
{
	const struct sr_rq *rq = rq_of(s, cpu);

	if (s->kver < SR_KV(5, 4))
		return false;
	return rq->nr_running && rq->nr_running == rq->idle_nr_running;
}

bool sr_sis_allowed(const struct sr_sis *s, int cpu)
{
	return !s->ctx->allowed || sr_mask_test(s->ctx->allowed, cpu);
}

/* sched_smt_present: some CPU came up with an SMT sibling. */
bool sr_sis_smt_active(const struct sr_topo *t)
{
	return sr_sis_smt_weight(t) > 1;
}

int sr_sis_smt_weight(const struct sr_topo *t)
{
	int w = 1;

	/* Cached when the topology was built; hand-made ones are counted here. */
	if (t->smt_max)
		return t->smt_max;
	for (int c = 0; c < t->nr_cpus; c++) {
		int n = sr_mask_weight(&t->cpu[c].smt);

		if (n > w)
			w = n;
	}
	return w;
}

struct sr_step *sr_sis_step(const struct sr_sis *s, const char *fn, const char *check,
			    const char *result, int cpu)
{
	if (!s->trail)
		return NULL;
	return sr_trail_add(s->trail, fn, check, result, cpu);
}

void sr_sis_pick(struct sr_sis *s, int cpu, enum sr_decider by)
{
	s->by = by;
	s->relied_avail = s->kver >= SR_KV(4, 18) && sr_sis_available_idle(s, cpu);
}

/* The prefix's idle test: idle_cpu, available_idle_cpu, or either-or-sched-idle (5.4+). */
static int idle_era(const struct sr_sis *s)
{
	if (s->kver >= SR_KV(5, 10))
		return 3;
	if (s->kver >= SR_KV(5, 4))
		return 2;
	return s->kver >= SR_KV(4, 18);
}

static bool prefix_idle(const struct sr_sis *s, int cpu)
{
	return sr_sis_available_idle(s, cpu) || sr_sis_sched_idle(s, cpu);
}

static const char *const chk_target[] = {
	"idle_cpu(target)", "available_idle_cpu(target)",
	"available_idle_cpu(target) || sched_idle_cpu(target)",
	"(available_idle_cpu(target) || sched_idle_cpu(target)) && asym_fits_capacity(target)",
};

static const char *const chk_prev[] = {
	"prev != target && cpus_share_cache(prev, target) && idle_cpu(prev)",
	"prev != target && cpus_share_cache(prev, target) && available_idle_cpu(prev)",
	"prev != target && cpus_share_cache(prev, target) && "
	"(available_idle_cpu(prev) || sched_idle_cpu(prev))",
	"prev != target && cpus_share_cache(prev, target) && "
	"(available_idle_cpu(prev) || sched_idle_cpu(prev)) && asym_fits_capacity(prev)",
};

static const char *const chk_recent[] = {
	"r != prev && r != target && cpus_share_cache(r, target) && idle_cpu(r) && "
	"cpumask_test_cpu(p->recent_used_cpu, p->cpus_allowed)",
	"r != prev && r != target && cpus_share_cache(r, target) && available_idle_cpu(r) && "
	"cpumask_test_cpu(p->recent_used_cpu, p->cpus_allowed)",
	"r != prev && r != target && cpus_share_cache(r, target) && "
	"(available_idle_cpu(r) || sched_idle_cpu(r)) && "
	"cpumask_test_cpu(p->recent_used_cpu, p->cpus_ptr)",
	"r != prev && r != target && cpus_share_cache(r, target) && "
	"(available_idle_cpu(r) || sched_idle_cpu(r)) && "
	"cpumask_test_cpu(p->recent_used_cpu, p->cpus_ptr) && asym_fits_capacity(r)",
};

/* ---- asymmetric CPU capacity (5.7+) ---- */

/* sd_asym_cpucapacity: from 5.14 the lowest level that sees every capacity. */
static const struct sr_domain *asym_sd(const struct sr_sis *s, int cpu)
{
	return sr_lowest_flag_domain(s->t, cpu, s->kver >= SR_KV(5, 14) ?
				     SD_ASYM_CPUCAPACITY_FULL : SD_ASYM_CPUCAPACITY);
}

/* The sched_asym_cpucapacity static key: some domain spans CPUs of different capacity. */
static bool asym_active(const struct sr_sis *s)
{
	if (s->t->asym_cached)
		return s->t->asym_cached == 2;
	for (int c = 0; c < s->t->nr_cpus; c++)
		if (sr_lowest_flag_domain(s->t, c, SD_ASYM_CPUCAPACITY))
			return true;
	return false;
}

/* fits_capacity(): util leaves a 20% margin below capacity. */
static bool fits_capacity(unsigned long util, unsigned long cap)
{
	return util * 1280 < cap * 1024;
}

/* asym_fits_capacity() (5.10+), with uclamp defaults: always true on symmetric machines. */
static bool asym_fits(const struct sr_sis *s, int cpu)
{
	if (s->kver < SR_KV(5, 10) || !asym_active(s))
		return true;
	return fits_capacity(s->ctx->p->util_avg, rq_of(s, cpu)->capacity);
}

/*
 * select_idle_capacity(): the first idle CPU the task fits, else the idle CPU
 * of largest capacity.  6.4 - 6.7 start one past target [R 6.4.6, 6.5 / 6.8].
 */
static int select_idle_capacity(struct sr_sis *s, const struct sr_domain *sd)
{
	bool plus1 = s->kver >= SR_KV(6, 4) && s->kver < SR_KV(6, 8);
	int start = (s->target + plus1) % s->t->nr_cpus, best = SR_SIS_NONE, cpu = SR_SIS_NONE;
	unsigned long util = s->ctx->p->util_avg, best_cap = 0;
	struct sr_step *st;
	int n = 0, c;

	sr_for_each_cpu_wrap(c, &sd->span, start) {
		unsigned long cap;

		if (c >= s->t->nr_cpus || !sr_sis_allowed(s, c))
			continue;
		cap = rq_of(s, c)->capacity;
		n++;
		if (!prefix_idle(s, c))
			continue;
		if (fits_capacity(util, cap)) {
			cpu = c;
			break;
		}
		if (cap > best_cap) {
			best_cap = cap;
			best = c;
		}
	}
	if (cpu == SR_SIS_NONE)
		cpu = best;
	st = sr_sis_step(s, "select_idle_capacity",
			 "first idle CPU with fits_capacity(task_util, capacity_of(cpu)), "
			 "else the idle CPU of largest capacity",
			 cpu == SR_SIS_NONE ? "none: target" : "found", cpu);
	sr_step_val(st, "visited", n);
	sr_step_uval(st, "task_util", util);
	sr_step_val(st, "found", cpu);
	s->used_allowed = true;
	return cpu;
}

/* The asym path returns whatever select_idle_capacity() gives, or target. */
static int capacity_path(struct sr_sis *s, const struct sr_domain *sd)
{
	int cpu = select_idle_capacity(s, sd);

	s->used_topo = true;
	if (cpu == SR_SIS_NONE) {
		s->by = SR_BY_SIS_TARGET;
		return s->target;
	}
	sr_sis_pick(s, cpu, SR_BY_SIS_CPU);
	return cpu;
}

/* ---- the prefix ---- */

static int check_target(struct sr_sis *s)
{
	bool idle = prefix_idle(s, s->target), fits = asym_fits(s, s->target);
	struct sr_step *st;

	st = sr_sis_step(s, "select_idle_sibling", chk_target[idle_era(s)],
			 idle && fits ? "return target" : "busy", s->target);
	sr_step_val(st, "nr_running", rq_of(s, s->target)->nr_running);
	sr_step_val(st, "curr_pid", rq_of(s, s->target)->curr_pid);
	sr_step_val(st, "sched_idle", sr_sis_sched_idle(s, s->target));
	if (!idle || !fits)
		return SR_SIS_NONE;
	sr_sis_pick(s, s->target, SR_BY_SIS_TARGET);
	return s->target;
}

static int check_prev(struct sr_sis *s)
{
	int prev = s->prev;
	bool share = sr_cpus_share_cache(s->t, prev, s->target);
	bool hit = prev != s->target && share && prefix_idle(s, prev) && asym_fits(s, prev);
	struct sr_step *st;

	if (prev != s->target)
		s->used_topo = true;
	st = sr_sis_step(s, "select_idle_sibling", chk_prev[idle_era(s)],
			 hit ? "return prev" : "no", prev);
	sr_step_val(st, "share_cache", share);
	sr_step_val(st, "prev_nr_running", rq_of(s, prev)->nr_running);
	if (!hit)
		return SR_SIS_NONE;
	sr_sis_pick(s, prev, SR_BY_SIS_PREV);
	return prev;
}

/*
 * 5.6+: a per-CPU kthread (IO completion) stacks the wakee on its own CPU
 * when that is prev; 5.19 adds in_task() (an interrupt that hit the kthread
 * does not count) and the asym fit.
 */
static int check_kthread(struct sr_sis *s)
{
	const struct sr_wake_ctx *ctx = s->ctx;
	bool v519 = s->kver >= SR_KV(5, 19);
	bool kt = ctx->curr_percpu_kthread && (!v519 || ctx->in_task);
	bool hit = kt && s->prev == ctx->this_cpu && rq_of(s, ctx->this_cpu)->nr_running <= 1 &&
		   (!v519 || asym_fits(s, s->prev));
	struct sr_step *st;

	if (s->kver < SR_KV(5, 6))
		return SR_SIS_NONE;
	st = sr_sis_step(s, "select_idle_sibling",
			 v519 ? "is_per_cpu_kthread(current) && in_task() && prev == this_cpu && "
				"this_rq()->nr_running <= 1 && asym_fits_capacity(prev)"
			      : "is_per_cpu_kthread(current) && prev == this_cpu && "
				"this_rq()->nr_running <= 1",
			 hit ? "return prev" : "no", s->prev);
	sr_step_val(st, "percpu_kthread", kt);
	sr_step_val(st, "this_cpu", ctx->this_cpu);
	sr_step_val(st, "this_nr_running", rq_of(s, ctx->this_cpu)->nr_running);
	if (!hit)
		return SR_SIS_NONE;
	s->by = SR_BY_SIS_PREV;
	return s->prev;
}

/* An unknown recent_used_cpu matters only if some CPU could have been one that hits. */
static bool recent_could_hit(const struct sr_sis *s)
{
	int c;

	sr_for_each_cpu(c, &s->t->cpu[s->target].llc)
		if (c != s->prev && c != s->target && prefix_idle(s, c) && sr_sis_allowed(s, c) &&
		    asym_fits(s, c))
			return true;
	return false;
}

/*
 * recent_used_cpu (4.16+).  5.15 - 6.4 overwrite p->recent_used_cpu with prev
 * before testing it against the affinity mask, so they test prev's bit;
 * 6.5 tests the saved value again.  An unknown value (-1) skips the test.
 */
static int check_recent(struct sr_sis *s)
{
	int r = s->ctx->p->recent_used_cpu, nr = s->t->nr_cpus;
	bool early_store = s->kver >= SR_KV(5, 15);
	int tested = early_store && s->kver < SR_KV(6, 5) ? s->prev : r;
	bool valid = r >= 0 && r < nr, share = false, idle = false, allowed = false, hit;
	struct sr_step *st;

	if (s->kver < SR_KV(4, 16))
		return SR_SIS_NONE;
	if (early_store)
		s->recent_out = s->prev;
	if (valid) {
		share = sr_cpus_share_cache(s->t, r, s->target);
		idle = prefix_idle(s, r);
		allowed = sr_sis_allowed(s, tested);
	}
	hit = valid && r != s->prev && r != s->target && share && idle && allowed &&
	      asym_fits(s, r);
	if (!valid)
		s->recent_unknown = recent_could_hit(s);
	st = sr_sis_step(s, "select_idle_sibling", chk_recent[idle_era(s)],
			 !valid ? "unknown: skipped" : hit ? "return recent_used_cpu" : "no", r);
	sr_step_val(st, "recent_used_cpu", r);
	sr_step_val(st, "share_cache", share);
	sr_step_val(st, "idle", idle);
	sr_step_val(st, "affinity_tested_cpu", tested);
	if (!hit)
		return SR_SIS_NONE;
	s->recent_out = s->prev;
	s->used_topo = true;
	s->used_allowed = true;
	sr_sis_pick(s, r, SR_BY_SIS_RECENT);
	return r;
}

static int prefix_run(struct sr_sis *s)
{
	const struct sr_domain *sd;
	int cpu;

	/* 5.7 - 5.9: asymmetric machines search by capacity before anything else. */
	if (s->kver >= SR_KV(5, 7) && s->kver < SR_KV(5, 10) && asym_active(s)) {
		sd = asym_sd(s, s->target);
		if (sd)
			return capacity_path(s, sd);
	}
	cpu = check_target(s);
	if (cpu == SR_SIS_NONE)
		cpu = check_prev(s);
	if (cpu == SR_SIS_NONE)
		cpu = check_kthread(s);
	if (cpu == SR_SIS_NONE)
		cpu = check_recent(s);
	if (cpu != SR_SIS_NONE)
		return cpu;
	if (s->kver >= SR_KV(5, 10) && asym_active(s)) {
		sd = asym_sd(s, s->target);
		if (sd)
			return capacity_path(s, sd);
	}
	return SR_SIS_NONE;
}

int sr_sis_prefix(struct sr_sis *s)
{
	if (s->prefix == SR_SIS_UNSET)
		s->prefix = prefix_run(s);
	return s->prefix;
}

/* ---- dispatch ---- */

int sr_sis_run(struct sr_sis *s)
{
	if (s->kver < SR_KV(5, 12))
		return sr_select_idle_sibling_49(s);
	if (s->kver < SR_KV(6, 0))
		return sr_select_idle_sibling_512(s);
	return sr_select_idle_sibling_60(s);
}

void sr_sis_init(struct sr_sis *s, const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
		 int prev, int target, struct sr_trail *trail)
{
	const struct sr_llc_view *llc = ctx->llc ? &ctx->llc[target] : NULL;

	memset(s, 0, sizeof(*s));
	s->pol = pol;
	s->ctx = ctx;
	s->t = ctx->topo;
	s->trail = trail;
	s->kver = pol->knobs.kver;
	s->feat = pol->knobs.features;
	s->prev = prev;
	s->target = target;
	s->by = SR_BY_NONE;
	s->prefix = SR_SIS_UNSET;
	s->recent_out = ctx->p->recent_used_cpu;
	/* Unknown hints: assume an idle core may exist and the whole LLC may be scanned. */
	s->idle_cores = llc ? llc->has_idle_cores : true;
	s->nr_idle_scan = llc && llc->nr_idle_scan >= 0 ? llc->nr_idle_scan
							: sr_llc_size(ctx->topo, target);
}

static bool cpu_ok(const struct sr_wake_ctx *ctx, int cpu)
{
	return (unsigned int)cpu < (unsigned int)ctx->topo->nr_cpus;	/* 0 <= cpu < nr_cpus */
}

/* An earlier run of this decide() that asked the same (struct sr_sis_memo), or NULL. */
static const struct sr_sis_answer *memo_find(const struct sr_sis_memo *m,
					     const struct sr_wake_ctx *ctx, int prev, int target)
{
	for (int i = 0; m && i < m->n; i++)
		if (m->a[i].rq == ctx->rq && m->a[i].prev == prev && m->a[i].target == target)
			return &m->a[i];
	return NULL;
}

static bool memo_take(struct sr_decision *d, const struct sr_wake_ctx *ctx, int prev,
		      int target, int *cpu)
{
	const struct sr_sis_answer *a = memo_find(d->sis_memo, ctx, prev, target);
	struct sr_sis_fx fx;

	if (!a)
		return false;
	fx = a->fx;
	memcpy(fx.h_load_cpu, d->fx.h_load_cpu, sizeof(fx.h_load_cpu));
	d->fx = fx;
	d->decided_by = a->by;
	d->depends |= a->depends;
	*cpu = a->cpu;
	return true;
}

static void memo_put(struct sr_decision *d, const struct sr_wake_ctx *ctx, int prev, int target,
		     int cpu, unsigned int deps)
{
	struct sr_sis_memo *m = d->sis_memo;

	if (!m || m->n >= SR_SIS_MEMO || memo_find(m, ctx, prev, target))
		return;
	m->a[m->n++] = (struct sr_sis_answer){
		.rq = ctx->rq, .prev = prev, .target = target, .cpu = cpu,
		.by = d->decided_by, .depends = deps, .fx = d->fx,
	};
}

int sr_select_idle_sibling(const struct sr_policy *pol, const struct sr_wake_ctx *ctx,
			   int prev, int target, struct sr_decision *d)
{
	struct sr_sis s;
	unsigned int deps;
	int cpu;

	/* a memo's answer passed the checks below when it was stored, on this context */
	if (d && d->trail.off && ctx && memo_take(d, ctx, prev, target, &cpu))
		return cpu;
	if (!pol || !ctx || !d || !ctx->topo || !ctx->rq || !ctx->p || ctx->topo->nr_cpus < 1)
		return -EINVAL;
	if (!cpu_ok(ctx, prev) || !cpu_ok(ctx, target) || !cpu_ok(ctx, ctx->this_cpu))
		return -EINVAL;
	if (pol->knobs.kver < SR_KV(4, 9))
		return -EOPNOTSUPP;
	sr_sis_init(&s, pol, ctx, prev, target, d->trail.off ? NULL : &d->trail);
	cpu = sr_sis_run(&s);
	d->decided_by = s.by;
	d->fx.cpu_no_scan = d->fx.cpu_full_scan = d->fx.cpu_cores_no_scan = -1;
	deps = sr_sis_depends(&s, cpu, &d->fx);
	d->depends |= deps;
	d->fx.target = target;
	d->fx.recent_used_cpu = s.recent_out;
	d->fx.cleared_idle_cores = s.cleared_idle_cores;
	memo_put(d, ctx, prev, target, cpu, deps);
	return cpu;
}

/*
 * The single-pass select_idle_sibling() body shared by 5.12 - 6.18: the
 * era differs only in select_idle_smt()/select_idle_cpu() and a label.
 */
int sr_sis_single_pass(struct sr_sis *s, const struct sr_sis_pass *pass)
{
	const struct sr_domain *sd;
	bool has_idle_core = false;
	struct sr_step *st;
	int i = sr_sis_prefix(s);

	if (i != SR_SIS_NONE)
		return i;
	s->used_topo = true;
	sd = sr_highest_flag_domain(s->t, s->target, SD_SHARE_PKG_RESOURCES);
	if (!sd)
		goto out;
	if (sr_sis_smt_active(s->t)) {
		has_idle_core = s->idle_cores;
		st = sr_sis_step(s, "select_idle_sibling", pass->idle_cores_check,
				 has_idle_core ? "scan for an idle core" : "no idle core",
				 s->target);
		sr_step_val(st, "has_idle_cores", has_idle_core);
		if (!has_idle_core && sr_cpus_share_cache(s->t, s->prev, s->target)) {
			i = pass->select_idle_smt(s, sd, s->prev);
			if (i != SR_SIS_NONE) {
				s->used_allowed = true;
				sr_sis_pick(s, i, SR_BY_SIS_SMT);
				return i;
			}
		}
	}
	i = pass->select_idle_cpu(s, sd, has_idle_core);
	if (i != SR_SIS_NONE)
		return i;
out:
	sr_sis_step(s, "select_idle_sibling", sd ? "no idle CPU found" : "sd_llc(target) == NULL",
		    "return target", s->target);
	s->by = SR_BY_SIS_TARGET;
	s->relied_avail = false;
	return s->target;
}
