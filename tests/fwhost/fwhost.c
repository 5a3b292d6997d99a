/*
 * fwhost.c - the driver's, the processes' and the peers' parts for the host-native NCP tests
 * (fwhost.h). Only the HAL boundary (fake_hal.h), nic_abi.h and the wire format (pkt.h) are used.
 */
#include "fwhost.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "nic_memmap.h"
#include "nic_regs.h"
#include "xport.h"

void ncp_boot(void); /* the NCP's entry points (firmware/src) */

struct fwh fwh;

/* ---- the driver's tables ---- */
#define MAX_VMH 4096u
#define MAX_CBH 64u
#define MAX_PCH 16u
static struct {
    uint16_t pid;
    uint32_t vpn, ppn, flags;
} vmh[MAX_VMH];
static uint32_t n_vmh;
static struct {
    uint16_t pid;
    uint32_t buf;
    struct nic_cbh_entry e;
} cbh[MAX_CBH];
static uint32_t n_cbh;
static struct {
    uint16_t pid, ep;
} pch[MAX_PCH];
static uint32_t n_pch;

/* The connection secrets as every node derives them from the fabric secret INIT gives
 * (docs/wire-protocol.md "Threat model"; nic_abi.h NIC_CMD_INIT): per direction src -> dst one
 * PRF(secret, CONN, src, dst), its ISN the low word, its token the high word. */
enum { PRF_CONN = 4 };
static uint64_t prf(uint32_t purpose, uint32_t a, uint32_t b)
{
    return xport_prf(fwh.secret, (uint64_t)purpose << 48 | (uint64_t)(a & 0xFFFFu) << 16 | (b & 0xFFFFu));
}

static void drain_events(uint32_t *n);
static uint8_t *host(uint64_t pa, uint32_t len);
static int booted;

/* After a test, into the trace: the NCP's statistics (when it still answers STATS). */
static void trace_final(void)
{
    struct nic_cmd c = {.op = NIC_CMD_STATS, .a = FWH_STATS_PA};
    struct nic_stats s;
    int32_t st = 1;

    if (!booted || fh_fw_state() != 1)
        return; /* not running (stopped, shut down) */
    fwh.hold_events = 0;
    uint32_t seq = fwh_cmd_post(&c);
    fwh_run();
    if (!fwh_cmd_answered(seq, &st) || st != NIC_ST_OK)
        return;
    memcpy(&s, host(FWH_STATS_PA, sizeof s), sizeof s);
    const uint32_t *w = (const uint32_t *)(const void *)&s;
    for (size_t i = 0; i < sizeof s / 4; i++)
        fh_trace_note("stats[%zu] %u", i, (unsigned)w[i]);
}

int fwh_run_tests(const char *group, const struct CMUnitTest *tests, size_t n)
{
    int failed = 0;

    for (size_t i = 0; i < n; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return (int)n;
        }
        if (pid == 0) {
            const char *t = getenv("FWHOST_TRACE"); /* the differential test's trace (diff_paths.py) */
            FILE *f = t ? fopen(t, "a") : NULL;
            if (f) {
                fh_trace(f);
                fh_trace_note("== %s %s", group, tests[i].name);
            }
            int rc = _cmocka_run_group_tests(group, &tests[i], 1, NULL, NULL);
            if (f && !rc)
                trace_final();
            exit(rc ? 1 : 0); /* exit, not _exit: the gcov data are written */
        }
        int st = 0;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "%s: %s FAILED\n", group, tests[i].name);
            failed++;
        }
    }
    printf("%s: %zu tests, %d failed\n", group, n, failed);
    return failed;
}

uint16_t fwh_boot_prefetch;
uint8_t fwh_boot_xopts;

void fwh_boot(uint16_t me, uint16_t nodes, uint64_t secret)
{
    struct nic_cmd c = {.op = NIC_CMD_INIT};

    assert_false(booted++); /* one boot per process: fwh_run_tests */
    memset(&fwh, 0, sizeof fwh);
    n_vmh = n_cbh = n_pch = 0;
    fwh.me = me;
    fwh.nodes = nodes;
    fwh.auto_fill = 1;
    fwh.ev_log2 = FWH_EV_LOG2;
    fwh.next_pa = FWH_DATA_PA;
    for (unsigned i = 0; i < 256; i++)
        fwh.cmd_status[i] = 1;
    fh_reset(me);
    ncp_boot();
    assert_int_equal(fh_fw_state(), 1); /* ready */
    memcpy(&fwh.info, fh_sram(fh_info_off()), sizeof fwh.info);
    assert_int_equal(fwh.info.magic, NIC_INFO_MAGIC);
    assert_int_equal(fwh.info.abi_version, NIC_ABI_VERSION);
    assert_int_equal(fwh.info.sq_base, NIC_SRAM_SENDQ_OFFSET);
    fwh.secret[0] = (uint32_t)secret;
    fwh.secret[1] = (uint32_t)(secret >> 32);
    fwh.secret[2] = 0x4E435021u;
    fwh.secret[3] = 0;
    for (uint16_t p = 0; p < nodes && p < 16; p++) {
        uint64_t in = prf(PRF_CONN, p, me), out = prf(PRF_CONN, me, p);
        fwh.peer[p].tx_seq = (uint32_t)in;
        fwh.peer[p].rx_next = (uint32_t)out;
        fwh.peer[p].tok_in = (uint32_t)(in >> 32);
        fwh.peer[p].tok_out = (uint32_t)(out >> 32);
    }
    c.a = FWH_EV_PA;
    c.b = 0;
    c.c = FWH_EV_LOG2;
    c.d = (uint32_t)me | (uint32_t)nodes << 16;
    c.key = (uint32_t)secret;
    c.pid = (uint16_t)(secret >> 32);
    c.epoch = (uint16_t)(secret >> 48);
    c.ep = fwh_boot_prefetch;
    c.cache = fwh_boot_xopts;
    assert_int_equal(fwh_cmd(&c), NIC_ST_OK);
}

/* ---- events ---- */
static uint8_t *host(uint64_t pa, uint32_t len)
{
    return fh_host(pa, len);
}

static void drain_events(uint32_t *n)
{
    uint32_t size = 1u << fwh.ev_log2;

    *n = 0;
    while (!fwh.hold_events) {
        struct nic_event e;
        memcpy(&e, host(FWH_EV_PA + (fwh.ev_ci & (size - 1u)) * sizeof e, sizeof e), sizeof e);
        if ((e.phase & 1u) != (((fwh.ev_ci >> fwh.ev_log2) & 1u) ^ 1u))
            break;
        fwh.ev_ci++;
        (*n)++;
        fh_trace_note("event type %u cache %u path %u pid %u epoch %u key %u status %d a %u", e.type, e.cache, e.path,
                      e.pid, e.epoch, (unsigned)e.key, (int)e.status, (unsigned)e.a);
        if (e.type == NIC_EV_CMD_DONE) {
            assert_true(fwh.cmd_status[e.a % 256] == 1); /* answered once */
            fwh.cmd_status[e.a % 256] = e.status;
            fwh.answered++;
            if (fwh.n_done < 64)
                fwh.done_order[fwh.n_done++] = e.a;
        } else if (e.type == NIC_EV_MISS) {
            fwh.misses++;
            fwh.last_miss = e;
            for (uint32_t k = 0; fwh.auto_fill && k < (e.lines > 1 ? e.lines : 1u); k++) {
                uint32_t key = (e.key + k) * fwh.info.cache[e.cache].line; /* the line's first entry */
                struct nic_cmd c;
                fwh_fill_cmd(&c, e.cache, e.pid, key);
                fwh_cmd_post(&c);
            }
        } else if (e.type == NIC_EV_EQ && e.a < NIC_SENDQ_SLOTS) {
            fwh.eq_events[e.a]++; /* an armed event queue got an entry (the driver wakes its process) */
        } else {
            fail_msg("unexpected event type %u", e.type);
        }
    }
    if (*n)
        fh_doorbell(0, NIC_DB_EV_CI, fwh.ev_ci);
}

void fwh_run(void)
{
    uint32_t n;

    for (unsigned i = 0; i < 1000; i++) {
        fh_run();
        drain_events(&n);
        if (!n)
            return;
    }
    fail_msg("the driver and the NCP never went quiet");
}

/* ---- commands ---- */
uint32_t fwh_cmd_post(struct nic_cmd *c)
{
    uint32_t seq = fwh.cmd_pi, slot = seq % fwh.info.cmd_entries;

    assert_true(fwh.cmd_pi - fwh.answered < fwh.info.cmd_entries); /* as the driver: a free slot */
    c->seq = seq;
    fwh.cmd_status[seq % 256] = 1;
    memcpy(fh_sram(fwh.info.cmd_ring + slot * (uint32_t)sizeof *c), c, sizeof *c);
    fwh.cmd_pi++;
    fh_doorbell(0, NIC_DB_CMD_PI, fwh.cmd_pi);
    return seq;
}

int fwh_cmd_answered(uint32_t seq, int32_t *status)
{
    if (fwh.cmd_status[seq % 256] == 1)
        return 0;
    *status = fwh.cmd_status[seq % 256];
    return 1;
}

int32_t fwh_cmd(struct nic_cmd *c)
{
    int32_t st = 1;
    uint32_t seq = fwh_cmd_post(c);

    fwh_run();
    if (!fwh_cmd_answered(seq, &st))
        fail_msg("command %u (op %u) not answered", (unsigned)seq, c->op);
    return st;
}

void fwh_ep_open(uint16_t ep, uint16_t pid)
{
    struct nic_cmd c = {.op = NIC_CMD_EP_OPEN, .ep = ep, .pid = pid, .a = FWH_CQ_PA + ep * 0x1000u, .c = FWH_CQ_LOG2};
    assert_int_equal(fwh_cmd(&c), NIC_ST_OK);
    fwh.cq_ci[ep] = 0;
    fwh.sq_pi[ep] = 0;
}

void fwh_stats(struct nic_stats *s)
{
    struct nic_cmd c = {.op = NIC_CMD_STATS, .a = FWH_STATS_PA};
    memset(host(FWH_STATS_PA, sizeof *s), 0xA5, sizeof *s);
    assert_int_equal(fwh_cmd(&c), NIC_ST_OK);
    memcpy(s, host(FWH_STATS_PA, sizeof *s), sizeof *s);
}

/* ---- tables and fills ---- */
uint64_t fwh_map(uint16_t pid, uint64_t va, uint32_t len, uint32_t rights)
{
    uint64_t first = va >> 12, last = (va + len - 1) >> 12, pa0 = fwh.next_pa;

    for (uint64_t v = first; v <= last; v++) {
        assert_true(n_vmh < MAX_VMH && fwh.next_pa + 4096 <= FH_HOST_MEM);
        vmh[n_vmh].pid = pid;
        vmh[n_vmh].vpn = (uint32_t)v;
        vmh[n_vmh].ppn = (uint32_t)(fwh.next_pa >> 12);
        vmh[n_vmh].flags = NIC_ENTRY_VALID | rights;
        n_vmh++;
        fwh.next_pa += 4096;
    }
    return pa0 + (va & 0xFFFu);
}

uint64_t fwh_pa(uint16_t pid, uint64_t va)
{
    for (uint32_t i = 0; i < n_vmh; i++)
        if (vmh[i].pid == pid && vmh[i].vpn == va >> 12)
            return (uint64_t)vmh[i].ppn << 12 | (va & 0xFFFu);
    fail_msg("va %#llx of pid %u not mapped", (unsigned long long)va, pid);
    return 0;
}

void fwh_reg_buf(uint16_t pid, uint32_t buf, uint64_t va, uint64_t len, uint32_t key, uint32_t rights)
{
    assert_true(n_cbh < MAX_CBH);
    cbh[n_cbh].pid = pid;
    cbh[n_cbh].buf = buf;
    cbh[n_cbh].e = (struct nic_cbh_entry){.flags = NIC_ENTRY_VALID | rights,
                                          .key = key,
                                          .va_lo = (uint32_t)va,
                                          .va_hi = (uint32_t)(va >> 32),
                                          .len_lo = (uint32_t)len,
                                          .len_hi = (uint32_t)(len >> 32),
                                          .owner_pid = pid};
    n_cbh++;
}

void fwh_unreg_buf(uint16_t pid, uint32_t buf)
{
    for (uint32_t i = 0; i < n_cbh; i++)
        if (cbh[i].pid == pid && cbh[i].buf == buf)
            cbh[i] = cbh[--n_cbh];
}

void fwh_unmap(uint16_t pid, uint64_t va, uint32_t len)
{
    for (uint32_t i = 0; i < n_vmh;)
        if (vmh[i].pid == pid && vmh[i].vpn >= va >> 12 && vmh[i].vpn <= (va + len - 1) >> 12)
            vmh[i] = vmh[--n_vmh];
        else
            i++;
}

void fwh_reg_proc(uint16_t pid, uint16_t ep)
{
    assert_true(n_pch < MAX_PCH);
    pch[n_pch].pid = pid;
    pch[n_pch].ep = ep;
    n_pch++;
}

/* The line image of `key`'s line, from the tables, at `pa`. */
static void build_image(uint8_t cache, uint16_t pid, uint32_t line, uint64_t pa)
{
    uint32_t l = fwh.info.cache[cache].line;

    if (cache == NIC_CACHE_VMH) {
        struct nic_vmh_entry *img = (struct nic_vmh_entry *)(void *)host(pa, l * 8u);
        memset(img, 0, l * sizeof *img);
        for (uint32_t i = 0; i < n_vmh; i++)
            if (vmh[i].pid == pid && vmh[i].vpn / l == line)
                img[vmh[i].vpn % l] = (struct nic_vmh_entry){vmh[i].ppn, vmh[i].flags};
    } else if (cache == NIC_CACHE_CBH) {
        struct nic_cbh_entry *img = (struct nic_cbh_entry *)(void *)host(pa, l * 32u);
        memset(img, 0, l * sizeof *img);
        for (uint32_t i = 0; i < n_cbh; i++)
            if (cbh[i].pid == pid && cbh[i].buf / l == line)
                img[cbh[i].buf % l] = cbh[i].e;
    } else {
        struct nic_pch_entry *img = (struct nic_pch_entry *)(void *)host(pa, l * 8u);
        memset(img, 0, l * sizeof *img);
        for (uint32_t i = 0; i < n_pch; i++)
            if (pch[i].pid / l == line)
                img[pch[i].pid % l] = (struct nic_pch_entry){.flags = NIC_ENTRY_VALID, .ep = pch[i].ep};
    }
}

void fwh_fill_cmd(struct nic_cmd *c, uint8_t cache, uint16_t pid, uint32_t key)
{
    uint32_t line = key / fwh.info.cache[cache].line;
    uint64_t pa = FWH_IMG_PA + (uint64_t)(fwh.cmd_pi % 32u) * 0x1000u; /* free once its command is taken */

    build_image(cache, pid, line, pa);
    *c = (struct nic_cmd){.op = NIC_CMD_FILL, .cache = cache, .pid = pid, .key = line, .a = (uint32_t)pa,
                          .c = NIC_FILL_CURRENT};
}

int32_t fwh_fill(uint8_t cache, uint16_t pid, uint32_t key)
{
    struct nic_cmd c;
    fwh_fill_cmd(&c, cache, pid, key);
    return fwh_cmd(&c);
}

void fwh_prefill(uint16_t pid)
{
    assert_int_equal(fwh_fill(NIC_CACHE_PCH, pid, pid), NIC_ST_OK);
    for (uint32_t i = 0; i < n_cbh; i++)
        if (cbh[i].pid == pid)
            assert_int_equal(fwh_fill(NIC_CACHE_CBH, pid, cbh[i].buf), NIC_ST_OK);
    for (uint32_t i = 0; i < n_vmh; i++)
        if (vmh[i].pid == pid)
            assert_int_equal(fwh_fill(NIC_CACHE_VMH, pid, vmh[i].vpn), NIC_ST_OK);
}

/* ---- processes ---- */
uint32_t fwh_post_entry(uint16_t ep, const struct nic_sq_entry *e)
{
    uint32_t slot = fwh.sq_pi[ep] % fwh.info.sq_entries, w[16];

    memcpy(w, e, sizeof w);
    for (uint32_t i = 0; i < 16; i++)
        fh_doorbell(ep, slot * 64u + 4u * i, w[i]);
    return ++fwh.sq_pi[ep];
}

void fwh_post(uint16_t ep, const struct nic_sq_entry *e)
{
    uint32_t slot = fwh.sq_pi[ep] % fwh.info.sq_entries, w[16];

    memcpy(w, e, sizeof w);
    for (uint32_t i = 0; i < 16; i++) /* as the library: through the doorbell page */
        fh_doorbell(ep, slot * 64u + 4u * i, w[i]);
    fwh.sq_pi[ep]++;
    fh_doorbell(ep, NIC_DB_SQ_PI, fwh.sq_pi[ep]);
}

int fwh_cqe(uint16_t ep, struct nic_cqe *c)
{
    uint32_t ci = fwh.cq_ci[ep];

    memcpy(c, host(FWH_CQ_PA + ep * 0x1000u + (ci & ((1u << FWH_CQ_LOG2) - 1u)) * sizeof *c, sizeof *c), sizeof *c);
    if ((c->phase & 1u) != (((ci >> FWH_CQ_LOG2) & 1u) ^ 1u))
        return 0;
    fwh.cq_ci[ep]++;
    fh_trace_note("cqe ep %u wr_id %#x%08x status %d bytes %u op %u sq_ci %u req %u", ep, (unsigned)c->wr_id_hi,
                  (unsigned)c->wr_id_lo, (int)c->status, (unsigned)c->bytes, c->op, c->sq_ci, (unsigned)c->req);
    return 1;
}

struct nic_sq_entry fwh_write_wr(uint16_t rnode, uint64_t laddr, uint32_t lbuf, uint32_t len, uint16_t rpid,
                                 uint32_t rbuf, uint64_t roff, uint32_t rkey, uint64_t wr_id)
{
    return (struct nic_sq_entry){.op = NIC_OP_RDMA_WRITE,
                                 .flags = NIC_WR_SIGNALED,
                                 .rnode = rnode,
                                 .len = len,
                                 .laddr_lo = (uint32_t)laddr,
                                 .laddr_hi = (uint32_t)(laddr >> 32),
                                 .rbuf = rbuf,
                                 .rpid = rpid,
                                 .roff_lo = (uint32_t)roff,
                                 .roff_hi = (uint32_t)(roff >> 32),
                                 .rkey = rkey,
                                 .wr_id_lo = (uint32_t)wr_id,
                                 .wr_id_hi = (uint32_t)(wr_id >> 32),
                                 .lbuf = lbuf};
}

/* ---- peers ---- */
void fwh_send_raw(const void *frame, uint32_t len)
{
    assert_true(fh_inject(frame, len));
}

void fwh_send(uint16_t src, struct pkt_hdr *h, const void *payload)
{
    static uint8_t f[PKT_HDR_BYTES + 16384] __attribute__((aligned(16)));

    h->dst = fwh.me;
    h->src = src;
    h->token = fwh.peer[src].tok_in;
    pkt_encode(f, h);
    if (h->len && payload)
        memcpy(f + PKT_HDR_BYTES, payload, h->len);
    fwh_send_raw(f, PKT_HDR_BYTES + h->len);
}

void fwh_send_seq(uint16_t src, struct pkt_hdr *h, const void *payload)
{
    h->seq = fwh.peer[src].tx_seq++;
    h->ack = fwh.peer[src].rx_next;
    fwh_send(src, h, payload);
}

void fwh_ack(uint16_t src)
{
    struct pkt_hdr h = {.type = PKT_ACK, .ack = fwh.peer[src].rx_next};
    fwh_send(src, &h, NULL);
}

uint32_t fwh_tx_pending(void)
{
    return fh_tx_count() - fwh.tx_seen;
}

int fwh_tx_next(struct pkt_hdr *h, const uint8_t **payload)
{
    if (fwh.tx_seen == fh_tx_count())
        return 0;
    const struct fh_frame *f = fh_tx(fwh.tx_seen++);
    assert_true(f->len >= PKT_HDR_BYTES);
    pkt_decode(f->data, h);
    assert_int_equal(h->src, fwh.me);
    assert_true(h->dst < fwh.nodes && h->dst != fwh.me);
    assert_int_equal(h->len, f->len - PKT_HDR_BYTES);
    assert_int_equal(h->token, fwh.peer[h->dst].tok_out); /* the connection's token, as every node derives it */
    if (pkt_is_sequenced(h->type) && h->seq == fwh.peer[h->dst].rx_next)
        fwh.peer[h->dst].rx_next++;
    if (payload)
        *payload = f->data + PKT_HDR_BYTES;
    return 1;
}

/* ---- memory ---- */
static uint8_t pat(uint32_t i, uint32_t seed)
{
    uint32_t x = (i + 1u) * 2654435761u ^ seed * 40503u;
    return (uint8_t)(x >> 13 ^ x);
}

void fwh_fill_pattern(uint64_t pa, uint32_t len, uint32_t seed)
{
    uint8_t *p = host(pa, len);
    for (uint32_t i = 0; i < len; i++)
        p[i] = pat(i, seed);
}

int fwh_check_pattern(uint64_t pa, uint32_t len, uint32_t seed)
{
    const uint8_t *p = host(pa, len);
    for (uint32_t i = 0; i < len; i++)
        if (p[i] != pat(i, seed))
            return 0;
    return 1;
}
