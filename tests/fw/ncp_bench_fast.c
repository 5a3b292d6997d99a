/*
 * fw_ncp_bench_fast: the NCP's fast-path cost per packet, send and receive, every lookup hitting,
 * at steady state (docs/firmware.md "Fast path"). A benchmark, not a timed test: it prints the
 * figures and fails only if an operation does not complete correctly.
 * Run: build/bin/nicrun --nodes 2 build/fw/fw_ncp_bench_fast.img
 *
 * Like fw_ncp_rdma, the image plays the host (endpoint state written directly, send queue
 * entries + req_on_doorbell, completions through the CQ hook). Before any traffic both nodes
 * install every cache line the run needs (xlate_fill), so no lookup misses. Virtual pages alias
 * the one pinned host page. Node 0 streams operations of 64 KiB (16 segments of 4 KiB) to node 1,
 * OPS_IN_FLIGHT at a time, in phases:
 *   warm-up   4 aligned writes (not reported)
 *   A         16 aligned RDMA writes: 256 packets, one DMA piece each (page-aligned both sides)
 *   B         16 unaligned RDMA writes (local +1000, remote +100): two DMA pieces per packet
 *   C         16 aligned RDMA reads: node 1 sends the read responses, node 0 receives them
 * Each node prints, per phase, for the packets it sent (FP_TX) and received (FP_RX): median, max
 * and mean cycles per packet (samples: firmware/src/ncp.h, struct ncp_fp), plus stand-alone ACK
 * frames, and the core's busy cycles (not in wfi) per packet delivered over the phase (this one
 * includes the loop's polling, duplicates and retransmissions: when the receiver is slower than
 * the link its MAC ring overflows and go-back-N resends). Node 1 follows the phases by counting
 * the packets it delivered/sent. Send samples include retransmissions (same path).
 */
#include <string.h>

#include "fwtest_util.h"
#include "cmd.h"
#include "dmaq.h"
#include "loop.h"
#include "ncp.h"
#include "requester.h"
#include "xlate.h"

#define VA_SRC 0x10000000ull /* node 0, pid 1: 64 pages (one VMH line) aliasing the host page */
#define VA_DST 0x20000000ull /* node 1, pid 1: the same (buffer 5 covers them) */
#define PID 1u
#define EP 1u
#define BUF 5u
#define LBUF 6u /* the local buffer the requests name (ABI 2.0 lbuf): the whole address space */
#define KEY 0xC0FFEEu
#define OP_BYTES 65536u
#define PKTS_PER_OP (OP_BYTES / NCP_MTU)
#define PHASE_OPS 16u
#define WARM_OPS 4u
#define OPS_IN_FLIGHT 4u
#define QUIET 400000u

static uint64_t host_pa;
static uint32_t me;
static uint8_t image[1024] __attribute__((aligned(16)));
static uint32_t busy, idle;

int ncp_test_on_event(const struct nic_event *ev)
{
    ncp.ev_ci = ncp.ev_n;
    FWT_CHECK(ev->type != NIC_EV_MISS, 20, "a lookup missed");
    return 1;
}

static struct nic_cqe last_cqe;
static uint32_t ncqe;

int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *c)
{
    FWT_CHECK(ep == EP && c->status == NIC_ST_OK && c->bytes == OP_BYTES, 21, "completion");
    last_cqe = *c;
    ncqe++;
    return 1;
}

static void fill(uint8_t cache, uint32_t line)
{
    uint32_t L = xlate_line_bytes(cache);
    memset(image, 0, sizeof image);
    if (cache == NIC_CACHE_VMH) {
        struct nic_vmh_entry *e = (struct nic_vmh_entry *)(void *)image;
        for (uint32_t i = 0; i < L / sizeof *e; i++) {
            e[i].ppn = (uint32_t)(host_pa >> 12);
            e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE | NIC_RIGHT_REMOTE_READ |
                         NIC_RIGHT_REMOTE_WRITE;
        }
    } else if (cache == NIC_CACHE_CBH) {
        struct nic_cbh_entry *e = (struct nic_cbh_entry *)(void *)image;
        uint32_t n = L / sizeof *e;
        for (uint32_t i = 0; i < n; i++) {
            if (line * n + i == BUF) {
                e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ | NIC_RIGHT_REMOTE_WRITE;
                e[i].key = KEY;
                e[i].va_lo = (uint32_t)VA_DST;
                e[i].len_lo = 64u * 4096u;
                e[i].owner_pid = PID;
            }
            if (line * n + i == LBUF) {
                e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE;
                e[i].len_hi = 1u << 12;
                e[i].owner_pid = PID;
            }
        }
    } else {
        struct nic_pch_entry *e = (struct nic_pch_entry *)(void *)image;
        uint32_t n = L / sizeof *e;
        for (uint32_t i = 0; i < n; i++)
            if (line * n + i == PID) {
                e[i].flags = NIC_ENTRY_VALID;
                e[i].ep = EP;
            }
    }
    struct lkc *c = &ncp_cache[cache];
    int32_t st = NCP_LOOKUP_STATIC ? xlate_static_load(cache, PID, line, image)
                                   : xlate_fill(cache, PID, line, lkc_epoch(c, PID), image);
    FWT_CHECK(st == NIC_ST_OK, 22, "fill");
}

static uint32_t sq_pi;

static void post(uint8_t op, uint32_t len, uint64_t laddr, uint64_t roff, uint32_t wr)
{
    volatile struct nic_sq_entry *s = (volatile struct nic_sq_entry *)(uintptr_t)(
        NIC_SRAM_SENDQ_BASE + EP * NIC_SENDQ_STRIDE + (sq_pi % NCP_SQ_N) * sizeof(struct nic_sq_entry));
    struct nic_sq_entry e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.flags = NIC_WR_SIGNALED;
    e.rnode = 1;
    e.len = len;
    e.laddr_lo = (uint32_t)laddr;
    e.laddr_hi = (uint32_t)(laddr >> 32);
    e.rbuf = BUF;
    e.rpid = PID;
    e.roff_lo = (uint32_t)roff;
    e.rkey = KEY;
    e.wr_id_lo = wr;
    e.lbuf = LBUF;
    memcpy((void *)s, &e, sizeof e);
    req_on_doorbell(EP, NIC_DB_SQ_PI, ++sq_pi);
}

/* One pass of the loop; the time asleep is idle, the rest busy. A pass that completed an
 * operation returns without sleeping: the initiator posts the next one. */
static void step(void)
{
    uint32_t t0 = ncp_rdcycle(), n = ncqe;
    ncp_run_once();
    uint32_t t1 = ncp_rdcycle();
    if (ncqe == n)
        hal_sleep();
    uint32_t t2 = ncp_rdcycle();
    busy += t1 - t0;
    idle += t2 - t1;
}

static void reset_stats(void)
{
#if NCP_PROFILE
    memset(ncp_prof, 0, sizeof ncp_prof);
#endif
    memset(ncp.fp, 0, sizeof ncp.fp);
    busy = idle = 0;
}

static int cmp16(const void *a, const void *b)
{
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static void report(const char *phase)
{
    static const char *const name[FP__N] = {"send", "receive", "ack"};
    static uint16_t tmp[NCP_FP_RING];
    uint32_t pk = ncp.fp[FP_TX].n + ncp.fp[FP_RX].n;

    for (unsigned k = 0; k < FP__N; k++) {
        const struct ncp_fp *f = &ncp.fp[k];
        if (!f->n)
            continue;
        uint32_t m = f->n < NCP_FP_RING ? f->n : NCP_FP_RING;
        memcpy(tmp, f->s, m * sizeof tmp[0]);
        qsort(tmp, m, sizeof tmp[0], cmp16);
        printf("node %lu phase %s: %-7s %4lu %s: median %4u max %4lu mean %4lu cycles/%s\n", (unsigned long)me,
               phase, name[k], (unsigned long)f->n, k == FP_ACK ? "frames " : "packets", tmp[m / 2],
               (unsigned long)f->max, (unsigned long)(f->sum / f->n), k == FP_ACK ? "ACK" : "packet");
    }
#if NCP_PROFILE
    for (unsigned i = 0; i < 16; i++)
        if (ncp_prof[i][2])
            printf("node %lu profile %u: %lu cycles %lu instructions (%lu)\n", (unsigned long)me, i,
                   (unsigned long)(ncp_prof[i][0] / ncp_prof[i][2]), (unsigned long)(ncp_prof[i][1] / ncp_prof[i][2]),
                   (unsigned long)ncp_prof[i][2]);
#endif
    if (pk)
        printf("node %lu phase %s: core busy %lu cycles/packet (busy %lu, asleep %lu)\n", (unsigned long)me, phase,
               (unsigned long)(busy / pk), (unsigned long)busy, (unsigned long)idle);
}

static uint32_t issued;

/* Initiator: `ops` operations, OPS_IN_FLIGHT at a time. */
static void stream(uint8_t op, uint32_t ops, uint32_t loff, uint32_t roff)
{
    uint32_t start = ncqe, posted = 0, t = hal_now();
    while (ncqe - start < ops) {
        while (posted < ops && posted - (ncqe - start) < OPS_IN_FLIGHT) {
            post(op, OP_BYTES, VA_SRC + loff + (issued % 2u) * OP_BYTES, roff + (issued % 2u) * OP_BYTES, issued);
            posted++;
            issued++;
        }
        FWT_CHECK(hal_now() - t < 100000000u, 10, "operations did not complete");
        step();
    }
}

static void initiator(void)
{
    stream(NIC_OP_RDMA_WRITE, WARM_OPS, 0, 0);
    reset_stats();
    stream(NIC_OP_RDMA_WRITE, PHASE_OPS, 0, 0);
    report("A (aligned write)");
    reset_stats();
    stream(NIC_OP_RDMA_WRITE, PHASE_OPS, 1000, 100);
    report("B (unaligned write)");
    reset_stats();
    stream(NIC_OP_RDMA_READ, PHASE_OPS, 0, 0);
    report("C (aligned read)");
    printf("node 0: retransmits %lu timeouts %lu nacks received %lu (a receiver slower than the link drops frames)\n",
           (unsigned long)ncp.peer[1].x.st.retransmits, (unsigned long)ncp.peer[1].x.st.timeouts,
           (unsigned long)ncp.c.s.nacks_received);
}

/* Target: follows the phases by the packets it delivered (A, B) and sent (C). */
static void target(void)
{
    const uint32_t n = PHASE_OPS * PKTS_PER_OP;
    uint32_t t = hal_now();

    while (ncp.fp[FP_RX].n < WARM_OPS * PKTS_PER_OP) {
        FWT_CHECK(hal_now() - t < 100000000u, 40, "warm-up");
        step();
    }
    reset_stats();
    while (ncp.fp[FP_RX].n < n) {
        FWT_CHECK(hal_now() - t < 100000000u, 41, "phase A");
        step();
    }
    report("A (aligned write)");
    reset_stats();
    while (ncp.fp[FP_RX].n < n) {
        FWT_CHECK(hal_now() - t < 100000000u, 42, "phase B");
        step();
    }
    report("B (unaligned write)");
    reset_stats();
    while (ncp.fp[FP_TX].n < n) {
        FWT_CHECK(hal_now() - t < 100000000u, 43, "phase C");
        step();
    }
    report("C (aligned read)");
    uint32_t last = hal_now(), rx = ncp.c.s.rx_packets;
    while (hal_now() - last < QUIET) { /* the initiator's last ACKs */
        if (ncp.c.s.rx_packets != rx) {
            rx = ncp.c.s.rx_packets;
            last = hal_now();
        }
        ncp_run_once();
        hal_timer_at(hal_now() + 5000u);
        hal_sleep();
    }
}

int main(void)
{
    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC && FWT_ARGS->nodes >= 2, 1, "harness arguments");
    host_pa = fwt_u64(FWT_ARGS->host_buf_lo, FWT_ARGS->host_buf_hi);
    ncp_boot();
    me = ncp.me;
    ncp.nodes = (uint16_t)FWT_ARGS->nodes;
    ncp.inited = 1;
    ncp.ev_pa = host_pa;
    ncp.ev_log2 = 6;
    ncp.ep[EP].state = EP_IDLE;
    ncp.ep[EP].pid = PID;
    ncp.ep[EP].cq_pa = host_pa;
    ncp.ep[EP].cq_log2 = 4;
    ncp.ep[EP].cur = -1;
    uint32_t vmh_per_line = xlate_line_bytes(NIC_CACHE_VMH) / sizeof(struct nic_vmh_entry);
    uint64_t base = me == 0 ? VA_SRC : VA_DST;
    for (uint32_t p = 0; p < 64u; p += vmh_per_line)
        fill(NIC_CACHE_VMH, (uint32_t)((base >> 12) + p) / vmh_per_line);
    fill(NIC_CACHE_CBH, BUF / (xlate_line_bytes(NIC_CACHE_CBH) / sizeof(struct nic_cbh_entry)));
    fill(NIC_CACHE_PCH, PID / (xlate_line_bytes(NIC_CACHE_PCH) / sizeof(struct nic_pch_entry)));
    if (me == 0)
        initiator();
    else if (me == 1)
        target();
    return 0;
}
