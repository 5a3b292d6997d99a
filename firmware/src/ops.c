/*
 * ops.c - initiator operations and their completions.
 *
 * An operation (RDMA write or read) lives from the send queue entry being taken until it is
 * accounted for byte by byte: write bytes when their segments are acknowledged (or failed), read
 * bytes when the responses are written into local memory (or failed). Then one completion goes
 * to the endpoint's completion queue if it failed or was signalled. The first error sticks.
 * States: FREE (used = 0), ACTIVE (1), COMPLETING (2: waiting for a staging slot / DMA room).
 */
#include <string.h>

#include "ncp.h"

struct ncp_op *op_alloc(void)
{
    for (uint32_t i = 0; i < NCP_OPS; i++) {
        struct ncp_op *o = &ncp.op[i];
        if (!o->used) {
            uint16_t gen = (uint16_t)((o->gen + 1u) & 0x7Fu);
            memset(o, 0, sizeof *o);
            o->gen = gen;
            o->used = 1;
            return o;
        }
    }
    return NULL;
}

struct ncp_op *op_by_id(uint32_t id)
{
    uint32_t idx = id & 0xFFFFu;
    if (idx >= NCP_OPS || ncp.op[idx].used != 1 || ncp.op[idx].gen != (id >> 16))
        return NULL;
    return &ncp.op[idx];
}

void op_fail(struct ncp_op *o, int32_t status)
{
    if (o && o->status == NIC_ST_OK)
        o->status = status;
}

static void op_finish(struct ncp_op *o)
{
    struct ncp_ep *ep = &ncp.ep[o->ep];

    if (o->status == NIC_ST_OK && !(o->flags & NIC_WR_SIGNALED)) {
        o->used = 0;
    } else if (ep->state == EP_CLOSED) {
        o->used = 0; /* flushed already */
    } else if (cqe_post(o->ep, o->wr_id, o->status, o->status == NIC_ST_OK ? o->len : o->done, o->kind)) {
        o->used = 0;
    } else {
        o->used = 2; /* retried by ops_poll */
        ncp_work.ops_waiting++;
    }
    if (ep->cur == (int16_t)(o - ncp.op))
        ep->cur = -1;
}

void op_progress(struct ncp_op *o, uint32_t bytes)
{
    if (!o || o->used != 1)
        return;
    o->done += bytes;
    if (o->done >= o->len)
        op_finish(o);
}

void ops_poll(void)
{
    uint32_t left = 0;

    if (!ncp_work.ops_waiting)
        return; /* no scan of the table when nothing waits */
    for (uint32_t i = 0; i < NCP_OPS; i++) {
        struct ncp_op *o = &ncp.op[i];
        if (o->used != 2)
            continue;
        if (cqe_post(o->ep, o->wr_id, o->status, o->status == NIC_ST_OK ? o->len : o->done, o->kind))
            o->used = 0;
        else
            left++;
    }
    ncp_work.ops_waiting = left;
}

void op_complete_bad(uint8_t ep, const struct nic_sq_entry *e, int32_t status)
{
    ncp_sat_inc(&ncp.c.bad_desc);
    /* best effort when no slot is free right now: the entry is already consumed */
    if (!cqe_post(ep, (uint64_t)e->wr_id_hi << 32 | e->wr_id_lo, status, 0, e->op))
        ncp_sat_inc(&ncp.c.s.events_held);
}

void ops_flush_ep(uint8_t ep)
{
    for (uint32_t i = 0; i < NCP_OPS; i++) {
        struct ncp_op *o = &ncp.op[i];
        if (o->used && o->ep == ep) {
            o->status = NIC_ST_FLUSHED;
            if (!cqe_post(ep, o->wr_id, NIC_ST_FLUSHED, o->done, o->kind))
                ncp_sat_inc(&ncp.c.s.events_held);
            o->used = 0; /* later ACKs for it find no op (generation) and are ignored */
        }
    }
    ncp.ep[ep].cur = -1;
}

__attribute__((weak)) int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *cqe)
{
    (void)ep;
    (void)cqe;
    return 0;
}

int cqe_post(uint8_t epi, uint64_t wr_id, int32_t status, uint32_t bytes, uint8_t opk)
{
    struct ncp_ep *ep = &ncp.ep[epi];
    struct nic_cqe *q;

    if (ep->state == EP_CLOSED || !dmaq_room(1) || !(q = stage_slot()))
        return 0;
    memset(q, 0, sizeof *q);
    q->wr_id_lo = (uint32_t)wr_id;
    q->wr_id_hi = (uint32_t)(wr_id >> 32);
    q->status = status;
    q->bytes = bytes;
    q->op = opk;
    q->phase = (uint8_t)(((ep->cq_n >> ep->cq_log2) & 1u) ^ 1u);
    q->sq_ci = (uint16_t)ep->sq_ci;
    uint64_t pa = ep->cq_pa + (uint64_t)(ep->cq_n & ((1u << ep->cq_log2) - 1u)) * sizeof *q;
    ep->cq_n++;
    if (ncp_test_on_cqe(epi, q))
        return 1;
    dmaq_post(HAL_SRAM_OFF(q), pa, sizeof *q, 1, DK_CQE, 0, 0);
    return 1;
}
