/*
 * fuzz_sqe.c - libFuzzer target: the send queue entry validation (firmware/lib/sqe.c,
 * docs/fuzzing.md).
 *
 * Input: 64 bytes of struct nic_sq_entry as a process writes them into its send queue, then
 * 5 bytes of node view (this node, node count, peer table size). Shorter inputs are padded with
 * zeros, longer ones cut.
 *
 * Oracles (any violation aborts, and libFuzzer keeps the input as a crash reproducer):
 * - differential: a reference written from the rules as docs/host-interface.md and sqe.h state
 *   them, reading the raw little-endian bytes at the ABI's offsets, must give the same verdict
 *   and the same first failed rule;
 * - the verdict is NIC_ST_OK or NIC_ST_BAD_DESC, and the rule reported agrees with it;
 * - fields that carry no rule (rkey, rpid, wr_id, lbuf) never change the verdict;
 * - an accepted entry is safe to turn into an operation: 1 <= len <= NIC_MAX_XFER, the local
 *   range [laddr, laddr + len) lies below 2^44 without wrapping, the remote node is a peer of
 *   the table other than this node, the buffer id fits the wire's 24 bits;
 * - the entry sits in a buffer of exactly its size (AddressSanitizer sees any overread).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_abi.h"
#include "ncp_util.h"
#include "pkt.h"
#include "sqe.h"

#define CHECK(c)                                                                           \
    do {                                                                                   \
        if (!(c)) {                                                                        \
            fprintf(stderr, "fuzz_sqe: invariant failed at line %d: %s\n", __LINE__, #c); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* The reference knows the fields of this layout (lbuf, the local buffer handle, has no rule here:
 * send.c checks it against the CBH afterwards). A changed entry needs its rule here too. */
_Static_assert(sizeof(struct nic_sq_entry) == 64 && offsetof(struct nic_sq_entry, lbuf) == 44 &&
                   offsetof(struct nic_sq_entry, reserved1) == 48,
               "struct nic_sq_entry changed: update the reference rules in tests/fuzz/fuzz_sqe.c");

void ncp_on_assert(unsigned module, unsigned id)
{
    fprintf(stderr, "fuzz_sqe: NCP_ASSERT module %u id %u\n", module, id);
    abort();
}

static uint64_t le(const uint8_t *b, size_t off, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | b[off + i];
    return v;
}

#define FIELD(b, f) le((b), offsetof(struct nic_sq_entry, f), sizeof(((struct nic_sq_entry *)0)->f))

/* The rules, from the documentation, on raw bytes. */
static enum sqe_rule reference(const uint8_t *b, const struct sqe_limits *lim)
{
    uint64_t op = FIELD(b, op), flags = FIELD(b, flags), len = FIELD(b, len), rnode = FIELD(b, rnode);
    uint64_t laddr = FIELD(b, laddr_lo) | FIELD(b, laddr_hi) << 32;
    uint64_t roff = FIELD(b, roff_lo) | FIELD(b, roff_hi) << 32;
    const uint64_t va_top = (uint64_t)1 << 44;

    if (op != 1 && op != 2 && op != 3) /* RDMA write, RDMA read, post a receive buffer (ABI 2.2) */
        return SQE_R_OP;
    /* "signalled"; "immediate" (ABI 2.1), "send" (ABI 2.2) and "inline" (ABI 2.4) on writes only;
     * not immediate and send both */
    if (flags > 15 || (flags & 14 && op != 1) || (flags & 6) == 6)
        return SQE_R_FLAGS;
    int inl = (flags & 8) != 0; /* the data in laddr, lbuf and the last 12 bytes: at most 24 bytes */
    if (len < 1 || len > (inl ? 24u : 16u * 1024 * 1024))
        return SQE_R_LEN;
    if (!inl && (laddr >= va_top || len >= va_top - laddr)) /* last byte below 2^44 - 1 */
        return SQE_R_LADDR;
    if (roff >= va_top)
        return SQE_R_ROFF;
    if (rnode >= lim->nodes || rnode >= lim->peers) /* rnode == me: loopback */
        return SQE_R_RNODE;
    if (FIELD(b, rbuf) >= (1u << 24))
        return SQE_R_RBUF;
    for (size_t i = offsetof(struct nic_sq_entry, reserved0); i < offsetof(struct nic_sq_entry, reserved0) + 2; i++)
        if (b[i])
            return SQE_R_RESERVED;
    /* the first word of reserved1 is the immediate of a write with immediate: 16 bits */
    uint64_t imm = le(b, offsetof(struct nic_sq_entry, reserved1), 4);
    if (imm && (!(flags & 2) || imm > 0xFFFFu))
        return SQE_R_RESERVED;
    for (size_t i = offsetof(struct nic_sq_entry, reserved1) + 4; i < sizeof(struct nic_sq_entry); i++)
        if (b[i] && !inl)
            return SQE_R_RESERVED;
    /* message queues (ABI 2.2): a send is one message of at most 4096 bytes (and the MTU, given 0
     * here), to no offset and no process; a receive post names this node, no offset, no process */
    uint64_t rpid = FIELD(b, rpid);
    if (flags & 4 && (len > 4096u || roff || rpid))
        return SQE_R_MQ;
    if (op == 3 && (rnode != lim->me || roff || rpid))
        return SQE_R_MQ;
    return SQE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t raw[sizeof(struct nic_sq_entry) + 5];
    memset(raw, 0, sizeof raw);
    memcpy(raw, data, size < sizeof raw ? size : sizeof raw);
    const uint8_t *v = raw + sizeof(struct nic_sq_entry);
    struct sqe_limits lim = {.me = (uint16_t)(v[0] | v[1] << 8), .nodes = (uint16_t)(v[2] | v[3] << 8),
                             .peers = v[4]};
    if (!(v[4] & 0x80u)) { /* mostly a realistic node: a few nodes, me among them */
        lim.nodes = (uint16_t)(2u + v[2] % 31u);
        lim.me = (uint16_t)(v[0] % lim.nodes);
        lim.peers = 16;
    }

    struct nic_sq_entry *e = malloc(sizeof *e); /* exactly the entry */
    if (!e)
        return 0;
    memcpy(e, raw, sizeof *e);

    enum sqe_rule why = SQE__RULES;
    int32_t st = sqe_validate(e, &lim, &why);
    enum sqe_rule ref = reference(raw, &lim);
    if (why != ref)
        fprintf(stderr, "fuzz_sqe: sqe_validate says %s, the reference %s\n",
                (unsigned)why < SQE__RULES ? sqe_rule_name[why] : "?", sqe_rule_name[ref]);
    CHECK(why == ref);
    CHECK(st == (why == SQE_OK ? NIC_ST_OK : NIC_ST_BAD_DESC));
    CHECK(sqe_validate(e, &lim, NULL) == st);
    /* the NCP's shortcut (sqe_plain_ok): exactly the well-formed plain writes and reads, and plain
     * inline writes */
    int plain = ((e->op == NIC_OP_RDMA_WRITE || e->op == NIC_OP_RDMA_READ) && !(e->flags & ~NIC_WR_SIGNALED)) ||
                (e->op == NIC_OP_RDMA_WRITE && (e->flags & ~NIC_WR_SIGNALED) == NIC_WR_INLINE);
    CHECK(sqe_plain_ok(e, lim.nodes < lim.peers ? lim.nodes : lim.peers) == (st == NIC_ST_OK && plain));

    /* fields without a rule do not change the verdict (rpid has one for message queues) */
    struct nic_sq_entry f = *e;
    f.rkey = ~f.rkey;
    if (!(f.flags & NIC_WR_SEND) && f.op != NIC_OP_POST_RECV)
        f.rpid = (uint16_t)~f.rpid;
    f.wr_id_lo = ~f.wr_id_lo;
    f.wr_id_hi ^= 0x80000001u;
    if (!(f.flags & NIC_WR_INLINE)) /* (an inline write's lbuf is data: no rule either) */
        f.lbuf = ~f.lbuf;
    else
        f.lbuf = ~f.lbuf, f.laddr_lo = ~f.laddr_lo, f.reserved1[3] = ~f.reserved1[3];
    enum sqe_rule why2 = SQE__RULES;
    CHECK(sqe_validate(&f, &lim, &why2) == st && why2 == why);

    if (st == NIC_ST_OK) {
        uint64_t laddr = (uint64_t)e->laddr_hi << 32 | e->laddr_lo;
        CHECK(e->op == NIC_OP_RDMA_WRITE || e->op == NIC_OP_RDMA_READ || e->op == NIC_OP_POST_RECV);
        CHECK(!(e->flags & NIC_WR_SEND) || (e->len <= NIC_MSG_MAX && e->rpid == 0));
        CHECK(e->len >= 1 && e->len <= (e->flags & NIC_WR_INLINE ? NIC_INLINE_MAX : NIC_MAX_XFER));
        CHECK(!(e->flags & NIC_WR_INLINE) || e->op == NIC_OP_RDMA_WRITE);
        CHECK((e->flags & NIC_WR_INLINE) || (laddr + e->len > laddr && laddr + e->len < (1ull << SQE_VA_BITS)));
        CHECK(e->rnode < lim.nodes && e->rnode < lim.peers);
        CHECK(e->rbuf <= PKT_MAX_BUF_ID);
    }
    free(e);
    return 0;
}
