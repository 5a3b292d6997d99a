/*
 * ops.h - the operation table (initiator side) and completions: ops.c.
 */
#ifndef NCP_OPS_H
#define NCP_OPS_H

#include "ncp.h"

/* The operation table (owned by ops.c; the roles reach an operation by its id: op_by_id,
 * op_by_cookie, or by the endpoint's current index). */
extern struct ncp_op op_tab[NCP_OPS];

/* Boot: every operation FREE, no result waiting. */
void ops_init(void);
/* The generation ids start from (conn.c, at boot and INIT: from the fabric secret). */
void ops_seed(uint32_t gen);
struct ncp_op *op_alloc(void);
/* Slot o back to the free pool (OP_FREE): the only way a slot becomes free again. */
void op_release(struct ncp_op *o);
/* The live operation with id `id`, or NULL (freed, reused by another op, out of range). */
static inline struct ncp_op *op_by_id(uint32_t id)
{
    struct ncp_op *o = &op_tab[ncp_id_idx(id)];

    if (ncp_id_idx(id) >= NCP_OPS || !op_live(o, id))
        return NULL;
    return o;
}
static inline uint32_t op_id(const struct ncp_op *o)
{
    return o->id;
}
/* The op a cookie names, if it is still that op (live, same id), else NULL. */
static inline struct ncp_op *op_by_cookie(ncp_cookie_t c)
{
    struct ncp_op *o = &op_tab[CK_IDX(c)];
    return op_live(o, CK_ID(c)) ? o : NULL;
}
void op_fail(struct ncp_op *o, int32_t status);
/* Every byte accounted for: the result recorded, the operation FREE, retired in request order. */
void op_finish(struct ncp_op *o);
/* `bytes` more of the operation accounted for (acknowledged, written locally, or failed); NULL or
 * a freed operation: nothing. Inline: it runs per packet, op_finish once per operation. */
static inline void op_progress(struct ncp_op *o, uint32_t bytes)
{
    if (!o || o->state != OP_ACTIVE)
        return;
    o->done += bytes;
    if (o->done >= o->len)
        op_finish(o);
}
void ops_poll(void);
void op_finish_early(struct ncp_op *o, int32_t status);
void op_read_watch(struct ncp_op *o);
/* Timer source (timer.h): the initiator's read timeout. */
int ops_timer(uint32_t now, uint32_t *at);
void ops_flush_ep(uint8_t ep);
int ops_ep_retired(uint8_t ep);
int cqe_post(uint8_t ep, uint64_t wr_id, int32_t status, uint32_t bytes, uint8_t opk, uint32_t req);

/* This module's counters into the statistics (ncp_counters_gather). */
void ops_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_OPS_H */
