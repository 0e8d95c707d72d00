/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A "zlib" compression protocol for libtracecmd.  Debian 12 builds
 * libtracecmd 1.3.1 with zstd only, so a trace.dat v7 compressed with
 * zlib by another distribution's trace-cmd cannot be opened.  Registering
 * this protocol before tracecmd_open_head() makes such files readable,
 * and lets the output API write them (tests/tools/mkzlib.c).
 */
#ifndef SR_ZLIB_PROTO_H
#define SR_ZLIB_PROTO_H

/*
 * Register the protocol with libtracecmd unless the library already
 * supports "zlib" (its own plugin, or an earlier call).  Idempotent.
 * Returns 0 on success, -ENOMEM or -EINVAL if the library refused.
 */
int sr_zlib_register(void);

#endif /* SR_ZLIB_PROTO_H */
