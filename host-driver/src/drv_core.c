/*
 * drv_core.c - probe and remove, the command ring, the interrupt top half (contract: nicdrv.h;
 * protocol: docs/host-interface.md).
 *
 * Role map:
 *   nicdrv_probe / nicdrv_remove   boot and handshake, symmetric teardown
 *   drv_cmd                        post one command, wait for its CMD_DONE (bounded)
 *   nicdrv_intr + drain            top half: ack, read events by phase, complete, queue misses
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_priv.h"
#include "nic_memmap.h"
#include "nic_regs.h"

#define REG(block, reg) (NIC_##block##_OFFSET + NIC_##block##_##reg)
#define BOOT_POLL_CYCLES 2000u /* 10 us between fw_state reads while booting */
#define CMD_POLL_CYCLES 20000u /* 100 us: a command wait also polls the ring (lost interrupt) */
#define IRQ_ALL (NIC_HOSTIF_IRQ_CAUSE_MISS_MASK | NIC_HOSTIF_IRQ_CAUSE_CMPL_MASK | NIC_HOSTIF_IRQ_CAUSE_ERROR_MASK)

static int rd(nicdrv_t *d, enum nicdrv_bar bar, uint32_t off, uint32_t *v)
{
    return d->bus.rd32(d->bus.ctx, bar, off, v) ? NICDRV_EBUS : NICDRV_OK;
}

static int wr(nicdrv_t *d, enum nicdrv_bar bar, uint32_t off, uint32_t v)
{
    return d->bus.wr32(d->bus.ctx, bar, off, v) ? NICDRV_EBUS : NICDRV_OK;
}

static int fail(char *err, size_t errlen, int code, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return code;
}

void nicdrv_config_default(struct nicdrv_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->nodes = 1;
    cfg->max_procs = 64;
    cfg->max_bufs = 256;
    cfg->pin_hwm_pages = 4096;
    cfg->miss_queue = 64;
    cfg->miss_threads = 1;
    cfg->ev_log2 = 7;
    cfg->cq_log2 = 7;
    cfg->boot_timeout = 4000000;
    cfg->cmd_timeout = 40000000;
    cfg->key_seed = 0; /* host entropy */
    cfg->prefill = true;
    cfg->fill_residency = 200000;
    cfg->pin_sync_lines = 1;
}

nicdrv_t *nicdrv_create(const struct nicdrv_bus *bus, const struct nicdrv_host *host, const struct nicdrv_config *cfg)
{
    nicdrv_t *d;

    if (!bus || !host)
        return NULL;
    d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->bus = *bus;
    d->host = *host;
    if (cfg)
        d->cfg = *cfg;
    else
        nicdrv_config_default(&d->cfg);
    /* both rings must fit one kernel page: the NIC gets one physical address for each */
    if (d->cfg.ev_log2 < 1 || (sizeof(struct nic_event) << d->cfg.ev_log2) > NICDRV_PAGE_SIZE ||
        (sizeof(struct nic_cqe) << d->cfg.cq_log2) > NICDRV_PAGE_SIZE || d->cfg.cq_log2 < 1 || !d->cfg.max_procs ||
        !d->cfg.max_bufs || !d->cfg.miss_queue || !d->cfg.nodes || d->cfg.miss_threads < 1 ||
        d->cfg.miss_threads > NICDRV_MAX_MISS_THREADS || d->cfg.prefetch_lines > NIC_PREFETCH_MAX) {
        free(d);
        return NULL;
    }
    if (drv_key_init(d)) {
        free(d);
        return NULL;
    }
    d->missq = calloc(d->cfg.miss_queue, sizeof *d->missq);
    if (!d->missq || drv_tables_init(d)) {
        nicdrv_destroy(d);
        return NULL;
    }
    return d;
}

void nicdrv_destroy(nicdrv_t *d)
{
    if (!d)
        return;
    nicdrv_remove(d);
    drv_tables_fini(d);
    free(d->missq);
    free(d);
}

int nicdrv_probed(const nicdrv_t *d)
{
    return d->probed && !d->dead;
}

const struct nic_info *nicdrv_fw_info(const nicdrv_t *d)
{
    return &d->info;
}

const struct nicdrv_bus *nicdrv_bus_of(const nicdrv_t *d)
{
    return &d->bus;
}

const struct nicdrv_host *nicdrv_host_of(const nicdrv_t *d)
{
    return &d->host;
}

const struct nicdrv_config *nicdrv_config_of(const nicdrv_t *d)
{
    return &d->cfg;
}

void nicdrv_stats(const nicdrv_t *d, struct nicdrv_stats *out)
{
    *out = d->st;
}

/* ---- cooperative mutex over the CMD wait queue ---- */

void drv_lock(nicdrv_t *d, struct drv_mutex *m)
{
    while (m->held) {
        uint64_t seen = d->host.ev_count(d->host.ctx, NICDRV_WQ_CMD);
        if (!m->held)
            break;
        if (d->host.ev_wait(d->host.ctx, NICDRV_WQ_CMD, seen, NICDRV_NEVER) == NICDRV_ECANCELED)
            break; /* shutting down: nobody else will run again */
    }
    m->held = true;
}

void drv_unlock(nicdrv_t *d, struct drv_mutex *m)
{
    m->held = false;
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_CMD);
}

int drv_map_status(int32_t st)
{
    switch (st) {
    case NIC_ST_OK:
        return NICDRV_OK;
    case NIC_ST_NO_RESOURCES:
        return NICDRV_ENORES;
    default:
        return NICDRV_EFW;
    }
}

/* ---- the event ring (top half) ---- */

static void fail_all_waiters(nicdrv_t *d)
{
    d->dead = true;
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_CMD);
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_MISS);
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_EQ);
}

static void queue_miss(nicdrv_t *d, const struct nic_event *e, uint64_t raised_at)
{
    struct nicdrv_miss *m;
    /* the lines the request covers: at most what this driver asked for at INIT */
    uint32_t lines = e->cache != NIC_CACHE_VMH || e->lines < 1 ? 1u
                     : e->lines > d->cfg.prefetch_lines ? (d->cfg.prefetch_lines ? d->cfg.prefetch_lines : 1u)
                                                        : e->lines;

    d->st.misses++;
    if (d->cfg.observe)
        d->cfg.observe(d->cfg.observe_ctx, "miss", e->cache, e->pid, e->key);
    for (uint32_t i = 0; i < d->miss_count; i++) {
        m = &d->missq[(d->miss_head + i) % d->cfg.miss_queue];
        if (m->cache == e->cache && m->pid == e->pid && m->key == e->key) {
            m->epoch = e->epoch; /* the newest epoch is the one a fill must carry */
            if (lines > m->lines)
                m->lines = lines;
            d->st.misses_merged++;
            return;
        }
    }
    if (d->miss_count == d->cfg.miss_queue) {
        d->st.misses_dropped++; /* the NCP's request stays parked or is retransmitted: it re-posts */
        return;
    }
    m = &d->missq[(d->miss_head + d->miss_count++) % d->cfg.miss_queue];
    m->cache = e->cache;
    m->path = e->path;
    m->pid = e->pid;
    m->epoch = e->epoch;
    m->key = e->key;
    m->lines = lines;
    m->raised_at = raised_at;
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_MISS);
}

/* Reads every entry whose phase says it is new, bounded by one lap; never blocks. Returns the
 * number consumed. */
static uint32_t drain(nicdrv_t *d, uint64_t raised_at)
{
    uint32_t n = 0;
    bool cmd_done = false;

    while (n < d->ev_size) {
        struct nic_event e;
        uint32_t slot = d->ev_ci & (d->ev_size - 1);
        uint8_t phase = (uint8_t)(((d->ev_ci / d->ev_size) & 1u) ^ 1u);

        if (d->host.phys_read(d->host.ctx, d->ev_pa + slot * sizeof e, &e, sizeof e) || (e.phase & 1u) != phase)
            break;
        d->ev_ci++;
        n++;
        d->st.events++;
        switch (e.type) {
        case NIC_EV_CMD_DONE: {
            struct drv_slot *s = &d->slots[e.a % d->nslots];
            if (s->busy && !s->done && s->seq == e.a) {
                s->done = true;
                s->status = e.status;
                d->cmd_answered = e.a + 1;
                cmd_done = true;
            }
            break;
        }
        case NIC_EV_MISS:
            if (e.cache < NIC_CACHE__COUNT)
                queue_miss(d, &e, raised_at);
            break;
        case NIC_EV_EQ: /* an armed event queue got an entry: wake its process (nicdrv_eq_wait) */
            if (e.a < d->info.max_procs) {
                d->eq_fired[e.a]++;
                d->st.eq_wakeups++;
                d->host.ev_signal(d->host.ctx, NICDRV_WQ_EQ);
            }
            break;
        case NIC_EV_FATAL:
        default:
            fail_all_waiters(d);
            break;
        }
    }
    if (cmd_done)
        d->host.ev_signal(d->host.ctx, NICDRV_WQ_CMD);
    return n;
}

void nicdrv_intr(nicdrv_t *d, uint64_t raised_at)
{
    uint32_t state = 0;

    if (!d->probed || !d->ev_pa)
        return;
    d->st.irqs++;
    /* Ack first, then read fw_state: the read flushes the posted ack, so every event raised after
     * it brings a new interrupt and every event raised before it is already in host memory. */
    if (wr(d, NICDRV_BAR_REGS, REG(HOSTIF, IRQ_CAUSE), IRQ_ALL) ||
        rd(d, NICDRV_BAR_REGS, REG(HOSTIF, FW_STATE), &state)) {
        fail_all_waiters(d);
        return;
    }
    if ((state & NIC_HOSTIF_FW_STATE_STATE_MASK) >> NIC_HOSTIF_FW_STATE_STATE_SHIFT == NIC_HOSTIF_FW_STATE_STATE_HALTED)
        fail_all_waiters(d);
    for (unsigned lap = 0; lap < 4; lap++) { /* bounded drain, then the next interrupt re-arms */
        if (!drain(d, raised_at))
            break;
        if (wr(d, NICDRV_BAR_DOORBELL, NIC_DB_EV_CI, d->ev_ci)) /* the latest count, not a copy */
            break;
    }
}

/* ---- commands ---- */

static int write_cmd(nicdrv_t *d, uint32_t slot, const struct nic_cmd *c)
{
    const uint32_t *w = (const uint32_t *)c;
    uint32_t off = d->info.cmd_ring + slot * (uint32_t)sizeof *c;

    for (unsigned i = 0; i < sizeof *c / 4; i++)
        if (wr(d, NICDRV_BAR_WINDOW, off + 4 * i, w[i]))
            return NICDRV_EBUS;
    return NICDRV_OK;
}

int drv_cmd(nicdrv_t *d, struct nic_cmd *c, const void *img, size_t imglen, int32_t *status)
{
    uint64_t deadline = d->host.now(d->host.ctx) + d->cfg.cmd_timeout;
    struct drv_slot *s;
    uint32_t seq;
    int rc;

    if (d->dead || !d->slots)
        return NICDRV_ESTATE;
    drv_lock(d, &d->ring_lock);
    for (;;) { /* bounded outstanding: the slot must be free (answered and consumed) */
        uint64_t seen = d->host.ev_count(d->host.ctx, NICDRV_WQ_CMD);
        if (d->dead) {
            drv_unlock(d, &d->ring_lock);
            return NICDRV_ESTATE;
        }
        if (!d->slots[d->cmd_pi % d->nslots].busy)
            break;
        rc = d->host.ev_wait(d->host.ctx, NICDRV_WQ_CMD, seen, deadline);
        if (rc == NICDRV_ECANCELED || d->host.now(d->host.ctx) >= deadline) {
            drv_unlock(d, &d->ring_lock);
            return rc == NICDRV_ECANCELED ? rc : NICDRV_ETIMEDOUT;
        }
    }
    seq = d->cmd_pi;
    s = &d->slots[seq % d->nslots];
    s->busy = true;
    s->done = false;
    s->seq = seq;
    c->seq = seq;
    if (img) {
        if (d->host.phys_write(d->host.ctx, s->img_pa, img, imglen)) {
            s->busy = false;
            drv_unlock(d, &d->ring_lock);
            return NICDRV_EFAULT;
        }
        c->a = (uint32_t)s->img_pa;
        c->b = (uint32_t)(s->img_pa >> 32);
    }
    rc = write_cmd(d, seq % d->nslots, c);
    d->cmd_pi++;
    if (!rc)
        rc = wr(d, NICDRV_BAR_DOORBELL, NIC_DB_CMD_PI, d->cmd_pi);
    d->st.cmds++;
    drv_unlock(d, &d->ring_lock);
    if (rc) {
        fail_all_waiters(d); /* the ring and the NCP's view of it disagree now */
        return rc;
    }
    for (;;) {
        uint64_t seen = d->host.ev_count(d->host.ctx, NICDRV_WQ_CMD), now;
        if (s->done)
            break;
        if (d->dead)
            return NICDRV_ESTATE;
        now = d->host.now(d->host.ctx);
        if (now >= deadline) {
            fail_all_waiters(d); /* an unanswered slot can never be reused safely */
            return NICDRV_ETIMEDOUT;
        }
        rc = d->host.ev_wait(d->host.ctx, NICDRV_WQ_CMD, seen,
                             deadline - now > CMD_POLL_CYCLES ? now + CMD_POLL_CYCLES : deadline);
        if (rc == NICDRV_ECANCELED)
            return rc;
        if (rc == NICDRV_ETIMEDOUT && !s->done && d->ev_pa) /* a lost interrupt costs 100 us, not a hang */
            drain(d, d->host.now(d->host.ctx));
    }
    *status = s->status;
    s->busy = false;
    d->host.ev_signal(d->host.ctx, NICDRV_WQ_CMD);
    if (*status != NIC_ST_OK)
        d->st.cmd_errors++;
    return NICDRV_OK;
}

int nicdrv_nic_stats(nicdrv_t *d, struct nic_stats *out)
{
    struct nic_cmd c = { .op = NIC_CMD_STATS };
    struct drv_slot *s;
    int32_t st;
    int rc;

    if (!nicdrv_probed(d))
        return NICDRV_ESTATE;
    memset(out, 0, sizeof *out);
    rc = drv_cmd(d, &c, out, sizeof *out, &st); /* zeroed buffer, the NCP overwrites it */
    if (rc)
        return rc;
    if (st != NIC_ST_OK)
        return drv_map_status(st);
    s = &d->slots[c.seq % d->nslots];
    return d->host.phys_read(d->host.ctx, s->img_pa, out, sizeof *out) ? NICDRV_EFAULT : NICDRV_OK;
}

/* ---- probe / remove ---- */

struct block_id {
    const char *name;
    uint32_t offset, id, major;
};

static const struct block_id blocks[] = {
    { "hostif", NIC_HOSTIF_OFFSET, NIC_HOSTIF_ID_VALUE, NIC_HOSTIF_VERSION_MAJOR },
    { "intc", NIC_INTC_OFFSET, NIC_INTC_ID_VALUE, NIC_INTC_VERSION_MAJOR },
    { "timer", NIC_TIMER_OFFSET, NIC_TIMER_ID_VALUE, NIC_TIMER_VERSION_MAJOR },
    { "dma", NIC_DMA_OFFSET, NIC_DMA_ID_VALUE, NIC_DMA_VERSION_MAJOR },
    { "mac", NIC_MAC_OFFSET, NIC_MAC_ID_VALUE, NIC_MAC_VERSION_MAJOR },
    { "perf", NIC_PERF_OFFSET, NIC_PERF_ID_VALUE, NIC_PERF_VERSION_MAJOR },
    { "console", NIC_CONSOLE_OFFSET, NIC_CONSOLE_ID_VALUE, NIC_CONSOLE_VERSION_MAJOR },
    { "testmb", NIC_TESTMB_OFFSET, NIC_TESTMB_ID_VALUE, NIC_TESTMB_VERSION_MAJOR },
    { "doorbell", NIC_DOORBELL_OFFSET, NIC_DOORBELL_ID_VALUE, NIC_DOORBELL_VERSION_MAJOR },
};

static int check_blocks(nicdrv_t *d, char *err, size_t errlen)
{
    char msg[160];

    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        uint32_t id = 0, ver = 0;
        if (rd(d, NICDRV_BAR_REGS, blocks[i].offset, &id) || rd(d, NICDRV_BAR_REGS, blocks[i].offset + 4, &ver))
            return fail(err, errlen, NICDRV_EBUS, "register block ID: MMIO read failed");
        if (id != blocks[i].id || ver >> 16 != blocks[i].major) {
            snprintf(msg, sizeof msg, "%s: id 0x%08x version 0x%08x, expected id 0x%08x major %u", blocks[i].name,
                     (unsigned)id, (unsigned)ver, (unsigned)blocks[i].id, (unsigned)blocks[i].major);
            return fail(err, errlen, NICDRV_ENODEV, msg);
        }
    }
    return NICDRV_OK;
}

static int wait_ready(nicdrv_t *d, char *err, size_t errlen)
{
    uint64_t deadline = d->host.now(d->host.ctx) + d->cfg.boot_timeout;
    char msg[120];

    for (;;) {
        uint32_t st = 0;
        if (rd(d, NICDRV_BAR_REGS, REG(HOSTIF, FW_STATE), &st))
            return fail(err, errlen, NICDRV_EBUS, "hostif.fw_state: MMIO read failed");
        switch ((st & NIC_HOSTIF_FW_STATE_STATE_MASK) >> NIC_HOSTIF_FW_STATE_STATE_SHIFT) {
        case NIC_HOSTIF_FW_STATE_STATE_READY:
            return NICDRV_OK;
        case NIC_HOSTIF_FW_STATE_STATE_HALTED:
            snprintf(msg, sizeof msg, "firmware halted on a fatal trap (mcause 0x%06x)",
                     (unsigned)(st >> NIC_HOSTIF_FW_STATE_CODE_SHIFT));
            return fail(err, errlen, NICDRV_EFW, msg);
        default:
            break;
        }
        if (d->host.now(d->host.ctx) >= deadline)
            return fail(err, errlen, NICDRV_ETIMEDOUT, "firmware did not report ready (fw_state) in time");
        if (d->host.sleep(d->host.ctx, BOOT_POLL_CYCLES) == NICDRV_ECANCELED)
            return fail(err, errlen, NICDRV_ECANCELED, "host shutting down");
    }
}

static int read_info(nicdrv_t *d, char *err, size_t errlen)
{
    uint32_t off = 0, *w = (uint32_t *)&d->info;
    const struct nic_info *in = &d->info;
    char msg[256];

    if (rd(d, NICDRV_BAR_REGS, REG(HOSTIF, FW_INFO), &off))
        return fail(err, errlen, NICDRV_EBUS, "hostif.fw_info: MMIO read failed");
    if (off % 4 || off + sizeof d->info > NIC_SRAM_QUEUES_SIZE)
        return fail(err, errlen, NICDRV_EPROTO, "hostif.fw_info points outside the queues region");
    for (unsigned i = 0; i < sizeof d->info / 4; i++)
        if (rd(d, NICDRV_BAR_WINDOW, NIC_SRAM_QUEUES_OFFSET + off + 4 * i, &w[i]))
            return fail(err, errlen, NICDRV_EBUS, "info block: MMIO read failed");
    if (in->magic != NIC_INFO_MAGIC) {
        snprintf(msg, sizeof msg, "no firmware info block at SRAM 0x%x (magic 0x%08x)", (unsigned)off,
                 (unsigned)in->magic);
        return fail(err, errlen, NICDRV_EPROTO, msg);
    }
    if (in->abi_version >> 16 != NIC_ABI_VERSION_MAJOR) {
        snprintf(msg, sizeof msg, "firmware speaks ABI %u.%u, driver %u.%u", (unsigned)(in->abi_version >> 16),
                 (unsigned)(in->abi_version & 0xFFFF), NIC_ABI_VERSION_MAJOR, NIC_ABI_VERSION_MINOR);
        return fail(err, errlen, NICDRV_EPROTO, msg);
    }
    if (!in->cmd_entries || in->cmd_entries > 256 || in->cmd_ring % 4 ||
        in->cmd_ring + (uint32_t)in->cmd_entries * sizeof(struct nic_cmd) > NIC_SRAM_QUEUES_SIZE)
        return fail(err, errlen, NICDRV_EPROTO, "info block: command ring outside the queues region");
    if (in->max_procs < 2 || !in->sq_entries || in->sq_stride > NIC_DB_SQ_BYTES ||
        (uint32_t)in->sq_entries * sizeof(struct nic_sq_entry) > in->sq_stride)
        return fail(err, errlen, NICDRV_EPROTO, "info block: send queue geometry");
    if (d->cfg.nodes > in->max_peers || d->cfg.node_id >= in->max_peers) {
        /* INIT would be refused, and unanswerable (the event ring is set by INIT itself) */
        snprintf(msg, sizeof msg,
                 "the firmware connects at most %u nodes (NCP_MAX_PEERS), the cluster has %u (this is node %u): "
                 "build the firmware with -DNCP_MAX_PEERS=%u or more",
                 (unsigned)in->max_peers, (unsigned)d->cfg.nodes, (unsigned)d->cfg.node_id, (unsigned)d->cfg.nodes);
        return fail(err, errlen, NICDRV_ENORES, msg);
    }
    if (in->peer_ctx_bytes &&
        (in->peer_ctx_bytes > NICDRV_PAGE_SIZE || (in->peer_ctx_bytes & (in->peer_ctx_bytes - 1u))))
        return fail(err, errlen, NICDRV_EPROTO, "info block: peer context size not a power of two up to a page");
    for (unsigned c = 0; c < NIC_CACHE__COUNT; c++) {
        const struct nic_cache_geom *g = &in->cache[c];
        if (!g->line || (size_t)g->line * drv_entry_size(c) > NICDRV_PAGE_SIZE) {
            snprintf(msg, sizeof msg, "info block: cache %u line of %u entries not servable (more than a page)", c,
                     (unsigned)g->line);
            return fail(err, errlen, NICDRV_EPROTO, msg);
        }
    }
    return NICDRV_OK;
}

static void free_rings(nicdrv_t *d)
{
    if (d->slots) {
        for (uint32_t i = 0; i < d->nslots; i++)
            if (d->slots[i].img_pa)
                d->host.dma_free(d->host.ctx, d->slots[i].img_pa);
        free(d->slots);
        d->slots = NULL;
    }
    if (d->ev_pa)
        d->host.dma_free(d->host.ctx, d->ev_pa);
    d->ev_pa = 0;
    for (uint32_t k = 0; k < DRV_EPT_PAGES; k++)
        if (d->ept_pa[k])
            d->host.dma_free(d->host.ctx, d->ept_pa[k]);
    memset(d->ept_pa, 0, sizeof d->ept_pa);
    free(d->hep_pid);
    free(d->hep_cq_va);
    free(d->hep_sq_va);
    d->hep_pid = NULL;
    d->hep_cq_va = d->hep_sq_va = NULL;
    d->neps = 0;
    for (uint32_t i = 0; i < d->peer_pages; i++)
        if (d->peer_pa[i])
            d->host.dma_free(d->host.ctx, d->peer_pa[i]);
    free(d->peer_pa);
    d->peer_pa = NULL;
    d->peer_pages = 0;
    free(d->ep_used);
    free(d->eq_used);
    free(d->eq_fired);
    d->ep_used = d->eq_used = NULL;
    d->eq_fired = NULL;
}

static int alloc_rings(nicdrv_t *d)
{
    d->nslots = d->info.cmd_entries;
    d->slots = calloc(d->nslots, sizeof *d->slots);
    d->ep_used = calloc(d->info.max_procs, 1);
    d->eq_used = calloc(d->info.max_procs, 1);
    d->eq_fired = calloc(d->info.max_procs, sizeof *d->eq_fired);
    if (!d->slots || !d->ep_used || !d->eq_used || !d->eq_fired)
        return NICDRV_ENOMEM;
    for (uint32_t i = 0; i < d->nslots; i++)
        if (d->host.dma_alloc(d->host.ctx, &d->slots[i].img_pa))
            return NICDRV_ENOMEM;
    if (d->host.dma_alloc(d->host.ctx, &d->ev_pa))
        return NICDRV_ENOMEM;
    /* the host table of peer contexts (ABI 2.2): when the cluster has more nodes than the NCP keeps
     * resident, pages of peer_ctx_bytes-sized contexts it fills from and writes back to; the driver's
     * own memory (never mapped into a process) */
    uint32_t slots = d->cfg.peer_slots && d->cfg.peer_slots < d->info.peer_slots ? d->cfg.peer_slots
                                                                                  : d->info.peer_slots;
    if (d->info.peer_ctx_bytes && d->cfg.nodes > slots) {
        uint32_t per = NICDRV_PAGE_SIZE / d->info.peer_ctx_bytes;
        d->peer_pages = (d->cfg.nodes + per - 1) / per;
        d->peer_pa = calloc(d->peer_pages, sizeof *d->peer_pa);
        if (!d->peer_pa)
            return NICDRV_ENOMEM;
        for (uint32_t i = 0; i < d->peer_pages; i++)
            if (d->host.dma_alloc(d->host.ctx, &d->peer_pa[i]))
                return NICDRV_ENOMEM;
    }
    d->ev_size = 1u << d->cfg.ev_log2;
    d->ev_ci = 0;
    d->cmd_pi = d->cmd_answered = 0;
    d->ep_used[0] = 1; /* endpoint 0 is the driver's */
    return NICDRV_OK;
}

static void hold_core(nicdrv_t *d)
{
    wr(d, NICDRV_BAR_REGS, REG(HOSTIF, IRQ_MASK), 0);
    wr(d, NICDRV_BAR_REGS, REG(HOSTIF, CTRL), NIC_HOSTIF_CTRL_CORE_RESET_MASK);
    wr(d, NICDRV_BAR_REGS, REG(HOSTIF, IRQ_CAUSE), IRQ_ALL);
}

/* ABI 2.2 (issue 15 item 2): the host endpoints' context table, when the NCP has them: pages of
 * kernel memory, zeroed (no endpoint open), given to the NCP one NIC_CMD_EP_TABLE each. */
static int ep_table_init(nicdrv_t *d)
{
    static const uint8_t zero[NICDRV_PAGE_SIZE];
    uint32_t n = d->info.max_eps, pages;

    d->neps = d->info.max_procs;
    if ((d->info.abi_version & 0xFFFFu) < 2u || n <= d->info.max_procs)
        return NICDRV_OK; /* an NCP without host endpoints: the resident ones only */
    if (n > DRV_EPT_PAGES * NIC_EPC_PER_PAGE)
        n = DRV_EPT_PAGES * NIC_EPC_PER_PAGE;
    pages = (n + NIC_EPC_PER_PAGE - 1u) / NIC_EPC_PER_PAGE;
    d->hep_pid = calloc(n, sizeof *d->hep_pid);
    d->hep_cq_va = calloc(n, sizeof *d->hep_cq_va);
    d->hep_sq_va = calloc(n, sizeof *d->hep_sq_va);
    if (!d->hep_pid || !d->hep_cq_va || !d->hep_sq_va)
        return NICDRV_ENOMEM;
    for (uint32_t k = 0; k < pages; k++) {
        struct nic_cmd c = { .op = NIC_CMD_EP_TABLE, .key = k };
        int32_t st;
        int rc;
        if (d->host.dma_alloc(d->host.ctx, &d->ept_pa[k]))
            return NICDRV_ENOMEM;
        if (d->host.phys_write(d->host.ctx, d->ept_pa[k], zero, sizeof zero))
            return NICDRV_EFAULT;
        c.a = (uint32_t)d->ept_pa[k];
        c.b = (uint32_t)(d->ept_pa[k] >> 32);
        rc = drv_cmd(d, &c, NULL, 0, &st);
        if (!rc)
            rc = drv_map_status(st);
        if (rc)
            return rc;
    }
    d->neps = n;
    return NICDRV_OK;
}

int nicdrv_probe(nicdrv_t *d, const void *image, size_t len, char *err, size_t errlen)
{
    struct nic_cmd c = { .op = NIC_CMD_INIT };
    char msg[200];
    int32_t st;
    int rc;

    if (d->probed)
        return fail(err, errlen, NICDRV_EBUSY, "already probed");
    d->dead = false;
    memset(&d->info, 0, sizeof d->info);
    if (wr(d, NICDRV_BAR_REGS, REG(HOSTIF, CTRL), NIC_HOSTIF_CTRL_CORE_RESET_MASK))
        return fail(err, errlen, NICDRV_EBUS, "hostif.ctrl: MMIO write failed");
    rc = check_blocks(d, err, errlen);
    if (rc)
        return rc;
    if (wr(d, NICDRV_BAR_REGS, REG(MAC, NODE_ID), d->cfg.node_id))
        return fail(err, errlen, NICDRV_EBUS, "mac.node_id: MMIO write failed");
    rc = nicdrv_fw_load(&d->bus, image, len, d->cfg.required_fw_major, NULL, err, errlen);
    if (rc)
        return rc;
    d->started = true;
    rc = wait_ready(d, err, errlen);
    if (!rc)
        rc = read_info(d, err, errlen);
    if (rc)
        goto fail_core;
    d->dynamic = (d->info.caps & NIC_CAP_DYNAMIC_LOOKUP) != 0;
    rc = alloc_rings(d);
    if (rc) {
        fail(err, errlen, rc, "out of kernel memory for the rings");
        goto fail_rings;
    }
    d->probed = true; /* the top half may run from here on */
    if (wr(d, NICDRV_BAR_REGS, REG(HOSTIF, IRQ_MASK), IRQ_ALL)) {
        rc = fail(err, errlen, NICDRV_EBUS, "hostif.irq_mask: MMIO write failed");
        goto fail_rings;
    }
    c.a = (uint32_t)d->ev_pa;
    c.b = (uint32_t)(d->ev_pa >> 32);
    c.c = d->cfg.ev_log2;
    c.d = (uint32_t)d->cfg.node_id | (uint32_t)d->cfg.nodes << 16;
    c.key = (uint32_t)d->cfg.fabric_secret; /* nic_abi.h NIC_CMD_INIT: the fabric secret */
    c.pid = (uint16_t)(d->cfg.fabric_secret >> 32);
    c.epoch = (uint16_t)(d->cfg.fabric_secret >> 48);
    c.ep = (uint16_t)d->cfg.prefetch_lines; /* nic_abi.h NIC_CMD_INIT: prefetch on a miss */
    c.cache = (uint8_t)d->cfg.xport_opts; /* NIC_CMD_INIT: transport options (NIC_XOPT_*) */
    rc = drv_cmd(d, &c, NULL, 0, &st);
    if (!rc && st != NIC_ST_OK)
        rc = NICDRV_EFW;
    if (rc) {
        snprintf(msg, sizeof msg, "INIT not answered: %s (status %d)", nicdrv_strerror(rc), rc == NICDRV_EFW ? st : 0);
        fail(err, errlen, rc, msg);
        goto fail_rings;
    }
    rc = ep_table_init(d);
    if (rc) {
        fail(err, errlen, rc, "host endpoint table not taken");
        goto fail_rings;
    }
    for (uint32_t i = 0; i < d->peer_pages; i++) { /* before any traffic: no endpoint is open yet */
        struct nic_cmd pt = {.op = NIC_CMD_PEER_TABLE, .a = (uint32_t)d->peer_pa[i],
                             .b = (uint32_t)(d->peer_pa[i] >> 32), .c = i, .d = i ? 0 : d->cfg.peer_slots};
        rc = drv_cmd(d, &pt, NULL, 0, &st);
        if (!rc && st != NIC_ST_OK)
            rc = NICDRV_EFW;
        if (rc) {
            snprintf(msg, sizeof msg, "PEER_TABLE page %u not answered: %s (status %d)", (unsigned)i,
                     nicdrv_strerror(rc), rc == NICDRV_EFW ? st : 0);
            fail(err, errlen, rc, msg);
            goto fail_rings;
        }
    }
    return NICDRV_OK;

fail_rings:
    d->probed = false;
fail_core:
    hold_core(d); /* no DMA after this: the rings can go */
    free_rings(d);
    d->started = false;
    return rc;
}

int nicdrv_remove(nicdrv_t *d)
{
    if (!d->probed) {
        if (d->started)
            hold_core(d);
        d->started = false;
        return NICDRV_OK;
    }
    if (d->dead)
        hold_core(d); /* a stopped NCP cannot answer invalidations: stop its DMA before unpinning */
    if (drv_release_all(d)) {
        d->dead = true;
        hold_core(d);
        drv_release_all(d);
    }
    if (!d->dead) {
        struct nic_cmd c = { .op = NIC_CMD_SHUTDOWN };
        int32_t st;
        drv_cmd(d, &c, NULL, 0, &st);
    }
    hold_core(d);
    d->probed = false;
    d->started = false;
    free_rings(d);
    d->miss_count = 0;
    return NICDRV_OK;
}
