/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/run: run.c drives the pass, setup.c prepares it. */
#ifndef SR_RUN_PRIV_H
#define SR_RUN_PRIV_H

#include "run.h"

int sr_run_setup_topology(struct sr_run *r, struct sr_err *err);
int sr_run_setup_policies(struct sr_run *r, struct sr_err *err);

#endif /* SR_RUN_PRIV_H */
