/*
 * testapi.c - ncp_test.h over the NCP's state: the only file of the NCP that the firmware test
 * images reach (it is linked into them, never into ncp.img). When state moves between modules,
 * this file follows it and the images do not change.
 */
#include <string.h>

#include "cmd.h"
#include "conn.h"
#include "dmaq.h"
#include "ncp.h"
#include "ncp_test.h"
#include "ops.h"
#include "requester.h"
#include "responder.h"
#include "timer.h"
#include "xlate.h"

_Static_assert((int)NCP_TEST_FP_TX == (int)FP_TX && (int)NCP_TEST_FP_RX == (int)FP_RX &&
                   (int)NCP_TEST_FP_ACK == (int)FP_ACK && (int)NCP_TEST_FP__N == (int)FP__N &&
                   NCP_TEST_FP_RING == NCP_FP_RING,
               "ncp_test.h fast-path kinds and ring");

uint32_t ncp_test_node(void)
{
    return ncp.me;
}

void ncp_test_init(uint16_t nodes, uint64_t ev_pa, uint32_t ev_log2)
{
    ev_ring_set(ev_pa, ev_log2);
    ncp_set_nodes(nodes);
    ncp.inited = 1;
}

void ncp_test_ep_open(uint8_t ep, uint16_t pid, uint64_t cq_pa, uint32_t cq_log2)
{
    ep_open(ep, pid, cq_pa, cq_log2);
}

void ncp_test_ep_flush(uint8_t ep)
{
    ops_flush_ep(ep);
}

void ncp_test_events_consumed(void)
{
    cmd_on_doorbell(NIC_DB_EV_CI, ev_produced()); /* as the host acknowledges them */
}

uint32_t ncp_test_sq_entries(void)
{
    return NCP_SQ_N;
}

void ncp_test_sq_doorbell(uint8_t ep, uint32_t pi)
{
    req_on_doorbell(ep, NIC_DB_SQ_PI, pi);
}

uint32_t ncp_test_line_bytes(uint8_t cache)
{
    return xlate_line_bytes(cache);
}

void ncp_test_geom(struct nic_cache_geom g[NIC_CACHE__COUNT])
{
    xlate_geom(g);
}

uint16_t ncp_test_epoch(uint8_t cache, uint16_t pid)
{
    return lkc_epoch(&ncp_cache[cache], pid);
}

int32_t ncp_test_fill(uint8_t cache, uint16_t pid, uint32_t line, uint16_t epoch, const void *image)
{
    return xlate_fill(cache, pid, line, epoch, image);
}

int32_t ncp_test_static_load(uint8_t cache, uint16_t pid, uint32_t line, const void *image)
{
    return xlate_static_load(cache, pid, line, image);
}

void ncp_test_invalidate(uint8_t cache, uint16_t pid, uint32_t line, uint32_t n)
{
    xlate_invalidate(cache, pid, line, n);
}

uint32_t ncp_test_dma_from_host(void *dst, uint64_t pa, uint32_t len)
{
    dmaq_post(HAL_SRAM_OFF(dst), pa, len, 0, DK_NONE, 0, 0);
    return dmaq_barrier_ticket();
}

int ncp_test_dma_passed(uint32_t ticket)
{
    return dmaq_passed(ticket);
}

void ncp_test_stats(struct nic_stats *s)
{
    struct ncp_counters k;

    ncp_counters_gather(s, &k); /* as STATS does (cmd.c) */
}

void ncp_test_counters(struct ncp_test_counters *c)
{
    struct nic_stats s;
    struct ncp_counters kc, *k = &kc;

    ncp_counters_gather(&s, k);
    *c = (struct ncp_test_counters){
        .bad_desc = k->bad_desc,
        .dma_errors = k->dma_errors,
        .ctl_drops = k->ctl_drops,
        .resp_full = k->resp_full,
        .miss_full = k->miss_full,
        .giveups = k->giveups,
        .resumes_sent = k->resumes_sent,
        .resp_queued = k->resp_queued,
        .read_timeouts = k->read_timeouts,
        .defers = k->defers,
    };
}

void ncp_test_peer_stats(uint32_t peer, struct xport_stats *st)
{
    *st = conn_peer(peer).x.st; /* (the test images run with every peer resident) */
}

uint32_t ncp_test_fp_count(unsigned k)
{
    return ncp.fp[k].n;
}

void ncp_test_fp(unsigned k, struct ncp_test_fp *f)
{
    const struct ncp_fp *p = &ncp.fp[k];

    f->n = p->n;
    f->sum = p->sum;
    f->max = p->max;
    f->bytes = p->bytes;
    memcpy(f->s, p->s, sizeof f->s);
}

void ncp_test_fp_reset(void)
{
#if NCP_PROFILE
    memset(ncp_prof, 0, sizeof ncp_prof);
#endif
    memset(ncp.fp, 0, sizeof ncp.fp);
}

int ncp_test_prof(unsigned k, uint32_t out[3])
{
#if NCP_PROFILE
    if (k < 16u) {
        memcpy(out, ncp_prof[k], sizeof ncp_prof[k]);
        return 1;
    }
#else
    (void)k;
    (void)out;
#endif
    return 0;
}

uint32_t ncp_test_op_slots(void)
{
    return NCP_OPS;
}

int ncp_test_op(uint32_t slot, struct ncp_test_op *o)
{
    const struct ncp_op *p = &op_tab[slot];

    *o = (struct ncp_test_op){.live = p->state == OP_ACTIVE,
                              .kind = p->kind,
                              .awaiting = p->awaiting,
                              .id = p->id,
                              .len = p->len,
                              .sent = p->sent,
                              .done = p->done};
    return o->live;
}

uint32_t ncp_test_reads_awaiting(void)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < NCP_OPS; i++)
        n += op_tab[i].state == OP_ACTIVE && op_tab[i].kind == NIC_OP_RDMA_READ && op_tab[i].awaiting;
    return n;
}

int ncp_test_op_cycle(uint32_t *slot, uint32_t *id)
{
    struct ncp_op *o = op_alloc();

    if (!o)
        return 0;
    *slot = (uint32_t)(o - op_tab);
    *id = o->id;
    op_release(o);
    return 1;
}

void ncp_test_responder(struct ncp_test_resp *r)
{
    r->started = resp_generation();
    r->active = r->sent = 0;
    for (uint32_t i = 0; i < NCP_RESP; i++)
        if (resp_tab[i].state != RESP_FREE) {
            r->active++;
            r->sent += resp_tab[i].sent;
        }
}

uint32_t ncp_test_read_timeout(void)
{
    return ncp_read_timeout();
}

void ncp_test_timers_rescan(void)
{
    timer_kick();
}
