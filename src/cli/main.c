// SPDX-License-Identifier: GPL-2.0
/*
 * schedreplay: why did this task wake up on that CPU, and what would
 * another policy have done?  Command dispatch from one table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include <trace-cmd/trace-cmd.h>
#include "cli.h"

static const struct sr_cmd commands[] = {
	{ "analyze", sr_cmd_analyze, SR_CMD_READS_TRACE, "TRACE [options]",
	  "rebuild runqueue state, account every wakeup, replay policies; JSON report" },
	{ "explain", sr_cmd_explain, SR_CMD_READS_TRACE, "TRACE --pid P --at T | --wakeup N",
	  "explain one wakeup check by check, for each policy" },
	{ "diff", sr_cmd_diff, SR_CMD_READS_TRACE, "TRACE --policy A --policy B",
	  "compare two policies on one trace, with a counterfactual cost" },
	{ "policies", sr_cmd_policies, 0, "[--json]", "list placement model presets and their knobs" },
	{ "topology", sr_cmd_topology, 0, "[--root DIR | --topology ARG] [--json] [-o FILE]",
	  "print the machine topology understood (CPUs, LLCs, nodes, sched domains)" },
	{ "batch", sr_cmd_batch, 0, "-o DIR [-j N] TRACE... | --from LIST",
	  "analyse many traces in parallel processes into one dataset (docs/batch.md)" },
	{ "record", sr_cmd_record, SR_CMD_NEEDS_ROOT,
	  "-o FILE [options] -- COMMAND...", "record a trace and a machine snapshot" },
};

int sr_cli_error(const struct sr_cli *cli, int code, const char *fmt, ...)
{
	char msg[1024], text[SR_TEXT_SIZE(sizeof(msg))];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cli && cli->json) {
		json_t *e = json_pack("{s:s, s:{s:o, s:i}}", "schema", "schedreplay-error/1",
				      "error", "message", sr_json_str(msg), "exit_code", code);

		if (e) {
			json_dumpf(e, stdout, JSON_INDENT(2));
			fputc('\n', stdout);
			json_decref(e);
		}
	} else {
		fprintf(stderr, "schedreplay: %s\n", sr_text(msg, text, sizeof(text)));
	}
	return code;
}

int sr_cli_exit_for(int err)
{
	switch (err) {
	case -ENOMEM:
	case -EIO:
	case -EILSEQ:		/* JSON refused a string: ours to repair (sr_json_str) */
		return SR_EXIT_FAIL;
	default:
		return SR_EXIT_BAD_INPUT;
	}
}

static const char *flag_note(unsigned int flags)
{
	if (flags & SR_CMD_NEEDS_ROOT)
		return " (needs root and tracefs)";
	return "";
}

static void usage(FILE *f)
{
	fprintf(f, "usage: schedreplay [--json] [--version] [--help] <command> [options]\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s%s\n", commands[i].name, commands[i].help,
			flag_note(commands[i].flags));
	fprintf(f, "\n'schedreplay <command> --help' describes a command's options.\n"
		   "Exit codes: 0 success, 1 internal failure, 2 bad input (trace, flags).\n");
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/* What the table says a command needs, checked before it runs. */
static int run_cmd(struct sr_cli *cli, const struct sr_cmd *cmd, int argc, char **argv)
{
	if (wants_help(argc, argv))
		return cmd->fn(cli, argc, argv);
	if ((cmd->flags & SR_CMD_NEEDS_ROOT) && geteuid())
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "%s needs root (it writes tracefs)",
				    cmd->name);
	if (cmd->flags & SR_CMD_READS_TRACE)
		return sr_cli_guarded(cli, cmd, argc, argv);
	return cmd->fn(cli, argc, argv);
}

static const struct sr_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct sr_cli cli = { .prog = argv[0] };
	const struct sr_cmd *cmd;
	int i;

	/* libtracecmd would print its own warnings for corrupt files; we report them. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json")) {
			cli.json = true;
		} else if (!strcmp(argv[i], "--version")) {
			printf("schedreplay %s\n", SR_VERSION);
			return SR_EXIT_OK;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return SR_EXIT_OK;
		} else {
			return sr_cli_error(&cli, SR_EXIT_BAD_INPUT, "unknown option '%s' (see --help)",
					    argv[i]);
		}
	}
	if (i >= argc) {
		usage(stderr);
		return SR_EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[i], "help")) {
		static char help[] = "--help";

		/* 'help CMD' is 'CMD --help', as git does it */
		if (i + 1 >= argc) {
			usage(stdout);
			return SR_EXIT_OK;
		}
		cmd = find_cmd(argv[i + 1]);
		if (!cmd)
			return sr_cli_error(&cli, SR_EXIT_BAD_INPUT, "no such command '%s' (see "
					    "--help)", argv[i + 1]);
		return cmd->fn(&cli, 2, (char *[]){ argv[i + 1], help, NULL });
	}
	cmd = find_cmd(argv[i]);
	if (!cmd)
		return sr_cli_error(&cli, SR_EXIT_BAD_INPUT, "unknown command '%s' (see --help)",
				    argv[i]);
	return run_cmd(&cli, cmd, argc - i, argv + i);
}
