// SPDX-License-Identifier: GPL-2.0
/*
 * divergence: for each replayed policy, the placed wakeups where the
 * model chose the kernel's CPU, where it chose another, and where its
 * answer rests on inputs the trace cannot show.  Broken down by the model
 * step that decided and by how far the model's CPU was from the kernel's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

struct tally {
	uint64_t match, miss;
};

/* Placements counted apart from the wakeups: forks and execs. */
struct apart {
	struct tally any;			/* every answer */
	struct tally det;			/* the determined ones */
	uint64_t undetermined, errors;
};

struct pol_stats {
	struct tally any, any_moved;		/* every answer, determined or not (sync=0 one) */
	struct tally prev;			/* "always prev" on the wakeups of @any */
	struct tally all, moved;		/* determined; moved: the kernel did not keep prev */
	uint64_t undetermined, undet_match_either;
	uint64_t failed;			/* the model refused its input */
	uint64_t not_fair;			/* another class's wakee: not a fair placement */
	struct tally by[SR_BY_NR_DECIDERS];
	uint64_t miss_rel[SR_REL_NR];
	uint64_t dep[SR_NR_DEPS];		/* undetermined decisions by input */
	struct apart fork, exec;		/* wake_up_new_task(), sched_exec() placements */
};

struct divergence {
	int nr;
	struct pol_stats *p;
};

static int div_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct divergence *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->nr = v->nr_policies;
	d->p = calloc(d->nr ? d->nr : 1, sizeof(*d->p));
	if (!d->p) {
		free(d);
		return -ENOMEM;
	}
	a->data = d;
	return 0;
}

static void count_one(struct pol_stats *ps, const struct sr_brief *b, const struct sr_wakeup *w,
		      const struct sr_topo *topo)
{
	bool moved = w->cpu != w->prev_cpu;
	struct tally *by;

	if (b->cpu < 0) {
		if (b->decided_by == SR_BY_NOT_FAIR)
			ps->not_fair++;
		else
			ps->failed++;
		return;
	}
	ps->any.match += b->cpu == w->cpu;
	ps->any.miss += b->cpu != w->cpu;
	ps->prev.match += !moved;
	ps->prev.miss += moved;
	if (moved) {
		ps->any_moved.match += b->cpu == w->cpu;
		ps->any_moved.miss += b->cpu != w->cpu;
	}
	if (!b->determined || w->uncertain) {
		ps->undetermined++;
		if (b->cpu == w->cpu || b->alt_cpu == w->cpu)
			ps->undet_match_either++;
		/* the set bits only: an answer depends on a few inputs of the 18 */
		for (unsigned int m = b->depends & ((1u << SR_NR_DEPS) - 1); m; m &= m - 1)
			ps->dep[__builtin_ctz(m)]++;
		return;
	}
	by = &ps->by[b->decided_by < SR_BY_NR_DECIDERS ? b->decided_by : SR_BY_NONE];
	if (b->cpu == w->cpu) {
		ps->all.match++;
		by->match++;
		if (moved)
			ps->moved.match++;
		return;
	}
	ps->all.miss++;
	by->miss++;
	if (moved)
		ps->moved.miss++;
	if (b->cpu < topo->nr_cpus && w->cpu >= 0 && w->cpu < topo->nr_cpus)
		ps->miss_rel[sr_topo_relation(topo, b->cpu, w->cpu)]++;
}

/* Fork and exec placements (find_idlest_cpu() and friends) are tallied on their own. */
static void count_apart(struct apart *ap, const struct sr_brief *b, const struct sr_wakeup *w)
{
	if (b->cpu < 0) {
		ap->errors += b->decided_by != SR_BY_NOT_FAIR;
		return;
	}
	ap->any.match += b->cpu == w->cpu;
	ap->any.miss += b->cpu != w->cpu;
	if (!b->determined || w->uncertain)
		ap->undetermined++;
	else if (b->cpu == w->cpu)
		ap->det.match++;
	else
		ap->det.miss++;
}

static int div_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	const struct sr_view *v = a->view;
	struct divergence *d = a->data;

	if (w->kind != SR_WAKE_TTWU && w->nr_dec == d->nr) {
		for (int i = 0; i < d->nr; i++)
			count_apart(w->kind == SR_WAKE_FORK ? &d->p[i].fork : &d->p[i].exec,
				    &w->dec[i], w);
		return 0;
	}
	if (w->cls != SR_W_PLACED || w->nr_dec != d->nr)
		return 0;
	for (int i = 0; i < d->nr; i++)
		count_one(&d->p[i], &w->dec[i], w, v->topo);
	return 0;
}

static json_t *tally_json(const struct tally *t)
{
	uint64_t n = t->match + t->miss;

	return json_pack("{s:I, s:I, s:o}", "match", (json_int_t)t->match,
			 "miss", (json_int_t)t->miss,
			 "match_ratio", n ? json_real((double)t->match / (double)n) : json_null());
}

static json_t *apart_json(const struct apart *ap)
{
	return json_pack("{s:o, s:o, s:I, s:I}", "all", tally_json(&ap->any),
			 "determined", tally_json(&ap->det),
			 "undetermined", (json_int_t)ap->undetermined,
			 "model_errors", (json_int_t)ap->errors);
}

static double ratio(const struct tally *t)
{
	uint64_t n = t->match + t->miss;

	return n ? 100.0 * (double)t->match / (double)n : 0.0;
}

static bool below_prev(const struct pol_stats *ps)
{
	return sr_an_below_prev(ps->any.match, ps->any.match + ps->any.miss, ps->prev.match);
}

/* The input most of a policy's undetermined decisions wait on, or -1. */
static int top_dep(const struct pol_stats *ps)
{
	int top = -1;

	for (int b = 0; b < SR_NR_DEPS; b++)
		if (ps->dep[b] && (top < 0 || ps->dep[b] > ps->dep[top]))
			top = b;
	return top;
}

static json_t *policy_json(const struct sr_policy *pol, const struct pol_stats *ps)
{
	json_t *by = json_object(), *rel = json_object(), *dep = json_object();

	for (int i = 0; i < SR_BY_NR_DECIDERS; i++)
		if (ps->by[i].match || ps->by[i].miss)
			json_object_set_new(by, sr_decider_name(i), tally_json(&ps->by[i]));
	for (int i = 0; i < SR_REL_NR; i++)
		json_object_set_new(rel, sr_relation_name(i), json_integer((json_int_t)ps->miss_rel[i]));
	for (int i = 0; i < SR_NR_DEPS; i++)
		if (ps->dep[i])
			json_object_set_new(dep, sr_dep_name(1u << i),
					    json_integer((json_int_t)ps->dep[i]));
	return json_pack("{s:s, s:s?, s:o, s:o, s:o, s:b, s:o, s:o, s:{s:I, s:I, s:o}, s:I, s:I,"
			 " s:o, s:o, s:o, s:o}",
			 "policy", pol->name, "kernel_range", pol->kernel_range,
			 "all", tally_json(&ps->any), "all_moved", tally_json(&ps->any_moved),
			 "always_prev", tally_json(&ps->prev), "below_always_prev", below_prev(ps),
			 "determined", tally_json(&ps->all), "moved", tally_json(&ps->moved),
			 "undetermined", "count", (json_int_t)ps->undetermined,
			 "either_answer_matches", (json_int_t)ps->undet_match_either,
			 "depends_on", dep,
			 "model_errors", (json_int_t)ps->failed,
			 "not_fair_class", (json_int_t)ps->not_fair,
			 "by_step", by, "misses_by_relation", rel,
			 "fork", apart_json(&ps->fork), "exec", apart_json(&ps->exec));
}

static int div_report(struct sr_analysis *a, json_t *report)
{
	const struct sr_view *v = a->view;
	struct divergence *d = a->data;
	json_t *pols = json_array();

	if (!pols)
		return -ENOMEM;
	for (int i = 0; i < d->nr; i++)
		json_array_append_new(pols, policy_json(&v->policy[i], &d->p[i]));
	return json_object_set_new(report, "divergence",
				   json_pack("{s:o, s:o}", "policy_choice",
					     sr_json_str(v->policy_note),	/* names the trace's kernel */
					     "policies", pols)) ? -ENOMEM : 0;
}

/* A column of the table: "-" when there was nothing to count. */
static void print_ratio(FILE *f, const struct tally *t)
{
	if (t->match + t->miss)
		fprintf(f, " %8.1f%%", ratio(t));
	else
		fprintf(f, " %9s", "-");
}

/* Per policy: how often it picks the kernel's CPU, and what keeps the rest open. */
static void div_print(struct sr_analysis *a, FILE *f)
{
	const struct sr_view *v = a->view;
	struct divergence *d = a->data;

	if (!d->nr)
		return;
	fprintf(f, "\nAgreement with the kernel's choice (placed wakeups):\n");
	fprintf(f, "  %-34s %9s %9s %9s %13s %9s %9s\n", "policy", "all", "moved", "determined",
		"undetermined", "forks", "execs");
	for (int i = 0; i < d->nr; i++) {
		const struct pol_stats *ps = &d->p[i];
		int top = top_dep(ps);

		fprintf(f, "  %-34s %8.1f%% %8.1f%% %8.1f%% %13" PRIu64, v->policy[i].name,
			ratio(&ps->any), ratio(&ps->any_moved), ratio(&ps->all), ps->undetermined);
		print_ratio(f, &ps->fork.any);
		print_ratio(f, &ps->exec.any);
		fputc('\n', f);
		if (top >= 0)
			fprintf(f, "  %-34s undetermined mostly by %s (%" PRIu64 ")\n", "",
				sr_dep_name(1u << top), ps->dep[top]);
		if (below_prev(ps))
			fprintf(f, "  %-34s below 'always prev' (%.1f%%): the kernel decided with "
				"something this model lacks;\n  %-34s its explanations of this trace "
				"are not the kernel's reasons\n", "", ratio(&ps->prev), "");
	}
}

static void div_fini(struct sr_analysis *a)
{
	struct divergence *d = a->data;

	if (!d)
		return;
	free(d->p);
	free(d);
}

const struct sr_analysis_ops sr_divergence_analysis = {
	.name = "divergence",
	.help = "per policy: placed wakeups matched, missed, undetermined",
	.init = div_init,
	.wakeup = div_wakeup,
	.report = div_report,
	.print = div_print,
	.fini = div_fini,
};
