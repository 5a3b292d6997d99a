/*
 * rx.h - receive dispatch and placement into host memory: rx.c.
 */
#ifndef NCP_RX_H
#define NCP_RX_H

#include "ncp.h"
#include "dmaq.h"
#include "tx.h"
#include "xlate.h"

/* Per RX entry: what its completion needs (owned by rx.c; the roles fill it for their DMA). */
struct rx_meta {
    uint32_t op, len, seq;
    uint32_t cyc; /* fast-path cycles of the packet's handling up to its DMA queued */
};
/* Loopback buffers (docs/wire-protocol.md "Loopback"): RX entries RX_N .. RX_N + NCP_LOOP_N - 1. */
#define NCP_LOOP_N (NCP_TX_N + NCP_CTL_N) /* one per TX frame: a loopback frame never waits for an entry */
extern struct rx_meta rx_meta[(1u << NCP_RX_LOG2) + NCP_LOOP_N];

void rx_init(void);
void rx_poll(void);
/* A frame to this node itself (tx.c: TX frame `id`), handled in place by the next rx_poll as a
 * received frame whose source must be this node; the frame is given back with tx_loop_release
 * once handled (its data in host memory). 0 when every loopback entry is taken. */
int rx_loop_push(const uint8_t *frame, uint32_t len, uint32_t id);
void rx_dma_done(uint8_t kind, uint32_t ridx, uint16_t peer, uint8_t err);
/* A fill arrived: the peers told MISS since the last fill get a RESUME (rx_send_resumes); a
 * loopback frame held on a miss is handled again (rx_loop_retry). */
void rx_on_fill(void);
/* The loopback frame held on a destination miss handled again, when due (after a fill, or its
 * packet came again): cmd_poll, before the next command (which may invalidate the line filled). */
void rx_loop_retry(void);
/* The connection to this node gave up (conn.c): a loopback frame held on a destination miss is let
 * go (its entry and TX frame freed), so a later fill never places data of an operation already
 * completed UNREACHABLE. */
void rx_loop_unhold(void);
/* A piggy-backed ACK deferred (ncp_work.ack_in): applied at the end of a pass once nothing of the
 * data path waits (no DMA outstanding, no event pending) or after RX_ACK_DEFER (rx.c). */
void rx_ack_idle(void);
/* Applies the deferred piggy-backed ACK now (before a timeout is judged: conn_timer). */
void rx_ack_apply(void);
/* RESUME NACKs to the peers told MISS since the last fill. */
void rx_send_resumes(void);
/* The packet missed a translation: dropped, the sender told (unless seed-faithful). */
void rx_drop_miss(uint16_t peer, const struct pkt_hdr *h);
/* After rx_place: a miss (the packet dropped, MISS NACK) or no DMA room (BUSY NACK: resend
 * soon) answered, and 1; 0 for XL_OK and XL_DENIED, which the caller decides. */
static inline int rx_place_missed(uint16_t peer, const struct pkt_hdr *h, enum xl_result res)
{
    if (res == XL_MISS) {
        rx_drop_miss(peer, h);
        return 1;
    }
    if (res == XL_WAIT) {
        tx_ctl(peer, PKT_NACK, PKT_NACK_BUSY, h->seq, h->op, 0);
        return 1;
    }
    return 0;
}
/* A protection violation: nothing written, the sequence number not consumed, a PROTECTION NACK. */
void rx_refuse(uint16_t peer, const struct pkt_hdr *h, int32_t status);
/* Translates [va, va + len) of pid with `right` and posts the DMAs from `src` into host memory, the
 * last one with the continuation; nothing is posted unless every page translates. */
enum xl_result rx_place_pages(uint16_t pid, uint64_t va, uint32_t len, uint32_t right, const uint8_t *src,
                              uint8_t kind, uint32_t a, uint16_t b);
static inline enum xl_result rx_place(uint16_t pid, uint64_t va, uint32_t len, uint32_t right, const uint8_t *src,
                                        uint8_t kind, uint32_t a, uint16_t b)
{
    uint64_t pa;

    if ((uint32_t)(va & (NCP_PAGE - 1u)) + len > NCP_PAGE)
        return rx_place_pages(pid, va, len, right, src, kind, a, b);
    /* one page: the aligned MTU case; the hit inline, else xlate_vmh decides (and counts) */
    if (!xlate_vmh_hit(pid, va, right, LKC_PATH_RECV, &pa, 1)) {
        enum xl_result r = xlate_vmh(pid, va, right, LKC_PATH_RECV, &pa);
        if (r != XL_OK)
            return r;
    }
    if (!dmaq_room(1))
        return XL_WAIT;
    dmaq_post(HAL_SRAM_OFF(src), pa, len, 1, kind, a, b);
    return XL_OK;
}

/* This module's counters into the statistics (ncp_counters_gather). */
void rx_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_RX_H */
