/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Base layer: what every other layer may use.  Error reporting, CPU masks,
 * the kernel's load-weight constants, kernel release numbers, a per-pid
 * table, a latency histogram, gzip NDJSON output, file hashing and a ring
 * that hands batches from one thread to another.
 * Nothing here knows about traces,
 * machines, runqueues or policies.
 *
 * Library code returns 0 or a negative errno and fills a struct sr_err
 * with the message a user reads; only main() exits.
 */
#ifndef SR_BASE_H
#define SR_BASE_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <jansson.h>

/* ------------------------------------------------------------ errors */

struct sr_err {
	char msg[512];
};

/* Format a message into @err (may be NULL) and return @ret, a negative errno. */
int sr_err_set(struct sr_err *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------ strings */

/*
 * Strings from a trace are bytes: comm is cut at 15 bytes even inside a
 * character, and prctl(PR_SET_NAME) takes anything.  Whatever goes into
 * JSON or text output passes through these (src/base/utf8.c).
 */

/* @s is valid UTF-8 (what jansson accepts). */
bool sr_utf8_valid(const char *s);
/*
 * Copy @s into @buf (@size > 0), each ill-formed sequence replaced by
 * U+FFFD; with @escape_controls, control bytes become "\xNN".  Cut at a
 * character boundary when @buf is short.  Returns the replacements made.
 */
int sr_utf8_repair(const char *s, char *buf, size_t size, bool escape_controls);
/* Room for @n bytes of input, whatever sr_utf8_repair() makes of them. */
#define SR_TEXT_SIZE(n)	((n) * 4 + 1)
/* @s as text output shows it (repaired, controls escaped), in @buf; "" for NULL. */
const char *sr_text(const char *s, char *buf, size_t size);
/*
 * Terminal columns of text @s (what sr_text() made): a CJK character takes
 * two, a combining mark none.  Tables pad by it, not by bytes.
 */
int sr_text_width(const char *s);
/* @s (may be @buf's own) padded with spaces to @width columns, in @buf; never cut but by @size. */
const char *sr_text_pad(const char *s, int width, char *buf, size_t size);
/* A JSON string of @s, repaired; json null for NULL; NULL only when out of memory. */
json_t *sr_json_str(const char *s);
/* The -errno a failed json_pack_ex() stands for: -ENOMEM only when memory ran out. */
int sr_json_errno(const json_error_t *e);

/* ------------------------------------------------------------ CPU masks */

/*
 * Machines up to 4096 CPUs (the largest SGI UV; CONFIG_MAXSMP allows 8192):
 * a mask is 512 bytes, copied and scanned at every placement, so twice
 * that would slow every trace for machines nobody traces.
 */
#define SR_MAX_CPUS	4096
#define SR_MASK_WORDS	(SR_MAX_CPUS / 64)

#define SR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct sr_cpumask {
	uint64_t bits[SR_MASK_WORDS];
	/*
	 * Only words below nw hold the mask; those above are ignored (never
	 * read), so a walk, a count or a clear stops at the highest CPU ever
	 * set, not at CPU 4095: a 2-CPU trace's masks cost one word, and
	 * clearing a mask writes nothing but nw.  A zeroed mask is empty.
	 */
	int nw;
};

static inline void sr_mask_clear(struct sr_cpumask *m)
{
	m->nw = 0;
}

static inline void sr_mask_set(struct sr_cpumask *m, int cpu)
{
	int w = cpu / 64;

	while (m->nw <= w)
		m->bits[m->nw++] = 0;
	m->bits[w] |= 1ULL << (cpu % 64);
}

static inline void sr_mask_unset(struct sr_cpumask *m, int cpu)
{
	if (cpu / 64 < m->nw)
		m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool sr_mask_test(const struct sr_cpumask *m, int cpu)
{
	if (cpu < 0 || cpu / 64 >= m->nw)
		return false;
	return m->bits[cpu / 64] & (1ULL << (cpu % 64));
}

/* @m = @a, copying only the words that hold it. */
static inline void sr_mask_copy(struct sr_cpumask *m, const struct sr_cpumask *a)
{
	memcpy(m->bits, a->bits, (size_t)a->nw * sizeof(a->bits[0]));
	m->nw = a->nw;
}

/* @m |= @a */
static inline void sr_mask_or(struct sr_cpumask *m, const struct sr_cpumask *a)
{
	for (int i = 0; i < a->nw; i++)
		m->bits[i] = (i < m->nw ? m->bits[i] : 0) | a->bits[i];
	if (a->nw > m->nw)
		m->nw = a->nw;
}

/* @m &= @a */
static inline void sr_mask_and(struct sr_cpumask *m, const struct sr_cpumask *a)
{
	for (int i = 0; i < m->nw; i++)
		m->bits[i] &= i < a->nw ? a->bits[i] : 0;
}

/* @a is contained in @b. */
static inline bool sr_mask_subset(const struct sr_cpumask *a, const struct sr_cpumask *b)
{
	for (int i = 0; i < a->nw; i++)
		if (a->bits[i] & ~(i < b->nw ? b->bits[i] : 0))
			return false;
	return true;
}

static inline bool sr_mask_intersects(const struct sr_cpumask *a, const struct sr_cpumask *b)
{
	int n = a->nw < b->nw ? a->nw : b->nw;

	for (int i = 0; i < n; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

static inline bool sr_mask_equal(const struct sr_cpumask *a, const struct sr_cpumask *b)
{
	int n = a->nw > b->nw ? a->nw : b->nw;

	for (int i = 0; i < n; i++)
		if ((i < a->nw ? a->bits[i] : 0) != (i < b->nw ? b->bits[i] : 0))
			return false;
	return true;
}

int sr_mask_weight(const struct sr_cpumask *m);
/* Next set CPU at or after @cpu, or -1. */
static inline int sr_mask_next(const struct sr_cpumask *m, int cpu)
{
	if (cpu < 0)
		cpu = 0;
	for (int w = cpu / 64; w < m->nw; w++, cpu = w * 64) {
		uint64_t word = m->bits[w] >> (cpu % 64);

		if (word)
			return cpu + __builtin_ctzll(word);
	}
	return -1;
}
/* First set CPU, or -1. */
static inline int sr_mask_first(const struct sr_cpumask *m)
{
	return sr_mask_next(m, 0);
}

#define sr_for_each_cpu(cpu, m) \
	for ((cpu) = sr_mask_first(m); (cpu) >= 0; (cpu) = sr_mask_next(m, (cpu) + 1))

/*
 * for_each_cpu_wrap(): the set CPUs from @start up, then those below it.
 * The first one, then the one after @cpu; -1 when the walk is done.
 */
static inline int sr_mask_wrap_first(const struct sr_cpumask *m, int start)
{
	int n = sr_mask_next(m, start);

	if (n >= 0)
		return n;
	n = sr_mask_next(m, 0);
	return n < start ? n : -1;
}

static inline int sr_mask_wrap_next(const struct sr_cpumask *m, int cpu, int start)
{
	int n = sr_mask_next(m, cpu + 1);

	if (cpu < start)
		return n < start ? n : -1;
	if (n >= 0)
		return n;
	n = sr_mask_next(m, 0);
	return n < start ? n : -1;
}

#define sr_for_each_cpu_wrap(cpu, m, start) \
	for ((cpu) = sr_mask_wrap_first(m, start); (cpu) >= 0; \
	     (cpu) = sr_mask_wrap_next(m, cpu, start))

/* How many CPUs this process may run on (sched_getaffinity); at least 1. */
int sr_cpus_allowed(void);

/* ------------------------------------------------------------ thread ring */

/*
 * A bounded single-producer/single-consumer ring of @nr slots of @size bytes
 * (src/base/ring.c): one thread fills slots, another empties them, in order.
 * Each side sleeps only when the ring is full (empty) for it.
 */
struct sr_ring;

int sr_ring_new(struct sr_ring **out, unsigned int nr, size_t size);
void sr_ring_free(struct sr_ring *r);
/* Producer: the next slot to fill, waiting while the ring is full; NULL once closed. */
void *sr_ring_claim(struct sr_ring *r);
/* Producer: hand the claimed slot over. */
void sr_ring_publish(struct sr_ring *r);
/* Producer: nothing more will be published. */
void sr_ring_finish(struct sr_ring *r);
/* Consumer: the oldest published slot, waiting while none is; NULL after the last. */
void *sr_ring_next(struct sr_ring *r);
/* Consumer: done with the slot sr_ring_next() gave. */
void sr_ring_release(struct sr_ring *r);
/* Consumer: it takes no more; a producer's claim, even a waiting one, returns NULL. */
void sr_ring_close(struct sr_ring *r);

/* ------------------------------------------------------------ kernel constants */

/* include/linux/sched/prio.h */
#define SR_MAX_RT_PRIO		100
#define SR_DEFAULT_PRIO		120		/* nice 0 */
#define SR_MAX_PRIO		140
/* Load of a nice-0 task in the kernel's scaled-down unit (NICE_0_LOAD). */
#define SR_NICE_0_LOAD		1024UL
#define SR_WEIGHT_IDLEPRIO	3UL
#define SR_CAPACITY_SCALE	1024UL		/* SCHED_CAPACITY_SCALE */
#define SR_NSEC_PER_SEC		1000000000ULL
#define SR_NSEC_PER_MSEC	1000000ULL

/*
 * Kernel nice -> weight table (sched_prio_to_weight[], identical in every
 * version from 2.6.37 to 6.18).  @prio is the kernel prio (100..139 for
 * CFS tasks); RT/DL prios return 0 (they add no CFS load).
 */
unsigned long sr_prio_to_weight(int prio);

/* ------------------------------------------------------------ kernel releases */

/*
 * A kernel version as one comparable number: major.minor in the high bytes,
 * and for 2.6.x kernels the third number in the low byte, so that
 * 2.6.37 < 2.6.38 < 3.0 < 6.1 < 6.12.
 */
#define SR_KV(major, minor)		(((major) << 16) | ((minor) << 8))
#define SR_KV3(major, minor, sub)	(SR_KV(major, minor) | (sub))
#define SR_KV_MAJOR(kv)			((kv) >> 16)
#define SR_KV_MINOR(kv)			(((kv) >> 8) & 0xff)
#define SR_KV_SUB(kv)			((kv) & 0xff)

/*
 * SR_KV of a `uname -r` release: "6.1.0-27-amd64" -> SR_KV(6, 1),
 * "2.6.38-rc1" -> SR_KV3(2, 6, 38).  0 when it does not parse (or is a
 * 2.x release other than 2.6.x).
 */
unsigned int sr_release_kv(const char *release);
/* "Linux host 6.1.0-27-amd64 #1 SMP ..." (uname -a) -> "6.1.0-27-amd64"; "" if malformed. */
void sr_release_from_uname(const char *uname, char *release, size_t size);

/* ------------------------------------------------------------ per-pid table */

/*
 * A small open-addressed table keyed by pid, O(entries).  Elements are any
 * struct whose first member is `int pid`; pid 0 marks an empty slot.
 * Elements move when the table grows: keep pointers only between calls
 * that add, or store pointers as the elements.
 */
struct sr_pidtab {
	void *slots;
	size_t elsize, nr_slots, used;
};

int sr_pidtab_init(struct sr_pidtab *t, size_t elsize);
/* sr_pidtab_get() past its inline test. */
void *sr_pidtab_get_slow(struct sr_pidtab *t, int pid);

/* Where @pid's probe starts in a table of @n slots (a power of two). */
static inline size_t sr_pidtab_hash(int pid, size_t n)
{
	return ((uint32_t)pid * 2654435761u) & (n - 1);
}

/*
 * The element for @pid, created zeroed if new; NULL on ENOMEM or pid <= 0.
 * Inline: a lookup per event, nearly always of a pid in its first slot.
 * That case returns at once only when no growth is due, so the table
 * grows at the same call as through the slow path (its slot order, which
 * listings walk, is the same).
 */
static inline void *sr_pidtab_get(struct sr_pidtab *t, int pid)
{
	if (pid > 0 && (t->used + 1) * 2 <= t->nr_slots) {
		int *home = (int *)((char *)t->slots + sr_pidtab_hash(pid, t->nr_slots) * t->elsize);

		if (*home == pid)
			return home;
	}
	return sr_pidtab_get_slow(t, pid);
}
/* The element for @pid, or NULL. */
void *sr_pidtab_find(const struct sr_pidtab *t, int pid);
/* Element @i of the slot array (may be empty: pid 0), for sorting and listing. */
void *sr_pidtab_slot(const struct sr_pidtab *t, size_t i);
void sr_pidtab_free(struct sr_pidtab *t);

/* ------------------------------------------------------------ histogram */

/*
 * A fixed-size log-linear histogram of nanosecond values: 16 buckets per
 * power of two, so a reported percentile is within 1/16 (6.25 %) of the
 * true value, in O(1) memory however long the trace.
 */
#define SR_HIST_SUB	16
#define SR_HIST_BUCKETS	(SR_HIST_SUB + (64 - 4) * SR_HIST_SUB)

struct sr_hist {
	uint64_t count, sum, min, max;
	uint32_t b[SR_HIST_BUCKETS];
};

void sr_hist_add(struct sr_hist *h, uint64_t v);
/* The @p-th percentile (a bucket's upper bound, at most the max); 0 when empty. */
uint64_t sr_hist_pct(const struct sr_hist *h, double p);
/* {"count", "mean_ns", "min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"}; nulls when empty. */
json_t *sr_hist_json(const struct sr_hist *h);

/* ------------------------------------------------------------ files */

/*
 * Rows of a table written as NDJSON: plain, gzip or zstd.  Lines gather in
 * one staging buffer that leaves in large blocks.  A failed write is
 * sticky: close() reports it, so a caller checks once.
 */
enum sr_ndjson_kind { SR_NDJSON_PLAIN, SR_NDJSON_GZIP, SR_NDJSON_ZSTD };

struct sr_ndjson {
	enum sr_ndjson_kind kind;
	void *gz;			/* gzFile */
	void *zs;			/* ZSTD_CCtx */
	FILE *f;			/* plain and zstd output; stdout for "-" */
	char *stage, *zout;
	size_t stage_size, stage_len, zout_size;
	bool failed;
	uint64_t rows;
};

/* A gzip file (the batch dataset's tables).  0 or -errno. */
int sr_ndjson_open(struct sr_ndjson *w, const char *path);
/* By @path's name: "*.gz" gzip, "*.zst" zstd, "-" stdout, else plain.  0 or -errno. */
int sr_ndjson_open_by_name(struct sr_ndjson *w, const char *path);
/* One compact line; 0, or -EIO once any write failed. */
int sr_ndjson_write(struct sr_ndjson *w, const json_t *row);
/*
 * A line a JSON library writes piece by piece straight into the stage:
 * sr_ndjson_put() (the signature of yajl's print callback; @w is the
 * writer) for each piece, then sr_ndjson_end_line(), 0 or -EIO.
 */
void sr_ndjson_put(void *w, const char *s, size_t n);
int sr_ndjson_end_line(struct sr_ndjson *w);
/* Flush and close (stdout is flushed, not closed); 0 or -EIO when any write failed. */
int sr_ndjson_close(struct sr_ndjson *w);

/* SHA-256 of a file's contents as 64 lower-case hex digits, and its size.  0 or -errno. */
int sr_sha256_file(const char *path, char hex[65], uint64_t *size);
/* SHA-256 of a string, as hex. */
void sr_sha256_str(const char *s, char hex[65]);

#endif /* SR_BASE_H */
