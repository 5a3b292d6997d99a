/*
 * mq.c - message queues (ABI 2.2, issue 15 item 7; seed 003's out-of-band queues as two-sided
 * sends to posted receive buffers; docs/wire-protocol.md "Message queues", docs/api.md).
 *
 * A node has NIC_MQ_QUEUES - 1 queues (ids 1..7). A process claims a free one with its first
 * NIC_OP_POST_RECV (the queue's key is the entry's rkey; the queue is its endpoint's until that
 * closes) and posts receive buffers into it: a ring of NIC_MQ_DEPTH descriptors (buffer id, offset,
 * capacity, the buffer's key) kept here, in NCP memory, filled in post order.
 *
 * A send is a one-segment WRITE with PKT_F_SEND | PKT_F_IMM | PKT_F_LAST naming the queue in `buf`,
 * its key in `key` and the sending process in `pid`. The receive path (responder.c, rsp_on_write)
 * asks mq_on_send: an unknown queue or a wrong key is refused (PROTECTION NACK, BAD_HANDLE / KEY:
 * nothing written, the sender's op fails), an empty ring is answered BUSY (the sender resends after
 * its NACK delay) up to NIC_MQ_RNR_TRIES times for that packet, then refused NIC_ST_RNR; a message
 * longer than the oldest buffer is refused NIC_ST_TOO_BIG and reported to the owner (NIC_EQE_RECV
 * with that status; the buffer stays posted). Otherwise the header is rewritten to the buffer
 * (owner pid, buffer id, its key, offset) and the general write path places it with the local-write
 * right: its checks (owner, key, bounds, rights, translation, misses) are the same as for a write;
 * the buffer leaves the ring only when the packet is accepted (mq_accepted), so a translation miss
 * or a refusal leaves it for the resend. The notification (evq.c, as a write with immediate's) goes
 * into the owner's NIC_EQF_NOTIFY queue when the data's DMA completed; the sender's ACK follows the
 * data too, so its completion says the bytes are in the buffer.
 *
 * Order and once-only: the transport accepts each packet once, in order per sender; a send carries
 * PKT_F_IMM, so selective repeat never accepts it out of order (rx.c rx_ooo). Buffers are taken in
 * acceptance order: messages of one sender land in its send order.
 */
#include <string.h>

#include "evq.h"
#include "mq.h"
#include "rx.h"
#include "tx.h"
#include "xlate.h"

#if NCP_MQ
_Static_assert(NIC_MQ_DEPTH && (NIC_MQ_DEPTH & (NIC_MQ_DEPTH - 1u)) == 0, "ring index");

struct mq_buf {
    uint32_t buf, off, len, key;
};

struct mq_q {
    uint8_t open;
    uint16_t pid, ep;
    uint32_t key;
    uint32_t head, tail; /* posted buffers [head, tail) */
    struct mq_buf b[NIC_MQ_DEPTH];
};

static struct mq_q mqs[NIC_MQ_QUEUES];
static uint32_t mq_pending; /* the queue of the send mq_on_send rewrote last */
static struct pkt_hdr mq_hdr;
/* RNR: per peer, the packet last answered BUSY for want of a buffer and how often (a sender has
 * one such packet at a time: sends are accepted in order) */
static uint32_t rnr_seq[NCP_MAX_PEERS];
static uint8_t rnr_n[NCP_MAX_PEERS];

static struct {
    uint32_t placed, rnr_nacks, refused;
} mq_cnt;

void mq_init(void)
{
    memset(mqs, 0, sizeof mqs);
    memset(rnr_n, 0, sizeof rnr_n);
    memset(&mq_cnt, 0, sizeof mq_cnt);
}

int32_t mq_post(uint32_t epi, uint16_t pid, const struct nic_sq_entry *e, uint64_t laddr)
{
    struct mq_q *q = &mqs[e->rbuf < NIC_MQ_QUEUES ? e->rbuf : 0];
    const struct nic_cbh_entry *b = NULL;

    if (q == mqs || !evq_notify_of(pid)) /* queue 0 is none; messages are reported there */
        return NIC_ST_BAD_HANDLE;
    if (q->open && (q->pid != pid || q->key != e->rkey))
        return NIC_ST_KEY;
    if (q->open && q->tail - q->head >= NIC_MQ_DEPTH)
        return NIC_ST_NO_RESOURCES;
    /* the local check (requester.c check_local) has just found the entry: a hit */
    if (xlate_cbh(pid, e->lbuf, &b, LKC_PATH_SEND) != XL_OK)
        return NIC_ST_BAD_HANDLE;
    uint64_t off = laddr - ((uint64_t)b->va_hi << 32 | b->va_lo);
    if (off >> 32)
        return NIC_ST_BOUNDS;
    if (!q->open) {
        q->open = 1;
        q->pid = pid;
        q->ep = (uint16_t)epi;
        q->key = e->rkey;
        q->head = q->tail = 0;
    }
    q->b[q->tail++ % NIC_MQ_DEPTH] = (struct mq_buf){e->lbuf, (uint32_t)off, e->len, b->key};
    /* an unsignalled post makes no DMA, so no event would bring the loop back to the endpoint's
     * next entry (ncp_work.ep_ready is not an event): ask for another pass */
    hal_raise_events(HAL_EV_DOORBELL);
    return NIC_ST_OK;
}

static void refuse(uint16_t peer, const struct pkt_hdr *h, int32_t st)
{
    ncp_sat_inc(&mq_cnt.refused);
    rx_refuse(peer, h, st);
}

const struct pkt_hdr *mq_on_send(uint16_t peer, const struct pkt_hdr *h, uint32_t ridx)
{
    uint32_t qid = h->buf < NIC_MQ_QUEUES ? h->buf : 0;
    struct mq_q *q = &mqs[qid];

    if (!qid || !q->open) {
        refuse(peer, h, NIC_ST_BAD_HANDLE);
        return NULL;
    }
    if (q->key != h->key) {
        refuse(peer, h, NIC_ST_KEY);
        return NULL;
    }
    if (h->xlen || !(h->flags & PKT_F_LAST)) { /* a send is one segment */
        refuse(peer, h, NIC_ST_BAD_DESC);
        return NULL;
    }
    if (q->head == q->tail) { /* receiver not ready: BUSY, the sender resends after its delay */
        if (rnr_seq[peer] != h->seq)
            rnr_n[peer] = 0;
        rnr_seq[peer] = h->seq;
        if (++rnr_n[peer] > NIC_MQ_RNR_TRIES) {
            rnr_n[peer] = 0;
            refuse(peer, h, NIC_ST_RNR);
        } else {
            ncp_sat_inc(&mq_cnt.rnr_nacks);
            tx_ctl(peer, PKT_NACK, PKT_NACK_BUSY, h->seq, h->op, 0);
        }
        return NULL;
    }
    const struct mq_buf *b = &q->b[q->head % NIC_MQ_DEPTH];
    struct ncp_imm x = {.pid = q->pid, .src = peer, .imm = qid, .len = h->len, .buf = b->buf, .off = b->off,
                        .spid = h->pid, .type = NIC_EQE_RECV};
    if (h->len > b->len) {
        refuse(peer, h, NIC_ST_TOO_BIG);
        x.status = NIC_ST_TOO_BIG;
        evq_notify(&x);
        return NULL;
    }
    evq_note(ridx, &x);
    mq_hdr = *h;
    mq_hdr.pid = q->pid;
    mq_hdr.buf = b->buf;
    mq_hdr.key = b->key;
    mq_hdr.off = b->off;
    mq_pending = qid;
    return &mq_hdr;
}

void mq_accepted(void)
{
    mqs[mq_pending].head++;
    ncp_sat_inc(&mq_cnt.placed);
}

void mq_ep_closed(uint32_t epi)
{
    for (uint32_t i = 1; i < NIC_MQ_QUEUES; i++)
        if (mqs[i].open && mqs[i].ep == epi)
            mqs[i].open = 0;
}

void mq_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)k;
    ncp_sat_add(&s->mq_placed, mq_cnt.placed);
    ncp_sat_add(&s->mq_rnr_nacks, mq_cnt.rnr_nacks);
    ncp_sat_add(&s->mq_refused, mq_cnt.refused);
}
#endif /* NCP_MQ */
