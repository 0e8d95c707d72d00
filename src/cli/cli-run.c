// SPDX-License-Identifier: GPL-2.0
/* The run every trace command shares (analyze, diff, explain). */
#include <stdlib.h>
#include "cli.h"

/* Open, stream, or say why not. */
int sr_cli_run(const struct sr_cli *cli, const struct sr_run_opts *o, struct sr_run **out)
{
	struct sr_err err = { "" };
	struct sr_run *r = calloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	if (!r)
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	ret = sr_run_open(r, o, &err);
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

