// SPDX-License-Identifier: GPL-2.0
/*
 * A "zlib" compression protocol for libtracecmd 1.3.1, which Debian 12
 * builds without one.  The on-disk format is what a zlib-enabled
 * trace-cmd 3.1.6 writes (lib/trace-cmd/trace-compress-zlib.c): every
 * block is one complete zlib stream (RFC 1950: header, deflate data,
 * Adler-32), as made by compress2() and read by uncompress().  The
 * library itself frames the blocks: it stores each block's compressed
 * and uncompressed sizes as 4-byte numbers in the file's endianness
 * ahead of the stream, and hands the callbacks only the stream and the
 * size of the output buffer.  The file header names the protocol
 * ("zlib") and the zlib version that wrote it.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "zlib-proto.h"

#define ZLIB_PROTO_NAME		"zlib"
/* Lower is preferred for "any"; zstd registers 5, trace-cmd's zlib 10. */
#define ZLIB_PROTO_WEIGHT	10

/*
 * Exported by libtracecmd.so.1 but declared only in its private header,
 * lib/trace-cmd/include/private/trace-cmd-private.h (trace-cmd v3.1.6,
 * libtracecmd 1.3.1).  The library copies every field on registration
 * (name and version with strdup()), so the struct may live on the stack.
 */
struct tracecmd_compression_proto {
	int weight;
	const char *name;
	const char *version;
	int (*compress)(void *ctx, const void *in, int in_bytes, void *out, int out_bytes);
	int (*uncompress)(void *ctx, const void *in, int in_bytes, void *out, int out_bytes);
	unsigned int (*compress_size)(void *ctx, unsigned int bytes);
	bool (*is_supported)(const char *name, const char *version);
	void *(*new_context)(void);
	void (*free_context)(void *ctx);
};

int tracecmd_compress_proto_register(struct tracecmd_compression_proto *proto);
bool tracecmd_compress_is_supported(const char *name, const char *version);

#ifdef __LP64__
/* The offsets tracecmd_compress_proto_register() reads in libtracecmd.so.1.3.1 (x86-64). */
_Static_assert(offsetof(struct tracecmd_compression_proto, name) == 8, "proto layout");
_Static_assert(offsetof(struct tracecmd_compression_proto, compress) == 24, "proto layout");
_Static_assert(offsetof(struct tracecmd_compression_proto, free_context) == 64, "proto layout");
_Static_assert(sizeof(struct tracecmd_compression_proto) == 72, "proto layout");
#endif

/* Callbacks return -1 with errno set; never leave errno at EINTR (the library retries on it). */
static int zlib_errno(int zret)
{
	switch (zret) {
	case Z_MEM_ERROR:
		return ENOMEM;
	case Z_BUF_ERROR:
		return ENOBUFS;
	case Z_DATA_ERROR:
		return EBADMSG;
	case Z_STREAM_ERROR:
		return EINVAL;
	default:
		return EIO;
	}
}

static int zlib_compress(void *ctx, const void *in, int in_bytes, void *out, int out_bytes)
{
	uLongf olen;
	int ret;

	(void)ctx;
	if (in_bytes < 0 || out_bytes < 0) {
		errno = EINVAL;
		return -1;
	}
	olen = (uLongf)out_bytes;
	ret = compress2(out, &olen, in, (uLong)in_bytes, Z_BEST_COMPRESSION);
	if (ret != Z_OK) {
		errno = zlib_errno(ret);
		return -1;
	}
	return (int)olen;
}

static int zlib_uncompress(void *ctx, const void *in, int in_bytes, void *out, int out_bytes)
{
	uLongf olen;
	int ret;

	(void)ctx;
	/* The sizes come from the file: a corrupt one turns negative here. */
	if (in_bytes < 0 || out_bytes < 0) {
		errno = EINVAL;
		return -1;
	}
	olen = (uLongf)out_bytes;
	ret = uncompress(out, &olen, in, (uLong)in_bytes);
	if (ret != Z_OK) {
		errno = zlib_errno(ret);
		return -1;
	}
	return (int)olen;
}

static unsigned int zlib_compress_size(void *ctx, unsigned int bytes)
{
	uLong bound = compressBound(bytes);

	(void)ctx;
	return bound > UINT_MAX ? UINT_MAX : (unsigned int)bound;
}

/* The leading number of a version string, 0 if there is none (as atoi()). */
static unsigned long version_major(const char *version)
{
	unsigned long major;
	char *end;

	errno = 0;
	major = strtoul(version, &end, 10);
	if (end == version || errno)
		return 0;
	return major;
}

/*
 * Any file written by a zlib whose major version is not newer than ours:
 * the same rule as trace-cmd's plugin, so we read what it reads.  The
 * zlib stream format has not changed within major version 1.
 */
static bool zlib_is_supported(const char *name, const char *version)
{
	int saved = errno;
	bool ok;

	if (!name || strcmp(name, ZLIB_PROTO_NAME))
		return false;
	if (!version)
		return true;
	ok = version_major(version) <= version_major(zlibVersion());
	errno = saved;
	return ok;
}

int sr_zlib_register(void)
{
	struct tracecmd_compression_proto proto = {
		.weight		= ZLIB_PROTO_WEIGHT,
		.name		= ZLIB_PROTO_NAME,
		.version	= zlibVersion(),
		.compress	= zlib_compress,
		.uncompress	= zlib_uncompress,
		.compress_size	= zlib_compress_size,
		.is_supported	= zlib_is_supported,
		/* stateless, like trace-cmd's: no context */
	};

	/* A zlib-enabled library, or an earlier call: nothing to add. */
	if (tracecmd_compress_is_supported(ZLIB_PROTO_NAME, NULL))
		return 0;
	if (!proto.version)
		return -EINVAL;
	/* It fails only if out of memory (or if the name were already taken). */
	if (tracecmd_compress_proto_register(&proto))
		return tracecmd_compress_is_supported(ZLIB_PROTO_NAME, NULL) ? 0 : -ENOMEM;
	return 0;
}
