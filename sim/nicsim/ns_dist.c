/*
 * ns_dist.c - what nicsim's nodes share out of band, carried across quantum boundaries, for one
 * rank as for many (nicsim.h "Ranks", docs/simulation-speed.md).
 *
 * Between two boundaries each rank appends its nodes' out-of-band acts to a log (w->out): a
 * directory entry published, a barrier arrival, a failure, a verification to make, a program
 * ended. At the boundary every rank gets every rank's log (cluster_set_sync) and applies it in the
 * same order, so every rank's copy of the directory, the barrier and the failure state is the same
 * and depends on the simulated cycles only, never on which rank a node lives on:
 *   publish   dir[node][slot] = entry
 *   arrival   counted; when all nodes have arrived, the barrier releases everyone at the boundary
 *   verify    the rank holding the target's memory compares it with the bytes the requester read
 *             at its completion (the target cannot change within a quantum: any write to it has to
 *             cross the switch, whose latency is the quantum); a mismatch is a failure logged for
 *             the next boundary, with the completion's cycle
 *   failure   sorted by (cycle, node, order): the first one is the run's error; rank 0 prints them
 *   halt      an NCP that halted (found at the boundary by its node's rank) fails the run
 * At the end, ns_dist_gather brings every rank's results to rank 0, which writes the report.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fwdiag.h"
#include "nicsim.h"

enum { R_PUB = 1, R_ARRIVE, R_DONE, R_FAIL, R_HALT, R_VERIFY };

struct rd { /* a reader over one rank's log */
    const uint8_t *p;
    size_t n, off;
    int bad;
};

static void get(struct rd *r, void *v, size_t k)
{
    if (r->off + k > r->n) {
        r->bad = 1;
        memset(v, 0, k);
        return;
    }
    memcpy(v, r->p + r->off, k);
    r->off += k;
}

static void put(struct ns_world *w, const void *v, size_t k)
{
    if (cluster_buf_put(&w->out, v, k)) {
        fprintf(stderr, "nicsim: out of memory for the out-of-band log\n");
        exit(3);
    }
}

static void put_hdr(struct ns_world *w, uint8_t type, uint16_t node)
{
    put(w, &type, 1);
    put(w, &node, 2);
}

static void put_str(struct ns_world *w, const char *s)
{
    uint16_t l = (uint16_t)strnlen(s, 255);
    put(w, &l, 2);
    put(w, s, l);
}

static void get_str(struct rd *r, char *s, size_t cap)
{
    uint16_t l = 0;
    get(r, &l, 2);
    if (l >= cap || r->off + l > r->n) {
        r->bad = 1;
        s[0] = 0;
        return;
    }
    memcpy(s, r->p + r->off, l);
    s[l] = 0;
    r->off += l;
}

/* ---- the acts (called from the nodes' coroutines) ---- */

void ns_publish(struct ns_node *n, unsigned slot, const struct nic_mr *mr)
{
    uint32_t s = slot;
    if (n->w->o->boot_nic) { /* sent by the NIC at the next barrier (ns_boot.c) */
        n->boot_pub[slot % NS_MAX_BUFS] = *mr;
        n->boot_pend |= 1ull << (slot % NS_MAX_BUFS);
        return;
    }
    put_hdr(n->w, R_PUB, (uint16_t)n->id);
    put(n->w, &s, 4);
    put(n->w, mr, sizeof *mr);
}

void ns_done(struct ns_node *n)
{
    put_hdr(n->w, R_DONE, (uint16_t)n->id);
}

int ns_check_halt(struct ns_world *w)
{
    return w->halted != 0;
}

static void log_fail(struct ns_world *w, unsigned node, sim_cycle_t at, const char *msg)
{
    uint64_t t = at, seq = w->fail_seq++;
    put_hdr(w, R_FAIL, (uint16_t)node);
    put(w, &t, 8);
    put(w, &seq, 8);
    put_str(w, msg);
}

void ns_fail(struct ns_node *n, const char *fmt, ...)
{
    struct ns_world *w = n->w;
    char msg[200];
    va_list ap;

    if (w->stopping)
        return; /* the run is over: what fails now is the shutdown, not the workload */
    if (w->halted) {
        w->suppressed++; /* a consequence of the halt, explained at the end of the run */
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_fail(w, n->id, coro_now(), msg);
}

/* Everyone arrives; the boundary after the last arrival releases the generation. Nodes that failed
 * still arrive (they run their program to the end), so a failure never leaves the others waiting. */
void ns_barrier(struct ns_node *n)
{
    struct ns_world *w = n->w;
    uint64_t gen = w->bar_gen;

    if (w->o->boot_nic && n->ok && n->dev)
        ns_boot_exchange(n);
    put_hdr(w, R_ARRIVE, (uint16_t)n->id);
    while (w->bar_gen == gen)
        coro_wait_change(&w->bar_ev, coro_event_count(&w->bar_ev), SIM_CYCLE_NEVER);
}

#define NS_CHUNK 65536u
void ns_verify(struct ns_node *a, uint64_t lva, unsigned b, uint64_t rva, uint64_t len)
{
    struct ns_world *w = a->w;
    uint64_t t = coro_now();
    uint16_t bb = (uint16_t)b;
    uint8_t *x = malloc(len ? (size_t)len : 1);

    if (!x || os_read(a->os, a->pid, lva, x, (size_t)len) != SIM_OK) {
        ns_fail(a, "verify: cannot read host memory");
        free(x);
        return;
    }
    put_hdr(w, R_VERIFY, (uint16_t)a->id);
    put(w, &t, 8);
    put(w, &bb, 2);
    put(w, &lva, 8);
    put(w, &rva, 8);
    put(w, &len, 8);
    put(w, x, (size_t)len);
    free(x);
}

/* ---- the boundary ---- */

struct fail {
    uint64_t t, seq;
    unsigned node;
    const uint8_t *msg; /* in the rank's log: length-prefixed */
};

static int cmp_fail(const void *a, const void *b)
{
    const struct fail *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void pack(void *ctx, sim_cycle_t t, struct cluster_buf *buf)
{
    struct ns_world *w = ctx;
    (void)t;
    /* NCPs of this rank that halted since the last boundary */
    for (unsigned i = 0; i < w->o->nodes; i++) {
        const node_t *nd = cluster_node(w->cl, i);
        char sum[200];
        if (!nd || !node_status(nd)->halted || w->node[i].halt_seen)
            continue;
        w->node[i].halt_seen = 1;
        fwdiag_summary(nd, w->img_path, sum, sizeof sum);
        put_hdr(w, R_HALT, (uint16_t)i);
        put_str(w, sum);
    }
    if (cluster_buf_put(buf, w->out.p, w->out.n)) {
        fprintf(stderr, "nicsim: out of memory at a quantum boundary\n");
        exit(3);
    }
    w->out.n = 0;
}

static void check_verify(struct ns_world *w, unsigned a, unsigned b, uint64_t at, uint64_t lva, uint64_t rva,
                         uint64_t len, const uint8_t *x)
{
    static uint8_t y[NS_CHUNK];
    struct ns_node *nb = &w->node[b];
    char msg[200];

    for (uint64_t off = 0; off < len; off += NS_CHUNK) {
        uint64_t k = len - off < NS_CHUNK ? len - off : NS_CHUNK;
        if (os_read(nb->os, nb->pid, rva + off, y, (size_t)k) != SIM_OK) {
            if (!w->halted)
                log_fail(w, a, at, "verify: cannot read host memory");
            return;
        }
        w->verify_bytes += k;
        if (memcmp(x + off, y, (size_t)k)) {
            uint64_t i = 0;
            while (x[off + i] == y[i])
                i++;
            w->verify_mismatch++;
            snprintf(msg, sizeof msg,
                     "verify: node %u 0x%" PRIx64 " and node %u 0x%" PRIx64 " differ at byte %" PRIu64 " of %" PRIu64, a,
                     lva, b, rva, off + i, len);
            if (w->halted)
                w->suppressed++;
            else
                log_fail(w, a, at, msg);
            return;
        }
    }
}

static int unpack(void *ctx, sim_cycle_t t, const uint8_t *const *blocks, const size_t *lens, unsigned nb)
{
    struct ns_world *w = ctx;
    unsigned arrivals = 0, rank = dist_rank(cluster_dist(w->cl));
    struct fail *fails = NULL;
    size_t nfail = 0, capfail = 0;
    unsigned halts = 0;

    for (int pass = 0; pass < 2; pass++) /* halts first: the failures after them are their consequences */
        for (unsigned r = 0; r < nb; r++) {
            struct rd rd = { blocks[r], lens[r], 0, 0 };
            while (rd.off < rd.n && !rd.bad) {
                uint8_t type = 0;
                uint16_t node = 0;
                get(&rd, &type, 1);
                get(&rd, &node, 2);
                if (node >= w->o->ranks) /* a rank (R_HALT: a node, below) */
                    rd.bad = 1;
                switch (type) {
                case R_PUB: {
                    uint32_t slot;
                    struct nic_mr mr;
                    get(&rd, &slot, 4);
                    get(&rd, &mr, sizeof mr);
                    if (pass == 0 && !rd.bad && slot < NS_MAX_BUFS)
                        w->dir[node][slot] = mr;
                    break;
                }
                case R_ARRIVE:
                    arrivals += pass == 0;
                    break;
                case R_DONE:
                    w->done += pass == 0;
                    break;
                case R_HALT: {
                    char sum[256];
                    get_str(&rd, sum, sizeof sum);
                    if (pass == 0 && !rd.bad) {
                        w->halted++;
                        halts++;
                        if (!w->failed) {
                            snprintf(w->fail_msg, sizeof w->fail_msg, "node %u: %.200s", node, sum);
                            w->fail_at = t;
                        }
                        w->failed++;
                    }
                    break;
                }
                case R_FAIL: {
                    struct fail f;
                    uint16_t l = 0;
                    get(&rd, &f.t, 8);
                    get(&rd, &f.seq, 8);
                    f.node = node;
                    f.msg = rd.p + rd.off;
                    get(&rd, &l, 2);
                    if (rd.off + l > rd.n)
                        rd.bad = 1;
                    else
                        rd.off += l;
                    if (pass == 1 && !rd.bad) {
                        if (nfail == capfail) {
                            capfail = capfail ? capfail * 2 : 16;
                            fails = realloc(fails, capfail * sizeof *fails);
                            if (!fails) {
                                fprintf(stderr, "nicsim: out of memory\n");
                                exit(3);
                            }
                        }
                        fails[nfail++] = f;
                    }
                    break;
                }
                case R_VERIFY: {
                    uint64_t at, lva, rva, len;
                    uint16_t b;
                    get(&rd, &at, 8);
                    get(&rd, &b, 2);
                    get(&rd, &lva, 8);
                    get(&rd, &rva, 8);
                    get(&rd, &len, 8);
                    if (rd.bad || b >= w->o->ranks || len > rd.n - rd.off) {
                        rd.bad = 1;
                        break;
                    }
                    if (pass == 1 && cluster_is_local(w->cl, b % w->o->nodes)) /* rank b's node */
                        check_verify(w, node, b, at, lva, rva, len, rd.p + rd.off);
                    rd.off += len;
                    break;
                }
                default:
                    rd.bad = 1;
                }
            }
            if (rd.bad) {
                fprintf(stderr, "nicsim: rank %u: malformed out-of-band data from rank %u at cycle %" PRIu64
                                " (mismatched builds?)\n", rank, r, (uint64_t)t);
                dist_abort(cluster_dist(w->cl), 3);
            }
        }
    if (nfail) {
        qsort(fails, nfail, sizeof *fails, cmp_fail);
        for (size_t i = 0; i < nfail; i++) {
            char msg[200];
            uint16_t l;
            memcpy(&l, fails[i].msg, 2);
            snprintf(msg, sizeof msg, "%.*s", (int)(l < sizeof msg ? l : sizeof msg - 1), (const char *)fails[i].msg + 2);
            if (w->stopping)
                break;
            if (w->halted && !halts) { /* after a halt known earlier: its consequence */
                w->suppressed += rank == 0;
                continue;
            }
            if (!w->failed) {
                snprintf(w->fail_msg, sizeof w->fail_msg, "node %u: %s", fails[i].node, msg);
                w->fail_at = fails[i].t;
            }
            w->failed++;
            if (rank == 0)
                fprintf(stderr, "nicsim: node %u at cycle %" PRIu64 ": %s\n", fails[i].node, fails[i].t, msg);
        }
        free(fails);
    }
    if (arrivals) {
        w->bar_count += arrivals;
        if (w->bar_count >= w->o->ranks) {
            w->bar_count = 0;
            w->bar_gen++;
            coro_event_signal(&w->bar_ev, t);
            return 1;
        }
    }
    return 0;
}

static const struct cluster_sync sync_ops = { pack, unpack };

void ns_dist_attach(struct ns_world *w)
{
    cluster_set_sync(w->cl, &sync_ops, w);
}

void ns_dist_flush(struct ns_world *w)
{
    /* twice: verifications logged in the last quantum, then the failures they found */
    for (int i = 0; i < 2; i++)
        if (cluster_boundary(w->cl)) {
            fprintf(stderr, "nicsim: rank %u: the ranks lost each other at the end of the run\n",
                    dist_rank(cluster_dist(w->cl)));
            dist_abort(cluster_dist(w->cl), DIST_EXIT_LOST);
        }
}

/* ---- the results, to rank 0 ---- */

struct sums {
    uint64_t ops, bytes, verify_bytes, verify_mismatch, suppressed, violations, lat_dropped, nlat;
    uint64_t t0, t1, t_first;
};

struct node_res {
    uint32_t id, ok;
    struct nic_stats stats;
    struct nicdrv_stats dstats;
    uint32_t mac[6];
    uint64_t pinned_after_close, posted, completed, errors;
    uint64_t boot_cycles, boot_cycles_max, boot_msgs, boot_rnr;
    struct switch_port_counters sw;
    uint64_t miss_count;
    uint32_t miss_kept;
    uint32_t rank;
    uint64_t cycles_evaluated;
};

void ns_dist_gather(struct ns_world *w, costs_t *merged_costs, struct switch_port_counters *sw_total,
                    uint64_t *violations)
{
    struct cluster_buf b = { 0, 0, 0 };
    const struct cluster_stats *cs = cluster_stats(w->cl);
    struct ns_rank_stat me = { dist_rank(cluster_dist(w->cl)), 0, 0, cs->cpu_s, cs->boundary_cpu_s, cs->wall_s,
                               cs->boundary_wall_s, dist_wait_s(cluster_dist(w->cl)), cs->boundaries,
                               dist_exchanges(cluster_dist(w->cl)) };
    const uint8_t *res[CLUSTER_MAX_NODES] = { 0 }; /* each node's results, in the gathered blocks */
    struct sums s = { w->ops, w->bytes, w->verify_bytes, w->verify_mismatch, w->suppressed, *violations,
                      w->lat_dropped, w->nlat, w->t0, w->t1, w->t_first };
    dist_t *d = cluster_dist(w->cl);
    const uint8_t *const *blocks;
    const size_t *lens;
    int oom = 0;

    for (unsigned i = 0; i < w->o->nodes; i++)
        if (cluster_is_local(w->cl, i)) {
            me.nodes++;
            me.cycles_evaluated += node_status(cluster_node(w->cl, i))->cycles_evaluated;
        }
    oom |= cluster_buf_put(&b, &s, sizeof s);
    oom |= cluster_buf_put(&b, &me, sizeof me);
    oom |= cluster_buf_put(&b, w->lat, w->nlat * sizeof *w->lat);
    for (unsigned i = 0; i < w->o->nodes; i++) {
        struct ns_node *n = &w->node[i];
        struct node_res r;
        const sim_cycle_t *dl = NULL, *pr = NULL, *fl = NULL;
        if (!cluster_is_local(w->cl, i))
            continue;
        memset(&r, 0, sizeof r);
        r.id = i;
        r.ok = (uint32_t)n->ok;
        r.stats = n->stats;
        r.dstats = n->dstats;
        r.mac[0] = n->mac.rx_ok, r.mac[1] = n->mac.rx_bad_crc, r.mac[2] = n->mac.rx_nobuf;
        r.mac[3] = n->mac.rx_overflow, r.mac[4] = n->mac.tx_ok, r.mac[5] = n->mac.tx_underruns;
        r.pinned_after_close = n->pinned_after_close;
        r.posted = n->posted, r.completed = n->completed, r.errors = n->errors;
        r.boot_cycles = n->boot_cycles, r.boot_cycles_max = n->boot_cycles_max;
        r.boot_msgs = n->boot_msgs, r.boot_rnr = n->boot_rnr;
        r.sw = *switch_port_counters(cluster_switch(w->cl), i);
        r.miss_kept = n->costs ? costs_samples(n->costs, &r.miss_count, &dl, &pr) : 0;
        fl = n->costs ? costs_fill_samples(n->costs) : NULL;
        r.rank = me.rank;
        r.cycles_evaluated = node_status(cluster_node(w->cl, i))->cycles_evaluated;
        oom |= cluster_buf_put(&b, &r, sizeof r);
        oom |= cluster_buf_put(&b, dl, r.miss_kept * sizeof *dl);
        oom |= cluster_buf_put(&b, pr, r.miss_kept * sizeof *pr);
        oom |= cluster_buf_put(&b, fl, r.miss_kept * sizeof *fl);
    }
    if (oom || dist_allgather(d, b.p, b.n, cluster_now(w->cl), &blocks, &lens)) {
        fprintf(stderr, "nicsim: rank %u: cannot gather the results\n", dist_rank(d));
        dist_abort(d, DIST_EXIT_LOST);
    }
    /* every rank merges (they all get every block), so every rank's world is the whole run's */
    memset(&s, 0, sizeof s);
    w->nlat = 0;
    w->lat_dropped = 0;
    memset(sw_total, 0, sizeof *sw_total);
    free(w->rank_stats);
    w->nrank_stats = 0;
    if (!(w->rank_stats = calloc(dist_size(d), sizeof *w->rank_stats))) {
        fprintf(stderr, "nicsim: out of memory\n");
        exit(3);
    }
    for (unsigned r = 0; r < dist_size(d); r++) {
        struct rd rd = { blocks[r], lens[r], 0, 0 };
        struct sums x;
        get(&rd, &x, sizeof x);
        get(&rd, &w->rank_stats[w->nrank_stats++], sizeof *w->rank_stats);
        s.ops += x.ops, s.bytes += x.bytes, s.verify_bytes += x.verify_bytes;
        s.verify_mismatch += x.verify_mismatch, s.suppressed += x.suppressed, s.violations += x.violations;
        s.lat_dropped += x.lat_dropped;
        if (!s.t0)
            s.t0 = x.t0; /* the lowest rank's (node 0's where it sets it) */
        if (x.t1 > s.t1)
            s.t1 = x.t1;
        if (!s.t_first)
            s.t_first = x.t_first;
        for (uint64_t k = 0; k < x.nlat && !rd.bad; k++) {
            uint64_t v;
            get(&rd, &v, sizeof v);
            ns_lat(w, v);
        }
        while (rd.off < rd.n && !rd.bad) { /* each node's results: taken below, in node order */
            struct node_res nr;
            get(&rd, &nr, sizeof nr);
            if (rd.bad || nr.id >= w->o->nodes || res[nr.id] ||
                rd.n - rd.off < 3ull * nr.miss_kept * sizeof(sim_cycle_t)) {
                rd.bad = 1;
                break;
            }
            res[nr.id] = rd.p + rd.off - sizeof nr;
            rd.off += 3ull * nr.miss_kept * sizeof(sim_cycle_t);
        }
        if (rd.bad) {
            fprintf(stderr, "nicsim: rank %u: malformed results from rank %u\n", dist_rank(d), r);
            dist_abort(d, 3);
        }
    }
    /* in node order, whichever rank held the node (cluster_config.rank_of): the same merge for any
     * number of ranks and any assignment */
    for (unsigned i = 0; i < w->o->nodes; i++) {
        struct node_res nr;
        if (!res[i]) {
            fprintf(stderr, "nicsim: rank %u: no results for node %u\n", dist_rank(d), i);
            dist_abort(d, 3);
        }
        memcpy(&nr, res[i], sizeof nr);
        struct ns_node *n = &w->node[nr.id];
        n->ok = (int)nr.ok;
        n->stats = nr.stats;
        n->dstats = nr.dstats;
        n->mac.rx_ok = nr.mac[0], n->mac.rx_bad_crc = nr.mac[1], n->mac.rx_nobuf = nr.mac[2];
        n->mac.rx_overflow = nr.mac[3], n->mac.tx_ok = nr.mac[4], n->mac.tx_underruns = nr.mac[5];
        n->pinned_after_close = nr.pinned_after_close;
        n->posted = nr.posted, n->completed = nr.completed, n->errors = nr.errors;
        n->boot_cycles = nr.boot_cycles, n->boot_cycles_max = nr.boot_cycles_max;
        n->boot_msgs = nr.boot_msgs, n->boot_rnr = nr.boot_rnr;
        n->sim_rank = nr.rank;
        n->cycles_evaluated = nr.cycles_evaluated;
        {
            const uint64_t *src = (const uint64_t *)&nr.sw;
            uint64_t *dst = (uint64_t *)sw_total;
            for (size_t k = 0; k < sizeof *sw_total / sizeof(uint64_t); k++)
                dst[k] = dst[k] > UINT64_MAX - src[k] ? UINT64_MAX : dst[k] + src[k];
        }
        const uint8_t *dl = res[i] + sizeof nr, *pr = dl + nr.miss_kept * sizeof(sim_cycle_t);
        const uint8_t *fl = pr + nr.miss_kept * sizeof(sim_cycle_t);
        costs_import(merged_costs, nr.miss_count, nr.miss_kept, dl, pr, fl);
    }
    w->ops = s.ops, w->bytes = s.bytes, w->verify_bytes = s.verify_bytes, w->verify_mismatch = s.verify_mismatch;
    w->suppressed = s.suppressed;
    w->lat_dropped += s.lat_dropped;
    w->t0 = s.t0, w->t1 = s.t1, w->t_first = s.t_first;
    *violations = s.violations;
    free(b.p);
}
