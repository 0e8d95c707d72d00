// SPDX-License-Identifier: GPL-2.0
/* explain as text: the same struct explain.c renders as JSON, for a person. */
#include <inttypes.h>
#include <stdio.h>
#include "common.h"
#include "explain.h"

static void print_ns(FILE *f, int64_t ns)
{
	fprintf(f, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
}

static void print_value(FILE *f, const struct sr_val *v)
{
	if (v->is_unsigned && v->v < 0)
		fprintf(f, "%" PRIu64, (uint64_t)v->v);	/* 2.6.37's u64 wraps */
	else
		fprintf(f, "%" PRId64, v->v);
}

/* "level=3 (NUMA)": the sched-domain level of the CPU the walk started from, by name. */
static void print_level(FILE *f, const struct sr_val *v, const struct sr_cpu_topo *ct)
{
	if (ct && !strcmp(v->name, "level") && v->v >= 0 && v->v < ct->nr_levels &&
	    ct->sd[v->v].name[0])
		fprintf(f, " (%s)", ct->sd[v->v].name);
}

/* A step's values; a name given twice shows once, at its first place, with its last value. */
static void print_values(FILE *f, const struct sr_step *s, const struct sr_cpu_topo *ct)
{
	bool first = true;

	for (int i = 0; i < s->nvals; i++) {
		const struct sr_val *last = &s->vals[i];
		bool seen = false;

		for (int k = 0; k < i && !seen; k++)
			seen = !strcmp(s->vals[k].name, s->vals[i].name);
		if (seen)
			continue;
		for (int k = i + 1; k < s->nvals; k++)
			if (!strcmp(s->vals[k].name, s->vals[i].name))
				last = &s->vals[k];
		fprintf(f, "%s%s=", first ? "  [" : ", ", s->vals[i].name);
		print_value(f, last);
		print_level(f, last, ct);
		first = false;
	}
	if (!first)
		fputc(']', f);
}

static void print_step(FILE *f, int i, const struct sr_step *s, const struct sr_cpu_topo *ct)
{
	fprintf(f, "    %2d. %s: %s -> %s", i + 1, s->fn, s->check ? s->check : "",
		s->result ? s->result : "");
	if (s->cpu >= 0)
		fprintf(f, " (CPU %d)", s->cpu);
	print_values(f, s, ct);
	fputc('\n', f);
}

static void print_depends(FILE *f, const struct sr_decision *d);

static void print_decision(FILE *f, const char *label, const struct sr_decision *d,
			   const struct sr_cpu_topo *ct)
{
	if (d->cpu < 0) {
		fprintf(f, "  %s: the model refused this input\n", label);
		return;
	}
	fprintf(f, "  %s -> CPU %d, decided by %s%s\n", label, d->cpu,
		sr_decider_name(d->decided_by), d->determined ? "" : " (undetermined)");
	for (int i = 0; i < d->trail.n; i++)
		print_step(f, i, &d->trail.steps[i], ct);
	print_depends(f, d);
}

static void print_depends(FILE *f, const struct sr_decision *d)
{
	if (!d->depends)
		return;
	fprintf(f, "    depends on inputs the trace cannot show:\n");
	for (int bit = 0; bit < SR_NR_DEPS; bit++)
		if (d->depends & (1u << bit))
			fprintf(f, "      %-17s %s\n", sr_dep_name(1u << bit),
				sr_dep_gloss(1u << bit));
}

/* "prev,waker,chosen"; "parent" for a fork's parent CPU, "task_cpu" for an exec's. */
static void roles(const struct sr_explain_cand *c, int cpu, char *buf, size_t size)
{
	const char *r[3];
	int n = 0;
	size_t len = 0;

	buf[0] = '\0';
	if (c->w.kind == SR_WAKE_FORK && cpu == c->this_cpu)
		r[n++] = "parent";
	if (c->w.kind == SR_WAKE_EXEC && cpu == c->this_cpu)
		r[n++] = "task_cpu";
	if (c->w.kind == SR_WAKE_TTWU && cpu == c->prev_cpu)
		r[n++] = "prev";
	if (c->w.kind == SR_WAKE_TTWU && cpu == c->this_cpu)
		r[n++] = "waker";
	if (cpu == c->w.cpu)
		r[n++] = "chosen";
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", r[i]);
}

/* The wakee's affinity, when the run knew it (every CPU otherwise). */
static void print_allowed(FILE *f, const struct sr_explain_cand *c)
{
	char *buf = sr_explain_allowed_list(c);

	if (buf)
		fprintf(f, "  It may run on CPU%s %s only (p->cpus_ptr: a per-CPU kthread's CPU, or "
			"the affinity a snapshot or --affinity gave it or its parent).\n",
			sr_mask_weight(&c->allowed) == 1 ? "" : "s", buf);
	free(buf);
}

static void print_cpus(FILE *f, const struct sr_explain_cand *c, const struct sr_explain *e,
		       const struct sr_view *v)
{
	static const char *const at_kind[] = {
		[SR_WAKE_TTWU] = "at the sched_waking", [SR_WAKE_FORK] = "at wake_up_new_task()",
		[SR_WAKE_EXEC] = "at sched_exec()",
	};
	static const char *const to_kind[] = {
		[SR_WAKE_TTWU] = "to prev", [SR_WAKE_FORK] = "to parent", [SR_WAKE_EXEC] = "to its CPU",
	};
	bool ttwu = c->w.kind == SR_WAKE_TTWU;
	const char *at = at_kind[c->w.kind];

	if (c->w.kind == SR_WAKE_EXEC && !c->w.at_select && c->w.cpu == c->w.prev_cpu)
		at = c->w.ts < c->w.ts_wakeup ?
		     "as the forked child first ran (sched_exec() runs as its execve() begins, unrecorded)" :
		     "at the sched_process_exec (sched_exec() ran earlier, unrecorded)";

	if (c->placed_ts > c->ts)
		fprintf(f, "\nCPUs that mattered, when %s ran (%.1f us after %s):\n",
			ttwu ? "select_task_rq_fair()" : "find_idlest_group()",
			(double)(c->placed_ts - c->ts) / 1000.0,
			ttwu ? "the sched_waking" : "its srqf");
	else
		fprintf(f, "\nCPUs that mattered, %s:\n", at);
	fprintf(f, "  CPU  roles            %-10s %-10s  curr  nr_running  load_weight  load_avg"
		"  util_avg\n", to_kind[c->w.kind], ttwu ? "to waker" : "");
	for (int cpu = 0; cpu < e->nr_cpus; cpu++) {
		const struct sr_rq *rq = &c->rq[cpu];
		char r[64];

		if (!sr_explain_mattered(c, cpu, v->nr_policies))
			continue;
		roles(c, cpu, r, sizeof(r));
		fprintf(f, "  %3d  %-16s %-10s %-10s %5d  %10u  %11lu  %8lu  %8lu%s%s", cpu, r,
			sr_an_relation(v->topo, cpu, c->prev_cpu),
			ttwu ? sr_an_relation(v->topo, cpu, c->this_cpu) : "",
			rq->curr_pid, rq->nr_running, rq->load_weight, rq->load_avg, rq->util_avg,
			!rq->curr_pid && !rq->nr_running ? "  idle" : "",
			rq->uncertain ? "  (uncertain)" : "");
		/* busy when the trace began: what it held before is not in these */
		if (rq->pelt_cold && (rq->pelt_pre_load || rq->pelt_pre_util))
			fprintf(f, "  (averages warming up; decisions add %lu and %lu, guessed "
				"from before the trace)", rq->pelt_pre_load, rq->pelt_pre_util);
		else if (rq->pelt_cold)
			fprintf(f, "  (averages warming up)");
		if (rq->util_taught)
			fprintf(f, "  (the kernel's earlier choices showed %lu more util)",
				rq->util_taught);
		fputc('\n', f);
	}
	print_allowed(f, c);
}

static void print_sync(FILE *f, const struct sr_explain_cand *c)
{
	static const char *const why[] = {
		[SR_SYNC_SRC_IRQ] = "it was issued from interrupt context or by the idle task",
		[SR_SYNC_SRC_TASK] = "a task issued it and nothing contradicts the *_sync wakeups "
				     "pipes and sockets use",
		[SR_SYNC_SRC_EVIDENCE] = "that is how the kernel placed earlier wakeups by wakers "
					 "of this name",
		[SR_SYNC_SRC_PAIR] = "that is how the kernel placed earlier wakeups of tasks of "
				     "this name by wakers of this name",
	};
	const char *set = c->sync_guess == SR_YES ? "set" : "clear";

	if (c->sync_fact != SR_UNKNOWN) {
		fprintf(f, "\nWF_SYNC was %s: recorded by the select_task_rq_fair() probe.\n",
			c->sync_fact == SR_YES ? "set" : "clear");
		return;
	}
	if (c->sync_guess == SR_UNKNOWN)
		return;
	if ((unsigned int)c->sync_source < SR_ARRAY_SIZE(why) && why[c->sync_source])
		fprintf(f, "\nWF_SYNC is not in the trace; the analyses assume it %s: %s.\n", set,
			why[c->sync_source]);
	else
		fprintf(f, "\nWF_SYNC is not in the trace; the analyses assume it %s.\n", set);
}

static bool same_step(const struct sr_step *a, const struct sr_step *b)
{
	if (strcmp(a->fn, b->fn) || strcmp(a->check ? a->check : "", b->check ? b->check : "") ||
	    strcmp(a->result ? a->result : "", b->result ? b->result : "") || a->cpu != b->cpu ||
	    a->nvals != b->nvals)
		return false;
	for (int k = 0; k < a->nvals; k++)
		if (strcmp(a->vals[k].name, b->vals[k].name) || a->vals[k].v != b->vals[k].v)
			return false;
	return true;
}

/*
 * The WF_SYNC answer after the other one: when it walks the same number of
 * checks to the same CPU, only the checks that differ.
 */
static void print_second(FILE *f, const struct sr_decision *a, const struct sr_decision *b,
			 const struct sr_cpu_topo *ct)
{
	if (a->cpu < 0 || b->cpu != a->cpu || b->trail.n != a->trail.n) {
		print_decision(f, "if WF_SYNC", b, ct);
		return;
	}
	fprintf(f, "  if WF_SYNC -> CPU %d, decided by %s%s: the same checks but\n", b->cpu,
		sr_decider_name(b->decided_by), b->determined ? "" : " (undetermined)");
	for (int i = 0; i < b->trail.n; i++)
		if (!same_step(&a->trail.steps[i], &b->trail.steps[i]))
			print_step(f, i, &b->trail.steps[i], ct);
	print_depends(f, b);
}

/* Both WF_SYNC values took the same checks to the same CPU: one trail says it all. */
static bool same_decision(const struct sr_decision *a, const struct sr_decision *b)
{
	if (a->cpu != b->cpu || a->trail.n != b->trail.n || a->depends != b->depends)
		return false;
	for (int i = 0; i < a->trail.n; i++)
		if (!same_step(&a->trail.steps[i], &b->trail.steps[i]))
			return false;
	return true;
}

/* Another CPU's wakeup enqueued while this placement ran: what it may have seen. */
static void print_concurrent(FILE *f, const struct sr_explain_cand *c)
{
	char comm[SR_TEXT_SIZE(SR_COMM_LEN)];

	if (c->conc.pid <= 0)
		return;
	fprintf(f, "CPU %d was being given pid %d (%s) meanwhile: its sched_waking at ", c->conc.cpu,
		c->conc.pid, sr_text(c->conc_comm, comm, sizeof(comm)));
	print_ns(f, (int64_t)c->conc.waking);
	fprintf(f, " s, its sched_wakeup at ");
	print_ns(f, (int64_t)c->conc.wakeup);
	fprintf(f, " s, before this placement was done: the kernel may have seen it queued there"
		" (concurrent_wakeup).\n");
}

/* One task's count as wake_wide() reads it: what the trace showed, what is estimated. */
static void print_one_flips(FILE *f, const char *who, const struct sr_task_view *t)
{
	unsigned int seen = sr_flips_seen(t);

	fprintf(f, "the %s's %u", who, t->wakee_flips);
	if (t->wakee_flips_min == t->wakee_flips_max) {
		fprintf(f, " (the kernel's)");
		return;
	}
	if (t->wakee_flips_inherited)
		fprintf(f, " (%u counted in the trace, %u estimated as inherited from before it)", seen,
			t->wakee_flips_inherited);
	/* a count from before the trace is bounded only by its halvings: a huge bound */
	if (t->wakee_flips_max >= 1u << 20)
		fprintf(f, ", the kernel's at least %u", t->wakee_flips_min);
	else
		fprintf(f, ", the kernel's %u to %u", t->wakee_flips_min, t->wakee_flips_max);
}

/*
 * wake_wide() read counts the trace cannot pin (inherited at fork from a
 * task older than the trace, or a decay a tick from ours): say which part
 * was seen and which estimated, for the answers that depend on them.
 */
static void print_flips(FILE *f, const struct sr_explain_cand *c, const struct sr_view *v)
{
	bool dep = false;

	for (int i = 0; i < v->nr_policies; i++)
		for (int k = 0; k < c->nr_dec[i]; k++)
			dep |= (c->dec[i][k].depends & SR_DEP_WAKEE_FLIPS) != 0;
	if (!dep || !c->has_curr)
		return;
	fprintf(f, "\nwakee_flips, which wake_wide() compares, is not all in the trace: ");
	print_one_flips(f, "wakee", &c->p);
	fprintf(f, "; ");
	print_one_flips(f, "waker", &c->curr);
	fprintf(f, ".\n");
}

static void print_policies(FILE *f, const struct sr_explain_cand *c, const struct sr_view *v)
{
	const struct sr_cpu_topo *ct = c->this_cpu >= 0 && c->this_cpu < v->topo->nr_cpus ?
				       &v->topo->cpu[c->this_cpu] : NULL;

	print_sync(f, c);
	print_flips(f, c, v);
	print_concurrent(f, c);
	for (int i = 0; i < v->nr_policies; i++) {
		const struct sr_policy *pol = &v->policy[i];

		fprintf(f, "\nPolicy %s (%s)%s:\n", pol->name,
			pol->kernel_range ? pol->kernel_range : "",
			sr_explain_primary(c, i)->cpu == c->w.cpu ? ", matches the kernel" :
			", differs from the kernel");
		if (c->nr_dec[i] == 2 && same_decision(&c->dec[i][0], &c->dec[i][1])) {
			print_decision(f, "with or without WF_SYNC (the same checks)", &c->dec[i][0],
				       ct);
			continue;
		}
		print_decision(f, c->nr_dec[i] == 2 ? "if not WF_SYNC" : "decision", &c->dec[i][0],
			       ct);
		if (c->nr_dec[i] == 2)
			print_second(f, &c->dec[i][0], &c->dec[i][1], ct);
	}
}

/* sched_exec(): moved by its own CPU's stopper, or kept (seen at sched_process_exec). */
static void print_exec_head(FILE *f, const struct sr_explain *e, const struct sr_explain_cand *c)
{
	char comm[SR_TEXT_SIZE(SR_COMM_LEN)];

	fprintf(f, "Exec placement #%" PRIu64 " of %d (%s) at ", c->w.index, e->pid,
		sr_text(c->comm, comm, sizeof(comm)));
	print_ns(f, (int64_t)c->ts);
	if (c->w.cpu != c->w.prev_cpu) {
		fprintf(f, " s: sched_exec() on CPU %d, %s\n", c->w.prev_cpu, c->w.at_select ?
			"its select_task_rq_fair() recorded by a probe" :
			"seen as the task waking its own stopper");
		fprintf(f, "The kernel moved it to CPU %d (migration/%d's sched_migrate_task); "
			"the exec completed at ", c->w.cpu, c->w.prev_cpu);
	} else {
		fprintf(f, " s: sched_exec() on CPU %d, %s\n", c->w.prev_cpu, c->w.at_select ?
			"its select_task_rq_fair() recorded by a probe" :
			c->w.ts < c->w.ts_wakeup ?
			"which no event shows: replayed as the forked child first ran" :
			"which no event shows: replayed at the sched_process_exec");
		fprintf(f, "The kernel kept it on CPU %d; the exec completed at ", c->w.cpu);
	}
	print_ns(f, (int64_t)c->w.ts_wakeup);
	fprintf(f, " s.\n");
}

/* ttwu_queue_cond() sent a descheduling wakee to its CPU's wakelist: no selection. */
static void print_wakelist(FILE *f, const struct sr_explain_cand *c)
{
	static const char *const why[] = {
		[SR_WL_IDLE] = "CPU %d was left with nothing else to run",
		[SR_WL_OTHER_LLC] = "CPU %d shares no cache with the waker's",
		[SR_WL_WAKER_WENT_ON] = "the waker's CPU recorded an event before the switch, "
					"which a waker waiting for it cannot, so CPU %d had nothing "
					"else queued at the waking",
		[SR_WL_ONE_OTHER] = "CPU %d had at most one other task (5.8 - 5.19)",
	};

	fprintf(f, "It was still leaving CPU %d when woken: try_to_wake_up() queued it on that "
		"CPU's wakelist, with no CPU selection (ttwu_queue_cond(): ", c->w.prev_cpu);
	fprintf(f, why[c->w.wakelist], c->w.prev_cpu);
	fputs(").\n", f);
}

static void print_head(FILE *f, const struct sr_explain *e, const struct sr_explain_cand *c)
{
	bool placed = c->w.cls == SR_W_PLACED;
	char comm[SR_TEXT_SIZE(SR_COMM_LEN)];

	if (c->w.kind == SR_WAKE_EXEC) {
		print_exec_head(f, e, c);
		return;
	}
	if (c->w.kind == SR_WAKE_FORK) {
		fprintf(f, "Fork placement #%" PRIu64 " of %d (%s) at ", c->w.index, e->pid,
			sr_text(c->comm, comm, sizeof(comm)));
		print_ns(f, (int64_t)c->ts);
		fprintf(f, " s: wake_up_new_task() by its parent, pid %d on CPU %d\n",
			c->w.waker_pid, c->w.waker_cpu);
		fprintf(f, "The kernel placed it on CPU %d%s.\n", c->w.cpu,
			c->w.cpu == c->w.waker_cpu ? ", the parent's" : "");
		return;
	}
	fprintf(f, "Wakeup #%" PRIu64 " of %d (%s) at ", c->w.index, e->pid,
			sr_text(c->comm, comm, sizeof(comm)));
	print_ns(f, (int64_t)c->ts);
	fprintf(f, " s: %s wakeup by pid %d on CPU %d, prev CPU %d\n", sr_explain_class(c),
		c->w.waker_pid, c->w.waker_cpu, c->w.prev_cpu);
	fprintf(f, "The kernel chose CPU %d%s%s.", c->w.cpu, placed ? " = " : "",
		placed ? sr_outcome_name(c->w.actual) : "");
	if (c->w.since_out >= 0)
		fprintf(f, " The task had switched out %.1f us before%s.",
			(double)c->w.since_out / 1e3, c->w.hot ? " (cache-hot)" : "");
	fputc('\n', f);
	if (placed && c->w.after_switch)
		fprintf(f, "It was still leaving CPU %d when woken: the waker waited for that switch, "
			"then selected a CPU.\n", c->w.prev_cpu);
	if (!placed && c->w.wakelist != SR_WL_NONE)
		print_wakelist(f, c);
	else if (!placed)
		fprintf(f, "No CPU selection ran: the task was %s.\n",
			c->w.cls == SR_W_RUNNABLE ? "still running or queued" :
			"in an unknown state");
}

/* How often each model was right before this wakeup: how far to trust its checks. */
static void print_record(FILE *f, const struct sr_explain_record *r, const struct sr_view *v)
{
	if (!r->placed || !v->nr_policies)
		return;
	fprintf(f, "\nBefore it in the trace, %" PRIu64 " placed wakeup%s: the kernel's CPU was prev "
		"for %" PRIu64 " (%.1f%%)", r->placed, r->placed == 1 ? "" : "s", r->prev,
		100.0 * (double)r->prev / (double)r->placed);
	for (int i = 0; i < v->nr_policies && i < SR_MAX_POLICIES; i++) {
		if (!r->answered[i])
			continue;
		fprintf(f, ", %s's answer for %" PRIu64 " of %" PRIu64 " (%.1f%%)", v->policy[i].name,
			r->match[i], r->answered[i],
			100.0 * (double)r->match[i] / (double)r->answered[i]);
	}
	fputs(".\n", f);
	for (int i = 0; i < v->nr_policies && i < SR_MAX_POLICIES; i++)
		if (sr_an_below_prev(r->match[i], r->answered[i], r->prev))
			fprintf(f, "%s is below always prev on this trace: the kernel decided with "
				"something it lacks, so its checks above need not be the kernel's "
				"reasons.\n", v->policy[i].name);
}

void sr_explain_print(const struct sr_analysis *a, FILE *f)
{
	const struct sr_explain *e = a->data;
	const struct sr_explain_cand *c = e->best;
	char comm[SR_TEXT_SIZE(SR_COMM_LEN)];

	print_head(f, e, c);
	if (c->has_ctx) {
		print_cpus(f, c, e, a->view);
		print_policies(f, c, a->view);
		print_record(f, &c->before, a->view);
	}
	if (c->w.kind == SR_WAKE_EXEC) {
		/* moved by its stopper or kept: it ran on, there was no wait to see */
		fprintf(f, "\nThen: it ran on CPU %d, where its exec completed", c->w.cpu);
		if (c->w.ts_wakeup > c->ts)
			fprintf(f, " %.1f us after sched_exec()", (double)(c->w.ts_wakeup - c->ts) / 1e3);
		fprintf(f, ".\n");
		return;
	}
	fprintf(f, "\nThen: enqueued on CPU %d while %s (%d) ran there with nr_running %u; ",
		c->w.cpu, sr_text(c->target_comm, comm, sizeof(comm)), c->target_curr, c->target_nr);
	if (c->ran)
		fprintf(f, "switched in on CPU %d after %.1f us.\n", c->run_cpu,
			(double)(c->run_ts - c->ts) / 1e3);
	else
		fprintf(f, "its switch-in was not seen (not recorded, or after the trace).\n");
}
