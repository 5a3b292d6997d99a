/*
 * sqe.h - validation of a send queue entry (struct nic_sq_entry, hal/include/nic_abi.h) as the
 * NCP takes it from a process's send queue. Pure and portable: no NCP state, no register access;
 * the firmware (src/send.c) calls it on its private copy of the entry, the unit tests
 * (tests/unit/ncp_test_sqe.c) and the fuzzer (tests/fuzz/fuzz_sqe.c) call it host-native.
 *
 * Verdict (enum nic_status): NIC_ST_OK when the entry is well formed, NIC_ST_BAD_DESC otherwise
 * (the NCP then completes it with that status and never touches memory for it). Well formed
 * means every rule of enum sqe_rule holds; the first rule that fails is reported in *why.
 * What this does not decide: whether the local buffer lbuf exists, belongs to the process, holds
 * [laddr, +len) and has the local right (send.c's check_local, against the CBH, after this:
 * NIC_ST_BAD_HANDLE / BOUNDS / RIGHTS), and the remote buffer, key and rights (checked by the
 * target: NIC_ST_BAD_HANDLE / BOUNDS / RIGHTS / KEY).
 *
 * Extending: a new field of nic_sq_entry gets its rule here (a new enum sqe_rule before
 * SQE__RULES, checked in sqe_validate in the enum's order); fields carved out of reserved1 keep
 * the others checked, because the reserved words are counted from the array's size.
 */
#ifndef SQE_H
#define SQE_H

#include <stdint.h>

#include "nic_abi.h"

#define SQE_VA_BITS 44u /* user virtual addresses and remote offsets are below 2^44 */

/* The node's view that the rules need. */
struct sqe_limits {
    uint16_t me;    /* this node's id (a request to it is a loopback: allowed) */
    uint16_t nodes; /* node ids are below this */
    uint32_t peers; /* the caller's peer table holds nodes below this (NCP_MAX_PEERS) */
    uint32_t mtu;   /* the largest message (one segment: NCP_MTU); 0 or above NIC_MSG_MAX: NIC_MSG_MAX */
};

/* The rules, in the order they are checked. */
enum sqe_rule {
    SQE_OK = 0,
    SQE_R_OP,        /* op is NIC_OP_RDMA_WRITE, NIC_OP_RDMA_READ or NIC_OP_POST_RECV (ABI 2.2) */
    SQE_R_FLAGS,     /* flags has no bit but NIC_WR_SIGNALED, NIC_WR_IMM, NIC_WR_SEND and NIC_WR_INLINE
                      * (ABI 2.4); IMM, SEND and INLINE only on a write, IMM and SEND not both */
    SQE_R_LEN,       /* 1 <= len <= NIC_MAX_XFER; an inline write: len <= NIC_INLINE_MAX */
    SQE_R_LADDR,     /* laddr < 2^44 and laddr + len < 2^44 (not for an inline write: its data) */
    SQE_R_ROFF,      /* roff < 2^44 */
    SQE_R_RNODE,     /* rnode < nodes, rnode < peers (rnode == me: loopback) */
    SQE_R_RBUF,      /* rbuf <= PKT_MAX_BUF_ID (24-bit on the wire) */
    SQE_R_RESERVED,  /* reserved0 and every reserved1 word are zero (reserved1[0]: a NIC_WR_IMM
                      * write's immediate; reserved1[1..3]: an inline write's data) */
    SQE_R_MQ,        /* ABI 2.2: a send (NIC_WR_SEND) has len <= mtu (<= NIC_MSG_MAX), roff = rpid = 0;
                      * a NIC_OP_POST_RECV has rnode = me, roff = rpid = 0 */
    SQE__RULES
};

extern const char *const sqe_rule_name[SQE__RULES];

/*
 * Validates entry `e` for the node described by `lim`. Returns NIC_ST_OK or NIC_ST_BAD_DESC;
 * `why` (may be NULL) gets the first failed rule, SQE_OK on success. Reads each field once.
 */
int32_t sqe_validate(const struct nic_sq_entry *e, const struct sqe_limits *lim, enum sqe_rule *why);

/*
 * The common entry in a few branches (the NCP's per-message path, before sqe_validate): 1 exactly
 * when `e` is a plain RDMA write or read (no flag but NIC_WR_SIGNALED), or a plain inline write
 * (NIC_WR_SIGNALED and NIC_WR_INLINE), that sqe_validate accepts, with rnodes = min(lim->nodes,
 * lim->peers); 0 for every other entry, well formed or not (the caller then asks sqe_validate).
 * Checked against sqe_validate by the unit tests and the fuzzer.
 */
static inline int sqe_plain_ok(const struct nic_sq_entry *e, uint32_t rnodes)
{
    uint32_t len = e->len, lo = e->laddr_lo, hi = e->laddr_hi, end_hi = hi + (lo + len < lo);
    uint32_t bad;

    if (e->flags & NIC_WR_INLINE) /* an inline write: laddr, lbuf and reserved1[1..3] are its data */
        bad = ((uint32_t)e->flags & ~(NIC_WR_SIGNALED | NIC_WR_INLINE)) | e->reserved0 | e->reserved1[0] |
              ((len - 1u) >= NIC_INLINE_MAX) | (e->roff_hi >> (SQE_VA_BITS - 32u)) | (e->rbuf >> 24) |
              ((uint32_t)e->op ^ NIC_OP_RDMA_WRITE);
    else
        bad = ((uint32_t)e->flags & ~NIC_WR_SIGNALED) | e->reserved0 | e->reserved1[0] | e->reserved1[1] |
              e->reserved1[2] | e->reserved1[3] | ((len - 1u) >> 24) /* 1 <= len <= NIC_MAX_XFER */ |
              ((hi | end_hi | e->roff_hi) >> (SQE_VA_BITS - 32u)) | (e->rbuf >> 24) /* PKT_MAX_BUF_ID */;
    return !bad && (uint32_t)e->op - NIC_OP_RDMA_WRITE < 2u && e->rnode < rnodes;
}

#endif /* SQE_H */
