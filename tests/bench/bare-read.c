// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline for `make bench`: the least work a libtracecmd reader can do —
 * open the file and visit every record in timestamp order, reading each
 * record's type.  schedreplay's cost is measured against this.
 */
#include <stdio.h>
#include <trace-cmd/trace-cmd.h>

static int count(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	unsigned long long *n = data;

	n[0]++;
	n[1] += (unsigned long long)tep_data_type(tracecmd_get_tep(h), rec);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long n[2] = { 0, 0 };
	struct tracecmd_input *h;

	if (argc != 2) {
		fprintf(stderr, "usage: bare-read TRACE\n");
		return 2;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "bare-read: cannot open %s\n", argv[1]);
		return 2;
	}
	tracecmd_iterate_events(h, NULL, 0, count, n);
	tracecmd_close(h);
	printf("%llu records\n", n[0]);
	return 0;
}
