/*
 * responder.h - the responder: remote writes, read requests, response streaming: responder.c.
 */
#ifndef NCP_RESPONDER_H
#define NCP_RESPONDER_H

#include "ncp.h"

/* A WRITE / READ_REQ from `peer` accepted by the transport (in order, new): returns 1 when the
 * frame's RX buffer is now owned by a DMA (rx_dma_done releases it). */
int rsp_on_write(uint16_t peer, const struct pkt_hdr *h, const uint8_t *payload, uint32_t ridx);
int rsp_on_read_req(uint16_t peer, const struct pkt_hdr *h); /* 0: owns no RX buffer */
/* A read request to serve: a response slot now, else the queue; 0 when both are full. */
int resp_start(uint16_t peer, uint16_t pid, uint32_t op, uint64_t va, uint32_t len);
uint32_t resp_alloc(uint16_t peer, uint16_t pid, uint32_t op, uint64_t va, uint32_t len);
/* Streams the segments of the responses with segments to send. */
void resp_poll(void);
/* Segment `seg` of the response a cookie names was acknowledged (or dropped by a give-up). */
void resp_acked(ncp_cookie_t cookie);
/* The response a cookie names fails with `status` (its segments go void carrying it), if it is
 * still that response and not failed already. */
void resp_fail(ncp_cookie_t cookie, int32_t status);
/* A give-up dropped the window with segment cookie in it: see responder.c. */
void resp_on_giveup(ncp_cookie_t cookie, uint32_t *marks);

#endif /* NCP_RESPONDER_H */
