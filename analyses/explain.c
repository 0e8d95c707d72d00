// SPDX-License-Identifier: GPL-2.0
/*
 * explain: one wakeup in full — the state of the CPUs that mattered at the
 * sched_waking, each policy's trail check by check (under both sync values
 * when the trace cannot tell), the kernel's choice, and what happened next.
 * Keeps only the best candidate so far: O(CPUs) memory in one pass.  This
 * file collects it and renders it as JSON; explain-text.c renders the same
 * struct as text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"
#include "explain.h"

static struct sr_explain_cand *cand_new(int nr_cpus)
{
	struct sr_explain_cand *c = calloc(1, sizeof(*c));

	if (c && !(c->rq = calloc(nr_cpus, sizeof(*c->rq)))) {
		free(c);
		c = NULL;
	}
	return c;
}

static void cand_free(struct sr_explain_cand *c)
{
	if (c)
		free(c->rq);
	free(c);
}

static int ex_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct sr_explain *e;

	if (v->opts->mode != SR_MODE_EXPLAIN)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	a->data = e;
	e->pid = v->opts->explain_pid;
	e->at = v->opts->explain_at_ns;
	e->index = v->opts->explain_index;
	e->nr_cpus = v->info->nr_cpus;
	e->scratch = cand_new(e->nr_cpus);
	e->exec_scratch = cand_new(e->nr_cpus);
	e->best = cand_new(e->nr_cpus);
	return e->scratch && e->exec_scratch && e->best ? 0 : -ENOMEM;
}

static uint64_t dist(const struct sr_explain *e, uint64_t ts)
{
	return ts > (uint64_t)e->at ? ts - (uint64_t)e->at : (uint64_t)e->at - ts;
}

static bool closer(const struct sr_explain *e, uint64_t ts)
{
	return !e->best->valid || dist(e, ts) < dist(e, e->best->ts);
}

/* Re-run every policy with its full trail on this moment's context. */
static int ex_placement(struct sr_analysis *a, const struct sr_wake_ctx *ctx,
			const struct sr_brief *dec)
{
	const struct sr_view *v = a->view;
	struct sr_explain *e = a->data;
	struct sr_explain_cand *c = ctx->kind == SR_WAKE_EXEC ? e->exec_scratch : e->scratch;

	if (e->index || ctx->p->pid != e->pid || !closer(e, ctx->ts))
		return 0;
	c->has_ctx = true;
	c->ts = ctx->ts;
	c->placed_ts = ctx->now;
	memcpy(c->rq, ctx->rq, e->nr_cpus * sizeof(*c->rq));
	c->p = *ctx->p;
	c->has_curr = ctx->curr != NULL;
	if (ctx->curr)
		c->curr = *ctx->curr;
	c->this_cpu = ctx->this_cpu;
	c->prev_cpu = ctx->prev_cpu;
	c->has_allowed = ctx->allowed != NULL;
	if (ctx->allowed)
		c->allowed = *ctx->allowed;
	c->unknown = ctx->unknown;
	c->sync_guess = ctx->sync == SR_UNKNOWN ? ctx->sync_guess : SR_UNKNOWN;
	c->sync_fact = ctx->sync_source == SR_SYNC_SRC_PROBE ? ctx->sync : SR_UNKNOWN;
	c->sync_source = ctx->sync_source;
	for (int i = 0; i < v->nr_policies; i++) {
		int n = sr_policy_decide_each(&v->policy[i], ctx, c->dec[i]);

		c->nr_dec[i] = n > 0 ? n : 1;
		if (n < 0)
			c->dec[i][0].cpu = -1;
	}
	return 0;
}

/*
 * The replay at the placement could not yet tell whether a wakeup in
 * flight elsewhere came first, nor whether the waker selected long after
 * its sched_waking; the state settled both by the wakeup (its brief keeps
 * SR_DEP_CONCURRENT only if the first held, gains SR_DEP_DECISION_TIME if
 * the second did): the trail's answers follow.
 */
static void settle_late(struct sr_explain_cand *c, const struct sr_wakeup *w, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned int late = w->dec && i < w->nr_dec ? w->dec[i].depends : 0;

		for (int k = 0; k < c->nr_dec[i]; k++) {
			unsigned int *dep = &c->dec[i][k].depends;

			if (!(late & SR_DEP_CONCURRENT))
				*dep &= ~(unsigned int)SR_DEP_CONCURRENT;
			*dep |= late & SR_DEP_DECISION_TIME;
			c->dec[i][k].determined = *dep == 0;
		}
	}
}

/* The models' record on the placed wakeups, as the divergence analysis counts it. */
static void tally(struct sr_explain_record *r, const struct sr_wakeup *w, int nr_policies)
{
	if (w->kind != SR_WAKE_TTWU || w->cls != SR_W_PLACED || w->nr_dec != nr_policies)
		return;
	r->placed++;
	r->prev += w->cpu == w->prev_cpu;
	for (int i = 0; i < nr_policies && i < SR_MAX_POLICIES; i++) {
		if (w->dec[i].cpu < 0)
			continue;
		r->answered[i]++;
		r->match[i] += w->dec[i].cpu == w->cpu;
	}
}

/* @w is the placement nearest the one asked for so far: keep it. */
static void adopt(struct sr_analysis *a, const struct sr_wakeup *w)
{
	const struct sr_view *v = a->view;
	struct sr_explain *e = a->data;
	struct sr_explain_cand *c, **slot;
	const struct sr_task *curr;

	/* an exec completes after later placements of its task: its context waits apart */
	slot = w->kind == SR_WAKE_EXEC ? &e->exec_scratch : &e->scratch;
	/* The placement context belongs to this wakeup only if it was its waking. */
	if (!((*slot)->has_ctx && (*slot)->ts == w->ts &&
	      (w->cls == SR_W_PLACED || w->kind != SR_WAKE_TTWU)))
		(*slot)->has_ctx = false;
	c = *slot;
	if (c->has_ctx)
		settle_late(c, w, v->nr_policies);
	c->conc = w->kind == SR_WAKE_TTWU ? w->task->conc_by : (struct sr_conc_by){ 0 };
	curr = c->conc.pid > 0 ? sr_state_task(v->state, c->conc.pid) : NULL;
	snprintf(c->conc_comm, SR_COMM_LEN, "%s", curr ? curr->comm : "");
	*slot = e->best;
	e->best = c;
	(*slot)->has_ctx = false;
	c->valid = true;
	c->ran = false;
	c->ts = w->ts;
	c->w = *w;
	c->w.task = NULL;
	c->w.dec = NULL;
	memcpy(c->comm, w->task->comm, SR_COMM_LEN);
	c->target_curr = -1;
	if (w->cpu >= 0 && w->cpu < e->nr_cpus) {
		c->target_curr = v->state->rq[w->cpu].curr_pid;
		c->target_nr = v->state->rq[w->cpu].nr_running;
		curr = sr_state_task(v->state, c->target_curr);
		snprintf(c->target_comm, SR_COMM_LEN, "%s", curr ? curr->comm : "<idle>");
	}
	c->before = e->record;
}

static int ex_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	struct sr_explain *e = a->data;

	if (e->index) {
		if (w->index == e->index) {
			e->pid = w->task->v.pid;
			e->at = (int64_t)w->ts;
		}
		return 0;
	}
	if (w->task->v.pid == e->pid && closer(e, w->ts))
		adopt(a, w);
	tally(&e->record, w, a->view->nr_policies);
	return 0;
}

static int ex_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct sr_explain *e = a->data;

	if (!e->index && e->best->valid && !e->best->ran && t->v.pid == e->pid &&
	    t->note.ts == e->best->ts) {
		e->best->ran = true;
		e->best->run_ts = ts;
		e->best->run_cpu = cpu;
	}
	return 0;
}

bool sr_explain_mattered(const struct sr_explain_cand *c, int cpu, int nr_policies)
{
	if (cpu == c->this_cpu || cpu == c->prev_cpu || cpu == c->w.cpu)
		return true;
	for (int i = 0; i < nr_policies; i++)
		for (int k = 0; k < c->nr_dec[i]; k++)
			if (cpu == c->dec[i][k].cpu)
				return true;
	return false;
}

/* ------------------------------------------------------------ JSON rendering */

static json_t *trail_json(const struct sr_decision *d)
{
	json_t *a = json_array();

	for (int i = 0; a && i < d->trail.n; i++) {
		const struct sr_step *s = &d->trail.steps[i];
		json_t *vals = json_object();

		for (int k = 0; vals && k < s->nvals; k++)
			/* u64 values beyond s64 (2.6.37 wraps) print as reals */
			json_object_set_new(vals, s->vals[k].name,
					    s->vals[k].is_unsigned && s->vals[k].v < 0 ?
					    json_real((double)(uint64_t)s->vals[k].v) :
					    json_integer(s->vals[k].v));
		json_array_append_new(a, json_pack("{s:s, s:s?, s:s?, s:o, s:o}",
			"fn", s->fn, "check", s->check, "result", s->result,
			"cpu", s->cpu >= 0 ? json_integer(s->cpu) : json_null(), "values", vals));
	}
	return a;
}

static json_t *decision_json(const struct sr_decision *d)
{
	if (d->cpu < 0)
		return json_pack("{s:n, s:s}", "cpu", "error", "the model refused this input");
	return json_pack("{s:i, s:s, s:b, s:o, s:b, s:o}", "cpu", d->cpu,
			 "decided_by", sr_decider_name(d->decided_by), "determined", d->determined,
			 "depends_on", sr_deps_json(d->depends), "trail_truncated", d->trail.truncated,
			 "trail", trail_json(d));
}

static json_t *policies_json(const struct sr_explain_cand *c, const struct sr_view *v)
{
	json_t *a = json_array();

	for (int i = 0; a && i < v->nr_policies; i++) {
		json_t *o = json_pack("{s:s, s:s?, s:o}", "policy", v->policy[i].name,
				      "kernel_range", v->policy[i].kernel_range,
				      "sync_0", decision_json(&c->dec[i][0]));

		if (c->nr_dec[i] == 2)
			json_object_set_new(o, "sync_1", decision_json(&c->dec[i][1]));
		json_object_set_new(o, "matches_kernel",
				    json_boolean(sr_explain_primary(c, i)->cpu == c->w.cpu));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *cpus_json(const struct sr_explain_cand *c, const struct sr_view *v, int nr)
{
	json_t *a = json_array();

	for (int cpu = 0; a && cpu < nr; cpu++) {
		const struct sr_rq *rq = &c->rq[cpu];
		json_t *roles;

		if (!sr_explain_mattered(c, cpu, v->nr_policies))
			continue;
		roles = json_array();
		if (cpu == c->prev_cpu)
			json_array_append_new(roles, json_string(sr_explain_prev_role(c)));
		if (cpu == c->this_cpu && c->w.kind == SR_WAKE_TTWU)
			json_array_append_new(roles, json_string("waker"));
		if (cpu == c->w.cpu)
			json_array_append_new(roles, json_string("chosen"));
		json_array_append_new(a, json_pack("{s:i, s:o, s:s, s:s, s:i, s:i, s:I, s:I, s:I,"
			" s:b, s:b, s:b, s:I, s:I, s:I}", "cpu", cpu, "roles", roles,
			"to_prev", sr_an_relation(v->topo, cpu, c->prev_cpu),
			"to_waker", sr_an_relation(v->topo, cpu, c->this_cpu), "curr_pid", rq->curr_pid,
			"nr_running", (int)rq->nr_running, "load_weight", (json_int_t)rq->load_weight,
			"load_avg", (json_int_t)rq->load_avg, "util_avg", (json_int_t)rq->util_avg,
			"idle", !rq->curr_pid && !rq->nr_running, "uncertain", rq->uncertain,
			"averages_warming_up", rq->pelt_cold,
			"pre_trace_load_avg", (json_int_t)rq->pelt_pre_load,
			"pre_trace_util_avg", (json_int_t)rq->pelt_pre_util,
			"util_taught", (json_int_t)rq->util_taught));
	}
	return a;
}

static json_t *task_json(const struct sr_task_view *t)
{
	return json_pack("{s:i, s:i, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:i}", "pid", t->pid,
			 "prio", t->prio, "weight", (json_int_t)t->weight,
			 "load_avg", (json_int_t)t->load_avg, "util_avg", (json_int_t)t->util_avg,
			 "pelt_warm", t->pelt_warm, "wakee_flips", (json_int_t)t->wakee_flips,
			 "wakee_flips_min", (json_int_t)t->wakee_flips_min,
			 "wakee_flips_max", (json_int_t)t->wakee_flips_max,
			 "wakee_flips_inherited", (json_int_t)t->wakee_flips_inherited,
			 "last_wakee", t->last_wakee);
}

static json_t *next_json(const struct sr_explain_cand *c)
{
	json_t *next = json_pack("{s:i, s:o, s:i, s:b}", "chosen_cpu_curr_pid", c->target_curr,
				 "chosen_cpu_curr_comm", sr_json_str(c->target_comm),
				 "chosen_cpu_nr_running", (int)c->target_nr, "ran", c->ran);

	if (next && c->ran) {
		json_object_set_new(next, "switched_in_ns", json_integer((json_int_t)c->run_ts));
		json_object_set_new(next, "on_cpu", json_integer(c->run_cpu));
		json_object_set_new(next, "waited_ns", json_integer((json_int_t)(c->run_ts - c->ts)));
	}
	return next;
}

/* The wakeup in flight the answers depend on (concurrent_wakeup), or null. */
static json_t *conc_json(const struct sr_explain_cand *c)
{
	if (c->conc.pid <= 0)
		return json_null();
	return json_pack("{s:i, s:o, s:i, s:I, s:I}", "pid", c->conc.pid,
			 "comm", sr_json_str(c->conc_comm), "cpu", c->conc.cpu,
			 "waking_ns", (json_int_t)c->conc.waking, "wakeup_ns", (json_int_t)c->conc.wakeup);
}

char *sr_explain_allowed_list(const struct sr_explain_cand *c)
{
	/* the longest list: every other CPU of 4096, "0,2,...,4094" */
	size_t len = 6 * (SR_MAX_CPUS / 2) + 1;
	char *buf = c->has_allowed ? malloc(len) : NULL;

	if (buf && sr_cpulist_format(&c->allowed, buf, len) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* p->cpus_ptr as a CPU list when the task's affinity was known, else null (every CPU). */
static json_t *allowed_json(const struct sr_explain_cand *c)
{
	char *list = sr_explain_allowed_list(c);
	json_t *o = list ? json_string(list) : json_null();

	free(list);
	return o;
}

static json_t *record_json(const struct sr_explain_record *r, const struct sr_view *v)
{
	json_t *pols = json_array();

	for (int i = 0; i < v->nr_policies && i < SR_MAX_POLICIES; i++)
		json_array_append_new(pols, json_pack("{s:s, s:I, s:I, s:b}",
			"policy", v->policy[i].name, "answered", (json_int_t)r->answered[i],
			"match", (json_int_t)r->match[i], "below_always_prev",
			sr_an_below_prev(r->match[i], r->answered[i], r->prev)));
	return json_pack("{s:I, s:I, s:o}", "placed", (json_int_t)r->placed,
			 "always_prev", (json_int_t)r->prev, "policies", pols);
}

static int ex_report(struct sr_analysis *a, json_t *report)
{
	const struct sr_view *v = a->view;
	struct sr_explain *e = a->data;
	const struct sr_explain_cand *c = e->best;
	json_t *o;

	if (e->index || !c->valid)
		return json_object_set_new(report, "explain", json_null()) ? -ENOMEM : 0;
	o = json_pack("{s:I, s:I, s:i, s:o, s:s, s:i, s:i, s:i, s:i, s:s?, s:b, s:I, s:i, s:b, s:o}",
		"wakeup", (json_int_t)c->w.index, "ts_ns", (json_int_t)c->ts, "pid", e->pid,
		"comm", sr_json_str(c->comm), "class", sr_explain_class(c),
		"waker_pid", c->w.waker_pid, "waker_cpu", c->w.waker_cpu,
		"prev_cpu", c->w.prev_cpu, "cpu", c->w.cpu,
		"actual", c->w.cls == SR_W_PLACED || c->w.kind == SR_WAKE_EXEC ?
			  sr_outcome_name(c->w.actual) : NULL,
		"cache_hot", c->w.hot, "since_switch_out_ns", (json_int_t)c->w.since_out,
		"migrations", c->w.nr_migrations, "uncertain", c->w.uncertain, "next", next_json(c));
	if (o) {
		const char *wl = sr_explain_wakelist(c->w.wakelist);

		json_object_set_new(o, "selected_after_switch", json_boolean(c->w.after_switch));
		json_object_set_new(o, "on_cpu_wakelist", wl ? json_string(wl) : json_null());
		json_object_set_new(o, "before", record_json(&c->before, v));
	}
	if (o && c->w.kind == SR_WAKE_EXEC)
		json_object_set_new(o, "exec", json_pack("{s:I, s:b}", "completed_ns",
				    (json_int_t)c->w.ts_wakeup, "at_select", c->w.at_select));
	if (o && c->has_ctx) {
		json_object_set_new(o, "cpus", cpus_json(c, v, e->nr_cpus));
		json_object_set_new(o, "wakee", task_json(&c->p));
		json_object_set_new(o, "waker", c->has_curr ? task_json(&c->curr) : json_null());
		json_object_set_new(o, "inputs_unknown", sr_deps_json(c->unknown));
		json_object_set_new(o, "sync_guess", c->sync_guess == SR_UNKNOWN ? json_null() :
				    json_boolean(c->sync_guess == SR_YES));
		json_object_set_new(o, "sync_recorded", c->sync_fact == SR_UNKNOWN ? json_null() :
				    json_boolean(c->sync_fact == SR_YES));
		json_object_set_new(o, "sync_source", json_string(sr_sync_source_name(c->sync_source)));
		json_object_set_new(o, "allowed_cpus", allowed_json(c));
		json_object_set_new(o, "policies", policies_json(c, v));
		json_object_set_new(o, "concurrent_wakeup", conc_json(c));
	}
	return json_object_set_new(report, "explain", o) ? -ENOMEM : 0;
}

static void ex_fini(struct sr_analysis *a)
{
	struct sr_explain *e = a->data;

	cand_free(e->scratch);
	cand_free(e->exec_scratch);
	cand_free(e->best);
	free(e);
}

int sr_explain_target(const struct sr_analysis *a, int *pid, int64_t *at)
{
	const struct sr_explain *e = a ? a->data : NULL;

	if (!e || e->at < 0)
		return -ENOENT;
	*pid = e->pid;
	*at = e->at;
	return 0;
}

/*
 * Nothing later can change the answer: --wakeup N has met wakeup N; --at T
 * has a candidate that no later wakeup can beat (past T by at least its
 * distance), no exec of the task as close is still open, and it ran or the
 * task was woken again without running it.
 */
static bool ex_done(const struct sr_analysis *a)
{
	const struct sr_explain *e = a->data;
	const struct sr_explain_cand *c = e->best;
	const struct sr_task *t;
	uint64_t now = a->view->state->now;

	if (e->index)
		return e->at >= 0;
	if (!c->valid || now < (uint64_t)e->at || now - (uint64_t)e->at < dist(e, c->ts))
		return false;
	t = sr_state_task(a->view->state, e->pid);
	/* an exec is reported when it completes: one as close may still come */
	if (t && t->exec.valid && dist(e, t->exec.ts) <= dist(e, c->ts))
		return false;
	/* so is a wakeup, at its sched_wakeup: one in flight may be the closer */
	if (t && t->pending && dist(e, t->pend_ts) < dist(e, c->ts))
		return false;
	if (c->ran)
		return true;
	return !t || t->note.ts != c->ts;
}

bool sr_explain_found(const struct sr_analysis *a)
{
	const struct sr_explain *e = a ? a->data : NULL;

	return e && !e->index && e->best->valid;
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
	.done = ex_done,
};
