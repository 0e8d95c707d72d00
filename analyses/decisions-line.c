// SPDX-License-Identifier: GPL-2.0
/*
 * One decisions line, rendered through a jansson tree built once: each
 * line sets integers in place, swaps shared string and null values at
 * iterators kept from the build, and refills the two arrays with shared
 * strings.  No object is allocated per line (the comm and time strings
 * are copied), and jansson keeps the keys in the order they were built,
 * so every line reads as json_pack() wrote it.
 */
#include <stdlib.h>
#include "decisions-line.h"

static const char *const flag_names[] = {
	"cache_hot", "uncertain", "lost_events", "standalone", "migrated", "prev_idle",
	"chosen_idle", "chosen_inferred",
};

/* A shared JSON string for a constant C string, found by its address. */
static json_t *str(struct dline *l, const char *s)
{
	for (int i = 0; i < l->nr_str; i++)
		if (l->str_key[i] == s)
			return l->str_val[i];
	if (l->nr_str == DL_STRS)
		return NULL;
	l->str_key[l->nr_str] = s;
	l->str_val[l->nr_str] = json_string(s);
	return l->str_val[l->nr_str++];
}

/* Add @key to @o with a value kept by the caller (*keep) and return its iterator. */
static void *add(json_t *o, const char *key, json_t *val, json_t **keep)
{
	if (!val || json_object_set(o, key, val))
		return NULL;
	if (keep)
		*keep = val;
	json_decref(val);	/* the object holds it; *keep borrows */
	return json_object_iter_at(o, key);
}

static int pol_init(struct dl_pol *p, const struct sr_policy *pol)
{
	p->obj = json_object();
	if (!p->obj || !add(p->obj, "policy", json_string(pol->name), NULL))
		return -ENOMEM;
	p->cpu = json_integer(0);
	p->alt = json_integer(0);
	p->it_cpu = add(p->obj, "cpu", json_null(), NULL);
	p->it_sync = add(p->obj, "sync_assumed", json_false(), NULL);
	p->it_alt = add(p->obj, "cpu_other_sync", json_null(), NULL);
	p->it_det = add(p->obj, "determined", json_false(), NULL);
	p->it_by = add(p->obj, "decided_by", json_string(""), NULL);
	if (!p->cpu || !p->alt || !p->it_cpu || !p->it_sync || !p->it_alt || !p->it_det ||
	    !p->it_by || !add(p->obj, "depends_on", json_array(), &p->deps))
		return -ENOMEM;
	return 0;
}

static int root_init(struct dline *l)
{
	json_t *o = l->root = json_object();
	void *ok;

	if (!o)
		return -ENOMEM;
	ok = add(o, "schema", json_string("schedreplay-decision/1"), NULL);
	l->it_kind = add(o, "kind", json_string("wakeup"), NULL);
	ok = add(o, "wakeup", json_integer(0), &l->index) ? ok : NULL;
	ok = add(o, "ts_ns", json_integer(0), &l->ts) ? ok : NULL;
	ok = add(o, "time", json_string(""), &l->time) ? ok : NULL;
	ok = add(o, "pid", json_integer(0), &l->pid) ? ok : NULL;
	ok = add(o, "comm", json_string(""), &l->comm) ? ok : NULL;
	ok = add(o, "waker_pid", json_integer(0), &l->waker_pid) ? ok : NULL;
	ok = add(o, "waker_cpu", json_integer(0), &l->waker_cpu) ? ok : NULL;
	ok = add(o, "prev_cpu", json_integer(0), &l->prev_cpu) ? ok : NULL;
	ok = add(o, "cpu", json_integer(0), &l->cpu) ? ok : NULL;
	l->it_actual = add(o, "actual", json_string(""), NULL);
	ok = add(o, "relation", json_object(), &l->rel) ? ok : NULL;
	l->it_wait = add(o, "wait_ns", json_null(), NULL);
	l->it_ran_on = add(o, "ran_on", json_null(), NULL);
	ok = add(o, "flags", json_array(), &l->flags) ? ok : NULL;
	if (!ok || !l->it_kind || !l->it_actual || !l->it_wait || !l->it_ran_on)
		return -ENOMEM;
	l->it_rel[0] = add(l->rel, "chosen_prev", json_string(""), NULL);
	l->it_rel[1] = add(l->rel, "chosen_waker", json_string(""), NULL);
	l->it_rel[2] = add(l->rel, "prev_waker", json_string(""), NULL);
	l->wait = json_integer(0);
	l->ran_on = json_integer(0);
	if (!l->it_rel[0] || !l->it_rel[1] || !l->it_rel[2] || !l->wait || !l->ran_on)
		return -ENOMEM;
	return 0;
}

int sr_dline_init(struct dline *l, const struct sr_view *v)
{
	*l = (struct dline){ .nr_pol = v->nr_policies };
	if (root_init(l))
		return -ENOMEM;
	l->pol = calloc(l->nr_pol ? (size_t)l->nr_pol : 1, sizeof(*l->pol));
	if (!l->pol || !add(l->root, "policies", json_array(), &l->pols))
		return -ENOMEM;
	for (int i = 0; i < l->nr_pol; i++)
		if (pol_init(&l->pol[i], &v->policy[i]))
			return -ENOMEM;
	return 0;
}

static unsigned int flag_bits(const struct sr_wakeup *w)
{
	/* an inferred CPU is uncertain when the task may have moved unseen */
	return (unsigned int)w->hot << 0 |
	       (unsigned int)(w->uncertain && w->chosen_inferred) << 1 |
	       (unsigned int)(w->uncertain && !w->chosen_inferred) << 2 |
	       (unsigned int)(!w->paired && w->kind == SR_WAKE_TTWU) << 3 |
	       (unsigned int)(w->nr_migrations != 0) << 4 |
	       (unsigned int)w->prev_idle << 5 | (unsigned int)w->target_idle << 6 |
	       (unsigned int)w->chosen_inferred << 7;
}

void sr_dline_hold(struct held *h, const struct sr_wakeup *w, const struct sr_view *v)
{
	const struct sr_topo *t = v->topo;

	h->live = true;
	h->kind = (uint8_t)w->kind;
	h->index = w->index;
	h->ts = w->ts;
	h->wait_ns = -1;
	h->ran_on = -1;
	h->waker_pid = w->waker_pid;
	h->waker_cpu = w->waker_cpu;
	h->prev_cpu = w->prev_cpu;
	h->cpu = w->cpu;
	if (w->kind == SR_WAKE_FORK)
		h->actual = w->cpu == w->waker_cpu ? "parent_cpu" : "other";
	else
		h->actual = sr_outcome_name(w->actual);
	h->rel[0] = sr_an_relation(t, w->cpu, w->prev_cpu);
	h->rel[1] = sr_an_relation(t, w->cpu, w->waker_cpu);
	h->rel[2] = sr_an_relation(t, w->prev_cpu, w->waker_cpu);
	h->flags = flag_bits(w);
	memcpy(h->comm, w->task->comm, sizeof(h->comm));
	h->nr_dec = w->nr_dec < v->nr_policies ? w->nr_dec : v->nr_policies;
	for (int i = 0; i < h->nr_dec; i++) {
		h->dec[i] = w->dec[i];
		/* a line's "determined" also needs the wakeup's CPUs certain */
		if (w->uncertain)
			h->dec[i].determined = false;
	}
}

/* An integer, or null when negative. */
static int set_opt(json_t *o, void *it, json_t *num, int64_t v)
{
	if (v < 0)
		return json_object_iter_set(o, it, json_null());
	json_integer_set(num, v);
	return json_object_iter_set(o, it, num);
}

static int set_arrays(struct dline *l, const struct held *h)
{
	int ret = json_array_clear(l->flags);

	for (unsigned int i = 0; i < SR_ARRAY_SIZE(flag_names); i++)
		if (h->flags & (1u << i))
			ret |= json_array_append(l->flags, str(l, flag_names[i]));
	for (int i = 0; i < h->nr_dec; i++) {
		ret |= json_array_clear(l->pol[i].deps);
		for (int bit = 0; bit < 16; bit++)
			if (h->dec[i].depends & (1u << bit))
				ret |= json_array_append(l->pol[i].deps,
							 str(l, sr_dep_name(1u << bit)));
	}
	return ret;
}

static int set_policies(struct dline *l, const struct held *h)
{
	int ret = json_array_clear(l->pols);

	for (int i = 0; i < h->nr_dec; i++) {
		const struct sr_brief *b = &h->dec[i];
		struct dl_pol *p = &l->pol[i];

		ret |= set_opt(p->obj, p->it_cpu, p->cpu, b->cpu);
		ret |= json_object_iter_set(p->obj, p->it_sync, json_boolean(b->sync_assumed));
		ret |= set_opt(p->obj, p->it_alt, p->alt, b->alt_cpu != b->cpu ? b->alt_cpu : -1);
		ret |= json_object_iter_set(p->obj, p->it_det, json_boolean(b->determined));
		ret |= json_object_iter_set(p->obj, p->it_by, str(l, sr_decider_name(b->decided_by)));
		ret |= json_array_append(l->pols, p->obj);
	}
	return ret;
}

static int set_strings(struct dline *l, const struct held *h)
{
	char when[32], fixed[SR_TEXT_SIZE(SR_COMM_LEN)];
	int ret;

	sr_an_fmt_time(h->ts, when, sizeof(when));
	ret = json_string_set_nocheck(l->time, when);
	if (sr_utf8_valid(h->comm))
		ret |= json_string_set_nocheck(l->comm, h->comm);
	else {
		sr_utf8_repair(h->comm, fixed, sizeof(fixed), false);
		ret |= json_string_set_nocheck(l->comm, fixed);
	}
	ret |= json_object_iter_set(l->root, l->it_kind, str(l, sr_wake_kind_name(h->kind)));
	ret |= json_object_iter_set(l->root, l->it_actual, str(l, h->actual));
	for (int i = 0; i < 3; i++)
		ret |= json_object_iter_set(l->rel, l->it_rel[i], str(l, h->rel[i]));
	return ret;
}

const json_t *sr_dline_render(struct dline *l, const struct held *h)
{
	int ret;

	json_integer_set(l->index, (json_int_t)h->index);
	json_integer_set(l->ts, (json_int_t)h->ts);
	json_integer_set(l->pid, h->pid);
	json_integer_set(l->waker_pid, h->waker_pid);
	json_integer_set(l->waker_cpu, h->waker_cpu);
	json_integer_set(l->prev_cpu, h->prev_cpu);
	json_integer_set(l->cpu, h->cpu);
	ret = set_opt(l->root, l->it_wait, l->wait, h->wait_ns);
	ret |= set_opt(l->root, l->it_ran_on, l->ran_on, h->ran_on);
	ret |= set_strings(l, h);
	ret |= set_arrays(l, h);
	ret |= set_policies(l, h);
	return ret ? NULL : l->root;
}

void sr_dline_free(struct dline *l)
{
	json_decref(l->root);
	json_decref(l->wait);
	json_decref(l->ran_on);
	for (int i = 0; l->pol && i < l->nr_pol; i++) {
		json_decref(l->pol[i].obj);
		json_decref(l->pol[i].cpu);
		json_decref(l->pol[i].alt);
	}
	free(l->pol);
	for (int i = 0; i < l->nr_str; i++)
		json_decref(l->str_val[i]);
}
