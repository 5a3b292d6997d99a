/*
 * soak - a randomized soak of the whole stack (issue 18): several nodes on the Verilated cluster,
 * several user processes per node, random RDMA writes and reads between processes of different
 * nodes under a small pin budget and every switch fault kind, every byte and every completion
 * checked. docs/soak.md describes what is checked and how to read the summary.
 *
 * Per process (a coroutine with its own pid, device, endpoint): 3-8 registered buffers (one
 * read-only "constant" buffer, the others with random remote rights, lengths up to 300 KiB,
 * starts misaligned) plus a private scratch buffer for fences; (node, pid, handle, rkey) are
 * published out of band (shared memory of this program). Each process then posts random writes
 * and reads to random buffers of processes on other nodes (--loopback: of any other process, its
 * own node's too, through the NIC's loopback): length 1 B .. 256 KiB (log-uniform,
 * plus page edges), both offsets random (misaligned), signalled or not, up to --window in flight.
 *
 * Oracle:
 *  - A shadow copy of every buffer. Every byte range an operation touches is locked while the
 *    operation is in flight (a global range lock per buffer: a range written by the NIC or by
 *    the CPU before the post excludes everything else, a range the NIC only reads excludes
 *    writers), so the content of every range is determined. Before a write the
 *    initiator fills its source range with a pattern unique to the operation; before a read it
 *    poisons the destination range the same way.
 *  - When an operation is known complete - its own completion, a later completion on the same
 *    endpoint, or nic_outstanding() dropping below the operations not yet known complete
 *    (requests retire in order, docs/api.md) - its destination bytes are read from the simulated
 *    host memory and compared with the source; then the shadow is updated and the locks freed.
 *  - Completions: the wr_id must be one in flight on this endpoint; completions come in request
 *    order; every signalled request gets exactly one; an unsignalled request gets one only if it
 *    failed; a SUCCESS carries the request's op and length. On a healthy run (links up, faults
 *    transient) every operation must succeed: any error status is a failure, UNREACHABLE is a
 *    "give-up on a healthy link".
 *  - The unpinned-DMA oracle of every host is armed in fail-loudly mode: a DMA to an unpinned or
 *    absent frame prints the violation and the command that reproduces it, and exits 1.
 *  - At the end: every buffer of every process is compared with its shadow (before and again
 *    after the devices are closed), every endpoint and device is closed, and no page may stay
 *    pinned nor any driver object (process, buffer, endpoint) stay alive.
 *  - A process that sees no completion for --stall cycles while it has work in flight reports a
 *    stall with what is outstanding; --max-cycles bounds the whole run.
 *
 * Failure classes (counted, printed with the seed): false_success (a SUCCESS, explicit or
 * implied, whose bytes were not there), mismatch (final content differs from the shadow),
 * giveup (UNREACHABLE), error (any other error status, or an API error at a call), stall,
 * oracle, leak, order (completions out of request order; an implied completion whose data
 * landed only later), completion (lost, duplicate, unknown or invented completions, wrong
 * op/bytes).
 *
 * Usage: soak [options] (soak --help). Exit 0 pass, 1 fail, 2 usage.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "coro.h"
#include "hostsw.h"
#include "nic.h"
#include "nodedbg.h"
#include "systest_util.h"

#ifndef SOAK_DEFAULT_IMAGE
#define SOAK_DEFAULT_IMAGE "build/fw/ncp.img"
#endif

#define MAXNODES 16
#define MAXPROCS 8   /* per node */
#define MAXB 9       /* buffers per process: up to 8 plus the scratch buffer */
#define WMAX 32      /* operations in flight per process */
#define LKMAX 128    /* in-flight ranges per buffer */
#define DMAX 64      /* deferred re-checks per process */
#define HMAX 64      /* destination history per buffer */
#define MAXLEN 262144u
#define BUF_MAX (300u * 1024u)
#define VA_BASE 0x40000000ull
#define SPACING 0x100000ull /* every buffer in its own VMH line */
#define CONST_LEN 65536u
#define SCRATCH_SLOTS 64u
#define SCRATCH_SLOT 128u
#define WAIT_CHUNK 1000000ull
#define RECHECK_AFTER 2000000ull /* re-check a deferred op after 10 ms */
#define RECHECK_GIVEUP 40000000ull /* and decide after 200 ms */
#define MAXMSG 40                /* detailed failure lines printed */
#define MAXMSG_CLASS 6           /* of each class */

enum fclass { F_FALSE_SUCCESS, F_MISMATCH, F_GIVEUP, F_ERROR, F_STALL, F_ORACLE, F_LEAK, F_ORDER, F_COMPLETION, F__N };
static const char *const fclass_name[F__N] = { "false_success", "mismatch", "giveup", "error", "stall",
                                               "oracle", "leak", "order", "completion" };

struct cfg {
    uint64_t seed;
    unsigned nodes, procs, ops, window;
    int loopback; /* --loopback: targets on the initiator's own node too (issue 15) */
    int hwm;                                 /* -1: random 128..384 per node */
    double drop, corrupt, duplicate, delay;  /* < 0: random 1..5 % */
    double signal;                           /* probability that an op is signalled */
    uint64_t max_cycles, stall, pressure;    /* pressure: OS page-migration period (0 = off) */
    const char *image;
    int inject;                              /* self-test: corrupt one byte before the final check */
    int verbose;
    uint32_t xopts;                          /* --flow, --cc, --sr: the NCPs' transport options (INIT) */
    int pause;                               /* --pause: the switch honours the MACs' pause requests */
};

struct lockent {
    uint32_t lo, hi; /* [lo, hi) */
    uint8_t w, used;
};

struct buf {
    uint64_t va;
    uint32_t len, rights;
    int is_const, is_scratch;
    struct nic_mr mr;
    uint8_t *shadow;
    struct lockent lk[LKMAX];
    struct hist { /* the last ops that had this buffer as destination (diagnosis) */
        uint64_t key, wr_id, t;
        uint32_t off, len;
        int kind, src_const;
    } h[HMAX];
    unsigned hn;
};

struct proc;

enum { K_WRITE, K_READ };

struct op {
    uint64_t wr_id, key, t_post;
    int kind, sig, fence;
    uint32_t len, loff, roff;
    struct proc *lp, *rp;
    int lb, rb;
    int lkl, lkr; /* lock slots */
    int implied;  /* deferred: known complete by implication (not its own completion) */
    uint64_t t_def;
};

struct soak;

struct proc {
    struct soak *s;
    unsigned node, idx, gidx;
    uint32_t pid;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    unsigned nb; /* buffers including scratch (the last) */
    struct buf b[MAXB];
    uint64_t rng;
    unsigned window, nops, posted;
    struct op q[WMAX + 2];
    unsigned qh, qn;
    struct op dq[DMAX];
    unsigned dn;
    uint64_t seq, last_retired_seq;
    uint64_t skipped[WMAX]; /* signalled wr_ids retired by implication (their completion is late) */
    unsigned nskipped;
    unsigned fence_slot;
    uint64_t last_progress;
    uint8_t *tmp;
    /* counters */
    uint64_t ok_ops, ok_bytes, writes, reads, fences, sig, unsig, implied_ok, cqes;
    int ready, finished, closed;
};

struct node_ctx {
    hostsw_t *hs;
    nicdrv_t *drv;
    os_t *os;
    uint32_t hwm;
    int probed, done;
    struct nic_stats ncp;
    struct nicdrv_stats drvs;
    int have_stats;
};

struct soak {
    struct cfg c;
    cluster_t *cl;
    costs_t *costs;
    uint8_t *img;
    size_t img_len;
    struct node_ctx n[MAXNODES];
    struct proc *p; /* nodes * procs */
    unsigned np;
    double f_drop, f_corrupt, f_dup, f_delay;
    uint64_t fails[F__N];
    uint64_t status_count[16]; /* by -status */
    unsigned msgs;
    int quiet;
    int abort;
    unsigned nready, nfinished, nclosed, nmasters;
    int verified, all_closed;
    uint64_t all_done_at;
    const char *repro;
};

static struct soak *g_soak; /* for the oracle hook */

/* ---- helpers ---- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rnd(uint64_t *x, uint32_t n) /* 0..n-1 */
{
    return n ? (uint32_t)(splitmix(x) % n) : 0;
}

static double rndf(uint64_t *x)
{
    return (double)(splitmix(x) >> 11) / 9007199254740992.0;
}

static void pattern(uint8_t *dst, uint32_t len, uint64_t key)
{
    for (uint32_t i = 0; i < len; i += 8) {
        uint64_t x = key ^ ((uint64_t)i * 0x2545F4914F6CDD1Dull), v = splitmix(&x);
        for (uint32_t j = 0; j < 8 && i + j < len; j++)
            dst[i + j] = (uint8_t)(v >> (8 * j));
    }
}

static void fail(struct soak *s, enum fclass f, const char *fmt, ...)
{
    va_list ap;
    if (++s->fails[f] > MAXMSG_CLASS || s->msgs >= MAXMSG) {
        s->quiet = 1; /* the diagnosis lines that follow a message are skipped too */
        return;
    }
    s->msgs++;
    s->quiet = 0;
    fprintf(stderr, "soak: seed %" PRIu64 ": %s: ", s->c.seed, fclass_name[f]);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static const char *kind_str(int k)
{
    return k == K_WRITE ? "write" : "read";
}

static void op_str(const struct op *o, char *b, size_t n)
{
    snprintf(b, n, "%s%s wr_id %#" PRIx64 " %u B local n%u.p%u buf %d +%u remote n%u.p%u buf %d +%u %s, posted at %" PRIu64,
             o->fence ? "fence " : "", kind_str(o->kind), o->wr_id, o->len, o->lp->node, o->lp->idx, o->lb, o->loff,
             o->rp->node, o->rp->idx, o->rb, o->roff, o->sig ? "signalled" : "unsignalled", o->t_post);
}

/* ---- range locks ---- */

static int lock_free(const struct buf *b, uint32_t lo, uint32_t hi, int w)
{
    for (unsigned i = 0; i < LKMAX; i++) {
        const struct lockent *e = &b->lk[i];
        if (e->used && lo < e->hi && e->lo < hi && (w || e->w))
            return 0;
    }
    return 1;
}

static int lock_take(struct buf *b, uint32_t lo, uint32_t hi, int w)
{
    for (unsigned i = 0; i < LKMAX; i++)
        if (!b->lk[i].used) {
            b->lk[i] = (struct lockent){ lo, hi, (uint8_t)w, 1 };
            return (int)i;
        }
    return -1;
}

static void unlock_op(struct op *o)
{
    o->lp->b[o->lb].lk[o->lkl].used = 0;
    o->rp->b[o->rb].lk[o->lkr].used = 0;
}

/* ---- verification ---- */

/* Destination of o: (proc, buffer, offset); source likewise. */
static void op_dst(struct op *o, struct proc **p, struct buf **b, uint32_t *off)
{
    if (o->kind == K_WRITE) {
        *p = o->rp, *b = &o->rp->b[o->rb], *off = o->roff;
    } else {
        *p = o->lp, *b = &o->lp->b[o->lb], *off = o->loff;
    }
}

static const uint8_t *op_src_shadow(struct op *o)
{
    return o->kind == K_WRITE ? o->lp->b[o->lb].shadow + o->loff : o->rp->b[o->rb].shadow + o->roff;
}

/* 1: the destination holds the source's bytes; 0: not (*first = first differing byte); -1: read error */
static int op_check(struct proc *me, struct op *o, uint32_t *first)
{
    struct proc *dp;
    struct buf *db;
    uint32_t off;
    const uint8_t *want = op_src_shadow(o);
    op_dst(o, &dp, &db, &off);
    if (os_read(dp->os, dp->pid, db->va + off, me->tmp, o->len) != SIM_OK)
        return -1;
    if (!memcmp(me->tmp, want, o->len))
        return 1;
    for (*first = 0; *first < o->len && me->tmp[*first] == want[*first]; (*first)++)
        ;
    return 0;
}

/* After a failed check (tmp holds the destination): where it is wrong, and whether the wrong
 * bytes still hold what was there before the op (never written) or something else. */
static void op_diagnose(struct soak *s, struct op *o, const uint8_t *tmp)
{
    struct proc *dp;
    struct buf *db;
    uint32_t off, runs = 0, bad = 0, old = 0;
    const uint8_t *want = op_src_shadow(o);
    char line[512];
    size_t n = 0;
    op_dst(o, &dp, &db, &off);
    for (uint32_t i = 0; i < o->len;) {
        uint32_t j = i, o2 = 0;
        if (tmp[i] == want[i]) {
            i++;
            continue;
        }
        while (j < o->len && tmp[j] != want[j]) {
            o2 += tmp[j] == db->shadow[off + j];
            j++;
        }
        bad += j - i;
        old += o2;
        if (runs++ < 6 && n < sizeof line - 80)
            n += (size_t)snprintf(line + n, sizeof line - n, " [+%u,+%u) va %#" PRIx64 "%s", i, j,
                                  db->va + off + i, o2 == j - i ? " old" : o2 ? " part-old" : " other");
        i = j;
    }
    if (s->quiet)
        return;
    fprintf(stderr, "soak:   wrong bytes %u in %u runs (%u still the old content):%s%s\n", bad, runs, old,
            n ? line : "", runs > 6 ? " ..." : "");
    /* where do the wrong bytes come from? the first runs against the patterns of earlier ops
     * into this buffer (a write's data, a read's poison), then against every buffer's content */
    uint8_t *pat = malloc(MAXLEN);
    for (uint32_t i = 0, shown = 0; i < o->len && shown < 3 && pat; i++) {
        uint32_t j = i, w, found = 0;
        if (tmp[i] == want[i])
            continue;
        while (j < o->len && tmp[j] != want[j])
            j++;
        w = j - i < 16 ? j - i : 16;
        shown++;
        for (unsigned h = 0; h < HMAX && h < db->hn; h++) {
            const struct hist *e = &db->h[(db->hn - 1 - h) % HMAX];
            uint32_t at = off + i;
            if (e->src_const && e->kind == K_WRITE)
                continue;
            if (at < e->off || at + w > e->off + e->len)
                continue;
            pattern(pat, e->len, e->key);
            if (!memcmp(pat + (at - e->off), tmp + i, w)) {
                fprintf(stderr, "soak:   dst +%u..+%u: the %s of the earlier %s wr_id %#" PRIx64 " posted at %" PRIu64
                        " (+%u, %u B)\n", i, j, e->kind == K_WRITE ? "data" : "poison",
                        e->kind == K_WRITE ? "write" : "read", e->wr_id, e->t, e->off, e->len);
                found = 1;
                break;
            }
        }
        for (unsigned pi = 0; pi < s->np && !found; pi++)
            for (unsigned b = 0; b < s->p[pi].nb && !found; b++) {
                const struct buf *sb = &s->p[pi].b[b];
                const uint8_t *hit = sb->shadow && w >= 8 ? memmem(sb->shadow, sb->len, tmp + i, w) : NULL;
                if (hit) {
                    fprintf(stderr, "soak:   dst +%u..+%u: the bytes of n%u.p%u buf %u +%u\n", i, j, s->p[pi].node,
                            s->p[pi].idx, b, (uint32_t)(hit - sb->shadow));
                    found = 1;
                }
            }
        if (!found)
            fprintf(stderr, "soak:   dst +%u..+%u: bytes of unknown origin\n", i, j);
        i = j;
    }
    free(pat);
}

static void op_apply(struct op *o)
{
    struct proc *dp;
    struct buf *db;
    uint32_t off;
    op_dst(o, &dp, &db, &off);
    memmove(db->shadow + off, op_src_shadow(o), o->len);
}

/* The destination's content is unknown (failed op): take it from memory. */
static void op_resync(struct proc *me, struct op *o)
{
    struct proc *dp;
    struct buf *db;
    uint32_t off;
    op_dst(o, &dp, &db, &off);
    if (os_read(dp->os, dp->pid, db->va + off, me->tmp, o->len) == SIM_OK)
        memcpy(db->shadow + off, me->tmp, o->len);
}

static void op_done_ok(struct proc *p, struct op *o)
{
    op_apply(o);
    unlock_op(o);
    p->ok_ops++;
    p->ok_bytes += o->len;
}

static void defer(struct proc *p, struct op *o, int implied)
{
    struct soak *s = p->s;
    if (p->dn == DMAX) { /* no room: decide now */
        fail(s, F_FALSE_SUCCESS, "n%u.p%u: too many deferred checks", p->node, p->idx);
        op_resync(p, o);
        unlock_op(o);
        return;
    }
    p->dq[p->dn] = *o;
    p->dq[p->dn].implied = implied;
    p->dq[p->dn].t_def = coro_now();
    p->dn++;
}

/* Re-check deferred operations; final: decide all of them now. */
static void recheck(struct proc *p, int final)
{
    struct soak *s = p->s;
    for (unsigned i = 0; i < p->dn;) {
        struct op *o = &p->dq[i];
        uint64_t age = coro_now() - o->t_def;
        uint32_t first = 0;
        char d[256];
        int r;
        if (!final && age < RECHECK_AFTER) {
            i++;
            continue;
        }
        r = op_check(p, o, &first);
        op_str(o, d, sizeof d);
        if (r == 1) { /* the data arrived after it was known complete */
            if (o->implied)
                fail(s, F_ORDER, "n%u.p%u: %s: a later completion (or nic_outstanding) retired it %" PRIu64
                     " cycles before its data was in place", p->node, p->idx, d, age);
            else
                fail(s, F_FALSE_SUCCESS, "n%u.p%u: %s: SUCCESS reported, data in place only %" PRIu64 " cycles later",
                     p->node, p->idx, d, age);
        } else if (!final && age < RECHECK_GIVEUP) {
            i++;
            continue;
        } else {
            fail(s, F_FALSE_SUCCESS, "n%u.p%u: %s: %s, destination byte %u still wrong after %" PRIu64 " cycles",
                 p->node, p->idx, d, o->implied ? "retired (implied success)" : "SUCCESS", first, age);
            if (r == 0)
                op_diagnose(s, o, p->tmp);
        }
        op_resync(p, o);
        unlock_op(o);
        p->dq[i] = p->dq[--p->dn];
    }
}

/* An op is known complete without an error: check its bytes now. */
static void retire_ok(struct proc *p, struct op *o, int implied)
{
    uint32_t first = 0;
    int r = op_check(p, o, &first);
    if (r == 1) {
        op_done_ok(p, o);
        if (implied)
            p->implied_ok++;
    } else {
        if (r < 0)
            fail(p->s, F_ERROR, "n%u.p%u: cannot read the destination of wr_id %#" PRIx64, p->node, p->idx, o->wr_id);
        defer(p, o, implied);
    }
}

static void retire_err(struct proc *p, struct op *o, int status)
{
    struct soak *s = p->s;
    char d[256];
    op_str(o, d, sizeof d);
    s->status_count[(unsigned)(-status) & 15]++;
    if (status == NIC_WC_UNREACHABLE)
        fail(s, F_GIVEUP, "n%u.p%u: %s: UNREACHABLE on a healthy link (after %" PRIu64 " cycles)", p->node, p->idx, d,
             coro_now() - o->t_post);
    else
        fail(s, F_ERROR, "n%u.p%u: %s: completed %s", p->node, p->idx, d, nic_wc_status_str(status));
    op_resync(p, o);
    unlock_op(o);
}

/* Pop the oldest op in flight. */
static struct op *q_at(struct proc *p, unsigned i)
{
    return &p->q[(p->qh + i) % (WMAX + 2)];
}

static void q_pop(struct proc *p)
{
    p->last_retired_seq = q_at(p, 0)->wr_id & 0xFFFFFFFFFFFFull;
    p->qh = (p->qh + 1) % (WMAX + 2);
    p->qn--;
    p->last_progress = coro_now();
}

static void on_completion(struct proc *p, const struct nic_wc *wc)
{
    struct soak *s = p->s;
    unsigned j;
    char d[256];

    p->cqes++;
    for (j = 0; j < p->qn && q_at(p, j)->wr_id != wc->wr_id; j++)
        ;
    if (j == p->qn) {
        for (unsigned k = 0; k < p->nskipped; k++)
            if (p->skipped[k] == wc->wr_id) { /* late completion of an op already counted as out of order */
                p->skipped[k] = p->skipped[--p->nskipped];
                return;
            }
        uint64_t seq = wc->wr_id & 0xFFFFFFFFFFFFull;
        if ((wc->wr_id >> 48) == p->gidx + 1 && seq && seq <= p->last_retired_seq)
            fail(s, F_COMPLETION, "n%u.p%u: completion for wr_id %#" PRIx64 " (%s, %u B) of an op already retired "
                 "(duplicate or invented)", p->node, p->idx, wc->wr_id, nic_wc_status_str(wc->status), wc->bytes);
        else
            fail(s, F_COMPLETION, "n%u.p%u: completion for unknown wr_id %#" PRIx64 " (%s, %u B)", p->node, p->idx,
                 wc->wr_id, nic_wc_status_str(wc->status), wc->bytes);
        return;
    }
    /* every earlier request is complete */
    for (unsigned i = 0; i < j; i++) {
        struct op *o = q_at(p, 0);
        if (o->sig) {
            op_str(o, d, sizeof d);
            fail(s, F_ORDER, "n%u.p%u: completion of wr_id %#" PRIx64 " before that of the earlier signalled %s",
                 p->node, p->idx, wc->wr_id, d);
            if (p->nskipped < WMAX)
                p->skipped[p->nskipped++] = o->wr_id;
        }
        retire_ok(p, o, 1);
        q_pop(p);
    }
    struct op *o = q_at(p, 0);
    op_str(o, d, sizeof d);
    if (wc->op != (o->kind == K_WRITE ? NIC_OP_RDMA_WRITE : NIC_OP_RDMA_READ))
        fail(s, F_COMPLETION, "n%u.p%u: %s: completion says op %u", p->node, p->idx, d, wc->op);
    if (wc->status == NIC_WC_SUCCESS) {
        if (!o->sig)
            fail(s, F_COMPLETION, "n%u.p%u: %s: a SUCCESS completion for an unsignalled request", p->node, p->idx, d);
        if (wc->bytes != o->len)
            fail(s, F_COMPLETION, "n%u.p%u: %s: SUCCESS with %u bytes", p->node, p->idx, d, wc->bytes);
        retire_ok(p, o, 0);
    } else {
        retire_err(p, o, wc->status);
    }
    q_pop(p);
}

/* Poll everything, then learn from nic_outstanding which of the rest retired. */
static void drain(struct proc *p)
{
    struct soak *s = p->s;
    struct nic_wc wc[16];
    int n, out;
    char d[256];

    while ((n = nic_poll(p->dev, p->ep, wc, 16)) > 0)
        for (int i = 0; i < n; i++)
            on_completion(p, &wc[i]);
    if (n < 0) {
        fail(s, F_ERROR, "n%u.p%u: nic_poll: %s", p->node, p->idx, nic_strerror(n));
        s->abort = 1;
        return;
    }
    out = nic_outstanding(p->dev, p->ep);
    if (out < 0) {
        fail(s, F_ERROR, "n%u.p%u: nic_outstanding: %s", p->node, p->idx, nic_strerror(out));
        s->abort = 1;
        return;
    }
    if ((unsigned)out > p->qn) {
        fail(s, F_COMPLETION, "n%u.p%u: nic_outstanding %d > %u requests not yet known complete", p->node, p->idx, out,
             p->qn);
        return;
    }
    while (p->qn > (unsigned)out) { /* retired, and every completion has been polled */
        struct op *o = q_at(p, 0);
        if (o->sig) {
            op_str(o, d, sizeof d);
            fail(s, F_COMPLETION, "n%u.p%u: %s: retired (nic_outstanding %d) without its completion", p->node, p->idx,
                 d, out);
            if (p->nskipped < WMAX)
                p->skipped[p->nskipped++] = o->wr_id;
        }
        retire_ok(p, o, 1);
        q_pop(p);
    }
}

/* ---- posting ---- */

static uint32_t pick_len(uint64_t *r)
{
    static const uint32_t edges[] = { 1, 2, 63, 64, 4095, 4096, 4097, 8192, 65536, MAXLEN - 1, MAXLEN };
    if (rnd(r, 10) == 0)
        return edges[rnd(r, sizeof edges / sizeof edges[0])];
    return (uint32_t)fmin((double)MAXLEN, floor(exp(rndf(r) * log((double)MAXLEN + 1))));
}

static int pick_buf(struct proc *p, uint64_t *r, uint32_t right, uint32_t len)
{
    int c[MAXB], n = 0;
    for (unsigned k = 0; k < p->nb; k++)
        if (!p->b[k].is_scratch && (p->b[k].rights & right) && p->b[k].len >= len)
            c[n++] = (int)k;
    return n ? c[rnd(r, (uint32_t)n)] : -1;
}

static int do_post(struct proc *p, struct op *o)
{
    struct nic_wr wr = { .local_va = o->lp->b[o->lb].va + o->loff, .len = o->len, .remote_offset = o->roff,
                         .wr_id = o->wr_id, .signaled = o->sig };
    const struct nic_mr *m = &o->rp->b[o->rb].mr;
    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
    return o->kind == K_WRITE ? nic_post_write(p->dev, p->ep, &wr) : nic_post_read(p->dev, p->ep, &wr);
}

/* Lock, prepare (source pattern or destination poison), post. 1 posted, 0 not (locks free again). */
static int launch(struct proc *p, struct op *o)
{
    struct soak *s = p->s;
    struct buf *lb = &p->b[o->lb], *rb = &o->rp->b[o->rb];
    /* the local range is written by the CPU now (pattern, poison) unless it is the constant
     * buffer, and by the NIC for a read: exclusive; the remote range: exclusive for a write */
    int lw = !lb->is_const, rw = o->kind == K_WRITE, rc;

    if (!lock_free(lb, o->loff, o->loff + o->len, lw) || !lock_free(rb, o->roff, o->roff + o->len, rw))
        return 0;
    o->lkl = lock_take(lb, o->loff, o->loff + o->len, lw);
    if (o->lkl < 0)
        return 0;
    o->lkr = lock_take(rb, o->roff, o->roff + o->len, rw);
    if (o->lkr < 0) {
        lb->lk[o->lkl].used = 0;
        return 0;
    }
    o->key = splitmix(&p->rng);
    if (!lb->is_const) { /* the write's source or the read's destination gets this op's own bytes */
        pattern(lb->shadow + o->loff, o->len, o->key);
        if (os_write(p->os, p->pid, lb->va + o->loff, lb->shadow + o->loff, o->len) != SIM_OK) {
            fail(s, F_ERROR, "n%u.p%u: os_write failed", p->node, p->idx);
            s->abort = 1;
        }
    }
    o->wr_id = (uint64_t)(p->gidx + 1) << 48 | ++p->seq;
    o->t_post = coro_now();
    rc = do_post(p, o);
    if (rc != NIC_OK) {
        unlock_op(o);
        p->seq--;
        if (rc == NIC_EQFULL)
            return 0;
        char d[256];
        op_str(o, d, sizeof d);
        fail(s, F_ERROR, "n%u.p%u: %s: post failed: %s", p->node, p->idx, d, nic_strerror(rc));
        s->abort = 1;
        return 0;
    }
    {
        struct buf *db = o->kind == K_WRITE ? rb : lb;
        struct hist *h = &db->h[db->hn++ % HMAX];
        *h = (struct hist){ o->key, o->wr_id, o->t_post, o->kind == K_WRITE ? o->roff : o->loff, o->len, o->kind,
                            lb->is_const };
    }
    *q_at(p, p->qn) = *o;
    p->qn++;
    if (o->kind == K_WRITE)
        p->writes++;
    else
        p->reads++;
    if (o->sig)
        p->sig++;
    else
        p->unsig++;
    return 1;
}

static struct proc *peer_of(struct proc *p)
{
    struct soak *s = p->s;
    if (s->c.loopback) { /* any other process, on this node too (the NIC's loopback) */
        unsigned me = p->node * s->c.procs + p->idx, k = rnd(&p->rng, s->c.nodes * s->c.procs - 1);
        return &s->p[k >= me ? k + 1 : k];
    }
    unsigned other = rnd(&p->rng, s->c.nodes - 1), node = other >= p->node ? other + 1 : other;
    return &s->p[node * s->c.procs + rnd(&p->rng, s->c.procs)];
}

static int try_post(struct proc *p)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        struct op o;
        memset(&o, 0, sizeof o);
        o.kind = rnd(&p->rng, 2) ? K_WRITE : K_READ;
        o.len = pick_len(&p->rng);
        o.lp = p;
        o.rp = peer_of(p);
        o.lb = pick_buf(p, &p->rng, o.kind == K_WRITE ? NIC_ACCESS_LOCAL_READ : NIC_ACCESS_LOCAL_WRITE, o.len);
        o.rb = pick_buf(o.rp, &p->rng, o.kind == K_WRITE ? NIC_ACCESS_REMOTE_WRITE : NIC_ACCESS_REMOTE_READ, o.len);
        if (o.lb < 0 || o.rb < 0)
            continue;
        o.loff = rnd(&p->rng, p->b[o.lb].len - o.len + 1);
        o.roff = rnd(&p->rng, o.rp->b[o.rb].len - o.len + 1);
        /* the last op and the one that fills the window are signalled: a completion will come */
        o.sig = rndf(&p->rng) < p->s->c.signal || p->posted + 1 == p->nops || p->qn + 1 >= p->window;
        if (launch(p, &o)) {
            p->posted++;
            return 1;
        }
        if (p->s->abort)
            return 0;
    }
    return 0;
}

/* A signalled small read from a peer's constant buffer into a private scratch slot: makes sure a
 * completion will come when everything in flight is unsignalled. */
static int post_fence(struct proc *p)
{
    struct op o;
    memset(&o, 0, sizeof o);
    o.kind = K_READ;
    o.fence = 1;
    o.sig = 1;
    o.len = 1 + rnd(&p->rng, SCRATCH_SLOT);
    o.lp = p;
    o.lb = (int)p->nb - 1;
    o.loff = (p->fence_slot++ % SCRATCH_SLOTS) * SCRATCH_SLOT;
    o.rp = peer_of(p);
    o.rb = 0; /* the constant buffer */
    o.roff = rnd(&p->rng, CONST_LEN - o.len + 1);
    if (!launch(p, &o))
        return 0;
    p->fences++;
    return 1;
}

static void dump_outstanding(struct proc *p, const char *why)
{
    char d[256];
    fprintf(stderr, "soak: n%u.p%u (pid %u): %s: %u requests not known complete, nic_outstanding %d, %u deferred:\n",
            p->node, p->idx, p->pid, why, p->qn, p->dev ? nic_outstanding(p->dev, p->ep) : -1, p->dn);
    for (unsigned i = 0; i < p->qn && i < 8; i++) {
        op_str(q_at(p, i), d, sizeof d);
        fprintf(stderr, "soak:   %s\n", d);
    }
}

/* Wait for one completion (or for nic_outstanding to drop); stall detection. */
static void wait_some(struct proc *p)
{
    struct soak *s = p->s;
    struct nic_wc wc;
    int rc = nic_wait(p->dev, p->ep, &wc, WAIT_CHUNK);
    if (rc == NIC_OK) {
        on_completion(p, &wc);
        return;
    }
    if (rc != NIC_ETIMEDOUT) {
        fail(s, F_ERROR, "n%u.p%u: nic_wait: %s", p->node, p->idx, nic_strerror(rc));
        s->abort = 1;
        return;
    }
    drain(p);
    if (p->qn && coro_now() - p->last_progress > s->c.stall) {
        fail(s, F_STALL, "n%u.p%u: nothing completed for %" PRIu64 " cycles", p->node, p->idx,
             coro_now() - p->last_progress);
        dump_outstanding(p, "stall");
        s->abort = 1;
    }
}

/* ---- the programs ---- */

static void setup_bufs(struct proc *p)
{
    uint64_t *r = &p->rng;
    unsigned nreg = 3 + rnd(r, 6); /* 3..8 */
    static const uint32_t rights_mix[] = {
        NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE | NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ,
        NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE | NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ,
        NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE | NIC_ACCESS_REMOTE_WRITE,
        NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE | NIC_ACCESS_REMOTE_READ,
        NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE,
    };
    p->nb = nreg + 1;
    for (unsigned k = 0; k < p->nb; k++) {
        struct buf *b = &p->b[k];
        b->va = VA_BASE + k * SPACING;
        if (k == 0) { /* constant: read by peers (fences, reads), source of writes */
            b->is_const = 1;
            b->len = CONST_LEN;
            b->rights = NIC_ACCESS_LOCAL_READ | NIC_ACCESS_REMOTE_READ;
        } else if (k == p->nb - 1) { /* fence destinations */
            b->is_scratch = 1;
            b->len = SCRATCH_SLOTS * SCRATCH_SLOT;
            b->rights = NIC_ACCESS_LOCAL_WRITE;
        } else {
            b->va += rnd(r, 4) ? rnd(r, 4096) : 0;
            b->len = k == 1 ? MAXLEN + 1 + rnd(r, BUF_MAX - MAXLEN) : 1 + rnd(r, BUF_MAX);
            b->rights = k == 1 ? rights_mix[0] : rights_mix[rnd(r, sizeof rights_mix / sizeof rights_mix[0])];
        }
    }
}

static void prog_proc(void *arg)
{
    struct proc *p = arg;
    struct soak *s = p->s;
    struct node_ctx *nc = &s->n[p->node];
    int rc;

    while (!nc->probed)
        coro_sleep(2000);
    if (nc->probed < 0)
        goto out;
    if (os_proc_create(nc->os, 48, &p->pid) != SIM_OK) {
        fail(s, F_ERROR, "n%u.p%u: os_proc_create", p->node, p->idx);
        goto out;
    }
    p->os = nc->os;
    if ((rc = nic_dev_open(nc->drv, p->pid, NULL, &p->dev)) != NIC_OK || (rc = nic_ep_open(p->dev, &p->ep)) != NIC_OK) {
        fail(s, F_ERROR, "n%u.p%u: open: %s", p->node, p->idx, nic_strerror(rc));
        goto out;
    }
    setup_bufs(p);
    for (unsigned k = 0; k < p->nb; k++) {
        struct buf *b = &p->b[k];
        b->shadow = malloc(b->len);
        if (!b->shadow) {
            fail(s, F_ERROR, "n%u.p%u: out of memory", p->node, p->idx);
            goto out;
        }
        pattern(b->shadow, b->len, (uint64_t)p->gidx << 40 | (uint64_t)k << 32 | 0xC0FFEEu);
        if (os_write(p->os, p->pid, b->va, b->shadow, b->len) != SIM_OK ||
            (rc = nic_reg(p->dev, b->va, b->len, b->rights, &b->mr)) != NIC_OK) {
            fail(s, F_ERROR, "n%u.p%u: buffer %u: %s", p->node, p->idx, k, nic_strerror(rc));
            goto out;
        }
    }
    p->ready = 1;
    s->nready++;
    while (s->nready < s->np && !s->abort)
        coro_sleep(2000);
    p->last_progress = coro_now();
    while (!s->abort && (p->posted < p->nops || p->qn || p->dn)) {
        drain(p);
        recheck(p, 0);
        if (s->abort)
            break;
        if (p->posted < p->nops && p->qn < p->window && try_post(p))
            continue;
        if (!p->qn) {
            if (p->posted < p->nops || p->dn)
                coro_sleep(p->dn ? 100000 : 1000); /* blocked by others' locks, or waiting to re-check */
            continue;
        }
        if (!q_at(p, p->qn - 1)->sig && post_fence(p))
            continue;
        wait_some(p);
    }
    if (!s->abort && p->dn)
        recheck(p, 1);
out:
    p->finished = 1;
    s->nfinished++;
    /* everyone's ops are done before anyone closes (peers target this process's buffers) */
    while (s->nfinished < s->np)
        coro_sleep(2000);
    while (!s->verified)
        coro_sleep(2000);
    if (p->dev) {
        if (s->abort)
            dump_outstanding(p, "at close");
        if (p->ep) {
            struct nic_wc left[WMAX + 4];
            rc = nic_ep_close(p->dev, p->ep, left, WMAX + 4);
            if (rc < 0)
                fail(s, F_ERROR, "n%u.p%u: nic_ep_close: %s", p->node, p->idx, nic_strerror(rc));
            else if (rc > 0 && !s->abort)
                fail(s, F_COMPLETION, "n%u.p%u: nic_ep_close returned %d completions with nothing outstanding (first "
                     "wr_id %#" PRIx64 " %s)", p->node, p->idx, rc, left[0].wr_id, nic_wc_status_str(left[0].status));
        }
        struct nic_lib_counters lc;
        if (nic_lib_counters(p->dev, &lc) == NIC_OK && (lc.stash_dropped || lc.cqe_bogus))
            fail(s, F_COMPLETION, "n%u.p%u: the library dropped %" PRIu64 " completions and ignored %" PRIu64
                 " entries naming no request", p->node, p->idx, lc.stash_dropped, lc.cqe_bogus);
        rc = nic_dev_close(p->dev);
        if (rc != NIC_OK)
            fail(s, F_ERROR, "n%u.p%u: nic_dev_close: %s", p->node, p->idx, nic_strerror(rc));
        p->dev = NULL;
        if (os_pinned_pages(p->os, p->pid))
            fail(s, F_LEAK, "n%u.p%u: %" PRIu64 " pages still pinned after nic_dev_close", p->node, p->idx,
                 os_pinned_pages(p->os, p->pid));
    }
    p->closed = 1;
    s->nclosed++;
}

/* The final comparison of every buffer with its shadow (run once all ops are done, and again
 * after every device is closed). */
static void verify_all(struct soak *s, const char *when)
{
    uint8_t *tmp = malloc(BUF_MAX + 8192);
    if (!tmp)
        return;
    for (unsigned i = 0; i < s->np; i++) {
        struct proc *p = &s->p[i];
        if (!p->ready)
            continue;
        for (unsigned k = 0; k < p->nb; k++) {
            struct buf *b = &p->b[k];
            uint32_t first = 0, nbad = 0;
            if (os_read(p->os, p->pid, b->va, tmp, b->len) != SIM_OK) {
                fail(s, F_MISMATCH, "n%u.p%u buf %u: cannot read (%s)", p->node, p->idx, k, when);
                continue;
            }
            if (!memcmp(tmp, b->shadow, b->len))
                continue;
            for (uint32_t j = 0; j < b->len; j++)
                if (tmp[j] != b->shadow[j] && !nbad++)
                    first = j;
            fail(s, F_MISMATCH, "n%u.p%u buf %u (%u B): %u bytes differ from the shadow %s, first at +%u", p->node,
                 p->idx, k, b->len, nbad, when, first);
        }
    }
    free(tmp);
}

static void inject_corruption(struct soak *s)
{
    struct proc *p = &s->p[s->np - 1];
    uint8_t x;
    if (!p->ready || os_read(p->os, p->pid, p->b[1].va + 7, &x, 1) != SIM_OK)
        return;
    x ^= 0x5A;
    os_write(p->os, p->pid, p->b[1].va + 7, &x, 1);
    printf("soak: --inject: flipped one byte of n%u.p%u buffer 1\n", p->node, p->idx);
}

static void prog_master(void *arg)
{
    struct node_ctx *nc = arg;
    struct soak *s = g_soak;
    unsigned node = (unsigned)(nc - s->n);
    char err[200] = "";
    int rc = nicdrv_probe(nc->drv, s->img, s->img_len, err, sizeof err);

    if (rc != NICDRV_OK) {
        fail(s, F_ERROR, "n%u: probe: %s: %s", node, nicdrv_strerror(rc), err);
        nc->probed = -1;
        s->abort = 1;
    } else {
        nc->probed = 1;
    }
    while (s->nfinished < s->np)
        coro_sleep(2000);
    if (node == 0) { /* one global check, everything quiet */
        if (s->c.inject)
            inject_corruption(s);
        verify_all(s, "after the last completion");
        s->verified = 1;
    }
    while (!s->verified)
        coro_sleep(2000);
    for (;;) {
        unsigned closed = 0;
        for (unsigned i = 0; i < s->c.procs; i++)
            closed += s->p[node * s->c.procs + i].closed;
        if (closed == s->c.procs)
            break;
        coro_sleep(2000);
    }
    if (nc->probed > 0) {
        if (nicdrv_nic_stats(nc->drv, &nc->ncp) == NICDRV_OK)
            nc->have_stats = 1;
        nicdrv_stats(nc->drv, &nc->drvs);
        if (nc->drvs.procs || nc->drvs.bufs || nc->drvs.eps || nc->drvs.pinned_pages)
            fail(s, F_LEAK, "n%u: driver still holds %u processes, %u buffers, %u endpoints, %" PRIu64
                 " pinned pages after every device was closed", node, nc->drvs.procs, nc->drvs.bufs, nc->drvs.eps,
                 nc->drvs.pinned_pages);
        if (nc->drvs.pinned_peak > nc->hwm + s->c.procs + 64)
            fail(s, F_LEAK, "n%u: pinned peak %" PRIu64 " pages above the high-water mark %u", node, nc->drvs.pinned_peak,
                 nc->hwm);
    }
    nicdrv_remove(nc->drv);
    if (os_pinned_pages_total(nc->os))
        fail(s, F_LEAK, "n%u: %" PRIu64 " pages pinned after remove", node, os_pinned_pages_total(nc->os));
    nc->done = 1;
    s->nmasters++;
}

/* Background memory pressure: the OS migrates and reclaims unpinned pages (the oracle bites if
 * the NIC uses a translation of a page that is no longer pinned). */
static void prog_pressure(void *arg)
{
    struct soak *s = arg;
    while (s->nmasters < s->c.nodes) {
        sim_cycle_t next = SIM_CYCLE_NEVER;
        for (unsigned i = 0; i < s->c.nodes; i++) {
            sim_cycle_t t = os_pressure_next_event(s->n[i].os);
            if (t < next)
                next = t;
        }
        if (next == SIM_CYCLE_NEVER || coro_sleep_until(next) != SIM_OK)
            return;
        for (unsigned i = 0; i < s->c.nodes; i++)
            os_pressure_step(s->n[i].os, coro_now());
    }
}

static void oracle_hook(void *ctx, const struct hostmem_violation *v, const char *msg)
{
    struct soak *s = g_soak;
    char b[256];
    (void)ctx;
    (void)v;
    hostmem_violation_format(v, b, sizeof b);
    s->fails[F_ORACLE]++;
    fprintf(stderr, "soak: seed %" PRIu64 ": oracle: %s (%s)\n", s->c.seed, b, msg ? msg : "");
    fprintf(stderr, "soak: FAIL seed %" PRIu64 " (oracle hit); reproduce: %s\n", s->c.seed, s->repro);
    fflush(stdout);
    fflush(stderr);
    exit(1);
}

static bool all_done(cluster_t *c, void *ctx)
{
    struct soak *s = ctx;
    if (s->nmasters < s->c.nodes)
        return false;
    if (!s->all_done_at)
        s->all_done_at = cluster_now(c);
    return cluster_now(c) >= s->all_done_at + 2000000; /* 10 ms more: nothing may land after close */
}

static void progress_note(void *ctx, char *buf, size_t n)
{
    struct soak *s = ctx;
    uint64_t ok = 0;
    for (unsigned i = 0; i < s->np; i++)
        ok += s->p[i].ok_ops;
    snprintf(buf, n, " ops %" PRIu64, ok);
}

static uint32_t misses_of(const struct nic_stats *st)
{
    uint32_t m = 0;
    for (unsigned c = 0; c < NIC_CACHE__COUNT; c++)
        m += st->cache[c].miss_cold_send + st->cache[c].miss_cold_recv + st->cache[c].miss_send + st->cache[c].miss_recv;
    return m;
}

static int run(struct soak *s)
{
    struct cluster_config cc;
    struct nicdrv_config dc;
    uint64_t r = s->c.seed * 0x9E3779B97F4A7C15ull + 12345;
    struct timespec t0, t1;
    int stopped;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    s->img = read_file(s->c.image, &s->img_len);
    if (!s->img) {
        fprintf(stderr, "soak: cannot read %s\n", s->c.image);
        return 2;
    }
    /* per-seed random parameters (unless given) */
    s->f_drop = s->c.drop >= 0 ? s->c.drop : 0.01 + 0.04 * rndf(&r);
    s->f_corrupt = s->c.corrupt >= 0 ? s->c.corrupt : 0.01 + 0.04 * rndf(&r);
    s->f_dup = s->c.duplicate >= 0 ? s->c.duplicate : 0.01 + 0.04 * rndf(&r);
    s->f_delay = s->c.delay >= 0 ? s->c.delay : 0.01 + 0.04 * rndf(&r);

    cluster_config_default(&cc, s->c.nodes);
    cc.console = s->c.verbose ? stdout : NULL;
    cc.seed = s->c.seed;
    cc.sw.faults.drop = s->f_drop;
    cc.sw.faults.corrupt = s->f_corrupt;
    cc.sw.faults.duplicate = s->f_dup;
    cc.sw.faults.delay = s->f_delay;
    cc.sw.faults.delay_max = 2000;
    cc.sw.pause = s->c.pause != 0;
    if (s->c.pressure) {
        cc.node.os.pressure_period = s->c.pressure;
        cc.node.os.pressure_pages = 2;
    }
    s->costs = costs_create(0, s->c.seed);
    s->cl = s->costs ? cluster_create(&cc, s->costs) : NULL;
    if (!s->cl) {
        fprintf(stderr, "soak: cannot create the cluster\n");
        return 2;
    }
    s->np = s->c.nodes * s->c.procs;
    s->p = calloc(s->np, sizeof *s->p);
    if (!s->p)
        return 2;
    for (unsigned i = 0; i < s->c.nodes; i++) {
        struct node_ctx *nc = &s->n[i];
        node_t *nd = cluster_node(s->cl, i);
        hostmem_set_fail_loudly(node_hostmem(nd), true);
        hostmem_set_fail_hook(node_hostmem(nd), oracle_hook, NULL);
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = (uint16_t)s->c.nodes;
        nc->hwm = s->c.hwm >= 0 ? (uint32_t)s->c.hwm : 128 + rnd(&r, 257);
        dc.pin_hwm_pages = nc->hwm;
        dc.key_seed = (uint32_t)splitmix(&r);
        dc.xport_opts = s->c.xopts;
        nc->hs = hostsw_create(s->cl, i, s->costs, &dc);
        if (!nc->hs)
            return 2;
        nc->drv = hostsw_driver(nc->hs);
        nc->os = node_os(nd);
        node_set_reset(nd, false);
        if (coro_spawn(cluster_sched(s->cl), "master", prog_master, nc, NULL))
            return 2;
        for (unsigned j = 0; j < s->c.procs; j++) {
            struct proc *p = &s->p[i * s->c.procs + j];
            p->s = s;
            p->node = i;
            p->idx = j;
            p->gidx = i * s->c.procs + j;
            p->rng = s->c.seed ^ ((uint64_t)(p->gidx + 1) << 32) ^ 0xA5A5u;
            splitmix(&p->rng);
            p->window = s->c.window;
            p->nops = s->c.ops / s->np + (p->gidx < s->c.ops % s->np);
            p->tmp = malloc(BUF_MAX + 8192);
            if (!p->tmp || coro_spawn(cluster_sched(s->cl), "proc", prog_proc, p, NULL))
                return 2;
        }
    }
    if (s->c.pressure && coro_spawn(cluster_sched(s->cl), "pressure", prog_pressure, s, NULL))
        return 2;
    cluster_set_progress_note(s->cl, progress_note, s);
    /* debugging a seed (docs/soak.md): the GDB stub and/or the instruction trace of one node */
    nodedbg_t *dbg = NULL;
    if (getenv("SOAK_GDB") || getenv("SOAK_TRACE")) {
        struct nodedbg_opts o;
        nodedbg_opts_default(&o);
        if (getenv("SOAK_GDB"))
            o.gdb_port = atoi(getenv("SOAK_GDB"));
        o.trace_path = getenv("SOAK_TRACE");
        if (getenv("SOAK_TRACE_FROM"))
            o.trace_from = strtoull(getenv("SOAK_TRACE_FROM"), NULL, 0);
        if (getenv("SOAK_TRACE_TO"))
            o.trace_to = strtoull(getenv("SOAK_TRACE_TO"), NULL, 0);
        o.gdb_node = getenv("SOAK_GDB_NODE") ? (unsigned)atoi(getenv("SOAK_GDB_NODE")) : 0u;
        if (o.gdb_node >= s->c.nodes || !(dbg = nodedbg_attach(&o, s->cl, o.gdb_node, s->c.image, "soak", stderr))) {
            fprintf(stderr, "soak: SOAK_GDB / SOAK_TRACE: cannot attach to node %u\n", o.gdb_node);
            return 2;
        }
    }
    stopped = cluster_run(s->cl, s->c.max_cycles, all_done, s, getenv("SOAK_PROGRESS") ? stderr : NULL);
    if (stopped != 0) {
        fail(s, F_STALL, "cycle limit %" PRIu64 " reached (ops not finished, or close/remove hung)", s->c.max_cycles);
        for (unsigned i = 0; i < s->np; i++)
            if (s->p[i].qn || !s->p[i].closed)
                dump_outstanding(&s->p[i], s->p[i].finished ? "finished, not closed" : "at the cycle limit");
    } else {
        verify_all(s, "after close"); /* nothing landed after close */
    }
    for (unsigned i = 0; i < s->c.nodes; i++)
        if (hostmem_counters(node_hostmem(cluster_node(s->cl, i)))->violations)
            fail(s, F_ORACLE, "n%u: %" PRIu64 " oracle violations", i,
                 hostmem_counters(node_hostmem(cluster_node(s->cl, i)))->violations);
    clock_gettime(CLOCK_MONOTONIC, &t1);

    /* summary */
    uint64_t ops = 0, bytes = 0, wr = 0, rd = 0, fe = 0, sg = 0, us = 0, impl = 0, nfail = 0;
    uint64_t retx = 0, tmo = 0, miss = 0, ev_ncp = 0, ev_drv = 0, fr_drv = 0, fr_ncp = 0, nacks = 0, dup = 0;
    uint64_t drv_miss = 0, pinned_peak = 0, stale = 0, marks = 0, cuts = 0;
    struct switch_port_counters sw;
    for (unsigned i = 0; i < s->np; i++) {
        struct proc *p = &s->p[i];
        ops += p->ok_ops, bytes += p->ok_bytes, wr += p->writes, rd += p->reads, fe += p->fences;
        sg += p->sig, us += p->unsig, impl += p->implied_ok;
    }
    for (unsigned i = 0; i < s->c.nodes; i++) {
        struct node_ctx *nc = &s->n[i];
        if (nc->have_stats) {
            retx += nc->ncp.retransmits, tmo += nc->ncp.timeouts, miss += misses_of(&nc->ncp);
            nacks += nc->ncp.nacks_received, dup += nc->ncp.dup_packets, stale += nc->ncp.stale_resps;
            marks += nc->ncp.ce_received, cuts += nc->ncp.cc_cuts;
            for (unsigned c = 0; c < NIC_CACHE__COUNT; c++)
                ev_ncp += nc->ncp.cache[c].evictions, fr_ncp += nc->ncp.cache[c].fills_rejected;
        }
        ev_drv += nc->drvs.evictions, fr_drv += nc->drvs.fills_rejected, drv_miss += nc->drvs.misses;
        if (nc->drvs.pinned_peak > pinned_peak)
            pinned_peak = nc->drvs.pinned_peak;
    }
    switch_totals(cluster_switch(s->cl), &sw);
    for (unsigned f = 0; f < F__N; f++)
        nfail += s->fails[f];
    printf("soak: seed %" PRIu64 " nodes %u procs %u ops %" PRIu64 " (w %" PRIu64 " r %" PRIu64 " fences %" PRIu64
           ", sig %" PRIu64 " unsig %" PRIu64 ", implied %" PRIu64 ") bytes %" PRIu64 " | faults drop %.3f corrupt %.3f "
           "dup %.3f delay %.3f (frames dropped %" PRIu64 " corrupted %" PRIu64 " duplicated %" PRIu64 " delayed %" PRIu64
           ") hwm",
           s->c.seed, s->c.nodes, s->c.procs, ops, wr, rd, fe, sg, us, impl, bytes, s->f_drop, s->f_corrupt, s->f_dup,
           s->f_delay, sw.fault_drop, sw.fault_corrupt, sw.fault_duplicate, sw.fault_delay);
    for (unsigned i = 0; i < s->c.nodes; i++)
        printf("%s%u", i ? "," : " ", s->n[i].hwm);
    printf(" pinned peak %" PRIu64 " | retransmissions %" PRIu64 " timeouts %" PRIu64 " nacks %" PRIu64 " dups %" PRIu64
           " stale responses %" PRIu64
           " misses %" PRIu64 " (driver %" PRIu64 ") evictions %" PRIu64 " (ncp %" PRIu64 ") fills rejected %" PRIu64
           " (ncp %" PRIu64 ") | errors",
           pinned_peak, retx, tmo, nacks, dup, stale, miss, drv_miss, ev_drv, ev_ncp, fr_drv, fr_ncp);
    for (unsigned st = 1; st < 9; st++)
        printf(" %s %" PRIu64, nic_wc_status_str(-(int)st), s->status_count[st]);
    printf(" | fails");
    for (unsigned f = 0; f < F__N; f++)
        printf(" %s %" PRIu64, fclass_name[f], s->fails[f]);
    if (s->c.xopts)
        printf(" | options%s%s%s: marks %" PRIu64 " window cuts %" PRIu64, s->c.xopts & NIC_XOPT_FLOW ? " flow" : "",
               s->c.xopts & NIC_XOPT_CONGESTION ? " cc" : "", s->c.xopts & NIC_XOPT_SR ? " sr" : "", marks, cuts);
    if (s->c.pause)
        printf(" | link pause: %" PRIu64 " requests, %" PRIu64 " cycles paused", sw.pauses, sw.paused_cycles);
    printf(" | wall %.1f s sim %" PRIu64 " cycles -> %s\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, (uint64_t)cluster_now(s->cl),
           nfail ? "FAIL" : "PASS");
    if (s->c.loopback) { /* the loopback was exercised: frames each NIC handled for itself */
        uint64_t loop = 0;
        for (unsigned i = 0; i < s->c.nodes; i++)
            loop += s->n[i].have_stats ? s->n[i].ncp.loop_frames : 0;
        printf("soak: --loopback: %" PRIu64 " loopback frames\n", loop);
        if (!loop && !nfail) {
            fail(s, F_ERROR, "--loopback, but no frame went through a NIC's loopback");
            nfail++;
        }
    }
    if (ops + s->status_count[6] == 0 && !nfail) {
        fail(s, F_ERROR, "no operation completed");
        nfail++;
    }
    if (nfail)
        printf("soak: FAIL seed %" PRIu64 "; reproduce: %s\n", s->c.seed, s->repro);
    nodedbg_finish(dbg, nfail ? 1 : 0);
    for (unsigned i = 0; i < s->c.nodes; i++)
        hostsw_destroy(s->n[i].hs);
    cluster_destroy(s->cl);
    costs_destroy(s->costs);
    for (unsigned i = 0; i < s->np; i++) {
        for (unsigned k = 0; k < MAXB; k++)
            free(s->p[i].b[k].shadow);
        free(s->p[i].tmp);
    }
    free(s->p);
    free(s->img);
    return nfail ? 1 : 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: soak [--seed N] [--nodes N] [--procs N] [--ops N] [--window N] [--signal P] [--hwm PAGES]\n"
            "            [--drop P] [--corrupt P] [--duplicate P] [--delay P] [--pressure CYCLES] [--stall CYCLES]\n"
            "            [--max-cycles N] [--image PATH] [--inject] [--loopback] [--flow] [--cc] [--sr] [--pause]\n"
            "            [--verbose]\n"
            "  --ops is the total over all processes; faults not given are drawn per seed in 1..5 %%,\n"
            "  --hwm not given is drawn per node in 128..384 pages; --pause: link pause in the switch\n"
            "  (docs/wire-protocol.md); --flow, --cc, --sr turn on the NCPs'\n"
            "  flow control, congestion control, selective repeat. Exit 0 pass, 1 fail, 2 usage.\n");
}

int main(int argc, char **argv)
{
    static struct soak S;
    struct soak *s = &S;
    static char repro[2048];
    size_t rl = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    s->c = (struct cfg){ .seed = 1, .nodes = 3, .procs = 3, .ops = 300, .window = 8, .hwm = -1, .drop = -1,
                         .corrupt = -1, .duplicate = -1, .delay = -1, .signal = 0.5, .max_cycles = 0,
                         .stall = 100000000ull, .pressure = 50000, .image = SOAK_DEFAULT_IMAGE };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (!strcmp(a, name) && v && (i++, 1))
        if (OPT("--seed"))
            s->c.seed = strtoull(v, NULL, 0);
        else if (OPT("--nodes"))
            s->c.nodes = (unsigned)strtoul(v, NULL, 0);
        else if (OPT("--procs"))
            s->c.procs = (unsigned)strtoul(v, NULL, 0);
        else if (OPT("--ops"))
            s->c.ops = (unsigned)strtoul(v, NULL, 0);
        else if (OPT("--window"))
            s->c.window = (unsigned)strtoul(v, NULL, 0);
        else if (OPT("--signal"))
            s->c.signal = atof(v);
        else if (OPT("--hwm"))
            s->c.hwm = atoi(v);
        else if (OPT("--drop"))
            s->c.drop = atof(v);
        else if (OPT("--corrupt"))
            s->c.corrupt = atof(v);
        else if (OPT("--duplicate"))
            s->c.duplicate = atof(v);
        else if (OPT("--delay"))
            s->c.delay = atof(v);
        else if (OPT("--pressure"))
            s->c.pressure = strtoull(v, NULL, 0);
        else if (OPT("--stall"))
            s->c.stall = strtoull(v, NULL, 0);
        else if (OPT("--max-cycles"))
            s->c.max_cycles = strtoull(v, NULL, 0);
        else if (OPT("--image"))
            s->c.image = v;
        else if (!strcmp(a, "--loopback"))
            s->c.loopback = 1;
        else if (!strcmp(a, "--inject"))
            s->c.inject = 1;
        else if (!strcmp(a, "--flow"))
            s->c.xopts |= NIC_XOPT_FLOW;
        else if (!strcmp(a, "--cc"))
            s->c.xopts |= NIC_XOPT_CONGESTION;
        else if (!strcmp(a, "--sr"))
            s->c.xopts |= NIC_XOPT_SR;
        else if (!strcmp(a, "--pause"))
            s->c.pause = 1;
        else if (!strcmp(a, "--verbose"))
            s->c.verbose = 1;
        else {
            usage();
            return 2;
        }
#undef OPT
    }
    if (s->c.nodes < 2 || s->c.nodes > MAXNODES || !s->c.procs || s->c.procs > MAXPROCS ||
        s->c.nodes * (s->c.procs + 3) + 1 > 64 || !s->c.window || s->c.window > WMAX || !s->c.ops ||
        s->c.signal < 0 || s->c.signal > 1 || s->c.drop > 1 || s->c.corrupt > 1 || s->c.duplicate > 1 ||
        s->c.delay > 1) {
        fprintf(stderr, "soak: bad configuration (nodes 2..%d, procs 1..%d, nodes x (procs + 3) < 64, window 1..%d)\n",
                MAXNODES, MAXPROCS, WMAX);
        usage();
        return 2;
    }
    if (!s->c.max_cycles)
        s->c.max_cycles = 200000000ull + 1000000ull * s->c.ops;
    /* the command line that reproduces this run */
    rl += (size_t)snprintf(repro + rl, sizeof repro - rl, "%s --seed %" PRIu64, argv[0], s->c.seed);
    for (int i = 1; i < argc && rl < sizeof repro; i++) {
        if (!strcmp(argv[i], "--seed")) {
            i++;
            continue;
        }
        rl += (size_t)snprintf(repro + rl, sizeof repro - rl, " %s", argv[i]);
    }
    s->repro = repro;
    g_soak = s;
    return run(s);
}
