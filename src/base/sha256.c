// SPDX-License-Identifier: GPL-2.0
/* Content hashes: see include/base.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "base.h"

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
