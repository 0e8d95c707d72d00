// SPDX-License-Identifier: GPL-2.0
/*
 * drop-wakeup IN.dat OUT.dat: a copy of a trace as it would have been
 * recorded without sched_wakeup.  libtracecmd's tracecmd_copy() (the
 * output API `schedreplay record` writes with) writes an uncompressed
 * version 6 file; then the sched_wakeup format is renamed "dropped_wake",
 * same length, so that no reader recognises its records: they read as an
 * unknown event, as in a trace that never enabled it.  Every other record
 * and format stays byte for byte.
 *
 * libtracecmd 1.3's copy loses a whole CPU's data on some files (trace-cmd
 * convert too): the copy is read back and every CPU must hold as many
 * records as the original.
 *
 * Exit status: 0 written, 1 failure, 3 the copy lost records (message on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>

/* Exported by libtracecmd.so.1, declared only in its private header (trace-cmd v3.1.6). */
enum { TRACECMD_FILE_CPU_FLYRECORD = 11 };
struct tracecmd_output;
struct tracecmd_output *tracecmd_copy(struct tracecmd_input *ihandle, const char *file,
				      int state, int file_version, const char *compression);
void tracecmd_output_close(struct tracecmd_output *handle);

static const char from[] = "name: sched_wakeup\n";
static const char to[] = "name: dropped_wake\n";

static int copy_v6(const char *in, const char *out)
{
	struct tracecmd_input *ih = tracecmd_open_head(in, TRACECMD_FL_LOAD_NO_PLUGINS);
	struct tracecmd_output *oh;

	if (!ih) {
		fprintf(stderr, "drop-wakeup: %s: cannot read the trace.dat headers\n", in);
		return -1;
	}
	/* libtracecmd prints each CPU's offset on stdout while copying: keep ours clean */
	fflush(stdout);
	oh = tracecmd_copy(ih, out, TRACECMD_FILE_CPU_FLYRECORD, 6, NULL);
	if (oh)
		tracecmd_output_close(oh);
	tracecmd_close(ih);
	if (!oh)
		fprintf(stderr, "drop-wakeup: cannot write %s\n", out);
	return oh ? 0 : -1;
}

/* Rename the one sched_wakeup format in place; the file is small enough to read whole. */
static int rename_format(const char *path)
{
	FILE *f = fopen(path, "r+b");
	char *buf = NULL, *hit = NULL;
	long size;
	int ret = -1;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)size);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
		goto out;
	for (char *p = buf; p + sizeof(from) - 1 <= buf + size; p++) {
		p = memchr(p, 'n', (size_t)(buf + size - p));
		if (!p)
			break;
		if (!memcmp(p, from, sizeof(from) - 1)) {
			if (hit) {
				fprintf(stderr, "drop-wakeup: two sched_wakeup formats\n");
				goto out;
			}
			hit = p;
		}
	}
	if (!hit) {
		fprintf(stderr, "drop-wakeup: %s has no sched_wakeup format\n", path);
		goto out;
	}
	if (!fseek(f, hit - buf, SEEK_SET) && fwrite(to, 1, sizeof(to) - 1, f) == sizeof(to) - 1)
		ret = 0;
out:
	free(buf);
	if (f && fclose(f))
		ret = -1;
	return ret;
}

static long long count_cpu(struct tracecmd_input *h, int cpu)
{
	struct tep_record *r;
	long long n = 0;

	while ((r = tracecmd_read_data(h, cpu))) {
		tracecmd_free_record(r);
		n++;
	}
	return n;
}

/* Every CPU of @out holds as many records as in @in. */
static int same_counts(const char *in, const char *out)
{
	struct tracecmd_input *a = tracecmd_open(in, TRACECMD_FL_LOAD_NO_PLUGINS);
	struct tracecmd_input *b = a ? tracecmd_open(out, TRACECMD_FL_LOAD_NO_PLUGINS) : NULL;
	int cpus, ret = 0;

	if (!a || !b) {
		fprintf(stderr, "drop-wakeup: cannot read back the copy\n");
		ret = -1;
		goto out;
	}
	cpus = tep_get_cpus(tracecmd_get_tep(a));
	for (int cpu = 0; cpu < cpus && !ret; cpu++) {
		long long na = count_cpu(a, cpu), nb = count_cpu(b, cpu);

		if (na != nb) {
			fprintf(stderr, "drop-wakeup: libtracecmd's copy kept %lld of CPU %d's "
				"%lld records\n", nb, cpu, na);
			ret = -1;
		}
	}
out:
	if (b)
		tracecmd_close(b);
	if (a)
		tracecmd_close(a);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: drop-wakeup IN.dat OUT.dat\n");
		return 1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (copy_v6(argv[1], argv[2]) || rename_format(argv[2])) {
		unlink(argv[2]);
		return 1;
	}
	if (same_counts(argv[1], argv[2])) {
		unlink(argv[2]);
		return 3;
	}
	return 0;
}
