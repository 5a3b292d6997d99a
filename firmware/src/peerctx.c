/*
 * peerctx.c - the peers' connection contexts (docs/firmware.md "Peer contexts"), cached the way the
 * seed caches its handles: NCP_PEER_SLOTS of them resident in NIC SRAM, the rest in a table in host
 * memory the driver allocates at INIT (NIC_CMD_PEER_TABLE, NCP_PEER_CTX bytes per peer, NIC-private),
 * moved by DMA on a miss. A context is derived from the fabric secret the first time its peer is
 * needed (not at boot for every peer). Off the per-packet path: compiled for size.
 *
 * Slot states: FREE; LIVE (conn_pp[owner] points at it); WB (a quiet victim's context is being
 * written back; the slot's owner is already the peer waiting for it); FILL (the owner's context is
 * on its way from host memory). A peer mapped to a slot that is not LIVE is busy: frames from it
 * are dropped (its sender resends), sends to it wait (the endpoint parks, woken by the fill); a
 * victim's host copy is stale while it is written back, so nothing fills it meanwhile. Victims: a
 * free slot first, else the next LIVE slot from the clock hand whose owner is quiet (conn_quiet):
 * eviction never loses transport state. None quiet: nothing is evicted, counted (peer_no_victim),
 * the frame dropped or the send retried. Without the host table only free slots are used.
 */
#include <string.h>

#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "ncp.h"
#include "ops.h"
#include "responder.h"

/*
 * Connection secrets (docs/wire-protocol.md "Threat model"): from the 128-bit key `k` (the fabric
 * secret INIT gives every honest node; zero at boot), per ordered pair (a -> b) an initial
 * sequence number and a token, PRF(k, purpose | a | b); both ends compute both directions, so the
 * receiver starts synchronised at the sender's ISN and checks the sender's token on every frame.
 * The generations of operation and response ids start at random values too.
 */
enum { PRF_GEN = 3, PRF_CONN = 4 }; /* (1 and 2 were the ISN and the token apart: one PRF each) */
static uint32_t secret[4]; /* the connection secrets' key (INIT: the fabric secret) */
static uint8_t conn_sr;    /* selective repeat on every connection (INIT option) */
static uint64_t prf(uint32_t purpose, uint32_t a, uint32_t b)
{
    return xport_prf(secret, (uint64_t)purpose << 48 | (uint64_t)(a & 0xFFFFu) << 16 | (b & 0xFFFFu));
}

_Static_assert(sizeof(struct ncp_peer) <= NCP_PEER_CTX && NCP_PAGE % NCP_PEER_CTX == 0, "peer context size");
_Static_assert(NCP_PEER_SLOTS <= 255, "slot numbers are 8-bit");
#define PER_PAGE (NCP_PAGE / NCP_PEER_CTX)
#define PEER_DIR ((NCP_MAX_PEERS + PER_PAGE - 1u) / PER_PAGE)
enum { SL_FREE, SL_LIVE, SL_WB, SL_FILL };
#define NO_SLOT 0xFFu
#define NO_VICTIM 0xFFFFu

struct ncp_peer *conn_pp[NCP_MAX_PEERS];
struct ncp_peer conn_none; /* (zero: never synced, una == nxt, nothing pending) */
static struct ncp_peer conn_slot[NCP_PEER_SLOTS] __attribute__((aligned(16)));
static uint16_t slot_owner[NCP_PEER_SLOTS]; /* the peer whose context the slot holds (or is for) */
static uint8_t slot_state[NCP_PEER_SLOTS];
static uint32_t slot_at[NCP_PEER_SLOTS], slot_mark[NCP_PEER_SLOTS]; /* when it became resident, and how far */
static uint8_t peer_slot[NCP_MAX_PEERS];     /* the slot a peer maps to, NO_SLOT: host memory (or none) */
static uint32_t created[NCP_PEER_WORDS];     /* the peer's context exists (derived before) */
static uint8_t nslots = NCP_PEER_SLOTS, hand;
uint8_t conn_backed; /* the host table is complete: victims may be evicted */
static uint64_t peer_dir[PEER_DIR];          /* host PAs of the table's pages (NIC_CMD_PEER_TABLE) */
static uint32_t peer_pages;                  /* of them known */
struct peer_stats peer_st;

/* A context's DMA: slot s to (a write-back of victim p) or from the host table entry of peer p. */
static void ctx_dma(uint32_t s, uint32_t p, uint32_t victim)
{
    struct dma_req *r = &dmaq.q[dmaq.head++ % NCP_DMAQ_N]; /* (dmaq_post's queued way: not inlined) */

    *r = (struct dma_req){.sram = HAL_SRAM_OFF(&conn_slot[s]), .host = peer_dir[p / PER_PAGE] + (p % PER_PAGE) * NCP_PEER_CTX,
                          .len = sizeof conn_slot[s], .to_host = victim != NO_VICTIM, .kind = DK_PEER, .a = s,
                          .b = (uint16_t)victim};
    dmaq_pump();
}

/* Slot s holds its owner's context from now on: resident, protected from eviction for PEER_HOLD
 * unless it makes progress (the frame whose drop filled it comes again only at its sender's next
 * timeout: evicted again meanwhile, by a busy node's other peers, it would never get in). */
#define PEER_HOLD (NCP_RTO * 40u) /* the longest timeout (rto << backoff_max) with its jitter */
static struct ncp_peer *live(uint32_t s)
{
    struct ncp_peer *pp = &conn_slot[s];

    slot_state[s] = SL_LIVE;
    slot_at[s] = ncp.now;
    slot_mark[s] = pp->x.expected + pp->x.nxt;
    ncp_work.parked_wake = 1; /* endpoints that waited for a peer's context */
    conn_pp[slot_owner[s]] = pp;
    cc_out_sync(slot_owner[s]); /* resident: its outstanding grant counts again (congestion.c) */
    return pp;
}

/* Slot s is its owner's from now on: derived now if never created (returned), else filled (NULL). */
static struct ncp_peer *take(uint32_t s)
{
    uint16_t p = slot_owner[s], me = ncp.me;
    uint32_t *w = &created[p / 32u], b = 1u << (p % 32u);
    struct ncp_peer *pp = &conn_slot[s];

    if (*w & b) {
        slot_state[s] = SL_FILL;
        ctx_dma(s, p, NO_VICTIM);
        return NULL;
    }
    *w |= b;
    /* one PRF per direction: its ISN in the low word, its token in the high word (a SipHash costs
     * the core ~480 cycles: 12 senders' first packets at once kept node 0 deriving for longer
     * than their timeout, and their resends overran its ring under flow control) */
    uint64_t rx = prf(PRF_CONN, p, me), tx = prf(PRF_CONN, me, p);
    uint32_t rx_isn = (uint32_t)rx, tx_isn = (uint32_t)tx;
    xport_init(&pp->x, tx_isn, rx_isn);
    pp->x.sr = conn_sr;
    pp->x.hold_probe = p == me; /* loopback: xport.h */
    /* With flow control, until the first ACK the timeout is twice the usual (as TCP's initial RTO
     * is conservative): a first packet may find the receiver creating this connection's state,
     * and a receiver that N senders reach at once derives N contexts (~2,600 cycles each) before
     * the last of them is acknowledged. 14 senders starting together took 37,000 cycles, close
     * to one timeout (40,000): each resent its first packet, and those duplicates, which credits
     * do not count (one ring entry per sequence number), overran the receiver's ring. The
     * first ACK sets it back (xport_on_ack). */
    if (cc_opts & CC_OPT_FC)
        pp->x.backoff = 1;
    pp->ack_val = rx_isn;
    pp->tx_token = (uint32_t)(tx >> 32);
    pp->rx_token = (uint32_t)(rx >> 32);
    pp->w_nodes = pkt_w_nodes(p, me);
    pp->rx_dma_pending = 0;
    pp->rx_err = 0;
    cc_peer_start(p, tx_isn, rx_isn);
    return live(s);
}

/* Slot s's peer may leave NIC SRAM: nothing of its connection runs without a frame from it (nothing
 * in flight, so no timer and no resend; no ACK owed; no receive DMA whose completion names it), and
 * it is past its hold. Its context holds all of its state (written back whole, filled back whole):
 * nothing is lost, and whatever comes from the peer later fills it again first. (Left in peer_tx or
 * peer_rexmit with nothing in flight, conn_timer and seg_resend_poll find conn_none idle and drop it
 * from the set; peer_ack is checked: conn_flush_acks would answer for it.) */
static int evictable(uint32_t s)
{
    uint16_t p = slot_owner[s];
    const struct ncp_peer *pp = conn_pp[p];

    return slot_state[s] == SL_LIVE && pp->x.una == pp->x.nxt && !pp->x.ack_pending && !pp->rx_dma_pending &&
           !(ncp_work.peer_ack[p / 32u] >> (p % 32u) & 1u) &&
           (pp->x.expected + pp->x.nxt != slot_mark[s] || ncp.now - slot_at[s] > PEER_HOLD);
}

struct ncp_peer *conn_get_slow(uint16_t p)
{
    uint32_t s, n = nslots, i;

    if (peer_slot[p] != NO_SLOT || !dmaq_room(1))
        return NULL; /* its slot is being written back or filled (LIVE: conn_pp[p] is set) */
    for (s = 0; s < n && slot_state[s] != SL_FREE; s++)
        ;
    if (s == n) { /* no free slot: a quiet victim from the clock hand on */
        for (i = 0, s = hand; i < n; i++, s = s + 1u < n ? s + 1u : 0u)
            if (conn_backed && evictable(s))
                break;
        if (i == n) {
            ncp_sat_inc(&peer_st.no_victim);
            return NULL;
        }
        hand = (uint8_t)(s + 1u < n ? s + 1u : 0u);
        ncp_sat_inc(&peer_st.evictions);
        uint16_t v = slot_owner[s];
        conn_pp[v] = &conn_none; /* it maps to the slot until written back: its frames wait too */
        cc_out_sync(v);          /* (quiet: its grant no longer counts, congestion.c) */
        slot_state[s] = SL_WB;
        ctx_dma(s, v, v);
    }
    slot_owner[s] = p;
    peer_slot[p] = (uint8_t)s;
    return slot_state[s] == SL_WB ? NULL : take(s);
}

void conn_dma_done(uint32_t s, uint16_t victim, uint8_t err)
{
    if (err || (victim != NO_VICTIM && !dmaq_room(1))) { /* (no room for the fill: as a failure) */
        peer_slot[slot_owner[s]] = NO_SLOT; /* the peer asks again */
        slot_state[s] = SL_FREE;
        if (victim != NO_VICTIM) { /* the host copy may be torn: the victim stays */
            slot_owner[s] = victim;
            slot_state[s] = SL_LIVE;
            conn_pp[victim] = &conn_slot[s];
            cc_out_sync(victim); /* resident again: its grant counts (congestion.c) */
        }
        ncp_work.parked_wake = 1; /* a parked send asks again (a frame's sender resends anyway) */
    } else if (victim != NO_VICTIM) {
        ncp_sat_inc(&peer_st.writebacks);
        peer_slot[victim] = NO_SLOT;
        take(s); /* derived, or filled next */
    } else {
        ncp_sat_inc(&peer_st.fills);
        live(s);
    }
}

int32_t conn_set_page(uint32_t idx, uint64_t pa, uint32_t slots)
{
    uint32_t need = (ncp.nodes + PER_PAGE - 1u) / PER_PAGE;

    if (idx >= need || !pa || pa % NCP_PAGE || peer_dir[idx] || slots > NCP_PEER_SLOTS)
        return NIC_ST_BAD_CMD;
    peer_dir[idx] = pa;
    if (slots) /* fewer resident contexts (a test setting; those beyond stay as they are) */
        nslots = (uint8_t)slots;
    conn_backed = ++peer_pages == need; /* victims only once every page is known */
    return NIC_ST_OK;
}

/* Resets every connection: boot and INIT (before any traffic). Contexts are created on demand. */
void ncp_secure(const uint32_t k[4])
{
    uint16_t me = ncp.me;

    memcpy(secret, k, sizeof secret);
    ncp.w_loop = pkt_w_nodes(me, me); /* tx.c: a frame to ourselves goes to rx.c's loopback */
    memset(slot_state, SL_FREE, sizeof slot_state);
    memset(peer_slot, NO_SLOT, sizeof peer_slot);
    memset(created, 0, sizeof created);
    memset(peer_dir, 0, sizeof peer_dir);
    for (uint32_t p = 0; p < NCP_MAX_PEERS; p++)
        conn_pp[p] = &conn_none;
    peer_pages = hand = conn_backed = conn_sr = 0;
    nslots = NCP_PEER_SLOTS;
    /* a different start per boot when the secret differs (the host's entropy): an op id of an
     * earlier incarnation of this node is unlikely to name a live op */
    ops_seed((uint32_t)prf(PRF_GEN, me, 0));
    resp_seed((uint32_t)prf(PRF_GEN, me, 1));
}

/* Selective repeat on every connection, or go-back-N (INIT option NIC_XOPT_SR; after ncp_secure: no
 * connection exists yet, each takes it when created). */
void conn_set_sr(int on)
{
    conn_sr = (uint8_t)(on != 0);
}
