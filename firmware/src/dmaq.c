/*
 * dmaq.c - the NCP's DMA request queue. The engine takes DMA_QDEPTH requests and completes them
 * in order; this queue holds up to NCP_DMAQ_N more with a continuation each (kind + arguments),
 * feeds the engine as slots free up, and runs the continuation when the request's completion
 * pops. Counts: posted (head) >= issued >= done, free-running, masked on use.
 */
#include "cmd.h"
#include "conn.h"
#include "dmaq.h"
#include "epc.h"
#include "ncp.h"
#include "rx.h"
#include "tx.h"

/* This module's counters (gathered by dmaq_counters for STATS). */
static struct {
    uint32_t dma_errors;
} dmaq_cnt;

struct dmaq_state dmaq;

uint32_t dmaq_barrier_ticket(void)
{
    return dmaq.head;
}

int dmaq_passed(uint32_t ticket)
{
    return seq_le(ticket, dmaq.done);
}

/* dmaq.credit: see dmaq_post (ncp.h). */
void dmaq_pump(void)
{
    while (dmaq.issued != dmaq.head) {
        if (!dmaq.credit && !(dmaq.credit = hal_dma_free()))
            return;
        dmaq.credit--;
        const struct dma_req *r = &dmaq.q[dmaq.issued % NCP_DMAQ_N];
        hal_dma_submit(r->sram, r->host, r->len, r->to_host, (uint8_t)dmaq.issued);
        dmaq.issued++;
    }
}

void dmaq_complete(void)
{
    uint8_t tag, err;
    /* completions that arrive meanwhile raise the DMA event again: the next pass takes them */
    uint32_t n = hal_dma_cpl_count();

    if (n > NCP_DMAQ_N) {
        n = NCP_DMAQ_N;
        hal_raise_events(HAL_EV_DMA); /* the rest in the next pass */
    }
    for (uint32_t budget = 0; budget < n; budget++) {
        uint32_t t0 = fp_now();
        hal_dma_pop_head(&tag, &err);
        NCP_ASSERT(NCP_MOD_HAL, 2, dmaq.done != dmaq.issued && tag == (uint8_t)dmaq.done);
        const struct dma_req *rp = &dmaq.q[dmaq.done % NCP_DMAQ_N];
        struct dma_req r = {.kind = rp->kind, .a = rp->a, .b = rp->b};
        dmaq.done++;
        if (err) {
            ncp_sat_inc(&dmaq_cnt.dma_errors);
            dmaq.err_seen = 1; /* sticks to the next continuation of the group */
        }
        if (r.kind == DK_NONE) {
            if (NCP_FP_SAMPLES)
                dmaq.fp_acc += fp_now() - t0; /* charged to the group's continuation */
            continue;
        }
        if (NCP_FP_SAMPLES)
            dmaq.fp_t0 = t0;
        err = dmaq.err_seen;
        dmaq.err_seen = 0;
        switch (r.kind) {
        case DK_TX:
            if (__builtin_expect(err, 0))
                tx_dma_failed(r.a); /* no garbage on the wire: the frame goes void */
            else
                tx_dma_done(r.a);
            break;
        case DK_RX:
        case DK_RXRESP:
        case DK_RXIMM:
            rx_dma_done(r.kind, r.a, r.b, err);
            break;
        case DK_EVENT:
            if (r.a)
                hal_host_irq(r.a);
            break;
        case DK_CMD:
            cmd_dma_done(err);
            break;
        case DK_EPC:
            epc_dma_done(r.a, r.b, err);
            break;
        case DK_PEER:
            conn_dma_done(r.a, r.b, err);
            break;
        default:
            break;
        }
        if (NCP_FP_SAMPLES)
            dmaq.fp_acc = 0;
    }
    dmaq_pump();
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void dmaq_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)s;
    ncp_sat_add(&k->dma_errors, dmaq_cnt.dma_errors);
}
