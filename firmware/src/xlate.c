/*
 * xlate.c - handle translation for the send and receive paths: the VMH, CBH and PCH caches
 * (dynamic build: software LRU caches with miss requests and fills) or full tables (static
 * build: the same structure sized for every registration, filled by STATIC_LOAD, never
 * evicting; an absent entry is a protection error). Same sources for both builds.
 *
 * Miss/fill state machine per line (misstab.c): ABSENT -> (lookup misses) HELD -> (event posted)
 * POSTED -> (FILL accepted or rejected) ABSENT; a HELD miss is posted when the event ring has
 * room (xlate_post_held). Invalidation bumps the (cache, pid) epoch so a racing fill is rejected.
 *
 * Cache entry formats (packed to fit the memory budget, see docs/firmware.md):
 *   VMH: one word per page (nic_vmh_word in nic_abi.h: ppn, rights, valid; 27-bit ppn: 512 GiB)
 *   CBH: struct nic_cbh_entry as the driver wrote it (8 words)
 *   PCH: one word, ep << 16 | valid
 */
#include <string.h>

#include "cmd.h"
#include "dmaq.h"
#include "ncp.h"
#include "rx.h"
#include "xlate.h"

/* This module's counters (gathered by xlate_counters for STATS). */
static struct {
    uint32_t miss_full;
    uint32_t pf_lines; /* lines miss requests asked for beyond the missed one (prefetch) */
} xlate_cnt;

/*
 * Prefetch on a miss (issue 14, item 2; INIT's `ep`): pf_max = the most VMH lines one request may
 * cover, 0 = one line (the seed). With it on, a new VMH miss is recorded HELD (not posted at
 * once) covering pf_max lines; the caller, which knows the message, narrows it to the message's
 * end (xlate_miss_end) before the main loop posts it (xlate_post_held, the same loop pass).
 */
static uint8_t pf_max;
static struct miss_ent *pf_last; /* the VMH request this packet recorded, while still HELD */

#define LOG2(x) ((uint8_t)__builtin_ctz(x))

#define EPOCH_LOG2 7u
#define SEEN_LOG2 11u

static const struct lkc_cfg cfg[NIC_CACHE__COUNT] = {
    {"VMH", LOG2(VMH_C / (VMH_L * VMH_A)), LOG2(VMH_A), LOG2(VMH_L), 0, EPOCH_LOG2, SEEN_LOG2, 1},
    {"CBH", LOG2(CBH_C / (CBH_L * CBH_A)), LOG2(CBH_A), LOG2(CBH_L), 3, EPOCH_LOG2, SEEN_LOG2, 1},
    {"PCH", LOG2(PCH_C / (PCH_L * PCH_A)), LOG2(PCH_A), LOG2(PCH_L), 0, EPOCH_LOG2, SEEN_LOG2, PCH_SALTED},
};

#define LOOKUP __attribute__((section(".lookup"), aligned(16)))
static struct lkc_way vmh_ways[VMH_C / VMH_L] LOOKUP;
static uint32_t vmh_data[VMH_C] LOOKUP;
static struct lkc_way cbh_ways[CBH_C / CBH_L] LOOKUP;
static uint32_t cbh_data[CBH_C * 8u] LOOKUP;
static struct lkc_way pch_ways[PCH_C / PCH_L] LOOKUP;
static uint32_t pch_data[PCH_C] LOOKUP;
static uint16_t epochs[NIC_CACHE__COUNT][1u << EPOCH_LOG2] LOOKUP;
static uint32_t seen[NIC_CACHE__COUNT][(1u << SEEN_LOG2) / 32u] LOOKUP;
static uint32_t vmh_uses[VMH_C / VMH_L] LOOKUP; /* hits per way since its fill (NIC_USAGE_COUNTS) */
static uint32_t cbh_uses[CBH_C / CBH_L] LOOKUP;
static uint32_t pch_uses[PCH_C / PCH_L] LOOKUP;
static struct miss_ent miss_storage[NCP_MISS_N] LOOKUP;
static struct misstab misses;

struct lkc ncp_cache[NIC_CACHE__COUNT];

_Static_assert(sizeof(struct nic_cbh_entry) == 32, "CBH entry is 8 words");
_Static_assert(VMH_C % (VMH_L * VMH_A) == 0 && VMH_C >= VMH_L * VMH_A, "VMH geometry");

static void memo_clear(void);

void xlate_init(void)
{
    lkc_init(&ncp_cache[NIC_CACHE_VMH], &cfg[0], vmh_ways, vmh_data, epochs[0], seen[0], vmh_uses);
    lkc_init(&ncp_cache[NIC_CACHE_CBH], &cfg[1], cbh_ways, cbh_data, epochs[1], seen[1], cbh_uses);
    lkc_init(&ncp_cache[NIC_CACHE_PCH], &cfg[2], pch_ways, pch_data, epochs[2], seen[2], pch_uses);
    miss_init(&misses, miss_storage, NCP_MISS_N, NCP_MISS_EXPIRE);
    for (unsigned i = 0; i < 2; i++) { /* no line memoised yet: pending hits (none) go nowhere */
        static uint32_t sink;
        xlate_vmemo[i].uses = &sink;
        xlate_vmemo[i].hits = 0;
    }
    memo_clear();
}

uint32_t xlate_line_bytes(uint8_t cache)
{
    static const uint16_t entry_bytes[NIC_CACHE__COUNT] = {sizeof(struct nic_vmh_entry),
                                                           sizeof(struct nic_cbh_entry),
                                                           sizeof(struct nic_pch_entry)};
    return (1u << cfg[cache].line_log2) * entry_bytes[cache];
}

void xlate_geom(struct nic_cache_geom *g)
{
    for (unsigned i = 0; i < NIC_CACHE__COUNT; i++) {
        g[i].line = (uint16_t)(1u << cfg[i].line_log2);
        g[i].ways = (uint16_t)(1u << cfg[i].ways_log2);
        g[i].entries = 1u << (cfg[i].sets_log2 + cfg[i].ways_log2 + cfg[i].line_log2);
    }
}

extern char __lookup_start[], __lookup_end[]; /* linker/ncp.ld */

uint32_t xlate_lookup_bytes(void)
{
    return (uint32_t)(__lookup_end - __lookup_start);
}

void xlate_miss_stats(struct nic_stats *s)
{
    s->miss_requests = misses.st.recorded;
    s->miss_reposts = misses.st.expired;
    s->miss_table_full = misses.st.full;
    s->miss_prefetch_lines = xlate_cnt.pf_lines;
    s->miss_range_merged = misses.st.range_merged;
}

int xlate_set_prefetch(uint32_t lines)
{
    if (lines > NIC_PREFETCH_MAX)
        return 0;
    pf_max = (uint8_t)lines;
    return 1;
}

void xlate_miss_end(uint64_t end)
{
    struct miss_ent *e = pf_last;

    pf_last = NULL;
    if (!e || e->state != MISS_HELD || e->cache != NIC_CACHE_VMH)
        return;
    uint32_t L = 1u << cfg[NIC_CACHE_VMH].line_log2;
    uint64_t last = ((end - 1u) >> 12) / L; /* the message's last line */
    if (last < e->line)
        return; /* no later line (or a bad end): keep the span */
    if (last - e->line + 1u < e->n)
        miss_set_span(e, (uint32_t)(last - e->line + 1u));
}

/* Posts a recorded miss; 0 when the event ring has no room (the entry stays HELD). */
static int post(struct miss_ent *e)
{
    if (!ev_post_miss(e->cache, e->path, e->pid, e->epoch, e->line, e->n))
        return 0;
    if (e->n > 1)
        ncp_sat_add(&xlate_cnt.pf_lines, e->n - 1u);
    miss_posted(&misses, e, ncp.now);
    return 1;
}

void xlate_stats(struct nic_cache_stats *out)
{
    for (unsigned i = 0; i < NIC_CACHE__COUNT; i++)
        out[i] = ncp_cache[i].st;
    /* the inlined hit paths count one word each (ncp.h, struct xlate_fast_hits) */
    uint32_t vmh = xlate_fast_hits.vmh, target = xlate_fast_hits.target;
    ncp_sat_add(&vmh, xlate_fast_hits.rx_write);
    ncp_sat_add(&target, xlate_fast_hits.rx_write);
    ncp_sat_add(&out[NIC_CACHE_VMH].lookups, vmh);
    ncp_sat_add(&out[NIC_CACHE_VMH].hits, vmh);
    for (unsigned i = NIC_CACHE_CBH; i <= NIC_CACHE_PCH; i++) {
        ncp_sat_add(&out[i].lookups, target);
        ncp_sat_add(&out[i].hits, target);
    }
}

/* A lookup missed: record the line's miss (merged per line) and post it, or count the drop. */
static void miss(uint8_t cache, uint16_t pid, uint32_t line, unsigned path)
{
    struct miss_ent *e;
    uint16_t epoch = lkc_epoch(&ncp_cache[cache], pid);

    pf_last = NULL;
    switch (miss_add(&misses, cache, pid, line, epoch, (uint8_t)path, ncp.now, &e)) {
    case MISS_ADD_NEW:
        if (pf_max && cache == NIC_CACHE_VMH) {
            /* prefetch: up to pf_max lines (a repost keeps its remaining range), narrowed by the
             * caller to its message (xlate_miss_end), posted by xlate_post_held */
            if (e->n == 1)
                miss_set_span(e, pf_max);
            pf_last = e;
            ncp_work.misses_held = 1;
        } else if (!post(e))
            ncp_work.misses_held = 1; /* xlate_post_held posts it */
        break;
    case MISS_ADD_MERGED:
        break;
    case MISS_ADD_FULL:
        ncp_sat_inc(&xlate_cnt.miss_full);
        break;
    }
}

void xlate_post_held(void)
{
    struct miss_ent *e = NULL;

    if (!ncp_work.misses_held)
        return; /* no scan of the table when nothing is held */
    pf_last = NULL; /* past the packet that recorded it: its span is final */
    for (uint32_t budget = 0; budget < 4 && (e = miss_next_held(&misses)); budget++) {
        if (!post(e))
            return;
    }
    if (!e)
        ncp_work.misses_held = 0; /* none left (an entry held later sets it again) */
}

static const uint32_t *missed(uint8_t cache, uint16_t pid, uint32_t idx, unsigned path, enum xl_result *r)
{
    if (NCP_LOOKUP_STATIC) {
        *r = XL_DENIED; /* static tables hold everything registered */
        return NULL;
    }
    miss(cache, pid, lkc_line_of(&ncp_cache[cache], idx), path);
    *r = XL_MISS;
    return NULL;
}

/*
 * Memos of the last translations, so consecutive packets of one operation do not look the same
 * line / buffer up again: the VMH line of the last page per path, and the last (pid, buffer) of
 * the receive path with its CBH entry (its PCH entry was valid). They hold copies / pointers
 * into cache lines, so every fill (which may evict) and every invalidation clears them.
 * A memo hit counts as a lookup and a hit of its caches, as the lookups it saves would.
 */
struct xlate_vmemo xlate_vmemo[2];
struct xlate_tmemo xlate_tmemo;
struct xlate_fast_hits xlate_fast_hits;
#define vmemo xlate_vmemo
#define tmemo xlate_tmemo

void xlate_vmemo_flush(void)
{
    for (unsigned i = 0; i < 2; i++) {
        *vmemo[i].uses += vmemo[i].hits;
        vmemo[i].hits = 0;
    }
}

static void memo_clear(void)
{
    xlate_vmemo_flush(); /* before the ways change */
    vmemo[0].pid = vmemo[1].pid = 0;
    tmemo.pid = 0;
}

__attribute__((noinline)) int xlate_vmemo_load(uint16_t pid, uint32_t line, unsigned path)
{
    return xlate_vmemo_scan(pid, line, path);
}

/* The miss side of xlate_vmh, out of line so the hit path needs no saved registers. */
static __attribute__((noinline)) enum xl_result vmh_miss(uint16_t pid, uint64_t va, uint32_t right, unsigned path,
                                                         uint64_t *pa)
{
    enum xl_result r;
    uint32_t vpn = (uint32_t)(va >> 12);
    const uint32_t *e = lkc_lookup(&ncp_cache[NIC_CACHE_VMH], pid, vpn, path); /* counts the miss */

    if (!e) {
        missed(NIC_CACHE_VMH, pid, vpn, path, &r);
        return r;
    }
    uint32_t w = *e;
    if (!nic_vmh_allows(w, right))
        return XL_DENIED;
    *pa = nic_vmh_pa(w, va);
    return XL_OK;
}

enum xl_result xlate_vmh(uint16_t pid, uint64_t va, uint32_t right, unsigned path, uint64_t *pa)
{
    uint32_t w;

    if (va >> 44)
        return XL_DENIED;
    if (!xlate_vmh_word(pid, (uint32_t)(va >> 12), path, &w, 0))
        return vmh_miss(pid, va, right, path, pa);
    ncp_sat_inc(&xlate_fast_hits.vmh);
    if (!nic_vmh_allows(w, right))
        return XL_DENIED;
    *pa = nic_vmh_pa(w, va);
    return XL_OK;
}

enum xl_result xlate_cbh(uint16_t pid, uint32_t buf, const struct nic_cbh_entry **out, unsigned path)
{
    enum xl_result r;
    const uint32_t *e = lkc_lookup_k(&ncp_cache[NIC_CACHE_CBH], pid, buf, path, CBH_GEOM);
    if (!e) {
        missed(NIC_CACHE_CBH, pid, buf, path, &r);
        return r;
    }
    *out = (const struct nic_cbh_entry *)(const void *)e;
    return ((*out)->flags & NIC_ENTRY_VALID) ? XL_OK : XL_DENIED;
}

enum xl_result xlate_pch(uint16_t pid, unsigned path)
{
    enum xl_result r;
    const uint32_t *e = lkc_lookup_k(&ncp_cache[NIC_CACHE_PCH], pid, pid, path, PCH_GEOM);
    if (!e) {
        missed(NIC_CACHE_PCH, pid, pid, path, &r);
        return r;
    }
    return (*e & 1u) ? XL_OK : XL_DENIED;
}

enum xl_result xlate_target_lookup(uint16_t pid, uint32_t buf, const struct nic_cbh_entry **out, unsigned path)
{
    enum xl_result r = xlate_pch(pid, path);
    if (r == XL_OK)
        r = xlate_cbh(pid, buf, out, path);
    if (r == XL_OK) {
        tmemo.buf = buf;
        tmemo.pid = pid | LKC_KEY_VALID;
        tmemo.e = *out;
    }
    return r;
}

uint64_t xlate_target_end(uint16_t pid, uint32_t buf)
{
    const struct nic_cbh_entry *e = tmemo.e;

    if (tmemo.pid != (pid | LKC_KEY_VALID) || tmemo.buf != buf || !e)
        return 0; /* unknown: the request keeps its span */
    return ((uint64_t)e->va_hi << 32 | e->va_lo) + ((uint64_t)e->len_hi << 32 | e->len_lo);
}

/* Copies a host line image into the cache's packed format. */
static void install(uint8_t cache, uint32_t *dst, const void *image)
{
    uint32_t n = 1u << cfg[cache].line_log2;

    if (cache == NIC_CACHE_VMH) {
        const struct nic_vmh_entry *s = image;
        for (uint32_t i = 0; i < n; i++) {
            dst[i] = nic_vmh_word(s[i].ppn, s[i].flags); /* nic_abi.h: the one encoding */
        }
    } else if (cache == NIC_CACHE_CBH) {
        memcpy(dst, image, n * sizeof(struct nic_cbh_entry));
    } else {
        const struct nic_pch_entry *s = image;
        for (uint32_t i = 0; i < n; i++)
            dst[i] = (s[i].flags & NIC_ENTRY_VALID) ? (uint32_t)s[i].ep << 16 | 1u : 0u;
    }
}

int32_t xlate_fill(uint8_t cache, uint16_t pid, uint32_t line, uint16_t epoch, const void *image)
{
    struct lkc *c = &ncp_cache[cache];
    unsigned way;

    miss_resolve(&misses, cache, pid, line); /* accepted or not, the next miss may post again */
    ncp_work.parked_wake = 1;
    rx_on_fill();
    memo_clear(); /* the fill may evict a memoised line */
    if (line > (0xFFFFFFFFu >> cfg[cache].line_log2))
        return NIC_ST_BAD_CMD;
    uint32_t *d = lkc_fill_begin(c, pid, line, epoch, &way);
    if (!d)
        return NIC_ST_NO_RESOURCES; /* raced an invalidation */
    install(cache, d, image);
    lkc_fill_commit(c, way, pid, line);
    return NIC_ST_OK;
}

int32_t xlate_static_load(uint8_t cache, uint16_t pid, uint32_t line, const void *image)
{
    struct lkc *c = &ncp_cache[cache];

    if (line > (0xFFFFFFFFu >> cfg[cache].line_log2))
        return NIC_ST_BAD_CMD;
    if (!lkc_has_room(c, pid, line))
        return NIC_ST_NO_RESOURCES; /* the static table is full where this line goes */
    return xlate_fill(cache, pid, line, lkc_epoch(c, pid), image);
}

void xlate_invalidate(uint8_t cache, uint16_t pid, uint32_t line, uint32_t n)
{
    memo_clear();
    lkc_invalidate(&ncp_cache[cache], pid, line, n);
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void xlate_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)s; /* the miss table's and prefetch counters: xlate_miss_stats */
    ncp_sat_add(&k->miss_full, xlate_cnt.miss_full);
}
