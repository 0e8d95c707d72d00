// SPDX-License-Identifier: GPL-2.0
/*
 * record: COMMAND as a child (or no COMMAND: the whole system), until it
 * ends, --duration passes, an interrupt comes or a reader fails, with
 * SIGINT/SIGTERM/SIGHUP held for us from setup to teardown, so that a
 * tracefs instance is never left behind.
 */
#define _GNU_SOURCE		/* pipe2 */
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "record.h"

/* A pending SIGINT/SIGTERM/SIGHUP, taken off the queue; 0 if none. */
static int take_signal(const struct rec *r)
{
	static const struct timespec now = { 0, 0 };
	sigset_t set = r->sigs;

	sigdelset(&set, SIGCHLD);
	return sigtimedwait(&set, NULL, &now) > 0 ? 1 : 0;
}

/*
 * The child waits this long before exec.  dup_task_struct() hands it our
 * wakee_flips and wakee_flip_decay_ts (kernel/sched/fair.c record_wakee(),
 * 3.12 - 6.18), which no trace shows: once a second (HZ jiffies) and two
 * jiffies at HZ=100 have passed since the fork, COMMAND's first wakeup
 * finds the inherited stamp stale, halves the count and stamps that
 * moment, which is where analyze starts the halving schedule of a task
 * forked from one that existed before the trace.  The child wakes no one
 * while it waits, so its stamp stays ours.
 */
#define SETTLE_NS	1050000000L

static void settle(const struct timespec *forked)
{
	struct timespec now, left;
	long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = SETTLE_NS - ((now.tv_sec - forked->tv_sec) * 1000000000L +
			  (now.tv_nsec - forked->tv_nsec));
	if (ns <= 0)
		return;
	left = (struct timespec){ .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };
	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

/*
 * fork and exec COMMAND, SETTLE_NS after the fork.  The child reports a
 * failed exec through a close-on-exec pipe, so "no such command" is an
 * error of ours, not a status of a command that never ran.
 */
static int spawn(struct rec *r, pid_t *pid)
{
	struct timespec forked;
	int pfd[2], err = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC))
		return sr_rec_fail(r, SR_EXIT_FAIL, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &forked);
	*pid = fork();
	if (*pid < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		return sr_rec_fail(r, SR_EXIT_FAIL, -err, "fork: %s", strerror(err));
	}
	if (!*pid) {
		close(pfd[0]);
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
		settle(&forked);
		execvp(r->o->cmd[0], r->o->cmd);
		err = errno;
		/* If even this fails, the parent sees a plain exit status 127. */
		n = write(pfd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n != sizeof(err))
		return 0;
	waitpid(*pid, NULL, 0);
	return sr_rec_fail(r, SR_EXIT_BAD_INPUT, -err, "cannot run '%s': %s", r->o->cmd[0],
		    strerror(err));
}

/* Tracing off at once; with COMMAND, wait for it.  True when there is nothing to wait for. */
static bool stop_recording(struct rec *r, pid_t pid, const char *why)
{
	tracefs_trace_off(r->inst);
	fprintf(stderr, "schedreplay: %s: recording stopped%s\n", why,
		pid > 0 ? ", waiting for COMMAND to exit" : "");
	return pid <= 0;
}

/* Stop recording at the first interrupt; a second one kills COMMAND. */
static bool on_interrupt(struct rec *r, pid_t pid, const siginfo_t *si)
{
	if (r->signo) {
		if (pid > 0)	/* kill() of 0 or -1 would hit more than COMMAND */
			kill(pid, SIGKILL);
		return pid <= 0;
	}
	r->signo = si->si_signo;
	/* A terminal's Ctrl-C already reached COMMAND; pass on only what was sent to us. */
	if (pid > 0 && si->si_code != SI_KERNEL)
		kill(pid, si->si_signo);
	return stop_recording(r, pid, strsignal(si->si_signo));
}

/* --duration passed: as if record were interrupted. */
static bool on_duration(struct rec *r, pid_t pid)
{
	r->timed_out = true;
	if (pid > 0)
		kill(pid, SIGINT);
	return stop_recording(r, pid, "--duration reached");
}

/* A reader could not store its pages (a full disk...): nothing more can be kept. */
static bool on_reader_failure(struct rec *r, pid_t pid)
{
	char why[128];

	if (r->stream_failed)
		return pid <= 0;
	r->stream_failed = true;
	snprintf(why, sizeof(why), "storing the trace failed (%s)",
		 strerror(-sr_stream_failed(r->stream)));
	return stop_recording(r, pid, why);
}

/* The next signal, or -1 with errno EAGAIN when @end passed first. */
static int next_signal(struct rec *r, const struct timespec *end, siginfo_t *si)
{
	struct timespec now, left;

	if (!end)
		return sigwaitinfo(&r->sigs, si);
	clock_gettime(CLOCK_MONOTONIC, &now);
	left.tv_sec = end->tv_sec - now.tv_sec;
	left.tv_nsec = end->tv_nsec - now.tv_nsec;
	if (left.tv_nsec < 0) {
		left.tv_nsec += 1000000000L;
		left.tv_sec--;
	}
	if (left.tv_sec < 0) {
		errno = EAGAIN;
		return -1;
	}
	return sigtimedwait(&r->sigs, si, &left);
}

#define POLL_NS	100000000L	/* COMMAND's tasks' status read this often */

/* Handle one signal; true when recording is over. */
static bool on_signal(struct rec *r, pid_t pid, int sig, const siginfo_t *si)
{
	if (sig == SIGCHLD) {
		if (pid > 0)
			sr_rec_status_poll(r);	/* a zombie's status is still there */
		return pid > 0 && waitpid(pid, &r->status, WNOHANG) == pid;
	}
	if (sig == REC_SIG_READER)
		return on_reader_failure(r, pid);
	return on_interrupt(r, pid, si);
}

/* Until COMMAND ends (pid > 0), or without one an interrupt, --duration or a failure. */
/* CLOCK_MONOTONIC @sec seconds and @nsec ns from now. */
static struct timespec from_now(time_t sec, long nsec)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += sec;
	t.tv_nsec += nsec;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_nsec -= 1000000000L;
		t.tv_sec++;
	}
	return t;
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static int wait_end(struct rec *r, pid_t pid)
{
	double d = r->o->duration;
	struct timespec end = from_now((time_t)d, (long)((d - (double)(time_t)d) * 1e9));
	bool timed = d > 0;
	siginfo_t si;

	for (;;) {
		struct timespec poll, *until = timed ? &end : NULL;
		int sig;

		if (pid > 0) {	/* wake up to read COMMAND's status */
			poll = from_now(0, POLL_NS);
			if (!until || before(&poll, until))
				until = &poll;
		}
		sig = next_signal(r, until, &si);
		if (sig < 0 && errno == EAGAIN && until == &poll) {
			sr_rec_status_poll(r);
		} else if (sig < 0 && errno == EAGAIN) {
			timed = false;
			if (on_duration(r, pid))
				return 0;
		} else if (sig < 0 && errno != EINTR) {
			return sr_rec_fail(r, SR_EXIT_FAIL, -errno, "sigwaitinfo: %s", strerror(errno));
		} else if (sig > 0 && on_signal(r, pid, sig, &si)) {
			return 0;
		}
	}
}

static void print_what(const struct rec *r)
{
	char **cmd = r->o->cmd;

	if (!cmd) {
		fprintf(stderr, "schedreplay: recording the whole system ");
		if (r->o->duration > 0)
			fprintf(stderr, "for %g s (or until Ctrl-C)\n", r->o->duration);
		else
			fprintf(stderr, "until Ctrl-C\n");
		return;
	}
	fprintf(stderr, "schedreplay: running, after %.2f s (docs/record.md):", SETTLE_NS / 1e9);
	for (; *cmd; cmd++)
		fprintf(stderr, " %s", *cmd);
	fputc('\n', stderr);
}

int sr_rec_run(struct rec *r)
{
	pid_t pid = 0;
	int ret;

	if (take_signal(r))
		return sr_rec_fail(r, SR_EXIT_FAIL, -EINTR, "interrupted before COMMAND started");
	fprintf(stderr, "schedreplay: recording %zu sched events in tracefs instance %s: "
		"%ld KiB x %d CPUs, clock %s, streamed to disk\n", json_array_size(r->events),
		r->name, r->buffer_kb, r->nr_cpus, r->o->clock);
	print_what(r);
	/* On before the fork: the trace holds COMMAND's fork and exec. */
	if (tracefs_trace_on(r->inst))
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot turn tracing on");
	ret = r->o->cmd ? spawn(r, &pid) : 0;
	r->cmd_pid = pid;
	if (!ret)
		ret = wait_end(r, pid);
	tracefs_trace_off(r->inst);
	return ret;
}

/* Keep interrupts for ourselves from setup to teardown: an instance must not leak. */
void sr_rec_block_signals(struct rec *r)
{
	sigemptyset(&r->sigs);
	sigaddset(&r->sigs, SIGINT);
	sigaddset(&r->sigs, SIGTERM);
	sigaddset(&r->sigs, SIGHUP);
	sigaddset(&r->sigs, SIGCHLD);
	sigaddset(&r->sigs, REC_SIG_READER);
	sigprocmask(SIG_BLOCK, &r->sigs, &r->oldmask);
}

/* Interrupts that came too late to stop anything are consumed, not delivered. */
void sr_rec_unblock_signals(const struct rec *r)
{
	while (take_signal(r))
		;
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
}
