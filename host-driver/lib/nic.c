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
#define UEV_SIZE 64u          /* event queue entries that are not completions, read and not yet polled */

struct lib_mr {
    int used;
    uint64_t va, len;
    uint32_t rights;
};

struct lib_ep { /* one endpoint (slot k of the process: completion queue page cq_va + k pages) */
    int open;
    uint16_t ep, gen;
    uint64_t cq_va;
    uint64_t sq_va; /* host endpoint (ABI 2.2): its send queue page in our memory */
    int host;
    uint32_t sq_entries, sq_pi, sq_ci;
    uint8_t *user_signaled; /* per send queue slot */
    uint8_t *slot_op;
    uint64_t *slot_wr_id;
    uint32_t cq_entries, cq_ci;
    struct nic_wc *stash;
    uint32_t stash_head, stash_count, stash_size;
    int ready; /* in the event queue's ready list */
};

struct nic_dev {
    nicdrv_t *drv;
    const struct nicdrv_host *host;
    const struct nicdrv_bus *bus;
    uint32_t pid;
    uint64_t cq_va, eq_va;
    uint32_t nmr;
    struct lib_mr *mr;
    struct lib_ep eps[NIC_MAX_EPS];
    uint16_t gen;            /* handles carry it: a closed endpoint's handle stays invalid */
    int8_t slot_of[NIC_EP_IDS_MAX]; /* NIC endpoint -> slot (-1: not ours) */
    uint64_t sq_va;          /* host endpoints' send queue pages: slot k at + k pages (ABI 2.2) */
    uint32_t inline_max;     /* writes of at most this many bytes go inline (ABI 2.4; 0: none) */
    /* event queue (ABI 2.1) */
    int eq_open;
    int eq_notify; /* opened with NIC_EQ_NOTIFY: notifications and messages come here */
    uint32_t eq_entries, eq_ci, eq_told; /* eq_told: the last count the NCP got */
    uint8_t ready[NIC_MAX_EPS]; /* endpoints with completions stashed, in the order they got them */
    uint32_t ready_head, ready_count;
    struct nic_ev uev[UEV_SIZE]; /* notifications and overflow reports read, not yet polled */
    uint32_t uev_head, uev_count;
    struct nic_lib_counters cnt;
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
    case NICDRV_ETIMEDOUT:
        return NIC_ETIMEDOUT;
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
    if (attr && (attr->cq_va % NICDRV_PAGE_SIZE || attr->eq_va % NICDRV_PAGE_SIZE))
        return NIC_EINVAL;
    d = calloc(1, sizeof *d);
    if (!d)
        return NIC_ENOMEM;
    d->drv = drv;
    d->host = nicdrv_host_of(drv);
    d->bus = nicdrv_bus_of(drv);
    d->pid = pid;
    d->cq_va = attr && attr->cq_va ? attr->cq_va : NIC_CQ_VA_DEFAULT;
    d->eq_va = attr && attr->eq_va ? attr->eq_va : d->cq_va + NIC_MAX_EPS * (uint64_t)NICDRV_PAGE_SIZE;
    d->sq_va = attr && attr->sq_va ? attr->sq_va : d->eq_va + NICDRV_PAGE_SIZE;
    if (d->sq_va % NICDRV_PAGE_SIZE) {
        free(d);
        return NIC_EINVAL;
    }
    memset(d->slot_of, -1, sizeof d->slot_of);
    d->inline_max = (attr && attr->no_inline) || !(nicdrv_fw_info(drv)->caps & NIC_CAP_INLINE) ? 0u : NIC_INLINE_MAX;
    d->nmr = nicdrv_config_of(drv)->max_bufs;
    d->mr = calloc(d->nmr, sizeof *d->mr);
    if (!d->mr) {
        free(d);
        return NIC_ENOMEM;
    }
    *dev = d;
    return NIC_OK;
}

static void free_ep_state(struct lib_ep *e)
{
    free(e->user_signaled);
    free(e->slot_op);
    free(e->slot_wr_id);
    free(e->stash);
    e->user_signaled = e->slot_op = NULL;
    e->slot_wr_id = NULL;
    e->stash = NULL;
}

static nic_ep_t handle_of(const struct lib_ep *e)
{
    return (uint32_t)e->gen << 16 | e->ep;
}

int nic_dev_close(nic_dev_t *d)
{
    int rc = NIC_OK, r;

    if (!d)
        return NIC_EINVAL;
    for (unsigned k = 0; k < NIC_MAX_EPS; k++)
        if (d->eps[k].open && (r = nic_ep_close(d, handle_of(&d->eps[k]), NULL, 0)) < 0 && rc == NIC_OK)
            rc = r;
    if (d->eq_open && (r = nic_eq_close(d)) != NIC_OK && rc == NIC_OK)
        rc = r;
    for (uint32_t i = 0; i < d->nmr; i++)
        if (d->mr[i].used && (r = nic_dereg(d, i)) != NIC_OK && rc == NIC_OK)
            rc = r;
    r = nicdrv_proc_release(d->drv, d->pid); /* anything the driver still holds for the process */
    if (r != NICDRV_OK && r != NICDRV_ENOENT && rc == NIC_OK)
        rc = map_drv(r);
    for (unsigned k = 0; k < NIC_MAX_EPS; k++)
        free_ep_state(&d->eps[k]);
    free(d->mr);
    free(d);
    return rc;
}

/* ---- endpoints ---- */

static struct lib_ep *ep_of(nic_dev_t *d, nic_ep_t ep)
{
    int k;

    if (!d || (ep & 0xFFFFu) >= NIC_EP_IDS_MAX || (k = d->slot_of[ep & 0xFFFFu]) < 0)
        return NULL;
    return d->eps[k].open && handle_of(&d->eps[k]) == ep ? &d->eps[k] : NULL;
}

int nic_ep_open(nic_dev_t *d, nic_ep_t *ep)
{
    const struct nic_info *in;
    struct lib_ep *e = NULL;
    unsigned k;
    uint16_t n;
    uint32_t cqn;
    int rc;

    if (!d || !ep)
        return NIC_EINVAL;
    for (k = 0; k < NIC_MAX_EPS && !e; k++)
        if (!d->eps[k].open)
            e = &d->eps[k];
    if (!e)
        return NIC_EBUSY; /* NIC_MAX_EPS open already */
    k = (unsigned)(e - d->eps);
    free_ep_state(e);
    in = nicdrv_fw_info(d->drv);
    e->sq_entries = in->sq_entries;
    e->stash_size = 2u * in->sq_entries;
    e->user_signaled = calloc(e->sq_entries, 1);
    e->slot_op = calloc(e->sq_entries, 1);
    e->slot_wr_id = calloc(e->sq_entries, sizeof *e->slot_wr_id);
    e->stash = calloc(e->stash_size, sizeof *e->stash);
    if (!e->user_signaled || !e->slot_op || !e->slot_wr_id || !e->stash) {
        free_ep_state(e);
        return NIC_ENOMEM;
    }
    e->cq_va = d->cq_va + k * (uint64_t)NICDRV_PAGE_SIZE;
    e->sq_va = d->sq_va + k * (uint64_t)NICDRV_PAGE_SIZE; /* used if the NIC gives a host endpoint */
    rc = nicdrv_ep_open_sq(d->drv, d->pid, e->cq_va, e->sq_va, &n, &cqn);
    if (rc) {
        free_ep_state(e);
        return map_drv(rc);
    }
    if (cqn < e->sq_entries || n >= NIC_EP_IDS_MAX) { /* a completion queue that could overflow: refuse the geometry */
        nicdrv_ep_close(d->drv, d->pid, n);
        free_ep_state(e);
        return NIC_ENORES;
    }
    e->open = 1;
    e->ep = n;
    e->host = n >= in->max_procs; /* ABI 2.2: its send queue is the page at sq_va (docs/api.md) */
    e->gen = ++d->gen;
    e->sq_pi = e->sq_ci = e->cq_ci = 0;
    e->cq_entries = cqn;
    e->stash_head = e->stash_count = 0;
    e->ready = 0;
    d->slot_of[n] = (int8_t)k;
    *ep = handle_of(e);
    return NIC_OK;
}

static void stash_put(nic_dev_t *d, struct lib_ep *e, const struct nic_wc *wc)
{
    if (e->stash_count == e->stash_size) {
        d->cnt.stash_dropped++; /* cannot happen: unread completions <= requests posted */
        return;
    }
    e->stash[(e->stash_head + e->stash_count++) % e->stash_size] = *wc;
    if (d->eq_open && !e->ready) { /* the event queue reports it: O(1) per completion */
        e->ready = 1;
        d->ready[(d->ready_head + d->ready_count++) % NIC_MAX_EPS] = (uint8_t)(e - d->eps);
    }
}

/* Move every new completion queue entry into the stash (what the user should see) and advance
 * sq_ci to the entry's request + 1 (requests retire in order). An entry that names no outstanding
 * request is counted and ignored: nothing is reported for a request that was not posted. */
static void reap(nic_dev_t *d, struct lib_ep *e)
{
    for (uint32_t n = 0; n < e->cq_entries; n++) {
        struct nic_cqe c;
        uint8_t phase = (uint8_t)(((e->cq_ci / e->cq_entries) & 1u) ^ 1u);
        uint32_t s;
        if (d->host->proc_read(d->host->ctx, d->pid, e->cq_va + (e->cq_ci % e->cq_entries) * sizeof c, &c, sizeof c) ||
            (c.phase & 1u) != phase)
            break;
        e->cq_ci++;
        if (c.req - e->sq_ci >= e->sq_pi - e->sq_ci || c.sq_ci != (uint16_t)(c.req + 1u)) {
            d->cnt.cqe_bogus++;
            continue;
        }
        e->sq_ci = c.req + 1u;
        s = c.req % e->sq_entries;
        if (c.status != NIC_ST_OK || e->user_signaled[s]) {
            struct nic_wc wc = { .wr_id = e->slot_wr_id[s], .status = c.status, .bytes = c.bytes, .op = e->slot_op[s] };
            stash_put(d, e, &wc);
        }
    }
}

int nic_ep_close(nic_dev_t *d, nic_ep_t ep, struct nic_wc *wc, int max)
{
    struct lib_ep *e = ep_of(d, ep);
    int rc, n = 0;

    if (!e)
        return NIC_EBADEP;
    rc = nicdrv_ep_close(d->drv, d->pid, e->ep);
    e->open = 0;   /* the handle is dead whatever the driver said */
    d->slot_of[e->ep] = -1;
    reap(d, e);    /* the NCP completed every request not retired (FLUSHED) before answering */
    if (rc)        /* it did not answer: whatever it did not report may not have completed */
        for (; e->sq_ci != e->sq_pi; e->sq_ci++) {
            uint32_t s = e->sq_ci % e->sq_entries;
            struct nic_wc f = { .wr_id = e->slot_wr_id[s], .status = NIC_WC_FLUSHED, .op = e->slot_op[s] };
            stash_put(d, e, &f);
        }
    for (; e->stash_count; e->stash_count--, e->stash_head = (e->stash_head + 1) % e->stash_size)
        if (wc && n < max)
            wc[n++] = e->stash[e->stash_head];
    free_ep_state(e);
    return rc ? map_drv(rc) : n;
}

int nic_lib_counters(const nic_dev_t *d, struct nic_lib_counters *c)
{
    if (!d || !c)
        return NIC_EINVAL;
    *c = d->cnt;
    return NIC_OK;
}

int nic_outstanding(const nic_dev_t *d, nic_ep_t ep)
{
    const struct lib_ep *e = ep_of((nic_dev_t *)d, ep);
    return e ? (int)(e->sq_pi - e->sq_ci) : NIC_EBADEP;
}

/* ---- the event queue (ABI 2.1; docs/api.md "Event queue") ---- */

int nic_eq_open(nic_dev_t *d, const struct nic_eq_attr *attr)
{
    uint32_t log2 = attr && attr->log2_entries ? attr->log2_entries : NIC_EQ_LOG2_MAX;
    int rc;

    if (!d || log2 > NIC_EQ_LOG2_MAX || log2 < 2 || (attr && (attr->flags & ~(NIC_EQ_NOTIFY | NIC_EQ_AFTER_EPS))))
        return NIC_EINVAL;
    if (d->eq_open)
        return NIC_EBUSY;
    for (unsigned k = 0; k < NIC_MAX_EPS && !(attr && (attr->flags & NIC_EQ_AFTER_EPS)); k++)
        if (d->eps[k].open)
            return NIC_EBUSY; /* endpoints are bound to the queue when they open: open it first */
    rc = nicdrv_eq_open(d->drv, d->pid, d->eq_va, log2, attr && (attr->flags & NIC_EQ_NOTIFY) ? NIC_EQF_NOTIFY : 0u);
    if (rc)
        return map_drv(rc);
    d->eq_open = 1;
    d->eq_notify = attr && (attr->flags & NIC_EQ_NOTIFY);
    d->eq_entries = 1u << log2;
    d->eq_ci = d->eq_told = 0;
    d->ready_head = d->ready_count = 0;
    d->uev_head = d->uev_count = 0;
    return NIC_OK;
}

int nic_eq_close(nic_dev_t *d)
{
    int rc;

    if (!d)
        return NIC_EINVAL;
    if (!d->eq_open)
        return NIC_ENOEQ;
    rc = nicdrv_eq_close(d->drv, d->pid);
    d->eq_open = 0;
    for (unsigned k = 0; k < NIC_MAX_EPS; k++)
        d->eps[k].ready = 0;
    d->ready_count = d->uev_count = 0;
    return rc ? map_drv(rc) : NIC_OK;
}

static void uev_put(nic_dev_t *d, const struct nic_ev *ev)
{
    d->uev[(d->uev_head + d->uev_count++) % UEV_SIZE] = *ev;
}

/* Read the event queue's new entries: a completion entry reaps its endpoint's completion queue
 * (its completions join the ready list), an overflow report reaps every endpoint (the lost entries
 * may have been completions) and is reported, a notification is kept for nic_eq_poll. Stops when
 * the notification buffer is full (the entries stay in the queue). Publishes the count read. */
static void eq_read(nic_dev_t *d)
{
    uint32_t ci0 = d->eq_ci;


    d->cnt.eq_reads++;
    while (d->uev_count < UEV_SIZE) {
        struct nic_eqe q;
        uint8_t phase = (uint8_t)(((d->eq_ci / d->eq_entries) & 1u) ^ 1u);
        if (d->host->proc_read(d->host->ctx, d->pid, d->eq_va + (d->eq_ci % d->eq_entries) * sizeof q, &q, sizeof q) ||
            (q.phase & 1u) != phase)
            break;
        d->eq_ci++;
        switch (q.type) {
        case NIC_EQE_CQ:
            if (q.ep < NIC_EP_IDS_MAX && d->slot_of[q.ep] >= 0)
                reap(d, &d->eps[d->slot_of[q.ep]]);
            break;
        case NIC_EQE_OVERFLOW:
            for (unsigned k = 0; k < NIC_MAX_EPS; k++)
                if (d->eps[k].open)
                    reap(d, &d->eps[k]);
            d->cnt.eq_lost += q.a;
            uev_put(d, &(struct nic_ev){ .kind = NIC_EV_OVERFLOW, .lost = q.a });
            break;
        case NIC_EQE_UPCALL:
            uev_put(d, &(struct nic_ev){ .kind = NIC_EV_UPCALL, .token = q.a, .va = (uint64_t)q.c << 32 | q.b,
                                          .len = q.d * NICDRV_PAGE_SIZE });
            break;
        case NIC_EQE_IMM:
            uev_put(d, &(struct nic_ev){ .kind = NIC_EV_IMM, .imm = q.a, .len = q.b, .handle = q.c, .offset = q.d,
                                          .src_node = q.ep, .src_pid = q.pid });
            break;
        case NIC_EQE_RECV: /* ABI 2.2: a message (or a refused one) for one of our queues */
            uev_put(d, &(struct nic_ev){ .kind = NIC_EV_RECV, .queue = q.a, .len = q.b, .handle = q.c, .offset = q.d,
                                          .src_node = q.ep, .src_pid = q.pid, .status = q.status });
            break;
        default:
            d->cnt.eqe_bogus++;
            break;
        }
    }
    /* The NCP learns what we consumed from EQ_ARM: before a sleep (nic_eq_wait), and while we
     * poll once a quarter of the queue was consumed since the last count it got (a system call
     * per entries/4 events), so a queue read as fast as it fills never overflows. */
    if (d->eq_ci != ci0 && d->eq_ci - d->eq_told >= d->eq_entries / 4u &&
        nicdrv_eq_consumed(d->drv, d->pid, d->eq_ci) == NICDRV_OK) {
        d->eq_told = d->eq_ci;
        d->cnt.eq_credits++;
    }
}

int nic_eq_poll(nic_dev_t *d, struct nic_ev *ev, int max)
{
    int n = 0;

    if (!d || !ev || max < 0)
        return NIC_EINVAL;
    if (!d->eq_open)
        return NIC_ENOEQ;
    eq_read(d);
    for (; n < max && d->uev_count; n++) {
        ev[n] = d->uev[d->uev_head];
        d->uev_head = (d->uev_head + 1) % UEV_SIZE;
        d->uev_count--;
    }
    while (n < max && d->ready_count) {
        struct lib_ep *e = &d->eps[d->ready[d->ready_head]];
        if (!e->open || !e->stash_count) { /* polled with nic_poll meanwhile, or closed */
            e->ready = 0;
            d->ready_head = (d->ready_head + 1) % NIC_MAX_EPS;
            d->ready_count--;
            continue;
        }
        ev[n] = (struct nic_ev){ .kind = NIC_EV_COMPLETION, .ep = handle_of(e), .wc = e->stash[e->stash_head] };
        e->stash_head = (e->stash_head + 1) % e->stash_size;
        e->stash_count--;
        n++;
    }
    return n;
}

int nic_eq_wait(nic_dev_t *d, struct nic_ev *ev, uint64_t timeout_cycles)
{
    uint64_t deadline;
    int n, rc;

    if (!d || !ev)
        return NIC_EINVAL;
    if (!d->eq_open)
        return NIC_ENOEQ;
    deadline = d->host->now(d->host->ctx) + timeout_cycles;
    if (deadline < timeout_cycles)
        deadline = NICDRV_NEVER;
    for (;;) {
        n = nic_eq_poll(d, ev, 1);
        if (n)
            return n < 0 ? n : NIC_OK;
        if (d->host->now(d->host->ctx) >= deadline)
            return NIC_ETIMEDOUT;
        /* asleep until the NCP's interrupt for the queue (EQ_ARM with what we consumed: an entry
         * already beyond it wakes us at once) */
        d->cnt.eq_sleeps++;
        rc = nicdrv_eq_wait(d->drv, d->pid, d->eq_ci, deadline);
        if (rc != NICDRV_ENOENT && rc != NICDRV_ESTATE)
            d->eq_told = d->eq_ci;
        if (rc == NICDRV_ENOENT)
            return NIC_ENOEQ;
        if (rc != NICDRV_OK && rc != NICDRV_ETIMEDOUT)
            return NIC_EDEV;
    }
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

int nic_reg_wait(nic_dev_t *d, uint64_t va, uint64_t len, uint32_t access, struct nic_mr *mr, uint64_t timeout_cycles)
{
    uint64_t deadline;
    int rc;

    if (!d || !mr)
        return NIC_EINVAL;
    deadline = d->host->now(d->host->ctx) + timeout_cycles;
    if (deadline < timeout_cycles)
        deadline = NICDRV_NEVER;
    for (;;) {
        rc = nic_reg(d, va, len, access, mr);
        if (rc != NIC_ENORES && rc != NIC_ENOMEM)
            return rc;
        /* read right after the refusal (which rolled its own attempt back: a removal too), with
         * nothing in between that could block: no other removal can fall between the two */
        uint64_t seen = nicdrv_room_gen(d->drv);
        d->cnt.reg_waits++;
        rc = nicdrv_room_wait(d->drv, seen, deadline);
        if (rc == NICDRV_ETIMEDOUT)
            return NIC_ETIMEDOUT;
        if (rc)
            return NIC_EDEV;
    }
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
    struct lib_ep *x = ep_of(d, ep);
    struct nic_sq_entry e;
    uint32_t w[sizeof e / 4]; /* the entry as words (a copy: no type punning) */
    uint32_t slot, page, lbuf = 0;
    int rc, force;

    if (!x)
        return NIC_EBADEP;
    if (!wr || !wr->len || wr->len > NIC_MAX_XFER || wr->local_va + wr->len < wr->local_va ||
        (wr->with_imm && (op != NIC_OP_RDMA_WRITE || wr->imm > NIC_IMM_MAX)))
        return NIC_EINVAL;
    if (op == NIC_OP_SEND && (wr->len > NIC_MSG_MAX || !wr->remote.handle || wr->remote.handle >= NIC_MQ_QUEUES))
        return NIC_EINVAL; /* a message: one queue id of the target, at most NIC_MSG_MAX bytes */
    if (op != NIC_OP_POST_RECV && wr->remote.node >= nicdrv_config_of(d->drv)->nodes)
        return NIC_EPEER;
    rc = check_local(d, wr->local_va, wr->len,
                     op == NIC_OP_RDMA_WRITE || op == NIC_OP_SEND ? NIC_RIGHT_LOCAL_READ : NIC_RIGHT_LOCAL_WRITE, &lbuf);
    if (rc)
        return rc;
    if (!nicdrv_probed(d->drv))
        return NIC_EDEV;
    if (x->sq_pi - x->sq_ci >= x->sq_entries || x->sq_pi - x->sq_ci + x->stash_count >= x->stash_size)
        reap(d, x);
    if (x->sq_pi - x->sq_ci >= x->sq_entries || x->sq_pi - x->sq_ci + x->stash_count >= x->stash_size)
        return NIC_EQFULL; /* the send queue, or completions not yet polled: poll, then post */
    slot = x->sq_pi % x->sq_entries;
    force = x->sq_entries < 2 || x->sq_pi % (x->sq_entries / 2) == x->sq_entries / 2 - 1;
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
    if (op == NIC_OP_SEND || op == NIC_OP_POST_RECV) { /* ABI 2.2: message queues */
        e.op = op == NIC_OP_SEND ? NIC_OP_RDMA_WRITE : NIC_OP_POST_RECV;
        e.flags |= op == NIC_OP_SEND ? NIC_WR_SEND : 0u;
        e.rpid = 0;
        e.roff_lo = e.roff_hi = 0;
        if (op == NIC_OP_POST_RECV)
            e.rnode = nicdrv_config_of(d->drv)->node_id;
    }
    e.rkey = wr->remote.rkey;
    e.wr_id_lo = (uint32_t)wr->wr_id;
    e.wr_id_hi = (uint32_t)(wr->wr_id >> 32);
    e.lbuf = lbuf;
    if (wr->with_imm) { /* ABI 2.1: the immediate in reserved1[0] */
        e.flags |= NIC_WR_IMM;
        e.reserved1[0] = wr->imm;
    }
    x->user_signaled[slot] = wr->signaled != 0;
    x->slot_op[slot] = op;
    x->slot_wr_id[slot] = wr->wr_id;
    if (wr->len <= d->inline_max && (op == NIC_OP_RDMA_WRITE || op == NIC_OP_SEND)) {
        /* ABI 2.4: the data in the entry (NIC_INLINE_WORD order), read now: the NCP reads no
         * memory for it (no translation, no DMA); the buffer is the caller's again at once */
        uint8_t data[NIC_INLINE_MAX];
        if (d->host->proc_read(d->host->ctx, d->pid, wr->local_va, data, wr->len))
            return NIC_EDEV;
        e.flags |= NIC_WR_INLINE;
        nic_sqe_inline_pack(&e, data, wr->len);
        d->cnt.inline_posts++;
    }
    memcpy(w, &e, sizeof w);
    page = (uint32_t)x->ep * NIC_DB_PAGE;
    if (x->host) { /* ABI 2.2: the entry and the doorbell record in our own memory, then the ring */
        uint32_t pi = x->sq_pi + 1u;
        if (d->host->proc_write(d->host->ctx, d->pid, x->sq_va + slot * (uint64_t)sizeof e, &e, sizeof e) ||
            d->host->proc_write(d->host->ctx, d->pid, x->sq_va + NIC_EPC_DBREC, &pi, sizeof pi))
            return NIC_EDEV;
    } else {
        for (unsigned i = 0; i < sizeof e / 4; i++)
            if (d->bus->wr32(d->bus->ctx, NICDRV_BAR_DOORBELL, page + slot * (uint32_t)sizeof e + 4 * i, w[i]))
                return NIC_EDEV;
    }
    x->sq_pi++;
    if (d->bus->wr32(d->bus->ctx, NICDRV_BAR_DOORBELL, page + NIC_DB_SQ_PI, x->sq_pi))
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

int nic_post_send(nic_dev_t *d, nic_ep_t ep, const struct nic_wr *wr)
{
    if (wr && wr->with_imm)
        return NIC_EINVAL;
    return post(d, ep, wr, NIC_OP_SEND);
}

int nic_post_recv(nic_dev_t *d, nic_ep_t ep, uint32_t queue, uint32_t qkey, const struct nic_wr *wr)
{
    struct nic_wr w;

    if (!d || !wr || wr->with_imm || !queue || queue >= NIC_MQ_QUEUES)
        return NIC_EINVAL;
    if (!d->eq_open || !d->eq_notify)
        return NIC_ENOEQ; /* messages are reported in the event queue opened with NIC_EQ_NOTIFY */
    w = *wr;
    w.remote = (struct nic_remote){ .handle = queue, .rkey = qkey };
    return post(d, ep, &w, NIC_OP_POST_RECV);
}

/* ---- completions ---- */

int nic_poll(nic_dev_t *d, nic_ep_t ep, struct nic_wc *wc, int max)
{
    struct lib_ep *e = ep_of(d, ep);
    int n = 0;

    if (!e)
        return NIC_EBADEP;
    if (!wc || max < 0)
        return NIC_EINVAL;
    d->cnt.cq_reads++;
    if (e->stash_count < (uint32_t)max)
        reap(d, e);
    for (; n < max && e->stash_count; n++) {
        wc[n] = e->stash[e->stash_head];
        e->stash_head = (e->stash_head + 1) % e->stash_size;
        e->stash_count--;
    }
    return n;
}

int nic_wait(nic_dev_t *d, nic_ep_t ep, struct nic_wc *wc, uint64_t timeout_cycles)
{
    uint64_t deadline;
    int n;

    if (!ep_of(d, ep))
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
        if (!ep_of(d, ep)) /* closed by another thread of the process meanwhile */
            return NIC_EBADEP;
    }
}

int nic_upcall_done(nic_dev_t *d, uint32_t token)
{
    int rc;

    if (!d)
        return NIC_EINVAL;
    rc = nicdrv_upcall_done(d->drv, d->pid, token);
    return rc == NICDRV_ETIMEDOUT ? NIC_ELATE : map_drv(rc);
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
    case NIC_ENOEQ:
        return "no event queue open";
    case NIC_ELATE:
        return "upcall answered after its grace period";
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
    case NIC_WC_NO_RESOURCES:
        return "no resources";
    case NIC_WC_RNR:
        return "receiver not ready (no buffer posted)";
    case NIC_WC_TOO_BIG:
        return "message longer than the posted buffer";
    default:
        return "unknown status";
    }
}
