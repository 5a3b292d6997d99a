/*
 * conn.h - connections: secrets, ISNs, tokens, the ACKs we owe: conn.c.
 */
#ifndef NCP_CONN_H
#define NCP_CONN_H

#include "ncp.h"

/*
 * The connections, one per peer (owned by conn.c; every role reads its peer's). A peer's context is
 * resident in one of NCP_PEER_SLOTS slots of NIC SRAM, or in the driver's host table (docs/firmware.md
 * "Peer contexts"): conn_pp[p] is the resident context, &conn_none when it is not. conn_peer(p)
 * is for the paths that hold a resident peer: a frame from it was accepted (rx.c takes it with
 * conn_get), it has packets in flight, resends, an ACK owed or receive DMAs pending (such a peer is
 * never evicted), or conn_get returned it in this pass. Anything else asks conn_get.
 */
#define NCP_PEER_CTX 512u /* bytes per context in the host table (nic_info.peer_ctx_bytes) */
extern struct ncp_peer *conn_pp[NCP_MAX_PEERS];
#define conn_peer(p) (*conn_pp[p])
/* What conn_pp points to for a peer not resident: a context no frame matches (never synced), so
 * that rx.c's fast path, which reads its source's context before anything else, falls back to the
 * general path (on_frame: conn_get) without a test of its own. */
extern struct ncp_peer conn_none;
static inline int conn_resident(uint16_t p)
{
    return conn_pp[p] != &conn_none;
}
/* The peer's context, resident from now on for this pass; NULL while it is being filled from host
 * memory (a fill starts: the caller drops a frame from the peer, or retries a send later). */
struct ncp_peer *conn_get_slow(uint16_t p);
static inline struct ncp_peer *conn_get(uint16_t p)
{
    struct ncp_peer *pp = conn_pp[p];
    return __builtin_expect(pp != &conn_none, 1) ? pp : conn_get_slow(p);
}
extern uint8_t conn_backed; /* the host table is complete: victims may be evicted */
/* A page of the host table of contexts (NIC_CMD_PEER_TABLE): page `idx` at host PA `pa`; `slots`:
 * the resident contexts to use (0: NCP_PEER_SLOTS). Returns a NIC_ST_* status. */
int32_t conn_set_page(uint32_t idx, uint64_t pa, uint32_t slots);
/* DMA continuation of a fill or write-back (dmaq.c, DK_PEER): a = slot, b = the victim written back
 * (0xFFFF: a fill). */
void conn_dma_done(uint32_t slot, uint16_t victim, uint8_t err);
/* Peer contexts' counters (nic_stats.peer_*, in that order; peerctx.c, rx.c counts the drops). */
struct peer_stats {
    uint32_t fills, evictions, writebacks, fill_drops, no_victim;
};
extern struct peer_stats peer_st;

/* Connection ISNs and tokens from the fabric secret (boot and INIT: resets every connection). */
void ncp_secure(const uint32_t k[4]);
/* ACK frames to the peers that owe one and whose data is in host memory. */
void conn_flush_acks(void);
/* Selective repeat (1) or go-back-N (0) on every connection: INIT option NIC_XOPT_SR. */
void conn_set_sr(int on);
/* The transport's timer source (timer.h): timeouts and give-ups. */
int conn_timer(uint32_t now, uint32_t *at);
/* How long a read's responder may show no progress before the read fails (ops.c). */
uint32_t ncp_read_timeout(void);

/* This module's counters into the statistics (ncp_counters_gather). */
void conn_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_CONN_H */
