// SPDX-License-Identifier: GPL-2.0
/*
 * sched_vcpu_pack: the prologue that the 6.18.44-fc guest kernel (a vendor
 * build booted with "sched_vcpu_pack=15") runs at the top of
 * select_task_rq_fair(), and its helper vcpu_pack_room().  No source of this
 * patch is public; its behaviour was read from that kernel's own machine
 * code (docs/models.md, "sched_vcpu_pack").  Mainline has no equivalent.
 *
 * The sysctl is a bit mask, tested in this order for a task allowed on more
 * than one CPU (p->nr_cpus_allowed > 1), after the sync flag is computed and
 * before record_wakee() — a wakeup it places leaves the waker's wakee_flips
 * as they were:
 *   8: a fork or exec stays on this CPU if it has room;
 *   1: a wakeup issued by the idle task (an interrupt on an idle CPU) stays
 *      on this CPU while its runqueue is empty;
 *   2: a sync wakeup goes to this CPU if it has room;
 *   4: prev if it is busy (!idle_cpu()) and has room, else this CPU if it
 *      has room, else the lowest-numbered busy CPU with room.
 * Anything else falls through to the mainline path.
 *
 * vcpu_pack_room(p, cpu): @p is allowed there, no wakeup is queued on its
 * wakelist, every task queued there is a fair one, at most one runnable fair
 * task besides @p itself, and cpu_util_cfs() plus task_util_est(p) (unless
 * @cpu is task_cpu(p), where p's own utilisation already counts) below 70 %
 * of capacity_of(cpu).
 */
#include "models.h"
#include "models-affine.h"

#define PACK_IDLE_WAKER	1
#define PACK_SYNC	2
#define PACK_BUSY	4
#define PACK_FORK_EXEC	8
#define PACK_ROOM_PCT	70

static bool allowed_on(const struct sr_wake_ctx *ctx, int cpu)
{
	return !ctx->allowed || sr_mask_test(ctx->allowed, cpu);
}

/* task_cpu(p) when select_task_rq_fair() runs: a new task is on its parent's CPU. */
static int task_cpu_of(const struct sr_wake_ctx *ctx)
{
	return ctx->kind == SR_WAKE_FORK ? ctx->this_cpu : ctx->prev_cpu;
}

/*
 * cpu_util_cfs(): the larger of util_avg and util_est, capped at
 * capacity_orig (1024).  A CPU busy when the trace began adds the guess of
 * what its past holds (sr_rq.pelt_pre_util), and what the kernel's earlier
 * choices showed it to hold beyond the state's (@taught: sr_rq.util_taught).
 */
static unsigned long util_cfs(const struct sr_rq *rq, bool taught)
{
	unsigned long avg = rq->util_avg + rq->pelt_pre_util + (taught ? rq->util_taught : 0);
	unsigned long util = avg > rq->util_est ? avg : rq->util_est;

	return util < SR_CAPACITY_SCALE ? util : SR_CAPACITY_SCALE;
}

/*
 * The utilisation test inside the PELT estimate's error (the rule of
 * find_idlest_cpu()'s sums, replay/find_idlest.h): the kernel's may go the
 * other way.
 */
static bool util_close(const struct sr_wake_ctx *ctx, unsigned long lhs, unsigned long rhs)
{
	unsigned long big = lhs > rhs ? lhs : rhs, diff = lhs > rhs ? lhs - rhs : rhs - lhs;

	return ctx->load_error_pct && (double)diff * 100.0 < (double)ctx->load_error_pct * (double)big;
}

/*
 * The margins of the utilisation test the state learns from (follow.c):
 * @cpu had room by @lhs < @rhs (util + task, times 100, against 70 % of
 * capacity), and would not have had it with (rhs - lhs) / 100 more; or it
 * had none only through what earlier choices taught (@untaught had room).
 */
static void pack_margin(struct sr_decision *d, int cpu, bool room, unsigned long lhs,
			unsigned long rhs, bool untaught)
{
	if (room) {
		d->fx.pack_cpu = cpu;
		d->fx.pack_need = (int)((rhs - lhs + 99) / 100);
	} else if (untaught && d->fx.pack_tight_cpu < 0) {
		d->fx.pack_tight_cpu = cpu;
		d->fx.pack_excess = (int)((lhs - rhs) / 100 + 1);
	}
}

static bool vcpu_pack_room(const struct sr_wake_ctx *ctx, int cpu, struct sr_decision *d)
{
	const struct sr_rq *rq = &ctx->rq[cpu];
	bool self = ctx->kind == SR_WAKE_EXEC && cpu == task_cpu_of(ctx);	/* p->on_rq */
	unsigned long util = util_cfs(rq, true), task = 0, lhs, rhs;
	/* a task the trace shows running counts, though its enqueue came before the trace */
	unsigned int nr = rq->curr_pid && !rq->nr_running ? 1 : rq->nr_running;
	bool fair_curr = rq->curr_pid && rq->curr_policy != SR_SCHED_RT;
	unsigned int runnable = fair_curr && !rq->cfs_nr_running ? 1 : rq->cfs_nr_running;
	bool room = false, fair_only = nr == runnable;
	struct sr_step *s;

	if (cpu != task_cpu_of(ctx))
		task = ctx->p->util_avg > ctx->p->util_est_ewma ? ctx->p->util_avg
								: ctx->p->util_est_ewma;
	lhs = (util + task) * 100;
	rhs = rq->capacity * PACK_ROOM_PCT;
	if (allowed_on(ctx, cpu) && !rq->ttwu_pending && fair_only &&
	    runnable <= (unsigned int)self + 1) {
		room = lhs < rhs;
		pack_margin(d, cpu, room, lhs, rhs, (util_cfs(rq, false) + task) * 100 < rhs);
		d->depends |= ctx->unknown & SR_DEP_PELT_WARMUP;
		if (rq->pelt_cold || rq->util_taught)	/* a guess, or a lesson */
			d->depends |= SR_DEP_PELT_WARMUP;
		if (util_close(ctx, lhs, rhs))
			d->depends |= SR_DEP_LOAD_ESTIMATE;
	}
	if (rq->maybe_delayed)	/* delayed sleepers count in nr_running, not h_nr_runnable */
		d->depends |= ctx->unknown & SR_DEP_DELAYED_DEQUEUE;
	s = sr_trail_add(&d->trail, "vcpu_pack_room",
			 "allowed && !ttwu_pending && nr_running == cfs.h_nr_queued && "
			 "cfs.h_nr_runnable <= self + 1 && (cpu_util + task_util_est) * 100 < "
			 "capacity * 70", room ? "room" : "no room", cpu);
	sr_step_val(s, "ttwu_pending", rq->ttwu_pending);
	sr_step_uval(s, "nr_running", nr);
	sr_step_uval(s, "h_nr_runnable", runnable);
	sr_step_val(s, "self", self);
	sr_step_uval(s, "cpu_util", util);
	sr_step_uval(s, "task_util_est", task);
	sr_step_uval(s, "capacity", rq->capacity);
	return room;
}

static int packed(struct sr_decision *d, int cpu)
{
	d->decided_by = SR_BY_VCPU_PACK;
	d->no_record_wakee = true;
	return cpu;
}

/*
 * idle_cpu(): an idle CPU still holding delayed-dequeue sleepers counts
 * them in nr_running, and is busy to the kernel.
 */
static bool idle_at(const struct sr_wake_ctx *ctx, int cpu, struct sr_decision *d)
{
	bool idle = sr_rq_idle(&ctx->rq[cpu]);

	if (idle && ctx->rq[cpu].maybe_delayed)
		d->depends |= ctx->unknown & SR_DEP_DELAYED_DEQUEUE;
	return idle;
}

/* Bit 4: prev if busy, this, then the first busy CPU, each with room. */
static int pack_busy(const struct sr_wake_ctx *ctx, struct sr_decision *d)
{
	int prev = ctx->prev_cpu;
	bool prev_idle = idle_at(ctx, prev, d);
	struct sr_step *s;

	s = sr_trail_add(&d->trail, "select_task_rq_fair", "!idle_cpu(prev_cpu)",
			 prev_idle ? "idle: not packed onto" : "busy", prev);
	sr_step_val(s, "idle", prev_idle);
	if (!prev_idle && vcpu_pack_room(ctx, prev, d))
		return packed(d, prev);
	if (vcpu_pack_room(ctx, ctx->this_cpu, d))
		return packed(d, ctx->this_cpu);
	for (int cpu = 0; cpu < ctx->topo->nr_cpus; cpu++) {
		if (!allowed_on(ctx, cpu) || idle_at(ctx, cpu, d))
			continue;
		if (vcpu_pack_room(ctx, cpu, d))
			return packed(d, cpu);
	}
	sr_trail_add(&d->trail, "select_task_rq_fair", "a busy CPU with room", "none", -1);
	return -1;
}

static int pack_wakeup(const struct sr_wake_ctx *ctx, unsigned int mask, bool sync,
		       struct sr_decision *d)
{
	const struct sr_rq *this = &ctx->rq[ctx->this_cpu];
	struct sr_step *s;

	if (mask & PACK_IDLE_WAKER) {
		bool idle_waker = this->curr_pid == 0;	/* current is the idle task */
		bool local = idle_waker && this->nr_running == 0 && allowed_on(ctx, ctx->this_cpu);

		s = sr_trail_add(&d->trail, "select_task_rq_fair",
				 "(current->flags & PF_IDLE) && !this_rq()->nr_running",
				 local ? "this cpu" : "next", ctx->this_cpu);
		sr_step_val(s, "idle_waker", idle_waker);
		sr_step_uval(s, "nr_running", this->nr_running);
		if (local)
			return packed(d, ctx->this_cpu);
	}
	if (mask & PACK_SYNC) {
		d->sync_used = true;
		s = sr_trail_add(&d->trail, "select_task_rq_fair", "sync && vcpu_pack_room(p, cpu)",
				 sync ? "this CPU if it has room" : "no sync", ctx->this_cpu);
		sr_step_val(s, "sync", sync);
		if (sync && vcpu_pack_room(ctx, ctx->this_cpu, d))
			return packed(d, ctx->this_cpu);
	}
	if (mask & PACK_BUSY)
		return pack_busy(ctx, d);
	return -1;
}

/* The CPU the prologue settles on, or -1: the mainline path decides. */
int sr_vcpu_pack(const struct sr_policy *pol, const struct sr_wake_ctx *ctx, bool sync,
		 struct sr_decision *d)
{
	unsigned int mask = (unsigned int)pol->knobs.vcpu_pack;

	if (!mask || pol->knobs.kver < SR_KV(6, 18))
		return -1;
	if (ctx->kind != SR_WAKE_TTWU) {
		if (!(mask & PACK_FORK_EXEC))
			return -1;
		if (vcpu_pack_room(ctx, ctx->this_cpu, d))
			return packed(d, ctx->this_cpu);
		return -1;
	}
	return pack_wakeup(ctx, mask, sync, d);
}
