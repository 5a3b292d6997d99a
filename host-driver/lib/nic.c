/*
 * nic.c - the user-level library (contract: nic.h; calls and examples: docs/api.md).
 *
 * Role map:
 *   nic_dev_open/close       the process's handle to the driver; registrations mirrored here so
 *                            posts are checked at the call without a system call
 *   nic_ep_open/close        endpoint via the driver; close reaps the flushed completions
 *   post                     checks, then the send queue entry through the endpoint's doorbell
 *                            page (offsets below NIC_DB_SQ_BYTES) and the producer count
 *   reap / nic_poll/wait     completion queue in the process's memory, phase bit per lap
 *
 * Completions (docs/api.md "Completions"): the NCP retires requests in request order per
 * endpoint; a completion entry names its request (cqe.req, the request's index in the stream)
 * and says that every request up to it retired, which is what frees send queue slots. The
 * library reports a completion for a request only if that request failed or its caller asked
 * for one: the wr_id and op come from the library's own record of the request.
 *
 * Why a stash: a full queue is relieved by reading the completion queue; what is read then is
 * kept for nic_poll. Bounded by construction: a request counts against stash_size from its post
 * until its completion was polled (or it retired silently), and post refuses (NIC_EQFULL) beyond
 * it; the completion queue holds at least sq_entries entries and at most sq_entries requests are
 * unretired, so neither can overflow. Why forced signalling: with only unsignalled requests no
 * completion would ever free a slot, so every (sq_entries/2)-th request is signalled internally
 * and its success is not reported.
 */
#include <stdlib.h>
#include <string.h>

#include "nic.h"

#define WAIT_POLL_CYCLES 200u /* nic_wait re-reads the completion queue every 1 us */

struct lib_mr {
    int used;
    uint64_t va, len;
    uint32_t rights;
};

struct nic_dev {
    nicdrv_t *drv;
    const struct nicdrv_host *host;
    const struct nicdrv_bus *bus;
    uint32_t pid;
    uint64_t cq_va;
    uint32_t nmr;
    struct lib_mr *mr;
    /* endpoint */
    int ep_open;
    uint16_t ep, gen;
    uint32_t sq_entries, sq_pi, sq_ci;
    uint8_t *user_signaled; /* per send queue slot */
    uint8_t *slot_op;
    uint64_t *slot_wr_id;
    uint32_t cq_entries, cq_ci;
    struct nic_wc *stash;
    uint32_t stash_head, stash_count, stash_size;
    uint64_t stash_dropped; /* never: post bounds it (kept as a check, nic_lib_stats) */
    uint64_t cqe_bogus;     /* completion entries naming no outstanding request (ignored) */
};

static int map_drv(int rc)
{
    switch (rc) {
    case NICDRV_OK:
        return NIC_OK;
    case NICDRV_EINVAL:
        return NIC_EINVAL;
    case NICDRV_ENOMEM:
        return NIC_ENOMEM;
    case NICDRV_ENORES:
        return NIC_ENORES;
    case NICDRV_EBUSY:
        return NIC_EBUSY;
    case NICDRV_ENOENT:
        return NIC_EBADHANDLE;
    case NICDRV_EFAULT:
        return NIC_EINVAL;
    default:
        return NIC_EDEV;
    }
}

int nic_dev_open(nicdrv_t *drv, uint32_t pid, const struct nic_dev_attr *attr, nic_dev_t **dev)
{
    nic_dev_t *d;

    if (!drv || !dev || !pid || pid > 0xFFFF)
        return NIC_EINVAL;
    if (!nicdrv_probed(drv))
        return NIC_EDEV;
    if (attr && attr->cq_va % NICDRV_PAGE_SIZE)
        return NIC_EINVAL;
    d = calloc(1, sizeof *d);
    if (!d)
        return NIC_ENOMEM;
    d->drv = drv;
    d->host = nicdrv_host_of(drv);
    d->bus = nicdrv_bus_of(drv);
    d->pid = pid;
    d->cq_va = attr && attr->cq_va ? attr->cq_va : NIC_CQ_VA_DEFAULT;
    d->nmr = nicdrv_config_of(drv)->max_bufs;
    d->mr = calloc(d->nmr, sizeof *d->mr);
    if (!d->mr) {
        free(d);
        return NIC_ENOMEM;
    }
    *dev = d;
    return NIC_OK;
}

static void free_ep_state(nic_dev_t *d)
{
    free(d->user_signaled);
    free(d->slot_op);
    free(d->slot_wr_id);
    free(d->stash);
    d->user_signaled = d->slot_op = NULL;
    d->slot_wr_id = NULL;
    d->stash = NULL;
}

int nic_dev_close(nic_dev_t *d)
{
    int rc = NIC_OK, r;

    if (!d)
        return NIC_EINVAL;
    if (d->ep_open && (r = nic_ep_close(d, (uint32_t)d->gen << 16 | d->ep, NULL, 0)) < 0)
        rc = r;
    for (uint32_t i = 0; i < d->nmr; i++)
        if (d->mr[i].used && (r = nic_dereg(d, i)) != NIC_OK && rc == NIC_OK)
            rc = r;
    r = nicdrv_proc_release(d->drv, d->pid); /* anything the driver still holds for the process */
    if (r != NICDRV_OK && r != NICDRV_ENOENT && rc == NIC_OK)
        rc = map_drv(r);
    free_ep_state(d);
    free(d->mr);
    free(d);
    return rc;
}

/* ---- endpoints ---- */

static int ep_valid(const nic_dev_t *d, nic_ep_t ep)
{
    return d && d->ep_open && ep == ((uint32_t)d->gen << 16 | d->ep);
}

int nic_ep_open(nic_dev_t *d, nic_ep_t *ep)
{
    const struct nic_info *in;
    uint16_t e;
    uint32_t cqn;
    int rc;

    if (!d || !ep)
        return NIC_EINVAL;
    if (d->ep_open)
        return NIC_EBUSY;
    in = nicdrv_fw_info(d->drv);
    d->sq_entries = in->sq_entries;
    d->stash_size = 2u * in->sq_entries;
    d->user_signaled = calloc(d->sq_entries, 1);
    d->slot_op = calloc(d->sq_entries, 1);
    d->slot_wr_id = calloc(d->sq_entries, sizeof *d->slot_wr_id);
    d->stash = calloc(d->stash_size, sizeof *d->stash);
    if (!d->user_signaled || !d->slot_op || !d->slot_wr_id || !d->stash) {
        free_ep_state(d);
        return NIC_ENOMEM;
    }
    rc = nicdrv_ep_open(d->drv, d->pid, d->cq_va, &e, &cqn);
    if (rc) {
        free_ep_state(d);
        return map_drv(rc);
    }
    if (cqn < d->sq_entries) { /* a completion queue that could overflow: refuse the geometry */
        nicdrv_ep_close(d->drv, d->pid, e);
        free_ep_state(d);
        return NIC_ENORES;
    }
    d->ep_open = 1;
    d->ep = e;
    d->gen++;
    d->sq_pi = d->sq_ci = d->cq_ci = 0;
    d->cq_entries = cqn;
    d->stash_head = d->stash_count = 0;
    *ep = (uint32_t)d->gen << 16 | e;
    return NIC_OK;
}

static void stash_put(nic_dev_t *d, const struct nic_wc *wc)
{
    if (d->stash_count == d->stash_size) {
        d->stash_dropped++; /* cannot happen: unread completions <= requests posted */
        return;
    }
    d->stash[(d->stash_head + d->stash_count++) % d->stash_size] = *wc;
}

/* Move every new completion queue entry into the stash (what the user should see) and advance
 * sq_ci to the entry's request + 1 (requests retire in order). An entry that names no outstanding
 * request is counted and ignored: nothing is reported for a request that was not posted. */
static void reap(nic_dev_t *d)
{
    for (uint32_t n = 0; n < d->cq_entries; n++) {
        struct nic_cqe c;
        uint8_t phase = (uint8_t)(((d->cq_ci / d->cq_entries) & 1u) ^ 1u);
        uint32_t s;
        if (d->host->proc_read(d->host->ctx, d->pid, d->cq_va + (d->cq_ci % d->cq_entries) * sizeof c, &c, sizeof c) ||
            (c.phase & 1u) != phase)
            break;
        d->cq_ci++;
        if (c.req - d->sq_ci >= d->sq_pi - d->sq_ci || c.sq_ci != (uint16_t)(c.req + 1u)) {
            d->cqe_bogus++;
            continue;
        }
        d->sq_ci = c.req + 1u;
        s = c.req % d->sq_entries;
        if (c.status != NIC_ST_OK || d->user_signaled[s]) {
            struct nic_wc wc = { .wr_id = d->slot_wr_id[s], .status = c.status, .bytes = c.bytes, .op = d->slot_op[s] };
            stash_put(d, &wc);
        }
    }
}

int nic_ep_close(nic_dev_t *d, nic_ep_t ep, struct nic_wc *wc, int max)
{
    int rc, n = 0;

    if (!ep_valid(d, ep))
        return NIC_EBADEP;
    rc = nicdrv_ep_close(d->drv, d->pid, d->ep);
    d->ep_open = 0; /* the handle is dead whatever the driver said */
    reap(d);        /* the NCP completed every request not retired (FLUSHED) before answering */
    if (rc)         /* it did not answer: whatever it did not report may not have completed */
        for (; d->sq_ci != d->sq_pi; d->sq_ci++) {
            uint32_t s = d->sq_ci % d->sq_entries;
            struct nic_wc f = { .wr_id = d->slot_wr_id[s], .status = NIC_WC_FLUSHED, .op = d->slot_op[s] };
            stash_put(d, &f);
        }
    for (; d->stash_count; d->stash_count--, d->stash_head = (d->stash_head + 1) % d->stash_size)
        if (wc && n < max)
            wc[n++] = d->stash[d->stash_head];
    free_ep_state(d);
    return rc ? map_drv(rc) : n;
}

int nic_lib_counters(const nic_dev_t *d, struct nic_lib_counters *c)
{
    if (!d || !c)
        return NIC_EINVAL;
    c->stash_dropped = d->stash_dropped;
    c->cqe_bogus = d->cqe_bogus;
    return NIC_OK;
}

int nic_outstanding(const nic_dev_t *d, nic_ep_t ep)
{
    return ep_valid(d, ep) ? (int)(d->sq_pi - d->sq_ci) : NIC_EBADEP;
}

/* ---- registration ---- */

int nic_reg(nic_dev_t *d, uint64_t va, uint64_t len, uint32_t access, struct nic_mr *mr)
{
    uint32_t id, key;
    int rc;

    if (!d || !mr)
        return NIC_EINVAL;
    rc = nicdrv_mem_reg(d->drv, d->pid, va, len, access, &id, &key);
    if (rc)
        return map_drv(rc);
    d->mr[id].used = 1;
    d->mr[id].va = va;
    d->mr[id].len = len;
    d->mr[id].rights = access;
    mr->handle = id;
    mr->rkey = key;
    mr->node = nicdrv_config_of(d->drv)->node_id;
    mr->pid = (uint16_t)d->pid;
    mr->va = va;
    mr->len = len;
    return NIC_OK;
}

int nic_dereg(nic_dev_t *d, uint32_t handle)
{
    int rc;

    if (!d)
        return NIC_EINVAL;
    if (handle >= d->nmr || !d->mr[handle].used)
        return NIC_EBADHANDLE;
    rc = nicdrv_mem_dereg(d->drv, d->pid, handle);
    if (rc == NICDRV_OK || rc == NICDRV_ENOENT)
        d->mr[handle].used = 0;
    return map_drv(rc == NICDRV_ENOENT ? NICDRV_OK : rc);
}

/* ---- posting ---- */

/* The registered buffer holding [va, +len) with `right` (its handle in *buf): the NCP checks the
 * same against its CBH entry (raw descriptors bypass this). */
static int check_local(const nic_dev_t *d, uint64_t va, uint32_t len, uint32_t right, uint32_t *buf)
{
    int inside = 0;

    for (uint32_t i = 0; i < d->nmr; i++) {
        const struct lib_mr *m = &d->mr[i];
        if (!m->used || va < m->va || va - m->va > m->len || len > m->len - (va - m->va))
            continue;
        inside = 1;
        if (m->rights & right) {
            *buf = i;
            return NIC_OK;
        }
    }
    return inside ? NIC_ERIGHTS : NIC_EBOUNDS;
}

static int post(nic_dev_t *d, nic_ep_t ep, const struct nic_wr *wr, uint8_t op)
{
    struct nic_sq_entry e;
    uint32_t w[sizeof e / 4]; /* the entry as words (a copy: no type punning) */
    uint32_t slot, page, lbuf = 0;
    int rc, force;

    if (!ep_valid(d, ep))
        return NIC_EBADEP;
    if (!wr || !wr->len || wr->len > NIC_MAX_XFER || wr->local_va + wr->len < wr->local_va)
        return NIC_EINVAL;
    if (wr->remote.node >= nicdrv_config_of(d->drv)->nodes)
        return NIC_EPEER;
    rc = check_local(d, wr->local_va, wr->len, op == NIC_OP_RDMA_WRITE ? NIC_RIGHT_LOCAL_READ : NIC_RIGHT_LOCAL_WRITE,
                     &lbuf);
    if (rc)
        return rc;
    if (!nicdrv_probed(d->drv))
        return NIC_EDEV;
    if (d->sq_pi - d->sq_ci >= d->sq_entries || d->sq_pi - d->sq_ci + d->stash_count >= d->stash_size)
        reap(d);
    if (d->sq_pi - d->sq_ci >= d->sq_entries || d->sq_pi - d->sq_ci + d->stash_count >= d->stash_size)
        return NIC_EQFULL; /* the send queue, or completions not yet polled: poll, then post */
    slot = d->sq_pi % d->sq_entries;
    force = d->sq_entries < 2 || d->sq_pi % (d->sq_entries / 2) == d->sq_entries / 2 - 1;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.flags = wr->signaled || force ? NIC_WR_SIGNALED : 0;
    e.rnode = wr->remote.node;
    e.len = wr->len;
    e.laddr_lo = (uint32_t)wr->local_va;
    e.laddr_hi = (uint32_t)(wr->local_va >> 32);
    e.rbuf = wr->remote.handle;
    e.rpid = wr->remote.pid;
    e.roff_lo = (uint32_t)wr->remote_offset;
    e.roff_hi = (uint32_t)(wr->remote_offset >> 32);
    e.rkey = wr->remote.rkey;
    e.wr_id_lo = (uint32_t)wr->wr_id;
    e.wr_id_hi = (uint32_t)(wr->wr_id >> 32);
    e.lbuf = lbuf;
    d->user_signaled[slot] = wr->signaled != 0;
    d->slot_op[slot] = op;
    d->slot_wr_id[slot] = wr->wr_id;
    memcpy(w, &e, sizeof w);
    page = (uint32_t)d->ep * NIC_DB_PAGE;
    for (unsigned i = 0; i < sizeof e / 4; i++)
        if (d->bus->wr32(d->bus->ctx, NICDRV_BAR_DOORBELL, page + slot * (uint32_t)sizeof e + 4 * i, w[i]))
            return NIC_EDEV;
    d->sq_pi++;
    if (d->bus->wr32(d->bus->ctx, NICDRV_BAR_DOORBELL, page + NIC_DB_SQ_PI, d->sq_pi))
        return NIC_EDEV;
    return NIC_OK;
}

int nic_post_write(nic_dev_t *d, nic_ep_t ep, const struct nic_wr *wr)
{
    return post(d, ep, wr, NIC_OP_RDMA_WRITE);
}

int nic_post_read(nic_dev_t *d, nic_ep_t ep, const struct nic_wr *wr)
{
    return post(d, ep, wr, NIC_OP_RDMA_READ);
}

/* ---- completions ---- */

int nic_poll(nic_dev_t *d, nic_ep_t ep, struct nic_wc *wc, int max)
{
    int n = 0;

    if (!ep_valid(d, ep))
        return NIC_EBADEP;
    if (!wc || max < 0)
        return NIC_EINVAL;
    if (d->stash_count < (uint32_t)max)
        reap(d);
    for (; n < max && d->stash_count; n++) {
        wc[n] = d->stash[d->stash_head];
        d->stash_head = (d->stash_head + 1) % d->stash_size;
        d->stash_count--;
    }
    return n;
}

int nic_wait(nic_dev_t *d, nic_ep_t ep, struct nic_wc *wc, uint64_t timeout_cycles)
{
    uint64_t deadline;
    int n;

    if (!ep_valid(d, ep))
        return NIC_EBADEP;
    deadline = d->host->now(d->host->ctx) + timeout_cycles;
    for (;;) {
        n = nic_poll(d, ep, wc, 1);
        if (n)
            return n < 0 ? n : NIC_OK;
        if (d->host->now(d->host->ctx) >= deadline)
            return NIC_ETIMEDOUT;
        if (d->host->sleep(d->host->ctx, WAIT_POLL_CYCLES) == NICDRV_ECANCELED)
            return NIC_EDEV;
        if (!ep_valid(d, ep)) /* closed by another thread of the process meanwhile */
            return NIC_EBADEP;
    }
}

const char *nic_strerror(int err)
{
    switch (err) {
    case NIC_OK:
        return "ok";
    case NIC_EINVAL:
        return "invalid argument";
    case NIC_EBADEP:
        return "endpoint not open";
    case NIC_EBADHANDLE:
        return "no such memory handle";
    case NIC_EBOUNDS:
        return "range not inside a registered buffer";
    case NIC_ERIGHTS:
        return "buffer lacks the access right";
    case NIC_EQFULL:
        return "send queue full";
    case NIC_EBUSY:
        return "endpoint already open";
    case NIC_ENORES:
        return "no room on the NIC";
    case NIC_ENOMEM:
        return "out of host memory";
    case NIC_EDEV:
        return "device not available";
    case NIC_ETIMEDOUT:
        return "timed out";
    case NIC_EPEER:
        return "no such node";
    default:
        return "unknown error";
    }
}

const char *nic_wc_status_str(int status)
{
    switch (status) {
    case NIC_WC_SUCCESS:
        return "success";
    case NIC_WC_BAD_DESC:
        return "malformed request";
    case NIC_WC_BAD_HANDLE:
        return "bad handle";
    case NIC_WC_BOUNDS:
        return "out of bounds";
    case NIC_WC_RIGHTS:
        return "missing access right";
    case NIC_WC_KEY:
        return "wrong remote key";
    case NIC_WC_UNREACHABLE:
        return "peer unreachable";
    case NIC_WC_FLUSHED:
        return "flushed";
    case NIC_WC_HOST_ERROR:
        return "host DMA error";
    default:
        return "unknown status";
    }
}
