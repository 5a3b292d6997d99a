/*
 * xlate.h - translation: the VMH/CBH/PCH caches (or static tables), misses, fills, invalidations: xlate.c.
 */
#ifndef NCP_XLATE_H
#define NCP_XLATE_H

#include "ncp.h"

enum xl_result { XL_OK, XL_MISS, XL_DENIED, XL_WAIT };
void xlate_init(void);
/* Physical address of virtual `va` of pid with `right`, for `path`; on miss posts the miss. */
enum xl_result xlate_cbh(uint16_t pid, uint32_t buf, const struct nic_cbh_entry **e, unsigned path);
enum xl_result xlate_pch(uint16_t pid, unsigned path);
/* PCH then CBH of a remote access's target (pid, buffer), memoised for the next packet: the memo
 * (cleared by every fill and invalidation) is checked inline, the lookups out of line. */
struct xlate_tmemo {
    uint32_t buf;
    uint32_t pid; /* pid | LKC_KEY_VALID when valid */
    const struct nic_cbh_entry *e;
};
extern struct xlate_tmemo xlate_tmemo;
enum xl_result xlate_target_lookup(uint16_t pid, uint32_t buf, const struct nic_cbh_entry **e, unsigned path);
int32_t xlate_fill(uint8_t cache, uint16_t pid, uint32_t line, uint16_t epoch, const void *image);
int32_t xlate_static_load(uint8_t cache, uint16_t pid, uint32_t line, const void *image);
void xlate_invalidate(uint8_t cache, uint16_t pid, uint32_t line, uint32_t n);
uint32_t xlate_line_bytes(uint8_t cache);
void xlate_stats(struct nic_cache_stats *out);
/* The miss table's counters into the NIC statistics (miss_requests, miss_reposts, miss_table_full). */
void xlate_miss_stats(struct nic_stats *s);
uint32_t xlate_lookup_bytes(void);
void xlate_geom(struct nic_cache_geom *g);
void xlate_post_held(void);
/* Prefetch on a miss (INIT's ep): the most VMH lines a miss request covers; 0 if `lines` is
 * beyond NIC_PREFETCH_MAX (nothing changed). 0 = one line per request (the seed). */
int xlate_set_prefetch(uint32_t lines);
/* After a VMH lookup returned XL_MISS: [.., end) is the rest of the packet's message (exclusive
 * end address), so the request just recorded (if any, with prefetch on) stops at its last line.
 * Cheap and safe to call after any miss; nothing when prefetch is off. */
void xlate_miss_end(uint64_t end);
/* The end address of the target buffer (pid, buf) a remote access just checked (the target memo),
 * 0 when that is not the memoised one. */
uint64_t xlate_target_end(uint16_t pid, uint32_t buf);
extern struct lkc ncp_cache[NIC_CACHE__COUNT];

/*
 * Hits of the inlined paths (memos and the VMH hit), counted once each and folded into the caches'
 * lookups and hits by xlate_stats: `target` is a PCH and a CBH hit (the memo saves both lookups);
 * `rx_write` a WRITE placed in one page by the receive fast path (rx.c, rx_fast): a target hit, a
 * VMH hit and a received packet (rx_counters) in one increment, not three.
 */
struct xlate_fast_hits {
    uint32_t vmh, target, rx_write;
};
extern struct xlate_fast_hits xlate_fast_hits;

static inline enum xl_result xlate_target(uint16_t pid, uint32_t buf, const struct nic_cbh_entry **out, unsigned path)
{
    if (xlate_tmemo.pid == (pid | LKC_KEY_VALID) && xlate_tmemo.buf == buf) {
        ncp_sat_inc(&xlate_fast_hits.target);
        *out = xlate_tmemo.e;
        return XL_OK;
    }
    return xlate_target_lookup(pid, buf, out, path);
}

/* Cache geometry (xlate.c), constants for the inlined hit path. */
#if NCP_LOOKUP_STATIC
/* Full tables: sized for every page and buffer the host may register, 8-way buckets. */
#define VMH_C 32768u
#define VMH_L NCP_CACHE_LINE
#define VMH_A 8u
#define CBH_C 1024u
#define CBH_L 8u
#define CBH_A 8u
#define PCH_C 256u
#define PCH_L 8u
#define PCH_A 8u
#else
#define VMH_C NCP_CACHE_ENTRIES
#define VMH_L NCP_CACHE_LINE
#define VMH_A NCP_CACHE_WAYS
#define CBH_C 128u
#define CBH_L 8u
#define CBH_A 4u
/* PCH lines of one entry: a pid only ever looks up its own entry (the pid is in the tag), so a
 * line of 8 held one useful entry and the cache 8 processes (issue 18, 8b: with lines of 8 and
 * every pid 0..7 in line 0, all of them also fell into one 2-way set). Now 64 processes, 32 sets. */
#define PCH_C 64u
#define PCH_L 1u
#define PCH_A 2u
#endif

/* Geometry as compile-time constants, for the inlined hit path (lkc_lookup_k). */
#define XL_LOG2(x) ((uint8_t)__builtin_ctz(x))
#define GEOM(C, L, A, E, S) XL_LOG2((C) / ((L) * (A))), XL_LOG2(A), XL_LOG2(L), (E), (S)
/* salted (lkc_set_k): VMH and CBH; not the PCH when its line is the pid itself (L = 1): pid mod
 * sets already spreads consecutive pids, a salt would only make them collide */
#define PCH_SALTED (PCH_L > 1u)
#define VMH_GEOM GEOM(VMH_C, VMH_L, VMH_A, 0u, 1u)
#define CBH_GEOM GEOM(CBH_C, CBH_L, CBH_A, 3u, 1u)
#define PCH_GEOM GEOM(PCH_C, PCH_L, PCH_A, 0u, PCH_SALTED)


/*
 * Memo of the last VMH line per path: the line's entries and way, cleared by every fill and
 * invalidation. Consecutive packets of one operation (and any page of the same line, L pages) find
 * their entry without the set scan; each use touches the way's LRU stamp as a lookup would, and counts
 * a hit in the memo, added to the way's use count when the memo changes (one add per packet less).
 */
struct xlate_vmemo {
    uint32_t line;
    uint32_t pid;           /* pid | LKC_KEY_VALID when valid */
    const uint32_t *e;      /* the line's first entry */
    struct lkc_way *way;    /* the way holding it */
    uint32_t *uses;         /* its use count (lkc.uses) */
    uint32_t hits;          /* memo hits not yet added to *uses (xlate_vmemo_flush: before the memo
                               changes and before NIC_CMD_USAGE reads the counts) */
};
extern struct xlate_vmemo xlate_vmemo[2];
/* Physical address of virtual `va` of pid with `right`, for `path`; on miss posts the miss. */
enum xl_result xlate_vmh(uint16_t pid, uint64_t va, uint32_t right, unsigned path, uint64_t *pa);

/* Looks line `line` of pid up in the VMH cache (the set scan, inline) and memoises it for `path`;
 * 0 when absent. */
static inline __attribute__((always_inline)) int xlate_vmemo_scan(uint16_t pid, uint32_t line, unsigned path)
{
    struct xlate_vmemo *m = &xlate_vmemo[path & 1u];
    struct lkc *c = &ncp_cache[NIC_CACHE_VMH];
    struct lkc_way *way = lkc_find_way_k(c, pid, line, XL_LOG2(VMH_C / (VMH_L * VMH_A)), XL_LOG2(VMH_A), 1u);

    if (!way)
        return 0;
    *m->uses += m->hits; /* the previous line's memo hits (m->uses is valid while hits are pending) */
    m->hits = 0;
    m->line = line;
    m->pid = pid | LKC_KEY_VALID;
    m->way = way;
    m->uses = c->uses + (way - c->ways);
    m->e = lkc_way_data_k(c, way, XL_LOG2(VMH_L), 0u);
    return 1;
}
/* Adds the memos' pending hits to their ways' use counts (before NIC_CMD_USAGE reads them). */
void xlate_vmemo_flush(void);
/* xlate_vmemo_scan out of line, so that a caller's memo-hit path saves no registers. */
int xlate_vmemo_load(uint16_t pid, uint32_t line, unsigned path);

/*
 * The VMH word of page `vpn` of pid from the path's line memo or the cache (no counter): 1 if found.
 * `outline` (a constant): the set scan on a memo miss is a call (xlate_vmemo_load), for a caller
 * whose memo-hit path should not pay the registers an inline scan needs; else the scan is inline,
 * for a leaf caller that a call would make save its registers on every path.
 */
static inline __attribute__((always_inline)) int xlate_vmh_word(uint16_t pid, uint32_t vpn, unsigned path, uint32_t *w,
                                                                int outline)
{
    struct xlate_vmemo *m = &xlate_vmemo[path & 1u];
    struct lkc *c = &ncp_cache[NIC_CACHE_VMH];
    uint32_t line = vpn >> XL_LOG2(VMH_L), key = pid | LKC_KEY_VALID;

    if (m->pid == key && m->line == line) {
        m->way->stamp = ++c->clock;
        m->hits++; /* into the way's use count when the memo changes (xlate_vmemo_flush) */
    } else if (!(outline ? xlate_vmemo_load(pid, line, path) : xlate_vmemo_scan(pid, line, path))) {
        return 0;
    }
    *w = m->e[vpn & (VMH_L - 1u)];
    return 1;
}

/*
 * The hit side of xlate_vmh, inline for the fast paths: 1 with *pa when the page translates (memo,
 * else the set's ways unrolled) with `right`; 0 when it is absent or not allowed. xlate_vmh_peek
 * counts nothing (a caller that needs several pages counts them once all hit: xlate_vmh_count);
 * xlate_vmh_hit counts the hit. On 0 nothing is counted (the caller's general path then calls
 * xlate_vmh, which counts and decides).
 */
static inline __attribute__((always_inline)) int xlate_vmh_peek(uint16_t pid, uint64_t va, uint32_t right,
                                                                unsigned path, uint64_t *pa, int outline)
{
    uint32_t w;

    if (va >> 44 || !xlate_vmh_word(pid, (uint32_t)(va >> 12), path, &w, outline))
        return 0;
    if (!nic_vmh_allows(w, right))
        return 0;
    *pa = nic_vmh_pa(w, va);
    return 1;
}
static inline void xlate_vmh_count(uint32_t hits)
{
    ncp_sat_add(&xlate_fast_hits.vmh, hits);
}
static inline __attribute__((always_inline)) int xlate_vmh_hit(uint16_t pid, uint64_t va, uint32_t right,
                                                               unsigned path, uint64_t *pa, int outline)
{
    if (!xlate_vmh_peek(pid, va, right, path, pa, outline))
        return 0;
    ncp_sat_inc(&xlate_fast_hits.vmh);
    return 1;
}

/* This module's counters into the statistics (ncp_counters_gather). */
void xlate_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_XLATE_H */
