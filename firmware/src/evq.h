/*
 * evq.h - per-process event queues (ABI 2.1, docs/host-interface.md "Event queues"): evq.c.
 */
#ifndef NCP_EVQ_H
#define NCP_EVQ_H

#include "cmd.h"
#include "dmaq.h"
#include "ncp.h"

void evq_init(void);
/* The commands (cmd.c): a nic_status for the answer. */
int32_t evq_cmd(const struct nic_cmd *c); /* EQ_OPEN, EQ_CLOSE, EQ_ARM, EQ_POST */
/* 1 if `eq` is an open queue of process pid (EP_OPEN's binding is checked with it). */
int evq_owned(uint32_t eq, uint16_t pid);
/* DMA and staging room for a completion and its event queue entry (cqe_post asks first). */
static inline int evq_room(void)
{
    return dmaq_room(3) && stage_free(3); /* the completion, an overflow report, the entry */
}
/* A completion queue entry `n` of endpoint epi was posted: one NIC_EQE_CQ entry in the endpoint's
 * queue. */
void evq_on_cqe(uint8_t eq, uint16_t epi, uint32_t n);
/* A write with immediate: its last segment, in RX entry ridx, is being placed (the receive path):
 * what its notification will say (target pid, source node, immediate, the write's length, target
 * buffer and offset where it began). */
/* A notification: a write with immediate's (NIC_EQE_IMM) or a message's (NIC_EQE_RECV, mq.c) */
struct ncp_imm {
    uint16_t pid, src; /* the target process, the source node */
    uint32_t imm, len, buf, off;
    uint16_t spid;     /* the source process (messages) */
    uint8_t type;      /* NIC_EQE_IMM / NIC_EQE_RECV */
    int8_t status;     /* messages: enum nic_status */
};
/* The event queue of pid opened with NIC_EQF_NOTIFY (0: none). */
int evq_notify_of(uint16_t pid);
/* Notes x for RX entry ridx, reported by evq_imm_done when its data DMA completed. */
void evq_note(uint32_t ridx, const struct ncp_imm *x);
/* Reports x now (or holds it until there is room). */
void evq_notify(const struct ncp_imm *x);
void evq_imm_note(uint32_t ridx, uint16_t pid, uint16_t src, uint16_t imm, uint32_t len, uint32_t buf, uint32_t off);
/* Its DMA completed (bad: with an error, or after an earlier one failed: it will be accepted
 * again): one NIC_EQE_IMM entry in the process's NIC_EQF_NOTIFY queue, now or from evq_poll. */
void evq_imm_done(uint32_t ridx, uint8_t bad);
/* Deferred work (ncp_work.evq): interrupts and overflow reports waiting for room. */
void evq_poll(void);
void evq_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_EVQ_H */
