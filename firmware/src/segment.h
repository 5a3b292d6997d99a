/*
 * segment.h - the packet builder for every sequenced packet we send: segment.c.
 */
#ifndef NCP_SEGMENT_H
#define NCP_SEGMENT_H

#include "dmaq.h"
#include "ncp.h"
#include "tx.h"

enum build_result { B_SENT, B_WAIT, B_DENIED };

/*
 * Builds and queues one sequenced packet for `cookie` to `peer`. New packets (retrans == 0) get
 * the next sequence number; retransmissions reuse `seq`. B_WAIT when a translation missed or a
 * frame/DMA slot is not free (nothing changed), B_DENIED when the local memory may not be used
 * (the caller fails the operation).
 */
enum build_result seg_build(uint16_t peer, ncp_cookie_t cookie, int retrans, uint32_t seq);
/* A new packet: the fast path, else seg_build. */
enum build_result seg_send_new(uint16_t peer, ncp_cookie_t cookie);
/* A frame, MAC queue room and DMA queue room for a new packet now (finished frames collected
 * first): without them seg_send_new returns B_WAIT having changed nothing. For a loop of sends to
 * ask before the call, which costs a failing one its saved registers and both builders' checks
 * (issue 12: half a failing call per packet on a read stream's responder). */
static inline int seg_room(void)
{
    if (!txs.free)
        tx_collect();
    return txs.free && tx_room() && dmaq_room(NCP_SEG_PIECES);
}
/* Retransmissions of the peers with packets in flight (go-back-N cursor). */
void seg_resend_poll(void);

/* This module's counters into the statistics (ncp_counters_gather). */
void seg_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_SEGMENT_H */
