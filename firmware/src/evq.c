/*
 * evq.c - per-process event queues (ABI 2.1; docs/host-interface.md "Event queues").
 *
 * A process's event queue is one page of its memory: 2^log2 32-byte entries (struct nic_eqe, with
 * the phase bit of the completion queue). Entries: NIC_EQE_CQ when an endpoint bound to the queue (EP_OPEN d) posted a completion,
 * NIC_EQE_IMM when a write with immediate landed for the process (its NIC_EQF_NOTIFY queue: the
 * receive path notes the write's last segment, evq_imm_note, and reports it when that segment's
 * DMA completed without error, evq_imm_done: DMAs complete in order, so the whole write is in
 * memory; a segment not delivered is accepted again when resent, so once per write), and
 * NIC_EQE_OVERFLOW for entries lost for want of room. So a process with many endpoints reads one
 * queue, and the work per event does not depend on how many endpoints it has.
 *
 * Room: the NCP knows how many entries the process consumed from EQ_ARM, which carries the count:
 * the library sends it before it sleeps and, while it polls, whenever it consumed a quarter of the
 * queue since the last (EQ_ARM with c = NIC_EQ_ARM_COUNT_ONLY). An entry that finds no room by that
 * count is lost and counted; one slot is kept for the NIC_EQE_OVERFLOW report, written as soon as a
 * count makes room (only an EQ_ARM can). Completion entries are hints (the completions themselves
 * are in the endpoints' completion queues, which cannot overflow): a reader that gets the report
 * reads every endpoint's queue. A completion waits (cqe_post, retried by ops_poll) until there is DMA and staging
 * room for its entry too.
 *
 * Blocking wait: EQ_ARM (ci = what the process consumed) asks for one NIC_EV_EQ event to the driver
 * (a `cmpl` interrupt) at the next entry, or at once when entries are already there beyond ci. The
 * driver wakes the process waiting on the queue. The event is posted after the entry's DMA, and the
 * DMA queue completes in order: the process finds the entry when it wakes.
 */
#include <string.h>

#include "cmd.h"
#include "dmaq.h"
#include "evq.h"
#include "ncp.h"
#include "requester.h"
#include "rx.h"

struct ncp_eq {
    uint8_t open, log2, flags, armed, fire;
    uint16_t pid;
    uint64_t pa;
    uint32_t n;    /* entries written */
    uint32_t ci;   /* consumer count: the last EQ_ARM's */
    uint32_t lost; /* entries lost since the last NIC_EQE_OVERFLOW */
};

static struct ncp_eq eqs[NCP_EPS];

/* Writes with immediate and messages (mq.c): per RX entry, what its notification says
 * (evq_imm_note, evq_note), and the notifications whose queue had no DMA or staging room when their
 * data landed (evq_poll). */
/* per RX entry, the ring's and the loopback's (rx.h: RX entries RX_N .. RX_N + NCP_LOOP_N - 1) */
static struct ncp_imm imm_rx[(1u << NCP_RX_LOG2) + NCP_LOOP_N];
#define IMM_HELD 8u
static struct ncp_imm imm_held[IMM_HELD];
static uint32_t imm_head, imm_n;

static struct {
    uint32_t entries, lost, irqs, imm_no_eq;
} evq_cnt;

void evq_init(void)
{
    memset(eqs, 0, sizeof eqs);
}

static struct ncp_eq *eq_of(uint32_t id)
{
    return id && id < NCP_EPS && eqs[id].open ? &eqs[id] : NULL;
}

int evq_owned(uint32_t id, uint16_t pid)
{
    const struct ncp_eq *q = eq_of(id);
    return q && q->pid == pid;
}

/* The driver's event for an armed queue; without room in the event ring evq_poll asks again. */
static void fire(struct ncp_eq *q)
{
    q->armed = 0;
    q->fire = !ev_post(NIC_EV_EQ, 0, 0, q->pid, 0, 0, NIC_ST_OK, (uint32_t)(q - eqs));
    if (q->fire)
        ncp_work.evq = 1;
    else
        evq_cnt.irqs++;
}

/* One entry into the queue (DMA and staging room checked by the caller: evq_room). The last slot
 * is the overflow report's: an entry that does not fit is lost and counted, and the report is
 * written before the next entry that fits. x: a notification's fields (NULL: none). */
static void put(struct ncp_eq *q, uint8_t type, uint16_t ep, uint32_t a, const struct ncp_imm *x)
{
    uint32_t size = 1u << q->log2;
    struct nic_eqe *e;

    if (q->lost && q->n - q->ci < size && type != NIC_EQE_OVERFLOW) {
        put(q, NIC_EQE_OVERFLOW, 0, q->lost, NULL);
        q->lost = 0;
    }
    if (type != NIC_EQE_OVERFLOW && q->n - q->ci >= size - 1u) {
        q->lost++;
        evq_cnt.lost++;
        return;
    }
    e = stage_slot();
    memset(e, 0, sizeof *e);
    e->type = type;
    e->phase = (uint8_t)(((q->n >> q->log2) & 1u) ^ 1u);
    e->ep = ep;
    e->a = a;
    if (x) {
        e->b = x->len;
        e->c = x->buf;
        e->d = x->off;
    }
    e->seq = q->n;
    if (x) {
        e->pid = x->spid;
        e->status = x->status;
    }
    dmaq_post(HAL_SRAM_OFF(e), q->pa + (uint64_t)(q->n & (size - 1u)) * sizeof *e, sizeof *e, 1, DK_CQE, 0, 0);
    q->n++;
    evq_cnt.entries++;
    if (q->armed)
        fire(q);
}

void evq_on_cqe(uint8_t id, uint16_t epi, uint32_t n)
{
    struct ncp_eq *q = eq_of(id);

    if (q) /* room: cqe_post asked evq_room first */
        put(q, NIC_EQE_CQ, epi, n, NULL);
}

void evq_imm_note(uint32_t ridx, uint16_t pid, uint16_t src, uint16_t imm, uint32_t len, uint32_t buf, uint32_t off)
{
    NCP_ASSERT(NCP_MOD_RX, 20, ridx < sizeof imm_rx / sizeof imm_rx[0]);
    imm_rx[ridx] = (struct ncp_imm){pid, src, imm, len, buf, off, 0, NIC_EQE_IMM, 0};
}

void evq_note(uint32_t ridx, const struct ncp_imm *x)
{
    NCP_ASSERT(NCP_MOD_RX, 21, ridx < sizeof imm_rx / sizeof imm_rx[0]);
    imm_rx[ridx] = *x;
}

int evq_notify_of(uint16_t pid)
{
    for (uint32_t id = 1; id < NCP_EPS; id++)
        if (eqs[id].open && eqs[id].pid == pid && (eqs[id].flags & NIC_EQF_NOTIFY))
            return (int)id;
    return 0;
}

/* The process's notification queue; NULL (counted) if it has none. */
static struct ncp_eq *notify_q(uint16_t pid)
{
    int id = evq_notify_of(pid);

    if (id)
        return &eqs[id];
    evq_cnt.imm_no_eq++;
    return NULL;
}

void evq_imm_done(uint32_t ridx, uint8_t bad)
{
    struct ncp_imm *x = &imm_rx[ridx];

    if (bad) { /* not delivered: the segment is accepted again when resent, and noted again */
        if (x->type != NIC_EQE_RECV)
            return;
        x->status = NIC_ST_HOST_ERROR; /* a message's buffer is used up: say so (mq.c) */
    }
    evq_notify(x);
}

void evq_notify(const struct ncp_imm *x)
{
    struct ncp_eq *q;

    if (!imm_n && evq_room()) {
        if ((q = notify_q(x->pid)))
            put(q, x->type, x->src, x->imm, x);
    } else if (imm_n < IMM_HELD) {
        imm_held[(imm_head + imm_n++) % IMM_HELD] = *x; /* in order, when there is room */
        ncp_work.evq = 1;
    } else if ((q = notify_q(x->pid))) {
        q->lost++; /* reported with the queue's overflow */
        evq_cnt.lost++;
        ncp_work.evq = 1;
    }
}

void evq_poll(void)
{
    ncp_work.evq = 0;
    for (; imm_n && evq_room(); imm_n--, imm_head++) {
        const struct ncp_imm *x = &imm_held[imm_head % IMM_HELD];
        struct ncp_eq *q = notify_q(x->pid);
        if (q)
            put(q, x->type, x->src, x->imm, x);
    }
    if (imm_n)
        ncp_work.evq = 1;
    for (uint32_t id = 1; id < NCP_EPS; id++) {
        struct ncp_eq *q = &eqs[id];
        if (!q->open)
            continue;
        if (q->fire)
            fire(q);
        if (q->lost && q->n - q->ci < (1u << q->log2)) { /* the overflow report fits now */
            if (!evq_room()) {
                ncp_work.evq = 1;
                continue;
            }
            put(q, NIC_EQE_OVERFLOW, 0, q->lost, NULL);
            q->lost = 0;
        }
    }
}

int32_t evq_cmd(const struct nic_cmd *c)
{
    struct ncp_eq *q = c->ep && c->ep < NCP_EPS ? &eqs[c->ep] : NULL;

    if (!q || (c->op != NIC_CMD_EQ_OPEN) != q->open)
        return NIC_ST_BAD_CMD;
    if (c->op == NIC_CMD_EQ_POST) { /* the driver's entry: an upcall */
        if (q->pid != c->pid || c->key != NIC_EQE_UPCALL)
            return NIC_ST_BAD_CMD;
        if (!evq_room())
            return NIC_ST_NO_RESOURCES;
        const struct ncp_imm x = {.len = c->b, .buf = c->c, .off = c->d};
        put(q, NIC_EQE_UPCALL, 0, c->a, &x);
        return NIC_ST_OK;
    }
    if (c->op == NIC_CMD_EQ_OPEN) {
        uint64_t pa = (uint64_t)c->b << 32 | c->a;
        if (!c->pid || c->c < 1 || c->c > NIC_EQ_LOG2_MAX || (c->d & ~NIC_EQF_NOTIFY) || pa % 4096u)
            return NIC_ST_BAD_CMD;
        memset(q, 0, sizeof *q);
        q->open = 1;
        q->pid = c->pid;
        q->pa = pa;
        q->log2 = (uint8_t)c->c;
        q->flags = (uint8_t)c->d;
    } else if (c->op == NIC_CMD_EQ_CLOSE) {
        for (uint32_t e = 0; e < NCP_EP_SLOTS; e++)
            if (ep_tab[e].eq == c->ep)
                ep_tab[e].eq = 0;
        q->open = 0;
    } else { /* EQ_ARM: the count consumed (only forward, never beyond what was written) */
        if (q->pid != c->pid || !seq_le(c->a, q->n) || !seq_le(q->ci, c->a) || c->c > 1u)
            return NIC_ST_BAD_CMD;
        q->ci = c->a;
        if (q->lost)
            ncp_work.evq = 1; /* room again: evq_poll writes the overflow report */
        if (c->c == NIC_EQ_ARM_COUNT_ONLY)
            ;
        else if (c->a != q->n)
            fire(q); /* something is there already: wake the process now */
        else
            q->armed = 1;
    }
    return NIC_ST_OK;
}

void evq_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)k;
    s->eq_entries = evq_cnt.entries;
    s->eq_lost = evq_cnt.lost;
    s->eq_irqs = evq_cnt.irqs;
    s->imm_no_eq = evq_cnt.imm_no_eq;
}
