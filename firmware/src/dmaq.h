/*
 * dmaq.h - the DMA request queue with continuations: dmaq.c.
 */
#ifndef NCP_DMAQ_H
#define NCP_DMAQ_H

#include "ncp.h"

/* ---- DMA continuations ---- */
enum dma_kind {
    DK_NONE,       /* a piece of a multi-request transfer */
    DK_TX,         /* a = TX frame index: data in, transmit */
    DK_RX,         /* a = RX ring index, b = peer: data written to the host */
    DK_RXRESP,     /* a = RX ring index, b = op | peer << 16: read response data written */
    DK_RXIMM,      /* as DK_RX, the last segment of a write with immediate (evq_imm_done) */
    DK_EVENT,      /* a = host irq causes to raise */
    DK_CQE,        /* completion written */
    DK_CMD,        /* the current command's DMA finished */
    DK_BARRIER,    /* marker (no data) */
    DK_EPC,        /* a host endpoint's context, record, entries or write-back (epc.c: a = slot | kind << 8) */
    DK_PEER,       /* a = slot, b = the victim written back (0xFFFF: a fill): a peer context moved (peerctx.c) */
};

struct dma_req {
    uint32_t sram;
    uint64_t host;
    uint32_t len;
    uint8_t to_host, kind;
    uint16_t b;
    uint32_t a;
};

/* The queue (owned by dmaq.c; the inlines below post into it): posted (head) >= issued >= done,
 * free-running, masked on use. */
struct dmaq_state {
    struct dma_req q[NCP_DMAQ_N];
    uint32_t head, issued, done;
    uint32_t credit; /* engine submit slots known free: a lower bound (only the NCP takes slots,
                      * the engine frees them on its own), re-read when used up */
    uint8_t err_seen; /* an error on a piece of the group being completed */
    /* fast-path accounting: cycles of DMA completions popped since the last continuation, and
     * when the current completion was popped */
    uint32_t fp_acc, fp_t0;
};
extern struct dmaq_state dmaq;

/* No request outstanding: every one posted has completed. */
static inline int dmaq_idle(void)
{
    return dmaq.head == dmaq.done;
}

/* Requests posted and not yet handed to the engine. */
static inline int dmaq_backlog(void)
{
    return dmaq.issued != dmaq.head;
}

static inline int dmaq_room(uint32_t n)
{
    return NCP_DMAQ_N - (dmaq.head - dmaq.done) >= n;
}
void dmaq_pump(void);
/* Queues a DMA request with its continuation (kind, a, b; DK_NONE for a piece of a group);
 * submitted at once when the engine has a slot and nothing is queued before it. */
static inline void dmaq_post(uint32_t sram, uint64_t host, uint32_t len, int to_host, uint8_t kind, uint32_t a,
                             uint16_t b)
{
    uint32_t h = dmaq.head;
    struct dma_req *r = &dmaq.q[h % NCP_DMAQ_N];

    NCP_ASSERT(NCP_MOD_HAL, 1, dmaq_room(1) && len > 0 && len <= 65536u);
    r->kind = kind;
    r->a = a;
    r->b = b;
    dmaq.head = h + 1;
    if (dmaq.issued == h && dmaq.credit) {
        dmaq.credit--;
        dmaq.issued = h + 1;
        hal_dma_submit(sram, host, len, to_host, (uint8_t)h);
        return;
    }
    r->sram = sram;
    r->host = host;
    r->len = len;
    r->to_host = (uint8_t)to_host;
    dmaq_pump();
}
/* dmaq_post when the engine takes the request at once: for the fast paths (no call). */
static inline int dmaq_direct(void)
{
    return dmaq.issued == dmaq.head && (dmaq.credit || (dmaq.credit = hal_dma_free()));
}
/* dmaq_direct for n requests in a row (the engine has n slots free). */
static inline int dmaq_direct_n(uint32_t n)
{
    return dmaq.issued == dmaq.head && (dmaq.credit >= n || (dmaq.credit = hal_dma_free()) >= n);
}
static inline void dmaq_post_direct(uint32_t sram, uint64_t host, uint32_t len, int to_host, uint8_t kind,
                                    uint32_t a, uint16_t b)
{
    uint32_t h = dmaq.head;
    struct dma_req *r = &dmaq.q[h % NCP_DMAQ_N];

    NCP_ASSERT(NCP_MOD_HAL, 3, dmaq.issued == h && dmaq.credit && len > 0 && len <= 65536u);
    r->kind = kind;
    r->a = a;
    r->b = b;
    dmaq.head = h + 1;
    dmaq.issued = h + 1;
    dmaq.credit--;
    hal_dma_submit(sram, host, len, to_host, (uint8_t)h);
}
uint32_t dmaq_barrier_ticket(void); /* completes when every DMA posted before it has */
int dmaq_passed(uint32_t ticket);
void dmaq_complete(void);

/* This module's counters into the statistics (ncp_counters_gather). */
void dmaq_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_DMAQ_H */
