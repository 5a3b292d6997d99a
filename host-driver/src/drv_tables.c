/*
 * drv_tables.c - the full lookup tables in host memory and everything that changes them: miss
 * resolution (seed 000 section IV: look up, pin on demand, fill a whole line), the pinned-page
 * high-water mark (invalidate, wait for the answer, then unpin), registration and deregistration,
 * endpoints, and the static build's preloading (contract: nicdrv.h).
 *
 * Role map:
 *   build_line          one line image from the host tables (VMH: pins the pages it maps)
 *   nicdrv_miss_resolve the miss thread's work for one miss
 *   make_room / evict   high-water mark: least recently filled line first, none younger than
 *                       cfg.fill_residency
 *   invalidate          NIC_CMD_INVALIDATE, and nothing is unpinned unless it was answered OK
 *   nicdrv_mem_reg/dereg, nicdrv_ep_open/close, nicdrv_proc_release
 *
 * Invariant (what the DMA oracle checks): a page is unpinned only after every NIC cache line
 * that could map it has been invalidated and the NCP has answered. Pages are pinned per VMH
 * line record; a record's pages are unpinned only by unpin_line, called only after invalidate()
 * returned OK for that line (or with the core held in reset, at remove).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_priv.h"
#include "nic_memmap.h"

#define CLOSE_RETRY_CYCLES 2000u /* 10 us between EP_CLOSEs answered BUSY */
#define DRV_MAX_LINES 8192u /* VMH line records (pinning units) per driver */
#define VMH_LINE_MAX (NICDRV_PAGE_SIZE / sizeof(struct nic_vmh_entry)) /* the longest servable VMH line (probe) */

size_t drv_entry_size(unsigned cache)
{
    switch (cache) {
    case NIC_CACHE_VMH:
        return sizeof(struct nic_vmh_entry);
    case NIC_CACHE_CBH:
        return sizeof(struct nic_cbh_entry);
    default:
        return sizeof(struct nic_pch_entry);
    }
}

uint32_t drv_line_entries(const nicdrv_t *d, unsigned cache)
{
    return d->info.cache[cache].line;
}

int drv_tables_init(nicdrv_t *d)
{
    d->procs = calloc(d->cfg.max_procs, sizeof *d->procs);
    d->lines = calloc(DRV_MAX_LINES, sizeof *d->lines);
    d->nlines = DRV_MAX_LINES;
    return d->procs && d->lines ? NICDRV_OK : NICDRV_ENOMEM;
}

void drv_tables_fini(nicdrv_t *d)
{
    if (d->procs)
        for (uint32_t i = 0; i < d->cfg.max_procs; i++)
            free(d->procs[i].bufs);
    if (d->lines)
        for (uint32_t i = 0; i < d->nlines; i++)
            free(d->lines[i].pinned);
    free(d->procs);
    free(d->lines);
    d->procs = NULL;
    d->lines = NULL;
}

static struct drv_proc *find_proc(nicdrv_t *d, uint32_t pid, bool create)
{
    struct drv_proc *free_p = NULL;

    for (uint32_t i = 0; i < d->cfg.max_procs; i++) {
        struct drv_proc *p = &d->procs[i];
        if (p->used && p->pid == pid)
            return p;
        if (!p->used && !free_p)
            free_p = p;
    }
    if (!create || !free_p)
        return NULL;
    if (!free_p->bufs) {
        free_p->bufs = calloc(d->cfg.max_bufs, sizeof *free_p->bufs);
        if (!free_p->bufs)
            return NULL;
    }
    memset(free_p->bufs, 0, d->cfg.max_bufs * sizeof *free_p->bufs);
    free_p->used = true;
    free_p->pid = pid;
    free_p->nbufs = 0;
    free_p->ep_mask = 0;
    free_p->eq_open = false;
    d->st.procs++;
    return free_p;
}

static struct drv_line *find_line(nicdrv_t *d, uint16_t pid, uint32_t line, bool create)
{
    struct drv_line *free_l = NULL;

    for (uint32_t i = 0; i < d->nlines; i++) {
        struct drv_line *l = &d->lines[i];
        if (l->used && l->pid == pid && l->line == line)
            return l;
        if (!l->used && !free_l)
            free_l = l;
    }
    if (!create || !free_l)
        return NULL;
    if (!free_l->pinned) {
        free_l->pinned = calloc(VMH_LINE_MAX, 1);
        if (!free_l->pinned)
            return NULL;
    }
    memset(free_l->pinned, 0, drv_line_entries(d, NIC_CACHE_VMH));
    free_l->used = true;
    free_l->pid = pid;
    free_l->line = line;
    free_l->npinned = 0;
    free_l->filled_at = 0;
    free_l->lfu_base = 0;
    free_l->ahead = false;
    return free_l;
}

/* NIC_RIGHT_* of every live buffer of p covering the page at va (0: not registered) */
static uint32_t page_rights(const nicdrv_t *d, const struct drv_proc *p, uint64_t va)
{
    uint32_t r = 0;

    if (!p)
        return 0;
    for (uint32_t i = 0; i < d->cfg.max_bufs; i++) {
        const struct drv_buf *b = &p->bufs[i];
        if (b->used && !b->dying && va + NICDRV_PAGE_SIZE > (b->va & ~(uint64_t)(NICDRV_PAGE_SIZE - 1)) &&
            va < b->va + b->len)
            r |= b->rights;
    }
    return r;
}

static int invalidate(nicdrv_t *d, unsigned cache, uint16_t pid, uint32_t key, uint32_t lines)
{
    struct nic_cmd c = { .op = NIC_CMD_INVALIDATE, .cache = (uint8_t)cache, .pid = pid, .key = key, .c = lines };
    int32_t st;
    int rc = drv_cmd(d, &c, NULL, 0, &st);

    if (rc)
        return rc;
    d->st.invalidations++;
    if (d->cfg.observe)
        d->cfg.observe(d->cfg.observe_ctx, "invalidate", cache, pid, key);
    if (d->resolving && cache == d->res_cache && pid == d->res_pid && st == NIC_ST_OK)
        d->res_bump++; /* the image is built after this invalidation: its epoch is ours */
    return drv_map_status(st);
}

static void unpin_line(nicdrv_t *d, struct drv_line *l)
{
    uint32_t L = drv_line_entries(d, NIC_CACHE_VMH);

    for (uint32_t i = 0; i < L;) { /* contiguous runs: one call each */
        uint32_t j = i;
        if (!l->pinned[i]) {
            i++;
            continue;
        }
        while (j < L && l->pinned[j])
            j++;
        uint64_t va = ((uint64_t)l->line * L + i) << NICDRV_PAGE_SHIFT;
        if (d->host.unpin(d->host.ctx, l->pid, va, (uint64_t)(j - i) << NICDRV_PAGE_SHIFT) == NICDRV_OK) {
            d->st.unpins += j - i;
            d->st.pinned_pages -= j - i;
        }
        memset(l->pinned + i, 0, j - i);
        i = j;
    }
    l->npinned = 0;
    l->used = false;
}

/*
 * High-water mark: evict lines (not `keep`) until `need` more pages fit. Victim: the least recently
 * filled line among those older than cfg.fill_residency; a younger line was filled for a packet
 * that may not have used it yet (evicting it undid the fill and the packet missed again: the
 * livelock of issue 18, item 5). When every candidate is that young, wait until the oldest one
 * ages (bounded by fill_residency) rather than evict it: forward progress for every waiting packet.
 */
/*
 * Eviction upcall (seed 001, cfg.upcall_grace): the owner of the victim line, if it has an event
 * queue, gets NIC_EQE_UPCALL (token, the line's range) and the grace period to answer
 * (nicdrv_upcall_done) before its pages are taken back; an answer ends the wait at once. The wait
 * sleeps under tbl_lock, as the fill_residency wait does: the answer takes no lock.
 */
static void upcall(nicdrv_t *d, const struct drv_line *v)
{
    uint32_t L = drv_line_entries(d, NIC_CACHE_VMH);
    uint64_t va = (uint64_t)v->line * L << NICDRV_PAGE_SHIFT, deadline;
    struct drv_proc *p = find_proc(d, v->pid, false);
    struct nic_cmd c = { .op = NIC_CMD_EQ_POST, .key = NIC_EQE_UPCALL };
    int32_t st;

    if (!p || !p->eq_open) {
        d->st.upcalls_unposted++;
        return;
    }
    c.ep = p->eq;
    c.pid = (uint16_t)v->pid;
    c.a = ++d->upcall_token;
    c.b = (uint32_t)va;
    c.c = (uint32_t)(va >> 32);
    c.d = L;
    if (drv_cmd(d, &c, NULL, 0, &st) || st != NIC_ST_OK) {
        d->st.upcalls_unposted++; /* no room in its queue now: evicted without notice */
        return;
    }
    d->st.upcalls++;
    d->upcall_pid = v->pid;
    d->upcall_answered = false;
    d->upcall_pending = true;
    uint64_t t0 = d->host.now(d->host.ctx);
    deadline = t0 + d->cfg.upcall_grace;
    for (;;) {
        uint64_t seen = d->host.ev_count(d->host.ctx, NICDRV_WQ_EQ);
        if (d->upcall_answered || d->dead || d->host.now(d->host.ctx) >= deadline)
            break;
        if (d->host.ev_wait(d->host.ctx, NICDRV_WQ_EQ, seen, deadline) == NICDRV_ECANCELED)
            break;
    }
    d->st.upcall_wait += d->host.now(d->host.ctx) - t0;
    if (d->upcall_answered)
        d->st.upcalls_answered++;
    else
        d->st.upcalls_ignored++;
    d->upcall_pending = false;
}

uint64_t nicdrv_room_gen(const nicdrv_t *d)
{
    return d->room_gen;
}

int nicdrv_room_wait(nicdrv_t *d, uint64_t seen, uint64_t deadline)
{
    for (;;) {
        uint64_t wq = d->host.ev_count(d->host.ctx, NICDRV_WQ_CMD);
        if (d->room_gen != seen)
            return NICDRV_OK;
        if (d->dead)
            return NICDRV_ESTATE;
        if (d->host.now(d->host.ctx) >= deadline)
            return NICDRV_ETIMEDOUT;
        if (d->host.ev_wait(d->host.ctx, NICDRV_WQ_CMD, wq, deadline) == NICDRV_ECANCELED)
            return NICDRV_ECANCELED;
    }
}

int nicdrv_upcall_done(nicdrv_t *d, uint32_t pid, uint32_t token)
{
    if (d->host.syscall)
        d->host.syscall(d->host.ctx);
    if (!d->upcall_pending || d->upcall_pid != pid || d->upcall_token != token) {
        d->st.upcalls_late++;
        return NICDRV_ETIMEDOUT;
    }
    d->upcall_answered = true;
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_EQ);
    return NICDRV_OK;
}

/* NICDRV_EVICT_LRU / _LFU: the NIC's VMH ways (NIC_CMD_USAGE, up to a page of them) into w, or with
 * NIC_USAGE_COUNTS their access counts (a uint32_t each, same order); how many records came. */
static uint32_t vmh_usage(nicdrv_t *d, void *w, uint32_t flags)
{
    static const uint8_t zero[NICDRV_PAGE_SIZE];
    struct nic_cmd c = { .op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .c = NICDRV_PAGE_SIZE, .d = flags };
    int32_t st;

    if (drv_cmd(d, &c, zero, sizeof zero, &st) || st != NIC_ST_OK ||
        d->host.phys_read(d->host.ctx, d->slots[c.seq % d->nslots].img_pa, w, NICDRV_PAGE_SIZE))
        return 0;
    d->st.usage_reads++;
    return NICDRV_PAGE_SIZE / (flags & NIC_USAGE_COUNTS ? sizeof(uint32_t) : sizeof(struct nic_usage_way));
}

/* The victim among the pinned lines (not keep): the least recently filled; with NICDRV_EVICT_LRU
 * the least recently used on the NIC (a line it does not hold first); with NICDRV_EVICT_LFU the
 * least frequently used on the NIC, with dynamic aging (LFU-DA: priority = the driver's age at the
 * line's fill + its hits on the NIC since, a line the NIC does not hold 0 hits; the age becomes
 * the victim's priority), a line filled less than cfg.fill_residency ago only if no other is left:
 * plain LFU takes a line filled for a packet before the packet came (0 hits) and livelocks.
 * Ties, a failed USAGE and an NCP without counts: the least recently filled. *prio: the victim's
 * LFU priority. */
static struct drv_line *victim(nicdrv_t *d, const struct drv_line *keep, uint64_t *prio)
{
    static struct nic_usage_way w[NICDRV_PAGE_SIZE / sizeof(struct nic_usage_way)];
    static uint32_t uses[NICDRV_PAGE_SIZE / sizeof(uint32_t)];
    struct drv_line *v = NULL;
    const bool lfu = d->cfg.evict_policy == NICDRV_EVICT_LFU && (d->info.caps & NIC_CAP_USAGE_COUNTS);
    uint32_t nw = d->cfg.evict_policy == NICDRV_EVICT_LRU || lfu ? vmh_usage(d, w, 0) : 0, newest = 0, vage = 0;
    uint64_t vprio = 0, now = d->host.now(d->host.ctx);
    bool any = false, vyoung = false;

    if (lfu && nw && vmh_usage(d, uses, NIC_USAGE_COUNTS) < nw)
        nw = 0; /* the counts did not come: least recently filled */
    for (uint32_t i = 0; i < nw; i++) /* the newest stamp: ages are differences from it (wrap-safe) */
        if ((w[i].key & NIC_USAGE_VALID) && (!any || (int32_t)(w[i].stamp - newest) > 0)) {
            newest = w[i].stamp;
            any = true;
        }
    for (uint32_t i = 0; i < d->nlines; i++) {
        struct drv_line *l = &d->lines[i];
        uint32_t age = UINT32_MAX;
        uint64_t pr = l->lfu_base; /* LFU: its priority (smaller goes first) */
        bool young = false, better;
        if (!l->used || l == keep || !l->npinned)
            continue;
        for (uint32_t k = 0; nw && k < nw; k++)
            if (w[k].key == (l->pid | NIC_USAGE_VALID) && w[k].line == l->line) {
                age = newest - w[k].stamp;
                pr += uses[k];
                break;
            }
        if (!nw)
            age = 0;
        if (lfu && nw) {
            young = d->cfg.fill_residency && now < l->filled_at + d->cfg.fill_residency;
            better = !v || (young != vyoung ? !young : pr != vprio ? pr < vprio : l->filled_at < v->filled_at);
        } else {
            better = !v || age > vage || (age == vage && l->filled_at < v->filled_at);
        }
        if (better) {
            v = l;
            vage = age;
            vprio = pr;
            vyoung = young;
        }
    }
    *prio = lfu && nw ? vprio : d->lfu_age;
    return v;
}

static int make_room(nicdrv_t *d, uint64_t need, const struct drv_line *keep)
{
    while (d->dynamic && d->cfg.pin_hwm_pages && d->st.pinned_pages + need > d->cfg.pin_hwm_pages) {
        uint64_t prio;
        struct drv_line *v = victim(d, keep, &prio);
        uint64_t now = d->host.now(d->host.ctx);
        int rc;
        if (!v)
            return NICDRV_OK; /* one line bigger than the mark: allowed to exceed it */
        if (d->cfg.fill_residency && now < v->filled_at + d->cfg.fill_residency) {
            d->st.evict_waits++;
            d->host.sleep(d->host.ctx, v->filled_at + d->cfg.fill_residency - now);
            continue; /* the tables may have changed meanwhile (only under tbl_lock: not here) */
        }
        if (d->cfg.upcall_grace)
            upcall(d, v); /* the owner's grace period; the victim stays the victim (tbl_lock held) */
        rc = invalidate(d, NIC_CACHE_VMH, v->pid, v->line, 1);
        if (rc)
            return rc; /* not answered: the pages stay pinned */
        unpin_line(d, v);
        d->st.evictions++;
        if (prio > d->lfu_age)
            d->lfu_age = prio; /* LFU-DA: lines filled from now on start at the victim's priority */
    }
    return NICDRV_OK;
}

/* VMH line image; pins the pages it maps (charged by host->pin). */
static int build_vmh(nicdrv_t *d, struct drv_proc *p, uint16_t pid, uint32_t key, struct nic_vmh_entry *e)
{
    uint32_t L = drv_line_entries(d, NIC_CACHE_VMH), need = 0;
    uint32_t rights[VMH_LINE_MAX];
    struct drv_line *l = NULL;
    int rc;

    for (uint32_t i = 0; i < L; i++) {
        rights[i] = page_rights(d, p, ((uint64_t)key * L + i) << NICDRV_PAGE_SHIFT);
        need += rights[i] != 0;
    }
    if (need) {
        l = find_line(d, pid, key, true);
        if (!l)
            return NICDRV_ENOMEM;
        for (uint32_t i = 0; i < L; i++)
            need -= rights[i] && l->pinned[i];
        rc = make_room(d, need, l);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < L;) {
            uint32_t j = i;
            if (!rights[i] || l->pinned[i]) {
                i++;
                continue;
            }
            while (j < L && rights[j] && !l->pinned[j])
                j++;
            uint64_t va = ((uint64_t)key * L + i) << NICDRV_PAGE_SHIFT;
            rc = d->host.pin(d->host.ctx, pid, va, (uint64_t)(j - i) << NICDRV_PAGE_SHIFT);
            if (rc) {
                /* Page by page: a page the OS cannot back (outside the address space, no frame)
                 * goes into the line as an invalid entry, so the NCP fails the operation that
                 * needs it with a protection error instead of missing on it forever (issue 18,
                 * item 6); the pages around it are served. */
                for (uint32_t k = i; k < j; k++) {
                    if (d->host.pin(d->host.ctx, pid, va + ((uint64_t)(k - i) << NICDRV_PAGE_SHIFT),
                                    NICDRV_PAGE_SIZE)) {
                        rights[k] = 0;
                        d->st.unbacked_pages++;
                        continue;
                    }
                    l->pinned[k] = 1;
                    l->npinned++;
                    d->st.pins++;
                    d->st.pinned_pages++;
                }
            } else {
                memset(l->pinned + i, 1, j - i);
                l->npinned += j - i;
                d->st.pins += j - i;
                d->st.pinned_pages += j - i;
            }
            if (d->st.pinned_pages > d->st.pinned_peak)
                d->st.pinned_peak = d->st.pinned_pages;
            i = j;
        }
        l->filled_at = d->host.now(d->host.ctx);
        l->lfu_base = d->lfu_age;
    }
    for (uint32_t i = 0; i < L; i++) {
        uint64_t pa;
        e[i].ppn = 0;
        e[i].flags = 0;
        if (!rights[i])
            continue;
        if (d->host.translate(d->host.ctx, pid, ((uint64_t)key * L + i) << NICDRV_PAGE_SHIFT, &pa)) {
            d->st.unbacked_pages++; /* pinned but not resident: cannot happen; never map it */
            continue;
        }
        e[i].ppn = (uint32_t)(pa >> NICDRV_PAGE_SHIFT);
        e[i].flags = NIC_ENTRY_VALID | rights[i];
    }
    if (l && !l->npinned)
        l->used = false;
    return NICDRV_OK;
}

static int build_line(nicdrv_t *d, unsigned cache, uint16_t pid, uint32_t key, void *img, size_t *len)
{
    uint32_t L = drv_line_entries(d, cache);
    struct drv_proc *p = find_proc(d, pid, false);

    *len = L * drv_entry_size(cache);
    memset(img, 0, *len);
    if (cache == NIC_CACHE_VMH)
        return build_vmh(d, p, pid, key, img);
    if (cache == NIC_CACHE_CBH) {
        struct nic_cbh_entry *e = img;
        for (uint32_t i = 0; p && i < L; i++) {
            uint64_t id = (uint64_t)key * L + i;
            const struct drv_buf *b = id < d->cfg.max_bufs ? &p->bufs[id] : NULL;
            if (!b || !b->used || b->dying)
                continue;
            e[i].flags = NIC_ENTRY_VALID | b->rights;
            e[i].key = b->key;
            e[i].va_lo = (uint32_t)b->va;
            e[i].va_hi = (uint32_t)(b->va >> 32);
            e[i].len_lo = (uint32_t)b->len;
            e[i].len_hi = (uint32_t)(b->len >> 32);
            e[i].owner_pid = pid;
        }
        return NICDRV_OK;
    }
    struct nic_pch_entry *e = img; /* PCH: the line holds pids key*L .. key*L+L-1 */
    for (uint32_t i = 0; i < L; i++) {
        const struct drv_proc *q = find_proc(d, key * L + i, false);
        if (q && (q->ep_mask || q->nhep)) { /* the context names one endpoint: its lowest resident */
            e[i].flags = NIC_ENTRY_VALID;
            e[i].ep = q->ep_mask ? (uint16_t)__builtin_ctz(q->ep_mask) : 0u;
        }
    }
    return NICDRV_OK;
}

static uint32_t line_of(const nicdrv_t *d, unsigned cache, uint16_t pid, uint64_t n)
{
    (void)pid;
    return (uint32_t)(n / drv_line_entries(d, cache));
}

/* Static build: (re)load one line into the NIC's full table. */
static int static_load(nicdrv_t *d, unsigned cache, uint16_t pid, uint32_t key)
{
    uint8_t img[NICDRV_PAGE_SIZE];
    struct nic_cmd c = { .op = NIC_CMD_STATIC_LOAD, .cache = (uint8_t)cache, .pid = pid, .key = key };
    size_t len;
    int32_t st;
    int rc = build_line(d, cache, pid, key, img, &len);

    if (rc)
        return rc;
    rc = drv_cmd(d, &c, img, len, &st);
    if (rc)
        return rc;
    d->st.static_loads++;
    return drv_map_status(st);
}

/*
 * Dynamic build, cfg.prefill: installs one PCH or CBH line without waiting for a miss (caller holds
 * tbl_lock, right after the INVALIDATE that dropped the stale copy). A rejected fill is harmless:
 * the line is simply missed later.
 */
static int prefill(nicdrv_t *d, unsigned cache, uint16_t pid, uint32_t key)
{
    uint8_t img[NICDRV_PAGE_SIZE];
    struct nic_cmd c = { .op = NIC_CMD_FILL, .cache = (uint8_t)cache, .pid = pid, .key = key, .c = NIC_FILL_CURRENT };
    size_t len;
    int32_t st;
    int rc;

    if (!d->dynamic || !d->cfg.prefill)
        return NICDRV_OK;
    rc = build_line(d, cache, pid, key, img, &len);
    if (!rc)
        rc = drv_cmd(d, &c, img, len, &st);
    if (rc)
        return rc;
    if (st == NIC_ST_OK)
        d->st.prefills++;
    else if (st != NIC_ST_NO_RESOURCES)
        return drv_map_status(st);
    return NICDRV_OK;
}

/* ---- the miss thread ---- */

int nicdrv_miss_pop(nicdrv_t *d, struct nicdrv_miss *m)
{
    if (!d->miss_count)
        return NICDRV_ENOENT;
    *m = d->missq[d->miss_head];
    d->miss_head = (d->miss_head + 1) % d->cfg.miss_queue;
    d->miss_count--;
    return NICDRV_OK;
}

/* Builds line `key` of (cache, pid) and FILLs it (NIC_FILL_CURRENT); the caller holds tbl_lock. */
static int fill_line_locked(nicdrv_t *d, uint8_t cache, uint16_t pid, uint32_t key, uint16_t epoch, bool prefetch)
{
    uint8_t img[NICDRV_PAGE_SIZE];
    /* NIC_FILL_CURRENT: the image is built and the FILL queued under tbl_lock, which orders every
     * INVALIDATE the driver sends, so no invalidation of the line falls between them and the image
     * is current whatever the epoch the miss saw. With the miss's epoch instead, every eviction of
     * another line of the same (cache, pid) while the miss waited in the queue made its fill stale:
     * thousands of rejected fills and repeated misses under a small pin budget (issue 18, item 5). */
    struct nic_cmd c = { .op = NIC_CMD_FILL, .cache = cache, .pid = pid, .key = key, .epoch = epoch,
                         .c = NIC_FILL_CURRENT };
    size_t len;
    int32_t st = NIC_ST_OK;
    int rc;

    d->resolving = true;
    d->res_cache = cache;
    d->res_pid = pid;
    d->res_bump = 0;
    rc = build_line(d, cache, pid, key, img, &len);
    d->resolving = false;
    c.epoch = (uint16_t)(epoch + d->res_bump);
    uint64_t t0 = d->host.now(d->host.ctx);
    /* NIC_ST_NO_RESOURCES: the NCP had no DMA room for the image (or, from an NCP that ignores
     * the flag, the epoch moved): the fill is sent again, not lost */
    for (uint32_t attempt = 0; !rc && attempt < 8; attempt++) {
        if (attempt) {
            d->st.fill_retries++;
            d->host.sleep(d->host.ctx, 2000u << attempt);
        }
        rc = drv_cmd(d, &c, img, len, &st);
        if (rc || st != NIC_ST_NO_RESOURCES)
            break;
    }
    d->st.fill_wait += d->host.now(d->host.ctx) - t0;
    if (!rc) {
        if (st == NIC_ST_OK) {
            d->st.fills++;
            d->st.prefetch_fills += prefetch;
        } else if (st == NIC_ST_NO_RESOURCES)
            d->st.fills_rejected++; /* still refused: the NCP's request expires and posts again */
        else
            rc = NICDRV_EFW;
        if (!rc && d->cfg.observe)
            d->cfg.observe(d->cfg.observe_ctx, st == NIC_ST_OK ? "fill" : "fill_rejected", cache, pid, key);
    }
    return rc;
}

static int fill_line(nicdrv_t *d, uint8_t cache, uint16_t pid, uint32_t key, uint16_t epoch, bool prefetch)
{
    drv_lock(d, &d->tbl_lock);
    int rc = fill_line_locked(d, cache, pid, key, epoch, prefetch);
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

/* NICDRV_PIN_OVERLAP: a VMH miss whose packet arrived before its page was pinned: on a line the
 * background pinned only after the miss was raised, or has not reached yet (and no one pinned
 * otherwise). Counted, then served as any miss. */
static void count_early(nicdrv_t *d, uint16_t pid, uint32_t line, uint32_t lines, uint64_t raised_at)
{
    struct drv_proc *p;
    struct drv_line *l = find_line(d, pid, line, false);

    if (l && l->npinned) {
        if (l->ahead && l->filled_at > raised_at)
            d->st.pin_early++; /* pinned meanwhile: its packet was ahead of the pinning */
        return;
    }
    if (!d->bg_bufs || !(p = find_proc(d, pid, false)))
        return;
    for (uint32_t i = 0; i < d->cfg.max_bufs; i++) {
        struct drv_buf *b = &p->bufs[i];
        if (b->used && !b->dying && line >= b->pin_next && line < b->pin_end) {
            d->st.pin_early++;
            /* the traffic is ahead of the background: it goes on from past what this miss fills
             * (the lines it skips were before the traffic; a later miss pins them on demand) */
            b->pin_next = line + lines < b->pin_end ? line + lines : b->pin_end;
            if (b->pin_next >= b->pin_end)
                d->bg_bufs--;
            return;
        }
    }
}

/* Whether one more VMH line of pins fits under the high-water mark (pinning ahead of traffic
 * never evicts: it stops there, the rest is pinned on demand). */
static bool ahead_fits(const nicdrv_t *d)
{
    return !d->cfg.pin_hwm_pages || d->st.pinned_pages + drv_line_entries(d, NIC_CACHE_VMH) <= d->cfg.pin_hwm_pages;
}

/* Pins and fills one line ahead of traffic (at registration or in the background), unless a miss
 * already did (its drv_line has pins). */
static int ahead_line(nicdrv_t *d, uint16_t pid, uint32_t line)
{
    struct drv_line *l = find_line(d, pid, line, false);
    int rc;

    if (l && l->npinned)
        return NICDRV_OK;
    rc = fill_line_locked(d, NIC_CACHE_VMH, pid, line, 0, false);
    if (!rc)
        d->st.bg_lines++;
    if (!rc && (l = find_line(d, pid, line, false)))
        l->ahead = true;
    return rc;
}

int nicdrv_pin_step(nicdrv_t *d)
{
    struct drv_proc *p = NULL;
    struct drv_buf *b = NULL;
    int rc = NICDRV_ENORES;

    if (!nicdrv_probed(d))
        return NICDRV_ESTATE;
    if (!d->bg_bufs)
        return NICDRV_ENOENT;
    drv_lock(d, &d->tbl_lock);
    /* round robin over the buffers being pinned (from the one after the last served), so that
     * every new registration gets going at once, not after the others' last lines */
    for (uint32_t n = d->cfg.max_procs * d->cfg.max_bufs, j = 0; !b && j < n; j++) {
        uint32_t at = (d->bg_cursor + 1u + j) % n;
        p = &d->procs[at / d->cfg.max_bufs];
        if (!p->used)
            continue;
        struct drv_buf *c = &p->bufs[at % d->cfg.max_bufs];
        if (c->used && !c->dying && c->pin_next < c->pin_end) {
            b = c;
            d->bg_cursor = at;
        }
    }
    if (!b) {
        drv_unlock(d, &d->tbl_lock);
        return NICDRV_ENOENT;
    }
    if (ahead_fits(d))
        rc = ahead_line(d, (uint16_t)p->pid, b->pin_next++);
    if (rc)
        b->pin_next = b->pin_end; /* at the mark or not answered: the rest is pinned on demand */
    if (b->pin_next >= b->pin_end)
        d->bg_bufs--;
    drv_unlock(d, &d->tbl_lock);
    d->host.sleep(d->host.ctx, 1); /* a waiter for tbl_lock (a miss, a deregistration) gets it first */
    return NICDRV_OK;
}

int nicdrv_miss_resolve(nicdrv_t *d, const struct nicdrv_miss *m)
{
    uint32_t lines = m->lines < 1 ? 1u : m->lines;
    int rc;

    if (!nicdrv_probed(d))
        return NICDRV_ESTATE;
    if (m->cache >= NIC_CACHE__COUNT)
        return NICDRV_EINVAL;
    if (m->cache != NIC_CACHE_VMH || lines > NIC_PREFETCH_MAX)
        lines = 1;
    /* Prefetch on a miss (cfg.prefetch_lines): the missed line first (its packet waits), then the
     * rest of the request's lines in order, each built and filled under the lock on its own, so a
     * registration or deregistration can fall between two of them (a line of a buffer gone by
     * then is built invalid and pins nothing). The NCP's request shrinks with each fill. */
    if (m->cache == NIC_CACHE_VMH && d->cfg.pin_mode == NICDRV_PIN_OVERLAP)
        count_early(d, m->pid, m->key, lines, m->raised_at);
    rc = fill_line(d, m->cache, m->pid, m->key, m->epoch, false);
    for (uint32_t k = 1; !rc && k < lines && m->key + k > m->key; k++) {
        d->host.sleep(d->host.ctx, 1); /* a waiter for tbl_lock (a deregistration) gets it first */
        rc = fill_line(d, m->cache, m->pid, m->key + k, m->epoch, true);
    }
    return rc;
}

/* ---- MMU notifier (seed 004) ---- */

static bool queue_page(const nicdrv_t *d, const struct drv_proc *p, uint64_t va);

int nicdrv_mmu_release(nicdrv_t *d, uint32_t pid, uint64_t va)
{
    uint32_t L = drv_line_entries(d, NIC_CACHE_VMH);
    uint64_t vpn = va >> NICDRV_PAGE_SHIFT;
    int rc = NICDRV_OK;

    if (!nicdrv_probed(d) || !d->dynamic)
        return NICDRV_ESTATE;
    drv_lock(d, &d->tbl_lock);
    d->st.mmu_releases++;
    struct drv_line *l = find_line(d, (uint16_t)pid, (uint32_t)(vpn / L), false);
    if (l && l->used && l->pinned[vpn % L] && d->cfg.fill_residency &&
        d->host.now(d->host.ctx) < l->filled_at + d->cfg.fill_residency) {
        /* filled for a packet that may not have used it yet: taking it now could undo every fill
         * before its use (a livelock, as for evictions): the OS tries again later */
        rc = NICDRV_EBUSY;
        d->st.mmu_young++;
    } else if (l && l->used && l->pinned[vpn % L]) {
        if (!d->cfg.mmu_skip_invalidate)
            rc = invalidate(d, NIC_CACHE_VMH, (uint16_t)pid, l->line, 1);
        if (!rc) {
            unpin_line(d, l); /* the whole line: it is not on the NIC any more */
            d->st.mmu_invalidations++;
        }
    } else {
        struct drv_proc *p = find_proc(d, pid, false);
        if (p && queue_page(d, p, va & ~(uint64_t)(NICDRV_PAGE_SIZE - 1)))
            rc = NICDRV_EBUSY; /* written by the NCP without a translation: stays pinned */
    }
    if (rc)
        d->st.mmu_refused++;
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

/* ---- registration ---- */

/*
 * Remote keys (docs/wire-protocol.md "Threat model"). A key is checked by the target NCP against
 * its buffer (pid, buffer id), so a node that was never given it must not be able to guess it:
 *   - unpredictable: a keyed permutation (a 4-round Feistel network on 28 bits with SipHash-2-4
 *     rounds, cycle-walked down to 27 bits) of the registration count, under a 128-bit per-node
 *     secret from the host's entropy, or from cfg.key_seed (a simulation's seed: reproducible);
 *     keys given out reveal nothing usable about others without the secret;
 *   - never repeated: the permutation is a bijection, so a node's first 2^27 registrations get
 *     distinct keys, and the low 5 bits are the node id, so no two nodes (ids 0..31) share one.
 */
#define KEY_NODE_BITS 5u
#define KEY_PERM_BITS (32u - KEY_NODE_BITS)

static uint64_t key_sip(const uint32_t k[4], uint64_t m)
{
#define KROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define KROUND                                                                            \
    do {                                                                                  \
        v0 += v1; v1 = KROTL(v1, 13); v1 ^= v0; v0 = KROTL(v0, 32);                      \
        v2 += v3; v3 = KROTL(v3, 16); v3 ^= v2;                                           \
        v0 += v3; v3 = KROTL(v3, 21); v3 ^= v0;                                           \
        v2 += v1; v1 = KROTL(v1, 17); v1 ^= v2; v2 = KROTL(v2, 32);                      \
    } while (0)
    uint64_t k0 = (uint64_t)k[0] | (uint64_t)k[1] << 32, k1 = (uint64_t)k[2] | (uint64_t)k[3] << 32;
    uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull, b = (uint64_t)8 << 56;
    v3 ^= m;
    KROUND;
    KROUND;
    v0 ^= m;
    v3 ^= b;
    KROUND;
    KROUND;
    v0 ^= b;
    v2 ^= 0xFF;
    KROUND;
    KROUND;
    KROUND;
    KROUND;
    return v0 ^ v1 ^ v2 ^ v3;
#undef KROUND
#undef KROTL
}

/* A bijection of [0, 2^27) under the node's key. */
static uint32_t key_perm(const uint32_t k[4], uint32_t x)
{
    do { /* cycle-walking: a 28-bit Feistel permutation until the value is below 2^27 */
        uint32_t l = x >> 14, r = x & 0x3FFFu;
        for (uint32_t round = 0; round < 4; round++) {
            uint32_t f = (uint32_t)key_sip(k, (uint64_t)round << 32 | r) & 0x3FFFu;
            uint32_t t = r;
            r = l ^ f;
            l = t;
        }
        x = l << 14 | r;
    } while (x >> KEY_PERM_BITS);
    return x;
}

int drv_key_init(nicdrv_t *d)
{
    uint64_t s[2] = {d->cfg.key_seed, 0};

    if (!s[0]) {
        FILE *f = fopen("/dev/urandom", "rb");
        int ok = f && fread(s, sizeof s, 1, f) == 1;
        if (f)
            fclose(f);
        if (!ok)
            return -1;
    } else {
        s[1] = s[0] * 0x9E3779B97F4A7C15ull ^ 0xD1B54A32D192ED03ull; /* the seed is the whole secret */
    }
    d->key_k[0] = (uint32_t)s[0];
    d->key_k[1] = (uint32_t)(s[0] >> 32);
    d->key_k[2] = (uint32_t)s[1];
    d->key_k[3] = (uint32_t)(s[1] >> 32);
    d->key_ctr = 0;
    return 0;
}

uint32_t drv_key_make(const uint32_t k[4], uint32_t node, uint32_t n)
{
    return key_perm(k, n & ((1u << KEY_PERM_BITS) - 1u)) << KEY_NODE_BITS | (node & ((1u << KEY_NODE_BITS) - 1u));
}

static uint32_t next_key(nicdrv_t *d)
{
    uint32_t key;

    do /* never 0 (a CBH entry's zero key) */
        key = drv_key_make(d->key_k, d->cfg.node_id, d->key_ctr++);
    while (!key);
    return key;
}

/* VMH lines covering [va, va+len) */
static void vmh_span(const nicdrv_t *d, uint64_t va, uint64_t len, uint32_t *first, uint32_t *count)
{
    uint32_t L = drv_line_entries(d, NIC_CACHE_VMH);
    uint64_t f = (va >> NICDRV_PAGE_SHIFT) / L, l = ((va + len - 1) >> NICDRV_PAGE_SHIFT) / L;
    *first = (uint32_t)f;
    *count = (uint32_t)(l - f + 1);
}

static void unpin_span(nicdrv_t *d, uint16_t pid, uint32_t first, uint32_t count)
{
    for (uint32_t i = 0; i < d->nlines; i++) {
        struct drv_line *l = &d->lines[i];
        if (l->used && l->pid == pid && l->line >= first && l->line - first < count)
            unpin_line(d, l);
    }
}

static int dereg_locked(nicdrv_t *d, struct drv_proc *p, uint32_t id)
{
    struct drv_buf *b = &p->bufs[id];
    uint32_t first, count;
    int rc;

    b->dying = true; /* from here every line image shows it invalid */
    if (b->pin_next < b->pin_end) { /* background pinning of it stops (under tbl_lock: none in flight) */
        b->pin_next = b->pin_end;
        d->bg_bufs--;
    }
    vmh_span(d, b->va, b->len, &first, &count);
    if (!d->dead) {
        rc = invalidate(d, NIC_CACHE_CBH, (uint16_t)p->pid, line_of(d, NIC_CACHE_CBH, 0, id), 1);
        if (!rc)
            rc = invalidate(d, NIC_CACHE_VMH, (uint16_t)p->pid, first, count);
        if (rc)
            return rc; /* unanswered: keep the pages pinned (a leak beats a wild DMA) */
    }
    unpin_span(d, (uint16_t)p->pid, first, count);
    b->used = false;
    b->dying = false;
    p->nbufs--;
    d->st.bufs--;
    d->room_gen++; /* a registration waiting for room may try again (nicdrv_room_wait) */
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_CMD);
    if (!d->dynamic && !d->dead) { /* neighbours sharing the lines go back into the full tables */
        rc = static_load(d, NIC_CACHE_CBH, (uint16_t)p->pid, line_of(d, NIC_CACHE_CBH, 0, id));
        for (uint32_t k = 0; !rc && k < count; k++) {
            uint32_t L = drv_line_entries(d, NIC_CACHE_VMH);
            bool shared = false;
            for (uint32_t i = 0; i < L && !shared; i++)
                shared = page_rights(d, p, ((uint64_t)(first + k) * L + i) << NICDRV_PAGE_SHIFT) != 0;
            if (shared)
                rc = static_load(d, NIC_CACHE_VMH, (uint16_t)p->pid, first + k);
        }
        return rc;
    }
    return NICDRV_OK;
}

static int check_call(nicdrv_t *d, uint32_t pid)
{
    if (d->host.syscall)
        d->host.syscall(d->host.ctx);
    if (!nicdrv_probed(d))
        return NICDRV_ESTATE;
    return pid == 0 || pid > 0xFFFF ? NICDRV_EINVAL : NICDRV_OK;
}

int nicdrv_mem_reg(nicdrv_t *d, uint32_t pid, uint64_t va, uint64_t len, uint32_t rights, uint32_t *id, uint32_t *key)
{
    const uint32_t all = NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE | NIC_RIGHT_REMOTE_WRITE | NIC_RIGHT_REMOTE_READ;
    uint32_t L, first, count, n;
    struct drv_proc *p;
    struct drv_buf *b;
    bool bg = false;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    L = drv_line_entries(d, NIC_CACHE_VMH);
    if (!len || !rights || (rights & ~all) || va + len < va || ((va + len - 1) >> NICDRV_PAGE_SHIFT) / L > UINT32_MAX)
        return NICDRV_EINVAL;
    /* what no miss could ever resolve is refused now, not at the first packet (issue 18, item 6);
     * the NCP translates at most 44-bit addresses */
    if ((va + len - 1) >> 44 || (d->host.va_check && d->host.va_check(d->host.ctx, pid, va, len)))
        return NICDRV_EFAULT;
    drv_lock(d, &d->tbl_lock);
    p = find_proc(d, pid, true);
    rc = NICDRV_ENOMEM;
    if (!p)
        goto out;
    for (n = 0; n < d->cfg.max_bufs && p->bufs[n].used; n++)
        ;
    if (n == d->cfg.max_bufs)
        goto out;
    b = &p->bufs[n];
    b->used = true;
    b->dying = false;
    b->va = va;
    b->len = len;
    b->rights = rights;
    b->key = next_key(d);
    p->nbufs++;
    d->st.bufs++;
    vmh_span(d, va, len, &first, &count);
    if (d->dynamic) { /* lines cached before this registration show these entries invalid: drop them */
        rc = invalidate(d, NIC_CACHE_CBH, (uint16_t)pid, line_of(d, NIC_CACHE_CBH, 0, n), 1);
        if (!rc)
            rc = invalidate(d, NIC_CACHE_VMH, (uint16_t)pid, first, count);
        if (!rc)
            rc = prefill(d, NIC_CACHE_CBH, (uint16_t)pid, line_of(d, NIC_CACHE_CBH, 0, n));
        b->pin_next = b->pin_end = 0;
        if (!rc && d->cfg.pin_mode == NICDRV_PIN_AT_REG) { /* pinned and filled before we return */
            for (uint32_t k = 0; !rc && k < count && ahead_fits(d); k++)
                rc = ahead_line(d, (uint16_t)pid, first + k);
        } else if (!rc && d->cfg.pin_mode == NICDRV_PIN_OVERLAP) {
            /* the first line(s) now: the first packet may follow the registration at once, with no
             * rendezvous round trip to hide the pinning (it raced the pin worker: ~1 in 1,000
             * packets early); the rest in the background, nicdrv_pin_step */
            uint32_t k = 0;
            for (; !rc && k < count && k < d->cfg.pin_sync_lines && ahead_fits(d); k++)
                rc = ahead_line(d, (uint16_t)pid, first + k);
            if (!rc && k < count) {
                b->pin_next = first + k;
                b->pin_end = first + count;
                d->bg_bufs++;
                bg = true;
            }
        }
    } else { /* static build: everything goes into the NIC's tables now, pinned for good */
        rc = NICDRV_OK;
        for (uint32_t k = 0; !rc && k < count; k++)
            rc = static_load(d, NIC_CACHE_VMH, (uint16_t)pid, first + k);
        if (!rc)
            rc = static_load(d, NIC_CACHE_CBH, (uint16_t)pid, line_of(d, NIC_CACHE_CBH, 0, n));
    }
    if (rc) {
        int rc2 = dereg_locked(d, p, n);
        (void)rc2; /* the registration's error is the one to report */
        goto out;
    }
    *id = n;
    *key = b->key;
out:
    drv_unlock(d, &d->tbl_lock);
    if (bg && !rc)
        d->host.ev_signal(d->host.ctx, NICDRV_WQ_PIN); /* the pin worker: nicdrv_pin_step */
    return rc;
}

int nicdrv_mem_dereg(nicdrv_t *d, uint32_t pid, uint32_t id)
{
    struct drv_proc *p;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    drv_lock(d, &d->tbl_lock);
    p = find_proc(d, pid, false);
    if (!p || id >= d->cfg.max_bufs || !p->bufs[id].used || p->bufs[id].dying)
        rc = NICDRV_ENOENT;
    else
        rc = dereg_locked(d, p, id);
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

/* ---- endpoints ---- */

static int pch_update(nicdrv_t *d, uint16_t pid)
{
    uint32_t key = line_of(d, NIC_CACHE_PCH, 0, pid);
    int rc = invalidate(d, NIC_CACHE_PCH, pid, key, 1);

    if (!rc && !d->dynamic)
        rc = static_load(d, NIC_CACHE_PCH, pid, key);
    else if (!rc)
        rc = prefill(d, NIC_CACHE_PCH, pid, key);
    return rc;
}

static void unpin_page(nicdrv_t *d, struct drv_proc *p, uint64_t va)
{
    if (d->host.unpin(d->host.ctx, p->pid, va, NICDRV_PAGE_SIZE) == NICDRV_OK) {
        d->st.unpins++;
        d->st.pinned_pages--;
    }
}

/* Pin, translate and clear one page of the process for NIC DMA (a completion or event queue). */
static int pin_page(nicdrv_t *d, struct drv_proc *p, uint64_t va, uint64_t *pa)
{
    static const uint8_t zero[NICDRV_PAGE_SIZE];

    if (d->host.pin(d->host.ctx, p->pid, va, NICDRV_PAGE_SIZE))
        return NICDRV_EFAULT;
    d->st.pins++;
    if (++d->st.pinned_pages > d->st.pinned_peak)
        d->st.pinned_peak = d->st.pinned_pages;
    if (d->host.translate(d->host.ctx, p->pid, va, pa) ||
        d->host.proc_write(d->host.ctx, p->pid, va, zero, sizeof zero)) {
        unpin_page(d, p, va);
        return NICDRV_EFAULT;
    }
    return NICDRV_OK;
}

/* The host endpoint id ep (ABI 2.2) is open and the process's. */
static bool hep_owned(const nicdrv_t *d, const struct drv_proc *p, uint32_t ep)
{
    return ep >= d->info.max_procs && ep < d->neps && d->hep_pid[ep] == p->pid + 1u;
}

/* va is the page of one of the process's queues already. */
static bool queue_page(const nicdrv_t *d, const struct drv_proc *p, uint64_t va)
{
    for (uint32_t e = d->info.max_procs; p->nhep && e < d->neps; e++)
        if (hep_owned(d, p, e) && (d->hep_cq_va[e] == va || d->hep_sq_va[e] == va))
            return true;
    for (uint32_t e = 0; e < DRV_EPS; e++)
        if ((p->ep_mask >> e & 1u) && p->cq_va[e] == va)
            return true;
    return p->eq_open && p->eq_va == va;
}

/* A host endpoint (ABI 2.2, docs/host-interface.md "Host endpoints"): its context written into the
 * driver's table (valid), then EP_OPEN; the completion queue and send queue pages pinned. */
static int hep_open_locked(nicdrv_t *d, struct drv_proc *p, uint64_t cq_va, uint64_t sq_va, uint16_t *ep)
{
    struct nic_cmd c = { .op = NIC_CMD_EP_OPEN };
    struct nic_ep_ctx x;
    uint64_t cq_pa, sq_pa, ctx;
    uint32_t e;
    int32_t st;
    int rc;

    if (sq_va % NICDRV_PAGE_SIZE || sq_va == cq_va)
        return NICDRV_EINVAL;
    if (queue_page(d, p, sq_va))
        return NICDRV_EBUSY;
    for (e = d->info.max_procs; e < d->neps && d->hep_pid[e]; e++)
        ;
    if (e >= d->neps)
        return NICDRV_ENORES;
    ctx = d->ept_pa[e / NIC_EPC_PER_PAGE] + (e % NIC_EPC_PER_PAGE) * sizeof x;
    rc = pin_page(d, p, cq_va, &cq_pa);
    if (rc)
        return rc;
    rc = pin_page(d, p, sq_va, &sq_pa); /* cleared: its doorbell record starts at 0 */
    if (rc)
        goto fail_cq;
    memset(&x, 0, sizeof x);
    x.flags = NIC_EPC_VALID;
    x.pid = (uint16_t)p->pid;
    x.cq_log2 = (uint8_t)d->cfg.cq_log2;
    x.eq = p->eq_open ? (uint8_t)p->eq : 0u;
    x.cq_lo = (uint32_t)cq_pa;
    x.cq_hi = (uint32_t)(cq_pa >> 32);
    x.sq_lo = (uint32_t)sq_pa;
    x.sq_hi = (uint32_t)(sq_pa >> 32);
    rc = d->host.phys_write(d->host.ctx, ctx, &x, sizeof x) ? NICDRV_EFAULT : NICDRV_OK;
    c.ep = (uint16_t)e;
    c.pid = (uint16_t)p->pid;
    c.a = x.cq_lo;
    c.b = x.cq_hi;
    c.c = x.cq_log2;
    c.d = x.eq;
    if (!rc)
        rc = drv_cmd(d, &c, NULL, 0, &st);
    if (!rc)
        rc = drv_map_status(st);
    if (rc) {
        memset(&x, 0, sizeof x);
        d->host.phys_write(d->host.ctx, ctx, &x, sizeof x);
        goto fail_sq;
    }
    d->hep_pid[e] = p->pid + 1u;
    d->hep_cq_va[e] = cq_va;
    d->hep_sq_va[e] = sq_va;
    p->nhep++;
    d->st.eps++;
    if (p->nhep == 1 && !p->ep_mask && (rc = pch_update(d, (uint16_t)p->pid)) != NICDRV_OK)
        return rc; /* open; its close (or the process's release) cleans up */
    *ep = (uint16_t)e;
    return NICDRV_OK;
fail_sq:
    unpin_page(d, p, sq_va);
fail_cq:
    unpin_page(d, p, cq_va);
    return rc;
}

int nicdrv_ep_open(nicdrv_t *d, uint32_t pid, uint64_t cq_va, uint16_t *ep, uint32_t *cq_entries)
{
    return nicdrv_ep_open_sq(d, pid, cq_va, 0, ep, cq_entries);
}

int nicdrv_ep_open_sq(nicdrv_t *d, uint32_t pid, uint64_t cq_va, uint64_t sq_va, uint16_t *ep, uint32_t *cq_entries)
{
    struct nic_cmd c = { .op = NIC_CMD_EP_OPEN };
    uint32_t nep, e;
    struct drv_proc *p;
    uint64_t pa;
    int32_t st;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    if (cq_va % NICDRV_PAGE_SIZE)
        return NICDRV_EINVAL;
    nep = d->info.max_procs < NIC_SENDQ_SLOTS ? d->info.max_procs : NIC_SENDQ_SLOTS;
    if (nep > DRV_EPS)
        nep = DRV_EPS;
    drv_lock(d, &d->tbl_lock);
    p = find_proc(d, pid, true);
    rc = !p ? NICDRV_ENOMEM : queue_page(d, p, cq_va) ? NICDRV_EBUSY : NICDRV_OK;
    if (rc)
        goto out;
    for (e = 1; e < nep && d->ep_used[e]; e++)
        ;
    rc = NICDRV_ENORES;
    if (e == nep && sq_va) { /* the resident endpoints are taken: a host endpoint (ABI 2.2) */
        rc = hep_open_locked(d, p, cq_va, sq_va, ep);
        if (!rc)
            *cq_entries = 1u << d->cfg.cq_log2;
        goto out;
    }
    if (e == nep)
        goto out;
    rc = pin_page(d, p, cq_va, &pa);
    if (rc)
        goto out;
    c.ep = (uint16_t)e;
    c.pid = (uint16_t)pid;
    c.a = (uint32_t)pa;
    c.b = (uint32_t)(pa >> 32);
    c.c = d->cfg.cq_log2;
    c.d = p->eq_open ? p->eq : 0u; /* ABI 2.1: completions reported to the process's event queue */
    rc = drv_cmd(d, &c, NULL, 0, &st);
    if (!rc)
        rc = drv_map_status(st);
    if (rc)
        goto fail_pin;
    d->ep_used[e] = 1;
    p->ep_mask |= 1u << e;
    p->cq_va[e] = cq_va;
    d->st.eps++;
    rc = pch_update(d, (uint16_t)pid);
    if (rc) {
        struct nic_cmd cl = { .op = NIC_CMD_EP_CLOSE, .ep = (uint16_t)e };
        p->ep_mask &= ~(1u << e);
        d->ep_used[e] = 0;
        d->st.eps--;
        if (drv_cmd(d, &cl, NULL, 0, &st) || pch_update(d, (uint16_t)pid))
            goto out; /* the NCP may still write the CQ: leave it pinned */
        goto fail_pin;
    }
    *ep = (uint16_t)e;
    *cq_entries = 1u << d->cfg.cq_log2;
    goto out;
fail_pin:
    unpin_page(d, p, cq_va);
out:
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

static int ep_close_locked(nicdrv_t *d, struct drv_proc *p, uint16_t ep)
{
    struct nic_cmd c = { .op = NIC_CMD_EP_CLOSE, .ep = ep, .pid = (uint16_t)p->pid };
    bool host = ep >= d->info.max_procs;
    int32_t st;
    int rc = NICDRV_OK;

    if (host) { /* its context invalid first: a doorbell from now on cannot fill it again */
        struct nic_ep_ctx x;
        memset(&x, 0, sizeof x);
        d->host.phys_write(d->host.ctx, d->ept_pa[ep / NIC_EPC_PER_PAGE] + (ep % NIC_EPC_PER_PAGE) * sizeof x, &x,
                           sizeof x.flags);
    }
    if (!d->dead) {
        /* The NCP flushes outstanding work into the CQ first; it answers BUSY while packets the
         * endpoint sent are still in a window (at most the transport's give-up span): ask again,
         * so nothing of it lands after the close returns (docs/api.md "Close"). */
        uint64_t deadline = d->host.now(d->host.ctx) + d->cfg.cmd_timeout;
        for (;;) {
            rc = drv_cmd(d, &c, NULL, 0, &st);
            if (rc || st != NIC_ST_BUSY)
                break;
            d->st.close_retries++;
            if (d->host.now(d->host.ctx) >= deadline) {
                rc = NICDRV_ETIMEDOUT;
                break;
            }
            /* the table lock is released while waiting: other processes' misses and calls go on
             * (this process makes no other call meanwhile: calls of a process are not re-entrant) */
            drv_unlock(d, &d->tbl_lock);
            int sl = d->host.sleep(d->host.ctx, CLOSE_RETRY_CYCLES);
            drv_lock(d, &d->tbl_lock);
            if (sl == NICDRV_ECANCELED) {
                rc = NICDRV_ECANCELED;
                break;
            }
        }
        if (!rc)
            rc = drv_map_status(st);
        if (rc)
            return rc;
    }
    if (host) {
        d->hep_pid[ep] = 0;
        p->nhep--;
        d->st.eps--;
        unpin_page(d, p, d->hep_cq_va[ep]);
        unpin_page(d, p, d->hep_sq_va[ep]);
        if (!d->dead && !p->nhep && !p->ep_mask)
            return pch_update(d, (uint16_t)p->pid);
        return NICDRV_OK;
    }
    p->ep_mask &= ~(1u << ep);
    if (!d->dead) {
        rc = pch_update(d, (uint16_t)p->pid);
        if (rc)
            return rc;
    }
    d->ep_used[ep] = 0;
    d->st.eps--;
    unpin_page(d, p, p->cq_va[ep]);
    return NICDRV_OK;
}

int nicdrv_ep_close(nicdrv_t *d, uint32_t pid, uint16_t ep)
{
    struct drv_proc *p;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    drv_lock(d, &d->tbl_lock);
    p = find_proc(d, pid, false);
    if (!p || ((ep >= DRV_EPS || !(p->ep_mask >> ep & 1u)) && !hep_owned(d, p, ep)))
        rc = NICDRV_ENOENT;
    else
        rc = ep_close_locked(d, p, ep);
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

/* ---- event queues (ABI 2.1) ---- */

int nicdrv_eq_open(nicdrv_t *d, uint32_t pid, uint64_t eq_va, uint32_t log2, uint32_t flags)
{
    struct nic_cmd c = { .op = NIC_CMD_EQ_OPEN };
    struct drv_proc *p;
    uint64_t pa;
    uint32_t q;
    int32_t st;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    if (eq_va % NICDRV_PAGE_SIZE || log2 < 1 || log2 > NIC_EQ_LOG2_MAX || (flags & ~NIC_EQF_NOTIFY))
        return NICDRV_EINVAL;
    drv_lock(d, &d->tbl_lock);
    p = find_proc(d, pid, true);
    rc = !p ? NICDRV_ENOMEM : p->eq_open || queue_page(d, p, eq_va) ? NICDRV_EBUSY : NICDRV_OK;
    if (rc)
        goto out;
    for (q = 1; q < d->info.max_procs && d->eq_used[q]; q++)
        ;
    rc = NICDRV_ENORES;
    if (q >= d->info.max_procs)
        goto out;
    rc = pin_page(d, p, eq_va, &pa);
    if (rc)
        goto out;
    c.ep = (uint16_t)q;
    c.pid = (uint16_t)pid;
    c.a = (uint32_t)pa;
    c.b = (uint32_t)(pa >> 32);
    c.c = log2;
    c.d = flags;
    rc = drv_cmd(d, &c, NULL, 0, &st);
    if (!rc)
        rc = drv_map_status(st);
    if (rc) {
        unpin_page(d, p, eq_va);
        goto out;
    }
    d->eq_used[q] = 1;
    p->eq_open = true;
    p->eq = (uint16_t)q;
    p->eq_va = eq_va;
out:
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

static int eq_close_locked(nicdrv_t *d, struct drv_proc *p)
{
    struct nic_cmd c = { .op = NIC_CMD_EQ_CLOSE, .ep = p->eq, .pid = (uint16_t)p->pid };
    int32_t st;
    int rc;

    if (!d->dead) {
        rc = drv_cmd(d, &c, NULL, 0, &st);
        if (!rc)
            rc = drv_map_status(st);
        if (rc)
            return rc; /* the NCP may still write the page: it stays pinned */
    }
    p->eq_open = false;
    d->eq_used[p->eq] = 0;
    unpin_page(d, p, p->eq_va);
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_EQ);
    return NICDRV_OK;
}

int nicdrv_eq_close(nicdrv_t *d, uint32_t pid)
{
    struct drv_proc *p;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    drv_lock(d, &d->tbl_lock);
    p = find_proc(d, pid, false);
    rc = !p || !p->eq_open ? NICDRV_ENOENT : eq_close_locked(d, p);
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

int nicdrv_eq_consumed(nicdrv_t *d, uint32_t pid, uint32_t ci)
{
    struct nic_cmd c = { .op = NIC_CMD_EQ_ARM, .c = NIC_EQ_ARM_COUNT_ONLY, .a = ci };
    struct drv_proc *p;
    int32_t st;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    p = find_proc(d, pid, false);
    if (!p || !p->eq_open)
        return NICDRV_ENOENT;
    c.ep = p->eq;
    c.pid = (uint16_t)pid;
    d->st.eq_counts++;
    rc = drv_cmd(d, &c, NULL, 0, &st);
    return rc ? rc : drv_map_status(st);
}

int nicdrv_eq_wait(nicdrv_t *d, uint32_t pid, uint32_t ci, uint64_t deadline)
{
    struct nic_cmd c = { .op = NIC_CMD_EQ_ARM };
    struct drv_proc *p;
    uint64_t seen;
    uint16_t q;
    int32_t st;
    int rc = check_call(d, pid);

    if (rc)
        return rc;
    p = find_proc(d, pid, false);
    if (!p || !p->eq_open)
        return NICDRV_ENOENT;
    q = p->eq;
    seen = d->eq_fired[q]; /* before the ARM: its event cannot be missed */
    c.ep = q;
    c.pid = (uint16_t)pid;
    c.a = ci;
    d->st.eq_arms++;
    rc = drv_cmd(d, &c, NULL, 0, &st);
    if (!rc)
        rc = drv_map_status(st);
    if (rc)
        return rc;
    for (;;) {
        uint64_t wq = d->host.ev_count(d->host.ctx, NICDRV_WQ_EQ);
        if (d->eq_fired[q] != seen)
            return NICDRV_OK;
        if (d->dead)
            return NICDRV_ESTATE;
        if (!p->used || !p->eq_open || p->eq != q)
            return NICDRV_ENOENT; /* closed meanwhile */
        if (d->host.now(d->host.ctx) >= deadline)
            return NICDRV_ETIMEDOUT;
        rc = d->host.ev_wait(d->host.ctx, NICDRV_WQ_EQ, wq, deadline);
        if (rc == NICDRV_ECANCELED)
            return rc;
    }
}

static int release_locked(nicdrv_t *d, struct drv_proc *p)
{
    int rc = NICDRV_OK;

    for (uint16_t e = 0; !rc && e < DRV_EPS; e++)
        if (p->ep_mask >> e & 1u)
            rc = ep_close_locked(d, p, e);
    for (uint32_t e = d->info.max_procs; !rc && p->nhep && e < d->neps; e++)
        if (hep_owned(d, p, e))
            rc = ep_close_locked(d, p, (uint16_t)e);
    if (!rc && p->eq_open)
        rc = eq_close_locked(d, p);
    for (uint32_t i = 0; !rc && i < d->cfg.max_bufs; i++)
        if (p->bufs[i].used)
            rc = dereg_locked(d, p, i);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < d->nlines; i++) /* lines pinned for addresses no longer registered */
        if (d->lines[i].used && d->lines[i].pid == p->pid) {
            if (!d->dead && (rc = invalidate(d, NIC_CACHE_VMH, (uint16_t)p->pid, d->lines[i].line, 1)))
                return rc;
            unpin_line(d, &d->lines[i]);
        }
    p->used = false;
    d->st.procs--;
    d->room_gen++; /* its slot is free: a registration waiting for room may try again */
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_CMD);
    return NICDRV_OK;
}

int nicdrv_proc_release(nicdrv_t *d, uint32_t pid)
{
    struct drv_proc *p;
    int rc;

    if (d->host.syscall)
        d->host.syscall(d->host.ctx);
    if (!d->probed)
        return NICDRV_ESTATE;
    drv_lock(d, &d->tbl_lock);
    p = find_proc(d, pid, false);
    rc = p ? release_locked(d, p) : NICDRV_ENOENT;
    drv_unlock(d, &d->tbl_lock);
    return rc;
}

/* Remove: with a live NCP everything is invalidated first; with a dead one the caller has held
 * the core in reset (no DMA can happen), so unpinning directly is safe. Stops at the first
 * failure (the NCP stopped answering) and returns it: the caller then holds the core and calls
 * again with d->dead set. */
int drv_release_all(nicdrv_t *d)
{
    int rc = NICDRV_OK;

    drv_lock(d, &d->tbl_lock);
    for (uint32_t i = 0; !rc && i < d->cfg.max_procs; i++)
        if (d->procs[i].used)
            rc = release_locked(d, &d->procs[i]);
    drv_unlock(d, &d->tbl_lock);
    return rc;
}
