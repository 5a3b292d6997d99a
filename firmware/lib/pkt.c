/*
 * pkt.c - encode, decode and validate NCP packets (docs/wire-protocol.md).
 *
 * Role map: pkt_parse() is the receive path's first step: everything it accepts has a known type,
 * a payload length that matches the frame and the MTU, and per-type fields within range; handles
 * (pid, buffer id, key) are checked later against the CBH cache by the receive path.
 */
#include "pkt.h"

#include "nic_abi.h"
#include "ncp_util.h"

const char *const pkt_err_name[PKT__ERRS] = {"ok", "short", "length", "wrong node", "bad source", "unknown type",
                                             "bad field"};
const char *const pkt_type_name[PKT__TYPES] = {"?", "WRITE", "READ_REQ", "READ_RESP", "ACK", "NACK"};

void pkt_encode(uint8_t *f, const struct pkt_hdr *h)
{
#if PKT_WORDS
    pkt_encode_words(f, h);
#else
    f[0] = (uint8_t)(h->dst >> 8);
    f[1] = (uint8_t)h->dst;
    f[2] = (uint8_t)(h->src >> 8);
    f[3] = (uint8_t)h->src;
    f[4] = h->type;
    f[5] = h->flags;
    ncp_st16(f + 6, h->len);
    ncp_st32(f + 8, h->seq);
    ncp_st32(f + 12, h->ack);
    ncp_st32(f + 16, h->op);
    ncp_st16(f + 20, h->pid);
    ncp_st16(f + 22, h->reason);
    ncp_st32(f + 24, h->buf);
    ncp_st32(f + 28, h->key);
    ncp_st32(f + 32, h->token);
    ncp_st32(f + 36, (uint32_t)h->off);
    ncp_st32(f + 40, (uint32_t)(h->off >> 32));
    ncp_st32(f + 44, h->xlen | (uint32_t)h->status);
#endif
}

void pkt_decode(const uint8_t *f, struct pkt_hdr *h)
{
#if PKT_WORDS
    const uint32_t *w = __builtin_assume_aligned(f, 4);
    uint32_t w0 = pkt_bswap16x2(w[0]), w1 = w[1], w5 = w[5];
    h->dst = (uint16_t)w0;
    h->src = (uint16_t)(w0 >> 16);
    h->type = (uint8_t)w1;
    h->flags = (uint8_t)(w1 >> 8);
    h->len = (uint16_t)(w1 >> 16);
    h->seq = w[2];
    h->ack = w[3];
    h->op = w[4];
    h->pid = (uint16_t)w5;
    h->reason = (uint16_t)(w5 >> 16);
    h->buf = w[6];
    h->key = w[7];
    h->token = w[8];
    h->off = (uint64_t)w[9] | (uint64_t)w[10] << 32;
    h->xlen = w[11];
    h->status = (int32_t)w[11];
#else
    h->dst = (uint16_t)(f[0] << 8 | f[1]);
    h->src = (uint16_t)(f[2] << 8 | f[3]);
    h->type = f[4];
    h->flags = f[5];
    h->len = ncp_ld16(f + 6);
    h->seq = ncp_ld32(f + 8);
    h->ack = ncp_ld32(f + 12);
    h->op = ncp_ld32(f + 16);
    h->pid = ncp_ld16(f + 20);
    h->reason = ncp_ld16(f + 22);
    h->buf = ncp_ld32(f + 24);
    h->key = ncp_ld32(f + 28);
    h->token = ncp_ld32(f + 32);
    h->off = (uint64_t)ncp_ld32(f + 36) | (uint64_t)ncp_ld32(f + 40) << 32;
    h->xlen = ncp_ld32(f + 44);
    h->status = (int32_t)h->xlen;
#endif
}

enum pkt_err pkt_parse(const uint8_t *f, uint32_t frame_len, uint16_t me, uint16_t nodes, uint32_t mtu,
                       struct pkt_hdr *h)
{
    return pkt_parse_src(f, frame_len, me, nodes, mtu, 0, h);
}

enum pkt_err pkt_parse_src(const uint8_t *f, uint32_t frame_len, uint16_t me, uint16_t nodes, uint32_t mtu, int loop,
                           struct pkt_hdr *h)
{
    if (frame_len < PKT_HDR_BYTES)
        return PKT_E_SHORT;
    pkt_decode(f, h);
    enum pkt_err e = pkt_hdr_check_src(h->dst, h->src, h->type, h->len, frame_len, me, nodes, mtu, loop);
    if (e != PKT_OK)
        return e;
    switch (h->type) {
    case PKT_WRITE:
        if (!pkt_write_ok(h->len, h->flags, h->buf, h->off, h->xlen))
            return PKT_E_FIELD;
        break;
    case PKT_READ_REQ:
        if (h->len != 0 || h->xlen == 0 || h->xlen > NIC_MAX_XFER || h->buf > PKT_MAX_BUF_ID ||
            h->off + h->xlen < h->off)
            return PKT_E_FIELD;
        break;
    case PKT_READ_RESP:
        if ((h->len == 0) != !!(h->flags & PKT_F_VOID) || h->off >= NIC_MAX_XFER)
            return PKT_E_FIELD;
        break;
    case PKT_ACK:
        if (h->len != 0)
            return PKT_E_FIELD;
        break;
    case PKT_NACK:
        if (h->len != 0 || h->reason == 0 || h->reason >= PKT__NACK_REASONS)
            return PKT_E_FIELD;
        break;
    default:
        return PKT_E_TYPE;
    }
    return PKT_OK;
}
