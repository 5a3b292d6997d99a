/*
 * sqe.c - send queue entry validation (see sqe.h for the rules and the verdict).
 */
#include "sqe.h"

#include "pkt.h"

/* message queue entries (ABI 2.2) are well formed only where the NCP has them (src/mq.h NCP_MQ) */
#ifdef NCP_MQ
#define SQE_MQ NCP_MQ
#else
#define SQE_MQ 1
#endif

const char *const sqe_rule_name[SQE__RULES] = {"ok", "op", "flags", "len", "laddr", "roff", "rnode", "rbuf",
                                               "reserved", "mq"};

_Static_assert(NIC_MAX_XFER == 1u << 24 && PKT_MAX_BUF_ID == (1u << 24) - 1u && SQE_VA_BITS > 32u &&
                   NIC_OP_RDMA_READ == NIC_OP_RDMA_WRITE + 1,
               "sqe_plain_ok's shifts");

static enum sqe_rule first_failed(const struct nic_sq_entry *e, const struct sqe_limits *lim)
{
    uint64_t laddr = (uint64_t)e->laddr_hi << 32 | e->laddr_lo;
    uint64_t roff = (uint64_t)e->roff_hi << 32 | e->roff_lo;

    uint32_t mtu = lim->mtu && lim->mtu < NIC_MSG_MAX ? lim->mtu : NIC_MSG_MAX;

    if (e->op != NIC_OP_RDMA_WRITE && e->op != NIC_OP_RDMA_READ && (!SQE_MQ || e->op != NIC_OP_POST_RECV))
        return SQE_R_OP;
    int inl = (e->flags & NIC_WR_INLINE) != 0;
    if ((e->flags & ~(NIC_WR_SIGNALED | NIC_WR_IMM | NIC_WR_INLINE | (SQE_MQ ? NIC_WR_SEND : 0u))) ||
        ((e->flags & (NIC_WR_IMM | NIC_WR_SEND | NIC_WR_INLINE)) && e->op != NIC_OP_RDMA_WRITE) ||
        (e->flags & (NIC_WR_IMM | NIC_WR_SEND)) == (NIC_WR_IMM | NIC_WR_SEND))
        return SQE_R_FLAGS;
    if (e->len == 0 || e->len > (inl ? NIC_INLINE_MAX : NIC_MAX_XFER))
        return SQE_R_LEN;
    if (!inl && (laddr >> SQE_VA_BITS || (laddr + e->len) >> SQE_VA_BITS)) /* no overflow: both below 2^45 */
        return SQE_R_LADDR;
    if (roff >> SQE_VA_BITS)
        return SQE_R_ROFF;
    if (e->rnode >= lim->nodes || e->rnode >= lim->peers) /* rnode == me: loopback */
        return SQE_R_RNODE;
    if (e->rbuf > PKT_MAX_BUF_ID)
        return SQE_R_RBUF;
    if (e->reserved0)
        return SQE_R_RESERVED;
    for (unsigned i = 0; i < sizeof e->reserved1 / sizeof e->reserved1[0]; i++)
        if (e->reserved1[i] && (i ? !inl : (!(e->flags & NIC_WR_IMM) || e->reserved1[0] > NIC_IMM_MAX)))
            return SQE_R_RESERVED; /* reserved1[0]: the immediate of a NIC_WR_IMM write; [1..3]: an
                                    * inline write's data */
    if (SQE_MQ && (e->flags & NIC_WR_SEND) && (e->len > mtu || roff || e->rpid))
        return SQE_R_MQ;
    if (SQE_MQ && e->op == NIC_OP_POST_RECV && (e->rnode != lim->me || roff || e->rpid))
        return SQE_R_MQ;
    return SQE_OK;
}

int32_t sqe_validate(const struct nic_sq_entry *e, const struct sqe_limits *lim, enum sqe_rule *why)
{
    enum sqe_rule r = first_failed(e, lim);

    if (why)
        *why = r;
    return r == SQE_OK ? NIC_ST_OK : NIC_ST_BAD_DESC;
}
