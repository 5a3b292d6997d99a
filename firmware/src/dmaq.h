/*
 * dmaq.h - the DMA request queue with continuations: dmaq.c.
 */
#ifndef NCP_DMAQ_H
#define NCP_DMAQ_H

#include "ncp.h"

static inline int dmaq_room(uint32_t n)
{
    return NCP_DMAQ_N - (ncp.dq_head - ncp.dq_done) >= n;
}
void dmaq_pump(void);
/* Queues a DMA request with its continuation (kind, a, b; DK_NONE for a piece of a group);
 * submitted at once when the engine has a slot and nothing is queued before it. */
static inline void dmaq_post(uint32_t sram, uint64_t host, uint32_t len, int to_host, uint8_t kind, uint32_t a,
                             uint16_t b)
{
    uint32_t h = ncp.dq_head;
    struct dma_req *r = &ncp.dq[h % NCP_DMAQ_N];

    NCP_ASSERT(NCP_MOD_HAL, 1, dmaq_room(1) && len > 0 && len <= 65536u);
    r->kind = kind;
    r->a = a;
    r->b = b;
    ncp.dq_head = h + 1;
    if (ncp.dq_issued == h && ncp.dma_credit) {
        ncp.dma_credit--;
        ncp.dq_issued = h + 1;
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
    return ncp.dq_issued == ncp.dq_head && (ncp.dma_credit || (ncp.dma_credit = hal_dma_free()));
}
static inline void dmaq_post_direct(uint32_t sram, uint64_t host, uint32_t len, int to_host, uint8_t kind,
                                    uint32_t a, uint16_t b)
{
    uint32_t h = ncp.dq_head;
    struct dma_req *r = &ncp.dq[h % NCP_DMAQ_N];

    NCP_ASSERT(NCP_MOD_HAL, 3, ncp.dq_issued == h && ncp.dma_credit && len > 0 && len <= 65536u);
    r->kind = kind;
    r->a = a;
    r->b = b;
    ncp.dq_head = h + 1;
    ncp.dq_issued = h + 1;
    ncp.dma_credit--;
    hal_dma_submit(sram, host, len, to_host, (uint8_t)h);
}
uint32_t dmaq_barrier_ticket(void); /* completes when every DMA posted before it has */
int dmaq_passed(uint32_t ticket);
void dmaq_complete(void);

#endif /* NCP_DMAQ_H */
