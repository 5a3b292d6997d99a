/*
 * fwhost.c - the host's part for the NCP firmware test images (fwhost.h): one copy for all.
 */
#include "fwhost.h"

#include <string.h>

uint64_t fwh_host_pa, fwh_nomem_pa;
uint32_t fwh_me;
uint8_t fwh_image[1024] __attribute__((aligned(16)));
struct nic_cqe fwh_cqe[FWH_NCQE];
uint32_t fwh_cqe_at[FWH_NCQE], fwh_ncqe;
uint32_t fwh_events, fwh_misses;

static uint32_t sq_pi, sq_mask; /* requests posted; send queue entries - 1 */

/* ---- the miss thread: misses answered after a delay ---- */
struct pending_fill {
    uint8_t used, cache;
    uint16_t pid, epoch;
    uint32_t line, due;
};
static struct pending_fill fills[16];
static fwh_line_fn fill_build;
static uint32_t fill_delay;

void fwh_serve_misses(fwh_line_fn build, uint32_t delay)
{
    fill_build = build;
    fill_delay = delay;
}

int ncp_test_on_event(const struct nic_event *ev)
{
    fwh_events++;
    ncp_test_events_consumed(); /* consumed at once */
    if (ev->type != NIC_EV_MISS)
        return 1;
    fwh_misses++;
    FWT_CHECK(fill_build, 90, "a lookup missed (every line was installed)");
    for (unsigned i = 0; i < 16; i++) {
        if (!fills[i].used) {
            fills[i] = (struct pending_fill){1, ev->cache, ev->pid, ev->epoch, ev->key, hal_now() + fill_delay};
            return 1;
        }
    }
    return 1; /* no room: the NCP re-posts after its expiry */
}

static void serve_fills(void)
{
    for (unsigned i = 0; i < 16; i++) {
        struct pending_fill *f = &fills[i];
        if (f->used && (int32_t)(hal_now() - f->due) >= 0) {
            memset(fwh_image, 0, sizeof fwh_image);
            fill_build(f->cache, f->pid, f->line, fwh_image);
            int32_t st = ncp_test_fill(f->cache, f->pid, f->line, f->epoch, fwh_image);
            FWT_CHECK(st == NIC_ST_OK, 20, "fill refused");
            f->used = 0;
        }
    }
}

int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *c)
{
    FWT_CHECK(ep == FWH_EP, 91, "completion of another endpoint");
    fwh_cqe_at[fwh_ncqe % FWH_NCQE] = hal_now();
    fwh_cqe[fwh_ncqe++ % FWH_NCQE] = *c;
    return 1;
}

void fwh_boot(void)
{
    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC && FWT_ARGS->nodes >= 2, 92, "harness arguments");
    fwh_host_pa = fwt_u64(FWT_ARGS->host_buf_lo, FWT_ARGS->host_buf_hi);
    fwh_nomem_pa = fwt_u64(FWT_ARGS->nomem_lo, FWT_ARGS->nomem_hi);
    ncp_boot();
    fwh_me = ncp_test_node();
    sq_mask = ncp_test_sq_entries() - 1u;
    FWT_CHECK((sq_mask & (sq_mask + 1u)) == 0, 92, "send queue entries: a power of two");
    /* what the driver's INIT and EP_OPEN would do */
    ncp_test_init((uint16_t)FWT_ARGS->nodes, fwh_host_pa, 6);
    ncp_test_ep_open(FWH_EP, FWH_PID, fwh_host_pa, 4);
}

/* ---- registration: whole lines installed ---- */
void fwh_install(uint8_t cache, uint32_t line)
{
    int32_t st = NCP_LOOKUP_STATIC ? ncp_test_static_load(cache, FWH_PID, line, fwh_image)
                                   : ncp_test_fill(cache, FWH_PID, line, ncp_test_epoch(cache, FWH_PID), fwh_image);
    FWT_CHECK(st == NIC_ST_OK, 93, "fill");
}

void fwh_install_vmh(uint64_t va, uint32_t bad)
{
    uint32_t n = ncp_test_line_bytes(NIC_CACHE_VMH) / sizeof(struct nic_vmh_entry);
    struct nic_vmh_entry *e = (struct nic_vmh_entry *)(void *)fwh_image;

    FWT_CHECK(n * sizeof *e <= sizeof fwh_image && (uint32_t)(va >> 12) % n == 0, 94, "VMH line");
    memset(fwh_image, 0, sizeof fwh_image);
    for (uint32_t i = 0; i < n; i++) {
        e[i].ppn = (uint32_t)((i == bad ? fwh_nomem_pa : fwh_host_pa) >> 12);
        e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE | NIC_RIGHT_REMOTE_READ |
                     NIC_RIGHT_REMOTE_WRITE;
    }
    fwh_install(NIC_CACHE_VMH, (uint32_t)(va >> 12) / n);
}

void fwh_install_buffer(uint32_t buf, uint64_t va, uint32_t len)
{
    struct nic_cbh_entry *c = (struct nic_cbh_entry *)(void *)fwh_image;
    struct nic_pch_entry *p = (struct nic_pch_entry *)(void *)fwh_image;

    FWT_CHECK(buf < ncp_test_line_bytes(NIC_CACHE_CBH) / sizeof *c && buf != FWH_LBUF, 95, "buffer in CBH line 0");
    memset(fwh_image, 0, sizeof fwh_image);
    c[buf].flags = NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ | NIC_RIGHT_REMOTE_WRITE;
    c[buf].key = FWH_KEY;
    c[buf].va_lo = (uint32_t)va;
    c[buf].va_hi = (uint32_t)(va >> 32);
    c[buf].len_lo = len;
    c[buf].owner_pid = FWH_PID;
    c[FWH_LBUF].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE;
    c[FWH_LBUF].len_hi = 1u << 12; /* [0, 2^44) */
    c[FWH_LBUF].owner_pid = FWH_PID;
    fwh_install(NIC_CACHE_CBH, 0);
    uint32_t pl = ncp_test_line_bytes(NIC_CACHE_PCH) / sizeof *p; /* pids per PCH line */
    memset(fwh_image, 0, sizeof fwh_image);
    p[FWH_PID % pl].flags = NIC_ENTRY_VALID;
    p[FWH_PID % pl].ep = FWH_EP;
    fwh_install(NIC_CACHE_PCH, FWH_PID / pl);
}

/* ---- requests ---- */
void fwh_post_ex(uint8_t op, uint8_t flags, uint32_t len, uint64_t laddr, uint16_t rnode, uint32_t rbuf,
                 uint64_t roff, uint32_t rkey, uint32_t wr)
{
    volatile struct nic_sq_entry *s = (volatile struct nic_sq_entry *)(uintptr_t)(
        NIC_SRAM_SENDQ_BASE + FWH_EP * NIC_SENDQ_STRIDE + (sq_pi & sq_mask) * sizeof(struct nic_sq_entry));
    struct nic_sq_entry e;

    memset(&e, 0, sizeof e);
    e.op = op;
    e.flags = flags;
    e.rnode = rnode;
    e.len = len;
    e.laddr_lo = (uint32_t)laddr;
    e.laddr_hi = (uint32_t)(laddr >> 32);
    e.rbuf = rbuf;
    e.rpid = FWH_PID;
    e.roff_lo = (uint32_t)roff;
    e.roff_hi = (uint32_t)(roff >> 32);
    e.rkey = rkey;
    e.wr_id_lo = wr;
    e.lbuf = FWH_LBUF;
    memcpy((void *)s, &e, sizeof e);
    ncp_test_sq_doorbell(FWH_EP, ++sq_pi);
}

void fwh_post(uint8_t op, uint32_t len, uint64_t laddr, uint16_t rnode, uint32_t rbuf, uint64_t roff, uint32_t wr)
{
    fwh_post_ex(op, NIC_WR_SIGNALED, len, laddr, rnode, rbuf, roff, FWH_KEY, wr);
}

/* ---- running the NCP ---- */
void fwh_step(uint32_t wake)
{
    ncp_run_once();
    if (fill_build)
        serve_fills();
    hal_timer_at(hal_now() + wake); /* the miss thread's delays; the NCP re-arms its own deadline */
    hal_sleep();
}

void fwh_run_until_cqes(uint32_t n, uint32_t limit, int code)
{
    uint32_t start = hal_now();
    while (fwh_ncqe < n) {
        FWT_CHECK(hal_now() - start < limit, code, "operations did not complete in time");
        fwh_step(5000u);
    }
}

void fwh_run_for(uint32_t cycles)
{
    uint32_t end = hal_now() + cycles;
    while (seq_lt(hal_now(), end))
        fwh_step(5000u);
}

void fwh_read_host_page(uint8_t *buf)
{
    uint32_t ticket = ncp_test_dma_from_host(buf, fwh_host_pa, 4096);
    for (uint32_t spin = 0; !ncp_test_dma_passed(ticket); spin++) {
        FWT_CHECK(spin < 1000000u, 96, "host page DMA");
        ncp_run_once();
    }
}

void fwh_hang(uint32_t ticks)
{
    uint32_t end = hal_now() + ticks;

    hal_init(0);
    while (seq_lt(hal_now(), end)) {
        hal_timer_at(end);
        hal_sleep();
    }
    hal_init(HAL_EV_ALL);
    hal_raise_events(HAL_EV_ALL); /* what happened meanwhile: every source is polled */
    ncp_test_timers_rescan();
}

void fwh_mac_rx(int on)
{
    nic_wr(NIC_MAC_BASE, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK | (on ? NIC_MAC_CTRL_RX_ENABLE_MASK : 0u));
}

/* ---- what the tests check ---- */
struct nic_stats fwh_stats(void)
{
    struct nic_stats s;
    ncp_test_stats(&s);
    return s;
}

struct ncp_test_counters fwh_counters(void)
{
    struct ncp_test_counters c;
    ncp_test_counters(&c);
    return c;
}

struct xport_stats fwh_peer(uint32_t peer)
{
    struct xport_stats st;
    ncp_test_peer_stats(peer, &st);
    return st;
}

struct ncp_test_op fwh_op(uint32_t slot)
{
    struct ncp_test_op o;
    ncp_test_op(slot, &o);
    return o;
}

struct ncp_test_resp fwh_resp(void)
{
    struct ncp_test_resp r;
    ncp_test_responder(&r);
    return r;
}
