/*
 * ns_bd.c - nicsim --breakdown: where the time of a one-way RDMA write goes (docs/nicsim.md
 * "Latency breakdown").
 *
 * An observer only: a node probe (node_set_probe) on nodes 0 and 1 records, at the NIC's pins,
 * every host MMIO write the NIC accepts, every DMA request (read or write, address, length, tag),
 * the last data beat of every DMA read, every write-done, the first and last beat of every frame
 * the MAC sends or receives (with the frame's header) and the function of the core's retired
 * instructions (the image's ELF symbols, sim/debug/rvdis.h); the pingpong workload tells it, at
 * the simulated time they happen, when a write is posted, when the target's poll sees its last
 * byte and when the initiator's poll returns its completion. Nothing here drives a pin or draws
 * a random number, and the probe only stops the two nodes' idle cycles from being left
 * unevaluated, which changes no simulated result (node.c's doze is exact): the run is
 * bit-identical with and without --breakdown (test nicsim.breakdown_identity).
 *
 * After the run each write is matched to its events (addresses: the data read is the DMA read
 * that covers the source's first byte, the placement the DMA write that covers the target's last
 * byte; frames by type, sequence number and cumulative ACK) and cut into the steps of bd_rows.
 * The steps of one write telescope (each starts where the previous ended; a step whose end came
 * before the previous end counts 0 and the overlap falls in the next), so they add up exactly to
 * that write's latency; the table shows each step's median over the writes of a size, their sum,
 * the measured median and the difference (residual: medians do not add exactly).
 *
 * Contract: single-threaded; one rank; pingpong only (checked by nicsim.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "nic_model.h"
#include "node.h"
#include "nicsim.h"
#include "rvdis.h"

enum { EV_MMIO_W, EV_RD_REQ, EV_RD_LAST, EV_WR_REQ, EV_WACK, EV_TX_FIRST, EV_TX_LAST, EV_RX_FIRST, EV_RX_LAST };

struct bd_ev {
    uint64_t t;
    uint64_t addr;
    uint32_t len;
    uint8_t kind, tag;
    /* frames (the header as it was when the last beat passed; the first beat's event gets it too) */
    uint8_t ftype;
    uint16_t src, dst;
    uint32_t seq, ack;
};

struct bd_run { /* the core retired instructions of fn from t on */
    uint64_t t;
    const char *fn;
};

struct bd_node {
    struct bd_ev *ev;
    size_t nev, cap;
    struct bd_run *run;
    size_t nrun, runcap;
    uint8_t txh[48], rxh[48];
    unsigned txpos, rxpos;
    size_t tx_first, rx_first; /* the current frame's first-beat event */
};

struct bd_msg {
    unsigned init, tgt;
    uint32_t len;
    uint64_t wr_id;
    uint64_t src_pa, src_last_pa, dst_pa, dst_last_pa; /* first and last bytes */
    uint64_t t_post, t_seen, t_done;
    int warm; /* a warm-up round's: not in the breakdown */
};

/* The events of a write, in the order of the chain. */
enum {
    P_POST, P_DB, P_DB_LAST, P_SQE_REQ, P_SQE_LAST, P_D_REQ, P_D_LAST, P_TX_F, P_TX_L, P_RX_F, P_RX_L, P_PL_REQ, P_PL_DONE,
    P_SEEN, /* one-way chain ends here */
    P_ACK_TX, P_ACK_RX, P_CQE_REQ, P_CQE_DONE, P_DONE, P_N
};

static const struct bd_row {
    const char *name, *spans;
    int end; /* the event the step ends at (it starts where the previous one ended) */
    int fw;  /* 0: none; 1: initiator's core; 2: target's core (its functions are shown) */
} bd_rows[] = {
    { "post", "user's post -> the first MMIO write of the entry accepted by the NIC (library, PCIe)", P_DB, 0 },
    { "doorbell", "first -> last MMIO write of the post accepted by the NIC (entry words, producer index)", P_DB_LAST,
      0 },
    { "fw_doorbell", "doorbell -> the send-queue entry's DMA read request (initiator firmware; - when the entry "
                     "came by MMIO)", P_SQE_REQ, 1 },
    { "entry_fetch", "entry read request -> its last data beat at the NIC (DMA read; - when none)", P_SQE_LAST, 0 },
    { "fw_xlate_build", "doorbell or entry in -> the data's first DMA read request (initiator firmware: "
                        "translation, frame build); an inline write's: -> the frame's first beat to the MAC",
      P_D_REQ, 1 },
    { "data_dma", "data's first read request -> the last data beat at the NIC, or the frame's first beat to "
                  "the MAC if that came first (cut-through: the rest of the DMA overlaps mac_tx) (DMA reads; - for "
                  "an inline write: its data came with the entry)", P_D_LAST, 0 },
    { "fw_to_mac", "data in -> the frame's first beat to the MAC (initiator firmware)", P_TX_F, 1 },
    { "mac_tx", "first -> last beat of the frame into the MAC (transmit serialisation)", P_TX_L, 0 },
    { "switch_link", "last beat out -> first beat into the target's MAC (switch, link)", P_RX_F, 0 },
    { "mac_rx", "first -> last beat into the target's MAC (receive serialisation)", P_RX_L, 0 },
    { "fw_receive", "frame in -> the placement's DMA write request (target firmware: dispatch, checks)", P_PL_REQ, 2 },
    { "placement", "placement's first write request -> the last byte written into the target's host memory "
                   "(DMA writes)", P_PL_DONE, 0 },
    { "target_poll", "written -> the target user's poll sees the last byte", P_SEEN, 0 },
    { "fw_ack", "written -> the first beat of the frame that acknowledges it (target firmware)", P_ACK_TX, 2 },
    { "ack_wire", "ACK's first beat out -> its last beat into the initiator's MAC (MAC, switch, link)", P_ACK_RX, 0 },
    { "fw_completion", "ACK in -> the completion's DMA write request (initiator firmware)", P_CQE_REQ, 1 },
    { "cqe_dma", "completion write request -> written into the initiator's host memory (DMA write)", P_CQE_DONE, 0 },
    { "poll", "completion written -> the initiator user's poll returns it", P_DONE, 0 },
};
#define NROWS (sizeof bd_rows / sizeof bd_rows[0])
#define ROW_SEEN 12 /* the one-way chain: rows 0..ROW_SEEN; the completion chain: 0..10, ROW_SEEN+1.. */
#define MAXFN 256

static struct {
    struct ns_world *w;
    rvsyms_t *syms;
    struct bd_node nd[2];
    struct bd_msg *msg;
    size_t nmsg, msgcap;
} B;

static void *grow(void *p, size_t *cap, size_t n, size_t el)
{
    if (n < *cap)
        return p;
    size_t c = *cap ? *cap * 2 : 1024;
    void *q = realloc(p, c * el);
    if (!q) {
        fprintf(stderr, "nicsim: --breakdown: out of memory\n");
        exit(NS_EXIT_SETUP);
    }
    *cap = c;
    return q;
}

static struct bd_ev *add_ev(struct bd_node *d, uint64_t t, uint8_t kind)
{
    d->ev = grow(d->ev, &d->cap, d->nev, sizeof *d->ev);
    struct bd_ev *e = &d->ev[d->nev++];
    memset(e, 0, sizeof *e);
    e->t = t;
    e->kind = kind;
    return e;
}

static void hdr_put(uint8_t *h, unsigned *pos, uint64_t w, unsigned nb)
{
    for (unsigned i = 0; i < nb && *pos < 48; i++)
        h[(*pos)++] = (uint8_t)(w >> (8 * i));
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void hdr_fill(struct bd_ev *e, const uint8_t *h, unsigned have)
{
    if (have < 16)
        return;
    e->dst = (uint16_t)(h[0] << 8 | h[1]);
    e->src = (uint16_t)(h[2] << 8 | h[3]);
    e->ftype = h[4];
    e->seq = le32(h + 8);
    e->ack = le32(h + 12);
}

/* every evaluated cycle of nodes 0 and 1, after the model settled: the handshakes that fire */
static void probe(void *ctx, node_t *n, sim_cycle_t now)
{
    struct bd_node *d = ctx;
    const struct nic_pins *p = node_pins(n);
    struct nic_core_probe cp;
    struct bd_ev *e;

    nic_model_probe(node_nic(n), &cp);
    if (cp.retire_valid) {
        uint32_t off;
        const char *fn = B.syms ? rvsyms_lookup(B.syms, cp.retire_pc, &off) : NULL;
        if (!fn)
            fn = "?";
        if (!d->nrun || d->run[d->nrun - 1].fn != fn) {
            d->run = grow(d->run, &d->runcap, d->nrun, sizeof *d->run);
            d->run[d->nrun++] = (struct bd_run){ now, fn };
        }
    }
    if (p->host_req_valid && p->host_req_ready && p->host_req_we)
        add_ev(d, now, EV_MMIO_W);
    if (p->dma_req_valid && p->dma_req_ready) {
        e = add_ev(d, now, p->dma_req_write ? EV_WR_REQ : EV_RD_REQ);
        e->addr = p->dma_req_addr;
        e->len = p->dma_req_len ? p->dma_req_len : 8192;
        e->tag = p->dma_req_tag;
    }
    if (p->dma_rsp_valid && p->dma_rsp_ready && p->dma_rsp_last)
        add_ev(d, now, EV_RD_LAST)->tag = p->dma_rsp_tag;
    if (p->dma_wack_valid)
        add_ev(d, now, EV_WACK)->tag = p->dma_wack_tag;
    if (p->tx_valid && p->tx_ready) {
        if (d->txpos == 0) {
            add_ev(d, now, EV_TX_FIRST);
            d->tx_first = d->nev - 1;
        }
        hdr_put(d->txh, &d->txpos, p->tx_data, p->tx_last ? p->tx_bytes : 8);
        if (p->tx_last) {
            e = add_ev(d, now, EV_TX_LAST);
            hdr_fill(e, d->txh, d->txpos);
            hdr_fill(&d->ev[d->tx_first], d->txh, d->txpos);
            d->txpos = 0;
        }
    }
    if (p->rx_valid) {
        if (d->rxpos == 0) {
            add_ev(d, now, EV_RX_FIRST);
            d->rx_first = d->nev - 1;
        }
        hdr_put(d->rxh, &d->rxpos, p->rx_data, p->rx_last ? p->rx_bytes : 8);
        if (p->rx_last) {
            e = add_ev(d, now, EV_RX_LAST);
            hdr_fill(e, d->rxh, d->rxpos);
            hdr_fill(&d->ev[d->rx_first], d->rxh, d->rxpos);
            d->rxpos = 0;
        }
    }
}

int ns_bd_attach(struct ns_world *w, FILE *err)
{
    char elf[4200];
    size_t k = strlen(w->img_path);

    memset(&B, 0, sizeof B);
    B.w = w;
    if (k > 4 && !strcmp(w->img_path + k - 4, ".img"))
        snprintf(elf, sizeof elf, "%.*s.elf", (int)(k - 4), w->img_path);
    else
        snprintf(elf, sizeof elf, "%s.elf", w->img_path);
    B.syms = rvsyms_load(elf);
    if (!B.syms && err)
        fprintf(err, "nicsim: --breakdown: no symbols (%s): the firmware steps are not split by function\n", elf);
    for (unsigned i = 0; i < 2; i++) {
        B.nd[i].tx_first = B.nd[i].rx_first = SIZE_MAX;
        node_set_probe(cluster_node(w->cl, i), probe, &B.nd[i]);
    }
    return 0;
}

void ns_bd_detach(struct ns_world *w)
{
    for (unsigned i = 0; i < 2; i++)
        if (cluster_node(w->cl, i))
            node_set_probe(cluster_node(w->cl, i), NULL, NULL);
}

void ns_bd_post(struct ns_node *n, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff, uint64_t wr_id)
{
    struct ns_world *w = n->w;
    struct bd_msg *g;
    uint64_t spa = 0, dpa = 0, spl = 0, dpl = 0;

    if (!w->bd || n->id > 1 || m->node > 1 || !len)
        return;
    const struct ns_node *t = &w->node[m->node];
    if (os_translate(n->os, n->pid, lva, &spa) != SIM_OK || os_translate(n->os, n->pid, lva + len - 1, &spl) != SIM_OK ||
        os_translate(t->os, t->pid, m->va + roff, &dpa) != SIM_OK ||
        os_translate(t->os, t->pid, m->va + roff + len - 1, &dpl) != SIM_OK)
        return;
    B.msg = grow(B.msg, &B.msgcap, B.nmsg, sizeof *B.msg);
    g = &B.msg[B.nmsg++];
    *g = (struct bd_msg){ .init = n->id, .tgt = m->node, .len = len, .wr_id = wr_id, .src_pa = spa, .src_last_pa = spl,
                          .dst_pa = dpa, .dst_last_pa = dpl,
                          .t_post = coro_now(), .warm = n->bd_warmup };
}

void ns_bd_seen(struct ns_node *n)
{
    if (!n->w->bd)
        return;
    for (size_t i = B.nmsg; i-- > 0;)
        if (B.msg[i].tgt == n->id && B.msg[i].init != n->id) {
            if (!B.msg[i].t_seen)
                B.msg[i].t_seen = coro_now();
            return;
        }
}

void ns_bd_done(struct ns_node *n, uint64_t wr_id)
{
    if (!n->w->bd)
        return;
    for (size_t i = B.nmsg; i-- > 0;)
        if (B.msg[i].init == n->id && B.msg[i].wr_id == wr_id) {
            if (!B.msg[i].t_done)
                B.msg[i].t_done = coro_now();
            return;
        }
}

/* ---- analysis --------------------------------------------------------------------------- */

static size_t find(const struct bd_node *d, size_t from, uint64_t t, int kind)
{
    for (size_t i = from; i < d->nev; i++)
        if (d->ev[i].t >= t && d->ev[i].kind == kind)
            return i;
    return SIZE_MAX;
}

static size_t first_at(const struct bd_node *d, uint64_t t)
{
    size_t lo = 0, hi = d->nev;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (d->ev[mid].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t find_tag(const struct bd_node *d, size_t from, int kind, uint8_t tag)
{
    for (size_t i = from + 1; i < d->nev; i++)
        if (d->ev[i].kind == kind && d->ev[i].tag == tag)
            return i;
    return SIZE_MAX;
}

/* The event times of message g (0: not found); returns 0 when the one-way chain is complete. */
static int match(const struct bd_msg *g, uint64_t *t) /* t[P_N]: the acknowledging frame's type */
{
    const struct bd_node *I = &B.nd[g->init], *T = &B.nd[g->tgt];
    size_t i, j, k;

    memset(t, 0, (P_N + 1) * sizeof *t);
    t[P_POST] = g->t_post;
    t[P_SEEN] = g->t_seen;
    t[P_DONE] = g->t_done;
    size_t b = first_at(I, g->t_post);
    if ((i = find(I, b, g->t_post, EV_MMIO_W)) == SIZE_MAX)
        return -1;
    t[P_DB] = I->ev[i].t;
    /* the data read: the first DMA read after the doorbell that covers the source's first byte,
     * before the first write frame to the target; none: an inline write (ABI 2.4), whose data came
     * with the entry, and whose build step ends at that frame (data_dma absent, fw_to_mac 0) */
    size_t fk;
    for (fk = i; fk < I->nev; fk++)
        if (I->ev[fk].kind == EV_TX_FIRST && I->ev[fk].ftype == 1 && I->ev[fk].dst == g->tgt)
            break;
    if (fk == I->nev)
        return -1;
    for (j = i; j < fk; j++)
        if (I->ev[j].kind == EV_RD_REQ && I->ev[j].addr <= g->src_pa && g->src_pa < I->ev[j].addr + I->ev[j].len)
            break;
    int inl = j == fk;
    t[P_D_REQ] = I->ev[j].t;
    for (k = i; k < j; k++) /* the post's last MMIO write: the last before the data's read (the frame) */
        if (I->ev[k].kind == EV_MMIO_W)
            t[P_DB_LAST] = I->ev[k].t;
    /* the entry's fetch: the first DMA read between the doorbell and the data's */
    for (k = i; k < j; k++)
        if (I->ev[k].kind == EV_RD_REQ)
            break;
    if (k < j) {
        size_t l = find_tag(I, k, EV_RD_LAST, I->ev[k].tag);
        t[P_SQE_REQ] = I->ev[k].t;
        t[P_SQE_LAST] = l != SIZE_MAX ? I->ev[l].t : 0;
    }
    if (!inl) {
        for (k = j; k < I->nev; k++) /* the read of the last byte */
            if (I->ev[k].kind == EV_RD_REQ && I->ev[k].addr <= g->src_last_pa &&
                g->src_last_pa < I->ev[k].addr + I->ev[k].len)
                break;
        if (k == I->nev || (k = find_tag(I, k, EV_RD_LAST, I->ev[k].tag)) == SIZE_MAX)
            return -1;
        t[P_D_LAST] = I->ev[k].t;
    }
    k = fk; /* the frame: the first WRITE frame out after the doorbell (and the data's read request) */
    const struct bd_ev *f = &I->ev[k];
    t[P_TX_F] = f->t;
    if ((k = find(I, k, f->t, EV_TX_LAST)) == SIZE_MAX)
        return -1;
    t[P_TX_L] = I->ev[k].t;
    /* cut-through (docs/nic.md): the frame went to the MAC while its payload's DMA still ran; the
     * DMA step ends there, and mac_tx holds the rest of the DMA, overlapped with the sending */
    if (!inl && t[P_TX_F] < t[P_D_LAST])
        t[P_D_LAST] = t[P_TX_F];
    /* at the target: that frame (type, source, sequence number) */
    for (k = first_at(T, f->t); k < T->nev; k++)
        if (T->ev[k].kind == EV_RX_FIRST && T->ev[k].ftype == 1 && T->ev[k].src == g->init && T->ev[k].seq == f->seq)
            break;
    if (k == T->nev)
        return -1;
    t[P_RX_F] = T->ev[k].t;
    if ((k = find(T, k, T->ev[k].t, EV_RX_LAST)) == SIZE_MAX)
        return -1;
    t[P_RX_L] = T->ev[k].t;
    for (j = first_at(T, t[P_RX_F]); j < T->nev; j++)
        if (T->ev[j].kind == EV_WR_REQ && T->ev[j].addr <= g->dst_pa && g->dst_pa < T->ev[j].addr + T->ev[j].len)
            break;
    if (j == T->nev)
        return -1;
    t[P_PL_REQ] = T->ev[j].t;
    for (k = j; k < T->nev; k++) /* the write of the last byte */
        if (T->ev[k].kind == EV_WR_REQ && T->ev[k].addr <= g->dst_last_pa && g->dst_last_pa < T->ev[k].addr + T->ev[k].len)
            break;
    if (k == T->nev || (k = find_tag(T, k, EV_WACK, T->ev[k].tag)) == SIZE_MAX)
        return -1;
    t[P_PL_DONE] = T->ev[k].t;
    if (!g->t_seen)
        return -1;
    /* the acknowledgement: the first frame from the target to the initiator after the data
     * arrived whose cumulative ACK covers it (seq < ack, wrap-safe) */
    for (k = first_at(T, t[P_RX_L]); k < T->nev; k++) {
        const struct bd_ev *a = &T->ev[k];
        if (a->kind == EV_TX_FIRST && a->dst == g->init && (int32_t)(a->ack - f->seq) > 0)
            break;
    }
    if (k < T->nev) {
        const struct bd_ev *a = &T->ev[k];
        t[P_ACK_TX] = a->t;
        t[P_N] = a->ftype;
        for (j = first_at(I, a->t); j < I->nev; j++)
            if (I->ev[j].kind == EV_RX_LAST && I->ev[j].src == g->tgt && I->ev[j].ftype == a->ftype &&
                I->ev[j].ack == a->ack && I->ev[j].seq == a->seq)
                break;
        if (j < I->nev) {
            t[P_ACK_RX] = I->ev[j].t;
            if ((k = find(I, j, t[P_ACK_RX], EV_WR_REQ)) != SIZE_MAX) {
                t[P_CQE_REQ] = I->ev[k].t;
                size_t l = find_tag(I, k, EV_WACK, I->ev[k].tag);
                t[P_CQE_DONE] = l != SIZE_MAX ? I->ev[l].t : 0;
            }
        }
    }
    return 0;
}

/* Cycles core `node` spent in each function over [a, b) (the function of the last retired
 * instruction; a sleeping core's is the wfi's), added to acc. */
struct fnacc {
    const char *fn[MAXFN];
    double cyc[MAXFN];
    unsigned n;
};

static void fn_add(struct fnacc *acc, unsigned node, uint64_t a, uint64_t b)
{
    const struct bd_node *d = &B.nd[node];
    size_t lo = 0, hi = d->nrun;

    if (b <= a || !d->nrun)
        return;
    while (lo < hi) { /* the last run starting at or before a */
        size_t mid = (lo + hi) / 2;
        if (d->run[mid].t <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo ? lo - 1 : 0; i < d->nrun && d->run[i].t < b; i++) {
        uint64_t s = d->run[i].t > a ? d->run[i].t : a;
        uint64_t e = i + 1 < d->nrun && d->run[i + 1].t < b ? d->run[i + 1].t : b;
        if (e <= s)
            continue;
        unsigned j;
        for (j = 0; j < acc->n && acc->fn[j] != d->run[i].fn; j++)
            ;
        if (j == acc->n) {
            if (acc->n == MAXFN)
                continue;
            acc->fn[acc->n] = d->run[i].fn;
            acc->cyc[acc->n++] = 0;
        }
        acc->cyc[j] += (double)(e - s);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct bd_size {
    uint32_t len;
    size_t n, ncomp, unmatched;
    uint64_t step[NROWS];   /* medians */
    int have[NROWS];        /* some write of this size had the step's end event */
    uint64_t oneway, comp;  /* measured medians */
    uint64_t sum1, sum2;    /* sums of the step medians */
    double pp_p50_ns;       /* the pingpong's one-way p50 (round trip / 2) */
    size_t ack_by[8];       /* the acknowledging frame's type (PKT_ACK 4, or a piggy-backing WRITE 1 ...) */
    struct fnacc fa[NROWS]; /* per firmware step: mean cycles per function */
};

static int bd_analyse(struct bd_size *out, unsigned max)
{
    unsigned ns = 0;
    uint64_t t[P_N + 1];

    for (size_t i = 0; i < B.nmsg; i++) {
        unsigned s;
        if (B.msg[i].warm)
            continue;
        for (s = 0; s < ns && out[s].len != B.msg[i].len; s++)
            ;
        if (s == ns) {
            if (ns == max)
                continue;
            memset(&out[ns], 0, sizeof out[ns]);
            out[ns].len = B.msg[i].len;
            for (unsigned p = 0; p < B.w->npts && p < 32; p++)
                if (B.w->pts[p].size == B.msg[i].len)
                    out[ns].pp_p50_ns = B.w->pts[p].lat_p50_ns;
            ns++;
        }
    }
    size_t cap = B.nmsg + 1;
    uint64_t *v = calloc(cap, sizeof *v), *st = calloc(cap * NROWS, sizeof *st), *tot = calloc(cap * 2, sizeof *tot);
    uint8_t *comp = calloc(cap, 1);
    if (!v || !st || !tot || !comp) {
        free(v), free(st), free(tot), free(comp);
        return -1;
    }
    for (unsigned s = 0; s < ns; s++) {
        struct bd_size *z = &out[s];
        size_t n = 0;
        for (size_t i = 0; i < B.nmsg; i++) {
            const struct bd_msg *g = &B.msg[i];
            if (g->len != z->len || g->warm)
                continue;
            if (match(g, t)) {
                z->unmatched++;
                continue;
            }
            uint64_t *row = &st[n * NROWS], m = t[P_POST], m_pl = 0;
            comp[n] = t[P_ACK_TX] && t[P_ACK_RX] && t[P_CQE_REQ] && t[P_CQE_DONE] && t[P_DONE];
            if (comp[n])
                z->ack_by[t[P_N] < 8 ? t[P_N] : 0]++;
            for (unsigned r = 0; r < NROWS; r++) {
                if (r == ROW_SEEN) /* the one-way chain's last step; the completion chain goes on
                                     from the placement */
                    m_pl = m;
                if (r == ROW_SEEN + 1) {
                    if (!comp[n])
                        break;
                    m = m_pl;
                }
                uint64_t e = t[bd_rows[r].end];
                row[r] = 0;
                if (!e) /* absent (e.g. no entry fetch): 0, the next step spans it */
                    continue;
                z->have[r] = 1;
                if (e <= m)
                    continue;
                row[r] = e - m;
                if (bd_rows[r].fw)
                    fn_add(&z->fa[r], bd_rows[r].fw == 1 ? g->init : g->tgt, m, e);
                m = e;
            }
            tot[2 * n] = t[P_SEEN] - t[P_POST];
            tot[2 * n + 1] = comp[n] ? t[P_DONE] - t[P_POST] : 0;
            n++;
        }
        z->n = n;
        for (unsigned r = 0; r < NROWS; r++) {
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (r <= ROW_SEEN || comp[i])
                    v[k++] = st[i * NROWS + r];
            z->step[r] = median(v, k);
            if (r > ROW_SEEN)
                z->ncomp = k;
            if (bd_rows[r].fw && k)
                for (unsigned j = 0; j < z->fa[r].n; j++)
                    z->fa[r].cyc[j] /= (double)k;
        }
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            v[k++] = tot[2 * i];
        z->oneway = median(v, k);
        k = 0;
        for (size_t i = 0; i < n; i++)
            if (comp[i])
                v[k++] = tot[2 * i + 1];
        z->comp = median(v, k);
        for (unsigned r = 0; r < NROWS; r++) {
            if (r <= ROW_SEEN)
                z->sum1 += z->step[r];
            if (r < ROW_SEEN || r > ROW_SEEN)
                z->sum2 += z->step[r];
        }
    }
    free(v), free(st), free(tot), free(comp);
    return (int)ns;
}

/* the functions of a firmware step, largest first: "fn 123, fn 45, ..." (mean cycles per write) */
static void fn_list(const struct fnacc *a, char *buf, size_t n, unsigned top)
{
    unsigned idx[MAXFN], k = a->n;
    size_t o = 0;

    for (unsigned i = 0; i < k; i++)
        idx[i] = i;
    for (unsigned i = 1; i < k; i++) /* insertion sort, descending */
        for (unsigned j = i; j > 0 && a->cyc[idx[j]] > a->cyc[idx[j - 1]]; j--) {
            unsigned x = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = x;
        }
    buf[0] = 0;
    double rest = 0;
    for (unsigned i = 0; i < k; i++) {
        if (i < top && a->cyc[idx[i]] >= 0.5) {
            int w = snprintf(buf + o, n - o, "%s%s %.0f", o ? ", " : "", a->fn[idx[i]], a->cyc[idx[i]]);
            if (w > 0 && (size_t)w < n - o)
                o += (size_t)w;
        } else {
            rest += a->cyc[idx[i]];
        }
    }
    if (rest >= 0.5)
        snprintf(buf + o, n - o, "%sother %.0f", o ? ", " : "", rest);
}

#define BD_MAXSZ 32

static const char *ftype_name(unsigned k)
{
    static const char *const nm[8] = { "?", "WRITE", "READ_REQ", "READ_RESP", "ACK", "NACK", "?6", "?7" };
    return nm[k & 7];
}

/* one row of the table: a label, a value per size (cycles and ns; "-" when absent) and a note */
static void trow(FILE *f, const char *label, const struct bd_size *z, int ns, int which, unsigned r, double ns_per,
                 const char *note)
{
    char buf[64];

    fprintf(f, "  %-15s", label);
    for (int s = 0; s < ns; s++) {
        int64_t c = 0;
        int have = 1;
        switch (which) {
        case 0: c = (int64_t)z[s].step[r], have = z[s].have[r]; break;
        case 1: c = (int64_t)z[s].sum1; break;
        case 2: c = (int64_t)z[s].oneway; break;
        case 3: c = (int64_t)z[s].oneway - (int64_t)z[s].sum1; break;
        case 4: c = (int64_t)(z[s].pp_p50_ns / ns_per + 0.5); break;
        case 5: c = (int64_t)z[s].sum2; break;
        case 6: c = (int64_t)z[s].comp; break;
        case 7: c = (int64_t)z[s].comp - (int64_t)z[s].sum2; break;
        }
        if (!have)
            snprintf(buf, sizeof buf, "-");
        else
            snprintf(buf, sizeof buf, "%" PRId64 " %.0f", c, (double)c * ns_per);
        fprintf(f, " %15s", buf);
    }
    fprintf(f, "%s%s\n", note && note[0] ? "  " : "", note ? note : "");
}

void ns_bd_print(FILE *f)
{
    static struct bd_size z[BD_MAXSZ];
    const struct ns_world *w = B.w;
    int ns = bd_analyse(z, BD_MAXSZ);
    double ns_per = 1e9 / (double)w->clock_hz;
    char buf[512];

    if (ns <= 0) {
        fprintf(f, "\nlatency breakdown: no write was measured\n");
        return;
    }
    fprintf(f, "\nlatency breakdown: pingpong's measured RDMA writes, both directions; per step the median over the\n"
               "writes of each size, \"cycles ns\" (at %.0f MHz); the steps are defined below the table\n",
            (double)w->clock_hz / 1e6);
    fprintf(f, "  %-15s", "step");
    for (int s = 0; s < ns; s++) {
        snprintf(buf, sizeof buf, "%" PRIu32 " B", z[s].len);
        fprintf(f, " %15s", buf);
    }
    fprintf(f, "\n");
    for (unsigned r = 0; r < NROWS; r++) {
        if (r == ROW_SEEN + 1) {
            trow(f, "= sum", z, ns, 1, 0, ns_per, "one-way: post -> the target's poll sees the data");
            trow(f, "  measured p50", z, ns, 2, 0, ns_per, "median of the writes' post -> seen");
            trow(f, "  residual", z, ns, 3, 0, ns_per, "measured - sum (medians do not add exactly)");
            trow(f, "  pingpong p50", z, ns, 4, 0, ns_per, "the workload's one-way figure (round trip / 2)");
            fprintf(f, "  completion: the rows down to placement, then\n");
        }
        trow(f, bd_rows[r].name, z, ns, 0, r, ns_per, NULL);
    }
    trow(f, "= sum", z, ns, 5, 0, ns_per, "completion: post -> the initiator's poll returns it");
    trow(f, "  measured p50", z, ns, 6, 0, ns_per, "median of the writes' post -> completion");
    trow(f, "  residual", z, ns, 7, 0, ns_per, "measured - sum");
    fprintf(f, "  %-15s", "writes");
    for (int s = 0; s < ns; s++) {
        snprintf(buf, sizeof buf, "%zu/%zu/%zu", z[s].ncomp, z[s].n, z[s].n + z[s].unmatched);
        fprintf(f, " %15s", buf);
    }
    fprintf(f, "  completion chain / one-way chain / measured writes\n");
    fprintf(f, "  %-15s", "acked by");
    for (int s = 0; s < ns; s++) {
        size_t o = 0;
        buf[0] = 0;
        for (unsigned k = 0; k < 8; k++)
            if (z[s].ack_by[k]) {
                int wr = snprintf(buf + o, sizeof buf - o, "%s%s %zu", o ? "," : "", ftype_name(k), z[s].ack_by[k]);
                if (wr > 0 && (size_t)wr < sizeof buf - o)
                    o += (size_t)wr;
            }
        fprintf(f, " %15s", buf);
    }
    fprintf(f, "  the frame whose cumulative ACK first covered the write (a WRITE: piggy-backed)\n");
    fprintf(f, "firmware steps by function (mean cycles per write; the function of the last retired instruction):\n");
    for (unsigned r = 0; r < NROWS; r++)
        if (bd_rows[r].fw)
            for (int s = 0; s < ns; s++) {
                fn_list(&z[s].fa[r], buf, sizeof buf, 8);
                if (buf[0])
                    fprintf(f, "  %-15s %5" PRIu32 " B: %s\n", bd_rows[r].name, z[s].len, buf);
            }
    fprintf(f, "steps:\n");
    for (unsigned r = 0; r < NROWS; r++)
        fprintf(f, "  %-15s %s\n", bd_rows[r].name, bd_rows[r].spans);
}

void ns_bd_json(void *root)
{
    static struct bd_size z[BD_MAXSZ];
    const struct ns_world *w = B.w;
    int ns = bd_analyse(z, BD_MAXSZ);
    double ns_per = 1e9 / (double)w->clock_hz;
    char buf[512];
    cJSON *bd = cJSON_AddObjectToObject(root, "breakdown"), *arr;

    cJSON_AddNumberToObject(bd, "clock_hz", (double)w->clock_hz);
    cJSON_AddStringToObject(bd, "statistic", "median over the writes of each size, per step");
    arr = cJSON_AddArrayToObject(bd, "sizes");
    for (int s = 0; s < ns; s++) {
        cJSON *x = cJSON_CreateObject(), *steps, *y;
        cJSON_AddItemToArray(arr, x);
        cJSON_AddNumberToObject(x, "size", z[s].len);
        cJSON_AddNumberToObject(x, "writes", (double)z[s].n);
        cJSON_AddNumberToObject(x, "unmatched", (double)z[s].unmatched);
        cJSON_AddNumberToObject(x, "completion_writes", (double)z[s].ncomp);
        steps = cJSON_AddArrayToObject(x, "steps");
        for (unsigned r = 0; r < NROWS; r++) {
            y = cJSON_CreateObject();
            cJSON_AddItemToArray(steps, y);
            cJSON_AddStringToObject(y, "step", bd_rows[r].name);
            cJSON_AddStringToObject(y, "spans", bd_rows[r].spans);
            cJSON_AddStringToObject(y, "chain", r < ROW_SEEN ? "both" : r == ROW_SEEN ? "one_way" : "completion");
            if (z[s].have[r]) {
                cJSON_AddNumberToObject(y, "cycles", (double)z[s].step[r]);
                cJSON_AddNumberToObject(y, "ns", (double)z[s].step[r] * ns_per);
            } else {
                cJSON_AddNullToObject(y, "cycles");
                cJSON_AddNullToObject(y, "ns");
            }
            if (bd_rows[r].fw) {
                cJSON *fo = cJSON_AddObjectToObject(y, "functions_mean_cycles");
                for (unsigned j = 0; j < z[s].fa[r].n; j++)
                    if (z[s].fa[r].cyc[j] >= 0.5)
                        cJSON_AddNumberToObject(fo, z[s].fa[r].fn[j], z[s].fa[r].cyc[j]);
            }
        }
        y = cJSON_AddObjectToObject(x, "one_way");
        cJSON_AddNumberToObject(y, "sum_cycles", (double)z[s].sum1);
        cJSON_AddNumberToObject(y, "measured_p50_cycles", (double)z[s].oneway);
        cJSON_AddNumberToObject(y, "residual_cycles", (double)((int64_t)(z[s].oneway - z[s].sum1)));
        cJSON_AddNumberToObject(y, "pingpong_p50_ns", z[s].pp_p50_ns);
        y = cJSON_AddObjectToObject(x, "ack_frames");
        for (unsigned k = 0; k < 8; k++)
            if (z[s].ack_by[k])
                cJSON_AddNumberToObject(y, ftype_name(k), (double)z[s].ack_by[k]);
        y = cJSON_AddObjectToObject(x, "completion");
        cJSON_AddNumberToObject(y, "sum_cycles", (double)z[s].sum2);
        cJSON_AddNumberToObject(y, "measured_p50_cycles", (double)z[s].comp);
        cJSON_AddNumberToObject(y, "residual_cycles", (double)((int64_t)(z[s].comp - z[s].sum2)));
    }
    (void)buf;
}

void ns_bd_free(void)
{
    for (unsigned i = 0; i < 2; i++) {
        free(B.nd[i].ev);
        free(B.nd[i].run);
    }
    free(B.msg);
    rvsyms_free(B.syms);
    memset(&B, 0, sizeof B);
}
