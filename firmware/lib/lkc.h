/*
 * lkc.h - software set-associative LRU lookup cache ("lkc"), the structure behind the NCP's VMH,
 * CBH and PCH caches (seed 000, section IV.B.2). Portable: no register access; the firmware
 * places the storage in section .lookup, the unit tests in ordinary arrays.
 *
 * Geometry: C entries in lines of L entries (the fill unit), A ways per set, sets = C / (L * A).
 * A key `idx` (VMH: virtual page number, CBH: buffer id, PCH: pid) belongs to line `idx >> log2 L`;
 * the set is the line number plus a per-pid salt (lkc_salt: Fibonacci hash of the pid, so line 0
 * of consecutive pids falls into different sets) in its low bits, the tag the line's upper bits
 * plus the pid, so all processes share one cache without static partitioning and without every
 * process's first line aliasing into set 0 (issue 18, 8b). (pid, set, tag) still names one line. LRU within a set by a per-way stamp from a
 * per-cache clock (victim = oldest stamp, wrap-safe: ages are compared as now - stamp).
 * Each way also counts its hits since its line was filled (`uses`, a parallel array: the struct
 * lkc_way layout is the ABI's struct nic_usage_way), for the driver's least-frequently-used victim
 * choice (NIC_CMD_USAGE with NIC_USAGE_COUNTS, issue 15 item 4); the NCP's own victim stays LRU.
 *
 * Entries are opaque 32-bit words (1 << entry_log2 per entry); the caller packs them.
 *
 * Races with invalidation: every (cache, pid slot) has an epoch, incremented by every
 * invalidation of that pid. A miss reports the epoch it saw; a fill carries it back and is
 * rejected if the epoch moved (the line may have been invalidated while the host resolved it).
 * Pids share an epoch slot when they collide modulo the slot count: a spurious rejection costs a
 * retry, never a stale entry.
 *
 * Context: main loop only (not re-entrant). A fill is lkc_fill_begin() -> write the line ->
 * lkc_fill_commit(): the line is invalid in between, so a lookup never sees a torn line.
 */
#ifndef LKC_H
#define LKC_H

#include <stdint.h>

#include "nic_abi.h"
#include "ncp_util.h"

#define LKC_PATH_SEND 0u
#define LKC_PATH_RECV 1u

struct lkc_cfg {
    const char *name;
    uint8_t sets_log2;   /* sets = 1 << sets_log2 */
    uint8_t ways_log2;   /* A = 1 << ways_log2 */
    uint8_t line_log2;   /* L = 1 << line_log2 */
    uint8_t entry_log2;  /* 32-bit words per entry = 1 << entry_log2 */
    uint8_t epoch_log2;  /* epoch slots (pid mod slots) */
    uint8_t seen_log2;   /* bits in the "line seen before" filter used to split cold misses */
    uint8_t salted;      /* 1: the set is salted by the pid (lkc_set_k); 0: low bits of the line
                            (for a cache whose line number is the pid itself: PCH with L = 1) */
};

/* One way of a set (16 bytes: tag compare is two words). */
struct lkc_way {
    uint32_t tag;   /* line >> sets_log2 */
    uint32_t key;   /* pid | LKC_KEY_VALID when the way holds a line */
    uint32_t stamp; /* LRU clock at the last hit or fill */
    uint32_t line;  /* full line number (for invalidation by range and traces) */
};

#define LKC_KEY_VALID 0x10000u

struct lkc {
    const struct lkc_cfg *cfg;
    struct lkc_way *ways;  /* sets * A */
    uint32_t *data;        /* sets * A * L entries */
    uint16_t *epochs;      /* 1 << epoch_log2 */
    uint32_t *seen;        /* (1 << seen_log2) bits */
    uint32_t *uses;        /* sets * A: hits of each way since its fill (wraps after 2^32) */
    uint32_t clock;
    struct nic_cache_stats st;
};

/* Storage each cache needs, in bytes, by array (for static placement and the memory report). */
#define LKC_WAYS_N(s, w) (1u << ((s) + (w)))
#define LKC_DATA_WORDS(s, w, l, e) (1u << ((s) + (w) + (l) + (e)))
#define LKC_EPOCHS_N(ep) (1u << (ep))
#define LKC_SEEN_WORDS(sn) ((1u << (sn)) / 32u)

void lkc_init(struct lkc *c, const struct lkc_cfg *cfg, struct lkc_way *ways, uint32_t *data,
              uint16_t *epochs, uint32_t *seen, uint32_t *uses);

/* Drops every line and zeroes the counters; epochs are incremented (fills in flight are rejected). */
void lkc_reset(struct lkc *c);

/*
 * Looks up key `idx` of process `pid`. Returns the entry (1 << entry_log2 words) or NULL on a
 * miss, counted as cold (first touch of the line) or not, on `path` (LKC_PATH_*).
 */
const uint32_t *lkc_lookup(struct lkc *c, uint16_t pid, uint32_t idx, unsigned path);

/* The set of `line` of `pid`: (line + salt) mod sets, salt = bits 16.. of pid * 0x9E3779B9 when
 * the cache is salted (a multiply, a shift, an add: consecutive pids spread evenly over the sets
 * instead of line 0 of every process landing in set 0). */
#define LKC_SALT_K 0x9E3779B9u
static inline __attribute__((always_inline)) uint32_t lkc_set_k(uint16_t pid, uint32_t line, unsigned sets_log2,
                                                                unsigned salted)
{
    uint32_t salt = salted ? ((uint32_t)pid * LKC_SALT_K) >> 16 : 0u;
    return (line + salt) & ((1u << sets_log2) - 1u);
}

static inline uint32_t lkc_set(const struct lkc *c, uint16_t pid, uint32_t line)
{
    uint32_t k = (0u - (uint32_t)c->cfg->salted) & LKC_SALT_K; /* no branch: 0 when unsalted */
    return (line + (((uint32_t)pid * k) >> 16)) & ((1u << c->cfg->sets_log2) - 1u);
}

/*
 * lkc_lookup for a caller that knows the geometry at compile time (constant arguments, inlined:
 * shifts and masks fold, the way loop unrolls). lkc_find_way_k: the way that holds the line (LRU
 * updated, nothing counted) or NULL, for a caller that memoises the line (its entries start at
 * lkc_way_data_k) and touches the way's stamp on each later use; lkc_find_k: the entry, hit side
 * only, LRU updated, no counter touched (the caller counts the hit); lkc_hit_k: the same,
 * counted; lkc_lookup_k: a miss goes through lkc_lookup (which counts it). Same result and LRU
 * update as lkc_lookup.
 */
static inline __attribute__((always_inline)) struct lkc_way *
lkc_find_way_k(struct lkc *c, uint16_t pid, uint32_t line, unsigned sets_log2, unsigned ways_log2, unsigned salted)
{
    uint32_t base = lkc_set_k(pid, line, sets_log2, salted) << ways_log2;
    uint32_t tag = line >> sets_log2, key = pid | LKC_KEY_VALID;
    struct lkc_way *w = c->ways + base;

#pragma GCC unroll 8
    for (uint32_t i = 0; i < (1u << ways_log2); i++) {
        if (w[i].tag == tag && w[i].key == key) {
            w[i].stamp = ++c->clock;
            c->uses[base + i]++;
            return &w[i];
        }
    }
    return NULL;
}

/* The first entry of the line held by way `w` (of lkc_find_way_k). */
static inline __attribute__((always_inline)) const uint32_t *lkc_way_data_k(const struct lkc *c, const struct lkc_way *w,
                                                                            unsigned line_log2, unsigned entry_log2)
{
    return c->data + ((uint32_t)(w - c->ways) << (line_log2 + entry_log2));
}

static inline __attribute__((always_inline)) const uint32_t *
lkc_find_k(struct lkc *c, uint16_t pid, uint32_t idx, unsigned sets_log2, unsigned ways_log2, unsigned line_log2,
           unsigned entry_log2, unsigned salted)
{
    const struct lkc_way *w = lkc_find_way_k(c, pid, idx >> line_log2, sets_log2, ways_log2, salted);

    if (!w)
        return NULL;
    return lkc_way_data_k(c, w, line_log2, entry_log2) + ((idx & ((1u << line_log2) - 1u)) << entry_log2);
}

/* lkc_find_k counting the hit (lookups and hits), as lkc_lookup does. */
static inline __attribute__((always_inline)) const uint32_t *
lkc_hit_k(struct lkc *c, uint16_t pid, uint32_t idx, unsigned sets_log2, unsigned ways_log2, unsigned line_log2,
          unsigned entry_log2, unsigned salted)
{
    const uint32_t *e = lkc_find_k(c, pid, idx, sets_log2, ways_log2, line_log2, entry_log2, salted);

    if (e) {
        ncp_sat_inc(&c->st.lookups);
        ncp_sat_inc(&c->st.hits);
    }
    return e; /* a miss is not counted: the caller's miss path calls lkc_lookup, which counts it */
}

static inline __attribute__((always_inline)) const uint32_t *
lkc_lookup_k(struct lkc *c, uint16_t pid, uint32_t idx, unsigned path, unsigned sets_log2, unsigned ways_log2,
             unsigned line_log2, unsigned entry_log2, unsigned salted)
{
    const uint32_t *e = lkc_hit_k(c, pid, idx, sets_log2, ways_log2, line_log2, entry_log2, salted);
    return e ? e : lkc_lookup(c, pid, idx, path);
}

/* Same, without touching counters or LRU state (traces, tests, "is it there"). */
const uint32_t *lkc_peek(const struct lkc *c, uint16_t pid, uint32_t idx);

static inline uint32_t lkc_line_of(const struct lkc *c, uint32_t idx)
{
    return idx >> c->cfg->line_log2;
}

static inline uint16_t lkc_epoch(const struct lkc *c, uint16_t pid)
{
    return c->epochs[pid & ((1u << c->cfg->epoch_log2) - 1u)];
}

/*
 * Starts installing `line` of `pid` answering a miss seen at `epoch`. Returns the line's storage
 * (L entries) to write, with the way already invalid, or NULL when the epoch moved (rejected,
 * counted in fills_rejected). The victim is the way holding the same line (a repeated fill), else
 * an invalid way, else the least recently used (an eviction).
 */
uint32_t *lkc_fill_begin(struct lkc *c, uint16_t pid, uint32_t line, uint16_t epoch, unsigned *way_out);

/* 1 if `line` of pid is present or its set has an invalid way (a fill would evict nothing). */
int lkc_has_room(const struct lkc *c, uint16_t pid, uint32_t line);

/* Makes the line written since lkc_fill_begin() valid (counted in fills). */
void lkc_fill_commit(struct lkc *c, unsigned way, uint16_t pid, uint32_t line);

/*
 * Drops lines [first, first + n) of pid (n == 0: every line of pid) and increments pid's epoch.
 * Returns the number of lines dropped (counted in invalidations).
 */
uint32_t lkc_invalidate(struct lkc *c, uint16_t pid, uint32_t first, uint32_t n);

/* Bytes of lookup storage of a geometry (tags + data + epochs + filter). */
uint32_t lkc_bytes(const struct lkc_cfg *cfg);

#endif /* LKC_H */
