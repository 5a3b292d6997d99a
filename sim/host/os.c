/*
 * os.c - the OS model (see os.h).
 *
 * Role map:
 *   page table     per-process open-addressing hash vpn -> pte (grows by doubling up to
 *                  2 * max_pages slots); entries are never deleted, an unmapped page keeps its
 *                  slot in state PTE_UNMAPPED so probing stays simple
 *   page_touch     the single path that makes a page resident (demand zero or swap-in)
 *   pin/unpin      per-page references in hostmem; per-process pinned-page counter
 *   move_page      migrate (new frame, copy) and reclaim (to the swap store)
 *   pressure       periodic seeded victim choice, or a policy hook
 */
#include "os.h"

#include <stdlib.h>
#include <string.h>

#include "sim_rng.h"

#define PG HOSTMEM_PAGE_SIZE
#define PG_SHIFT HOSTMEM_PAGE_SHIFT

enum pte_state { PTE_EMPTY = 0, PTE_PRESENT, PTE_SWAPPED, PTE_UNMAPPED };

struct pte {
    uint64_t vpn;
    uint64_t pfn;  /* PTE_PRESENT */
    uint8_t *swap; /* PTE_SWAPPED: saved contents */
    uint8_t state;
};

struct proc {
    uint32_t pid; /* 0 = slot free */
    unsigned va_bits;
    struct pte *pt;
    uint32_t pt_cap; /* power of two */
    uint32_t pt_used;
    uint64_t pinned_pages, resident_pages;
};

struct os {
    struct os_config cfg;
    hostmem_t *mem;
    const costs_t *costs;
    struct proc procs[OS_MAX_PROCS];
    uint32_t next_pid;
    sim_rng_t rng;
    sim_cycle_t next_pressure;
    os_notify_fn notify;
    void *notify_ctx;
    os_mmu_release_fn release;
    void *release_ctx;
    os_policy_fn policy;
    void *policy_ctx;
    struct os_counters ctr;
};

static void inc(uint64_t *c)
{
    if (*c != UINT64_MAX)
        (*c)++;
}

void os_config_default(struct os_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_procs = 64;
    cfg->max_pages = 65536;
    cfg->pressure_pages = 1;
    cfg->pressure_migrate = 0.5;
    cfg->seed = 1;
}

os_t *os_create(const struct os_config *cfg, hostmem_t *mem, const costs_t *costs)
{
    struct os_config def;
    os_t *os;

    if (!cfg) {
        os_config_default(&def);
        cfg = &def;
    }
    if (!mem || cfg->max_procs == 0 || cfg->max_procs > OS_MAX_PROCS || cfg->max_pages == 0 ||
        cfg->max_pages > (1u << 30))
        return NULL;
    os = calloc(1, sizeof *os);
    if (!os)
        return NULL;
    os->cfg = *cfg;
    os->mem = mem;
    os->costs = costs;
    os->next_pid = 1;
    sim_rng_seed(&os->rng, cfg->seed, 0x6f73ull);
    os->next_pressure = cfg->pressure_period ? cfg->pressure_period : SIM_CYCLE_NEVER;
    return os;
}

hostmem_t *os_hostmem(const os_t *os)
{
    return os->mem;
}

/* ---- page table ---- */

static uint32_t hash_vpn(uint64_t vpn)
{
    vpn ^= vpn >> 33;
    vpn *= 0xFF51AFD7ED558CCDull;
    vpn ^= vpn >> 33;
    return (uint32_t)vpn;
}

/* Slot of vpn, or NULL if absent. */
static struct pte *pt_find(const struct proc *p, uint64_t vpn)
{
    uint32_t mask = p->pt_cap - 1;

    if (!p->pt)
        return NULL;
    for (uint32_t i = hash_vpn(vpn) & mask, n = 0; n < p->pt_cap; i = (i + 1) & mask, n++) {
        if (p->pt[i].state == PTE_EMPTY)
            return NULL;
        if (p->pt[i].vpn == vpn)
            return &p->pt[i];
    }
    return NULL;
}

static int pt_grow(struct proc *p, uint32_t limit)
{
    uint32_t ncap = p->pt_cap ? p->pt_cap * 2 : 64;
    struct pte *npt;

    if (ncap > limit)
        return SIM_ENOMEM;
    npt = calloc(ncap, sizeof *npt);
    if (!npt)
        return SIM_ENOMEM;
    for (uint32_t i = 0; i < p->pt_cap; i++) {
        if (p->pt[i].state == PTE_EMPTY)
            continue;
        for (uint32_t j = hash_vpn(p->pt[i].vpn) & (ncap - 1);; j = (j + 1) & (ncap - 1)) {
            if (npt[j].state == PTE_EMPTY) {
                npt[j] = p->pt[i];
                break;
            }
        }
    }
    free(p->pt);
    p->pt = npt;
    p->pt_cap = ncap;
    return SIM_OK;
}

/* Find or insert the entry for vpn (new entries are PTE_UNMAPPED). */
static int pt_get(os_t *os, struct proc *p, uint64_t vpn, struct pte **out)
{
    struct pte *e = pt_find(p, vpn);
    uint32_t limit = 1;
    int err;

    if (e) {
        *out = e;
        return SIM_OK;
    }
    if (p->pt_used >= os->cfg.max_pages)
        return SIM_ENOMEM;
    while (limit < 2 * os->cfg.max_pages)
        limit <<= 1;
    if ((p->pt_used + 1) * 2 > p->pt_cap) {
        err = pt_grow(p, limit);
        if (err)
            return err;
    }
    for (uint32_t i = hash_vpn(vpn) & (p->pt_cap - 1);; i = (i + 1) & (p->pt_cap - 1)) {
        if (p->pt[i].state == PTE_EMPTY) {
            p->pt[i].vpn = vpn;
            p->pt[i].state = PTE_UNMAPPED;
            p->pt_used++;
            *out = &p->pt[i];
            return SIM_OK;
        }
    }
}

/* ---- processes ---- */

static struct proc *proc_of(const os_t *os, uint32_t pid)
{
    if (pid == 0)
        return NULL;
    for (uint32_t i = 0; i < os->cfg.max_procs; i++)
        if (os->procs[i].pid == pid)
            return (struct proc *)&os->procs[i];
    return NULL;
}

bool os_proc_exists(const os_t *os, uint32_t pid)
{
    return proc_of(os, pid) != NULL;
}

int os_proc_create(os_t *os, unsigned va_bits, uint32_t *pid)
{
    if (va_bits < 32 || va_bits > 48 || !pid)
        return SIM_EINVAL;
    for (uint32_t i = 0; i < os->cfg.max_procs; i++) {
        struct proc *p = &os->procs[i];
        if (p->pid)
            continue;
        memset(p, 0, sizeof *p);
        p->pid = os->next_pid++;
        p->va_bits = va_bits;
        *pid = p->pid;
        inc(&os->ctr.procs_created);
        return SIM_OK;
    }
    return SIM_ENOMEM;
}

/* Drops every page of p (pinned frames included: only called after the pinned check or at
 * destroy time, when hostmem is torn down next). */
static void proc_free_pages(os_t *os, struct proc *p, bool force)
{
    for (uint32_t i = 0; i < p->pt_cap; i++) {
        struct pte *e = &p->pt[i];
        if (e->state == PTE_PRESENT) {
            if (force)
                for (unsigned d = 0; d < HOSTMEM_MAX_DEVS; d++)
                    while (hostmem_unpin(os->mem, d, e->pfn) == SIM_OK)
                        ;
            hostmem_frame_free(os->mem, e->pfn);
        }
        free(e->swap);
    }
    free(p->pt);
    memset(p, 0, sizeof *p);
}

int os_proc_destroy(os_t *os, uint32_t pid)
{
    struct proc *p = proc_of(os, pid);

    if (!p)
        return SIM_ENOENT;
    if (p->pinned_pages)
        return SIM_EPINNED;
    proc_free_pages(os, p, false);
    inc(&os->ctr.procs_destroyed);
    return SIM_OK;
}

void os_destroy(os_t *os)
{
    if (!os)
        return;
    for (uint32_t i = 0; i < os->cfg.max_procs; i++)
        if (os->procs[i].pid)
            proc_free_pages(os, &os->procs[i], true);
    free(os);
}

/* ---- residency ---- */

static int check_range(const struct proc *p, uint64_t va, size_t len)
{
    uint64_t top = p->va_bits >= 64 ? UINT64_MAX : (1ull << p->va_bits);

    if (va >= top || len > top - va)
        return SIM_EINVAL;
    return SIM_OK;
}

/* Make the page at vpn resident; *out gets its entry. */
static int page_touch(os_t *os, struct proc *p, uint64_t vpn, struct pte **out)
{
    struct pte *e;
    uint64_t pfn;
    int err = pt_get(os, p, vpn, &e);

    if (err)
        return err;
    if (e->state != PTE_PRESENT) {
        err = hostmem_frame_alloc(os->mem, &pfn);
        if (err)
            return err;
        if (e->state == PTE_SWAPPED) {
            hostmem_cpu_write(os->mem, pfn << PG_SHIFT, e->swap, PG);
            free(e->swap);
            e->swap = NULL;
            inc(&os->ctr.swap_ins);
        } else {
            inc(&os->ctr.demand_allocs);
        }
        hostmem_set_owner(os->mem, pfn, p->pid, vpn);
        e->pfn = pfn;
        e->state = PTE_PRESENT;
        p->resident_pages++;
    }
    *out = e;
    return SIM_OK;
}

static int access_range(os_t *os, uint32_t pid, uint64_t va, void *rbuf, const void *wbuf, size_t len)
{
    struct proc *p = proc_of(os, pid);
    size_t done = 0;
    int err;

    if (!p)
        return SIM_ENOENT;
    if ((err = check_range(p, va, len)))
        return err;
    while (done < len) {
        uint64_t a = va + done;
        size_t off = (size_t)(a & (PG - 1)), n = PG - off;
        struct pte *e;

        if (n > len - done)
            n = len - done;
        if ((err = page_touch(os, p, a >> PG_SHIFT, &e)))
            return err;
        if (rbuf)
            hostmem_cpu_read(os->mem, (e->pfn << PG_SHIFT) | off, (uint8_t *)rbuf + done, n);
        else if (wbuf)
            hostmem_cpu_write(os->mem, (e->pfn << PG_SHIFT) | off, (const uint8_t *)wbuf + done, n);
        done += n;
    }
    return SIM_OK;
}

int os_write(os_t *os, uint32_t pid, uint64_t va, const void *buf, size_t len)
{
    if (len && !buf)
        return SIM_EINVAL;
    return access_range(os, pid, va, NULL, buf, len);
}

int os_read(os_t *os, uint32_t pid, uint64_t va, void *buf, size_t len)
{
    if (len && !buf)
        return SIM_EINVAL;
    return access_range(os, pid, va, buf, NULL, len);
}

int os_touch(os_t *os, uint32_t pid, uint64_t va, size_t len)
{
    return access_range(os, pid, va, NULL, NULL, len);
}

int os_va_check(const os_t *os, uint32_t pid, uint64_t va, size_t len)
{
    const struct proc *p = proc_of(os, pid);

    if (!p)
        return SIM_ENOENT;
    return len ? check_range(p, va, len) : SIM_EINVAL;
}

int os_translate(const os_t *os, uint32_t pid, uint64_t va, uint64_t *pa)
{
    const struct proc *p = proc_of(os, pid);
    const struct pte *e;

    if (!p)
        return SIM_ENOENT;
    if (check_range(p, va, 1))
        return SIM_EINVAL;
    e = pt_find(p, va >> PG_SHIFT);
    if (!e || e->state != PTE_PRESENT)
        return SIM_EFAULT;
    if (pa)
        *pa = (e->pfn << PG_SHIFT) | (va & (PG - 1));
    return SIM_OK;
}

/* ---- pinning ---- */

static uint64_t npages_of(uint64_t va, size_t len)
{
    return len ? ((va + len - 1) >> PG_SHIFT) - (va >> PG_SHIFT) + 1 : 0;
}

static void unpin_page(os_t *os, struct proc *p, unsigned dev, const struct pte *e)
{
    hostmem_unpin(os->mem, dev, e->pfn);
    if (hostmem_pin_total(os->mem, e->pfn) == 0)
        p->pinned_pages--;
    inc(&os->ctr.unpins);
}

int os_pin(os_t *os, uint32_t pid, unsigned dev, uint64_t va, size_t len, sim_cycle_t *cost)
{
    struct proc *p = proc_of(os, pid);
    uint64_t first = va >> PG_SHIFT, n = npages_of(va, len), i;
    int err;

    if (cost)
        *cost = 0;
    if (!p)
        return SIM_ENOENT;
    if (dev >= HOSTMEM_MAX_DEVS || (err = check_range(p, va, len)))
        return SIM_EINVAL;
    inc(&os->ctr.pin_calls);
    for (i = 0; i < n; i++) {
        struct pte *e;
        bool was_pinned;

        err = page_touch(os, p, first + i, &e);
        if (err)
            goto unwind;
        was_pinned = hostmem_pin_total(os->mem, e->pfn) > 0;
        err = hostmem_pin(os->mem, dev, e->pfn);
        if (err)
            goto unwind;
        if (!was_pinned)
            p->pinned_pages++;
        inc(&os->ctr.pins);
    }
    if (cost && os->costs)
        *cost = costs_pin(os->costs, n);
    return SIM_OK;

unwind:
    /* Pages [first, first + i) were pinned by this call (they are resident: pinned pages never
     * move), so drop exactly those references. */
    while (i-- > 0)
        unpin_page(os, p, dev, pt_find(p, first + i));
    return err;
}

int os_unpin(os_t *os, uint32_t pid, unsigned dev, uint64_t va, size_t len, sim_cycle_t *cost)
{
    struct proc *p = proc_of(os, pid);
    uint64_t first = va >> PG_SHIFT, n = npages_of(va, len);
    int err;

    if (cost)
        *cost = 0;
    if (!p)
        return SIM_ENOENT;
    if (dev >= HOSTMEM_MAX_DEVS || (err = check_range(p, va, len)))
        return SIM_EINVAL;
    inc(&os->ctr.unpin_calls);
    /* Check the whole range first so that a bad unpin changes nothing. A page pinned twice
     * within the same range needs two references (ranges do not overlap themselves). */
    for (uint64_t i = 0; i < n; i++) {
        const struct pte *e = pt_find(p, first + i);
        if (!e || e->state != PTE_PRESENT || hostmem_pin_count(os->mem, dev, e->pfn) == 0)
            return SIM_ENOTPINNED;
    }
    for (uint64_t i = 0; i < n; i++)
        unpin_page(os, p, dev, pt_find(p, first + i));
    if (cost && os->costs)
        *cost = costs_unpin(os->costs, n);
    return SIM_OK;
}

uint64_t os_pinned_pages(const os_t *os, uint32_t pid)
{
    const struct proc *p = proc_of(os, pid);

    return p ? p->pinned_pages : 0;
}

uint64_t os_pinned_pages_total(const os_t *os)
{
    uint64_t sum = 0;

    for (uint32_t i = 0; i < os->cfg.max_procs; i++)
        if (os->procs[i].pid)
            sum += os->procs[i].pinned_pages;
    return sum;
}

uint64_t os_resident_pages(const os_t *os, uint32_t pid)
{
    const struct proc *p = proc_of(os, pid);

    return p ? p->resident_pages : 0;
}

/* ---- moving pages ---- */

static void notify(os_t *os, enum os_mm_event ev, uint32_t pid, uint64_t vpn, uint64_t old_pfn, uint64_t new_pfn)
{
    if (os->notify)
        os->notify(os->notify_ctx, ev, pid, vpn << PG_SHIFT, old_pfn << PG_SHIFT, new_pfn << PG_SHIFT);
}

static int movable_page(os_t *os, uint32_t pid, uint64_t va, struct proc **pp, struct pte **pe, enum os_mm_event ev)
{
    struct proc *p = proc_of(os, pid);
    struct pte *e;

    if (!p)
        return SIM_ENOENT;
    if (check_range(p, va, 1))
        return SIM_EINVAL;
    e = pt_find(p, va >> PG_SHIFT);
    if (!e || e->state != PTE_PRESENT)
        return SIM_EFAULT;
    if (hostmem_pin_total(os->mem, e->pfn) && os->release) {
        /* invalidate-before-move: the subscriber releases the page (it may block meanwhile, so
         * everything is looked up again) */
        inc(&os->ctr.mmu_asks);
        os->release(os->release_ctx, ev, pid, va & ~(uint64_t)(PG - 1));
        p = proc_of(os, pid);
        e = p ? pt_find(p, va >> PG_SHIFT) : NULL;
        if (!e || e->state != PTE_PRESENT)
            return p ? SIM_EFAULT : SIM_ENOENT;
        if (!hostmem_pin_total(os->mem, e->pfn))
            inc(&os->ctr.mmu_released);
    }
    if (hostmem_pin_total(os->mem, e->pfn)) {
        inc(&os->ctr.refused_pinned);
        return SIM_EPINNED;
    }
    *pp = p;
    *pe = e;
    return SIM_OK;
}

int os_migrate(os_t *os, uint32_t pid, uint64_t va)
{
    struct proc *p;
    struct pte *e;
    uint64_t npfn, opfn;
    int err = movable_page(os, pid, va, &p, &e, OS_MM_MIGRATE);

    if (err)
        return err;
    if ((err = hostmem_frame_alloc(os->mem, &npfn)))
        return err;
    opfn = e->pfn;
    hostmem_frame_copy(os->mem, npfn, opfn);
    hostmem_set_owner(os->mem, npfn, p->pid, e->vpn);
    hostmem_frame_free(os->mem, opfn);
    e->pfn = npfn;
    inc(&os->ctr.migrations);
    notify(os, OS_MM_MIGRATE, p->pid, e->vpn, opfn, npfn);
    return SIM_OK;
}

int os_reclaim(os_t *os, uint32_t pid, uint64_t va)
{
    struct proc *p;
    struct pte *e;
    uint64_t opfn;
    int err = movable_page(os, pid, va, &p, &e, OS_MM_RECLAIM);

    if (err)
        return err;
    e->swap = malloc(PG);
    if (!e->swap)
        return SIM_ENOMEM;
    opfn = e->pfn;
    hostmem_cpu_read(os->mem, opfn << PG_SHIFT, e->swap, PG);
    hostmem_frame_free(os->mem, opfn);
    e->state = PTE_SWAPPED;
    e->pfn = 0;
    p->resident_pages--;
    inc(&os->ctr.reclaims);
    notify(os, OS_MM_RECLAIM, p->pid, e->vpn, opfn, 0);
    return SIM_OK;
}

int os_unmap(os_t *os, uint32_t pid, uint64_t va, size_t len)
{
    struct proc *p = proc_of(os, pid);
    uint64_t first = va >> PG_SHIFT, n = npages_of(va, len);
    int err;

    if (!p)
        return SIM_ENOENT;
    if ((err = check_range(p, va, len)))
        return err;
    for (uint64_t i = 0; i < n; i++) {
        const struct pte *e = pt_find(p, first + i);
        if (e && e->state == PTE_PRESENT && hostmem_pin_total(os->mem, e->pfn)) {
            inc(&os->ctr.refused_pinned);
            return SIM_EPINNED;
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        struct pte *e = pt_find(p, first + i);
        uint64_t opfn;
        if (!e || e->state == PTE_UNMAPPED)
            continue;
        opfn = e->state == PTE_PRESENT ? e->pfn : 0;
        if (e->state == PTE_PRESENT) {
            hostmem_frame_free(os->mem, e->pfn);
            p->resident_pages--;
        }
        free(e->swap);
        e->swap = NULL;
        e->pfn = 0;
        e->state = PTE_UNMAPPED;
        inc(&os->ctr.unmaps);
        notify(os, OS_MM_UNMAP, p->pid, e->vpn, opfn, 0);
    }
    return SIM_OK;
}

void os_set_notifier(os_t *os, os_notify_fn fn, void *ctx)
{
    os->notify = fn;
    os->notify_ctx = ctx;
}

void os_set_mmu_release(os_t *os, os_mmu_release_fn fn, void *ctx)
{
    os->release = fn;
    os->release_ctx = ctx;
}

void os_set_policy(os_t *os, os_policy_fn fn, void *ctx)
{
    os->policy = fn;
    os->policy_ctx = ctx;
}

/* ---- memory pressure ---- */

int os_pressure_default(os_t *os)
{
    uint64_t base;
    uint32_t nframes, start;

    hostmem_range(os->mem, &base, &nframes);
    start = (uint32_t)sim_rng_below(&os->rng, nframes);
    /* Probe from a random frame: bounded by the frame range. */
    for (uint32_t k = 0; k < nframes; k++) {
        uint64_t pfn = base + (start + k) % nframes;
        uint32_t pid;
        uint64_t vpn;

        if (!hostmem_frame_exists(os->mem, pfn) ||
            (hostmem_pin_total(os->mem, pfn) && !(os->cfg.pressure_pinned && os->release)))
            continue;
        if (hostmem_get_owner(os->mem, pfn, &pid, &vpn) || pid == HOSTMEM_NO_PID || !proc_of(os, pid))
            continue;
        if (sim_rng_chance(&os->rng, os->cfg.pressure_migrate))
            return os_migrate(os, pid, vpn << PG_SHIFT) == SIM_OK ? 1 : 0;
        return os_reclaim(os, pid, vpn << PG_SHIFT) == SIM_OK ? 1 : 0;
    }
    return 0;
}

sim_cycle_t os_pressure_next_event(const os_t *os)
{
    return os->next_pressure;
}

int os_pressure_step(os_t *os, sim_cycle_t now)
{
    int moved = 0;

    /* Bounded: one pass per due period; a long skip runs the missed events back to back. */
    for (uint32_t guard = 0; os->next_pressure <= now && guard < 1024; guard++) {
        inc(&os->ctr.pressure_events);
        if (os->policy) {
            int r = os->policy(os->policy_ctx, os, now);
            if (r < 0)
                return r;
            moved += r;
        } else {
            for (uint32_t i = 0; i < os->cfg.pressure_pages; i++)
                moved += os_pressure_default(os);
        }
        os->next_pressure = sim_cycle_add(os->next_pressure, os->cfg.pressure_period);
    }
    if (os->next_pressure <= now) /* more than 1024 periods skipped: resynchronise */
        os->next_pressure = sim_cycle_add(now, os->cfg.pressure_period);
    return moved;
}

const struct os_counters *os_counters(const os_t *os)
{
    return &os->ctr;
}
