// SPDX-License-Identifier: GPL-2.0
/*
 * mkzlib IN.dat OUT.dat: rewrite a trace.dat as a v7 file compressed with
 * zlib, the way `trace-cmd convert --compression zlib` does on a machine
 * whose libtracecmd has zlib (tracecmd_copy() with the flyrecord state),
 * after registering our zlib protocol.  Then read both files back and
 * check that every CPU holds the same records, byte for byte.
 *
 * Exit status: 0 written and verified, 1 failure (message on stderr).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include "zlib-proto.h"

/*
 * Exported by libtracecmd.so.1 but declared only in its private header
 * (lib/trace-cmd/include/private/trace-cmd-private.h, trace-cmd v3.1.6).
 */
enum tracecmd_file_states {
	TRACECMD_FILE_ALLOCATED = 0,
	TRACECMD_FILE_INIT,
	TRACECMD_FILE_HEADERS,
	TRACECMD_FILE_FTRACE_EVENTS,
	TRACECMD_FILE_ALL_EVENTS,
	TRACECMD_FILE_KALLSYMS,
	TRACECMD_FILE_PRINTK,
	TRACECMD_FILE_CMD_LINES,
	TRACECMD_FILE_CPU_COUNT,
	TRACECMD_FILE_OPTIONS,
	TRACECMD_FILE_CPU_LATENCY,
	TRACECMD_FILE_CPU_FLYRECORD,
};

struct tracecmd_output;
struct tracecmd_output *tracecmd_copy(struct tracecmd_input *ihandle, const char *file,
				      enum tracecmd_file_states state, int file_version,
				      const char *compression);
void tracecmd_output_close(struct tracecmd_output *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle,
				     const char **name, const char **version);

#define FILE_VERSION_COMPRESSION 7

static int convert(const char *in, const char *out)
{
	struct tracecmd_output *oh;
	struct tracecmd_input *ih;

	ih = tracecmd_open_head(in, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!ih) {
		fprintf(stderr, "mkzlib: %s: cannot read the trace.dat headers\n", in);
		return -EINVAL;
	}
	oh = tracecmd_copy(ih, out, TRACECMD_FILE_CPU_FLYRECORD, FILE_VERSION_COMPRESSION,
			   "zlib");
	if (!oh) {
		fprintf(stderr, "mkzlib: cannot write %s\n", out);
		tracecmd_close(ih);
		return -EIO;
	}
	tracecmd_output_close(oh);
	tracecmd_close(ih);
	return 0;
}

/*
 * Open with the data initialised.  A handle whose init failed is not
 * closed: libtracecmd 1.3 crashes in tracecmd_close() on it.
 */
static struct tracecmd_input *open_data(const char *path)
{
	struct tracecmd_input *h = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);

	if (!h) {
		fprintf(stderr, "mkzlib: %s: cannot read the trace.dat headers\n", path);
		return NULL;
	}
	if (tracecmd_init_data(h) < 0) {
		fprintf(stderr, "mkzlib: %s: cannot read the event data\n", path);
		return NULL;
	}
	return h;
}

static bool same_record(const struct tep_record *a, const struct tep_record *b)
{
	return a->ts == b->ts && a->size == b->size && !memcmp(a->data, b->data, a->size);
}

/* Every CPU's records in both files, in order; returns how many, or -errno. */
static long long compare_cpu(struct tracecmd_input *a, struct tracecmd_input *b, int cpu)
{
	long long n = 0;

	for (;;) {
		struct tep_record *ra = tracecmd_read_data(a, cpu);
		struct tep_record *rb = tracecmd_read_data(b, cpu);
		bool same = (!ra && !rb) || (ra && rb && same_record(ra, rb));
		bool done = !ra || !rb;

		tracecmd_free_record(ra);
		tracecmd_free_record(rb);
		if (!same) {
			fprintf(stderr, "mkzlib: cpu %d: record %lld differs\n", cpu, n);
			return -EBADMSG;
		}
		if (done)
			return n;
		n++;
	}
}

static int verify(const char *in, const char *out)
{
	struct tracecmd_input *a, *b;
	const char *name = NULL, *version = NULL;
	long long total = 0;
	int cpus, ret = 0;

	a = open_data(in);
	if (!a)
		return -EINVAL;
	b = open_data(out);
	if (!b) {
		tracecmd_close(a);
		return -EINVAL;
	}
	if (tracecmd_get_file_compress_proto(b, &name, &version) || !name ||
	    strcmp(name, "zlib")) {
		fprintf(stderr, "mkzlib: %s: not zlib-compressed (%s)\n", out, name ? name : "none");
		ret = -EINVAL;
		goto out;
	}
	cpus = tep_get_cpus(tracecmd_get_tep(a));
	if (cpus != tep_get_cpus(tracecmd_get_tep(b))) {
		fprintf(stderr, "mkzlib: CPU counts differ\n");
		ret = -EBADMSG;
		goto out;
	}
	for (int cpu = 0; cpu < cpus; cpu++) {
		long long n = compare_cpu(a, b, cpu);

		if (n < 0) {
			ret = (int)n;
			goto out;
		}
		total += n;
	}
	printf("%s: zlib %s, %d cpus, %lld records identical to %s\n", out,
	       version ? version : "?", cpus, total, in);
out:
	tracecmd_close(b);
	tracecmd_close(a);
	return ret;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: mkzlib IN.dat OUT.dat\n");
		return 1;
	}
	ret = sr_zlib_register();
	if (ret) {
		fprintf(stderr, "mkzlib: cannot register zlib: %s\n", strerror(-ret));
		return 1;
	}
	if (convert(argv[1], argv[2]))
		return 1;
	if (verify(argv[1], argv[2])) {
		unlink(argv[2]);
		return 1;
	}
	return 0;
}
