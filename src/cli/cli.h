/* SPDX-License-Identifier: GPL-2.0 */
/* Private to the command-line front end: the command table and error output. */
#ifndef SR_CLI_H
#define SR_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include "run.h"

/* Exit codes, documented in README.md; batch: 3 when some trace was not analysed. */
enum { SR_EXIT_OK = 0, SR_EXIT_FAIL = 1, SR_EXIT_BAD_INPUT = 2, SR_EXIT_SOME_FAILED = 3 };

struct sr_cli {
	bool json;			/* --json: errors as JSON objects on stdout */
	const char *prog;
	/* in a guarded child (guard.c): where the reader is, shared with the parent */
	struct sr_trace_watch *watch;
	char *watched_path;		/* the trace being read, for the parent's message */
	size_t watched_path_size;
};

/*
 * Preconditions a command states in the table and the dispatcher enforces
 * before calling it (like git's run_builtin() flags).
 */
enum sr_cmd_flags {
	SR_CMD_NEEDS_ROOT	= 1 << 0,	/* writes tracefs: refused early unless root */
	SR_CMD_READS_TRACE	= 1 << 1,	/* runs guarded: a library crash is reported */
};

struct sr_cmd {
	const char *name;
	int (*fn)(const struct sr_cli *cli, int argc, char **argv);
	unsigned int flags;
	const char *usage;
	const char *help;
};

/* Report an error; returns the exit code to use. */
int sr_cli_error(const struct sr_cli *cli, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Map a library -errno to an exit code. */
int sr_cli_exit_for(int err);
/* Run @cmd in a child; its crash becomes a message and exit 2 or 1 (src/cli/guard.c). */
int sr_cli_guarded(struct sr_cli *cli, const struct sr_cmd *cmd, int argc, char **argv);

/* Which shared options a command accepts (src/cli-opts.c). */
enum sr_cli_opt {
	SR_O_RUN	= 1 << 0,	/* --migration-cost --hz --topology --policy --top */
	SR_O_OUTPUT	= 1 << 1,	/* -o --compact */
	SR_O_TEXT	= 1 << 2,	/* --json: the command prints text by default */
	SR_O_ANALYZE	= 1 << 3,	/* --idle-threshold */
	SR_O_EXPLAIN	= 1 << 4,	/* --at --wakeup --window */
	SR_O_FILTER	= 1 << 5,	/* --time --pid --comm --cpu */
	SR_O_PLOT	= 1 << 6,	/* --svg --png */
	SR_O_FORMAT	= 1 << 7,	/* --format text|json */
	SR_O_DECISIONS	= 1 << 8,	/* --decisions */
	SR_O_BATCH	= 1 << 9,	/* -j --from --timeout */
	SR_O_PERFETTO	= 1 << 10,	/* --perfetto */
};

/* Where the output goes, and how a batch runs. */
struct sr_cli_out {
	const char *path;		/* -o, NULL: stdout (batch: the dataset directory) */
	bool compact, json;
	bool format_given;		/* --format or --json said which */
	bool progress;			/* a progress line on stderr (a terminal, not --quiet) */
	int jobs;			/* batch -j: parallel traces, 0 one per CPU */
	const char *from;		/* batch --from: a list of traces */
	int timeout_s;			/* batch --timeout: per trace, 0 none */
};

/*
 * Parse the accepted options; the arguments left start at *first.  -1 after
 * --help, else 0 or an exit code.
 */
int sr_cli_parse_opts(const struct sr_cli *cli, int argc, char **argv, unsigned int accepted,
		      void (*usage)(FILE *f), struct sr_run_opts *o, struct sr_cli_out *out,
		      int *first);
/* The same with exactly one TRACE left. */
int sr_cli_parse_run(const struct sr_cli *cli, int argc, char **argv, unsigned int accepted,
		     void (*usage)(FILE *f), struct sr_run_opts *o, struct sr_cli_out *out);
void sr_cli_opts_help(FILE *f, unsigned int accepted);
/* --at and --time: seconds as trace-cmd report prints them, or with ns/us/ms/s; 0 or -EINVAL. */
int sr_cli_parse_time(const char *s, int64_t *ns);
int sr_cli_write_json(const struct sr_cli *cli, json_t *o, const struct sr_cli_out *out);
/* Text output of diff/explain: @print renders @a, then the run's warnings, to -o or stdout. */
int sr_cli_write_text(const struct sr_cli *cli, const struct sr_run *r,
		      void (*print)(const struct sr_analysis *a, FILE *f),
		      const struct sr_analysis *a, const struct sr_cli_out *out);
/* analyze's text: the run's report as sr_run_print() renders it, then its warnings. */
int sr_cli_write_report_text(const struct sr_cli *cli, struct sr_run *r,
			     const struct sr_cli_out *out);
/* Open, run and report (src/cli/cli-run.c); on failure prints the error, returns the exit code. */
int sr_cli_run(const struct sr_cli *cli, const struct sr_run_opts *o, struct sr_run **out);
/* The same with a progress line on stderr while it reads (@progress: a terminal). */
int sr_cli_run_progress(const struct sr_cli *cli, const struct sr_run_opts *o, bool progress,
			struct sr_run **out);
/* Draw --svg/--png with @draw; 0 or the exit code after an error message. */
int sr_cli_plot(const struct sr_cli *cli, const struct sr_run_opts *o,
		int (*draw)(const struct sr_run *r, const char *path, struct sr_err *err),
		const struct sr_run *r);

int sr_cmd_analyze(const struct sr_cli *cli, int argc, char **argv);
int sr_cmd_diff(const struct sr_cli *cli, int argc, char **argv);
int sr_cmd_explain(const struct sr_cli *cli, int argc, char **argv);
int sr_cmd_topology(const struct sr_cli *cli, int argc, char **argv);
int sr_cmd_record(const struct sr_cli *cli, int argc, char **argv);
int sr_cmd_policies(const struct sr_cli *cli, int argc, char **argv);
int sr_cmd_batch(const struct sr_cli *cli, int argc, char **argv);

#endif /* SR_CLI_H */
