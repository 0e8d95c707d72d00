// SPDX-License-Identifier: GPL-2.0
/*
 * record: COMMAND as a child, with SIGINT/SIGTERM/SIGHUP held for us from
 * setup to teardown, so that a tracefs instance is never left behind.
 */
#define _GNU_SOURCE		/* pipe2 */
#include <errno.h>
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
 * fork and exec COMMAND.  The child reports a failed exec through a
 * close-on-exec pipe, so "no such command" is an error of ours, not a
 * status of a command that never ran.
 */
static int spawn(struct rec *r, pid_t *pid)
{
	int pfd[2], err = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC))
		return sr_rec_fail(r, SR_EXIT_FAIL, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
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

/* Stop recording at the first interrupt; a second one kills COMMAND. */
static void on_interrupt(struct rec *r, pid_t pid, const siginfo_t *si)
{
	if (pid <= 0)
		return;		/* kill() of 0 or -1 would hit more than COMMAND */
	if (r->signo) {
		kill(pid, SIGKILL);
		return;
	}
	r->signo = si->si_signo;
	tracefs_trace_off(r->inst);
	fprintf(stderr, "schedreplay: %s: recording stopped, waiting for COMMAND to exit\n",
		strsignal(si->si_signo));
	/* A terminal's Ctrl-C already reached COMMAND; pass on only what was sent to us. */
	if (si->si_code != SI_KERNEL)
		kill(pid, si->si_signo);
}

static int wait_command(struct rec *r, pid_t pid)
{
	siginfo_t si;

	for (;;) {
		int sig = sigwaitinfo(&r->sigs, &si);

		if (sig < 0 && errno == EINTR)
			continue;
		if (sig < 0)
			return sr_rec_fail(r, SR_EXIT_FAIL, -errno, "sigwaitinfo: %s", strerror(errno));
		if (sig != SIGCHLD)
			on_interrupt(r, pid, &si);
		else if (waitpid(pid, &r->status, WNOHANG) == pid)
			return 0;
	}
}

static void print_cmd(char **cmd)
{
	fprintf(stderr, "schedreplay: running:");
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
		"%ld KiB x %d CPUs, clock %s\n", json_array_size(r->events), r->name,
		r->buffer_kb, r->nr_cpus, r->o->clock);
	print_cmd(r->o->cmd);
	/* On before the fork: the trace holds COMMAND's fork and exec. */
	if (tracefs_trace_on(r->inst))
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot turn tracing on");
	ret = spawn(r, &pid);
	if (!ret)
		ret = wait_command(r, pid);
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
	sigprocmask(SIG_BLOCK, &r->sigs, &r->oldmask);
}

/* Interrupts that came too late to stop anything are consumed, not delivered. */
void sr_rec_unblock_signals(const struct rec *r)
{
	while (take_signal(r))
		;
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
}
