/*
 * cmd.c - host commands (driver -> NCP) and the event ring (NCP -> driver), per
 * docs/host-interface.md.
 *
 * Command state machine (one command at a time, answered in ring order):
 *   CMD_IDLE       take the next command if cmd_ci != cmd_pi
 *   CMD_WAIT_DMA   FILL / STATIC_LOAD line image coming in, STATS going out
 *   CMD_WAIT_DRAIN INVALIDATE / EP_CLOSE: wait until every DMA posted before it completed (EP_CLOSE:
 *                  after its FLUSHED completions were posted; then OK, or BUSY while packets the
 *                  endpoint sent are still in a window: the driver asks again)
 *   CMD_ANSWER     the CMD_DONE event waits for room in the event ring
 */
#include <string.h>

#include "cmd.h"
#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "epc.h"
#include "evq.h"
#include "ncp.h"
#include "ops.h"
#include "requester.h"
#include "rx.h"
#include "xlate.h"

/* This module's counters (gathered by cmd_counters for STATS). */
static struct {
    uint32_t close_busy;
    uint32_t doorbell_bad;
    uint32_t events_held;
} cmd_cnt;

enum cmd_state { CMD_IDLE, CMD_WAIT_DMA, CMD_WAIT_DRAIN, CMD_ANSWER };
static const char *const cmd_state_name[] __attribute__((unused)) = {"IDLE", "WAIT_DMA", "WAIT_DRAIN", "ANSWER"};

struct ncp_queues {
    uint8_t harness[256]; /* test images get their arguments here (tests/fw/fwtest.h) */
    struct nic_info info;
    struct nic_cmd cmd[NCP_CMD_N];
};

static struct ncp_queues q __attribute__((section(".queues"), aligned(64)));
static uint8_t cmd_image[1024] __attribute__((aligned(16)));  /* FILL / STATIC_LOAD line image */
static struct nic_stats cmd_stats_buf __attribute__((aligned(16)));
static struct ncp_counters cmd_counters_buf; /* gathered with them, not reported */
uint8_t stage[NCP_STAGE_N][32] __attribute__((aligned(16)));
uint32_t stage_ticket[NCP_STAGE_N];

/* The event ring in host memory (INIT) and the staging slots' allocation count. */
static struct {
    uint64_t pa;
    uint32_t log2, n, ci;
} evr;
uint32_t stage_next;

static struct {
    uint8_t state;
    struct nic_cmd cur;
    int32_t status;
    uint32_t ticket;
    uint8_t armed; /* EP_CLOSE: ticket taken (after its FLUSHED completions were posted) */
    uint32_t ci, pi;
} cs;

_Static_assert(sizeof cmd_image >= 64u * sizeof(struct nic_vmh_entry), "line image buffer");
_Static_assert(sizeof(struct lkc_way) == sizeof(struct nic_usage_way) && LKC_KEY_VALID == NIC_USAGE_VALID &&
                   __builtin_offsetof(struct lkc_way, stamp) == __builtin_offsetof(struct nic_usage_way, stamp) &&
                   __builtin_offsetof(struct lkc_way, line) == __builtin_offsetof(struct nic_usage_way, line),
               "NIC_CMD_USAGE sends struct lkc_way as struct nic_usage_way");

void cmd_init(void)
{
    struct nic_info *i = &q.info;

    memset(&q.info, 0, sizeof q.info);
    memset(q.cmd, 0, sizeof q.cmd);
    i->magic = NIC_INFO_MAGIC;
    i->abi_version = NIC_ABI_VERSION;
    i->fw_version = NCP_VERSION;
    i->caps = (NCP_LOOKUP_STATIC ? 0u : NIC_CAP_DYNAMIC_LOOKUP) | (NCP_NACK ? NIC_CAP_NACK : 0u) | NIC_CAP_USAGE_COUNTS |
              NIC_CAP_INLINE;
    i->mtu = NCP_MTU;
    i->max_procs = NCP_EPS;
    if (epc_table) { /* ABI 2.2: host endpoints max_procs..max_eps-1 (epc.c, when linked) */
        i->max_eps = NCP_EP_IDS;
        i->ep_slots = NCP_EPC_N;
    }
    i->sq_entries = NCP_SQ_N;
    i->cmd_entries = NCP_CMD_N;
    i->max_peers = NCP_MAX_PEERS;
    i->peer_slots = NCP_PEER_SLOTS; /* ABI 2.2: the rest of the peers' contexts in host memory */
    i->peer_ctx_bytes = NCP_PEER_CTX;
    i->cmd_ring = HAL_SRAM_OFF(q.cmd);
    i->sq_base = NIC_SRAM_SENDQ_OFFSET;
    i->sq_stride = NIC_SENDQ_STRIDE;
    xlate_geom(i->cache);
    i->lookup_bytes = xlate_lookup_bytes();
    hal_publish_info(HAL_SRAM_OFF(i), NCP_VERSION);
    NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_IDLE);
}

void ev_ring_set(uint64_t pa, uint32_t log2)
{
    evr.pa = pa;
    evr.log2 = log2;
    evr.n = evr.ci = 0;
}

uint32_t ev_produced(void)
{
    return evr.n;
}

int stage_free(uint32_t n)
{
    /* slots are taken in order with growing tickets: the n-th next one free means all of them */
    uint32_t k = stage_next + n - 1u;
    return k < NCP_STAGE_N || dmaq_passed(stage_ticket[k % NCP_STAGE_N]);
}

void *stage_slot(void)
{
    return stage_slot_inline();
}

#if NCP_TEST_HOOKS
NCP_TEST_HOOK int ncp_test_on_event(const struct nic_event *ev)
{
    (void)ev;
    return 0;
}
#endif

static int ev_post_lines(uint8_t type, uint8_t cache, uint8_t path, uint16_t pid, uint16_t epoch, uint32_t key,
                         int32_t status, uint32_t a, uint32_t lines);

int ev_post(uint8_t type, uint8_t cache, uint8_t path, uint16_t pid, uint16_t epoch, uint32_t key, int32_t status,
            uint32_t a)
{
    return ev_post_lines(type, cache, path, pid, epoch, key, status, a, 0);
}

int ev_post_miss(uint8_t cache, uint8_t path, uint16_t pid, uint16_t epoch, uint32_t line, uint32_t lines)
{
    return ev_post_lines(NIC_EV_MISS, cache, path, pid, epoch, line, 0, 0, lines > 1u ? lines : 0u);
}

static int ev_post_lines(uint8_t type, uint8_t cache, uint8_t path, uint16_t pid, uint16_t epoch, uint32_t key,
                         int32_t status, uint32_t a, uint32_t lines)
{
    uint32_t size = 1u << evr.log2;
    struct nic_event *e;

    if (!ncp.inited || evr.n - evr.ci >= size || !dmaq_room(1) || !(e = stage_slot())) {
        ncp_sat_inc(&cmd_cnt.events_held);
        return 0;
    }
    memset(e, 0, sizeof *e);
    e->type = type;
    e->cache = cache;
    e->path = path;
    e->phase = (uint8_t)(((evr.n >> evr.log2) & 1u) ^ 1u);
    e->pid = pid;
    e->epoch = epoch;
    e->key = key;
    e->status = status;
    e->a = a;
    e->lines = lines;
    uint64_t pa = evr.pa + (uint64_t)(evr.n & (size - 1u)) * sizeof *e;
    evr.n++;
    if (ncp_test_on_event(e)) {
        return 1;
    }
    dmaq_post(HAL_SRAM_OFF(e), pa, sizeof *e, 1, DK_EVENT,
              type == NIC_EV_MISS ? NIC_HOSTIF_IRQ_RAISE_MISS_MASK : NIC_HOSTIF_IRQ_RAISE_CMPL_MASK, 0);
    return 1;
}

void cmd_on_doorbell(uint32_t off, uint32_t data)
{
    if (off == NIC_DB_CMD_PI) {
        if (data - cs.ci > NCP_CMD_N) { /* more than the ring holds: a driver bug, not trusted */
            ncp_sat_inc(&cmd_cnt.doorbell_bad);
            return;
        }
        cs.pi = data;
        ncp_work.cmd = 1; /* cmd_poll takes it */
    } else if (off == NIC_DB_EV_CI) {
        if (seq_le(data, evr.n) && seq_le(evr.ci, data))
            evr.ci = data;
        else
            ncp_sat_inc(&cmd_cnt.doorbell_bad);
    } else {
        ncp_sat_inc(&cmd_cnt.doorbell_bad);
        ncp_work.db_fifo = 1; /* from the doorbell FIFO, which may have dropped others (epc.c) */
    }
}

/* The endpoint being closed (0: none) and every peer's next sequence number at its EP_CLOSE. */
static uint16_t close_ep;
static uint32_t close_nxt[NCP_MAX_PEERS];
static uint32_t close_res[NCP_PEER_WORDS]; /* the peers resident at the close (the others were quiet) */

/* Every packet sent before the close left its window: acknowledged, or dropped by a give-up. */
static int close_quiet(void)
{
    struct ncp_ep *ep = &ep_tab[close_ep];

    for (uint32_t p = 0; p < NCP_MAX_PEERS; p++)
        if ((close_res[p / 32u] >> (p % 32u) & 1u) && conn_resident((uint16_t)p) &&
            seq_lt(conn_peer(p).x.una, close_nxt[p])) { /* (evicted since: quiet, una reached it) */
            ncp_sat_inc(&cmd_cnt.close_busy);
            return 0;
        }
    ep->closing = 0;
    close_ep = 0;
    return 1;
}

static void cmd_answer(int32_t status)
{
    cs.status = status;
    NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_ANSWER);
}

static void cmd_start(const struct nic_cmd *c)
{
    uint64_t ab = (uint64_t)c->b << 32 | c->a;

    if (ncp.shutdown) {
        cmd_answer(NIC_ST_BAD_CMD);
        return;
    }
    switch (c->op) {
    case NIC_CMD_NOP:
        cmd_answer(NIC_ST_OK);
        break;
    case NIC_CMD_INIT:
        if (c->c < 2 || c->c > 16 || (c->d & 0xFFFFu) != ncp.me || (c->d >> 16) == 0 ||
            (c->d >> 16) > NCP_MAX_PEERS || !xlate_set_prefetch(c->ep) ||
            (c->cache & ~(uint32_t)(NIC_XOPT_FLOW | NIC_XOPT_CONGESTION | NIC_XOPT_SR))) {
            cmd_answer(NIC_ST_BAD_CMD);
            break;
        }
        ev_ring_set(ab, c->c);
        ncp_set_nodes((uint16_t)(c->d >> 16));
        /* the fabric secret (64 bits in key, pid, epoch: nic_abi.h NIC_CMD_INIT) keys every
         * connection's ISN and token (docs/wire-protocol.md "Threat model") */
        ncp_secure((const uint32_t[4]){c->key, (uint32_t)c->pid | (uint32_t)c->epoch << 16, 0x4E435021u, 0u});
        /* transport options (nic_abi.h NIC_XOPT_*: the same bits as CC_OPT_*) */
        cc_setup(c->cache & (NIC_XOPT_FLOW | NIC_XOPT_CONGESTION));
        conn_set_sr(c->cache & NIC_XOPT_SR); /* selective repeat or go-back-N */
        ncp.inited = 1;
        cmd_answer(NIC_ST_OK);
        break;
    case NIC_CMD_EP_OPEN: {
        if (c->ep >= NCP_EPS) { /* a host endpoint: its context is in the driver's table (epc.c) */
            cmd_answer(!epc_open || (c->d && !evq_owned(c->d, c->pid)) ? NIC_ST_BAD_CMD : epc_open(c->ep));
            break;
        }
        if (c->ep == 0 || c->ep >= NCP_EPS || ep_tab[c->ep].state != EP_CLOSED || ep_tab[c->ep].closing ||
            c->c < 1 || c->c > 16 || (c->d && !evq_owned(c->d, c->pid))) {
            cmd_answer(NIC_ST_BAD_CMD);
            break;
        }
        ep_open((uint8_t)c->ep, c->pid, ab, c->c);
        ep_tab[c->ep].eq = (uint8_t)c->d; /* ABI 2.1: its completions are reported there too */
        cmd_answer(NIC_ST_OK);
        break;
    }
    case NIC_CMD_EP_CLOSE: {
        int32_t e = c->ep < NCP_EPS ? (int32_t)c->ep : epc_close ? epc_close(c->ep) : -1; /* host: its cache slot */
        struct ncp_ep *ep = e > 0 ? &ep_tab[e] : NULL;
        if (c->ep >= NCP_EPS && e <= 0) {
            cmd_answer(e == 0 ? NIC_ST_OK : e == -2 ? NIC_ST_BUSY : NIC_ST_BAD_CMD);
            break;
        }
        if (!ep || (ep->state == EP_CLOSED && !ep->closing)) {
            cmd_answer(NIC_ST_BAD_CMD);
            break;
        }
        if (!ep->closing) {
            if (close_ep) { /* another endpoint is draining: this one keeps running, asks again */
                cmd_answer(NIC_ST_BUSY);
                break;
            }
            /* Closed now: the send path takes no more entries and sends no new packet for it;
             * every request not retired completes FLUSHED (in order). What it already sent is in
             * the peers' windows: the close is answered OK only when all of that is acknowledged
             * (landed: an ACK follows the data into host memory) or dropped by a give-up, so
             * nothing of it lands after the answer (resends of flushed operations carry no data). */
            NCP_SET_STATE(ep, ep_state_name, "ep", e, EP_CLOSED);
            ops_flush_ep((uint8_t)e);
            close_ep = (uint16_t)e;
            memset(close_res, 0, sizeof close_res);
            for (uint32_t p = 0; p < NCP_MAX_PEERS; p++) {
                close_nxt[p] = conn_peer(p).x.nxt;
                if (conn_resident((uint16_t)p))
                    close_res[p / 32u] |= 1u << (p % 32u);
            }
        }
        cs.armed = 0;
        NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_WAIT_DRAIN);
        break;
    }
    case NIC_CMD_FILL:
    case NIC_CMD_STATIC_LOAD:
        if (c->cache >= NIC_CACHE__COUNT || (c->op == NIC_CMD_FILL) == NCP_LOOKUP_STATIC ||
            xlate_line_bytes(c->cache) > sizeof cmd_image || !dmaq_room(1)) {
            cmd_answer(dmaq_room(1) ? NIC_ST_BAD_CMD : NIC_ST_NO_RESOURCES);
            break;
        }
        dmaq_post(HAL_SRAM_OFF(cmd_image), ab, xlate_line_bytes(c->cache), 0, DK_CMD, 0, 0);
        NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_WAIT_DMA);
        break;
    case NIC_CMD_PEER_TABLE: /* ABI 2.2: a page of the host table of peer contexts */
        cmd_answer(conn_set_page(c->c, ab, c->d));
        break;
    case NIC_CMD_INVALIDATE:
        if (c->cache >= NIC_CACHE__COUNT) {
            cmd_answer(NIC_ST_BAD_CMD);
            break;
        }
        xlate_invalidate(c->cache, c->pid, c->key, c->c);
        cs.ticket = dmaq_barrier_ticket(); /* no DMA using the old translation is still queued */
        NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_WAIT_DRAIN);
        break;
    case NIC_CMD_USAGE: { /* the ways as they are (ABI 2.1): LRU stamps for the driver's victim choice;
                           * d = NIC_USAGE_COUNTS (ABI 2.3): their access counts (LFU) */
        const struct lkc *k = c->cache < NIC_CACHE__COUNT && !(c->d & ~NIC_USAGE_COUNTS) ? &ncp_cache[c->cache] : NULL;
        uint32_t rec = c->d ? sizeof(uint32_t) : sizeof(struct lkc_way);
        uint32_t n = k ? rec << (k->cfg->sets_log2 + k->cfg->ways_log2) : 0;
        if (!k || c->c < rec || !dmaq_room(1)) {
            cmd_answer(k && c->c >= rec ? NIC_ST_NO_RESOURCES : NIC_ST_BAD_CMD);
            break;
        }
        uint32_t len = n < (c->c & ~(rec - 1u)) ? n : c->c & ~(rec - 1u);
        xlate_vmemo_flush(); /* the memos' pending hits into the counts */
        dmaq_post(HAL_SRAM_OFF(c->d ? (const void *)k->uses : (const void *)k->ways), ab, len < 65536u ? len : 65536u,
                  1, DK_CMD, 0, 0);
        NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_WAIT_DMA);
        break;
    }
    case NIC_CMD_STATS:
        if (!dmaq_room(1)) {
            cmd_answer(NIC_ST_NO_RESOURCES);
            break;
        }
        ncp_counters_gather(&cmd_stats_buf, &cmd_counters_buf);
        dmaq_post(HAL_SRAM_OFF(&cmd_stats_buf), ab, sizeof cmd_stats_buf, 1, DK_CMD, 0, 0);
        NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_WAIT_DMA);
        break;
    case NIC_CMD_EQ_OPEN:
    case NIC_CMD_EQ_ARM:
    case NIC_CMD_EQ_POST:
        cmd_answer(evq_cmd(c));
        break;
    case NIC_CMD_EQ_CLOSE: {
        int32_t st = evq_cmd(c);
        if (st != NIC_ST_OK) {
            cmd_answer(st);
            break;
        }
        cs.ticket = dmaq_barrier_ticket(); /* its entries already queued land before the answer */
        NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_WAIT_DRAIN);
        break;
    }
    case NIC_CMD_EP_TABLE: /* ABI 2.2: a page of the host endpoints' context table (epc.c) */
        cmd_answer(epc_table ? epc_table(c->key, ab) : NIC_ST_BAD_CMD);
        break;
    case NIC_CMD_SHUTDOWN:
        ncp.shutdown = 1;
        cmd_answer(NIC_ST_OK);
        break;
    default:
        cmd_answer(NIC_ST_BAD_CMD);
        break;
    }
}

void cmd_dma_done(uint8_t err)
{
    const struct nic_cmd *c = &cs.cur;

    NCP_ASSERT(NCP_MOD_CMD, 1, cs.state == CMD_WAIT_DMA);
    if (err) {
        cmd_answer(NIC_ST_HOST_ERROR);
    } else if (c->op == NIC_CMD_FILL) {
        /* a prefill (NIC_FILL_CURRENT) installs at the line's current epoch: see nic_abi.h */
        uint16_t epoch = (c->c & NIC_FILL_CURRENT) ? lkc_epoch(&ncp_cache[c->cache], c->pid) : c->epoch;
        cmd_answer(xlate_fill(c->cache, c->pid, c->key, epoch, cmd_image));
    } else if (c->op == NIC_CMD_STATIC_LOAD) {
        cmd_answer(xlate_static_load(c->cache, c->pid, c->key, cmd_image));

    } else {
        cmd_answer(NIC_ST_OK);
    }
}

static void cmd_step(void)
{
    for (uint32_t budget = 0; budget < 4; budget++) {
        switch (cs.state) {
        case CMD_IDLE:
            if (cs.ci == cs.pi)
                return;
            memcpy(&cs.cur, (const void *)&q.cmd[cs.ci % NCP_CMD_N], sizeof cs.cur);
            cs.ci++;
            cmd_start(&cs.cur);
            break;
        case CMD_WAIT_DMA:
            return;
        case CMD_WAIT_DRAIN:
            if (cs.cur.op == NIC_CMD_EP_CLOSE && !cs.armed) {
                if (!ops_ep_retired((uint8_t)close_ep)) /* (a host endpoint's: its cache slot) */
                    return; /* FLUSHED completions wait for staging slots: ops_poll posts them */
                cs.ticket = dmaq_barrier_ticket(); /* they, and every receive DMA, land first */
                cs.armed = 1;
            }
            if (!dmaq_passed(cs.ticket))
                return;
            if (cs.cur.op == NIC_CMD_EP_CLOSE)
                cmd_answer(close_quiet() ? NIC_ST_OK : NIC_ST_BUSY);
            else
                cmd_answer(NIC_ST_OK);
            break;
        case CMD_ANSWER:
            if (!ev_post(NIC_EV_CMD_DONE, 0, 0, 0, 0, 0, cs.status, cs.cur.seq))
                return;
            NCP_SET_STATE(&cs, cmd_state_name, "cmd", cs.ci, CMD_IDLE);
            if (cs.cur.op == NIC_CMD_SHUTDOWN)
                hal_fw_state(NIC_HOSTIF_FW_STATE_STATE_SHUTDOWN);
            break;
        }
    }
}

void cmd_poll(void)
{
    rx_loop_retry(); /* a fill just answered: the held loopback frame before the next command (rx.c) */
    cmd_step();
    ncp_work.cmd = cs.state != CMD_IDLE || cs.ci != cs.pi; /* polled again while a command is open */
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void cmd_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)k;
    ncp_sat_add(&s->close_busy, cmd_cnt.close_busy);
    ncp_sat_add(&s->doorbell_bad, cmd_cnt.doorbell_bad);
    ncp_sat_add(&s->events_held, cmd_cnt.events_held);
}
