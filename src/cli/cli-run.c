// SPDX-License-Identifier: GPL-2.0
/* The run every trace command shares (analyze, diff, explain). */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

/* Open, stream, or say why not. */
int sr_cli_run(const struct sr_cli *cli, const struct sr_run_opts *o, struct sr_run **out)
{
	struct sr_err err = { "" };
	struct sr_run *r = calloc(1, sizeof(*r));
	struct sr_run_opts watched = *o;
	int ret;

	*out = NULL;
	if (!r)
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	/* under the guard (guard.c): tell the parent which file, and where in it */
	watched.watch = cli->watch;
	if (cli->watched_path)
		snprintf(cli->watched_path, cli->watched_path_size, "%s", o->path);
	ret = sr_run_open(r, &watched, &err);
	if (!ret)
		ret = sr_run_exec(r, &err);
	if (ret) {
		ret = sr_cli_error(cli, sr_cli_exit_for(ret), "%s", err.msg[0] ? err.msg :
				   strerror(-ret));
		sr_run_close(r);
		free(r);
		return ret;
	}
	*out = r;
	return 0;
}

