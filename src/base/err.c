// SPDX-License-Identifier: GPL-2.0
/* Error messages for the user, carried up to main() beside the -errno. */
#include <stdarg.h>
#include <stdio.h>
#include "base.h"

int sr_err_set(struct sr_err *err, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return ret;
}
