// SPDX-License-Identifier: GPL-2.0
/*
 * One trace of a batch into its partition of the dataset (docs/batch.md):
 * the report, a row of the traces table, and its rows of the wakeups and
 * decisions tables, each under kernel=RELEASE/ and named by the trace's id.
 *
 * Everything is written under _tmp/ID/ and renamed into place, then the
 * ledger _batch/ID.json is written last: a trace is done exactly when its
 * ledger says so, and an interrupted batch leaves nothing half-visible.
 */
#define _GNU_SOURCE		/* asprintf */
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "batch.h"
#include "policy.h"

/* The tables each trace adds rows to, and what its temporary files are called. */
static const char *const tables[] = { "traces", "wakeups", "decisions" };
static const char *const tmp_names[] = {
	"traces.ndjson.gz", "wakeups.ndjson.gz", "decisions.ndjson.gz", "report.json", "ledger.json",
};

/* One run of a trace and what is known of its file. */
struct job {
	const struct sr_batch *b;
	const struct sr_batch_item *it;
	char sha[65];			/* "" when the file could not be read */
	int64_t size;			/* -1 unknown */
	struct sr_run *r;		/* NULL unless opened */
	json_t *report;
};

const char *sr_batch_status_name(enum sr_batch_status s)
{
	static const char *const names[SR_B_NR] = { "ok", "refused", "failed" };

	return (unsigned int)s < SR_B_NR ? names[s] : "invalid";
}

static void path_of(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void path_of(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int make_dir(const char *path)
{
	return mkdir(path, 0777) && errno != EEXIST ? -errno : 0;
}

int sr_batch_prepare(struct sr_batch *b, struct sr_err *err)
{
	static const char *const subdirs[] = { "", "/_batch", "/_tmp", "/reports", "/traces",
					       "/wakeups", "/decisions" };
	char p[4096];

	for (size_t i = 0; i < SR_ARRAY_SIZE(subdirs); i++) {
		int ret;

		path_of(p, sizeof(p), "%s%s", b->dir, subdirs[i]);
		ret = make_dir(p);
		if (ret)
			return sr_err_set(err, ret, "%s: %s", p, strerror(-ret));
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * Its list line's topology, else --topology, else the snapshot `record`
 * saves beside a trace (TRACE.machine/), else a machine/ folder in the
 * trace's folder (the QEMU fixtures' layout); "" for none: assumed flat.
 */
static void find_topology(const struct sr_batch *b, struct sr_batch_item *it)
{
	char dir[4096], *parent;

	it->topo_used[0] = '\0';
	if (it->topology) {
		if (strcmp(it->topology, "-"))
			path_of(it->topo_used, sizeof(it->topo_used), "%s", it->topology);
		return;
	}
	if (b->topology) {
		path_of(it->topo_used, sizeof(it->topo_used), "%s", b->topology);
		return;
	}
	path_of(it->topo_used, sizeof(it->topo_used), "%s.machine", it->path);
	if (is_dir(it->topo_used))
		return;
	path_of(dir, sizeof(dir), "%s", it->path);
	parent = dirname(dir);
	path_of(it->topo_used, sizeof(it->topo_used), "%s/machine", parent);
	if (!is_dir(it->topo_used))
		it->topo_used[0] = '\0';
}

void sr_batch_item_init(const struct sr_batch *b, struct sr_batch_item *it)
{
	char hex[65], *key;

	find_topology(b, it);
	sr_sha256_str(it->path, hex);
	memcpy(it->id, hex, 16);
	it->id[16] = '\0';
	if (asprintf(&key, "%s\n%s\n%s\n%s", SR_VERSION, b->options, it->topo_used,
		     it->path) < 0) {
		it->key[0] = '\0';	/* never matches: the trace is simply redone */
		return;
	}
	sr_sha256_str(key, it->key);
	free(key);
}

/* ------------------------------------------------------------ ledger */

static json_t *ledger_load(const struct sr_batch *b, const char *id)
{
	char p[4096];

	path_of(p, sizeof(p), "%s/_batch/%s.json", b->dir, id);
	return json_load_file(p, 0, NULL);
}

static const char *ledger_str(const json_t *l, const char *k)
{
	const char *s = json_string_value(json_object_get(l, k));

	return s ? s : "";
}

/* The file's size and modification time, -1 when it cannot be read. */
static void file_stamp(const char *path, int64_t *size, int64_t *mtime_ns)
{
	struct stat st;

	*size = *mtime_ns = -1;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	*size = st.st_size;
	*mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static void result_from(const json_t *l, struct sr_batch_result *res)
{
	const char *status = ledger_str(l, "status");

	res->status = SR_B_FAILED;
	for (int s = 0; s < SR_B_NR; s++)
		if (!strcmp(status, sr_batch_status_name(s)))
			res->status = s;
	path_of(res->message, sizeof(res->message), "%s", ledger_str(l, "message"));
	res->events = (uint64_t)json_integer_value(json_object_get(l, "events"));
}

bool sr_batch_done(const struct sr_batch *b, const struct sr_batch_item *it,
		   struct sr_batch_result *res)
{
	json_t *l = ledger_load(b, it->id);
	int64_t size, mtime;
	bool done;

	file_stamp(it->path, &size, &mtime);
	/* a file that could not be read is tried again: it may be there now */
	done = l && size >= 0 && !strcmp(ledger_str(l, "key"), it->key) &&
	       strcmp(ledger_str(l, "status"), "failed") &&
	       json_integer_value(json_object_get(l, "size")) == size &&
	       json_integer_value(json_object_get(l, "mtime_ns")) == mtime;
	if (done)
		result_from(l, res);
	json_decref(l);
	return done;
}

/* ------------------------------------------------------------ rows */

/* "Linux HOST RELEASE ..." (the trace's uname) -> HOST. */
static json_t *host_of(const char *uname)
{
	const char *h = strchr(uname, ' '), *end;

	if (!h || !*++h)
		return json_null();
	end = strchr(h, ' ');
	return json_stringn(h, end ? (size_t)(end - h) : strlen(h));
}

/* "16cpu-2node-4llc-smt2": what queries group by. */
static json_t *topo_summary(const struct sr_topo *t)
{
	int llcs = 0;

	for (int c = 0; c < t->nr_cpus; c++)
		llcs += t->cpu[c].llc_id == c;
	return json_sprintf("%dcpu-%dnode-%dllc-smt%d", t->nr_cpus, t->nr_nodes, llcs,
			    t->smt_max);
}

/* Knobs of @p that differ from its preset's (a --policy override or the snapshot's). */
static void knob_changes(const struct sr_policy *p, char *buf, size_t len)
{
	const struct sr_preset *pre = sr_preset_find(p->name);
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; pre && i < sr_knob_count(); i++) {
		const struct sr_knob_desc *k = sr_knob_at(i);
		int64_t v, was;

		if (!sr_knob_applies(k, p->knobs.kver) || sr_knob_get(&p->knobs, k, &v) ||
		    sr_knob_get(&pre->knobs, k, &was) || v == was || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%lld", used ? "," : "",
					 k->name, (long long)v);
	}
}

/*
 * "linux-6.1,linux-6.12", and the knobs that differ from each preset:
 * "linux-6.1:SIS_UTIL=0;linux-6.12:" (empty after the colon: the preset's).
 */
static void policies_of(const struct sr_run *r, json_t **names, json_t **knobs)
{
	char n[1024] = "", k[4096] = "", one[1024];

	for (int i = 0; i < r->nr_policies; i++) {
		knob_changes(&r->policy[i], one, sizeof(one));
		snprintf(n + strlen(n), sizeof(n) - strlen(n), "%s%s", i ? "," : "",
			 r->policy[i].name);
		snprintf(k + strlen(k), sizeof(k) - strlen(k), "%s%s:%s", i ? ";" : "",
			 r->policy[i].name, one);
	}
	*names = json_string(r->nr_policies ? n : "none");
	*knobs = json_string(k);
}

/* The columns every row of this trace starts with; what the run knows is null without it. */
static json_t *identity(const struct job *j)
{
	const struct sr_run *r = j->r;
	json_t *names = json_null(), *knobs = json_null();

	if (r)
		policies_of(r, &names, &knobs);
	return json_pack("{s:s, s:s, s:s?, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:s}",
		"trace_id", j->it->id, "path", j->it->path,
		"content_sha256", j->sha[0] ? j->sha : NULL,
		"host", r ? host_of(r->info->uname) : json_null(),
		"kernel_release", r && r->info->release[0] ? json_string(r->info->release)
							   : json_null(),
		"cpus", r ? json_integer(r->info->nr_cpus) : json_null(),
		"topology", r ? topo_summary(&r->topo) : json_null(),
		"tool_version", SR_VERSION, "policies", names, "knobs", knobs,
		"options", j->b->options);
}

/* Per-trace numbers of the traces table: column, where the report has it. */
static const char *const summary_cols[][2] = {
	{ "duration_ns", "trace/span/duration_ns" },
	{ "wakeups_placed", "wakeups/placed" }, { "wakeups_runnable", "wakeups/runnable" },
	{ "wakeups_unknown", "wakeups/unknown" }, { "wakeups_unpaired", "wakeups/unpaired" },
	{ "forks", "wakeups/wakeup_new" },
	{ "actual_prev", "wakeups/actual/prev" }, { "actual_waker", "wakeups/actual/waker" },
	{ "actual_other", "wakeups/actual/other" },
	{ "cache_hot", "cache_hot/placed_hot" }, { "affine_hot", "cache_hot/affine_hot" },
	{ "lost_events", "trace/lost_events/total" },
	{ "latency_p50_ns", "latency/all/any/p50_ns" },
	{ "latency_p99_ns", "latency/all/any/p99_ns" },
	{ "latency_max_ns", "latency/all/any/max_ns" },
	/* the first policy's (the recorded kernel's preset unless --policy says) */
	{ "agreement", "divergence/policies/0/all/match_ratio" },
	{ "below_always_prev", "divergence/policies/0/below_always_prev" },
};

/* The value at "a/b/c" of @o (a number indexes an array), a new reference; null when absent. */
static json_t *at(const json_t *o, const char *path)
{
	char key[64];

	while (o && *path) {
		size_t n = strcspn(path, "/");

		path_of(key, sizeof(key), "%.*s", (int)n, path);
		o = json_is_array(o) ? json_array_get(o, strtoul(key, NULL, 10)) :
				       json_object_get(o, key);
		path += n + (path[n] == '/');
	}
	return o ? json_incref((json_t *)o) : json_null();
}

static json_int_t events_total(const json_t *rep)
{
	json_int_t n = 0;
	const char *k;
	json_t *v;

	json_object_foreach(json_object_get(json_object_get(rep, "trace"), "events"), k, v)
		n += json_integer_value(v);
	return n;
}

static json_t *trace_row(const struct job *j, const struct sr_batch_result *res)
{
	const json_t *rep = j->report;
	json_t *row = identity(j);
	char report[64];

	path_of(report, sizeof(report), "reports/%s.json", j->it->id);
	if (!row || json_object_update_new(row, json_pack("{s:o, s:o, s:s?, s:s, s:s, s:s?, s:o}",
			"size_bytes", j->size >= 0 ? json_integer(j->size) : json_null(),
			"topology_source", j->r ? json_string(sr_topo_source_name(j->r->topo.source))
						: json_null(),
			"topology_given", j->it->topo_used[0] ? j->it->topo_used : NULL,
			"status", sr_batch_status_name(res->status),
			/* "" rather than null when ok: a column almost always null would
			 * leave schema inference without a type */
			"message", res->status == SR_B_OK ? "" : res->message,
			"report", rep ? report : NULL,
			"events", rep ? json_integer(events_total(rep)) : json_null()))) {
		json_decref(row);
		return NULL;
	}
	for (size_t i = 0; i < SR_ARRAY_SIZE(summary_cols); i++)
		json_object_set_new(row, summary_cols[i][0],
				    rep ? at(rep, summary_cols[i][1]) : json_null());
	json_object_set_new(row, "warnings", rep ? json_integer((json_int_t)json_array_size(
					json_object_get(rep, "warnings"))) : json_null());
	return row;
}

/* ------------------------------------------------------------ files */

static void tmp_path(const struct sr_batch *b, const char *id, const char *name, char *buf,
		     size_t len)
{
	path_of(buf, len, "%s/_tmp/%s/%s", b->dir, id, name);
}

static void clear_tmp(const struct sr_batch *b, const char *id)
{
	char p[4096];

	for (size_t i = 0; i < SR_ARRAY_SIZE(tmp_names); i++) {
		tmp_path(b, id, tmp_names[i], p, sizeof(p));
		unlink(p);
	}
	path_of(p, sizeof(p), "%s/_tmp/%s", b->dir, id);
	rmdir(p);
}

/* kernel=RELEASE, with anything a folder name should not hold replaced. */
static void partition_of(const struct job *j, char *buf, size_t len)
{
	const char *rel = j->r ? j->r->info->release : "";

	path_of(buf, len, "kernel=%s", rel[0] ? rel : "unknown");
	for (char *p = buf + strlen("kernel="); *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *p))
			*p = '_';
}

static bool gz_empty(const char *path)
{
	gzFile f = gzopen(path, "rb");
	int c = f ? gzgetc(f) : -1;

	if (f)
		gzclose(f);
	return c == -1;
}

/* Rename a temporary file to DIR/@rel; 0 or -errno. */
static int place(const struct job *j, const char *tmp, const char *rel, json_t *files)
{
	char to[4096], *slash;
	int ret;

	path_of(to, sizeof(to), "%s/%s", j->b->dir, rel);
	slash = strrchr(to, '/');
	*slash = '\0';
	ret = make_dir(to);
	*slash = '/';
	if (!ret && rename(tmp, to))
		ret = -errno;
	if (!ret)
		json_array_append_new(files, json_string(rel));
	return ret;
}

/* What the previous ledger listed and this run did not write again. */
static void remove_stale(const struct job *j, const json_t *files)
{
	json_t *old = ledger_load(j->b, j->it->id), *f, *g;
	size_t i, k;
	char p[4096];

	json_array_foreach(json_object_get(old, "files"), i, f) {
		bool kept = false;

		json_array_foreach(files, k, g)
			kept |= json_equal(f, g);
		if (!kept && json_string_value(f)) {
			path_of(p, sizeof(p), "%s/%s", j->b->dir, json_string_value(f));
			unlink(p);
		}
	}
	json_decref(old);
}

static int write_ledger(const struct job *j, const struct sr_batch_result *res, json_t *files,
			int64_t mtime)
{
	char tmp[4096], to[4096];
	json_t *l = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:O}",
		"path", j->it->path, "id", j->it->id, "key", j->it->key,
		"status", sr_batch_status_name(res->status), "message", res->message,
		"events", (json_int_t)res->events, "size", (json_int_t)j->size,
		"mtime_ns", (json_int_t)mtime, "files", files);
	int ret;

	tmp_path(j->b, j->it->id, "ledger.json", tmp, sizeof(tmp));
	path_of(to, sizeof(to), "%s/_batch/%s.json", j->b->dir, j->it->id);
	ret = !l || json_dump_file(l, tmp, JSON_INDENT(2)) ? -EIO : 0;
	if (!ret && rename(tmp, to))
		ret = -errno;
	json_decref(l);
	return ret;
}

/*
 * The trace's row, then its files into place (the wakeups and decisions of
 * a trace that was analysed, when it had any), then the ledger.
 */
static int publish(const struct job *j, const struct sr_batch_result *res, int64_t mtime)
{
	json_t *files = json_array(), *row = trace_row(j, res);
	char part[320], tmp[4096], rel[512];
	struct sr_ndjson w;
	int ret = files && row ? 0 : -ENOMEM;

	partition_of(j, part, sizeof(part));
	path_of(tmp, sizeof(tmp), "%s/_tmp/%s", j->b->dir, j->it->id);
	if (!ret)
		ret = make_dir(tmp);
	tmp_path(j->b, j->it->id, tmp_names[0], tmp, sizeof(tmp));
	if (!ret)
		ret = sr_ndjson_open(&w, tmp);
	if (!ret) {
		sr_ndjson_write(&w, row);
		ret = sr_ndjson_close(&w);
	}
	for (size_t t = 0; !ret && t < SR_ARRAY_SIZE(tables); t++) {
		tmp_path(j->b, j->it->id, tmp_names[t], tmp, sizeof(tmp));
		if (t && (res->status != SR_B_OK || gz_empty(tmp)))
			continue;
		path_of(rel, sizeof(rel), "%s/%s/%s.ndjson.gz", tables[t], part, j->it->id);
		ret = place(j, tmp, rel, files);
	}
	if (!ret && res->status == SR_B_OK) {
		tmp_path(j->b, j->it->id, "report.json", tmp, sizeof(tmp));
		path_of(rel, sizeof(rel), "reports/%s.json", j->it->id);
		ret = place(j, tmp, rel, files);
	}
	if (!ret) {
		remove_stale(j, files);
		ret = write_ledger(j, res, files, mtime);
	}
	json_decref(row);
	json_decref(files);
	return ret;
}

/* ------------------------------------------------------------ one run */

static void set_result(struct sr_batch_result *res, int ret, const struct sr_err *err)
{
	res->status = sr_cli_exit_for(ret) == SR_EXIT_FAIL ? SR_B_FAILED : SR_B_REFUSED;
	path_of(res->message, sizeof(res->message), "%s", err->msg[0] ? err->msg : strerror(-ret));
}

static int write_report(const struct job *j)
{
	char p[4096];
	FILE *f;
	int ret = 0;

	tmp_path(j->b, j->it->id, "report.json", p, sizeof(p));
	f = fopen(p, "w");
	if (!f)
		return -errno;
	if (json_dumpf(j->report, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
	    fputc('\n', f) == EOF)
		ret = -EIO;
	if (fclose(f))
		ret = -EIO;
	return ret;
}

/* The pass itself; afterwards j->r is the open run (NULL when it could not be opened). */
static void run_trace(struct job *j, struct sr_rows_opts *rows, struct sr_batch_result *res)
{
	struct sr_run_opts o = j->b->run;
	struct sr_err err = { "" };
	int ret;

	o.path = j->it->path;
	o.topology = j->it->topo_used[0] ? j->it->topo_used : NULL;
	o.an.mode = SR_MODE_ANALYZE;
	o.an.rows = rows;
	j->r = calloc(1, sizeof(*j->r));
	ret = j->r ? sr_run_open(j->r, &o, &err) : sr_err_set(&err, -ENOMEM, "out of memory");
	if (ret) {
		if (j->r)
			sr_run_close(j->r);
		free(j->r);
		j->r = NULL;
		set_result(res, ret, &err);
		return;
	}
	json_object_update_new(rows->identity, identity(j));
	ret = sr_run_exec(j->r, &err);
	if (!ret) {
		j->report = sr_run_report(j->r);
		ret = j->report ? write_report(j) : sr_err_set(&err, -EIO, "cannot build the report "
							       "or write the tables");
	}
	if (ret) {
		set_result(res, ret, &err);
		return;
	}
	res->status = SR_B_OK;
	res->events = (uint64_t)events_total(j->report);
}

int sr_batch_trace(const struct sr_batch *b, const struct sr_batch_item *it,
		   struct sr_batch_result *res)
{
	struct job j = { .b = b, .it = it };
	char wakeups[4096], decisions[4096], dir[4096];
	struct sr_rows_opts rows = { .wakeups = wakeups, .decisions = decisions };
	int64_t mtime;
	uint64_t size;
	int ret;

	*res = (struct sr_batch_result){ .status = SR_B_FAILED };
	clear_tmp(b, it->id);
	path_of(dir, sizeof(dir), "%s/_tmp/%s", b->dir, it->id);
	ret = make_dir(dir);
	if (ret)
		return ret;
	tmp_path(b, it->id, tmp_names[1], wakeups, sizeof(wakeups));
	tmp_path(b, it->id, tmp_names[2], decisions, sizeof(decisions));
	file_stamp(it->path, &j.size, &mtime);
	ret = sr_sha256_file(it->path, j.sha, &size);
	if (ret) {
		res->status = SR_B_REFUSED;
		path_of(res->message, sizeof(res->message), "%s: %s", it->path, strerror(-ret));
		j.sha[0] = '\0';
	} else {
		rows.identity = json_object();
		run_trace(&j, &rows, res);
	}
	ret = publish(&j, res, mtime);
	json_decref(j.report);
	if (j.r)
		sr_run_close(j.r);
	free(j.r);
	json_decref(rows.identity);
	clear_tmp(b, it->id);
	return ret;
}

void sr_batch_collect(const struct sr_batch *b, const struct sr_batch_item *it,
		      const char *why, struct sr_batch_result *res)
{
	struct job j = { .b = b, .it = it };
	int64_t mtime;

	if (!why) {
		json_t *l = ledger_load(b, it->id);
		bool ok = l && !strcmp(ledger_str(l, "key"), it->key);

		if (ok)
			result_from(l, res);
		json_decref(l);
		if (ok)
			return;
		why = "ended without recording its outcome";
	}
	*res = (struct sr_batch_result){ .status = SR_B_FAILED };
	path_of(res->message, sizeof(res->message), "%s", why);
	file_stamp(it->path, &j.size, &mtime);
	path_of(j.sha, sizeof(j.sha), "%s", "");
	if (publish(&j, res, mtime))
		path_of(res->message, sizeof(res->message), "%s (and its outcome could not be "
			"recorded in %s)", why, b->dir);
	clear_tmp(b, it->id);
}
