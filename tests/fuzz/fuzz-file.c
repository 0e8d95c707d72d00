// SPDX-License-Identifier: GPL-2.0
/*
 * File fuzzer: arbitrary bytes as a trace.dat, through the whole run as
 * `schedreplay analyze` makes it (open, pick the buffer, validate, read,
 * state, replay, analyses, report).  Under ASan.  It must end in a report
 * of valid UTF-8 or a clean error; a crash inside libtraceevent or
 * libtracecmd is a library defect the CLI contains (src/cli/guard.c,
 * docs/known-issues.md), kept in tests/fuzz/crashes/ for the binary.
 */
#define _GNU_SOURCE		/* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include "run.h"

static void analyze(const char *path)
{
	struct sr_run_opts o = {
		.path = path, .hz = 250,
		.an = { .mode = SR_MODE_ANALYZE, .migration_cost_ns = 500000, .top = 10,
			.idle_threshold_ns = 1000000, .explain_at_ns = -1 },
	};
	struct sr_err err = { "" };
	struct sr_run *r = calloc(1, sizeof(*r));
	json_t *rep;
	char *text;

	if (!r)
		return;
	if (!sr_run_open(r, &o, &err) && !sr_run_exec(r, &err)) {
		rep = sr_run_report(r);
		text = rep ? json_dumps(rep, JSON_COMPACT) : NULL;
		if (!text || !sr_utf8_valid(text))
			abort();
		free(text);
		json_decref(rep);
	} else if (!err.msg[0]) {
		abort();	/* every refusal says why */
	}
	sr_run_close(r);
	free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz.dat", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		analyze(path);
	}
	close(fd);
	return 0;
}
