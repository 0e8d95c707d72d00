// SPDX-License-Identifier: GPL-2.0
/* gzip NDJSON tables and content hashes: see include/base.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <zlib.h>
#include "base.h"

int sr_ndjson_open(struct sr_ndjson *w, const char *path)
{
	/* Level 1: rows repeat their trace's columns, so the fastest level already
	 * gets most of the gain, and the batch is not held up compressing. */
	*w = (struct sr_ndjson){ .gz = gzopen(path, "wb1") };
	if (!w->gz)
		return errno ? -errno : -ENOMEM;
	return 0;
}

/* Rendered into memory first: one gzwrite() per row, not one per token. */
int sr_ndjson_write(struct sr_ndjson *w, const json_t *row)
{
	size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(10), n;

	if (w->failed || !w->gz)
		return -EIO;
	n = json_dumpb(row, w->buf, w->size, flags);
	if (n + 1 > w->size) {
		char *b = realloc(w->buf, 2 * n + 1);

		if (!b) {
			w->failed = true;
			return -ENOMEM;
		}
		w->buf = b;
		w->size = 2 * n + 1;
		n = json_dumpb(row, w->buf, w->size, flags);
	}
	if (!n) {
		w->failed = true;
		return -EIO;
	}
	w->buf[n++] = '\n';
	if (gzwrite(w->gz, w->buf, (unsigned int)n) != (int)n) {
		w->failed = true;
		return -EIO;
	}
	w->rows++;
	return 0;
}

int sr_ndjson_close(struct sr_ndjson *w)
{
	int ret = w->failed ? -EIO : 0;

	if (w->gz && gzclose(w->gz) != Z_OK)
		ret = -EIO;
	w->gz = NULL;
	free(w->buf);
	w->buf = NULL;
	w->size = 0;
	return ret;
}

static void to_hex(const unsigned char *md, char hex[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

int sr_sha256_file(const char *path, char hex[65], uint64_t *size)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	*size = 0;
	if (fd < 0 || !ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		ret = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		*size += (uint64_t)n;
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	}
	if (n < 0)
		ret = -errno;
	else if (!EVP_DigestFinal_ex(ctx, md, NULL))
		ret = -EIO;
	else
		to_hex(md, hex);
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(ctx);
	return ret;
}

void sr_sha256_str(const char *s, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len;

	EVP_Digest(s, strlen(s), md, &len, EVP_sha256(), NULL);
	to_hex(md, hex);
}
