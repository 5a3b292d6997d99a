/*
 * responder.h - the responder: remote writes, read requests, response streaming: responder.c.
 */
#ifndef NCP_RESPONDER_H
#define NCP_RESPONDER_H

#include "ncp.h"

/* The response slots (owned by responder.c; the builder reads a response's fields to build its
 * segments). */
extern struct ncp_resp resp_tab[NCP_RESP];

/*
 * The protection rule of a remote access: [off, off + len) of buffer `e` (its PCH and CBH entries
 * found) by `pid` with `key` for `right`. NIC_ST_OK or the violation the initiator is told. The
 * general path (check_cbh) and the receive fast path (rx_fast) both decide with it.
 */
static inline __attribute__((always_inline)) int32_t rsp_access_check(const struct nic_cbh_entry *e, uint32_t pid,
                                                                      uint32_t key, uint32_t right, uint64_t off,
                                                                      uint32_t len)
{
    if (e->owner_pid != pid)
        return NIC_ST_BAD_HANDLE;
    if (e->key != key)
        return NIC_ST_KEY;
    if (!(e->flags & right))
        return NIC_ST_RIGHTS;
    uint64_t blen = (uint64_t)e->len_hi << 32 | e->len_lo;
    if (off > blen || len > blen - off)
        return NIC_ST_BOUNDS;
    return NIC_ST_OK;
}

/* A WRITE / READ_REQ from `peer` accepted by the transport (in order, new): returns 1 when the
 * frame's RX buffer is now owned by a DMA (rx_dma_done releases it). */
int rsp_on_write(uint16_t peer, const struct pkt_hdr *h, const uint8_t *payload, uint32_t ridx);
int rsp_on_read_req(uint16_t peer, const struct pkt_hdr *h); /* 0: owns no RX buffer */
/* Boot: every response slot FREE, no request queued. */
void resp_init(void);
/* The generation response ids start from (conn.c). */
void resp_seed(uint32_t gen);
/* The generation of the last response id: it advances by one per response started. */
uint32_t resp_generation(void);
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

/* This module's counters into the statistics (ncp_counters_gather). */
void rsp_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_RESPONDER_H */
