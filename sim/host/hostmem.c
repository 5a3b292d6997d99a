/*
 * hostmem.c - sparse host physical memory, per-device pin counts and the DMA oracle.
 *
 * Role map:
 *   frame table     one entry per frame of the physical range, storage only while allocated
 *   free list       array of free frame indices; scatter mode picks a seeded random one
 *   check_range     walks the frames a DMA touches; the oracle (exists + pinned for dev)
 *   record_violation  log ring + counters + fail hook (fail-loudly mode)
 */
#include "hostmem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_rng.h"

struct frame {
    uint8_t *data; /* NULL while free */
    uint16_t pin[HOSTMEM_MAX_DEVS];
    uint32_t owner_pid;
    uint64_t owner_vpn;
};

struct hostmem {
    struct hostmem_config cfg;
    struct frame *frames;
    uint32_t *free_idx;
    uint32_t nfree;
    sim_rng_t rng;
    sim_cycle_t now;
    hostmem_fail_fn fail_fn;
    void *fail_ctx;
    struct hostmem_violation log[HOSTMEM_VIOL_LOG];
    uint64_t nlog; /* total recorded; log[(nlog - 1) % N] is the last */
    struct hostmem_counters ctr;
};

static void sat_add(uint64_t *c, uint64_t v)
{
    *c = (*c > UINT64_MAX - v) ? UINT64_MAX : *c + v;
}

void hostmem_config_default(struct hostmem_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->base_pfn = 0x100;
    cfg->max_frames = 65536;
    cfg->scatter = true;
    cfg->seed = 1;
    cfg->fail_loudly = true;
}

static void default_fail(void *ctx, const struct hostmem_violation *v, const char *msg)
{
    (void)ctx;
    (void)v;
    fprintf(stderr, "hostmem: FATAL: %s\n", msg);
    fflush(stderr);
    abort();
}

hostmem_t *hostmem_create(const struct hostmem_config *cfg)
{
    struct hostmem_config def;
    hostmem_t *mem;

    if (!cfg) {
        hostmem_config_default(&def);
        cfg = &def;
    }
    if (cfg->max_frames == 0 || cfg->base_pfn == 0 ||
        cfg->base_pfn > (UINT64_MAX >> HOSTMEM_PAGE_SHIFT) - cfg->max_frames)
        return NULL;
    mem = calloc(1, sizeof *mem);
    if (!mem)
        goto fail_mem;
    mem->cfg = *cfg;
    mem->frames = calloc(cfg->max_frames, sizeof *mem->frames);
    if (!mem->frames)
        goto fail_frames;
    mem->free_idx = malloc(sizeof *mem->free_idx * cfg->max_frames);
    if (!mem->free_idx)
        goto fail_free;
    /* Descending, so that the non-scatter allocator pops the lowest frame first. */
    for (uint32_t i = 0; i < cfg->max_frames; i++)
        mem->free_idx[i] = cfg->max_frames - 1 - i;
    mem->nfree = cfg->max_frames;
    for (uint32_t i = 0; i < cfg->max_frames; i++)
        mem->frames[i].owner_pid = HOSTMEM_NO_PID;
    sim_rng_seed(&mem->rng, cfg->seed, 0x686f73746d656dull);
    mem->fail_fn = default_fail;
    return mem;

fail_free:
    free(mem->frames);
fail_frames:
    free(mem);
fail_mem:
    return NULL;
}

void hostmem_destroy(hostmem_t *mem)
{
    if (!mem)
        return;
    for (uint32_t i = 0; i < mem->cfg.max_frames; i++)
        free(mem->frames[i].data);
    free(mem->frames);
    free(mem->free_idx);
    free(mem);
}

void hostmem_set_now(hostmem_t *mem, sim_cycle_t now)
{
    mem->now = now;
}

void hostmem_set_fail_loudly(hostmem_t *mem, bool on)
{
    mem->cfg.fail_loudly = on;
}

void hostmem_set_fail_hook(hostmem_t *mem, hostmem_fail_fn fn, void *ctx)
{
    mem->fail_fn = fn ? fn : default_fail;
    mem->fail_ctx = fn ? ctx : NULL;
}

/* Frame entry for pfn, or NULL if outside the range or not allocated. */
static struct frame *frame_of(const hostmem_t *mem, uint64_t pfn)
{
    struct frame *f;

    if (pfn < mem->cfg.base_pfn || pfn - mem->cfg.base_pfn >= mem->cfg.max_frames)
        return NULL;
    f = &mem->frames[pfn - mem->cfg.base_pfn];
    return f->data ? f : NULL;
}

int hostmem_frame_alloc(hostmem_t *mem, uint64_t *pfn)
{
    uint32_t k, idx;
    struct frame *f;

    if (!pfn)
        return SIM_EINVAL;
    if (mem->nfree == 0)
        return SIM_ENOMEM;
    k = mem->cfg.scatter ? (uint32_t)sim_rng_below(&mem->rng, mem->nfree) : mem->nfree - 1;
    idx = mem->free_idx[k];
    f = &mem->frames[idx];
    f->data = calloc(1, HOSTMEM_PAGE_SIZE);
    if (!f->data)
        return SIM_ENOMEM;
    mem->free_idx[k] = mem->free_idx[mem->nfree - 1];
    mem->nfree--;
    memset(f->pin, 0, sizeof f->pin);
    f->owner_pid = HOSTMEM_NO_PID;
    f->owner_vpn = 0;
    *pfn = mem->cfg.base_pfn + idx;
    sat_add(&mem->ctr.frame_allocs, 1);
    mem->ctr.frames_in_use++;
    if (mem->ctr.frames_in_use > mem->ctr.frames_peak)
        mem->ctr.frames_peak = mem->ctr.frames_in_use;
    return SIM_OK;
}

int hostmem_frame_free(hostmem_t *mem, uint64_t pfn)
{
    struct frame *f = frame_of(mem, pfn);

    if (!f)
        return SIM_EINVAL;
    for (unsigned d = 0; d < HOSTMEM_MAX_DEVS; d++)
        if (f->pin[d])
            return SIM_EPINNED;
    free(f->data);
    f->data = NULL;
    f->owner_pid = HOSTMEM_NO_PID;
    f->owner_vpn = 0;
    mem->free_idx[mem->nfree++] = (uint32_t)(pfn - mem->cfg.base_pfn);
    sat_add(&mem->ctr.frame_frees, 1);
    mem->ctr.frames_in_use--;
    return SIM_OK;
}

int hostmem_set_owner(hostmem_t *mem, uint64_t pfn, uint32_t pid, uint64_t vpn)
{
    struct frame *f = frame_of(mem, pfn);

    if (!f)
        return SIM_EINVAL;
    f->owner_pid = pid;
    f->owner_vpn = vpn;
    return SIM_OK;
}

int hostmem_get_owner(const hostmem_t *mem, uint64_t pfn, uint32_t *pid, uint64_t *vpn)
{
    const struct frame *f = frame_of(mem, pfn);

    if (!f)
        return SIM_EINVAL;
    if (pid)
        *pid = f->owner_pid;
    if (vpn)
        *vpn = f->owner_vpn;
    return SIM_OK;
}

int hostmem_frame_copy(hostmem_t *mem, uint64_t dst_pfn, uint64_t src_pfn)
{
    struct frame *d = frame_of(mem, dst_pfn), *s = frame_of(mem, src_pfn);

    if (!d || !s)
        return SIM_EINVAL;
    if (d != s)
        memcpy(d->data, s->data, HOSTMEM_PAGE_SIZE);
    return SIM_OK;
}

bool hostmem_frame_exists(const hostmem_t *mem, uint64_t pfn)
{
    return frame_of(mem, pfn) != NULL;
}

void hostmem_range(const hostmem_t *mem, uint64_t *base_pfn, uint32_t *nframes)
{
    if (base_pfn)
        *base_pfn = mem->cfg.base_pfn;
    if (nframes)
        *nframes = mem->cfg.max_frames;
}

int hostmem_pin(hostmem_t *mem, unsigned dev, uint64_t pfn)
{
    struct frame *f = frame_of(mem, pfn);

    if (!f || dev >= HOSTMEM_MAX_DEVS)
        return SIM_EINVAL;
    if (f->pin[dev] >= HOSTMEM_PIN_MAX)
        return SIM_EOVERFLOW;
    f->pin[dev]++;
    return SIM_OK;
}

int hostmem_unpin(hostmem_t *mem, unsigned dev, uint64_t pfn)
{
    struct frame *f = frame_of(mem, pfn);

    if (!f || dev >= HOSTMEM_MAX_DEVS)
        return SIM_EINVAL;
    if (f->pin[dev] == 0)
        return SIM_ENOTPINNED;
    f->pin[dev]--;
    return SIM_OK;
}

uint32_t hostmem_pin_count(const hostmem_t *mem, unsigned dev, uint64_t pfn)
{
    const struct frame *f = frame_of(mem, pfn);

    return (f && dev < HOSTMEM_MAX_DEVS) ? f->pin[dev] : 0;
}

uint32_t hostmem_pin_total(const hostmem_t *mem, uint64_t pfn)
{
    const struct frame *f = frame_of(mem, pfn);
    uint32_t sum = 0;

    if (!f)
        return 0;
    for (unsigned d = 0; d < HOSTMEM_MAX_DEVS; d++)
        sum += f->pin[d];
    return sum;
}

/* Walks [paddr, paddr + len) frame by frame. Returns SIM_OK or the first failure, with the
 * offending byte address in *bad. dev < 0 means a CPU access (no pin check). */
static int check_range(const hostmem_t *mem, int dev, uint64_t paddr, size_t len, uint64_t *bad)
{
    uint64_t pa = paddr, end;

    if (len == 0)
        return SIM_OK;
    if (paddr > UINT64_MAX - (len - 1)) {
        *bad = paddr;
        return SIM_EBUS;
    }
    end = paddr + (len - 1);
    for (;;) {
        const struct frame *f = frame_of(mem, pa >> HOSTMEM_PAGE_SHIFT);
        uint64_t next;

        *bad = pa;
        if (!f)
            return SIM_EBUS;
        if (dev >= 0 && f->pin[dev] == 0)
            return SIM_EUNPINNED;
        next = (pa | (HOSTMEM_PAGE_SIZE - 1));
        if (next >= end)
            return SIM_OK;
        pa = next + 1;
    }
}

static void copy_range(hostmem_t *mem, uint64_t paddr, void *rbuf, const void *wbuf, size_t len)
{
    size_t done = 0;

    while (done < len) {
        uint64_t pa = paddr + done;
        struct frame *f = frame_of(mem, pa >> HOSTMEM_PAGE_SHIFT);
        size_t off = (size_t)(pa & (HOSTMEM_PAGE_SIZE - 1));
        size_t n = HOSTMEM_PAGE_SIZE - off;

        if (n > len - done)
            n = len - done;
        if (rbuf)
            memcpy((uint8_t *)rbuf + done, f->data + off, n);
        else
            memcpy(f->data + off, (const uint8_t *)wbuf + done, n);
        done += n;
    }
}

int hostmem_violation_format(const struct hostmem_violation *v, char *buf, size_t n)
{
    char owner[96];

    if (v->pid == HOSTMEM_NO_PID)
        snprintf(owner, sizeof owner, "no owner");
    else
        snprintf(owner, sizeof owner, "pid %" PRIu32 " va 0x%" PRIx64, v->pid, v->va);
    return snprintf(buf, n,
                    "%s: device %u DMA %s of %" PRIu32 " bytes at pa 0x%" PRIx64 " touches pa 0x%" PRIx64
                    " (frame 0x%" PRIx64 ", %s) at cycle %" PRIu64,
                    v->kind == HOSTMEM_VIOL_BUS ? "host bus error" : "DMA to unpinned page", v->dev,
                    v->is_write ? "write" : "read", v->len, v->paddr, v->bad_pa, v->pfn, owner, v->when);
}

static int record_violation(hostmem_t *mem, int err, unsigned dev, bool is_write, uint64_t paddr, size_t len,
                            uint64_t bad)
{
    struct hostmem_violation *v = &mem->log[mem->nlog % HOSTMEM_VIOL_LOG];
    const struct frame *f;
    char msg[256];

    memset(v, 0, sizeof *v);
    v->kind = err == SIM_EBUS ? HOSTMEM_VIOL_BUS : HOSTMEM_VIOL_UNPINNED;
    v->is_write = is_write;
    v->dev = dev;
    v->paddr = paddr;
    v->len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
    v->bad_pa = bad;
    v->pfn = bad >> HOSTMEM_PAGE_SHIFT;
    v->pid = HOSTMEM_NO_PID;
    f = frame_of(mem, v->pfn);
    if (f && f->owner_pid != HOSTMEM_NO_PID) {
        v->pid = f->owner_pid;
        v->va = (f->owner_vpn << HOSTMEM_PAGE_SHIFT) | (bad & (HOSTMEM_PAGE_SIZE - 1));
    }
    v->when = mem->now;
    mem->nlog++;
    sat_add(&mem->ctr.violations, 1);
    sat_add(err == SIM_EBUS ? &mem->ctr.bus_errors : &mem->ctr.unpinned_errors, 1);
    if (mem->cfg.fail_loudly) {
        hostmem_violation_format(v, msg, sizeof msg);
        mem->fail_fn(mem->fail_ctx, v, msg);
    }
    return err;
}

int hostmem_cpu_read(hostmem_t *mem, uint64_t paddr, void *buf, size_t len)
{
    uint64_t bad;

    if (len && !buf)
        return SIM_EINVAL;
    if (check_range(mem, -1, paddr, len, &bad) != SIM_OK)
        return SIM_EBUS;
    copy_range(mem, paddr, buf, NULL, len);
    sat_add(&mem->ctr.cpu_bytes_read, len);
    return SIM_OK;
}

int hostmem_cpu_write(hostmem_t *mem, uint64_t paddr, const void *buf, size_t len)
{
    uint64_t bad;

    if (len && !buf)
        return SIM_EINVAL;
    if (check_range(mem, -1, paddr, len, &bad) != SIM_OK)
        return SIM_EBUS;
    copy_range(mem, paddr, NULL, buf, len);
    sat_add(&mem->ctr.cpu_bytes_written, len);
    return SIM_OK;
}

int hostmem_dma_read(hostmem_t *mem, unsigned dev, uint64_t paddr, void *buf, size_t len)
{
    uint64_t bad;
    int err;

    if (dev >= HOSTMEM_MAX_DEVS || (len && !buf))
        return SIM_EINVAL;
    err = check_range(mem, (int)dev, paddr, len, &bad);
    if (err != SIM_OK)
        return record_violation(mem, err, dev, false, paddr, len, bad);
    copy_range(mem, paddr, buf, NULL, len);
    sat_add(&mem->ctr.dma_reads, 1);
    sat_add(&mem->ctr.dma_bytes_read, len);
    return SIM_OK;
}

int hostmem_dma_write(hostmem_t *mem, unsigned dev, uint64_t paddr, const void *buf, size_t len)
{
    uint64_t bad;
    int err;

    if (dev >= HOSTMEM_MAX_DEVS || (len && !buf))
        return SIM_EINVAL;
    err = check_range(mem, (int)dev, paddr, len, &bad);
    if (err != SIM_OK)
        return record_violation(mem, err, dev, true, paddr, len, bad);
    copy_range(mem, paddr, NULL, buf, len);
    sat_add(&mem->ctr.dma_writes, 1);
    sat_add(&mem->ctr.dma_bytes_written, len);
    return SIM_OK;
}

const struct hostmem_counters *hostmem_counters(const hostmem_t *mem)
{
    return &mem->ctr;
}

int hostmem_violation_get(const hostmem_t *mem, unsigned n, struct hostmem_violation *out)
{
    if (n >= HOSTMEM_VIOL_LOG || n >= mem->nlog || !out)
        return SIM_ENOENT;
    *out = mem->log[(mem->nlog - 1 - n) % HOSTMEM_VIOL_LOG];
    return SIM_OK;
}
