/*
 * segment.h - the packet builder for every sequenced packet we send: segment.c.
 */
#ifndef NCP_SEGMENT_H
#define NCP_SEGMENT_H

#include "ncp.h"

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
/* Retransmissions of the peers with packets in flight (go-back-N cursor). */
void seg_resend_poll(void);

/* This module's counters into the statistics (ncp_counters_gather). */
void seg_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_SEGMENT_H */
