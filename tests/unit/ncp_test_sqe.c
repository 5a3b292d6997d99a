/*
 * Unit tests of the send queue entry validation (firmware/lib/sqe.c): every rule of enum
 * sqe_rule at its boundaries (accepted just inside, NIC_ST_BAD_DESC just outside, with that rule
 * reported), the order in which rules are reported, and fields that carry no rule (key, process
 * handle, wr_id, the local buffer handle lbuf, which send.c checks against the CBH) accepted with
 * any value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nic_abi.h"
#include "ncp_util.h"
#include "pkt.h"
#include "sqe.h"

void ncp_on_assert(unsigned module, unsigned id)
{
    fail_msg("NCP_ASSERT module %u id %u", module, id);
}

static const struct sqe_limits lim = {.me = 2, .nodes = 5, .peers = 16};

static struct nic_sq_entry good(void)
{
    struct nic_sq_entry e;
    memset(&e, 0, sizeof e);
    e.op = NIC_OP_RDMA_WRITE;
    e.flags = NIC_WR_SIGNALED;
    e.rnode = 1;
    e.len = 4096;
    e.laddr_lo = 0x1000;
    e.laddr_hi = 0x7;
    e.rbuf = 3;
    e.rpid = 0x1234;
    e.roff_lo = 0x10;
    e.rkey = 0xCAFEF00D;
    e.wr_id_lo = 1;
    e.wr_id_hi = 2;
    return e;
}

/* The verdict and the rule reported; also checks the NULL `why` form agrees. */
static void expect(const struct nic_sq_entry *e, const struct sqe_limits *l, enum sqe_rule rule)
{
    enum sqe_rule why = SQE__RULES; /* not a verdict: must be overwritten */
    int32_t st = sqe_validate(e, l, &why);
    assert_int_equal(why, rule);
    assert_int_equal(st, rule == SQE_OK ? NIC_ST_OK : NIC_ST_BAD_DESC);
    assert_int_equal(sqe_validate(e, l, NULL), st);
    /* the NCP's shortcut: exactly the well-formed plain writes and reads */
    uint32_t rnodes = l->nodes < l->peers ? l->nodes : l->peers;
    int plain = ((e->op == NIC_OP_RDMA_WRITE || e->op == NIC_OP_RDMA_READ) && !(e->flags & ~NIC_WR_SIGNALED)) ||
                (e->op == NIC_OP_RDMA_WRITE && (e->flags & ~NIC_WR_SIGNALED) == NIC_WR_INLINE); /* ABI 2.4 */
    assert_int_equal(sqe_plain_ok(e, rnodes), st == NIC_ST_OK && plain);
}

static void sqe_accepts_well_formed_write_and_read(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    expect(&e, &lim, SQE_OK);
    e.op = NIC_OP_RDMA_READ;
    expect(&e, &lim, SQE_OK);
    e.flags = 0; /* unsignalled */
    expect(&e, &lim, SQE_OK);
}

static void sqe_op_and_flags(void **state)
{
    static const uint8_t bad_ops[] = {0, NIC_OP_SEND, 5, 0x81, 0xFF}; /* (3: NIC_OP_POST_RECV, ABI 2.2) */
    struct nic_sq_entry e = good();
    (void)state;
    for (unsigned i = 0; i < sizeof bad_ops; i++) {
        e.op = bad_ops[i];
        expect(&e, &lim, SQE_R_OP);
    }
    e = good();
    for (unsigned b = 1; b < 8; b++) {
        if (1u << b == NIC_WR_IMM || 1u << b == NIC_WR_SEND || 1u << b == NIC_WR_INLINE)
            continue; /* ABI 2.1: a write with immediate; 2.2: a send; 2.4: inline (below) */
        e.flags = (uint8_t)(NIC_WR_SIGNALED | 1u << b);
        expect(&e, &lim, SQE_R_FLAGS);
        e.flags = (uint8_t)(1u << b);
        expect(&e, &lim, SQE_R_FLAGS);
    }
}

/* ABI 2.1: NIC_WR_IMM on a write, the immediate (16 bits) in reserved1[0]; not on a read; beyond
 * 16 bits, or in reserved1[0] without the flag, or in the other reserved words: refused. */
static void sqe_write_with_imm(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    e.op = NIC_OP_RDMA_WRITE;
    e.flags = NIC_WR_SIGNALED | NIC_WR_IMM;
    expect(&e, &lim, SQE_OK);
    e.reserved1[0] = NIC_IMM_MAX;
    expect(&e, &lim, SQE_OK);
    e.reserved1[0] = NIC_IMM_MAX + 1u;
    expect(&e, &lim, SQE_R_RESERVED);
    e.reserved1[0] = 5;
    e.reserved1[1] = 1;
    expect(&e, &lim, SQE_R_RESERVED);
    e.reserved1[1] = 0;
    e.flags = NIC_WR_SIGNALED;
    expect(&e, &lim, SQE_R_RESERVED); /* an immediate without the flag */
    e.reserved1[0] = 0;
    e.flags = NIC_WR_IMM;
    e.op = NIC_OP_RDMA_READ;
    expect(&e, &lim, SQE_R_FLAGS);
}

/* ABI 2.2: a send (NIC_WR_SEND on a write): one segment (len <= the MTU and NIC_MSG_MAX), no
 * remote offset or process, not with an immediate, not on a read; a receive post
 * (NIC_OP_POST_RECV): to this node, no remote offset or process, no IMM/SEND flag. */
static void sqe_message_queues(void **state)
{
    struct nic_sq_entry e = good();
    struct sqe_limits l = lim;
    (void)state;
    e.flags = NIC_WR_SEND;
    e.rpid = 0;
    e.roff_lo = 0;
    e.len = NIC_MSG_MAX;
    expect(&e, &lim, SQE_OK);
    e.len = NIC_MSG_MAX + 1u;
    expect(&e, &lim, SQE_R_MQ);
    l.mtu = 1024;
    e.len = 1024;
    expect(&e, &l, SQE_OK);
    e.len = 1025;
    expect(&e, &l, SQE_R_MQ); /* beyond the MTU: more than one segment */
    e.len = 64;
    e.roff_lo = 1;
    expect(&e, &lim, SQE_R_MQ);
    e.roff_lo = 0;
    e.roff_hi = 1;
    expect(&e, &lim, SQE_R_MQ);
    e.roff_hi = 0;
    e.rpid = 7;
    expect(&e, &lim, SQE_R_MQ);
    e.rpid = 0;
    e.flags = NIC_WR_SEND | NIC_WR_IMM;
    expect(&e, &lim, SQE_R_FLAGS);
    e.flags = NIC_WR_SEND;
    e.op = NIC_OP_RDMA_READ;
    expect(&e, &lim, SQE_R_FLAGS);
    /* receive posts */
    e = good();
    e.op = NIC_OP_POST_RECV;
    e.rnode = lim.me;
    e.rpid = 0;
    e.roff_lo = 0;
    e.len = NIC_MAX_XFER; /* a buffer may be larger than any message */
    expect(&e, &lim, SQE_OK);
    e.rnode = 1;
    expect(&e, &lim, SQE_R_MQ); /* another node's queue */
    e.rnode = lim.me;
    e.roff_lo = 8;
    expect(&e, &lim, SQE_R_MQ);
    e.roff_lo = 0;
    e.rpid = 1;
    expect(&e, &lim, SQE_R_MQ);
    e.rpid = 0;
    e.flags = NIC_WR_SEND;
    expect(&e, &lim, SQE_R_FLAGS);
    e.flags = NIC_WR_IMM;
    expect(&e, &lim, SQE_R_FLAGS);
    e.flags = NIC_WR_SIGNALED;
    e.len = 0;
    expect(&e, &lim, SQE_R_LEN);
}

/* ABI 2.4: an inline write (NIC_WR_INLINE): len <= NIC_INLINE_MAX; its data words (laddr,
 * lbuf, reserved1[1..3]) carry no rule; with an immediate (reserved1[0]) or as a send; not on a
 * read or a receive post; reserved0 and a flag outside the set still refused. */
static void sqe_inline_write(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    e.flags = NIC_WR_SIGNALED | NIC_WR_INLINE;
    e.len = NIC_INLINE_MAX;
    expect(&e, &lim, SQE_OK);
    e.len = 1;
    expect(&e, &lim, SQE_OK);
    e.len = NIC_INLINE_MAX + 1u;
    expect(&e, &lim, SQE_R_LEN);
    e.len = 0;
    expect(&e, &lim, SQE_R_LEN);
    e.len = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_R_LEN);
    e.len = 8;
    for (unsigned i = 0; i < NIC_INLINE_MAX / 4u; i++) { /* every data word, any value */
        uint32_t w[sizeof e / 4];
        memcpy(w, &e, sizeof w);
        w[NIC_INLINE_WORD(i)] = 0xFFFFFFFFu;
        memcpy(&e, w, sizeof e);
        expect(&e, &lim, SQE_OK);
    }
    assert_int_equal(e.laddr_lo & e.laddr_hi & e.lbuf & e.reserved1[1] & e.reserved1[2] & e.reserved1[3], 0xFFFFFFFFu);
    assert_int_equal(e.reserved1[0], 0); /* not a data word: the immediate's */
    e.flags = 0 | NIC_WR_INLINE; /* unsignalled */
    expect(&e, &lim, SQE_OK);
    e.flags = NIC_WR_INLINE | NIC_WR_IMM;
    e.reserved1[0] = NIC_IMM_MAX;
    expect(&e, &lim, SQE_OK);
    e.flags = NIC_WR_INLINE;
    expect(&e, &lim, SQE_R_RESERVED); /* an immediate without its flag */
    e.reserved1[0] = 0;
    e.reserved0 = 1;
    expect(&e, &lim, SQE_R_RESERVED);
    e.reserved0 = 0;
    e.flags = NIC_WR_INLINE | NIC_WR_SEND;
    e.rpid = 0;
    e.roff_lo = 0;
    expect(&e, &lim, SQE_OK); /* an inline send */
    e.flags = NIC_WR_INLINE | 0x10u;
    expect(&e, &lim, SQE_R_FLAGS);
    e.flags = NIC_WR_INLINE;
    e.op = NIC_OP_RDMA_READ;
    expect(&e, &lim, SQE_R_FLAGS);
    e.op = NIC_OP_POST_RECV;
    e.rnode = lim.me;
    expect(&e, &lim, SQE_R_FLAGS);
    e.op = NIC_OP_RDMA_WRITE;
    e.rnode = 1;
    e.roff_hi = 1u << (SQE_VA_BITS - 32); /* the other rules hold */
    expect(&e, &lim, SQE_R_ROFF);
    e.roff_hi = 0;
    e.rbuf = PKT_MAX_BUF_ID + 1;
    expect(&e, &lim, SQE_R_RBUF);
    e.rbuf = 3;
    e.rnode = lim.nodes;
    expect(&e, &lim, SQE_R_RNODE);
    /* the data words' layout: laddr_lo, laddr_hi, lbuf, reserved1[1..3] */
    assert_int_equal(NIC_INLINE_WORD(0) * 4u, offsetof(struct nic_sq_entry, laddr_lo));
    assert_int_equal(NIC_INLINE_WORD(1) * 4u, offsetof(struct nic_sq_entry, laddr_hi));
    assert_int_equal(NIC_INLINE_WORD(2) * 4u, offsetof(struct nic_sq_entry, lbuf));
    assert_int_equal(NIC_INLINE_WORD(3) * 4u, offsetof(struct nic_sq_entry, reserved1[1]));
    assert_int_equal(NIC_INLINE_WORD(5) * 4u, offsetof(struct nic_sq_entry, reserved1[3]));
    assert_int_equal(NIC_INLINE_MAX, 24);
    /* nic_sqe_inline_pack: byte i at word NIC_INLINE_WORD(i / 4), bits 8 * (i % 4); the rest 0 */
    uint8_t data[NIC_INLINE_MAX];
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0x11u * (i + 1u));
    for (uint32_t len = 0; len <= NIC_INLINE_MAX; len++) {
        uint32_t w[sizeof e / 4];
        memset(&e, 0xA5, sizeof e);
        nic_sqe_inline_pack(&e, data, len);
        memcpy(w, &e, sizeof w);
        for (unsigned i = 0; i < NIC_INLINE_MAX; i++)
            assert_int_equal((w[NIC_INLINE_WORD(i / 4u)] >> (8u * (i % 4u))) & 0xFFu, i < len ? data[i] : 0u);
        assert_int_equal(e.reserved1[0], 0xA5A5A5A5u); /* not a data word */
        assert_int_equal(e.rkey, 0xA5A5A5A5u);
    }
}

static void sqe_length_bounds(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    e.len = 0;
    expect(&e, &lim, SQE_R_LEN);
    e.len = 1;
    expect(&e, &lim, SQE_OK);
    e.len = NIC_MAX_XFER;
    expect(&e, &lim, SQE_OK);
    e.len = NIC_MAX_XFER + 1;
    expect(&e, &lim, SQE_R_LEN);
    e.len = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_R_LEN);
}

static void sqe_local_address_bounds(void **state)
{
    const uint64_t top = 1ull << SQE_VA_BITS;
    struct nic_sq_entry e = good();
    (void)state;
    /* the last byte must be below 2^44 - 1 (laddr + len < 2^44) */
    uint64_t la = top - 1 - e.len;
    e.laddr_lo = (uint32_t)la;
    e.laddr_hi = (uint32_t)(la >> 32);
    expect(&e, &lim, SQE_OK);
    la++;
    e.laddr_lo = (uint32_t)la;
    e.laddr_hi = (uint32_t)(la >> 32);
    expect(&e, &lim, SQE_R_LADDR);
    la = top; /* start beyond */
    e.laddr_lo = (uint32_t)la;
    e.laddr_hi = (uint32_t)(la >> 32);
    expect(&e, &lim, SQE_R_LADDR);
    e.laddr_lo = 0;
    e.laddr_hi = 0xFFFFFFFFu; /* high bits: no wrap of laddr + len can make it pass */
    e.len = NIC_MAX_XFER;
    expect(&e, &lim, SQE_R_LADDR);
    e.laddr_lo = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_R_LADDR);
    e.laddr_hi = 0;
    e.laddr_lo = 0;
    expect(&e, &lim, SQE_OK); /* address 0 is a matter for the PCH, not for the entry */
}

static void sqe_remote_offset_bounds(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    e.roff_lo = 0xFFFFFFFFu;
    e.roff_hi = (1u << (SQE_VA_BITS - 32)) - 1;
    expect(&e, &lim, SQE_OK); /* the target checks offset + len against its buffer */
    e.roff_lo = 0;
    e.roff_hi = 1u << (SQE_VA_BITS - 32);
    expect(&e, &lim, SQE_R_ROFF);
    e.roff_hi = 0x80000000u;
    expect(&e, &lim, SQE_R_ROFF);
}

static void sqe_remote_node(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    for (uint32_t n = 0; n < 0x10000; n += (n < 40 ? 1 : 997)) {
        e.rnode = (uint16_t)n;
        expect(&e, &lim, n < lim.nodes ? SQE_OK : SQE_R_RNODE); /* lim.me too: loopback */
    }
    e.rnode = 0xFFFF;
    expect(&e, &lim, SQE_R_RNODE);
    /* more nodes than the peer table: the table bounds it */
    struct sqe_limits big = {.me = 0, .nodes = 100, .peers = 16};
    e.rnode = 15;
    expect(&e, &big, SQE_OK);
    e.rnode = 16;
    expect(&e, &big, SQE_R_RNODE);
    e.rnode = 0;
    expect(&e, &big, SQE_OK); /* itself: a loopback (issue 15) */
}

static void sqe_remote_buffer_id(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    e.rbuf = PKT_MAX_BUF_ID;
    expect(&e, &lim, SQE_OK);
    e.rbuf = PKT_MAX_BUF_ID + 1;
    expect(&e, &lim, SQE_R_RBUF);
    e.rbuf = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_R_RBUF);
}

static void sqe_reserved_words(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    e.reserved0 = 1;
    expect(&e, &lim, SQE_R_RESERVED);
    e.reserved0 = 0x8000;
    expect(&e, &lim, SQE_R_RESERVED);
    e.reserved0 = 0;
    for (unsigned i = 0; i < sizeof e.reserved1 / sizeof e.reserved1[0]; i++) {
        for (unsigned b = 0; b < 32; b += 31) {
            e.reserved1[i] = 1u << b;
            expect(&e, &lim, SQE_R_RESERVED);
        }
        e.reserved1[i] = 0;
        expect(&e, &lim, SQE_OK);
    }
}

static void sqe_free_fields_and_rule_order(void **state)
{
    struct nic_sq_entry e = good();
    (void)state;
    /* key, process handle, wr_id and lbuf carry no rule here */
    e.lbuf = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_OK);
    e.rkey = 0;
    e.rpid = 0xFFFF;
    e.wr_id_lo = e.wr_id_hi = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_OK);
    /* several rules broken: the first in enum order is reported, whatever the others */
    e.rbuf = 0xFFFFFFFFu;
    e.reserved0 = 1;
    expect(&e, &lim, SQE_R_RBUF);
    e.rnode = lim.nodes;
    expect(&e, &lim, SQE_R_RNODE);
    e.roff_hi = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_R_ROFF);
    e.laddr_hi = 0xFFFFFFFFu;
    expect(&e, &lim, SQE_R_LADDR);
    e.len = 0;
    expect(&e, &lim, SQE_R_LEN);
    e.flags = 0x80;
    expect(&e, &lim, SQE_R_FLAGS);
    e.op = 0;
    expect(&e, &lim, SQE_R_OP);
    /* every rule has a name */
    for (unsigned r = 0; r < SQE__RULES; r++)
        assert_non_null(sqe_rule_name[r]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sqe_accepts_well_formed_write_and_read),
        cmocka_unit_test(sqe_op_and_flags),
        cmocka_unit_test(sqe_write_with_imm),
        cmocka_unit_test(sqe_message_queues),
        cmocka_unit_test(sqe_inline_write),
        cmocka_unit_test(sqe_length_bounds),
        cmocka_unit_test(sqe_local_address_bounds),
        cmocka_unit_test(sqe_remote_offset_bounds),
        cmocka_unit_test(sqe_remote_node),
        cmocka_unit_test(sqe_remote_buffer_id),
        cmocka_unit_test(sqe_reserved_words),
        cmocka_unit_test(sqe_free_fields_and_rule_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
