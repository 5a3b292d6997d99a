/*
 * imghost.c - the host's part for the NCP firmware test images (imghost.h): one copy for all.
 */
#include "imghost.h"

#include <string.h>

uint64_t ih_host_pa, ih_nomem_pa;
uint32_t ih_me;
uint8_t ih_image[1024] __attribute__((aligned(16)));
struct nic_cqe ih_cqe[IH_NCQE];
uint32_t ih_cqe_at[IH_NCQE], ih_ncqe;
uint32_t ih_events, ih_misses;

static uint32_t sq_pi, sq_mask; /* requests posted; send queue entries - 1 */

/* ---- the miss thread: misses answered after a delay ---- */
struct pending_fill {
    uint8_t used, cache;
    uint16_t pid, epoch;
    uint32_t line, due;
};
static struct pending_fill fills[16];
static ih_line_fn fill_build;
static uint32_t fill_delay;

void ih_serve_misses(ih_line_fn build, uint32_t delay)
{
    fill_build = build;
    fill_delay = delay;
}

int ncp_test_on_event(const struct nic_event *ev)
{
    ih_events++;
    ncp_test_events_consumed(); /* consumed at once */
    if (ev->type != NIC_EV_MISS)
        return 1;
    ih_misses++;
    FWT_CHECK(fill_build, 90, "a lookup missed (every line was installed)");
    for (unsigned i = 0; i < 16; i++) {
        if (!fills[i].used) {
            fills[i] = (struct pending_fill){ 1, ev->cache, ev->pid, ev->epoch, ev->key, hal_now() + fill_delay };
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
            memset(ih_image, 0, sizeof ih_image);
            fill_build(f->cache, f->pid, f->line, ih_image);
            int32_t st = ncp_test_fill(f->cache, f->pid, f->line, f->epoch, ih_image);
            FWT_CHECK(st == NIC_ST_OK, 20, "fill refused");
            f->used = 0;
        }
    }
}

int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *c)
{
    FWT_CHECK(ep == IH_EP, 91, "completion of another endpoint");
    ih_cqe_at[ih_ncqe % IH_NCQE] = hal_now();
    ih_cqe[ih_ncqe++ % IH_NCQE] = *c;
    return 1;
}

void ih_boot(void)
{
    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC && FWT_ARGS->nodes >= 2, 92, "harness arguments");
    ih_host_pa = fwt_u64(FWT_ARGS->host_buf_lo, FWT_ARGS->host_buf_hi);
    ih_nomem_pa = fwt_u64(FWT_ARGS->nomem_lo, FWT_ARGS->nomem_hi);
    ncp_boot();
    ih_me = ncp_test_node();
    sq_mask = ncp_test_sq_entries() - 1u;
    FWT_CHECK((sq_mask & (sq_mask + 1u)) == 0, 92, "send queue entries: a power of two");
    /* what the driver's INIT and EP_OPEN would do */
    ncp_test_init((uint16_t)FWT_ARGS->nodes, ih_host_pa, 6);
    ncp_test_ep_open(IH_EP, IH_PID, ih_host_pa, 4);
}

/* ---- registration: whole lines installed ---- */
void ih_install(uint8_t cache, uint32_t line)
{
    int32_t st = NCP_LOOKUP_STATIC ? ncp_test_static_load(cache, IH_PID, line, ih_image)
                                   : ncp_test_fill(cache, IH_PID, line, ncp_test_epoch(cache, IH_PID), ih_image);
    FWT_CHECK(st == NIC_ST_OK, 93, "fill");
}

void ih_install_vmh(uint64_t va, uint32_t bad)
{
    uint32_t n = ncp_test_line_bytes(NIC_CACHE_VMH) / sizeof(struct nic_vmh_entry);
    struct nic_vmh_entry *e = (struct nic_vmh_entry *)(void *)ih_image;

    FWT_CHECK(n * sizeof *e <= sizeof ih_image && (uint32_t)(va >> 12) % n == 0, 94, "VMH line");
    memset(ih_image, 0, sizeof ih_image);
    for (uint32_t i = 0; i < n; i++) {
        e[i].ppn = (uint32_t)((i == bad ? ih_nomem_pa : ih_host_pa) >> 12);
        e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE | NIC_RIGHT_REMOTE_READ |
                     NIC_RIGHT_REMOTE_WRITE;
    }
    ih_install(NIC_CACHE_VMH, (uint32_t)(va >> 12) / n);
}

void ih_install_buffer(uint32_t buf, uint64_t va, uint32_t len)
{
    struct nic_cbh_entry *c = (struct nic_cbh_entry *)(void *)ih_image;
    struct nic_pch_entry *p = (struct nic_pch_entry *)(void *)ih_image;

    FWT_CHECK(buf < ncp_test_line_bytes(NIC_CACHE_CBH) / sizeof *c && buf != IH_LBUF, 95, "buffer in CBH line 0");
    memset(ih_image, 0, sizeof ih_image);
    c[buf].flags = NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ | NIC_RIGHT_REMOTE_WRITE;
    c[buf].key = IH_KEY;
    c[buf].va_lo = (uint32_t)va;
    c[buf].va_hi = (uint32_t)(va >> 32);
    c[buf].len_lo = len;
    c[buf].owner_pid = IH_PID;
    c[IH_LBUF].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE;
    c[IH_LBUF].len_hi = 1u << 12; /* [0, 2^44) */
    c[IH_LBUF].owner_pid = IH_PID;
    ih_install(NIC_CACHE_CBH, 0);
    uint32_t pl = ncp_test_line_bytes(NIC_CACHE_PCH) / sizeof *p; /* pids per PCH line */
    memset(ih_image, 0, sizeof ih_image);
    p[IH_PID % pl].flags = NIC_ENTRY_VALID;
    p[IH_PID % pl].ep = IH_EP;
    ih_install(NIC_CACHE_PCH, IH_PID / pl);
}

/* ---- requests ---- */
void ih_post_ex(uint8_t op, uint8_t flags, uint32_t len, uint64_t laddr, uint16_t rnode, uint32_t rbuf, uint64_t roff,
                uint32_t rkey, uint32_t wr)
{
    volatile struct nic_sq_entry *s =
        (volatile struct nic_sq_entry *)(uintptr_t)(NIC_SRAM_SENDQ_BASE + IH_EP * NIC_SENDQ_STRIDE +
                                                    (sq_pi & sq_mask) * sizeof(struct nic_sq_entry));
    struct nic_sq_entry e;

    memset(&e, 0, sizeof e);
    e.op = op;
    e.flags = flags;
    e.rnode = rnode;
    e.len = len;
    e.laddr_lo = (uint32_t)laddr;
    e.laddr_hi = (uint32_t)(laddr >> 32);
    e.rbuf = rbuf;
    e.rpid = IH_PID;
    e.roff_lo = (uint32_t)roff;
    e.roff_hi = (uint32_t)(roff >> 32);
    e.rkey = rkey;
    e.wr_id_lo = wr;
    e.lbuf = IH_LBUF;
    memcpy((void *)s, &e, sizeof e);
    ncp_test_sq_doorbell(IH_EP, ++sq_pi);
}

void ih_post(uint8_t op, uint32_t len, uint64_t laddr, uint16_t rnode, uint32_t rbuf, uint64_t roff, uint32_t wr)
{
    ih_post_ex(op, NIC_WR_SIGNALED, len, laddr, rnode, rbuf, roff, IH_KEY, wr);
}

/* ---- running the NCP ---- */
void ih_step(uint32_t wake)
{
    ncp_run_once();
    if (fill_build)
        serve_fills();
    hal_timer_at(hal_now() + wake); /* the miss thread's delays; the NCP re-arms its own deadline */
    hal_sleep();
}

void ih_run_until_cqes(uint32_t n, uint32_t limit, int code)
{
    uint32_t start = hal_now();
    while (ih_ncqe < n) {
        FWT_CHECK(hal_now() - start < limit, code, "operations did not complete in time");
        ih_step(5000u);
    }
}

void ih_run_for(uint32_t cycles)
{
    uint32_t end = hal_now() + cycles;
    while (seq_lt(hal_now(), end))
        ih_step(5000u);
}

void ih_read_host_page(uint8_t *buf)
{
    uint32_t ticket = ncp_test_dma_from_host(buf, ih_host_pa, 4096);
    for (uint32_t spin = 0; !ncp_test_dma_passed(ticket); spin++) {
        FWT_CHECK(spin < 1000000u, 96, "host page DMA");
        ncp_run_once();
    }
}

void ih_hang(uint32_t ticks)
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

void ih_mac_rx(int on)
{
    nic_wr(NIC_MAC_BASE, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK | (on ? NIC_MAC_CTRL_RX_ENABLE_MASK : 0u));
}

/* ---- what the tests check ---- */
struct nic_stats ih_stats(void)
{
    struct nic_stats s;
    ncp_test_stats(&s);
    return s;
}

struct ncp_test_counters ih_counters(void)
{
    struct ncp_test_counters c;
    ncp_test_counters(&c);
    return c;
}

struct xport_stats ih_peer(uint32_t peer)
{
    struct xport_stats st;
    ncp_test_peer_stats(peer, &st);
    return st;
}

struct ncp_test_op ih_op(uint32_t slot)
{
    struct ncp_test_op o;
    ncp_test_op(slot, &o);
    return o;
}

struct ncp_test_resp ih_resp(void)
{
    struct ncp_test_resp r;
    ncp_test_responder(&r);
    return r;
}
