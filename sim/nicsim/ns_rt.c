/*
 * ns_rt.c - the per-node runtime of nicsim's workloads (nicsim.h): registration with known
 * contents, posting and waiting through the library. The out-of-band directory, barrier, failures
 * and the verification of every byte moved are in ns_dist.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fwdiag.h"
#include "nicsim.h"

#define NS_WAIT_CYCLES 2000000000ull /* 10 s simulated: far beyond any retry limit */
#define NS_CHUNK 65536u

static uint8_t pattern(unsigned node, uint64_t seq, uint64_t i)
{
    uint64_t x = (seq + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)node * 0xBF58476D1CE4E5B9ull + (i >> 3) * 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (uint8_t)(x >> (8 * (i & 7)));
}

int ns_fill(struct ns_node *n, uint64_t va, uint64_t len, uint64_t seq)
{
    uint8_t buf[NS_CHUNK];
    for (uint64_t off = 0; off < len; off += NS_CHUNK) {
        uint64_t k = len - off < NS_CHUNK ? len - off : NS_CHUNK;
        for (uint64_t i = 0; i < k; i++)
            buf[i] = pattern(n->id, seq, off + i);
        if (os_write(n->os, n->pid, va + off, buf, (size_t)k) != SIM_OK) {
            ns_fail(n, "cannot write %" PRIu64 " bytes at 0x%" PRIx64, k, va + off);
            return -1;
        }
    }
    return 0;
}

int ns_reg(struct ns_node *n, unsigned slot, uint64_t va, uint64_t len, uint32_t access)
{
    int rc;
    if (slot >= NS_MAX_BUFS) {
        ns_fail(n, "buffer slot %u out of range", slot);
        return -1;
    }
    if (ns_fill(n, va, len, 1000000u + slot))
        return -1;
    rc = nic_reg(n->dev, va, len, access, &n->local[slot]);
    if (rc) {
        ns_fail(n, "nic_reg(0x%" PRIx64 ", %" PRIu64 "): %s", va, len, nic_strerror(rc));
        return -1;
    }
    ns_publish(n, slot, &n->local[slot]);
    if (slot >= n->nlocal)
        n->nlocal = slot + 1;
    return 0;
}

const struct nic_mr *ns_peer(struct ns_node *n, unsigned node, unsigned slot)
{
    return &n->w->dir[node % NS_MAX_NODES][slot % NS_MAX_BUFS];
}

int ns_post(struct ns_node *n, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
            uint64_t wr_id)
{
    return ns_post_sig(n, write, lva, len, m, roff, wr_id, 1);
}

int ns_post_sig(struct ns_node *n, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
                uint64_t wr_id, int signaled)
{
    struct nic_wr wr = { .local_va = lva, .len = len, .remote_offset = roff, .wr_id = wr_id, .signaled = signaled };
    int rc;

    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
    if (n->w->bd && write)
        ns_bd_post(n, lva, len, m, roff, wr_id);
    for (;;) {
        rc = write ? nic_post_write(n->dev, n->ep, &wr) : nic_post_read(n->dev, n->ep, &wr);
        if (rc != NIC_EQFULL)
            break;
        coro_sleep(100); /* the caller's window is larger than the queue: let it drain */
    }
    if (rc) {
        ns_fail(n, "post %s %u bytes to node %u: %s", write ? "write" : "read", len, m->node, nic_strerror(rc));
        return rc;
    }
    n->posted++;
    return 0;
}

int ns_wait(struct ns_node *n, struct nic_wc *wc)
{
    sim_cycle_t start = coro_now();
    int rc;
    /* in slices, so that a failure elsewhere lets this node go on to its end-of-run steps */
    while ((rc = nic_wait(n->dev, n->ep, wc, 200000)) == NIC_ETIMEDOUT && !n->w->failed &&
           coro_now() - start < NS_WAIT_CYCLES)
        ;
    if (rc == NIC_ETIMEDOUT && n->w->failed)
        return -1;
    if (rc) {
        ns_fail(n, "waiting for a completion: %s", nic_strerror(rc));
        return -1;
    }
    n->completed++;
    if (n->w->bd)
        ns_bd_done(n, wc->wr_id);
    if (wc->status != NIC_WC_SUCCESS) {
        n->errors++;
        ns_fail(n, "request %" PRIu64 " completed with %s (%" PRIu64 " completions before it)", wc->wr_id,
                nic_wc_status_str(wc->status), n->completed - 1);
        return -1;
    }
    return 0;
}

void ns_lat(struct ns_world *w, sim_cycle_t cycles)
{
    if (w->nlat == w->lat_cap && w->lat_cap < NS_LAT_MAX) {
        uint64_t cap = w->lat_cap ? w->lat_cap * 2 : 4096;
        uint64_t *p = realloc(w->lat, (size_t)cap * sizeof *p);
        if (p) {
            w->lat = p;
            w->lat_cap = cap;
        }
    }
    if (w->nlat < w->lat_cap)
        w->lat[w->nlat++] = cycles;
    else
        w->lat_dropped++;
}

double ns_cyc_to_ns(const struct ns_world *w, double cycles)
{
    return cycles * 1e9 / (double)w->clock_hz;
}

void ns_compute(struct ns_node *n, uint64_t ns)
{
    sim_cycle_t c = (sim_cycle_t)((double)ns * (double)n->w->clock_hz / 1e9);
    if (c)
        coro_sleep(c);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The p-th per-mille sample of n sorted ones, the convention the reports always used for p99:
 * index floor(n * p / 1000), at most n - 1. */
static double pm(const uint64_t *v, uint64_t n, unsigned p)
{
    uint64_t i = n * p / 1000;
    return (double)v[i < n ? i : n - 1];
}

void ns_lat_stats(const struct ns_world *w, uint64_t *v, uint64_t n, struct ns_lat_stats *st)
{
    double sum = 0, sq = 0, mean;
    memset(st, 0, sizeof *st);
    st->n = n;
    if (!n)
        return;
    qsort(v, n, sizeof *v, cmp_u64);
    for (uint64_t i = 0; i < n; i++)
        sum += (double)v[i];
    mean = sum / (double)n;
    for (uint64_t i = 0; i < n; i++)
        sq += ((double)v[i] - mean) * ((double)v[i] - mean);
    st->min = ns_cyc_to_ns(w, (double)v[0]);
    st->max = ns_cyc_to_ns(w, (double)v[n - 1]);
    st->p50 = ns_cyc_to_ns(w, pm(v, n, 500));
    st->mean = ns_cyc_to_ns(w, mean);
    st->stdev = ns_cyc_to_ns(w, sqrt(sq / (double)n)); /* population stdev, as perftest */
    st->p99 = ns_cyc_to_ns(w, pm(v, n, 990));
    st->p999 = ns_cyc_to_ns(w, pm(v, n, 999));
}

void ns_point_lat(struct ns_point *p, const struct ns_lat_stats *st)
{
    p->lat_min_ns = st->min;
    p->lat_max_ns = st->max;
    p->lat_p50_ns = st->p50;
    p->lat_mean_ns = st->mean;
    p->lat_stdev_ns = st->stdev;
    p->lat_p99_ns = st->p99;
    p->lat_p999_ns = st->p999;
}
