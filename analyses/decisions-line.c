// SPDX-License-Identifier: GPL-2.0
/*
 * One decisions line, written by yajl's generator (a JSON library that
 * streams tokens into its buffer: no tree per line, no dump pass), key by
 * key in the order the schema lists them.  The line is the bytes jansson
 * wrote for the same values (compact separators, the same string escapes,
 * integers in decimal): tests/golden and run-threads.sh hold it to that.
 */
#include <stdlib.h>
#include "decisions-line.h"

static const char *const flag_names[] = {
	"cache_hot", "uncertain", "lost_events", "standalone", "migrated", "prev_idle",
	"chosen_idle", "chosen_inferred",
};

int sr_dline_init(struct dline *l, const struct sr_view *v, struct sr_ndjson *out)
{
	*l = (struct dline){ .nr_pol = v->nr_policies, .policy = v->policy, .out = out };
	l->g = yajl_gen_alloc(NULL);
	if (!l->g)
		return -ENOMEM;
	/* no buffer of yajl's own: each piece goes to the writer's stage */
	return yajl_gen_config(l->g, yajl_gen_print_callback, sr_ndjson_put, out) ? 0 : -EINVAL;
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

static int str(yajl_gen g, const char *s)
{
	return yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

/* A key written as a literal: its length known to the compiler. */
#define KEY(g, lit)	yajl_gen_string((g), (const unsigned char *)(lit), sizeof(lit) - 1)

/*
 * Decimal digits of @v, right-aligned in @end's buffer; returns the first.
 * yajl_gen_integer() formats through sprintf(), the largest cost of a line
 * after the strings; yajl_gen_number() takes the digits as they are.
 */
static char *digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

static int num(yajl_gen g, long long v)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	p = digits(end, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--p = '-';
	return yajl_gen_number(g, p, (size_t)(end - p));
}

static int key_str(yajl_gen g, const char *key, size_t klen, const char *val)
{
	return yajl_gen_string(g, (const unsigned char *)key, klen) | str(g, val);
}

static int key_int(yajl_gen g, const char *key, size_t klen, long long v)
{
	return yajl_gen_string(g, (const unsigned char *)key, klen) | num(g, v);
}

/* An integer, or null when negative. */
static int key_opt(yajl_gen g, const char *key, size_t klen, long long v)
{
	return yajl_gen_string(g, (const unsigned char *)key, klen) |
	       (v < 0 ? (int)yajl_gen_null(g) : num(g, v));
}

static int key_bool(yajl_gen g, const char *key, size_t klen, bool v)
{
	return yajl_gen_string(g, (const unsigned char *)key, klen) | yajl_gen_bool(g, v);
}

#define KSTR(g, k, v)	key_str((g), (k), sizeof(k) - 1, (v))
#define KINT(g, k, v)	key_int((g), (k), sizeof(k) - 1, (v))
#define KOPT(g, k, v)	key_opt((g), (k), sizeof(k) - 1, (v))
#define KBOOL(g, k, v)	key_bool((g), (k), sizeof(k) - 1, (v))

/* "seconds.nanoseconds", as sr_an_fmt_time() prints it */
static int time_str(yajl_gen g, uint64_t ns)
{
	char buf[32], *end = buf + sizeof(buf), *p = end;

	for (int i = 0; i < 9; i++, ns /= 10)
		*--p = (char)('0' + ns % 10);
	*--p = '.';
	p = digits(p, ns);
	return yajl_gen_string(g, (const unsigned char *)p, (size_t)(end - p));
}

static int gen_policy(yajl_gen g, const struct sr_policy *pol, const struct sr_brief *b)
{
	int ret = yajl_gen_map_open(g);

	ret |= KSTR(g, "policy", pol->name);
	ret |= KOPT(g, "cpu", b->cpu);
	ret |= KBOOL(g, "sync_assumed", b->sync_assumed);
	ret |= KOPT(g, "cpu_other_sync", b->alt_cpu != b->cpu ? b->alt_cpu : -1);
	ret |= KBOOL(g, "determined", b->determined);
	ret |= KSTR(g, "decided_by", sr_decider_name(b->decided_by));
	ret |= KEY(g, "depends_on") | yajl_gen_array_open(g);
	for (int bit = 0; bit < SR_NR_DEPS; bit++)
		if (b->depends & (1u << bit))
			ret |= str(g, sr_dep_name(1u << bit));
	return ret | yajl_gen_array_close(g) | yajl_gen_map_close(g);
}

static int gen_head(yajl_gen g, const struct held *h)
{
	char fixed[SR_TEXT_SIZE(SR_COMM_LEN)];
	const char *comm = h->comm;
	int ret = yajl_gen_map_open(g);

	if (!sr_utf8_valid(h->comm)) {
		sr_utf8_repair(h->comm, fixed, sizeof(fixed), false);
		comm = fixed;
	}
	ret |= KSTR(g, "schema", "schedreplay-decision/1");
	ret |= KSTR(g, "kind", sr_wake_kind_name(h->kind));
	ret |= KINT(g, "wakeup", (long long)h->index);
	ret |= KINT(g, "ts_ns", (long long)h->ts);
	ret |= KEY(g, "time") | time_str(g, h->ts);
	ret |= KINT(g, "pid", h->pid);
	ret |= KSTR(g, "comm", comm);
	ret |= KINT(g, "waker_pid", h->waker_pid);
	ret |= KINT(g, "waker_cpu", h->waker_cpu);
	ret |= KINT(g, "prev_cpu", h->prev_cpu);
	ret |= KINT(g, "cpu", h->cpu);
	ret |= KSTR(g, "actual", h->actual);
	ret |= KEY(g, "relation") | yajl_gen_map_open(g);
	ret |= KSTR(g, "chosen_prev", h->rel[0]);
	ret |= KSTR(g, "chosen_waker", h->rel[1]);
	ret |= KSTR(g, "prev_waker", h->rel[2]);
	ret |= yajl_gen_map_close(g);
	ret |= KOPT(g, "wait_ns", h->wait_ns);
	return ret | KOPT(g, "ran_on", h->ran_on);
}

int sr_dline_render(struct dline *l, const struct held *h)
{
	yajl_gen g = l->g;
	int ret;

	yajl_gen_reset(g, NULL);
	ret = gen_head(g, h);
	ret |= KEY(g, "flags") | yajl_gen_array_open(g);
	for (unsigned int i = 0; i < SR_ARRAY_SIZE(flag_names); i++)
		if (h->flags & (1u << i))
			ret |= str(g, flag_names[i]);
	ret |= yajl_gen_array_close(g);
	ret |= KEY(g, "policies") | yajl_gen_array_open(g);
	for (int i = 0; i < h->nr_dec && i < l->nr_pol; i++)
		ret |= gen_policy(g, &l->policy[i], &h->dec[i]);
	ret |= yajl_gen_array_close(g) | yajl_gen_map_close(g);
	if (ret != yajl_gen_status_ok)
		return -ENOMEM;
	return sr_ndjson_end_line(l->out);
}

void sr_dline_free(struct dline *l)
{
	if (l->g)
		yajl_gen_free(l->g);
	l->g = NULL;
}
