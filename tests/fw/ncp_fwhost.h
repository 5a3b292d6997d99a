/*
 * ncp_fwhost.h - the host's part for NCP test images that install every cache line before any
 * traffic (no miss service): what INIT and EP_OPEN would set, whole VMH/CBH/PCH lines installed
 * as FILL (or STATIC_LOAD) would after its DMA, send queue entries rung as a doorbell would,
 * completions taken from the CQ hook with the time they came. One process (FWH_PID) with one
 * endpoint (FWH_EP) per node; its virtual pages alias the one host page nicrun pins, or map to a
 * frame with no memory behind it (a host bus error on DMA).
 *
 * Header-only, for one image each (it defines the NCP's test hooks). The NCP only through
 * firmware/src/ncp_test.h.
 */
#ifndef NCP_FWHOST_H
#define NCP_FWHOST_H

#include <string.h>

#include "fwtest_util.h"
#include "hal.h"
#include "ncp_test.h"
#include "ncp_util.h"

#define FWH_PID 1u
#define FWH_EP 1u
#define FWH_KEY 0xC0FFEEu
#define FWH_NCQE 16u
#define FWH_LBUF 6u /* the local buffer every fwh_post names (ABI 2.0 lbuf): all of the address space */

static uint64_t fwh_host_pa, fwh_nomem_pa;
static uint32_t fwh_me;
static uint8_t fwh_image[1024] __attribute__((aligned(16)));
static uint32_t fwh_sq_pi;

/* Completions in arrival order, with the time each came. */
static struct nic_cqe fwh_cqe[FWH_NCQE];
static uint32_t fwh_cqe_at[FWH_NCQE], fwh_ncqe;

int ncp_test_on_event(const struct nic_event *ev)
{
    ncp_test_events_consumed(); /* consumed at once */
    FWT_CHECK(ev->type != NIC_EV_MISS, 90, "a lookup missed (every line was installed)");
    return 1;
}

int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *c)
{
    FWT_CHECK(ep == FWH_EP && fwh_ncqe < FWH_NCQE, 91, "unexpected completion");
    fwh_cqe_at[fwh_ncqe] = hal_now();
    fwh_cqe[fwh_ncqe++] = *c;
    return 1;
}

/* What the tests check, read now through ncp_test.h. */
static inline struct nic_stats fwh_stats(void)
{
    struct nic_stats s;
    ncp_test_stats(&s);
    return s;
}

static inline struct ncp_test_counters fwh_counters(void)
{
    struct ncp_test_counters c;
    ncp_test_counters(&c);
    return c;
}

static inline struct xport_stats fwh_peer(uint32_t peer)
{
    struct xport_stats st;
    ncp_test_peer_stats(peer, &st);
    return st;
}

static inline struct ncp_test_op fwh_op(uint32_t slot)
{
    struct ncp_test_op o;
    ncp_test_op(slot, &o);
    return o;
}

static inline struct ncp_test_resp fwh_resp(void)
{
    struct ncp_test_resp r;
    ncp_test_responder(&r);
    return r;
}

/* Boots the NCP and sets what the driver's INIT and EP_OPEN would. */
static void fwh_boot(void)
{
    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC && FWT_ARGS->nodes >= 2, 92, "harness arguments");
    fwh_host_pa = fwt_u64(FWT_ARGS->host_buf_lo, FWT_ARGS->host_buf_hi);
    fwh_nomem_pa = fwt_u64(FWT_ARGS->nomem_lo, FWT_ARGS->nomem_hi);
    ncp_boot();
    fwh_me = ncp_test_node();
    ncp_test_init((uint16_t)FWT_ARGS->nodes, fwh_host_pa, 6);
    ncp_test_ep_open(FWH_EP, FWH_PID, fwh_host_pa, 4);
}

static void fwh_install(uint8_t cache, uint32_t line)
{
    int32_t st = NCP_LOOKUP_STATIC ? ncp_test_static_load(cache, FWH_PID, line, fwh_image)
                                   : ncp_test_fill(cache, FWH_PID, line, ncp_test_epoch(cache, FWH_PID), fwh_image);
    FWT_CHECK(st == NIC_ST_OK, 93, "fill");
}

/* The VMH line holding page `va` (64 pages by default): every page maps to the host page with all
 * rights, except page index `bad` of the line (if < the line's pages), which maps to no memory. */
static void fwh_install_vmh(uint64_t va, uint32_t bad)
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

/* CBH line 0 with buffer `buf` (< 8) of FWH_PID at va, len bytes, remote read and write; FWH_PID's PCH line. */
static void fwh_install_buffer(uint32_t buf, uint64_t va, uint32_t len)
{
    struct nic_cbh_entry *c = (struct nic_cbh_entry *)(void *)fwh_image;
    struct nic_pch_entry *p = (struct nic_pch_entry *)(void *)fwh_image;

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

/* A signalled RDMA request into the endpoint's send queue, rung as a doorbell would. */
static void fwh_post(uint8_t op, uint32_t len, uint64_t laddr, uint16_t rnode, uint32_t rbuf, uint64_t roff,
                     uint32_t wr)
{
    volatile struct nic_sq_entry *s = (volatile struct nic_sq_entry *)(uintptr_t)(
        NIC_SRAM_SENDQ_BASE + FWH_EP * NIC_SENDQ_STRIDE + (fwh_sq_pi % ncp_test_sq_entries()) * sizeof(struct nic_sq_entry));
    struct nic_sq_entry e;

    memset(&e, 0, sizeof e);
    e.op = op;
    e.flags = NIC_WR_SIGNALED;
    e.rnode = rnode;
    e.len = len;
    e.laddr_lo = (uint32_t)laddr;
    e.laddr_hi = (uint32_t)(laddr >> 32);
    e.rbuf = rbuf;
    e.rpid = FWH_PID;
    e.roff_lo = (uint32_t)roff;
    e.roff_hi = (uint32_t)(roff >> 32);
    e.rkey = FWH_KEY;
    e.wr_id_lo = wr;
    e.lbuf = FWH_LBUF;
    memcpy((void *)s, &e, sizeof e);
    ncp_test_sq_doorbell(FWH_EP, ++fwh_sq_pi);
}

/* One pass of the NCP, then sleep until an event or at most `wake` cycles. */
static void fwh_step(uint32_t wake)
{
    ncp_run_once();
    hal_timer_at(hal_now() + wake); /* the NCP re-arms its own deadline on the next pass */
    hal_sleep();
}

/* Runs the NCP until n completions came; fails with `code` after `limit` cycles. */
static void fwh_run_until_cqes(uint32_t n, uint32_t limit, int code)
{
    uint32_t start = hal_now();
    while (fwh_ncqe < n) {
        FWT_CHECK(hal_now() - start < limit, code, "operations did not complete in time");
        fwh_step(5000u);
    }
}

/* Runs the NCP for `cycles`. */
static void fwh_run_for(uint32_t cycles)
{
    uint32_t end = hal_now() + cycles;
    while (seq_lt(hal_now(), end))
        fwh_step(5000u);
}

/* The host page as it is now, by DMA into buf (4 KiB). */
static void fwh_read_host_page(uint8_t *buf)
{
    uint32_t ticket = ncp_test_dma_from_host(buf, fwh_host_pa, 4096);
    for (uint32_t spin = 0; !ncp_test_dma_passed(ticket); spin++) {
        FWT_CHECK(spin < 1000000u, 95, "host page DMA");
        ncp_run_once();
    }
}

#endif /* NCP_FWHOST_H */
