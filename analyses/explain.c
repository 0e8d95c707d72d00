// SPDX-License-Identifier: GPL-2.0
/*
 * explain: one wakeup in full — the state of the CPUs that mattered at the
 * sched_waking, each policy's trail check by check (under both sync values
 * when the trace cannot tell), the kernel's choice, and what happened next.
 * Keeps only the best candidate so far: O(CPUs) memory in one pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "run.h"

struct cand {
	bool valid, has_ctx, has_curr, ran;
	uint64_t ts;
	/* at the sched_waking */
	struct sr_rq *rq;		/* nr_cpus copies */
	struct sr_task_view p, curr;
	int this_cpu, prev_cpu;
	unsigned int unknown;
	struct sr_decision dec[SR_MAX_POLICIES];
	struct sr_decision dec_sync[SR_MAX_POLICIES];	/* trail under sync=1 */
	bool has_sync[SR_MAX_POLICIES];
	enum sr_tristate sync_guess;	/* the value the analyses' primary answer assumes */
	/* at the sched_wakeup */
	struct sr_wakeup w;
	char comm[SR_COMM_LEN], target_comm[SR_COMM_LEN];
	int target_curr;
	unsigned int target_nr;
	/* at the switch-in */
	uint64_t run_ts;
	int run_cpu;
};

struct explain {
	int pid;
	int64_t at;
	uint64_t index;			/* --wakeup N: find its pid and time */
	int nr_cpus;
	struct cand *scratch, *best;
};

static struct cand *cand_new(int nr_cpus)
{
	struct cand *c = calloc(1, sizeof(*c));

	if (c && !(c->rq = calloc(nr_cpus, sizeof(*c->rq)))) {
		free(c);
		c = NULL;
	}
	return c;
}

static int ex_init(void **priv, const struct sr_run *run)
{
	struct explain *e;

	if (run->opts.mode != SR_MODE_EXPLAIN)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	*priv = e;
	e->pid = run->opts.explain_pid;
	e->at = run->opts.explain_at_ns;
	e->index = run->opts.explain_index;
	e->nr_cpus = run->info->nr_cpus;
	e->scratch = cand_new(e->nr_cpus);
	e->best = cand_new(e->nr_cpus);
	return e->scratch && e->best ? 0 : -ENOMEM;
}

static uint64_t dist(const struct explain *e, uint64_t ts)
{
	return ts > (uint64_t)e->at ? ts - (uint64_t)e->at : (uint64_t)e->at - ts;
}

static bool closer(const struct explain *e, uint64_t ts)
{
	return !e->best->valid || dist(e, ts) < dist(e, e->best->ts);
}

/* Re-run every policy with its full trail on this moment's context. */
static int ex_placement(void *priv, const struct sr_wake_ctx *ctx, const struct sr_brief *dec,
			const struct sr_run *run)
{
	struct explain *e = priv;
	struct cand *c = e->scratch;

	if (e->index || ctx->p->pid != e->pid || !closer(e, ctx->now))
		return 0;
	c->has_ctx = true;
	c->ts = ctx->now;
	memcpy(c->rq, ctx->rq, e->nr_cpus * sizeof(*c->rq));
	c->p = *ctx->p;
	c->has_curr = ctx->curr != NULL;
	if (ctx->curr)
		c->curr = *ctx->curr;
	c->this_cpu = ctx->this_cpu;
	c->prev_cpu = ctx->prev_cpu;
	c->unknown = ctx->unknown;
	c->sync_guess = ctx->sync == SR_UNKNOWN ? ctx->sync_guess : SR_UNKNOWN;
	for (int i = 0; i < run->nr_policies; i++) {
		struct sr_wake_ctx no = *ctx, yes = *ctx;

		/* Both values of an unknown WF_SYNC, each with its own full trail. */
		if (ctx->sync == SR_UNKNOWN)
			no.sync = SR_NO;
		if (sr_policy_decide(&run->policy[i], &no, &c->dec[i]))
			c->dec[i].cpu = -1;
		c->has_sync[i] = ctx->sync == SR_UNKNOWN;
		if (!c->has_sync[i])
			continue;
		yes.sync = SR_YES;
		if (sr_policy_decide(&run->policy[i], &yes, &c->dec_sync[i]))
			c->dec_sync[i].cpu = -1;
	}
	return 0;
}

static int ex_wakeup(void *priv, const struct sr_wakeup *w, const struct sr_run *run)
{
	struct explain *e = priv;
	const struct sr_task *curr;
	struct cand *tmp;

	if (e->index) {
		if (w->index == e->index) {
			e->pid = w->task->v.pid;
			e->at = (int64_t)w->ts;
		}
		return 0;
	}
	if (w->task->v.pid != e->pid || !closer(e, w->ts))
		return 0;
	if (!(e->scratch->has_ctx && e->scratch->ts == w->ts && w->cls == SR_W_PLACED))
		e->scratch->has_ctx = false;
	tmp = e->best;
	e->best = e->scratch;
	e->scratch = tmp;
	e->scratch->has_ctx = false;
	tmp = e->best;
	tmp->valid = true;
	tmp->ran = false;
	tmp->ts = w->ts;
	tmp->w = *w;
	tmp->w.task = NULL;
	tmp->w.dec = NULL;
	memcpy(tmp->comm, w->task->comm, SR_COMM_LEN);
	tmp->target_curr = -1;
	if (w->cpu >= 0 && w->cpu < e->nr_cpus) {
		tmp->target_curr = run->state.rq[w->cpu].curr_pid;
		tmp->target_nr = run->state.rq[w->cpu].nr_running;
		curr = sr_state_task(&run->state, tmp->target_curr);
		snprintf(tmp->target_comm, SR_COMM_LEN, "%s", curr ? curr->comm : "<idle>");
	}
	return 0;
}

static int ex_run(void *priv, const struct sr_task *t, int cpu, uint64_t ts,
		  const struct sr_run *run)
{
	struct explain *e = priv;

	if (!e->index && e->best->valid && !e->best->ran && t->v.pid == e->pid &&
	    t->note.ts == e->best->ts) {
		e->best->ran = true;
		e->best->run_ts = ts;
		e->best->run_cpu = cpu;
	}
	return 0;
}

static json_t *trail_json(const struct sr_decision *d)
{
	json_t *a = json_array();

	for (int i = 0; a && i < d->trail.n; i++) {
		const struct sr_step *s = &d->trail.steps[i];
		json_t *vals = json_object();

		for (int v = 0; vals && v < s->nvals; v++)
			/* u64 values beyond s64 (2.6.37 wraps) print as reals */
			json_object_set_new(vals, s->vals[v].name,
					    s->vals[v].is_unsigned && s->vals[v].v < 0 ?
					    json_real((double)(uint64_t)s->vals[v].v) :
					    json_integer(s->vals[v].v));
		json_array_append_new(a, json_pack("{s:s, s:s?, s:s?, s:o, s:o}",
			"fn", s->fn, "check", s->check, "result", s->result,
			"cpu", s->cpu >= 0 ? json_integer(s->cpu) : json_null(), "values", vals));
	}
	return a;
}

static json_t *deps_json(unsigned int deps)
{
	json_t *a = json_array();

	for (int bit = 0; a && bit < 16; bit++)
		if (deps & (1u << bit))
			json_array_append_new(a, json_string(sr_dep_name(1u << bit)));
	return a;
}

static json_t *decision_json(const struct sr_decision *d)
{
	if (d->cpu < 0)
		return json_pack("{s:n, s:s}", "cpu", "error", "the model refused this input");
	return json_pack("{s:i, s:s, s:b, s:o, s:b, s:o}", "cpu", d->cpu,
			 "decided_by", sr_decider_name(d->decided_by), "determined", d->determined,
			 "depends_on", deps_json(d->depends), "trail_truncated", d->trail.truncated,
			 "trail", trail_json(d));
}

static json_t *policies_json(const struct cand *c, const struct sr_run *run)
{
	json_t *a = json_array();

	for (int i = 0; a && i < run->nr_policies; i++) {
		json_t *o = json_pack("{s:s, s:s?, s:o}", "policy", run->policy[i].name,
				      "kernel_range", run->policy[i].kernel_range,
				      "sync_0", decision_json(&c->dec[i]));

		const struct sr_decision *primary = c->has_sync[i] && c->sync_guess == SR_YES ?
						    &c->dec_sync[i] : &c->dec[i];

		if (c->has_sync[i])
			json_object_set_new(o, "sync_1", decision_json(&c->dec_sync[i]));
		json_object_set_new(o, "matches_kernel", json_boolean(primary->cpu == c->w.cpu));
		json_array_append_new(a, o);
	}
	return a;
}

static bool mattered(const struct cand *c, int cpu, const struct sr_run *run)
{
	if (cpu == c->this_cpu || cpu == c->prev_cpu || cpu == c->w.cpu)
		return true;
	for (int i = 0; i < run->nr_policies; i++)
		if (cpu == c->dec[i].cpu || (c->has_sync[i] && cpu == c->dec_sync[i].cpu))
			return true;
	return false;
}

static json_t *cpus_json(const struct cand *c, const struct sr_run *run, int nr)
{
	json_t *a = json_array();

	for (int cpu = 0; a && cpu < nr; cpu++) {
		const struct sr_rq *rq = &c->rq[cpu];
		json_t *roles;

		if (!mattered(c, cpu, run))
			continue;
		roles = json_array();
		if (cpu == c->prev_cpu)
			json_array_append_new(roles, json_string("prev"));
		if (cpu == c->this_cpu)
			json_array_append_new(roles, json_string("waker"));
		if (cpu == c->w.cpu)
			json_array_append_new(roles, json_string("chosen"));
		json_array_append_new(a, json_pack("{s:i, s:o, s:i, s:i, s:I, s:I, s:I, s:b, s:b}",
			"cpu", cpu, "roles", roles, "curr_pid", rq->curr_pid,
			"nr_running", (int)rq->nr_running, "load_weight", (json_int_t)rq->load_weight,
			"load_avg", (json_int_t)rq->load_avg, "util_avg", (json_int_t)rq->util_avg,
			"idle", !rq->curr_pid && !rq->nr_running, "uncertain", rq->uncertain));
	}
	return a;
}

static json_t *task_json(const struct sr_task_view *t)
{
	return json_pack("{s:i, s:i, s:I, s:I, s:I, s:b, s:I, s:i}", "pid", t->pid,
			 "prio", t->prio, "weight", (json_int_t)t->weight,
			 "load_avg", (json_int_t)t->load_avg, "util_avg", (json_int_t)t->util_avg,
			 "pelt_warm", t->pelt_warm, "wakee_flips", (json_int_t)t->wakee_flips,
			 "last_wakee", t->last_wakee);
}

static int ex_report(void *priv, json_t *report, const struct sr_run *run)
{
	struct explain *e = priv;
	const struct cand *c = e->best;
	json_t *o, *next;

	if (e->index || !c->valid)
		return json_object_set_new(report, "explain", json_null()) ? -ENOMEM : 0;
	next = json_pack("{s:i, s:s, s:i, s:b}", "chosen_cpu_curr_pid", c->target_curr,
			 "chosen_cpu_curr_comm", c->target_comm,
			 "chosen_cpu_nr_running", (int)c->target_nr, "ran", c->ran);
	if (c->ran) {
		json_object_set_new(next, "switched_in_ns", json_integer((json_int_t)c->run_ts));
		json_object_set_new(next, "on_cpu", json_integer(c->run_cpu));
		json_object_set_new(next, "waited_ns", json_integer((json_int_t)(c->run_ts - c->ts)));
	}
	o = json_pack("{s:I, s:I, s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:s?, s:b, s:I, s:i, s:b, s:o}",
		"wakeup", (json_int_t)c->w.index, "ts_ns", (json_int_t)c->ts, "pid", e->pid,
		"comm", c->comm, "class", sr_wclass_name(c->w.cls),
		"waker_pid", c->w.waker_pid, "waker_cpu", c->w.waker_cpu,
		"prev_cpu", c->w.prev_cpu, "cpu", c->w.cpu,
		"actual", c->w.cls == SR_W_PLACED ? sr_outcome_name(c->w.actual) : NULL,
		"cache_hot", c->w.hot, "since_switch_out_ns", (json_int_t)c->w.since_out,
		"migrations", c->w.nr_migrations, "uncertain", c->w.uncertain, "next", next);
	if (c->has_ctx) {
		json_object_set_new(o, "cpus", cpus_json(c, run, e->nr_cpus));
		json_object_set_new(o, "wakee", task_json(&c->p));
		json_object_set_new(o, "waker", c->has_curr ? task_json(&c->curr) : json_null());
		json_object_set_new(o, "inputs_unknown", deps_json(c->unknown));
		json_object_set_new(o, "sync_guess", c->sync_guess == SR_UNKNOWN ? json_null() :
				    json_boolean(c->sync_guess == SR_YES));
		json_object_set_new(o, "policies", policies_json(c, run));
	}
	return json_object_set_new(report, "explain", o) ? -ENOMEM : 0;
}

static void cand_free(struct cand *c)
{
	if (c)
		free(c->rq);
	free(c);
}

static void ex_fini(void *priv)
{
	struct explain *e = priv;

	cand_free(e->scratch);
	cand_free(e->best);
	free(e);
}

/* Used by the explain command to turn --wakeup N into --pid/--at for the second pass. */
int sr_explain_target(const struct sr_run *run, int *pid, int64_t *at)
{
	for (int i = 0; i < run->nr_an; i++) {
		const struct explain *e = run->an_priv[i];

		if (strcmp(run->an[i]->name, "explain") || !e)
			continue;
		if (e->at < 0)
			return -ENOENT;
		*pid = e->pid;
		*at = e->at;
		return 0;
	}
	return -ENOENT;
}

const struct sr_analysis_ops sr_explain_analysis = {
	.name = "explain",
	.help = "one wakeup, check by check (explain command)",
	.init = ex_init,
	.placement = ex_placement,
	.wakeup = ex_wakeup,
	.run = ex_run,
	.report = ex_report,
	.fini = ex_fini,
};
