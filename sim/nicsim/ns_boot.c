/*
 * ns_boot.c - `--bootstrap nic` (docs/nicsim.md "Bootstrap"): the handles and keys a workload
 * publishes (ns_publish) go to the other processes through the NIC, as message-queue sends
 * (issue 15 item 7; docs/api.md "Message queues"), in simulated time, instead of through the
 * out-of-band directory.
 *
 * Each process has a notify event queue (opened after its endpoint, NIC_EQ_AFTER_EPS: the
 * workload's completions are not reported there, nothing changes for them) and a message queue: queue 1 + its index on the node (at most
 * NIC_MQ_QUEUES - 1 processes per node), key NB_KEY(rank), which every rank can compute (a
 * well-known port); NIC_MQ_DEPTH receive buffers of NB_MSG bytes posted at NB_VA. At every barrier,
 * before it arrives, each process sends one message to every other rank (the entries it published
 * since the last barrier, possibly none) and takes one from each (its entries go into the
 * directory, dir[rank][slot], which ns_peer reads), re-posting each buffer as it is read; a send
 * the receiver had no buffer for (NIC_WC_RNR: it was busy elsewhere) is sent again. A rank's own
 * entries go into its directory row directly. Rounds do not mix: nobody sends round k + 1 before
 * everyone finished round k (the barrier, still out of band, orders them).
 *
 * What it cost: per process the cycles spent in exchanges, the messages sent and RNR resends
 * (struct ns_node boot_*), summed into the report.
 */
#include <inttypes.h>
#include <string.h>

#include "nicsim.h"

#define NB_VA 0x0E0000000000ull  /* receive buffers, then the message being sent */
#define NB_MSG 4096u             /* NIC_MSG_MAX: one page each */
#define NB_KEY(rank) (0x4E530000u ^ (uint32_t)(rank))
#define NB_TAG 0xB0070000000000ull /* wr_id of a bootstrap send: tag | rank */
#define NB_WIN 8u                  /* sends in flight */

struct nb_ent {
    uint32_t slot, reserved;
    struct nic_mr mr;
};
struct nb_hdr {
    uint32_t rank, n;
};
#define NB_MAX ((NB_MSG - sizeof(struct nb_hdr)) / sizeof(struct nb_ent))
_Static_assert(NB_MAX >= NS_MAX_BUFS, "one message carries every slot");

int ns_boot_eq(struct ns_node *n)
{
    const struct nic_eq_attr a = { .flags = NIC_EQ_NOTIFY | NIC_EQ_AFTER_EPS };
    return nic_eq_open(n->dev, &a);
}

static int repost(struct ns_node *n, uint64_t va)
{
    struct nic_wr wr = { .local_va = va, .len = NB_MSG, .wr_id = NB_TAG - 1u };
    int rc = nic_post_recv(n->dev, n->ep, 1u + n->lp, NB_KEY(n->id), &wr);
    if (rc)
        ns_fail(n, "bootstrap: posting a receive buffer: %s", nic_strerror(rc));
    return rc;
}

int ns_boot_open(struct ns_node *n)
{
    struct nic_mr mr;
    int rc;

    if (n->w->o->procs > NIC_MQ_QUEUES - 1u) {
        ns_fail(n, "--bootstrap nic: at most %u processes per node (one message queue each), not %u",
                NIC_MQ_QUEUES - 1u, n->w->o->procs);
        return -1;
    }
    rc = nic_reg(n->dev, NB_VA, (NIC_MQ_DEPTH + 1u) * NB_MSG, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr);
    if (rc) {
        ns_fail(n, "bootstrap: registering the buffers: %s", nic_strerror(rc));
        return -1;
    }
    for (unsigned k = 0; k < NIC_MQ_DEPTH; k++)
        if (repost(n, NB_VA + k * NB_MSG))
            return -1;
    return 0;
}

/* A message landed: its entries into the directory, the buffer posted again. */
static int take(struct ns_node *n, const struct nic_ev *ev, unsigned nranks, uint8_t *got)
{
    static uint8_t b[NB_MSG];
    struct nb_hdr h;
    uint64_t va = NB_VA + ev->offset;

    if (ev->status != NIC_WC_SUCCESS || ev->len < sizeof h || os_read(n->os, n->pid, va, b, ev->len) != SIM_OK) {
        ns_fail(n, "bootstrap: a message from node %u failed: %s (%u bytes)", ev->src_node, nic_wc_status_str(ev->status),
                ev->len);
        return -1;
    }
    memcpy(&h, b, sizeof h);
    if (h.rank >= nranks || h.rank == n->id || got[h.rank] || h.rank % n->w->o->nodes != ev->src_node ||
        h.n > NB_MAX || ev->len != sizeof h + h.n * sizeof(struct nb_ent)) {
        ns_fail(n, "bootstrap: a malformed or repeated message from node %u (rank %u)", ev->src_node, h.rank);
        return -1;
    }
    got[h.rank] = 1;
    for (uint32_t i = 0; i < h.n; i++) {
        struct nb_ent e;
        memcpy(&e, b + sizeof h + i * sizeof e, sizeof e);
        n->w->dir[h.rank][e.slot % NS_MAX_BUFS] = e.mr;
    }
    return repost(n, va);
}

void ns_boot_exchange(struct ns_node *n)
{
    struct ns_world *w = n->w;
    const unsigned nranks = w->o->nodes * w->o->procs;
    static uint8_t msg[NB_MSG];
    static uint8_t got_all[NS_MAX_RANKS][NS_MAX_RANKS];
    uint8_t *got = got_all[n->id];
    static uint32_t todo_all[NS_MAX_RANKS][NS_MAX_RANKS];
    uint32_t *todo = todo_all[n->id]; /* ranks still to send to: [0, ntodo) */
    unsigned ntodo = 0, sent = 0, recvd = 0, inflight = 0;
    const uint64_t send_va = NB_VA + NIC_MQ_DEPTH * NB_MSG;
    sim_cycle_t t0 = coro_now();
    struct nb_hdr h = { n->id, 0 };

    /* the message: the entries published since the last exchange; ours into our own row */
    for (unsigned s = 0; s < NS_MAX_BUFS; s++)
        if (n->boot_pend >> s & 1u) {
            struct nb_ent e = { .slot = s, .mr = n->boot_pub[s] };
            memcpy(msg + sizeof h + h.n * sizeof e, &e, sizeof e);
            h.n++;
            w->dir[n->id][s] = n->boot_pub[s];
        }
    n->boot_pend = 0;
    memcpy(msg, &h, sizeof h);
    const uint32_t len = (uint32_t)(sizeof h + h.n * sizeof(struct nb_ent));
    if (os_write(n->os, n->pid, send_va, msg, len) != SIM_OK) {
        ns_fail(n, "bootstrap: cannot write the message");
        return;
    }
    memset(got, 0, nranks);
    for (unsigned r = 0; r < nranks; r++)
        if (r != n->id)
            todo[ntodo++] = r;
    while ((sent < nranks - 1u || recvd < nranks - 1u) && !w->failed) {
        struct nic_ev ev[8];
        int k, progress = 0;
        while (ntodo && inflight < NB_WIN) {
            uint32_t r = todo[--ntodo];
            struct nic_wr wr = { .local_va = send_va, .len = len, .wr_id = NB_TAG | r, .signaled = 1 };
            wr.remote = (struct nic_remote){ .node = (uint16_t)(r % w->o->nodes), .handle = 1u + r / w->o->nodes,
                                             .rkey = NB_KEY(r) };
            int rc = nic_post_send(n->dev, n->ep, &wr);
            if (rc == NIC_EQFULL) {
                todo[ntodo++] = r;
                break;
            }
            if (rc) {
                ns_fail(n, "bootstrap: send to rank %u: %s", r, nic_strerror(rc));
                return;
            }
            inflight++;
            w->node[n->nid].boot_msgs++;
        }
        /* messages (event queue) and our sends' completions (the endpoint's queue) */
        k = nic_eq_poll(n->dev, ev, 4);
        if (k >= 0) {
            int m = nic_poll(n->dev, n->ep, &ev[k].wc, 1);
            if (m == 1)
                ev[k++].kind = NIC_EV_COMPLETION;
            else if (m < 0)
                k = m;
        }
        if (k == 0) { /* nothing: sleep until a message (or 20 us: a completion is not an event here) */
            k = nic_eq_wait(n->dev, ev, 4000);
            k = k == NIC_OK ? 1 : k == NIC_ETIMEDOUT ? 0 : k;
        }
        if (k < 0) {
            ns_fail(n, "bootstrap: %s", nic_strerror(k));
            return;
        }
        for (int i = 0; i < k; i++, progress = 1) {
            if (ev[i].kind == NIC_EV_RECV) {
                if (take(n, &ev[i], nranks, got))
                    return;
                recvd++;
            } else if (ev[i].kind == NIC_EV_COMPLETION && (ev[i].wc.wr_id & ~0xFFFFull) == NB_TAG) {
                inflight--;
                if (ev[i].wc.status == NIC_WC_RNR) { /* the receiver was not ready: again */
                    todo[ntodo++] = (uint32_t)(ev[i].wc.wr_id & 0xFFFFu);
                    w->node[n->nid].boot_rnr++;
                } else if (ev[i].wc.status != NIC_WC_SUCCESS) {
                    ns_fail(n, "bootstrap: send to rank %u: %s", (unsigned)(ev[i].wc.wr_id & 0xFFFFu),
                            nic_wc_status_str(ev[i].wc.status));
                    return;
                } else
                    sent++;
            } else if (ev[i].kind == NIC_EV_COMPLETION && (ev[i].wc.status != NIC_WC_SUCCESS ||
                                                           ev[i].wc.wr_id != NB_TAG - 1u)) {
                /* a receive post's error, or a workload's request (none is outstanding at a barrier) */
                ns_fail(n, "bootstrap: request %" PRIu64 " completed: %s", ev[i].wc.wr_id,
                        nic_wc_status_str(ev[i].wc.status));
                return;
            } else if (ev[i].kind == NIC_EV_OVERFLOW) {
                ns_fail(n, "bootstrap: %u notifications lost (event queue overflow)", ev[i].lost);
                return;
            }
        }
        (void)progress;
    }
    struct ns_node *f = &w->node[n->nid]; /* the node's figures */
    n->boot_own += coro_now() - t0;
    f->boot_cycles += coro_now() - t0;
    if (n->boot_own > f->boot_cycles_max)
        f->boot_cycles_max = n->boot_own;
}
