/*
 * wl_apps.c - application-like communication patterns at page granularity, named after the
 * SPLASH-2 programs whose communication they mimic. They are NOT those programs: no computation
 * is done on the data; each phase moves pages the way the program's main loop would, then every
 * node "computes" for --compute-ns per page of its working set (simulated host time), then all
 * nodes meet at a barrier. The working set per node is --ws-pages pages to send from (source)
 * plus as many to receive into (destination), each registered as one buffer.
 *
 *   fft     all-to-all transpose: the source is N blocks; block j goes to node j's
 *           destination block i (every pair, every phase)
 *   radix   scattered permutation writes: every 1 KiB chunk of the source goes to a chunk slot
 *           chosen by a seeded permutation over all nodes' destination chunks (new each phase)
 *   lu      block broadcast: in phase k node k mod N sends block k (ws/16 pages, moving
 *           through the working set) to every other node
 *   ocean   nearest-neighbour borders: nodes in a ring send their first and last ws/16 pages
 *           to the left and right neighbours' ghost areas (the same pages every phase)
 *   water   small, mostly local sharing: ws/8 messages of 256 B per phase to the next two
 *           nodes, ten times the compute of the others
 *
 * With --procs P the participants are the nodes x P processes (ranks, nicsim.h): "node" above reads
 * "process", each with its own working set and buffers, the node's P processes sharing its NIC.
 *
 * A rank's own share stays local: no transfer (fft's own block, radix's chunks whose slot is its
 * own, lu's block to itself, ocean's borders when a neighbour is itself, water's messages to
 * itself). So with one rank (--nodes 1, the 1-node point of seed Fig. 6, as the seed's 1-node run,
 * which does no communication) the patterns move no data through the NIC: the time is the
 * modelled computation (--compute-ns x --ws-pages x the pattern's factor, each phase) plus the
 * local work each phase models (refilling the source, ns_fill) and the barriers; the report says
 * 0 bytes moved and verified (PASS: every byte moved was verified, and none was). With --procs P > 1
 * one node has P ranks, which exchange their shares through the NIC's loopback.
 *
 * Execution time = from the barrier after set-up to the barrier after the last phase; the time
 * after the first phase's barrier is reported too (workload.steady_ns: without the first phase,
 * where the cold misses are). Every
 * transfer is verified at its completion (nicsim.h); destinations are disjoint within a phase,
 * and sources change only between phases, so the check is exact.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nicsim.h"

#define VA_SRC 0x100000000ull
#define VA_DST 0x200000000ull

struct xfer {
    uint16_t dst;
    uint32_t src_off, dst_off, len;
};

typedef unsigned (*gen_fn)(const struct ns_opts *o, unsigned me, unsigned phase, struct xfer *x, unsigned max);

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The peer distances d = 1 .. peers() - 1 a pattern sends over: every other rank (d = 0, the rank
 * itself, stays local); with one rank there are none. */
static unsigned peers(const struct ns_opts *o) { return o->ranks; }

static unsigned gen_fft(const struct ns_opts *o, unsigned me, unsigned phase, struct xfer *x, unsigned max)
{
    unsigned n = o->ranks, k = 0;
    uint64_t b = o->ws_pages / n; /* pages per block */
    (void)phase;
    for (unsigned d = 1; d < peers(o); d++) {
        unsigned j = (me + d) % n; /* staggered: not everyone at node 0 first */
        for (uint64_t p = 0; p < b && k < max; p++)
            x[k++] = (struct xfer){ (uint16_t)j, (uint32_t)((j * b + p) * NS_PAGE), (uint32_t)((me * b + p) * NS_PAGE),
                                    NS_PAGE };
    }
    return k;
}

#define RADIX_CHUNK 1024u
static unsigned gen_radix(const struct ns_opts *o, unsigned me, unsigned phase, struct xfer *x, unsigned max)
{
    /* a permutation of all destination chunks by a seeded bijection on [0, total): an affine map
     * with an odd multiplier on a power-of-two domain, restricted by cycle-walking */
    uint64_t per = o->ws_pages * (NS_PAGE / RADIX_CHUNK), total = per * o->ranks, dom = 1;
    uint64_t a = (mix(o->seed * 131 + phase) | 1u), c = mix(o->seed * 7 + phase + 1);
    unsigned k = 0;
    while (dom < total)
        dom <<= 1;
    for (uint64_t i = 0; i < per && k < max; i++) {
        uint64_t v = me * per + i;
        do
            v = (v * a + c) & (dom - 1);
        while (v >= total);
        unsigned dn = (unsigned)(v / per);
        if (dn == me)
            continue; /* stays local: no communication */
        x[k++] = (struct xfer){ (uint16_t)dn, (uint32_t)(i * RADIX_CHUNK), (uint32_t)((v % per) * RADIX_CHUNK),
                                RADIX_CHUNK };
    }
    return k;
}

static unsigned gen_lu(const struct ns_opts *o, unsigned me, unsigned phase, struct xfer *x, unsigned max)
{
    uint64_t b = o->ws_pages / 16 ? o->ws_pages / 16 : 1, nb = o->ws_pages / b;
    uint64_t blk = phase % nb;
    unsigned k = 0;
    if (phase % o->ranks != me)
        return 0;
    for (unsigned d = 1; d < peers(o); d++)
        for (uint64_t p = 0; p < b && k < max; p++)
            x[k++] = (struct xfer){ (uint16_t)((me + d) % o->ranks), (uint32_t)((blk * b + p) * NS_PAGE),
                                    (uint32_t)((blk * b + p) * NS_PAGE), NS_PAGE };
    return k;
}

static unsigned gen_ocean(const struct ns_opts *o, unsigned me, unsigned phase, struct xfer *x, unsigned max)
{
    uint64_t b = o->ws_pages / 16 ? o->ws_pages / 16 : 1;
    unsigned l = (me + o->ranks - 1) % o->ranks, r = (me + 1) % o->ranks, k = 0;
    (void)phase;
    if (l == me) /* one rank: both neighbours are itself, the borders stay local */
        return 0;
    for (uint64_t p = 0; p < b && k + 1 < max; p++) {
        /* my first rows -> left neighbour's right ghost; my last rows -> right neighbour's left ghost */
        x[k++] = (struct xfer){ (uint16_t)l, (uint32_t)(p * NS_PAGE), (uint32_t)((b + p) * NS_PAGE), NS_PAGE };
        x[k++] = (struct xfer){ (uint16_t)r, (uint32_t)((o->ws_pages - b + p) * NS_PAGE), (uint32_t)(p * NS_PAGE),
                                NS_PAGE };
    }
    return k;
}

#define WATER_MSG 256u
static unsigned gen_water(const struct ns_opts *o, unsigned me, unsigned phase, struct xfer *x, unsigned max)
{
    uint64_t m = o->ws_pages / 8 ? o->ws_pages / 8 : 1;
    unsigned k = 0;
    for (unsigned d = 1; d <= 2 && d < peers(o); d++) {
        unsigned to = (me + d) % o->ranks;
        for (uint64_t i = 0; i < m && k < max; i++) {
            /* the receiver's destination area is split by sender distance (1 or 2): disjoint */
            uint64_t slot = (d - 1) * m + i;
            uint64_t src = (mix(me * 1000003ull + phase * 7919ull + i) % (o->ws_pages * (NS_PAGE / WATER_MSG)));
            x[k++] = (struct xfer){ (uint16_t)to, (uint32_t)(src * WATER_MSG), (uint32_t)(slot * WATER_MSG), WATER_MSG };
        }
    }
    return k;
}

static void app_run(struct ns_node *n, gen_fn gen, unsigned compute_factor)
{
    struct ns_world *w = n->w;
    const struct ns_opts *o = w->o;
    uint64_t bytes = o->ws_pages * NS_PAGE;
    unsigned max = (unsigned)(o->ws_pages * (NS_PAGE / RADIX_CHUNK) + o->ws_pages * o->ranks + 16);
    struct xfer *x = calloc(max, sizeof *x);
    sim_cycle_t *t_post = calloc(max, sizeof *t_post);
    int bad = !x || !t_post;

    if (!bad)
        bad = ns_reg(n, 0, VA_SRC, bytes, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE) ||
              ns_reg(n, 1, VA_DST, bytes, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ);
    if (bad)
        ns_fail(n, "set-up failed");
    if (n->id == 0 && !bad) /* the progress line's total: the patterns are pure functions */
        for (unsigned ph = 0; ph < o->phases; ph++)
            for (unsigned me = 0; me < o->ranks; me++)
                w->ops_expected += gen(o, me, ph, x, max);
    ns_barrier(n);
    if (n->id == 0)
        w->t0 = coro_now();
    for (unsigned ph = 0; ph < o->phases; ph++) {
        unsigned cnt = 0, posted = 0, done = 0;
        if (!bad && !w->failed) {
            if (ns_fill(n, VA_SRC, bytes, (uint64_t)ph * 64 + n->id))
                bad = 1;
            cnt = bad ? 0 : gen(o, n->id, ph, x, max);
        }
        /* completions to different peers come back in any order: each is matched by its wr_id */
        while (done < cnt && !w->failed) {
            while (posted < cnt && posted - done < o->window) {
                const struct xfer *t = &x[posted];
                t_post[posted] = coro_now();
                if (ns_post(n, 1, VA_SRC + t->src_off, t->len, ns_peer(n, t->dst, 1), t->dst_off, posted))
                    break;
                posted++;
            }
            struct nic_wc wc;
            if (w->failed || ns_wait(n, &wc))
                break;
            if (wc.wr_id >= posted || t_post[wc.wr_id] == SIM_CYCLE_NEVER) {
                ns_fail(n, "completion for request %" PRIu64 ", which is not outstanding", wc.wr_id);
                break;
            }
            const struct xfer *t = &x[wc.wr_id];
            ns_lat(w, coro_now() - t_post[wc.wr_id]);
            t_post[wc.wr_id] = SIM_CYCLE_NEVER;
            ns_verify(n, VA_SRC + t->src_off, t->dst, VA_DST + t->dst_off, t->len);
            w->ops++;
            w->bytes += t->len;
            done++;
        }
        ns_compute(n, o->compute_ns * o->ws_pages * compute_factor);
        ns_barrier(n);
        if (n->id == 0 && ph == 0)
            w->t_first = coro_now();
    }
    if (n->id == 0)
        w->t1 = coro_now();
    free(x);
    free(t_post);
}

static int app_check(const struct ns_opts *o, char *err, size_t n)
{
    struct hostmem_config hm;
    uint64_t most;
    hostmem_config_default(&hm);
    most = hm.max_frames > 2 * NS_HOST_RESERVE_PAGES ? (hm.max_frames - NS_HOST_RESERVE_PAGES * o->procs) / (2 * o->procs) : 16;
    most -= most % o->ranks;
    if (o->ws_pages < 16 || o->ws_pages > most) {
        snprintf(err, n,
                 "--ws-pages %" PRIu64 " does not fit: a node's host has %u pages (%u MiB) for the source and "
                 "destination (2 x --ws-pages) of each of its %u processes and %u more each for the driver and "
                 "rings; use 16..%" PRIu64,
                 o->ws_pages, (unsigned)hm.max_frames, (unsigned)(hm.max_frames / 256), o->procs, NS_HOST_RESERVE_PAGES,
                 most);
        return -1;
    }
    if (o->ws_pages % o->ranks) {
        snprintf(err, n, "--ws-pages (%" PRIu64 ") must be a multiple of --nodes x --procs (%u)",
                 o->ws_pages, o->ranks);
        return -1;
    }
    if (o->phases < 1 || o->window < 1 || o->window > 256) {
        snprintf(err, n, "--phases must be >= 1 and --window 1..256");
        return -1;
    }
    return 0;
}

static void run_fft(struct ns_node *n) { app_run(n, gen_fft, 1); }
static void run_radix(struct ns_node *n) { app_run(n, gen_radix, 1); }
static void run_lu(struct ns_node *n) { app_run(n, gen_lu, 1); }
static void run_ocean(struct ns_node *n) { app_run(n, gen_ocean, 1); }
static void run_water(struct ns_node *n) { app_run(n, gen_water, 10); }

const struct ns_workload ns_wl_fft = { "fft", "SPLASH-2 FFT-like: all-to-all transpose of the working set", 1,
                                       NS_MAX_NODES, app_check, run_fft };
const struct ns_workload ns_wl_radix = { "radix", "SPLASH-2 Radix-like: scattered permutation writes (1 KiB)", 1,
                                         NS_MAX_NODES, app_check, run_radix };
const struct ns_workload ns_wl_lu = { "lu", "SPLASH-2 LU-like: block broadcast, owner rotating per phase", 1,
                                      NS_MAX_NODES, app_check, run_lu };
const struct ns_workload ns_wl_ocean = { "ocean", "SPLASH-2 Ocean-like: nearest-neighbour border exchange", 1,
                                         NS_MAX_NODES, app_check, run_ocean };
const struct ns_workload ns_wl_water = { "water", "SPLASH-2 Water-like: small messages to two neighbours, "
                                                  "compute-heavy", 1, NS_MAX_NODES, app_check, run_water };
