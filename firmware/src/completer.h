/*
 * completer.h - the completer: verdicts on our packets, read responses: completer.c.
 */
#ifndef NCP_COMPLETER_H
#define NCP_COMPLETER_H

#include "conn.h"
#include "ncp.h"

/* The ACK/NACK fields of a frame from `peer` (every type carries a cumulative ACK). */
void cpl_on_ack_fields(uint16_t peer, const struct pkt_hdr *h);
/* cpl_on_ack_fields, with its common early exit inline: an ACK that acknowledges nothing new. */
/* An ACK frame with a SACK bitmap (selective repeat: docs/wire-protocol.md); never from a
 * go-back-N receiver, whose ACK frames carry 0 there. */
static inline int cpl_has_sack(const struct pkt_hdr *h)
{
    return h->type == PKT_ACK && h->off != 0;
}
static inline void cpl_on_frame_ack(uint16_t peer, const struct pkt_hdr *h)
{
    if (h->type == PKT_NACK || seq_lt(conn_peer(peer).x.una, h->ack) || cpl_has_sack(h))
        cpl_on_ack_fields(peer, h);
}
/* The packet a cookie names was acknowledged. */
void cpl_on_acked(ncp_cookie_t cookie);
/* A give-up dropped the packet a cookie names; `marks`: see resp_on_giveup. */
void cpl_on_giveup(ncp_cookie_t cookie, uint32_t *marks);
/* The host DMA of the payload of our packet `seq` to `peer` failed: its operation fails. */
void cpl_on_host_error(uint32_t peer, uint32_t seq);
/* A READ_RESP accepted by the transport: returns 1 when the RX buffer is owned by a DMA. */
int cpl_on_read_resp(uint16_t peer, const struct pkt_hdr *h, const uint8_t *payload, uint32_t ridx);
/* The data of the read response in RX entry ridx is in host memory (or failed: err). */
void cpl_read_data_done(uint32_t ridx, uint8_t err);

/* This module's counters into the statistics (ncp_counters_gather). */
void cpl_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_COMPLETER_H */
