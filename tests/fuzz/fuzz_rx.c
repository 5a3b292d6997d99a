/*
 * fuzz_rx.c - libFuzzer target: the receive path's frame handling, host-native (docs/fuzzing.md).
 *
 * The input is a script: a configuration (this node, the node count, the transport's timer
 * configuration), then steps. A step either delivers a frame to pkt_parse (firmware/lib/pkt.c)
 * and, when it is accepted, drives the transport (firmware/lib/xport.c) with it the way the
 * NCP's receive path does (firmware/src/recv.c: on_ack_fields, then xport_rx_classify and
 * xport_rx_accept for a sequenced packet), or acts as the local sender (push packets, timer
 * ticks with retransmission and give-up, resends), so frames meet windows in every state.
 *
 * Oracles (any violation aborts, and libFuzzer keeps the input as a crash reproducer):
 * - pkt_parse: a frame shorter than the header is PKT_E_SHORT; an accepted frame satisfies every
 *   documented rule (addressed to this node, a valid source, known type, length equal to the
 *   frame's and within the MTU, the per-type field rules of docs/wire-protocol.md); the header
 *   decodes identically to a byte-by-byte reference decoder and re-encodes to the same 48 bytes.
 *   The frame sits in a buffer of exactly its length, so AddressSanitizer sees any overread.
 * - transport, sender: una <= rexmit <= nxt and nxt - una <= XP_WIN at every step; an ACK
 *   acknowledges only packets in flight, in order, each cookie exactly once, starting at the old
 *   una; resends are of packets in flight with their own cookie; after a give-up nothing is in
 *   flight; every pushed packet ends acknowledged, failed by a give-up, or still in flight; a
 *   connection with packets in flight and no progress (a push into an empty window, an ACK that
 *   moved una) for xport_giveup_span() gives up at the next tick, whatever NACKs came.
 * - a frame from one source changes no other peer's connection state.
 * - transport, receiver: NEW only for the expected sequence number of a synced peer, DUP only
 *   before it, GAP only after it (or before the first sync); `expected` moves only by an accept
 *   (+1) or forward by a RESYNC; at most one gap NACK per expected value.
 * - miss table (firmware/lib/misstab.c, which the receive path fills when an accepted packet's
 *   translation misses, and the host's fills empty): against a model of its entries, every
 *   miss_add verdict (new, merged, re-posted after expiry, full only when full), the entry it
 *   returns, miss_resolve / miss_forget / miss_next_held / miss_outstanding.
 * - NCP_ASSERT never fires (ncp_on_assert aborts).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_abi.h"
#include "ncp_util.h"
#include "misstab.h"
#include "pkt.h"
#include "xport.h"

#ifndef FUZZ_MTU
#define FUZZ_MTU 4096u
#endif
#define PEERS 16u /* the model's peers (the NCP has NCP_MAX_PEERS): frames from a source beyond are dropped (rx.c) */

#define CHECK(c)                                                                          \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            fprintf(stderr, "fuzz_rx: invariant failed at line %d: %s\n", __LINE__, #c); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

void ncp_on_assert(unsigned module, unsigned id)
{
    fprintf(stderr, "fuzz_rx: NCP_ASSERT module %u id %u\n", module, id);
    abort();
}

/* ---- input reader ---- */
struct in {
    const uint8_t *p;
    size_t n;
};

static uint8_t rd8(struct in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static uint16_t rd16(struct in *in)
{
    uint16_t lo = rd8(in);
    return (uint16_t)(lo | rd8(in) << 8);
}

static uint32_t rd32(struct in *in)
{
    uint32_t lo = rd16(in);
    return lo | (uint32_t)rd16(in) << 16;
}

/* ---- model ---- */
struct mpeer {
    /* sender */
    uint32_t una, nxt;
    uint32_t progress_at; /* last progress: a push into an empty window, an ACK that moved una */
    xport_cookie_t cookie[XP_WIN];
    /* receiver */
    uint32_t nacked;
    int nack_valid;
};

static struct xport_peer xp[PEERS];
static struct mpeer mp[PEERS];
static struct xport_cfg cfg;
static uint32_t now, pushed, acked, failed;
static xport_cookie_t next_cookie;

/* ---- miss table and its model ---- */
#define MISS_N 8u
static struct miss_ent miss_store[MISS_N];
static struct misstab misses;
struct mmiss {
    int used, posted;
    uint8_t cache;
    uint16_t pid;
    uint32_t line, since;
};
static struct mmiss mm[MISS_N]; /* the model: at most MISS_N outstanding lines, any order */

static struct mmiss *mm_find(uint8_t cache, uint16_t pid, uint32_t line)
{
    for (unsigned i = 0; i < MISS_N; i++)
        if (mm[i].used && mm[i].cache == cache && mm[i].pid == pid && mm[i].line == line)
            return &mm[i];
    return NULL;
}

static unsigned mm_count(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < MISS_N; i++)
        n += (unsigned)mm[i].used;
    return n;
}

static void check_misses(void)
{
    CHECK(miss_outstanding(&misses) == mm_count());
    for (unsigned i = 0; i < MISS_N; i++) {
        const struct miss_ent *e = &miss_store[i];
        if (e->state == MISS_FREE)
            continue;
        const struct mmiss *m = mm_find(e->cache, e->pid, e->line);
        CHECK(m && m->posted == (e->state == MISS_POSTED)); /* every entry is one the model has */
    }
}

static void miss(uint8_t cache, uint16_t pid, uint32_t line, int post)
{
    struct miss_ent *e = NULL;
    struct mmiss *m = mm_find(cache, pid, line);
    enum miss_add_result r = miss_add(&misses, cache, pid, line, 0, 0, now, &e);

    switch (r) {
    case MISS_ADD_NEW:
        CHECK(e && e->cache == cache && e->pid == pid && e->line == line && e->state == MISS_HELD);
        if (m) {
            CHECK(m->posted && now - m->since >= misses.expire); /* re-posted only after expiry */
        } else {
            CHECK(mm_count() < MISS_N);
            for (m = mm; m->used; m++)
                ;
            m->used = 1;
            m->cache = cache;
            m->pid = pid;
            m->line = line;
            m->since = now;
        }
        m->posted = 0;
        break;
    case MISS_ADD_MERGED:
        CHECK(m && e && e->cache == cache && e->pid == pid && e->line == line);
        CHECK(!m->posted || now - m->since < misses.expire);
        break;
    case MISS_ADD_FULL:
        CHECK(!m && mm_count() == MISS_N && !e); /* full only when full, and never overwritten */
        break;
    default:
        CHECK(0);
    }
    if (post && r == MISS_ADD_NEW) {
        miss_posted(&misses, e, now);
        m->posted = 1;
        m->since = now;
    }
    check_misses();
}


static void check_peer(unsigned i)
{
    const struct xport_peer *x = &xp[i];
    const struct mpeer *m = &mp[i];

    CHECK(x->una == m->una && x->nxt == m->nxt);
    CHECK(x->nxt - x->una <= XP_WIN); /* una <= nxt, window bound */
    CHECK(x->rexmit - x->una <= x->nxt - x->una); /* una <= rexmit <= nxt */
}

static void check_all(void)
{
    uint32_t in_flight = 0;
    for (unsigned i = 0; i < PEERS; i++) {
        check_peer(i);
        in_flight += xp[i].nxt - xp[i].una;
    }
    CHECK(pushed == acked + failed + in_flight);
}

/* n packets newly acknowledged from `first`: in order, from the old una, each exactly once. */
static void on_acked(unsigned i, uint32_t old_una, uint32_t first, uint32_t n)
{
    struct mpeer *m = &mp[i];

    CHECK(n <= m->nxt - m->una);
    if (n) {
        CHECK(first == old_una);
        for (uint32_t k = 0; k < n; k++)
            CHECK(xport_cookie(&xp[i], first + k) == m->cookie[(first + k) & (XP_WIN - 1u)]);
    }
    m->una += n;
    acked += n;
    if (n)
        m->progress_at = now;
}

static void push(unsigned i, unsigned count)
{
    for (unsigned k = 0; k < count && xport_has_room(&xp[i]); k++) {
        if (mp[i].una == mp[i].nxt)
            mp[i].progress_at = now;
        uint32_t seq = xport_tx_push(&xp[i], &cfg, next_cookie, now);
        CHECK(seq == mp[i].nxt);
        mp[i].cookie[seq & (XP_WIN - 1u)] = next_cookie;
        next_cookie = (xport_cookie_t)(next_cookie * 0x9E3779B97F4A7C15ull + 1u); /* all bits vary, unique */
        mp[i].nxt++;
        pushed++;
    }
}

static void resend(unsigned i, unsigned max)
{
    uint32_t seq;
    xport_cookie_t ck;
    for (unsigned k = 0; k < max && xport_rexmit_next(&xp[i], &seq, &ck); k++) {
        CHECK(seq - mp[i].una < mp[i].nxt - mp[i].una); /* in flight */
        CHECK(ck == mp[i].cookie[seq & (XP_WIN - 1u)]);
    }
}

static void tick(unsigned i)
{
    /* the no-progress bound: whatever ACKs, NACKs and timeouts came, a connection with packets in
     * flight and no progress for xport_giveup_span() gives up at the next tick */
    int due = mp[i].una != mp[i].nxt && seq_le(mp[i].progress_at + xport_giveup_span(&cfg), now);
    enum xport_tick_action a = xport_tick(&xp[i], &cfg, now);
    if (due && a != XP_TICK_GIVEUP)
        fprintf(stderr, "fuzz_rx: peer %u: no progress since %u, now %u, span %u, deadline %u: not given up\n", i,
                mp[i].progress_at, now, xport_giveup_span(&cfg), xp[i].deadline);
    CHECK(!due || a == XP_TICK_GIVEUP);
    switch (a) {
    case XP_TICK_NONE:
        break;
    case XP_TICK_RETRANSMIT:
        CHECK(mp[i].una != mp[i].nxt);
        resend(i, XP_WIN);
        break;
    case XP_TICK_GIVEUP:
        CHECK(mp[i].una != mp[i].nxt);
        failed += mp[i].nxt - mp[i].una; /* the NCP fails every cookie in [una, nxt) */
        xport_giveup(&xp[i]);
        mp[i].una = mp[i].nxt;
        CHECK(xp[i].una == xp[i].nxt && xp[i].rexmit == xp[i].nxt);
        break;
    }
}

/* ---- pkt_parse oracle ---- */
static void ref_decode(const uint8_t *f, struct pkt_hdr *h)
{
    memset(h, 0, sizeof *h);
    h->dst = (uint16_t)(f[0] << 8 | f[1]);
    h->src = (uint16_t)(f[2] << 8 | f[3]);
    h->type = f[4];
    h->flags = f[5];
    h->len = (uint16_t)(f[6] | f[7] << 8);
#define LE32(o) ((uint32_t)f[o] | (uint32_t)f[(o) + 1] << 8 | (uint32_t)f[(o) + 2] << 16 | (uint32_t)f[(o) + 3] << 24)
    h->seq = LE32(8);
    h->ack = LE32(12);
    h->op = LE32(16);
    h->pid = (uint16_t)(f[20] | f[21] << 8);
    h->reason = (uint16_t)(f[22] | f[23] << 8);
    h->buf = LE32(24);
    h->key = LE32(28);
    h->token = LE32(32);
    h->status = (int32_t)LE32(44); /* word 11: xlen or status, both decoded */
    h->off = (uint64_t)LE32(36) | (uint64_t)LE32(40) << 32;
    h->xlen = LE32(44);
#undef LE32
}

static int same_hdr(const struct pkt_hdr *a, const struct pkt_hdr *b)
{
    return a->dst == b->dst && a->src == b->src && a->type == b->type && a->flags == b->flags &&
           a->len == b->len && a->seq == b->seq && a->ack == b->ack && a->op == b->op && a->pid == b->pid &&
           a->reason == b->reason && a->buf == b->buf && a->key == b->key && a->status == b->status &&
           a->off == b->off && a->xlen == b->xlen && a->token == b->token;
}

static void check_parsed(const uint8_t *f, uint32_t len, uint16_t me, uint16_t nodes, enum pkt_err e,
                         const struct pkt_hdr *h)
{
    CHECK((unsigned)e < PKT__ERRS);
    if (len < PKT_HDR_BYTES) {
        CHECK(e == PKT_E_SHORT);
        return;
    }
    CHECK(e != PKT_E_SHORT);
    struct pkt_hdr r;
    ref_decode(f, &r);
    CHECK(same_hdr(&r, h)); /* the word-wise decoder agrees with the byte-wise reference */
    static uint8_t re[PKT_HDR_BYTES] __attribute__((aligned(16)));
    pkt_encode(re, h);
    CHECK(memcmp(re, f, PKT_HDR_BYTES) == 0); /* the header is a bijection */
    if (e != PKT_OK)
        return;
    CHECK(h->dst == me && h->src != me && h->src < nodes);
    CHECK(h->type >= PKT_WRITE && h->type < PKT__TYPES);
    CHECK(h->len == len - PKT_HDR_BYTES && h->len <= FUZZ_MTU);
    int is_void = !!(h->flags & PKT_F_VOID);
    switch (h->type) {
    case PKT_WRITE:
        CHECK((h->len == 0) == is_void && h->buf <= PKT_MAX_BUF_ID && h->xlen < NIC_MAX_XFER);
        CHECK(h->off + h->len >= h->off); /* the segment's bytes do not wrap */
        break;
    case PKT_READ_REQ:
        CHECK(h->len == 0 && h->xlen >= 1 && h->xlen <= NIC_MAX_XFER && h->buf <= PKT_MAX_BUF_ID);
        CHECK(h->off + h->xlen >= h->off);
        break;
    case PKT_READ_RESP:
        CHECK((h->len == 0) == is_void && h->off < NIC_MAX_XFER);
        break;
    case PKT_ACK:
        CHECK(h->len == 0);
        break;
    case PKT_NACK:
        CHECK(h->len == 0 && h->reason >= PKT_NACK_GAP && h->reason < PKT__NACK_REASONS);
        break;
    default:
        CHECK(0);
    }
}

/* ---- the receive path on a parsed frame (recv.c's on_ack_fields and on_frame) ---- */
static void on_ack_fields(unsigned i, const struct pkt_hdr *h)
{
    struct xport_peer *x = &xp[i];
    uint32_t first = 0, n, old_una = x->una, old_nxt = x->nxt;

    if (h->type != PKT_NACK && !seq_lt(x->una, h->ack))
        return;
    if (h->type == PKT_NACK && h->reason == PKT_NACK_GAP)
        n = xport_on_nack_gap(x, &cfg, h->ack, now, &first);
    else
        n = xport_on_ack(x, &cfg, h->ack, now, &first);
    on_acked(i, old_una, first, n);
    CHECK(x->nxt == old_nxt); /* an ACK never changes what was sent */
    check_peer(i);
    if (h->type == PKT_NACK && h->reason == PKT_NACK_GAP && x->una != x->nxt && x->una == h->ack)
        CHECK(x->rexmit == x->una); /* resend from the gap at once */
    if (h->type != PKT_NACK)
        return;
    switch (h->reason) {
    case PKT_NACK_MISS:
        (void)xport_on_nack_retry(x, &cfg, h->seq, now, cfg.miss_hold ? cfg.miss_hold : cfg.nack_delay);
        break;
    case PKT_NACK_BUSY:
        (void)xport_on_nack_retry(x, &cfg, h->seq, now, cfg.nack_delay);
        break;
    case PKT_NACK_RESUME:
        if (xport_on_resume(x, &cfg, now))
            CHECK(x->rexmit == x->una && x->una != x->nxt);
        break;
    case PKT_NACK_PROTECTION:
    case PKT_NACK_MALFORMED: {
        int in_flight = h->seq - x->una < x->nxt - x->una;
        int r = xport_on_nack_refused(x, &cfg, h->seq, now);
        CHECK(r == in_flight); /* only a packet in flight can be refused */
        if (r)
            CHECK(x->rexmit - x->una <= h->seq - x->una); /* resend from the refused packet */
        break;
    }
    default:
        break;
    }
    CHECK(x->una == old_una + n && x->nxt == old_nxt);
}

static void frame_peer(unsigned i, const struct pkt_hdr *hp, struct xport_peer *x, struct mpeer *m, int refuse);

static void on_frame(const uint8_t *f, uint32_t len, uint16_t me, uint16_t nodes, int refuse)
{
    struct pkt_hdr h;
    memset(&h, 0xA5, sizeof h);
    enum pkt_err e = pkt_parse(f, len, me, nodes, FUZZ_MTU, &h);

    check_parsed(f, len, me, nodes, e, &h);
    if (e != PKT_OK || h.src >= PEERS)
        return;
    unsigned i = h.src;
    struct xport_peer *x = &xp[i];
    struct mpeer *m = &mp[i];
    static struct xport_peer before[PEERS];
    memcpy(before, xp, sizeof xp);
    frame_peer(i, &h, x, m, refuse);
    for (unsigned k = 0; k < PEERS; k++) /* a frame from one source changes no other connection */
        CHECK(k == i || memcmp(&before[k], &xp[k], sizeof xp[k]) == 0);
}

static void frame_peer(unsigned i, const struct pkt_hdr *hp, struct xport_peer *x, struct mpeer *m, int refuse)
{
    const struct pkt_hdr h = *hp;
    on_ack_fields(i, &h);
    check_all();
    if (!pkt_is_sequenced(h.type))
        return;
    uint32_t old_exp = x->expected;
    int old_synced = x->synced, nack = 0;
    enum xport_rx_verdict v = xport_rx_classify(x, h.seq, h.flags, &nack);
    if (x->expected != old_exp || x->synced != old_synced) {
        /* moved: only by a RESYNC, forward (or the first sync) */
        CHECK(h.flags & PKT_F_RESYNC);
        CHECK(!old_synced || seq_lt(old_exp, x->expected));
        CHECK(x->expected == h.seq);
        m->nack_valid = 0;
    }
    switch (v) {
    case XP_RX_NEW:
        CHECK(x->synced && h.seq == x->expected && !nack);
        if (refuse && h.type != PKT_READ_RESP) /* the target's translation missed (recv.c) */
            miss(h.type == PKT_WRITE ? 1 : 2, h.pid, (uint32_t)(h.off >> 12) & 15u, h.flags & PKT_F_LAST);
        if (!refuse) {
            xport_rx_accept(x);
            CHECK(x->expected == h.seq + 1u && x->ack_pending);
            m->nack_valid = 0;
        }
        break;
    case XP_RX_DUP: /* before expected, or exactly 2^31 away (unordered) */
        CHECK(x->synced && (seq_lt(h.seq, x->expected) || h.seq - x->expected == 0x80000000u) && !nack &&
              x->ack_pending);
        break;
    case XP_RX_GAP:
        CHECK(!x->synced || seq_lt(x->expected, h.seq));
        if (nack) {
            CHECK(x->synced);
            CHECK(!(m->nack_valid && m->nacked == x->expected)); /* one gap NACK per expected value */
            m->nack_valid = 1;
            m->nacked = x->expected;
        }
        break;
    default:
        CHECK(0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct in in = {data, size};
    uint16_t nodes = (uint16_t)(2u + rd8(&in) % 31u);
    uint16_t me = (uint16_t)(rd8(&in) % nodes);

    memset(&cfg, 0, sizeof cfg);
    cfg.rto = 1u + rd16(&in);
    cfg.nack_delay = rd8(&in);
    cfg.miss_hold = rd8(&in);
    cfg.backoff_max = rd8(&in) % 8u;
    cfg.max_retries = rd8(&in) % 8u;
    uint8_t j = rd8(&in);
    cfg.jitter_shift = j % 6u;
    int rx_known = j >> 7; /* the receivers start synchronised (when the transport can) */
    now = rd32(&in);
    next_cookie = 1;
    pushed = acked = failed = 0;
    memset(mp, 0, sizeof mp);
    for (unsigned i = 0; i < PEERS; i++) {
        uint32_t isn = (uint32_t)(i * 0x9E3779B9u) ^ now;
        xport_init(&xp[i], isn, rx_known ? (uint64_t)(isn ^ 0x5555u) : XP_ISN_UNKNOWN);
        mp[i].una = mp[i].nxt = isn;
    }
    miss_init(&misses, miss_store, MISS_N, 1u + rd16(&in));
    memset(mm, 0, sizeof mm);
    check_all();
    check_misses();

    while (in.n) {
        uint8_t op = rd8(&in);
        unsigned peer = (op >> 4) % PEERS;
        switch (op & 0x7u) {
        case 0: /* a frame: length, then that many bytes (fewer at the end of the input) */
        case 1: {
            uint32_t len = rd16(&in) % (PKT_HDR_BYTES + FUZZ_MTU + 64u);
            if (len > in.n)
                len = (uint32_t)in.n;
            uint8_t *f = malloc(len ? len : 1); /* exactly the frame: ASan sees an overread */
            if (!f)
                return 0;
            memcpy(f, in.p, len);
            in.p += len;
            in.n -= len;
            if ((op & 0x8u) && len >= PKT_HDR_BYTES) {
                /* steer into the state machine: addressed to us, length right, a known peer */
                uint16_t src = (uint16_t)(((f[2] << 8 | f[3]) % nodes));
                if (src == me)
                    src = (uint16_t)((src + 1u) % nodes);
                f[0] = (uint8_t)(me >> 8);
                f[1] = (uint8_t)me;
                f[2] = (uint8_t)(src >> 8);
                f[3] = (uint8_t)src;
                ncp_st16(f + 6, (uint16_t)(len - PKT_HDR_BYTES));
                /* acknowledge near the peer's window now and then */
                if (f[12] & 0x80u)
                    ncp_st32(f + 12, xp[src % PEERS].una + (f[13] % (XP_WIN + 2u)));
                if (f[8] & 0x80u)
                    ncp_st32(f + 8, xp[src % PEERS].expected + f[9] % 5u - 2u); /* dup, new, gap */
            }
            on_frame(f, len, me, nodes, op & 0x1u);
            free(f);
            break;
        }
        case 2: /* the local sender pushes packets */
            push(peer, 1u + rd8(&in) % XP_WIN);
            break;
        case 3: /* time passes, the timer runs */
            now += rd16(&in) * (1u + (op >> 7) * 64u);
            for (unsigned i = 0; i < PEERS; i++)
                tick(i);
            break;
        case 4: /* resends */
            resend(peer, 1u + rd8(&in) % XP_WIN);
            break;
        case 5: /* the timer of one peer, at its deadline (time never goes back) */
            if (xp[peer].una != xp[peer].nxt && seq_lt(now, xp[peer].deadline))
                now = xp[peer].deadline;
            tick(peer);
            break;
        case 7: { /* the miss table: a miss, the host's fill, a post of what is held, a forget */
            uint8_t k = rd8(&in), cache = (uint8_t)(1u + (k >> 2) % 2u);
            uint16_t pid = (uint16_t)(peer % 4u);
            uint32_t line = (k >> 3) & 15u;
            if ((k & 3u) == 0) {
                miss(cache, pid, line, (k >> 7) & 1u);
            } else if ((k & 3u) == 1) {
                struct mmiss *m = mm_find(cache, pid, line);
                CHECK(miss_resolve(&misses, cache, pid, line) == (m != NULL));
                if (m)
                    m->used = 0;
            } else if ((k & 3u) == 2) {
                struct miss_ent *e = miss_next_held(&misses);
                unsigned held = 0;
                for (unsigned i = 0; i < MISS_N; i++)
                    held += (unsigned)(mm[i].used && !mm[i].posted);
                CHECK((e != NULL) == (held != 0));
                if (e) {
                    struct mmiss *m = mm_find(e->cache, e->pid, e->line);
                    CHECK(m && !m->posted && e->state == MISS_HELD);
                    miss_posted(&misses, e, now);
                    m->posted = 1;
                    m->since = now;
                }
            } else {
                unsigned n = 0;
                for (unsigned i = 0; i < MISS_N; i++)
                    if (mm[i].used && mm[i].cache == cache && mm[i].pid == pid) {
                        mm[i].used = 0;
                        n++;
                    }
                CHECK(miss_forget(&misses, cache, pid) == n);
            }
            check_misses();
            break;
        }
        default: /* a frame built from few bytes: an ACK or NACK for one peer, near its window */
        {
            struct pkt_hdr h;
            memset(&h, 0, sizeof h);
            h.dst = me;
            h.src = (uint16_t)(peer % nodes == me ? (me + 1u) % nodes : peer % nodes);
            uint8_t k = rd8(&in);
            h.type = (k & 1u) ? PKT_NACK : PKT_ACK;
            h.reason = (uint16_t)(1u + (k >> 1) % (PKT__NACK_REASONS - 1u));
            h.ack = xp[h.src % PEERS].una + rd8(&in) % (XP_WIN + 2u);
            h.seq = xp[h.src % PEERS].una + rd8(&in) % (XP_WIN + 2u);
            uint8_t *f = malloc(PKT_HDR_BYTES);
            if (!f)
                return 0;
            pkt_encode(f, &h);
            on_frame(f, PKT_HDR_BYTES, me, nodes, 0);
            free(f);
            break;
        }
        }
        check_all();
    }
    return 0;
}
