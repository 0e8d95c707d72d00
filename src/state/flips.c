// SPDX-License-Identifier: GPL-2.0
/*
 * The part of wakee_flips the trace cannot show: what a task held when the
 * trace began.  dup_task_struct() copies wakee_flips and
 * wakee_flip_decay_ts to a child, so every task forked in the trace from
 * one that existed before it carries the same unknown count B, halved
 * once per record_wakee() decay since (kernel/sched/fair.c record_wakee(),
 * 3.12 - 6.18).  A family is the set of tasks sharing one B: what the
 * kernel's choices teach about one member (wake_wide() must have been
 * true) is a lower bound on B for all of them — hackbench's receivers,
 * forked together, then woken in a burst by their parent.
 *
 * Each task keeps v.wakee_flips_inherited, the part of v.wakee_flips that is B's
 * (halved @flips_shift times); the rest is what the trace showed.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "state-priv.h"

static int fam_new(struct sr_state *s)
{
	if (s->nr_fam == s->cap_fam) {
		size_t cap = s->cap_fam ? 2 * s->cap_fam : 64;
		struct sr_flips_fam *f = realloc(s->fam, cap * sizeof(*f));

		if (!f)
			return -1;
		s->fam = f;
		s->cap_fam = cap;
	}
	s->fam[s->nr_fam] = (struct sr_flips_fam){ .far_need = UINT_MAX };
	return (int)s->nr_fam++;
}

/* The task's count is not pinned by the trace (a probe pins it). */
static bool flips_unknown(const struct sr_task *t)
{
	return t->v.wakee_flips_min != t->v.wakee_flips_max;
}

/*
 * Bring @t's share of its family's count into its estimate, up or down
 * (a scored B may fall: sr_st_flips_weigh()), within the trace's bounds.
 */
void sr_st_flips_sync(struct sr_state *s, struct sr_task *t)
{
	unsigned int want, d;

	if (!t || t->flips_fam < 0 || t->flips_shift >= 32)
		return;
	want = s->fam[t->flips_fam].base >> t->flips_shift;
	if (want > t->v.wakee_flips_inherited) {
		d = want - t->v.wakee_flips_inherited;
		if (t->v.wakee_flips_max - t->v.wakee_flips < d)
			d = t->v.wakee_flips_max - t->v.wakee_flips;
		t->v.wakee_flips += d;
	} else {
		d = t->v.wakee_flips_inherited - want;
		if (t->v.wakee_flips - t->v.wakee_flips_min < d)
			d = t->v.wakee_flips - t->v.wakee_flips_min;
		t->v.wakee_flips -= d;
	}
	t->v.wakee_flips_inherited = want;
}

/* record_wakee() halved @t's count: B's share halves with it. */
void sr_st_flips_halved(struct sr_task *t)
{
	t->v.wakee_flips_inherited >>= 1;
	if (t->flips_shift < 32)
		t->flips_shift++;
}

/* fork: the child carries its parent's B (a family begins at the first fork). */
void sr_st_flips_inherit(struct sr_state *s, struct sr_task *child, struct sr_task *parent)
{
	if (parent->flips_fam < 0 && flips_unknown(parent))
		parent->flips_fam = fam_new(s);
	child->flips_fam = parent->flips_fam;
	child->flips_shift = parent->flips_shift;
	child->v.wakee_flips_inherited = parent->v.wakee_flips_inherited;
}

/* A probe read the count: it no longer rests on B. */
void sr_st_flips_pinned(struct sr_task *t)
{
	t->flips_fam = -1;
	t->v.wakee_flips_inherited = 0;
}

/*
 * A lesson that needs B past the factor, from a member that decayed since
 * (its deficit doubles with each halving), may say more about that
 * member's own count than about the family's: B rises that far only once
 * FAR_LESSONS lessons, member after member, have each needed it, and then
 * to the least of their needs.  make fidelity, against B capped at the
 * factor: one such lesson lost 237 placements on a niced 6.12 trace whose
 * shell had few flips; five agreeing ones — `schedreplay record`'s own
 * flips, inherited by the hackbench it ran — gain 133 on 6.1 and 108 on
 * 6.12 (three: 160 and 86 but 26 lost on one trace; two: 60 lost on one).
 * Not while the task's group shares are unknown: the loads the lessons
 * came from were not the kernel's (a cgroup trace analysed without its
 * groups lost 149 of 5 021).
 * Returns the need to apply now, or UINT64_MAX.
 */
#define FAR_LESSONS	5
static uint64_t far_lesson(struct sr_flips_fam *f, int pid, unsigned int need)
{
	if (pid != f->far_pid) {
		f->far_pid = pid;
		f->far_count++;
	}
	if (need < f->far_need)
		f->far_need = need;
	return f->far_count >= FAR_LESSONS ? f->far_need : UINT64_MAX;
}

/*
 * The kernel's choice says @t's count was at least @n.  Raise B for its
 * family so that @t reaches @n (the other members move by their share), or
 * only @t's estimate when it has no family; never past the trace's bound.
 */
void sr_st_flips_at_least(struct sr_state *s, struct sr_task *t, unsigned int n)
{
	uint64_t need;
	unsigned int own;

	if (t->v.wakee_flips >= n || t->v.wakee_flips_max < n)
		return;
	if (t->flips_fam < 0 && flips_unknown(t))
		t->flips_fam = fam_new(s);
	/* B up to the factor (what makes members reach it on their own) at once */
	own = t->v.wakee_flips_inherited + (n - t->v.wakee_flips);
	need = t->flips_shift < 32 ? (uint64_t)own << t->flips_shift : UINT64_MAX;
	if (t->flips_fam >= 0 && need > n)
		need = need <= UINT_MAX && sr_st_group_known(s, t) ?
		       far_lesson(&s->fam[t->flips_fam], t->v.pid, (unsigned int)need) : UINT64_MAX;
	if (t->flips_fam >= 0 && need <= UINT_MAX) {
		if (need > s->fam[t->flips_fam].base)
			s->fam[t->flips_fam].base = (unsigned int)need;
		sr_st_flips_sync(s, t);
	}
	sr_flips_at_least(&t->v, n);
}

/*
 * @t's count had its family's B been b: own + ((b >> shift) & mask) (its
 * share halves with its own halvings; not a member: mask 0).
 */
struct flips_part {
	unsigned int own, shift, mask;
};

static struct flips_part flips_part(const struct sr_task *t, int fam)
{
	if (t->flips_fam != fam)
		return (struct flips_part){ t->v.wakee_flips, 0, 0 };
	return (struct flips_part){
		.own = sr_flips_seen(&t->v),
		.shift = t->flips_shift < 32 ? t->flips_shift : 0,
		.mask = t->flips_shift < 32 ? UINT_MAX : 0,
	};
}

/* The first candidate past @b whose share of B differs from @b's for @p's counts. */
static unsigned int part_end(unsigned int b, struct flips_part p)
{
	if (!p.mask || !(SR_FAM_B_MAX >> p.shift))
		return SR_FAM_B_MAX + 1;
	return ((b >> p.shift) + 1) << p.shift;
}

/*
 * A point to every candidate B under which wake_wide() said @wide.  The
 * counts hold over runs of candidates (a member's share is B >> its
 * halvings): one test per run, an add over the runs that agree, then the
 * top in one pass the compiler vectorises.  Returns the top score.
 */
static unsigned int fam_score(struct sr_flips_fam *f, struct flips_part pa, struct flips_part pw,
		      unsigned int factor, bool wide)
{
	unsigned int top = 0, b = 0;
	uint16_t m = 0;

	while (b <= SR_FAM_B_MAX) {
		unsigned int a = pa.own + ((b >> pa.shift) & pa.mask);
		unsigned int w = pw.own + ((b >> pw.shift) & pw.mask);
		unsigned int slave = a < w ? a : w, master = a < w ? w : a;
		bool pred = !(slave < factor || (uint64_t)master < (uint64_t)slave * factor);
		unsigned int end = part_end(b, pa), ew = part_end(b, pw);

		end = ew < end ? ew : end;
		if (pred != wide) {
			b = end;
			continue;
		}
		for (; b < end; b++)
			f->score[b]++;
	}
	for (int i = 0; i <= SR_FAM_B_MAX; i++)
		m = f->score[i] > m ? f->score[i] : m;
	top = m;
	/* all halve together once one reaches the top, before it would wrap */
	if (top == UINT16_MAX) {
		for (int i = 0; i <= SR_FAM_B_MAX; i++)
			f->score[i] >>= 1;
		top >>= 1;
	}
	return top;
}

/*
 * The candidate most lessons agree with (@top points); of those within a
 * 64th of it, the least.  The lessons bound B from below and above, and a
 * plateau of candidates agrees with nearly all of them, and the kernel's
 * B sat high on it on the 6.12 probe traces: hackbench's receivers, which
 * wake no one, keep the 13 flips they inherit (11 the record harness had
 * before the trace), scored as 14 - 31 within a 32nd of the top, 26 - 27
 * the top; a band of a 32nd took the plateau's foot (their estimate 9, now
 * 11).  Against the wakee_flips that --probes read (--probes-measure-only),
 * exact on 6.12 19.5 -> 28.9 % (hackbench sockets 43 -> 1,153 of 2,367,
 * pipes under cgroups 1,016 -> 2,084 of 3,673), on 6.1 23.8 -> 23.6 %;
 * make fidelity +63 placed wakeups on 6.12, -1 on 6.1.  The top alone (no
 * band): 6.12 31.8 %, but 6.1 22.1 % and 9 placed fewer.
 */
#define FAM_BEST_BAND	64
static unsigned int fam_best(const struct sr_flips_fam *f, unsigned int top)
{
	unsigned int b = 0;

	while (f->score[b] + top / FAM_BEST_BAND < top)
		b++;
	return b;
}

/*
 * The kernel showed wake_wide()'s outcome (@wide) for @p woken by @waker,
 * one of them in a family: every candidate B (0 .. SR_FAM_B_MAX) whose
 * counts give that outcome, with each member's own trace part and
 * halvings, scores a point.  Lessons are noisy (the answer that matched
 * may have matched for another reason), but where the candidate they
 * agree with most beats B = 0 by a 16th of its points (and at least
 * 4), it is the family's B, down as well as up, and true is returned;
 * else the caller's lower-bound lessons go on.  Unlike those, the score
 * weighs a narrow outcome against only the candidates that predicted wide
 * for the counts of that moment: the masters' counts grow, so early narrow
 * outcomes do not hold B down once the wide ones come (hackbench: the
 * receivers' inherited count shows only when the senders have flipped 4x
 * past it).  make fidelity: +293 placements on 6.1 (the harness's trace of
 * hackbench pipes under `schedreplay record`, 2 nodes x 2 LLCs: 88.8 ->
 * 95.3 %), -15 on 6.12; scored against the wakee_flips that --probes read
 * (--probes-measure-only), the estimate is exact more often on 7 of the 10
 * such recordings (6.12 sockets 0.1 -> 67.4 %) and less on 2.  Without the
 * margin over 0, messaging with threads (whose lessons favour no B
 * clearly) lost 266 of 3,850.
 */
#define FAM_MARGIN_MIN	4
#define FAM_MARGIN_DIV	16
bool sr_st_flips_weigh(struct sr_state *s, struct sr_task *p, struct sr_task *waker,
		       unsigned int factor, bool wide)
{
	int fam = p->flips_fam >= 0 ? p->flips_fam : waker->flips_fam;
	struct sr_flips_fam *f;
	unsigned int best, need;

	if (fam < 0 || !factor)
		return false;
	f = &s->fam[fam];
	best = fam_best(f, fam_score(f, flips_part(p, fam), flips_part(waker, fam), factor, wide));
	need = f->score[best] / FAM_MARGIN_DIV;
	if (need < FAM_MARGIN_MIN)
		need = FAM_MARGIN_MIN;
	if (f->score[best] < f->score[0] + need)
		return false;
	f->base = best;
	sr_st_flips_sync(s, p);
	sr_st_flips_sync(s, waker);
	return true;
}
