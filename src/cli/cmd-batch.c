// SPDX-License-Identifier: GPL-2.0
/*
 * schedreplay batch: many traces into one dataset (docs/batch.md).  Each
 * trace runs in its own process, N at a time, so a trace that crashes or
 * hangs costs only itself; a rerun skips what its ledger says is done.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "batch.h"

#define BATCH_OPTS (SR_O_RUN | SR_O_OUTPUT | SR_O_ANALYZE | SR_O_BATCH)

struct slot {
	pid_t pid;			/* 0: free */
	size_t item;
	double start;
};

struct outcome {
	struct sr_batch_result res;
	bool skipped;			/* done by an earlier run */
	double seconds;
};

struct batch_run {
	struct sr_batch b;
	struct sr_batch_item *items;
	struct outcome *out;
	size_t nr, done;
	char **lines;			/* --from lines, which items point into */
	size_t nr_lines;
	int jobs, timeout_s;
	unsigned int counts[SR_B_NR], skipped;
	uint64_t events;		/* of the traces analysed in this run */
	double start;
	bool progress, json;
};

static void batch_usage(FILE *f)
{
	fprintf(f, "usage: schedreplay batch [-j N] -o DIR [options] TRACE... | --from LIST\n\n"
		   "Analyse many traces, each in its own process, into the dataset DIR: per trace\n"
		   "its report, and rows of the traces, wakeups and decisions tables (gzip NDJSON,\n"
		   "Hive-style kernel=RELEASE/ partitions; docs/batch.md).  A trace's machine\n"
		   "snapshot is its list line's TOPOLOGY, else --topology, else TRACE.machine/,\n"
		   "else machine/ beside the trace, else none (assumed flat).  A rerun skips\n"
		   "traces done with the same version and options.  Exit 0 when every trace\n"
		   "was analysed, 3 when some were refused or failed.\n\n");
	sr_cli_opts_help(f, BATCH_OPTS);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ the list */

static int add_item(struct batch_run *br, const char *path, const char *topology)
{
	struct sr_batch_item *n = realloc(br->items, (br->nr + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	br->items = n;
	n[br->nr++] = (struct sr_batch_item){ .path = path, .topology = topology };
	return 0;
}

/* "TRACE" or "TRACE<TAB>TOPOLOGY"; blank lines and '#' comments are skipped. */
static int add_line(struct batch_run *br, char *line)
{
	char *tab, **n;

	line[strcspn(line, "\r\n")] = '\0';
	if (!line[0] || line[0] == '#')
		return 0;
	n = realloc(br->lines, (br->nr_lines + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	br->lines = n;
	n[br->nr_lines] = strdup(line);
	if (!n[br->nr_lines])
		return -ENOMEM;
	line = n[br->nr_lines++];
	tab = strchr(line, '\t');
	if (tab)
		*tab++ = '\0';
	return add_item(br, line, tab && *tab ? tab : NULL);
}

static int read_list(const struct sr_cli *cli, struct batch_run *br, const char *list)
{
	FILE *f = strcmp(list, "-") ? fopen(list, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "--from %s: %s", list, strerror(errno));
	while (!ret && getline(&line, &cap, f) >= 0)
		ret = add_line(br, line);
	free(line);
	if (f != stdin)
		fclose(f);
	return ret ? sr_cli_error(cli, SR_EXIT_FAIL, "out of memory") : 0;
}

static int by_id(const void *x, const void *y)
{
	const struct sr_batch_item *const *a = x, *const *b = y;
	int c = strcmp((*a)->id, (*b)->id);

	return c ? c : (*a < *b ? -1 : *a > *b);
}

/* A path listed twice is analysed once: drop later copies, keep the order. */
static int dedupe(struct batch_run *br)
{
	struct sr_batch_item **p = calloc(br->nr + 1, sizeof(*p));
	size_t kept = 0;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < br->nr; i++)
		p[i] = &br->items[i];
	qsort(p, br->nr, sizeof(*p), by_id);
	for (size_t i = 1; i < br->nr; i++)
		if (!strcmp(p[i]->id, p[i - 1]->id) && !strcmp(p[i]->path, p[i - 1]->path))
			p[i]->path = NULL;
	free(p);
	for (size_t i = 0; i < br->nr; i++)
		if (br->items[i].path)
			br->items[kept++] = br->items[i];
	br->nr = kept;
	return 0;
}

/* ------------------------------------------------------------ reporting */

static void clear_progress(const struct batch_run *br)
{
	if (br->progress)
		fprintf(stderr, "\r\033[K");
}

static void show_progress(const struct batch_run *br, int running)
{
	if (!br->progress)
		return;
	fprintf(stderr, "\r\033[K[%zu/%zu] ok %u, refused %u, failed %u, skipped %u; %d running",
		br->done, br->nr, br->counts[SR_B_OK], br->counts[SR_B_REFUSED],
		br->counts[SR_B_FAILED], br->skipped, running);
	fflush(stderr);
}

static void finished(struct batch_run *br, size_t i, bool skipped, double seconds)
{
	const struct outcome *o = &br->out[i];

	br->out[i].skipped = skipped;
	br->out[i].seconds = seconds;
	br->done++;
	br->counts[o->res.status]++;
	br->skipped += skipped;
	if (!skipped && o->res.status == SR_B_OK)
		br->events += o->res.events;
	if (br->json)
		return;
	clear_progress(br);
	if (skipped)
		printf("skipped  %s (done before: %s)\n", br->items[i].path,
		       sr_batch_status_name(o->res.status));
	else if (o->res.status == SR_B_OK)
		printf("ok       %s (%llu events, %.2f s)\n", br->items[i].path,
		       (unsigned long long)o->res.events, seconds);
	else
		printf("%-8s %s: %s\n", sr_batch_status_name(o->res.status), br->items[i].path,
		       o->res.message);
	fflush(stdout);
}

static json_t *summary_json(const struct batch_run *br, double secs)
{
	json_t *list = json_array();

	for (size_t i = 0; list && i < br->nr; i++) {
		const struct outcome *o = &br->out[i];

		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s?, s:I, s:b, s:f}",
			"path", br->items[i].path, "trace_id", br->items[i].id,
			"status", sr_batch_status_name(o->res.status),
			"message", o->res.status == SR_B_OK ? NULL : o->res.message,
			"events", (json_int_t)o->res.events, "skipped", o->skipped,
			"seconds", o->seconds));
	}
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:o}", "dataset", br->b.dir,
			 "traces", (json_int_t)br->nr, "ok", (json_int_t)br->counts[SR_B_OK],
			 "refused", (json_int_t)br->counts[SR_B_REFUSED],
			 "failed", (json_int_t)br->counts[SR_B_FAILED],
			 "skipped", (json_int_t)br->skipped, "seconds", secs,
			 "events", (json_int_t)br->events, "results", list);
}

static void summary(const struct sr_cli *cli, const struct batch_run *br)
{
	double secs = now() - br->start, ran = (double)(br->nr - br->skipped);
	json_t *o;

	clear_progress(br);
	if (!br->json) {
		printf("batch: %zu traces in %.2f s: %u ok, %u refused, %u failed, %u skipped "
		       "(done before); %.2f traces/s, %.0f events/s\ndataset: %s\n", br->nr, secs,
		       br->counts[SR_B_OK], br->counts[SR_B_REFUSED], br->counts[SR_B_FAILED],
		       br->skipped, secs > 0 ? ran / secs : 0.0,
		       secs > 0 ? (double)br->events / secs : 0.0, br->b.dir);
		return;
	}
	o = summary_json(br, secs);
	if (o)
		sr_cli_write_json(cli, o, &(struct sr_cli_out){ .json = true });
	json_decref(o);
}

/* ------------------------------------------------------------ processes */

/*
 * The child is a process of its own: it records its trace's outcome and
 * ends here with _exit(), never returning into the parent's main().  A
 * hang ends with SIGALRM, which the parent reports as a timeout.
 */
static pid_t spawn(const struct batch_run *br, size_t i)
{
	struct sr_batch_result res;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;
	if (br->timeout_s)
		alarm((unsigned int)br->timeout_s);
	_exit(sr_batch_trace(&br->b, &br->items[i], &res) ? SR_EXIT_FAIL : SR_EXIT_OK);
}

/* Why a child left no outcome, or NULL when it recorded one. */
static const char *why_ended(const struct batch_run *br, int st, char *buf, size_t len)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == SR_EXIT_OK)
		return NULL;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		snprintf(buf, len, "timed out after %d s (--timeout)", br->timeout_s);
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "crashed: killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "its process exited with status %d before recording an outcome",
			 WEXITSTATUS(st));
	return buf;
}

static void reap(struct batch_run *br, struct slot *slots, int *running)
{
	char why[160];
	int st;
	pid_t pid = waitpid(-1, &st, 0);

	if (pid < 0)
		return;
	for (int s = 0; s < br->jobs; s++) {
		if (slots[s].pid != pid)
			continue;
		sr_batch_collect(&br->b, &br->items[slots[s].item], why_ended(br, st, why,
				 sizeof(why)), &br->out[slots[s].item].res);
		finished(br, slots[s].item, false, now() - slots[s].start);
		slots[s].pid = 0;
		(*running)--;
		return;
	}
}

/* Start the next trace that is not done yet in a free slot; false when none is left. */
static bool start_next(struct batch_run *br, struct slot *slot, size_t *next)
{
	char why[160];

	while (*next < br->nr) {
		size_t i = (*next)++;

		if (sr_batch_done(&br->b, &br->items[i], &br->out[i].res)) {
			finished(br, i, true, 0);
			continue;
		}
		*slot = (struct slot){ .pid = spawn(br, i), .item = i, .start = now() };
		if (slot->pid > 0)
			return true;
		snprintf(why, sizeof(why), "cannot start a process: %s", strerror(errno));
		sr_batch_collect(&br->b, &br->items[i], why, &br->out[i].res);
		finished(br, i, false, 0);
		slot->pid = 0;
	}
	return false;
}

static int run_all(struct batch_run *br)
{
	struct slot *slots = calloc((size_t)br->jobs, sizeof(*slots));
	size_t next = 0;
	int running = 0;

	if (!slots)
		return -ENOMEM;
	br->start = now();
	do {
		for (int s = 0; s < br->jobs && next < br->nr; s++)
			if (!slots[s].pid && start_next(br, &slots[s], &next))
				running++;
		show_progress(br, running);
		if (running)
			reap(br, slots, &running);
	} while (running || next < br->nr);
	free(slots);
	return 0;
}

/* ------------------------------------------------------------ command */

/* The options that change a trace's results, as one string: rows carry it, reruns compare it. */
static void options_string(struct sr_batch *b)
{
	const struct sr_run_opts *o = &b->run;
	size_t len;

	snprintf(b->options, sizeof(b->options), "hz=%d migration_cost_ns=%lld "
		 "idle_threshold_ns=%lld top=%d assume_root_cgroup=%d probes_measure_only=%d "
		 "policy=", o->hz, (long long)o->an.migration_cost_ns,
		 (long long)o->an.idle_threshold_ns, o->an.top, o->root_cgroup,
		 o->probes_measure_only);
	for (int i = 0; i < o->nr_policies; i++) {
		len = strlen(b->options);
		snprintf(b->options + len, sizeof(b->options) - len, "%s%s", i ? "," : "",
			 o->policies[i]);
	}
	if (!o->nr_policies) {
		len = strlen(b->options);
		snprintf(b->options + len, sizeof(b->options) - len, "recorded-kernel");
	}
	for (int i = 0; i < o->nr_cgroup_weights; i++) {
		len = strlen(b->options);
		snprintf(b->options + len, sizeof(b->options) - len, "%s%lld=%u",
			 i ? "," : " cgroup_weight=", (long long)o->cgroup_weights[i].id,
			 o->cgroup_weights[i].weight);
	}
	for (int i = 0; i < o->nr_cgroup_members; i++) {
		len = strlen(b->options);
		snprintf(b->options + len, sizeof(b->options) - len, "%s%d=%lld",
			 i ? "," : " cgroup_member=", o->cgroup_members[i].pid,
			 (long long)o->cgroup_members[i].id);
	}
	for (int i = 0; i < o->nr_affinity; i++) {
		len = strlen(b->options);
		snprintf(b->options + len, sizeof(b->options) - len, "%s%s", i ? ";" : " affinity=",
			 o->affinity[i]);
	}
}

/*
 * --threads of each trace's process, unless given.  Workers are processes,
 * each with its own pass: with at least as many at work as CPUs, every CPU
 * already runs a pass, and a decode thread in each would only add the
 * ring's handoffs and two threads a CPU; with fewer (-j 1, a short list),
 * the decode threads take the CPUs left idle.
 */
static int worker_threads(const struct batch_run *br)
{
	size_t busy = br->nr < (size_t)br->jobs ? br->nr : (size_t)br->jobs;

	return busy >= (size_t)sr_cpus_allowed() ? 1 : 0;
}

static int setup(const struct sr_cli *cli, struct batch_run *br, int argc, char **argv)
{
	struct sr_cli_out out;
	struct sr_err err = { "" };
	int first, ret;

	ret = sr_cli_parse_opts(cli, argc, argv, BATCH_OPTS, batch_usage, &br->b.run, &out, &first);
	if (ret)
		return ret;
	if (!out.path)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "batch needs -o DIR (see --help)");
	br->b.dir = out.path;
	br->b.topology = br->b.run.topology;
	br->jobs = out.jobs ? out.jobs : sr_cpus_allowed();
	br->timeout_s = out.timeout_s;
	br->json = out.json;
	br->progress = !out.json && isatty(STDERR_FILENO);
	for (int i = first; i < argc; i++)
		if (add_item(br, argv[i], NULL))
			return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	if (out.from && (ret = read_list(cli, br, out.from)))
		return ret;
	if (!br->nr)
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "batch needs traces: TRACE... or "
				    "--from LIST (see --help)");
	if (!br->b.run.threads)
		br->b.run.threads = worker_threads(br);
	options_string(&br->b);
	for (size_t i = 0; i < br->nr; i++)
		sr_batch_item_init(&br->b, &br->items[i]);
	br->out = calloc(br->nr, sizeof(*br->out));
	if (!br->out || dedupe(br))
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	ret = sr_batch_prepare(&br->b, &err);
	return ret ? sr_cli_error(cli, SR_EXIT_FAIL, "%s", err.msg) : 0;
}

int sr_cmd_batch(const struct sr_cli *cli, int argc, char **argv)
{
	struct batch_run br = { .nr = 0 };
	int ret = setup(cli, &br, argc, argv);

	if (!ret && run_all(&br))
		ret = sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	if (!ret) {
		summary(cli, &br);
		ret = br.counts[SR_B_OK] == br.nr ? SR_EXIT_OK : SR_EXIT_SOME_FAILED;
	}
	for (size_t i = 0; i < br.nr_lines; i++)
		free(br.lines[i]);
	free(br.lines);
	free(br.items);
	free(br.out);
	return ret < 0 ? SR_EXIT_OK : ret;
}
