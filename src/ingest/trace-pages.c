// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest: check every page header of an uncompressed file before
 * libtraceevent walks the pages.  kbuffer trusts a page's commit size: one
 * past the page makes it read (and, with a stored missed-events count,
 * dereference) memory beyond it — garbage events, or a crash
 * (docs/known-issues.md R1).  A page is its kernel ring-buffer header
 * (u64 timestamp, a long whose low 27 bits are the bytes committed, bit 30
 * "missed count stored after the data", bit 31 "events were missed") and
 * the events; the CPU's data is whole pages, page-aligned in the file.
 * Compressed files cannot be checked this way (the library decompresses
 * them page by page); the first page of each CPU is loaded while the file
 * is opened, so only the pages after it are protected: the rest is left to
 * the guard (src/cli/guard.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "trace-priv.h"

#define COMMIT_MASK	((1ULL << 27) - 1)
#define MISSED_STORED	(1ULL << 30)

/* The first bad page of @cpu's data, or -1. */
static long bad_page(const struct sr_trace *t, int fd, uint64_t start, off_t size,
		     unsigned long long *commit)
{
	int ls = t->info.long_size, ps = t->info.page_size;
	unsigned long long room = (unsigned long long)(ps - 8 - ls);
	char hdr[16];

	for (long p = 0; p < size / ps; p++) {
		ssize_t n = pread(fd, hdr, (size_t)(8 + ls), (off_t)(start + (uint64_t)p * ps));
		unsigned long long c;

		if (!n)
			return -1;	/* the end of the file: the library says what it lacks */
		if (n != 8 + ls)
			return p;
		c = tep_read_number(t->tep, hdr + 8, ls);
		*commit = c & COMMIT_MASK;
		if (*commit > room || ((c & MISSED_STORED) && *commit + (unsigned)ls > room))
			return p;
	}
	return -1;
}

int sr_tr_check_pages(struct sr_trace *t, const uint64_t *first_off, const char *path,
		      struct sr_err *err)
{
	unsigned long long commit = 0;
	int fd, ret = 0;

	if (tracecmd_get_flags(t->top) & SR_TRACECMD_FL_COMPRESSION)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* read as it was opened; the library reports what fails */
	for (int cpu = 0; !ret && cpu < t->info.nr_cpus; cpu++) {
		off_t size = tracecmd_get_cpu_file_size(t->handle, cpu);
		uint64_t start = first_off[cpu] - first_off[cpu] % (uint64_t)t->info.page_size;
		long p;

		if (!first_off[cpu] || size <= 0)
			continue;
		p = bad_page(t, fd, start, size, &commit);
		if (p >= 0)
			ret = sr_err_set(err, -EINVAL, "%s: corrupt trace at CPU %d: page %ld of its "
					 "data (file offset %llu) says it holds %llu bytes, more than a "
					 "%d-byte page can", path, cpu, p,
					 (unsigned long long)(start + (uint64_t)p * t->info.page_size),
					 commit, t->info.page_size);
	}
	close(fd);
	return ret;
}
