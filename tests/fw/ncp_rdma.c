/*
 * fw_ncp_rdma: the real NCP (firmware/src, linked as a library) on two NICs of the cluster, with
 * this image playing the host's part (tests/fw/imghost.c): INIT and EP_OPEN, send queue entries
 * rung as a doorbell would, miss events served after a delay by installing the line (what the
 * driver's miss thread and a FILL command do), completions taken from the CQ hook.
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

#include "imghost.h"

#define VA_SRC 0x10000000ull /* node 0, pid 1: 5 pages aliasing the host page */
#define VA_DST 0x20000000ull /* node 1, pid 1: 4 pages aliasing the host page (buffer 5) */
#define BUF 5u
#define FILL_DELAY 20000u /* cycles the "miss thread" takes (100 us) */
#define LIMIT 150000000u
#define QUIET 400000u

static uint8_t check_buf[4096] __attribute__((aligned(16)));

/* This node's registrations, line by line (what the miss thread installs): pid 1's pages around
 * its VA (node 0: VA_SRC, node 1: VA_DST), node 1's buffer 5 (4 pages at VA_DST), node 0's local
 * buffer IH_LBUF, pid 1's endpoint. Only those: anything else stays invalid. */
static void build_line(uint8_t cache, uint16_t pid, uint32_t line, uint8_t *image)
{
    uint32_t L = ncp_test_line_bytes(cache);
    memset(image, 0, L);
    if (cache == NIC_CACHE_VMH) {
        struct nic_vmh_entry *e = (struct nic_vmh_entry *)(void *)image;
        uint32_t n = L / sizeof *e;
        uint64_t base = ih_me == 0 ? VA_SRC : VA_DST;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t vpn = (uint64_t)line * n + i;
            if (pid == IH_PID && vpn >= base >> 12 && vpn < (base >> 12) + 5) {
                e[i].ppn = (uint32_t)(ih_host_pa >> 12);
                e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE |
                             NIC_RIGHT_REMOTE_READ | NIC_RIGHT_REMOTE_WRITE;
            }
        }
    } else if (cache == NIC_CACHE_CBH) {
        struct nic_cbh_entry *e = (struct nic_cbh_entry *)(void *)image;
        uint32_t n = L / sizeof *e;
        for (uint32_t i = 0; i < n; i++) {
            if (pid == IH_PID && ih_me == 1 && line * n + i == BUF) {
                e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ | NIC_RIGHT_REMOTE_WRITE;
                e[i].key = IH_KEY;
                e[i].va_lo = (uint32_t)VA_DST;
                e[i].len_lo = 4 * 4096;
                e[i].owner_pid = IH_PID;
            }
            if (pid == IH_PID && ih_me == 0 && line * n + i == IH_LBUF) {
                e[i].flags = NIC_ENTRY_VALID | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE;
                e[i].len_hi = 1u << 12;
                e[i].owner_pid = IH_PID;
            }
        }
    } else {
        struct nic_pch_entry *e = (struct nic_pch_entry *)(void *)image;
        uint32_t n = L / sizeof *e;
        for (uint32_t i = 0; i < n; i++)
            if (line * n + i == IH_PID) {
                e[i].flags = NIC_ENTRY_VALID;
                e[i].ep = IH_EP;
            }
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
                   (unsigned long)ih_me, name[k], (unsigned long)(f.sum / f.n), (unsigned long)f.max,
                   (unsigned long)f.n, (unsigned long)(f.bytes / f.n));
    }
}

static void initiator(void)
{
    ih_post_ex(NIC_OP_RDMA_WRITE, NIC_WR_SIGNALED, 3 * 4096, VA_SRC + 1000, 1, BUF, 100, IH_KEY, 1);
    ih_post_ex(NIC_OP_RDMA_WRITE, 0, 64, VA_SRC, 1, BUF, 0, IH_KEY ^ 1, 2);        /* wrong key */
    ih_post_ex(NIC_OP_RDMA_WRITE, 0, 100, VA_SRC, 1, BUF, 4 * 4096 - 10, IH_KEY, 3); /* out of bounds */
    ih_post_ex(NIC_OP_RDMA_WRITE, NIC_WR_SIGNALED, 0, VA_SRC, 1, BUF, 0, IH_KEY, 4);  /* malformed: length 0 */
    ih_run_until_cqes(4, LIMIT, 10);
    for (uint32_t i = 0; i < 4; i++) {
        const struct nic_cqe *c = &ih_cqe[i];
        int32_t want = c->wr_id_lo == 1 ? NIC_ST_OK : c->wr_id_lo == 2 ? NIC_ST_KEY
                                                  : c->wr_id_lo == 3 ? NIC_ST_BOUNDS
                                                                     : NIC_ST_BAD_DESC;
        printf("node 0: completion wr %lu status %ld bytes %lu\n", (unsigned long)c->wr_id_lo, (long)c->status,
               (unsigned long)c->bytes);
        FWT_CHECK(c->status == want, 11, "write completion status");
        if (want == NIC_ST_OK)
            FWT_CHECK(c->bytes == 3 * 4096, 12, "write completion bytes");
    }
    /* item 11: one refused op = one refused_ops, however many NACKs (duplicates, resends) came */
    struct nic_stats s = ih_stats();
    FWT_CHECK(s.refused_ops == 2 && s.local_denied == 0 && s.protection_errors == 0, 18,
              "refusal counters at the initiator");
    ih_post(NIC_OP_RDMA_READ, 4096, VA_SRC, 1, BUF, 0, 5);
    ih_run_until_cqes(5, LIMIT, 13);
    FWT_CHECK(ih_ncqe == 5 && ih_cqe[4].wr_id_lo == 5 && ih_cqe[4].status == NIC_ST_OK && ih_cqe[4].bytes == 4096,
              14, "read completion");
    ih_read_host_page(check_buf);
    for (uint32_t j = 0; j < 4096; j++)
        FWT_CHECK(check_buf[j] == fwtest_pattern((j + 900) % 4096, 0), 15, "bytes written then read back");
    s = ih_stats();
    struct xport_stats p1 = ih_peer(1);
    if (!NCP_LOOKUP_STATIC && NCP_NACK) /* the target's misses came back as NACKs, no timeout paid */
        FWT_CHECK(s.nacks_received > 2 && p1.nacks_retry > 0 && (FWT_ARGS->faults || p1.resumes > 0), 16,
                  "miss NACKs, and (on a clean link) RESUME after the fills");
    if (!NCP_LOOKUP_STATIC && !NCP_NACK) /* seed-faithful: the sender found out by timing out */
        FWT_CHECK(p1.timeouts > 0 && p1.nacks_retry == 0, 17, "miss timeouts");
    printf("node 0: write+read verified; retransmits %lu timeouts %lu nacks rx %lu resumes %lu misses %lu\n",
           (unsigned long)p1.retransmits, (unsigned long)p1.timeouts, (unsigned long)s.nacks_received,
           (unsigned long)p1.resumes, (unsigned long)ih_misses);
    /* the target's last responses are acknowledged (again, if an ACK was lost) before this NCP stops:
     * else the target keeps resending them until its connection gives up */
    ih_run_for(QUIET);
}

static void target(void)
{
    uint32_t start = hal_now(), last = hal_now(), rx = 0, served0 = ih_resp().started;
    struct nic_stats s;
    for (;;) {
        FWT_CHECK(hal_now() - start < LIMIT, 40, "target did not finish");
        ih_step(5000u);
        s = ih_stats();
        if (s.rx_packets != rx) {
            rx = s.rx_packets;
            last = hal_now();
        }
        struct ncp_test_resp r = ih_resp(); /* the read was served: its response started and done */
        if (s.protection_errors >= 2 && r.started != served0 && !r.active && hal_now() - last > QUIET)
            break;
    }
    ih_read_host_page(check_buf);
    for (uint32_t j = 0; j < 4096; j++)
        FWT_CHECK(check_buf[j] == fwtest_pattern((j + 900) % 4096, 0), 41, "bytes the write delivered");
    s = ih_stats();
    if (!NCP_LOOKUP_STATIC)
        FWT_CHECK(s.drops_miss > 0 && ih_misses >= 3, 42, "receive-path misses");
    /* item 11: protection_errors = packets refused here: at least one per refused write (a resend
     * that raced with the NACK is refused, and counted, again) */
    FWT_CHECK(s.protection_errors >= 2, 43, "protection_errors: one per refused packet");
    FWT_CHECK(s.refused_ops == 0, 44, "no op of the target refused");
    printf("node 1: verified; drops_miss %lu nacks sent %lu protection %lu dup %lu bad %lu\n",
           (unsigned long)s.drops_miss, (unsigned long)s.nacks_sent, (unsigned long)s.protection_errors,
           (unsigned long)s.dup_packets, (unsigned long)s.drops_bad);
}

int main(void)
{
    ih_boot();
    ih_serve_misses(build_line, FILL_DELAY);
    if (NCP_LOOKUP_STATIC) { /* registration preloads the full tables (STATIC_LOAD) */
        uint64_t base = ih_me == 0 ? VA_SRC : VA_DST;
        uint32_t vl = (uint32_t)(base >> 12) / (ncp_test_line_bytes(NIC_CACHE_VMH) / sizeof(struct nic_vmh_entry));
        build_line(NIC_CACHE_VMH, IH_PID, vl, ih_image);
        ih_install(NIC_CACHE_VMH, vl);
        build_line(NIC_CACHE_CBH, IH_PID, 0, ih_image);
        ih_install(NIC_CACHE_CBH, 0);
        build_line(NIC_CACHE_PCH, IH_PID, 0, ih_image);
        ih_install(NIC_CACHE_PCH, 0);
        /* the table is full once every way of the line's bucket holds another line: NO_RESOURCES */
        struct nic_cache_geom g[NIC_CACHE__COUNT];
        ncp_test_geom(g);
        uint32_t ways = g[NIC_CACHE_CBH].ways,
                 sets = (uint32_t)__builtin_ctz(g[NIC_CACHE_CBH].entries / (g[NIC_CACHE_CBH].line * ways));
        int32_t st = NIC_ST_OK;
        for (uint32_t k = 1; k <= ways && st == NIC_ST_OK; k++)
            st = ncp_test_static_load(NIC_CACHE_CBH, IH_PID, k << sets, ih_image);
        FWT_CHECK(st == NIC_ST_NO_RESOURCES, 53, "static table full");
        for (uint32_t k = 1; k < ways; k++)
            ncp_test_invalidate(NIC_CACHE_CBH, IH_PID, k << sets, 1);
    }
    if (ih_me == 0)
        initiator();
    else if (ih_me == 1)
        target();
    report_fast_path();
    return 0;
}
