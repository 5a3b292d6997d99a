/*
 * systest_mq - cluster tests of message queues (issue 15 item 7, seed 003's out-of-band queues:
 * two-sided sends into posted receive buffers) through the driver, the library and the NCP on
 * Verilated nodes. Node 0 runs the receiver process: an event queue with NIC_EQ_NOTIFY, a buffer
 * registered for local writes only (guard bytes everywhere), a message queue of posted buffers.
 * The unpinned-DMA oracle is armed; nothing may stay pinned.
 *
 *   deliver SEED  3 nodes, drops, duplicates and delays on every link: senders on node 1, node 2
 *                 and a second process on node 0 (loopback) each send MD_N messages of 1 .. 4096
 *                 bytes to the receiver's queue, several in flight; the receiver re-posts each buffer
 *                 after checking its message. Every message lands exactly once, in send order per
 *                 sender, in the oldest posted buffer, with its length, source node and process, its
 *                 bytes in place and nothing written past it (guards); every send completes
 *                 SUCCESS; nic_stats.mq_placed on node 0 = the messages; nothing more arrives.
 *   errors        2 nodes, node 1 sends to node 0:
 *                 RNR then success: the receiver's ring is empty for 200 us, a send waits (BUSY
 *                 answers, mq_rnr_nacks > 0) and lands when a buffer is posted late;
 *                 RNR error: no buffer for 2 ms: the send fails NIC_WC_RNR, counted (mq_refused),
 *                 and the next send lands once a buffer is posted (the connection goes on);
 *                 overflow: a 300-byte message to a 100-byte buffer: NIC_WC_TOO_BIG at the sender,
 *                 NIC_EV_RECV with NIC_WC_TOO_BIG and the length at the receiver, nothing written
 *                 (guards), the buffer stays posted and takes the next message that fits;
 *                 bad key, unknown queue: NIC_WC_KEY, NIC_WC_BAD_HANDLE, counted, nothing written;
 *                 another process's post to the queue: NIC_WC_KEY; a post beyond NIC_MQ_DEPTH
 *                 buffers: NIC_WC_NO_RESOURCES; a post without a notify queue: NIC_ENOEQ.
 *
 * Exit: 0 pass, 1 fail.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "coro.h"
#include "hostsw.h"
#include "nic.h"
#include "systest_util.h"

#define MAXN 3
#define VA_R 0x30000000ull /* the receiver's buffer region */
#define R_LEN (128u << 10)
#define R_SLOT 8192u       /* posted buffer k at VA_R + k * R_SLOT + R_SKEW */
#define R_SKEW 40u
#define VA_S 0x20000000ull /* a sender's message source */
#define S_LEN (64u << 10)
#define GUARD 0xEEu
#define QID 3u
#define QKEY 0x5EC0DE42u
#define WAITC 20000000ull /* 100 ms */
#define MD_N 40u /* messages per sender */
#define NSEND 3u /* senders: node 1, node 2, node 0 (loopback) */

enum mode { M_DELIVER, M_ERRORS, M__N };

struct run {
    enum mode mode;
    unsigned nodes;
    uint64_t seed;
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[MAXN];
    uint8_t *img;
    size_t img_len;
    unsigned done, progs, failed;
    int ready;          /* the receiver's queue has buffers posted */
    int rx_open;        /* the receiver's process is open (errors: its queue not claimed yet) */
    int probed0;        /* node 0's driver is up */
    uint32_t rpid;      /* the receiver's process */
    uint32_t spid[NSEND];
    uint32_t len[NSEND][MD_N];
    unsigned sent_ok[NSEND];
    int senders_done;
    int step, step_ack;  /* errors: the receiver's and the sender's progress through the steps */
    int may_close;
};

struct prog {
    struct run *r;
    unsigned node, sender;
};

#define CHECK(cond) SYSTEST_CHECK("systest_mq", cond)
#define CHECK_RC(call, want) SYSTEST_CHECK_RC("systest_mq", call, want, nic_strerror)

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint8_t mbyte(unsigned s, unsigned k, uint32_t i)
{
    return (uint8_t)(s * 37u + k * 11u + i * 7u + (i >> 8) + 1u);
}

static os_t *os_of(struct run *r, unsigned n)
{
    return node_os(cluster_node(r->cl, n));
}

static void close_node(struct prog *p, nic_dev_t *dev, int remove)
{
    struct run *r = p->r;
    os_t *os = os_of(r, p->node);
    if (dev)
        nic_dev_close(dev);
    if (!remove)
        return;
    nicdrv_remove(hostsw_driver(r->hs[p->node]));
    if (os_pinned_pages_total(os)) {
        fprintf(stderr, "systest_mq: node %u: %" PRIu64 " pages still pinned\n", p->node, os_pinned_pages_total(os));
        r->failed++;
    }
}

/* A guard-filled, locally-writable region of the receiver; a post of buffer k of cap bytes. */
static int post_buf(nic_dev_t *dev, nic_ep_t ep, unsigned k, uint32_t cap)
{
    struct nic_wr wr = { .local_va = VA_R + k * R_SLOT + R_SKEW, .len = cap, .wr_id = 1000 + k };
    return nic_post_recv(dev, ep, QID, QKEY, &wr);
}

/* Every byte of [lo, +len) of the receiver's region outside [from, from + n) is the guard; inside, message (s, k). */
static int check_window(struct run *r, unsigned s, unsigned k, uint64_t from, uint32_t n, uint8_t *buf, uint64_t lo,
                        uint32_t len)
{
    if (os_read(os_of(r, 0), r->rpid, lo, buf, len))
        return -1;
    for (uint64_t i = 0; i < len; i++) {
        uint64_t va = lo + i;
        uint8_t want = va >= from && va < from + n ? mbyte(s, k, (uint32_t)(va - from)) : GUARD;
        if (buf[i] != want) {
            fprintf(stderr, "systest_mq: receiver byte at +0x%" PRIx64 " is 0x%02x, want 0x%02x\n", (uint64_t)(va - VA_R), buf[i], want);
            return -1;
        }
    }
    return 0;
}

static int check_region(struct run *r, unsigned s, unsigned k, uint64_t from, uint32_t n, uint8_t *buf)
{
    return check_window(r, s, k, from, n, buf, VA_R, R_LEN);
}

static int guard_fill(struct run *r, uint64_t va, uint32_t n)
{
    uint8_t *b = malloc(n);
    int rc;
    if (!b)
        return -1;
    memset(b, GUARD, n);
    rc = os_write(os_of(r, 0), r->rpid, va, b, n);
    free(b);
    return rc;
}

/* ---- the receiver (node 0) ---- */
static void prog_recv(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[0]);
    os_t *os = os_of(r, 0);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    char err[200] = "";
    const struct nic_eq_attr notify = { .flags = NIC_EQ_NOTIFY };
    struct nic_mr mr;
    static uint8_t buf[R_LEN];
    unsigned fifo[64], fh = 0, ft = 0, next[NSEND] = { 0 }, total = 0;
    struct nic_stats st;
    struct nic_wc wc;

    CHECK_RC(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err), NICDRV_OK);
    r->probed0 = 1;
    CHECK(os_proc_create(os, 48, &r->rpid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, r->rpid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    CHECK(guard_fill(r, VA_R, R_LEN) == 0);
    CHECK_RC(nic_reg(dev, VA_R, R_LEN, NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    CHECK_RC(post_buf(dev, ep, 0, 64), NIC_ENOEQ); /* messages are reported in a notify queue */
    nic_dev_close(dev);
    CHECK_RC(nic_dev_open(drv, r->rpid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_eq_open(dev, &notify), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    CHECK_RC(nic_reg(dev, VA_R, R_LEN, NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    r->rx_open = 1;
    if (r->mode == M_DELIVER) {
        for (unsigned k = 0; k < NIC_MQ_DEPTH; k++) {
            CHECK_RC(post_buf(dev, ep, k, 4096), NIC_OK);
            fifo[ft++ % 64] = k;
        }
        r->ready = 1;
        while (total < NSEND * MD_N) {
            struct nic_ev ev;
            CHECK_RC(nic_eq_wait(dev, &ev, WAITC), NIC_OK);
            if (ev.kind == NIC_EV_COMPLETION) { /* a post's error (posts are unsignalled) */
                CHECK(ev.wc.status == NIC_WC_SUCCESS && ev.wc.op == NIC_OP_POST_RECV);
                continue;
            }
            CHECK(ev.kind == NIC_EV_RECV && ev.status == NIC_WC_SUCCESS && ev.queue == QID && ev.handle == mr.handle);
            unsigned s = NSEND;
            for (unsigned i = 0; i < NSEND; i++)
                if (ev.src_node == (i == 2 ? 0 : i + 1) && ev.src_pid == r->spid[i])
                    s = i;
            CHECK(s < NSEND && next[s] < MD_N);
            unsigned k = fifo[fh % 64];
            uint64_t at = VA_R + k * R_SLOT + R_SKEW;
            CHECK(ev.offset == at - VA_R); /* the oldest posted buffer */
            CHECK(ev.len == r->len[s][next[s]]);  /* in send order: the next message of its sender */
            /* its slot: the message, the guard around it (other slots may be filling meanwhile) */
            CHECK(check_window(r, s, next[s], at, ev.len, buf, VA_R + k * R_SLOT, R_SLOT) == 0);
            CHECK(guard_fill(r, at, ev.len) == 0);
            fh++;
            next[s]++;
            total++;
            CHECK_RC(post_buf(dev, ep, k, 4096), NIC_OK);
            fifo[ft++ % 64] = k;
        }
        while (!r->senders_done && !r->failed)
            coro_sleep(20000);
        {
            struct nic_ev ev; /* nothing more: no duplicate */
            CHECK_RC(nic_eq_wait(dev, &ev, 400000), NIC_ETIMEDOUT);
        }
        CHECK_RC(nicdrv_nic_stats(drv, &st), NICDRV_OK);
        CHECK(st.mq_placed == NSEND * MD_N && st.mq_refused == 0 && st.eq_lost == 0);
        printf("systest_mq: deliver: %u messages from %u senders (one on this node), each once, in order, bytes "
               "verified, guards intact; duplicates dropped %u, BUSY for want of a buffer %u\n",
               total, NSEND, st.dup_packets, st.mq_rnr_nacks);
    } else {
        struct nic_ev ev;
#define WAIT_ACK(n)                                                                                        \
    while (r->step_ack < (n) && !r->failed)                                                                \
    coro_sleep(1000)
        WAIT_ACK(1); /* the sender's send to a queue nobody has claimed: refused */
        CHECK_RC(post_buf(dev, ep, 0, 4096), NIC_OK); /* claims the queue */
        r->step = 1;
        CHECK_RC(nic_eq_wait(dev, &ev, WAITC), NIC_OK); /* message 8: 16 bytes */
        CHECK(ev.kind == NIC_EV_RECV && ev.status == NIC_WC_SUCCESS && ev.len == 16 && ev.src_node == 1 &&
              ev.offset == R_SKEW);
        CHECK(check_region(r, 0, 8, VA_R + R_SKEW, 16, buf) == 0);
        CHECK(guard_fill(r, VA_R + R_SKEW, 16) == 0);
        /* RNR then success: the ring is empty when message 0 comes; a buffer 200 us later */
        r->step = 2;
        WAIT_ACK(2);
        coro_sleep(40000);
        CHECK_RC(post_buf(dev, ep, 1, 4096), NIC_OK);
        CHECK_RC(nic_eq_wait(dev, &ev, WAITC), NIC_OK);
        CHECK(ev.kind == NIC_EV_RECV && ev.status == NIC_WC_SUCCESS && ev.len == r->len[0][0] && ev.src_node == 1 &&
              ev.offset == R_SLOT + R_SKEW);
        CHECK(check_region(r, 0, 0, VA_R + R_SLOT + R_SKEW, ev.len, buf) == 0);
        CHECK(guard_fill(r, VA_R + R_SLOT + R_SKEW, ev.len) == 0);
        CHECK_RC(nicdrv_nic_stats(drv, &st), NICDRV_OK);
        CHECK(st.mq_rnr_nacks > 0 && st.mq_placed == 2);
        printf("systest_mq: errors: a send waited for a buffer posted 200 us late (%u BUSY answers), then landed\n",
               st.mq_rnr_nacks);
        /* RNR error: no buffer at all: message 1 fails NIC_WC_RNR */
        r->step = 3;
        WAIT_ACK(4);
        CHECK_RC(nicdrv_nic_stats(drv, &st), NICDRV_OK);
        CHECK(st.mq_refused == 2 && st.mq_placed == 2); /* the unknown queue at the start, the RNR */
        CHECK(check_region(r, 0, 0, 0, 0, buf) == 0);
        /* the connection goes on: message 2 lands in a buffer posted now */
        CHECK_RC(post_buf(dev, ep, 2, 4096), NIC_OK);
        r->step = 5;
        CHECK_RC(nic_eq_wait(dev, &ev, WAITC), NIC_OK);
        CHECK(ev.kind == NIC_EV_RECV && ev.status == NIC_WC_SUCCESS && ev.len == r->len[0][2]);
        CHECK(check_region(r, 0, 2, VA_R + 2 * R_SLOT + R_SKEW, ev.len, buf) == 0);
        CHECK(guard_fill(r, VA_R + 2 * R_SLOT + R_SKEW, ev.len) == 0);
        /* overflow: a 100-byte buffer, a 300-byte message */
        CHECK_RC(post_buf(dev, ep, 3, 100), NIC_OK);
        r->step = 6;
        CHECK_RC(nic_eq_wait(dev, &ev, WAITC), NIC_OK);
        CHECK(ev.kind == NIC_EV_RECV && ev.status == NIC_WC_TOO_BIG && ev.len == 300 && ev.src_node == 1 &&
              ev.offset == 3 * R_SLOT + R_SKEW);
        CHECK(check_region(r, 0, 0, 0, 0, buf) == 0); /* nothing written anywhere */
        /* the same buffer takes the next message, 100 bytes */
        CHECK_RC(nic_eq_wait(dev, &ev, WAITC), NIC_OK);
        CHECK(ev.kind == NIC_EV_RECV && ev.status == NIC_WC_SUCCESS && ev.len == 100 &&
              ev.offset == 3 * R_SLOT + R_SKEW);
        CHECK(check_region(r, 0, 4, VA_R + 3 * R_SLOT + R_SKEW, 100, buf) == 0);
        CHECK(guard_fill(r, VA_R + 3 * R_SLOT + R_SKEW, 100) == 0);
        /* bad key, unknown queue (the sender's), then our own bad posts */
        CHECK_RC(post_buf(dev, ep, 4, 4096), NIC_OK);
        r->step = 7;
        WAIT_ACK(7);
        CHECK(check_region(r, 0, 0, 0, 0, buf) == 0);
        CHECK_RC(nicdrv_nic_stats(drv, &st), NICDRV_OK);
        CHECK(st.mq_refused == 5 && st.mq_placed == 4); /* unknown queue twice, RNR, too big, key */
        {
            struct nic_wr wr = { .local_va = VA_R + 15 * R_SLOT, .len = 64, .wr_id = 77 };
            CHECK_RC(nic_post_recv(dev, ep, QID, QKEY + 1, &wr), NIC_OK); /* another key */
            CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
            CHECK(wc.wr_id == 77 && wc.status == NIC_WC_KEY && wc.op == NIC_OP_POST_RECV);
            for (unsigned k = 1; k < NIC_MQ_DEPTH; k++) /* 1 posted (buffer 4) + 7 = the depth */
                CHECK_RC(post_buf(dev, ep, 4 + k, 64), NIC_OK);
            CHECK_RC(post_buf(dev, ep, 12, 64), NIC_OK);
            CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
            CHECK(wc.wr_id == 1012 && wc.status == NIC_WC_NO_RESOURCES);
            CHECK_RC(nic_post_recv(dev, ep, 0, QKEY, &wr), NIC_EINVAL);
            CHECK_RC(nic_post_recv(dev, ep, NIC_MQ_QUEUES, QKEY, &wr), NIC_EINVAL);
        }
        r->step = 8; /* the other process's post (node 0's second program) */
        WAIT_ACK(8);
        printf("systest_mq: errors: RNR error then recovery, overflow reported on both sides with nothing "
               "written, bad key / unknown queue / foreign post refused, counted (mq_refused %u)\n", st.mq_refused);
    }
    while (!r->may_close && !r->failed)
        coro_sleep(2000);
out:
    close_node(p, dev, 1);
    r->done++;
}

/* ---- a sender ---- */
static int sender_open(struct prog *p, nic_dev_t **dev, nic_ep_t *ep, struct nic_mr *mr)
{
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[p->node]);
    os_t *os = os_of(r, p->node);
    char err[200] = "";
    uint32_t pid;

    if (p->node) {
        if (nicdrv_probe(drv, r->img, r->img_len, err, sizeof err))
            return -1;
    } else {
        while (!r->probed0)
            coro_sleep(2000);
    }
    if (os_proc_create(os, 48, &pid) || nic_dev_open(drv, pid, NULL, dev) || nic_ep_open(*dev, ep))
        return -1;
    r->spid[p->sender] = pid;
    (void)mr;
    return 0;
}

/* message k of sender s: its bytes at VA_S + off, the send posted */
static int send_msg(struct prog *p, nic_dev_t *dev, nic_ep_t ep, unsigned k, uint32_t len, uint32_t key, uint32_t q)
{
    struct run *r = p->r;
    static uint8_t b[NIC_MSG_MAX];
    uint64_t va = VA_S + (k % 8) * 4096u * 2u + (k * 13u) % 97u;
    for (uint32_t i = 0; i < len; i++)
        b[i] = mbyte(p->sender, k, i);
    if (os_write(os_of(r, p->node), r->spid[p->sender], va, b, len))
        return -1;
    struct nic_wr wr = { .local_va = va, .len = len, .wr_id = k, .signaled = 1 };
    wr.remote = (struct nic_remote){ .node = 0, .handle = q, .rkey = key };
    int rc;
    while ((rc = nic_post_send(dev, ep, &wr)) == NIC_EQFULL)
        coro_sleep(1000);
    return rc;
}

static void prog_send(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    struct nic_mr mr;
    struct nic_wc wc;
    unsigned posted = 0, done = 0;

    CHECK(sender_open(p, &dev, &ep, &mr) == 0);
    CHECK_RC(nic_reg(dev, VA_S, S_LEN, NIC_ACCESS_LOCAL_READ, &mr), NIC_OK);
    while (!r->ready && !r->failed)
        coro_sleep(2000);
    while (done < MD_N && !r->failed) {
        if (posted < MD_N && posted - done < 8) { /* several in flight (the sources: 8 slots) */
            CHECK_RC(send_msg(p, dev, ep, posted, r->len[p->sender][posted], QKEY, QID), NIC_OK);
            posted++;
            continue;
        }
        CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
        CHECK(wc.wr_id == done && wc.status == NIC_WC_SUCCESS && wc.op == NIC_OP_SEND && wc.bytes == r->len[p->sender][done]);
        done++;
    }
    r->sent_ok[p->sender] = done;
out:
    close_node(p, dev, p->node != 0);
    r->done++;
}

/* errors mode, node 1 */
static void prog_err_send(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    struct nic_mr mr;
    struct nic_wc wc;
    struct nic_stats st;
    nicdrv_t *drv = hostsw_driver(r->hs[1]);

    CHECK(sender_open(p, &dev, &ep, &mr) == 0);
    CHECK_RC(nic_reg(dev, VA_S, S_LEN, NIC_ACCESS_LOCAL_READ, &mr), NIC_OK);
    while (!r->rx_open && !r->failed)
        coro_sleep(2000);
    /* the queue does not exist yet: unknown queue */
    CHECK_RC(send_msg(p, dev, ep, 9, 16, QKEY, QID), NIC_OK);
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.status == NIC_WC_BAD_HANDLE && wc.op == NIC_OP_SEND);
    r->step_ack = 1;
#define WAIT_STEP(n)                                                                                       \
    while (r->step < (n) && !r->failed)                                                                    \
    coro_sleep(1000)
    WAIT_STEP(1);
    CHECK_RC(send_msg(p, dev, ep, 8, 16, QKEY, QID), NIC_OK);
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 8 && wc.status == NIC_WC_SUCCESS && wc.bytes == 16);
    WAIT_STEP(2);
    r->step_ack = 2;
    CHECK_RC(send_msg(p, dev, ep, 0, r->len[0][0], QKEY, QID), NIC_OK); /* waits for a buffer */
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 0 && wc.status == NIC_WC_SUCCESS);
    WAIT_STEP(3);
    CHECK_RC(send_msg(p, dev, ep, 1, r->len[0][1], QKEY, QID), NIC_OK); /* no buffer ever: RNR */
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 1 && wc.status == NIC_WC_RNR && wc.bytes == 0);
    r->step_ack = 4;
    WAIT_STEP(5);
    CHECK_RC(send_msg(p, dev, ep, 2, r->len[0][2], QKEY, QID), NIC_OK);
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 2 && wc.status == NIC_WC_SUCCESS);
    WAIT_STEP(6);
    CHECK_RC(send_msg(p, dev, ep, 3, 300, QKEY, QID), NIC_OK);
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 3 && wc.status == NIC_WC_TOO_BIG);
    CHECK_RC(send_msg(p, dev, ep, 4, 100, QKEY, QID), NIC_OK);
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 4 && wc.status == NIC_WC_SUCCESS);
    WAIT_STEP(7);
    CHECK_RC(send_msg(p, dev, ep, 5, 64, QKEY ^ 1u, QID), NIC_OK); /* wrong key */
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 5 && wc.status == NIC_WC_KEY);
    CHECK_RC(send_msg(p, dev, ep, 6, 64, QKEY, QID + 1), NIC_OK); /* nobody's queue */
    CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
    CHECK(wc.wr_id == 6 && wc.status == NIC_WC_BAD_HANDLE);
    {
        struct nic_wr wr = { .local_va = VA_S, .len = 64, .wr_id = 7, .signaled = 1 };
        wr.remote = (struct nic_remote){ .node = 0, .handle = QID, .rkey = QKEY };
        CHECK_RC(nic_post_send(dev, ep, &(struct nic_wr){ .local_va = VA_S, .len = NIC_MSG_MAX + 1, .remote = wr.remote }),
                 NIC_EINVAL);
        wr.remote.handle = 0;
        CHECK_RC(nic_post_send(dev, ep, &wr), NIC_EINVAL);
        wr.remote.handle = NIC_MQ_QUEUES;
        CHECK_RC(nic_post_send(dev, ep, &wr), NIC_EINVAL);
    }
    CHECK_RC(nicdrv_nic_stats(drv, &st), NICDRV_OK);
    CHECK(st.refused_ops == 5); /* unknown queue twice, RNR, too big, key */
    r->step_ack = 7;
    r->sent_ok[0] = 1;
out:
    close_node(p, dev, 1);
    r->done++;
}

/* errors mode: a second process on node 0 tries to post into the receiver's queue */
static void prog_err_thief(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[0]);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    struct nic_mr mr;
    struct nic_wc wc;
    uint32_t pid;
    const struct nic_eq_attr notify = { .flags = NIC_EQ_NOTIFY };

    while (r->step < 8 && !r->failed)
        coro_sleep(2000);
    CHECK(os_proc_create(os_of(r, 0), 48, &pid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, pid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_eq_open(dev, &notify), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    CHECK_RC(nic_reg(dev, VA_S, S_LEN, NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    {
        struct nic_wr wr = { .local_va = VA_S, .len = 64, .wr_id = 88 };
        CHECK_RC(nic_post_recv(dev, ep, QID, QKEY, &wr), NIC_OK); /* the right key, another process */
        CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
        CHECK(wc.wr_id == 88 && wc.status == NIC_WC_KEY);
        wr.wr_id = 89; /* a free queue is its own to claim */
        wr.signaled = 1;
        CHECK_RC(nic_post_recv(dev, ep, QID + 2, 1, &wr), NIC_OK);
        CHECK_RC(nic_wait(dev, ep, &wc, WAITC), NIC_OK);
        CHECK(wc.wr_id == 89 && wc.status == NIC_WC_SUCCESS && wc.op == NIC_OP_POST_RECV);
    }
    r->step_ack = 8;
out:
    if (dev)
        nic_dev_close(dev);
    r->done++;
}

static void prog_deliver_done(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    while (!r->failed && (r->sent_ok[0] < MD_N || r->sent_ok[1] < MD_N || r->sent_ok[2] < MD_N))
        coro_sleep(20000);
    r->senders_done = 1;
    r->done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    struct run *r = ctx;
    (void)c;
    if (r->done == r->progs - 1)
        r->may_close = 1; /* only the receiver is left */
    return r->done == r->progs;
}

int main(int argc, char **argv)
{
    static const char *const names[M__N] = { "deliver", "errors" };
    static struct run r;
    static struct prog pr[8];
    struct cluster_config cc;
    struct nicdrv_config dc;
    unsigned m, np = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (m = 0; argc >= 3 && m < M__N && strcmp(argv[1], names[m]); m++)
        ;
    if (argc < 3 || argc > 4 || m == M__N) {
        fprintf(stderr, "usage: systest_mq deliver|errors IMAGE [SEED]\n");
        return 1;
    }
    r.mode = (enum mode)m;
    r.seed = argc == 4 ? strtoull(argv[3], NULL, 0) : 1;
    r.nodes = r.mode == M_DELIVER ? 3 : 2;
    r.img = read_file(argv[2], &r.img_len);
    if (!r.img) {
        fprintf(stderr, "systest_mq: cannot read %s\n", argv[2]);
        return 1;
    }
    {
        uint64_t s = r.seed * 2654435761u + 17;
        for (unsigned i = 0; i < NSEND; i++)
            for (unsigned k = 0; k < MD_N; k++)
                r.len[i][k] = k == 0 ? 1 : k == 1 ? NIC_MSG_MAX : 1 + (uint32_t)(rnd(&s) % NIC_MSG_MAX);
    }
    cluster_config_default(&cc, r.nodes);
    cc.console = stdout;
    cc.seed = r.seed;
    r.costs = costs_create(0, 1);
    r.cl = cluster_create(&cc, r.costs);
    if (!r.cl)
        return 1;
    for (unsigned i = 0; i < r.nodes; i++) {
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = (uint16_t)r.nodes;
        r.hs[i] = hostsw_create(r.cl, i, r.costs, &dc);
        if (!r.hs[i])
            return 1;
        node_set_reset(cluster_node(r.cl, i), false);
    }
    if (r.mode == M_DELIVER) {
        for (unsigned port = 0; port < r.nodes; port++) {
            struct switch_faults f = { .drop = 0.03, .duplicate = 0.05, .delay = 0.05, .delay_max = 4000 };
            switch_set_link_faults(cluster_switch(r.cl), port, &f);
        }
    }
    pr[np] = (struct prog){ &r, 0, 0 };
    if (coro_spawn(cluster_sched(r.cl), "recv", prog_recv, &pr[np++], NULL))
        return 1;
    if (r.mode == M_DELIVER) {
        for (unsigned s = 0; s < NSEND; s++) {
            pr[np] = (struct prog){ &r, s == 2 ? 0 : s + 1, s };
            if (coro_spawn(cluster_sched(r.cl), "send", prog_send, &pr[np++], NULL))
                return 1;
        }
        pr[np] = (struct prog){ &r, 0, 0 };
        if (coro_spawn(cluster_sched(r.cl), "watch", prog_deliver_done, &pr[np++], NULL))
            return 1;
    } else {
        pr[np] = (struct prog){ &r, 1, 0 };
        if (coro_spawn(cluster_sched(r.cl), "send", prog_err_send, &pr[np++], NULL))
            return 1;
        pr[np] = (struct prog){ &r, 0, 1 };
        if (coro_spawn(cluster_sched(r.cl), "thief", prog_err_thief, &pr[np++], NULL))
            return 1;
    }
    r.progs = np;
    if (cluster_run(r.cl, 1000000000, all_done, &r, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0) {
        fprintf(stderr, "systest_mq: timeout at cycle %" PRIu64 "\n", (uint64_t)cluster_now(r.cl));
        r.failed++;
    }
    for (unsigned i = 0; i < r.nodes; i++)
        if (hostmem_counters(node_hostmem(cluster_node(r.cl, i)))->violations) {
            fprintf(stderr, "systest_mq: node %u: oracle violations\n", i);
            r.failed++;
        }
    printf("systest_mq: %s seed %" PRIu64 ": %" PRIu64 " simulated cycles: %s\n", names[m], r.seed,
           (uint64_t)cluster_now(r.cl), r.failed ? "FAIL" : "PASS");
    for (unsigned i = 0; i < r.nodes; i++)
        hostsw_destroy(r.hs[i]);
    cluster_destroy(r.cl);
    costs_destroy(r.costs);
    free(r.img);
    return r.failed ? 1 : 0;
}
