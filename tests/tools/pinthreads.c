// SPDX-License-Identifier: GPL-2.0
/*
 * A threaded workload whose threads pin themselves one by one
 * (pthread_setaffinity_np()), as thread pools do: thread i to CPU i modulo
 * the CPUs this process may use.  They pass a token round a ring of pipes.
 * Each thread lives well past record's 100 ms status poll, so
 * `schedreplay record -- pinthreads` keeps every thread's mask
 * (tests/run-record.sh).
 *
 * usage: pinthreads [THREADS [ROUNDS]]   (default 4 threads, 200 rounds)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS	64

struct ring {
	int n, rounds, cpus[CPU_SETSIZE], nr_cpus;
	int fd[MAX_THREADS][2];		/* thread i reads fd[i][0], writes fd[(i+1)%n][1] */
	pthread_barrier_t pinned;
};

struct arg {
	struct ring *r;
	int i;
};

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static void *run(void *p)
{
	const struct arg *a = p;
	struct ring *r = a->r;
	cpu_set_t set;
	char tok = 't';

	CPU_ZERO(&set);
	CPU_SET(r->cpus[a->i % r->nr_cpus], &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		return (void *)1;
	pthread_barrier_wait(&r->pinned);
	pause_ms(250);		/* past record's first status poll */
	for (int k = 0; k < r->rounds; k++) {
		if (a->i || k) {
			if (read(r->fd[a->i][0], &tok, 1) != 1)
				return (void *)1;
		}
		if (write(r->fd[(a->i + 1) % r->n][1], &tok, 1) != 1)
			return (void *)1;
	}
	if (!a->i && read(r->fd[0][0], &tok, 1) != 1)	/* the last pass */
		return (void *)1;
	pause_ms(250);		/* and past another before the threads end */
	return NULL;
}

int main(int argc, char **argv)
{
	static struct ring r;
	struct arg args[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	cpu_set_t mine;
	int bad = 0;

	r.n = argc > 1 ? atoi(argv[1]) : 4;
	r.rounds = argc > 2 ? atoi(argv[2]) : 200;
	if (r.n < 2 || r.n > MAX_THREADS || r.rounds < 1) {
		fprintf(stderr, "usage: pinthreads [THREADS (2-%d) [ROUNDS]]\n", MAX_THREADS);
		return 2;
	}
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return 1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mine))
			r.cpus[r.nr_cpus++] = c;
	pthread_barrier_init(&r.pinned, NULL, (unsigned int)r.n);
	for (int i = 0; i < r.n; i++)
		if (pipe(r.fd[i]))
			return 1;
	for (int i = 0; i < r.n; i++) {
		args[i] = (struct arg){ &r, i };
		if (pthread_create(&th[i], NULL, run, &args[i]))
			return 1;
	}
	for (int i = 0; i < r.n; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		bad |= ret != NULL;
	}
	return bad;
}
