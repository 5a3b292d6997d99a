/*
 * pkt.h - the NCP wire format (docs/wire-protocol.md is the prose): one fixed 48-byte header,
 * then the payload. Bytes 0-1 are the destination node id, big-endian: the switch routes on them.
 * Bytes 2-3 the source node id, big-endian; every other multi-byte field is little-endian.
 * Portable: packs and validates byte buffers, never touches a register.
 */
#ifndef PKT_H
#define PKT_H

#include <stdint.h>

#include "nic_abi.h"

#define PKT_HDR_BYTES 48u
#define PKT_MAX_BUF_ID 0x00FFFFFFu /* buffer ids are 24-bit on the wire (CBH = pid + buffer id) */

enum pkt_type {
    PKT_WRITE = 1,     /* RDMA write data segment (sequenced) */
    PKT_READ_REQ = 2,  /* RDMA read request (sequenced, no payload) */
    PKT_READ_RESP = 3, /* RDMA read response data segment (sequenced, responder -> initiator) */
    PKT_ACK = 4,       /* cumulative acknowledgement only (not sequenced) */
    PKT_NACK = 5,      /* negative acknowledgement with a reason (not sequenced) */
    PKT__TYPES
};

#define PKT_F_RESYNC 0x01u /* the sender restarted its sequence here after giving up on a peer */
#define PKT_F_LAST 0x02u   /* last segment of its operation */
#define PKT_F_VOID 0x04u   /* WRITE / READ_RESP without data: consumes its sequence number only */
#define PKT_F_IMM 0x08u    /* WRITE, last segment (ABI 2.1): a write with immediate; `reason` = the
                            * immediate (every segment of the write carries it) */
#define PKT_F_CE 0x10u     /* congestion experienced: set by the switch on a frame it queued above
                            * its marking threshold (docs/wire-protocol.md "Flow and congestion control") */
#define PKT_F_ECE 0x20u    /* ACK: a packet of yours accepted since my last ACK frame carried CE */
#define PKT_F_SEND 0x40u   /* WRITE (ABI 2.2, with LAST | IMM, one segment): a two-sided send to message
                            * queue `buf` with its key `key`; `pid` = the sending process (firmware/src/mq.c,
                            * docs/wire-protocol.md "Message queues") */

/* ACK frames: the receiver's credit (packets beyond `ack` the sender may have in flight; 0: none
 * advertised) in the high byte of `reason` (the low byte is 0 on ACK frames). */
#define PKT_CREDIT(reason) ((uint32_t)(reason) >> 8)

enum pkt_nack_reason {
    PKT_NACK_GAP = 1,        /* seq is not the next expected one: resend from `ack` */
    PKT_NACK_MISS = 2,       /* translation miss at the receiver: packet `seq` dropped, retry soon */
    PKT_NACK_PROTECTION = 3, /* packet `seq` of op `op` violated protection; status in `status` */
    PKT_NACK_MALFORMED = 4,  /* packet `seq` was malformed for its type (not for the header) */
    PKT_NACK_BUSY = 5,       /* receiver out of a bounded resource: packet `seq` dropped, retry soon */
    PKT_NACK_RESUME = 6,     /* not a refusal: a fill arrived since a MISS to you; resend from `ack` now */
    PKT__NACK_REASONS
};

/* The decoded header. Field meaning per type: docs/wire-protocol.md. */
struct pkt_hdr {
    uint16_t dst, src;
    uint8_t type, flags;
    uint16_t len;    /* payload bytes after the header */
    uint32_t seq;    /* sequenced types: per (src, dst) sequence number; NACK: the packet it refers to */
    uint32_t ack;    /* cumulative: every sequenced packet from dst to src before `ack` was delivered */
    uint32_t op;     /* initiator's operation id (write, read req/resp, protection NACK) */
    uint16_t pid;    /* WRITE / READ_REQ: target process (with buf: the remote CBH) */
    uint16_t reason; /* NACK: enum pkt_nack_reason; WRITE: the immediate (PKT_F_IMM) or 0 */
    uint32_t buf;    /* WRITE / READ_REQ: target buffer id */
    uint32_t key;    /* WRITE / READ_REQ: the buffer's key */
    uint32_t token;  /* every type: the connection's token (src -> dst), checked by the receiver */
    uint64_t off;    /* WRITE / READ_REQ: byte offset in the target buffer; READ_RESP: in the operation */
    /* Word 11 is `xlen` for WRITE / READ_REQ and `status` for READ_RESP / NACK: a sender sets one
     * of the two (the other 0), pkt_decode fills both from the word. */
    uint32_t xlen;   /* READ_REQ: bytes requested; WRITE: byte offset of this segment in its op */
    int32_t status;  /* NACK protection, void READ_RESP: enum nic_status */
};

enum pkt_err {
    PKT_OK = 0,
    PKT_E_SHORT,     /* frame shorter than the header */
    PKT_E_LEN,       /* header length disagrees with the frame, or payload above the MTU */
    PKT_E_DST,       /* not addressed to this node */
    PKT_E_SRC,       /* source is this node or beyond the node count */
    PKT_E_TYPE,      /* unknown type */
    PKT_E_FIELD,     /* a per-type field out of range (reason, length, buffer id, offset) */
    PKT__ERRS
};

extern const char *const pkt_err_name[PKT__ERRS];
extern const char *const pkt_type_name[PKT__TYPES];

/* `frame` must be 4-byte aligned (frames and RX buffers are 16-byte aligned in SRAM). */
void pkt_encode(uint8_t *frame, const struct pkt_hdr *h);

/*
 * Word-wise: on a little-endian core each 32-bit field is one store/load, the big-endian node ids
 * of word 0 a byte swap. PKT_ENCODE is the inline form for the fast path (the compiler keeps the
 * header in registers); elsewhere it is pkt_encode (byte by byte).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PKT_WORDS 1
static inline uint32_t pkt_bswap16x2(uint32_t v) /* swaps the bytes within each 16-bit half */
{
#ifdef __riscv_zbb
    uint32_t r;
    __asm__("rev8 %0, %1" : "=r"(r) : "r"(v)); /* (gcc 12 calls __bswapsi2 for __builtin_bswap32 on RV32) */
    return r >> 16 | r << 16;                  /* rori */
#else
    return (v & 0x00FF00FFu) << 8 | (v >> 8 & 0x00FF00FFu);
#endif
}

static inline void pkt_encode_words(uint8_t *f, const struct pkt_hdr *h)
{
    uint32_t *w = (uint32_t *)__builtin_assume_aligned(f, 4);
    w[0] = pkt_bswap16x2((uint32_t)h->dst | (uint32_t)h->src << 16);
    w[1] = (uint32_t)h->type | (uint32_t)h->flags << 8 | (uint32_t)h->len << 16;
    w[2] = h->seq;
    w[3] = h->ack;
    w[4] = h->op;
    w[5] = (uint32_t)h->pid | (uint32_t)h->reason << 16;
    w[6] = h->buf;
    w[7] = h->key;
    w[8] = h->token;
    w[9] = (uint32_t)h->off;
    w[10] = (uint32_t)(h->off >> 32);
    w[11] = h->xlen | (uint32_t)h->status;
}
#define PKT_ENCODE pkt_encode_words

/* Word indices and packing of the header, for code that writes a frame's header in place. */
enum { PKT_W_NODES, PKT_W_TYPE, PKT_W_SEQ, PKT_W_ACK, PKT_W_OP, PKT_W_PID, PKT_W_BUF, PKT_W_KEY,
       PKT_W_TOKEN, PKT_W_OFF_LO, PKT_W_OFF_HI, PKT_W_XLEN, PKT_W_STATUS = PKT_W_XLEN };
static inline uint32_t pkt_w_nodes(uint16_t dst, uint16_t src)
{
    return pkt_bswap16x2((uint32_t)dst | (uint32_t)src << 16);
}
static inline uint32_t pkt_w_type(uint32_t type, uint32_t flags, uint32_t len)
{
    return type | flags << 8 | len << 16;
}
static inline uint32_t pkt_w_pid(uint16_t pid, uint16_t reason)
{
    return (uint32_t)pid | (uint32_t)reason << 16;
}
#else
#define PKT_WORDS 0
#define PKT_ENCODE pkt_encode
#endif
void pkt_decode(const uint8_t *frame, struct pkt_hdr *h);

/*
 * Validates a received frame of `frame_len` bytes (without CRC) for node `me` of `nodes`, with
 * payloads up to `mtu`, and decodes it into *h. Never trusts a length from the frame.
 */
enum pkt_err pkt_parse(const uint8_t *frame, uint32_t frame_len, uint16_t me, uint16_t nodes, uint32_t mtu,
                       struct pkt_hdr *h);
/* pkt_parse for a frame from the wire (loop 0: its source may not be `me`) or from the node's
 * own loopback (loop 1: its source must be `me`; docs/wire-protocol.md "Loopback"). */
enum pkt_err pkt_parse_src(const uint8_t *frame, uint32_t frame_len, uint16_t me, uint16_t nodes, uint32_t mtu,
                           int loop, struct pkt_hdr *h);

/*
 * The rules of pkt_parse as inline predicates, so that a fast path that reads the header words in
 * place (firmware/src/rx.c, rx_fast) decides with the same code: the header's addressing, type and
 * length, then a WRITE's fields.
 */
static inline __attribute__((always_inline)) enum pkt_err
pkt_hdr_check_src(uint32_t dst, uint32_t src, uint32_t type, uint32_t len, uint32_t frame_len, uint16_t me,
                  uint16_t nodes, uint32_t mtu, int loop)
{
    if (dst != me)
        return PKT_E_DST;
    if ((src == me) != !!loop || src >= nodes) /* a switch does not send a frame back to its sender */
        return PKT_E_SRC;
    if (type == 0 || type >= PKT__TYPES)
        return PKT_E_TYPE;
    if (len != frame_len - PKT_HDR_BYTES || len > mtu)
        return PKT_E_LEN;
    return PKT_OK;
}
static inline __attribute__((always_inline)) enum pkt_err pkt_hdr_check(uint32_t dst, uint32_t src, uint32_t type,
                                                                         uint32_t len, uint32_t frame_len, uint16_t me,
                                                                         uint16_t nodes, uint32_t mtu)
{
    return pkt_hdr_check_src(dst, src, type, len, frame_len, me, nodes, mtu, 0);
}
static inline __attribute__((always_inline)) int pkt_write_ok(uint32_t len, uint32_t flags, uint32_t buf, uint64_t off,
                                                              uint32_t xlen)
{
    return (len == 0) == !!(flags & PKT_F_VOID) && buf <= PKT_MAX_BUF_ID && off + len >= off && xlen < NIC_MAX_XFER;
}

static inline int pkt_is_sequenced(uint8_t type)
{
    return type == PKT_WRITE || type == PKT_READ_REQ || type == PKT_READ_RESP;
}

#endif /* PKT_H */
