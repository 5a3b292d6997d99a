/*
 * wl_micro.c - nicsim's micro-benchmarks.
 *
 *   pingpong   nodes 0 and 1 bounce a message of each size from --size-min to --size-max
 *              (doubling): node 0 RDMA-writes it into node 1's buffer, node 1 polls the last byte,
 *              verifies the message and writes it back. One-way latency = round trip / 2;
 *              bandwidth = size / one-way latency. --warmup rounds per size are not measured.
 *   stream     node 0 streams --iters RDMA writes (or reads, --op read) of --size-max bytes to
 *              node 1 with --window requests outstanding; --bidir: node 1 streams to node 0 at
 *              the same time. Bandwidth = bytes / (last completion - first post).
 *   incast     --senders nodes (default: every node but 0) each stream --iters RDMA writes of
 *              --size-max bytes with --window outstanding into node 0 at once, through the switch's
 *              one output queue to node 0 (issue 14). Goodput = bytes / (last completion - first
 *              post); fairness: Jain's index over the bytes each sender had delivered when the first
 *              of them finished (ns_report.c).
 *   missratio  the seed's micro-benchmark (seed 000, Fig. 4): pingpong at --size-max where a
 *              fraction --miss-ratio of node 0's pings target buffers that miss in node 1's VMH
 *              cache. The cold buffers (--size-max rounded up to pages, at most one VMH line)
 *              are spaced one cache "set stride" apart (sets * L pages, from the firmware's
 *              handshake) in a set that holds neither hot buffer, 2A of them used round robin, so
 *              LRU keeps none of them: every use is a receive-path miss, and the hot buffers never
 *              miss (the miss ratio is exact). The others target one hot buffer. Reported:
 *              latency (mean, p50, p99) and bandwidth.
 *
 * Arrival detection: the receiver polls the last byte of the expected message every
 * NS_POLL_CYCLES (host memory reads, as a real program would spin); the sender makes that byte
 * nonzero and the receiver clears it after verifying, so a stale byte is never taken for a new
 * message. Transport order (in-sequence delivery, in-order DMA) makes the last byte land last.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nicsim.h"

#define NS_POLL_CYCLES 20 /* 100 ns at 200 MHz */
#define VA_SRC 0x100000000ull
#define VA_DST 0x200000000ull
#define VA_COLD 0x400000000ull

static int size_ok(const struct ns_opts *o, char *err, size_t n)
{
    if (o->size_min < 1 || o->size_max < o->size_min || o->size_max > (64u << 20)) {
        snprintf(err, n, "message sizes must satisfy 1 <= --size-min <= --size-max <= 64 MiB");
        return -1;
    }
    return 0;
}

/* Reap completions without blocking; 0 or -1 on an error completion. */
static int reap(struct ns_node *n)
{
    struct nic_wc wc[8];
    int k;
    while ((k = nic_poll(n->dev, n->ep, wc, 8)) > 0) {
        for (int i = 0; i < k; i++) {
            n->completed++;
            if (n->w->bd)
                ns_bd_done(n, wc[i].wr_id);
            if (wc[i].status != NIC_WC_SUCCESS) {
                n->errors++;
                ns_fail(n, "request %" PRIu64 " completed with %s", wc[i].wr_id, nic_wc_status_str(wc[i].status));
                return -1;
            }
        }
    }
    if (k < 0) {
        ns_fail(n, "nic_poll: %s", nic_strerror(k));
        return -1;
    }
    return 0;
}

static int drain(struct ns_node *n)
{
    struct nic_wc wc;
    while (n->completed < n->posted)
        if (ns_wait(n, &wc))
            return -1;
    return 0;
}

/* Poll [va + len - 1] until it holds `want` (then clear it after the caller verified). */
static int await_byte(struct ns_node *n, uint64_t va, uint8_t want)
{
    uint8_t b = 0;
    sim_cycle_t deadline = coro_now() + 2000000000ull;
    for (;;) {
        if (os_read(n->os, n->pid, va, &b, 1) != SIM_OK) {
            ns_fail(n, "poll: cannot read 0x%" PRIx64, va);
            return -1;
        }
        if (b == want) {
            if (n->w->bd)
                ns_bd_seen(n);
            return 0;
        }
        if (b != 0) {
            ns_fail(n, "poll: flag byte 0x%02x, expected 0x%02x", b, want);
            return -1;
        }
        if (reap(n))
            return -1;
        if (n->w->failed || coro_now() > deadline) {
            if (!n->w->failed)
                ns_fail(n, "poll: no message arrived");
            return -1;
        }
        coro_sleep(NS_POLL_CYCLES);
    }
}

/* Prepare a message of len bytes at va with a nonzero last byte = flag. */
static int make_msg(struct ns_node *n, uint64_t va, uint64_t len, uint64_t seq, uint8_t flag)
{
    if (ns_fill(n, va, len, seq))
        return -1;
    return os_write(n->os, n->pid, va + len - 1, &flag, 1) == SIM_OK ? 0 : -1;
}

static int clear_byte(struct ns_node *n, uint64_t va)
{
    uint8_t z = 0;
    return os_write(n->os, n->pid, va, &z, 1) == SIM_OK ? 0 : -1;
}

static int zero(struct ns_node *n, uint64_t va, uint64_t len)
{
    static const uint8_t z[NS_PAGE];
    for (uint64_t off = 0; off < len; off += NS_PAGE)
        if (os_write(n->os, n->pid, va + off, z, len - off < NS_PAGE ? (size_t)(len - off) : NS_PAGE) != SIM_OK)
            return -1;
    return 0;
}

static uint8_t flag_of(uint64_t seq)
{
    return (uint8_t)(seq % 255u + 1u);
}

/* One round of a ping-pong between node 0 (initiator) and node 1. `dst_slot` is where node 0's
 * ping lands at node 1 (va_at_1 is its address there). Returns the round trip (at node 0) or 0 on
 * failure. */
static sim_cycle_t round_trip(struct ns_node *n, uint64_t len, uint64_t seq, unsigned dst_slot, uint64_t va_at_1)
{
    struct ns_world *w = n->w;
    uint8_t f = flag_of(seq);
    sim_cycle_t t0;

    if (n->id == 0) {
        if (make_msg(n, VA_SRC, len, seq, f))
            return 0;
        t0 = coro_now();
        if (ns_post(n, 1, VA_SRC, (uint32_t)len, ns_peer(n, 1, dst_slot), 0, n->next_wr++))
            return 0;
        if (await_byte(n, VA_DST + len - 1, f))
            return 0;
        sim_cycle_t rtt = coro_now() - t0;
        ns_verify(n, VA_DST, 1, VA_SRC, len); /* the pong against node 1's source */
        if (clear_byte(n, VA_DST + len - 1))
            return 0;
        return rtt ? rtt : 1;
    }
    /* node 1: wait for the ping, verify it against node 0's source, answer */
    if (await_byte(n, va_at_1 + len - 1, f))
        return 0;
    ns_verify(n, va_at_1, 0, VA_SRC, len);
    if (clear_byte(n, va_at_1 + len - 1) || make_msg(n, VA_SRC, len, seq + 7777, f))
        return 0;
    if (ns_post(n, 1, VA_SRC, (uint32_t)len, ns_peer(n, 0, 1), 0, n->next_wr++))
        return 0;
    (void)w;
    return 1;
}

static int pp_setup(struct ns_node *n, uint64_t maxlen)
{
    uint64_t len = (maxlen + NS_PAGE - 1) / NS_PAGE * NS_PAGE;
    if (n->id > 1)
        return 0;
    if (ns_reg(n, 0, VA_SRC, len, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE) ||
        ns_reg(n, 1, VA_DST, len, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ))
        return -1;
    return zero(n, VA_DST, len); /* every flag byte starts cleared */
}

static void pingpong_run(struct ns_node *n)
{
    struct ns_world *w = n->w;
    const struct ns_opts *o = w->o;
    uint64_t seq = 0;
    int bad = pp_setup(n, o->size_max);

    ns_barrier(n);
    if (bad || n->id > 1)
        return;
    w->t0 = coro_now();
    for (uint64_t s = o->size_min; s <= o->size_max && !w->failed; s = s * 2 > o->size_max && s < o->size_max ? o->size_max : s * 2) {
        struct ns_point *pt = &w->pts[w->npts < 32 ? w->npts : 31];
        uint64_t lat0 = w->nlat;
        double sum = 0;
        if (n->id == 0) {
            memset(pt, 0, sizeof *pt);
            pt->size = s;
        }
        for (unsigned i = 0; i < o->warmup + o->iters && !w->failed; i++) {
            n->bd_warmup = i < o->warmup;
            sim_cycle_t rtt = round_trip(n, s, seq++, 1, VA_DST);
            if (!rtt)
                break;
            if (n->id == 0 && i >= o->warmup) {
                ns_lat(w, rtt / 2);
                sum += (double)rtt / 2;
                w->ops++;
                w->bytes += s;
            }
        }
        if (n->id == 0 && !w->failed) {
            /* perftest's figures of this size's samples (a sorted copy) */
            uint64_t k = w->nlat - lat0;
            uint64_t *v = malloc((k ? k : 1) * sizeof *v);
            if (v && k) {
                struct ns_lat_stats st;
                memcpy(v, w->lat + lat0, k * sizeof *v);
                ns_lat_stats(w, v, k, &st);
                pt->ops = k;
                pt->bytes = k * s;
                ns_point_lat(pt, &st);
                pt->lat_mean_ns = ns_cyc_to_ns(w, sum / (double)k);
                pt->mbps = (double)s / (pt->lat_mean_ns * 1e-9) / 1e6;
                w->npts++;
            }
            free(v);
        }
        if (s == o->size_max)
            break;
    }
    if (drain(n))
        return;
    if (n->id == 0)
        w->t1 = coro_now();
}

const struct ns_workload ns_wl_pingpong = {
    "pingpong", "one-way latency and bandwidth over message sizes --size-min..--size-max (nodes 0 and 1)", 2,
    NS_MAX_NODES, size_ok, pingpong_run,
};

/* ---- stream ---- */
static int stream_check(const struct ns_opts *o, char *err, size_t n)
{
    if (size_ok(o, err, n))
        return -1;
    if (o->window < 1 || o->window > 256) {
        snprintf(err, n, "--window must be 1..256");
        return -1;
    }
    if (o->cq_mod > o->window) { /* no signalled request would fit in the window: it would stall */
        snprintf(err, n, "stream: --cq-mod %u must be at most --window %u", o->cq_mod, o->window);
        return -1;
    }
    /* a source and a destination ring of 2 x --window chunks each, in the host's memory */
    struct hostmem_config hm;
    uint64_t pages = 2ull * (2ull * o->window) * ((o->size_max + NS_PAGE - 1) / NS_PAGE);
    hostmem_config_default(&hm);
    if (pages + NS_HOST_RESERVE_PAGES > hm.max_frames) {
        snprintf(err, n,
                 "stream: --window %u x --size-max %" PRIu64 " needs %" PRIu64 " pages of buffers (source and "
                 "destination rings of 2 x --window messages), more than a node's host has (%u pages, %u of them "
                 "for the driver and rings)",
                 o->window, o->size_max, pages, (unsigned)hm.max_frames, NS_HOST_RESERVE_PAGES);
        return -1;
    }
    return 0;
}

static void stream_run(struct ns_node *n)
{
    struct ns_world *w = n->w;
    const struct ns_opts *o = w->o;
    uint64_t s = o->size_max, ring = 2u * o->window;
    uint64_t chunk = (s + NS_PAGE - 1) / NS_PAGE * NS_PAGE;
    /* node 0's processes stream to node 1's (process k to process k: ranks k x nodes and k x nodes + 1) */
    int active = n->nid == 0 || (o->bidir && n->nid == 1);
    int write = !o->op_read;
    unsigned peer = n->lp * o->nodes + (n->nid ^ 1u);
    uint64_t posted = 0, done = 0, next_retire = 0;
    sim_cycle_t *t_post = NULL; /* per ring chunk: when its request was posted; NEVER = free */
    int bad = 0;

    if (n->nid <= 1)
        bad = ns_reg(n, 0, VA_SRC, ring * chunk, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE) ||
              ns_reg(n, 1, VA_DST, ring * chunk, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ);
    t_post = malloc(ring * sizeof *t_post);
    for (uint64_t k = 0; t_post && k < ring; k++)
        t_post[k] = SIM_CYCLE_NEVER;
    ns_barrier(n);
    if (bad || !active || !t_post)
        goto out;
    if (n->id == 0)
        w->t0 = coro_now();
    w->ops_expected += o->iters; /* per active node (both with --bidir) */
    n->nmsg = o->iters < NS_LAT_MAX ? o->iters : NS_LAT_MAX;
    n->msg_post = calloc(n->nmsg, sizeof *n->msg_post);
    n->msg_done = calloc(n->nmsg, sizeof *n->msg_done);
    if (!n->msg_post || !n->msg_done)
        n->nmsg = 0;
    /* Completions may come back in any order (reads are served concurrently by the peer), so
     * each request owns its ring chunk (local and remote) until its completion is verified. */
    while (done < o->iters && !w->failed) {
        while (posted < o->iters && posted - done < o->window && t_post[posted % ring] == SIM_CYCLE_NEVER) {
            uint64_t k = posted % ring;
            if (write && ns_fill(n, VA_SRC + k * chunk, s, posted * 2 + n->id))
                goto out;
            t_post[k] = coro_now();
            if (posted < n->nmsg)
                n->msg_post[posted] = coro_now();
            /* --cq-mod: every cq_mod-th request and the last one signalled */
            int sig = (posted + 1) % o->cq_mod == 0 || posted + 1 == o->iters;
            if (ns_post_sig(n, write, VA_SRC + k * chunk, (uint32_t)s, ns_peer(n, peer, 1), k * chunk, posted, sig))
                goto out;
            posted++;
        }
        struct nic_wc wc;
        if (ns_wait(n, &wc))
            goto out;
        /* With --cq-mod > 1 a completion retires its request and every earlier one not retired yet
         * (requests retire in order, docs/api.md); their latency counts to this completion.
         * Otherwise just its own (in any order). */
        uint64_t first = o->cq_mod > 1 ? next_retire : wc.wr_id;
        if (wc.wr_id >= posted || wc.wr_id < first) {
            ns_fail(n, "completion for request %" PRIu64 ", which is not outstanding", wc.wr_id);
            goto out;
        }
        for (uint64_t id = first; id <= wc.wr_id; id++) {
            uint64_t k = id % ring;
            if (t_post[k] == SIM_CYCLE_NEVER) {
                ns_fail(n, "completion for request %" PRIu64 ", which is not outstanding", id);
                goto out;
            }
            ns_lat(w, coro_now() - t_post[k]);
            if (id < n->nmsg)
                n->msg_done[id] = coro_now();
            t_post[k] = SIM_CYCLE_NEVER;
            ns_verify(n, VA_SRC + k * chunk, peer, VA_DST + k * chunk, s);
            done++;
            w->ops++;
            w->bytes += s;
        }
        if (o->cq_mod > 1)
            next_retire = wc.wr_id + 1;
    }
    if (coro_now() > w->t1)
        w->t1 = coro_now();
out:
    free(t_post);
}

const struct ns_workload ns_wl_stream = {
    "stream", "bandwidth: --iters RDMA writes (--op read: reads) of --size-max bytes, --window outstanding, "
              "node 0 -> 1 (--bidir: both ways)", 2, NS_MAX_NODES, stream_check, stream_run,
};

/* ---- incast ---- */
static int incast_check(const struct ns_opts *o, char *err, size_t n)
{
    if (size_ok(o, err, n))
        return -1;
    if (o->window < 1 || o->window > 256) {
        snprintf(err, n, "--window must be 1..256");
        return -1;
    }
    unsigned s = o->senders ? o->senders : o->nodes - 1;
    if (s < 1 || s > o->nodes - 1) {
        snprintf(err, n, "incast: --senders must be 1..%u (nodes - 1)", o->nodes - 1);
        return -1;
    }
    /* node 0 holds a destination ring of 2 x --window messages per sender */
    struct hostmem_config hm;
    uint64_t pages = (uint64_t)s * (2ull * o->window) * ((o->size_max + NS_PAGE - 1) / NS_PAGE);
    hostmem_config_default(&hm);
    if (pages + NS_HOST_RESERVE_PAGES > hm.max_frames) {
        snprintf(err, n, "incast: %u senders x 2 x --window %u x --size-max %" PRIu64 " need %" PRIu64
                 " pages at node 0, more than its host has (%u)", s, o->window, o->size_max, pages,
                 (unsigned)hm.max_frames);
        return -1;
    }
    return 0;
}

static void incast_run(struct ns_node *n)
{
    struct ns_world *w = n->w;
    const struct ns_opts *o = w->o;
    unsigned senders = o->senders ? o->senders : o->nodes - 1;
    uint64_t s = o->size_max, ring = 2u * o->window;
    uint64_t chunk = (s + NS_PAGE - 1) / NS_PAGE * NS_PAGE;
    int active = n->id >= 1 && n->id <= senders;
    uint64_t base = (uint64_t)(n->id - 1u) * ring * chunk; /* this sender's part of node 0's buffer */
    uint64_t posted = 0, done = 0;
    sim_cycle_t *t_post = NULL;
    int bad = 0;

    if (n->id == 0)
        bad = ns_reg(n, 1, VA_DST, senders * ring * chunk, NIC_ACCESS_REMOTE_WRITE);
    else if (active)
        bad = ns_reg(n, 0, VA_SRC, ring * chunk, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE);
    t_post = malloc(ring * sizeof *t_post);
    for (uint64_t k = 0; t_post && k < ring; k++)
        t_post[k] = SIM_CYCLE_NEVER;
    ns_barrier(n);
    if (bad || !active || !t_post)
        goto out;
    if (n->id == 1)
        w->t0 = coro_now();
    w->ops_expected += o->iters;
    n->nmsg = o->iters < NS_LAT_MAX ? o->iters : NS_LAT_MAX;
    n->msg_post = calloc(n->nmsg, sizeof *n->msg_post);
    n->msg_done = calloc(n->nmsg, sizeof *n->msg_done);
    if (!n->msg_post || !n->msg_done)
        n->nmsg = 0;
    while (done < o->iters && !w->failed) {
        while (posted < o->iters && posted - done < o->window && t_post[posted % ring] == SIM_CYCLE_NEVER) {
            uint64_t k = posted % ring;
            if (ns_fill(n, VA_SRC + k * chunk, s, posted * 256u + n->id))
                goto out;
            t_post[k] = coro_now();
            if (posted < n->nmsg)
                n->msg_post[posted] = coro_now();
            if (ns_post(n, 1, VA_SRC + k * chunk, (uint32_t)s, ns_peer(n, 0, 1), base + k * chunk, posted))
                goto out;
            posted++;
        }
        struct nic_wc wc;
        if (ns_wait(n, &wc))
            goto out;
        uint64_t k = wc.wr_id % ring;
        if (wc.wr_id >= posted || t_post[k] == SIM_CYCLE_NEVER) {
            ns_fail(n, "completion for request %" PRIu64 ", which is not outstanding", wc.wr_id);
            goto out;
        }
        ns_lat(w, coro_now() - t_post[k]);
        if (wc.wr_id < n->nmsg)
            n->msg_done[wc.wr_id] = coro_now();
        t_post[k] = SIM_CYCLE_NEVER;
        ns_verify(n, VA_SRC + k * chunk, 0, VA_DST + base + k * chunk, s);
        done++;
        w->ops++;
        w->bytes += s;
    }
    if (coro_now() > w->t1)
        w->t1 = coro_now();
out:
    free(t_post);
}

const struct ns_workload ns_wl_incast = {
    "incast", "congestion: --senders nodes (default all but 0) each stream --iters writes of --size-max bytes, "
              "--window outstanding, into node 0 at once",
    2, NS_MAX_NODES, incast_check, incast_run,
};

/* ---- missratio ---- */
static int missratio_check(const struct ns_opts *o, char *err, size_t n)
{
    if (size_ok(o, err, n))
        return -1;
    if (o->size_max > 65536) {
        snprintf(err, n, "missratio: --size-max must be <= 65536 (a cold buffer must lie in one VMH line)");
        return -1;
    }
    if (o->miss_ratio < 0 || o->miss_ratio > 1) {
        snprintf(err, n, "--miss-ratio must be in 0..1");
        return -1;
    }
    return 0;
}

static void missratio_run(struct ns_node *n)
{
    struct ns_world *w = n->w;
    const struct ns_opts *o = w->o;
    uint64_t s = o->size_max, stride = 0, cold_base = VA_COLD, cold_len = (s + NS_PAGE - 1) / NS_PAGE * NS_PAGE;
    unsigned ncold = 0;
    int bad = 0;

    /*
     * Node 1's hot buffers (VA_SRC, the pong's source, and VA_DST, the hot ping's target) are in
     * the VMH set of their lines; the cold buffers are 2 x A lines (A = ways) of another set,
     * `stride` apart (the same set), so that cycling through them misses on every cold ping and
     * never evicts a hot line: the measured miss ratio is the nominal one. (Before: all in one set,
     * the hot buffers evicted too, and 0.75 missed as often as 1.0.) The sets of lines l and l + k
     * of one process differ when k is not a multiple of the number of sets (lkc_set: (line + the
     * pid's salt) mod sets); VA_SRC, VA_DST and VA_COLD are multiples of every stride, so half the
     * sets further is another set whenever there are two or more.
     */
    if (n->id == 1) {
        const struct nic_info *fi = nicdrv_fw_info(n->drv);
        const struct nic_cache_geom *g = &fi->cache[NIC_CACHE_VMH];
        uint64_t sets = g->entries / ((uint64_t)g->line * g->ways), line_bytes = (uint64_t)g->line * NS_PAGE;
        stride = sets * line_bytes;
        cold_base = VA_COLD + sets / 2 * line_bytes;
        ncold = 2u * g->ways;
        if (ncold + 2 > NS_MAX_BUFS)
            ncold = NS_MAX_BUFS - 2;
        if (!(fi->caps & NIC_CAP_DYNAMIC_LOOKUP))
            ncold = 4; /* static tables: nothing misses; the same code path, no cold effect */
        else if (cold_len > line_bytes) {
            ns_fail(n, "missratio: --size-max %" PRIu64 " is more than a VMH line (%" PRIu64 " bytes): a cold ping "
                       "would miss more than once", s, line_bytes);
            bad = 1;
        } else if (sets < 2)
            fprintf(stderr, "nicsim: missratio: the VMH cache has one set: the hot buffers share it with the cold "
                            "ones and are evicted too (the miss ratio is above the nominal one)\n");
    }
    if (n->id <= 1 && !bad)
        bad = pp_setup(n, s);
    for (unsigned j = 0; n->id == 1 && !bad && j < ncold; j++)
        bad = ns_reg(n, 2 + j, cold_base + j * stride, cold_len, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ) ||
              zero(n, cold_base + j * stride, cold_len);
    if (n->id == 1) /* tell node 0 how many cold buffers (out of band) */
        ns_publish(n, NS_MAX_BUFS - 1, &(struct nic_mr){ .len = ncold });
    ns_barrier(n);
    if (bad || n->id > 1)
        return;
    ncold = (unsigned)w->dir[1][NS_MAX_BUFS - 1].len;
    w->t0 = coro_now();
    double sum = 0;
    uint64_t cold_i = 0;
    for (unsigned i = 0; i < o->warmup + o->iters && !w->failed; i++) {
        unsigned m = i >= o->warmup ? i - o->warmup : 0;
        int cold = i >= o->warmup && (uint64_t)((double)(m + 1) * o->miss_ratio) > (uint64_t)((double)m * o->miss_ratio);
        unsigned slot = cold ? 2 + (unsigned)(cold_i % ncold) : 1;
        /* both sides make the same choice; node 1 needs the address the ping lands at */
        uint64_t va1 = cold ? cold_base + (cold_i % ncold) * stride : VA_DST;
        if (cold)
            cold_i++;
        sim_cycle_t rtt = round_trip(n, s, i, slot, va1);
        if (!rtt)
            break;
        if (n->id == 0 && i >= o->warmup) {
            ns_lat(w, rtt / 2);
            sum += (double)rtt / 2;
            w->ops++;
            w->bytes += s;
        }
    }
    if (drain(n))
        return;
    if (n->id == 0) {
        w->t1 = coro_now();
        struct ns_point *pt = &w->pts[0];
        memset(pt, 0, sizeof *pt);
        pt->size = s;
        pt->ops = w->ops;
        pt->bytes = w->bytes;
        uint64_t *v = malloc((w->nlat ? w->nlat : 1) * sizeof *v);
        if (v && w->nlat) {
            struct ns_lat_stats st;
            memcpy(v, w->lat, w->nlat * sizeof *v);
            ns_lat_stats(w, v, w->nlat, &st);
            ns_point_lat(pt, &st);
        }
        free(v);
        pt->lat_mean_ns = w->ops ? ns_cyc_to_ns(w, sum / (double)w->ops) : 0;
        pt->mbps = pt->lat_mean_ns > 0 ? (double)s / (pt->lat_mean_ns * 1e-9) / 1e6 : 0;
        w->npts = 1;
    }
}

const struct ns_workload ns_wl_missratio = {
    "missratio", "pingpong at --size-max where a fraction --miss-ratio of pings miss in node 1's VMH cache "
                 "(seed Fig. 4)", 2, NS_MAX_NODES, missratio_check, missratio_run,
};

/* ---- reglimit ---- */
#define RL_VA 0x1000000000ull
#define RL_MAX 256u /* the driver's default buffers per process */
static int reglimit_check(const struct ns_opts *o, char *err, size_t n)
{
    if (o->size_max < NS_PAGE || o->size_max % NS_PAGE) {
        snprintf(err, n, "reglimit: --size-max must be a multiple of 4096 (the buffer size)");
        return -1;
    }
    if (o->ws_pages < o->size_max / NS_PAGE) {
        snprintf(err, n,
                 "reglimit: --ws-pages %" PRIu64 " is less than one buffer (--size-max %" PRIu64 " bytes = %" PRIu64
                 " pages): nothing would be registered",
                 o->ws_pages, o->size_max, o->size_max / NS_PAGE);
        return -1;
    }
    return 0;
}

/* Node 0 registers buffers of --size-max bytes until registration fails or --ws-pages pages
 * (or 256 buffers) are registered; then node 1 RDMA-writes into the last one, which proves it
 * usable. The static build's tables set a limit; the dynamic build has none. */
static void reglimit_run(struct ns_node *n)
{
    struct ns_world *w = n->w;
    const struct ns_opts *o = w->o;
    uint64_t pages = o->size_max / NS_PAGE, k = 0;
    int bad = 0;

    if (n->id == 1)
        bad = ns_reg(n, 0, VA_SRC, NS_PAGE, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE);
    if (n->id == 0) {
        struct nic_mr mr, last_ok;
        for (k = 0; k < RL_MAX && (k + 1) * pages <= o->ws_pages; k++) {
            int rc = nic_reg(n->dev, RL_VA + k * o->size_max, o->size_max, NIC_ACCESS_REMOTE_WRITE, &mr);
            if (rc) {
                snprintf(w->reg_error, sizeof w->reg_error, "%s", nic_strerror(rc));
                break;
            }
            last_ok = mr;
        }
        if (k)
            ns_publish(n, 1, &last_ok); /* the last buffer registered */
        w->reg_pages = k * pages;
        if (!k)
            bad = 1, ns_fail(n, "not even one buffer could be registered: %s",
                             w->reg_error[0] ? w->reg_error : "--ws-pages is below one buffer");
    }
    ns_barrier(n);
    if (bad || n->id != 1)
        return;
    const struct nic_mr *last = ns_peer(n, 0, 1);
    w->t0 = coro_now();
    if (ns_fill(n, VA_SRC, NS_PAGE, 5) ||
        ns_post(n, 1, VA_SRC, NS_PAGE, last, last->len - NS_PAGE, 0))
        return;
    struct nic_wc wc;
    if (ns_wait(n, &wc))
        return;
    ns_lat(w, coro_now() - w->t0);
    w->t1 = coro_now();
    ns_verify(n, VA_SRC, 0, last->va + last->len - NS_PAGE, NS_PAGE);
    w->ops = 1;
    w->bytes = NS_PAGE;
}

const struct ns_workload ns_wl_reglimit = {
    "reglimit", "registration limit: node 0 registers --size-max buffers up to --ws-pages pages, node 1 "
                "writes into the last", 2, NS_MAX_NODES, reglimit_check, reglimit_run,
};
