// SPDX-License-Identifier: GPL-2.0
/*
 * A machine root: a directory laid out like "/" — this machine itself, a
 * snapshot `record` saved, or a QEMU guest's copy — read the same way by
 * the snapshot writer (its source) and the loader (its input).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "machine-priv.h"

/* /proc/schedstat of a big machine is the largest file read. */
#define ROOT_MAX_FILE	(16 << 20)

int sr_root_set(struct sr_root *r, const char *dir)
{
	size_t n = strlen(dir);

	/* "/" is this machine: paths are then "/sys/..." */
	while (n > 0 && dir[n - 1] == '/')
		n--;
	if (n >= sizeof(r->path))
		return -ENAMETOOLONG;
	memcpy(r->path, dir, n);
	r->path[n] = '\0';
	return 0;
}

int sr_root_path(const struct sr_root *r, const char *rel, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", r->path, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool sr_root_is_dir(const struct sr_root *r, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	return !sr_root_path(r, rel, path, sizeof(path)) && !stat(path, &st) &&
	       S_ISDIR(st.st_mode);
}

/* sysfs, procfs and debugfs report size 0: read to EOF. */
static int read_fd(int fd, char **out)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while ((n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		len += n;
		if (len < cap)
			continue;
		if (cap >= ROOT_MAX_FILE) {
			free(buf);
			return -EFBIG;
		}
		cap *= 2;
		nb = realloc(buf, cap + 1);
		if (!nb) {
			free(buf);
			return -ENOMEM;
		}
		buf = nb;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int sr_root_read(const struct sr_root *r, const char *rel, char **out)
{
	char path[PATH_MAX];
	int fd, ret = sr_root_path(r, rel, path, sizeof(path));

	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_fd(fd, out);
	close(fd);
	return ret;
}
