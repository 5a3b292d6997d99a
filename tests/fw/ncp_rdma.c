/*
 * fw_ncp_rdma: the real NCP (firmware/src, linked as a library) on two NICs of the cluster, with
 * this image playing the host's part until the driver (host-driver/) can load and serve the NCP:
 * it initialises the NCP and opens an endpoint as INIT and EP_OPEN would, posts send queue entries
 * into the endpoint's send queue in SRAM and rings it (ncp_test_sq_doorbell, the path a doorbell
 * takes), serves miss events after a delay by installing cache lines (ncp_test_fill, what a FILL
 * command does after its DMA), and takes completions from the CQ hook (firmware/src/ncp_test.h).
 *
 * Host memory: nicrun pins one page per node. Virtual pages of pid 1 alias it (VMH entries of
 * several pages point to the same physical page), so a 12 KiB write has three 4 KiB segments,
 * each crossing a page boundary on both sides (two DMA pieces per segment on each node).
 *
 * Node 0 (initiator): RDMA write 12288 B from VA_SRC + 1000 to node 1 buffer 5 at offset 100,
 *   then a write with a wrong key (NIC_ST_KEY), one out of bounds (NIC_ST_BOUNDS), a malformed
 *   entry (NIC_ST_BAD_DESC), then an RDMA read of 4096 B from buffer 5 at offset 0 into VA_SRC;
 *   it checks every status and then the bytes in its host page: node 1's page after the write
 *   holds src[(j + 900) % 4096], and the read copied that page into node 0's.
 * Node 1 (target): starts with empty caches (dynamic build: PCH, CBH and VMH misses on the
 *   receive path, dropped and recovered by NACK or timeout), checks the protection counters,
 *   and passes after the read was served and the link stayed quiet.
 * Faults (nicrun --drop/--corrupt/--duplicate) are recovered by the transport.
 */
#include <string.h>

#include "fwtest_util.h"
#include "hal.h"
#include "ncp_test.h"
#include "ncp_util.h"

#define VA_SRC 0x10000000ull /* node 0, pid 1: 5 pages aliasing the host page */
#define VA_DST 0x20000000ull /* node 1, pid 1: 4 pages aliasing the host page (buffer 5) */
#define PID 1u
#define EP 1u
#define BUF 5u
#define LBUF 6u /* the local buffer the requests name (ABI 2.0 lbuf): the whole address space */
#define KEY 0xC0FFEEu
#define FILL_DELAY 20000u /* cycles the "miss thread" takes (100 us) */
#define QUIET 400000u

static uint64_t host_pa;
static uint32_t me;
static uint8_t image[1024] __attribute__((aligned(16)));
static uint8_t check_buf[4096] __attribute__((aligned(16)));

static struct nic_stats stats(void)
{
    struct nic_stats s;
    ncp_test_stats(&s);
    return s;
}

static struct xport_stats peer_stats(uint32_t peer)
{
    struct xport_stats st;
    ncp_test_peer_stats(peer, &st);
    return st;
}

/* ---- the host's miss thread ---- */
struct pending_fill {
    uint8_t used, cache;
    uint16_t pid, epoch;
    uint32_t line, due;
};
static struct pending_fill fills[16];
static uint32_t misses_seen, events_seen;

int ncp_test_on_event(const struct nic_event *ev)
{
    events_seen++;
    ncp_test_events_consumed(); /* consumed at once */
    if (ev->type != NIC_EV_MISS)
        return 1;
    misses_seen++;
    for (unsigned i = 0; i < 16; i++) {
        if (!fills[i].used) {
            fills[i] = (struct pending_fill){1, ev->cache, ev->pid, ev->epoch, ev->key, hal_now() + FILL_DELAY};
            return 1;
        }
    }
    return 1; /* no room: the NCP re-posts after its expiry */
}

static void build_line(uint8_t cache, uint16_t pid, uint32_t line)
{
    uint32_t L = ncp_test_line_bytes(cache);
    memset(image, 0, sizeof image);
    if (cache == NIC_CACHE_VMH) {
        struct nic_vmh_entry *e = (struct nic_vmh_entry *)(void *)image;
        uint32_t n = L / sizeof *e;
        uint64_t base = me == 0 ? VA_SRC : VA_DST;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t vpn = (uint64_t)line * n + i;
            if (pid == PID && vpn >= base >> 12 && vpn < (base >> 12) + 5) {
                e[i].ppn = (uint32_t)(host_pa >> 12);
                e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE |
                             NIC_RIGHT_REMOTE_READ | NIC_RIGHT_REMOTE_WRITE;
            }
        }
    } else if (cache == NIC_CACHE_CBH) {
        struct nic_cbh_entry *e = (struct nic_cbh_entry *)(void *)image;
        uint32_t n = L / sizeof *e;
        for (uint32_t i = 0; i < n; i++) {
            if (pid == PID && me == 1 && line * n + i == BUF) {
                e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ | NIC_RIGHT_REMOTE_WRITE;
                e[i].key = KEY;
                e[i].va_lo = (uint32_t)VA_DST;
                e[i].len_lo = 4 * 4096;
                e[i].owner_pid = PID;
            }
            if (pid == PID && me == 0 && line * n + i == LBUF) {
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
}

static void serve_fills(void)
{
    for (unsigned i = 0; i < 16; i++) {
        struct pending_fill *f = &fills[i];
        if (f->used && (int32_t)(hal_now() - f->due) >= 0) {
            build_line(f->cache, f->pid, f->line);
            int32_t st = ncp_test_fill(f->cache, f->pid, f->line, f->epoch, image);
            FWT_CHECK(st == NIC_ST_OK, 20, "fill refused");
            f->used = 0;
        }
    }
}

/* ---- completions ---- */
static struct nic_cqe cqes[16];
static uint32_t ncqe;

int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *c)
{
    FWT_CHECK(ep == EP && ncqe < 16, 21, "unexpected completion");
    cqes[ncqe++] = *c;
    return 1;
}

static uint32_t sq_pi;

static void post(uint8_t op, uint8_t flags, uint32_t len, uint64_t laddr, uint64_t roff, uint32_t rkey, uint32_t wr)
{
    volatile struct nic_sq_entry *s = (volatile struct nic_sq_entry *)(uintptr_t)(
        NIC_SRAM_SENDQ_BASE + EP * NIC_SENDQ_STRIDE + (sq_pi % ncp_test_sq_entries()) * sizeof(struct nic_sq_entry));
    struct nic_sq_entry e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.flags = flags;
    e.rnode = 1;
    e.len = len;
    e.laddr_lo = (uint32_t)laddr;
    e.laddr_hi = (uint32_t)(laddr >> 32);
    e.rbuf = BUF;
    e.rpid = PID;
    e.roff_lo = (uint32_t)roff;
    e.rkey = rkey;
    e.wr_id_lo = wr;
    e.lbuf = LBUF;
    memcpy((void *)s, &e, sizeof e);
    ncp_test_sq_doorbell(EP, ++sq_pi);
}

static void run_until(uint32_t n_cqe, uint32_t code)
{
    uint32_t start = hal_now();
    while (ncqe < n_cqe) {
        FWT_CHECK(hal_now() - start < 150000000u, code, "operations did not complete");
        ncp_run_once();
        serve_fills();
        hal_timer_at(hal_now() + 5000u); /* the miss thread's delays; the NCP re-arms its own */
        hal_sleep();
    }
}

static void read_host_page(void)
{
    uint32_t ticket = ncp_test_dma_from_host(check_buf, host_pa, sizeof check_buf);
    for (uint32_t spin = 0; !ncp_test_dma_passed(ticket); spin++) {
        FWT_CHECK(spin < 1000000u, 30, "check DMA");
        ncp_run_once();
    }
}

static void report_fast_path(void)
{
    static const char *const name[NCP_TEST_FP__N] = {"send", "receive", "ack"};
    static struct ncp_test_fp f;
    for (unsigned k = 0; k < NCP_TEST_FP_ACK; k++) {
        ncp_test_fp(k, &f);
        if (f.n)
            printf("node %lu: %s fast path %lu cycles/packet mean, %lu max (%lu packets, %lu B average)\n",
                   (unsigned long)me, name[k], (unsigned long)(f.sum / f.n), (unsigned long)f.max,
                   (unsigned long)f.n, (unsigned long)(f.bytes / f.n));
    }
}

static void initiator(void)
{
    post(NIC_OP_RDMA_WRITE, NIC_WR_SIGNALED, 3 * 4096, VA_SRC + 1000, 100, KEY, 1);
    post(NIC_OP_RDMA_WRITE, 0, 64, VA_SRC, 0, KEY ^ 1, 2);        /* wrong key */
    post(NIC_OP_RDMA_WRITE, 0, 100, VA_SRC, 4 * 4096 - 10, KEY, 3); /* out of bounds */
    post(NIC_OP_RDMA_WRITE, NIC_WR_SIGNALED, 0, VA_SRC, 0, KEY, 4);  /* malformed: length 0 */
    run_until(4, 10);
    for (uint32_t i = 0; i < 4; i++) {
        int32_t want = cqes[i].wr_id_lo == 1 ? NIC_ST_OK : cqes[i].wr_id_lo == 2 ? NIC_ST_KEY
                                                       : cqes[i].wr_id_lo == 3 ? NIC_ST_BOUNDS
                                                                               : NIC_ST_BAD_DESC;
        printf("node 0: completion wr %lu status %ld bytes %lu\n", (unsigned long)cqes[i].wr_id_lo,
               (long)cqes[i].status, (unsigned long)cqes[i].bytes);
        FWT_CHECK(cqes[i].status == want, 11, "write completion status");
        if (want == NIC_ST_OK)
            FWT_CHECK(cqes[i].bytes == 3 * 4096, 12, "write completion bytes");
    }
    /* item 11: one refused op = one refused_ops, however many NACKs (duplicates, resends) came */
    FWT_CHECK(stats().refused_ops == 2 && stats().local_denied == 0 && stats().protection_errors == 0, 18,
              "refusal counters at the initiator");
    post(NIC_OP_RDMA_READ, NIC_WR_SIGNALED, 4096, VA_SRC, 0, KEY, 5);
    run_until(5, 13);
    FWT_CHECK(cqes[4].wr_id_lo == 5 && cqes[4].status == NIC_ST_OK && cqes[4].bytes == 4096, 14, "read completion");
    read_host_page();
    for (uint32_t j = 0; j < 4096; j++)
        FWT_CHECK(check_buf[j] == fwtest_pattern((j + 900) % 4096, 0), 15, "bytes written then read back");
    if (!NCP_LOOKUP_STATIC && NCP_NACK) /* the target's misses came back as NACKs, no timeout paid */
        FWT_CHECK(stats().nacks_received > 2 && peer_stats(1).nacks_retry > 0 &&
                      (FWT_ARGS->faults || peer_stats(1).resumes > 0),
                  16, "miss NACKs, and (on a clean link) RESUME after the fills");
    if (!NCP_LOOKUP_STATIC && !NCP_NACK) /* seed-faithful: the sender found out by timing out */
        FWT_CHECK(peer_stats(1).timeouts > 0 && peer_stats(1).nacks_retry == 0, 17, "miss timeouts");
    printf("node 0: write+read verified; retransmits %lu timeouts %lu nacks rx %lu resumes %lu misses %lu\n",
           (unsigned long)peer_stats(1).retransmits, (unsigned long)peer_stats(1).timeouts,
           (unsigned long)stats().nacks_received, (unsigned long)peer_stats(1).resumes, (unsigned long)misses_seen);
}

static void target(void)
{
    struct ncp_test_resp r;
    ncp_test_responder(&r);
    uint32_t start = hal_now(), last = hal_now(), rx = 0, started0 = r.started;
    for (;;) {
        FWT_CHECK(hal_now() - start < 150000000u, 40, "target did not finish");
        ncp_run_once();
        serve_fills();
        if (stats().rx_packets != rx) {
            rx = stats().rx_packets;
            last = hal_now();
        }
        ncp_test_responder(&r);
        if (stats().protection_errors >= 2 && r.started != started0 && !r.active && hal_now() - last > QUIET)
            break;
        hal_timer_at(hal_now() + 5000u);
        hal_sleep();
    }
    read_host_page();
    for (uint32_t j = 0; j < 4096; j++)
        FWT_CHECK(check_buf[j] == fwtest_pattern((j + 900) % 4096, 0), 41, "bytes the write delivered");
    if (!NCP_LOOKUP_STATIC)
        FWT_CHECK(stats().drops_miss > 0 && misses_seen >= 3, 42, "receive-path misses");
    /* item 11: protection_errors = packets refused here: at least one per refused write (a resend
     * that raced with the NACK is refused, and counted, again) */
    FWT_CHECK(stats().protection_errors >= 2, 43, "protection_errors: one per refused packet");
    FWT_CHECK(stats().refused_ops == 0, 44, "no op of the target refused");
    printf("node 1: verified; drops_miss %lu nacks sent %lu protection %lu dup %lu bad %lu\n",
           (unsigned long)stats().drops_miss, (unsigned long)stats().nacks_sent,
           (unsigned long)stats().protection_errors, (unsigned long)stats().dup_packets,
           (unsigned long)stats().drops_bad);
}

int main(void)
{
    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC && FWT_ARGS->nodes >= 2, 1, "harness arguments");
    host_pa = fwt_u64(FWT_ARGS->host_buf_lo, FWT_ARGS->host_buf_hi);
    uint32_t nodes = FWT_ARGS->nodes;
    ncp_boot();
    me = ncp_test_node();
    /* what the driver's INIT and EP_OPEN would do */
    ncp_test_init((uint16_t)nodes, host_pa, 6);
    ncp_test_ep_open(EP, PID, host_pa, 4);
    if (NCP_LOOKUP_STATIC) { /* registration preloads the full tables (STATIC_LOAD) */
        uint64_t base = me == 0 ? VA_SRC : VA_DST;
        uint32_t vl = (uint32_t)(base >> 12) / (ncp_test_line_bytes(NIC_CACHE_VMH) / sizeof(struct nic_vmh_entry));
        build_line(NIC_CACHE_VMH, PID, vl);
        FWT_CHECK(ncp_test_static_load(NIC_CACHE_VMH, PID, vl, image) == NIC_ST_OK, 50, "static VMH load");
        build_line(NIC_CACHE_CBH, PID, 0);
        FWT_CHECK(ncp_test_static_load(NIC_CACHE_CBH, PID, 0, image) == NIC_ST_OK, 51, "static CBH load");
        build_line(NIC_CACHE_PCH, PID, 0);
        FWT_CHECK(ncp_test_static_load(NIC_CACHE_PCH, PID, 0, image) == NIC_ST_OK, 52, "static PCH load");
        /* the table is full once every way of the line's bucket holds another line: NO_RESOURCES */
        struct nic_cache_geom g[NIC_CACHE__COUNT];
        ncp_test_geom(g);
        uint32_t ways = g[NIC_CACHE_CBH].ways,
                 sets = (uint32_t)__builtin_ctz(g[NIC_CACHE_CBH].entries / (g[NIC_CACHE_CBH].line * ways));
        int32_t st = NIC_ST_OK;
        for (uint32_t k = 1; k <= ways && st == NIC_ST_OK; k++)
            st = ncp_test_static_load(NIC_CACHE_CBH, PID, k << sets, image);
        FWT_CHECK(st == NIC_ST_NO_RESOURCES, 53, "static table full");
        for (uint32_t k = 1; k < ways; k++)
            ncp_test_invalidate(NIC_CACHE_CBH, PID, k << sets, 1);
    }
    if (me == 0)
        initiator();
    else if (me == 1)
        target();
    report_fast_path();
    return 0;
}
