/*
 * ns_report.c - nicsim's summary table, JSON report and CSV rows (docs/nicsim.md, Reports).
 *
 * The JSON report is built with cJSON (sim/node/report.h: schema_version, tool, tool_version,
 * git_describe, firmware identity, partial), so it is valid JSON whatever a path or a message
 * holds. Figures are rounded as the text summary prints them (ns to 1, MB/s and us to 3
 * decimals). Latency figures follow perftest: per point t_min, t_max, typical (the median),
 * average, stdev, 99 % and 99.9 %, in us; streams add the peak and average bandwidth and message
 * rate. Every key and column names its unit.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nicsim.h"
#include "report.h"

static uint64_t cmiss(const struct nic_cache_stats *c)
{
    return (uint64_t)c->miss_cold_send + c->miss_cold_recv + c->miss_send + c->miss_recv;
}

static double pctl(const uint64_t *v, uint64_t n, unsigned p)
{
    if (!n)
        return 0;
    uint64_t i = n * p / 100;
    return (double)v[i < n ? i : n - 1];
}

struct totals {
    struct nic_cache_stats c[NIC_CACHE__COUNT];
    uint64_t retx, timeouts, nacks_sent, nacks_recv, drops_miss, drops_bad, tx, rx, dup, prot;
};

static void sum_nodes(const struct ns_world *w, struct totals *t)
{
    memset(t, 0, sizeof *t);
    for (unsigned i = 0; i < w->o->nodes; i++) {
        const struct nic_stats *s = &w->node[i].stats;
        for (unsigned k = 0; k < NIC_CACHE__COUNT; k++) {
            t->c[k].lookups += s->cache[k].lookups;
            t->c[k].hits += s->cache[k].hits;
            t->c[k].miss_cold_send += s->cache[k].miss_cold_send;
            t->c[k].miss_cold_recv += s->cache[k].miss_cold_recv;
            t->c[k].miss_send += s->cache[k].miss_send;
            t->c[k].miss_recv += s->cache[k].miss_recv;
            t->c[k].evictions += s->cache[k].evictions;
        }
        t->retx += s->retransmits;
        t->timeouts += s->timeouts;
        t->nacks_sent += s->nacks_sent;
        t->nacks_recv += s->nacks_received;
        t->drops_miss += s->drops_miss;
        t->drops_bad += s->drops_bad;
        t->tx += s->tx_packets;
        t->rx += s->rx_packets;
        t->dup += s->dup_packets;
        t->prot += s->protection_errors;
    }
}

const char *ns_verdict(int rc)
{
    return rc == NS_EXIT_PASS      ? "PASS"
           : rc == NS_EXIT_TIMEOUT ? "TIMEOUT"
           : rc == NS_EXIT_SETUP   ? "SETUP"
           : rc > 128              ? "INTERRUPTED"
                                   : "FAIL";
}

static double time_ns(const struct ns_world *w)
{
    return w->t1 > w->t0 ? ns_cyc_to_ns(w, (double)(w->t1 - w->t0)) : 0;
}

static double bw_mbps(const struct ns_world *w)
{
    double t = time_ns(w);
    return t > 0 ? (double)w->bytes / (t * 1e-9) / 1e6 : 0;
}

static int is_wl(const struct ns_world *w, const char *name)
{
    return !strcmp(w->o->workload, name);
}

/* The physical limit of a message of `size` bytes on one link direction: it travels as
 * ceil(size / MTU) frames, each with the wire header (48 bytes, docs/wire-protocol.md), the MAC's
 * FCS (4) and Ethernet's preamble, start delimiter and inter-frame gap (20), at the link rate:
 * limit = size / (size + frames * 72) x link bytes per second, times two for --bidir streams
 * (both directions count in their bandwidth). Negative when the workload has no single figure. */
#define NS_WIRE_HDR 48u
#define NS_WIRE_FCS 4u
static double limit_mbps(const struct ns_report *r, uint64_t size)
{
    const struct ns_world *w = r->w;
    const struct ns_opts *o = w->o;
    uint64_t mtu = r->info && r->info->mtu ? r->info->mtu : 4096, frames = size ? (size + mtu - 1) / mtu : 1;
    double link_Bps = (double)o->link_bpc * (double)w->clock_hz / 8.0;
    int dirs = is_wl(w, "stream") && o->bidir ? 2 : 1;

    if (!is_wl(w, "stream") && !is_wl(w, "pingpong") && !is_wl(w, "missratio") && !is_wl(w, "incast"))
        return -1; /* (incast: the receiver's one link) */
    return (double)size / (double)(size + frames * (NS_WIRE_HDR + NS_WIRE_FCS + SWITCH_GAP_BYTES)) * link_Bps * dirs / 1e6;
}

/* " (limit L MB/s, P % of it)" after a bandwidth figure, or nothing */
static const char *limit_text(char *buf, size_t n, const struct ns_report *r, uint64_t size, double mbps)
{
    double lim = limit_mbps(r, size);
    if (lim <= 0)
        buf[0] = 0;
    else
        snprintf(buf, n, " (limit %.1f MB/s, %.1f %% of it)", lim, 100.0 * mbps / lim);
    return buf;
}

/* "limit_MBps": L, "pct_of_limit": P (null, null without a single figure) */
static void json_limit(cJSON *o, const struct ns_report *r, uint64_t size, double mbps)
{
    double lim = limit_mbps(r, size);
    if (lim <= 0) {
        cJSON_AddNullToObject(o, "limit_MBps");
        cJSON_AddNullToObject(o, "pct_of_limit");
    } else {
        report_num(o, "limit_MBps", lim, 2);
        report_num(o, "pct_of_limit", 100.0 * mbps / lim, 2);
    }
}

void ns_fw_desc(char *buf, size_t n, const struct nic_info *info, const char *img_path)
{
    if (!info) {
        snprintf(buf, n, "%.80s", img_path);
        return;
    }
    const struct nic_cache_geom *g = &info->cache[NIC_CACHE_VMH];
    if (info->caps & NIC_CAP_DYNAMIC_LOOKUP)
        snprintf(buf, n, "dynamic C%u L%u A%u, %s", g->entries, g->line, g->ways,
                 info->caps & NIC_CAP_NACK ? "miss NACKs" : "seed-faithful timeouts");
    else
        snprintf(buf, n, "static tables");
}

/* ---- stream: peak and average bandwidth and message rate ---- */
struct stream_rates {
    int ok;
    double bw_avg, bw_peak;     /* MB/s */
    double rate_avg, rate_peak; /* million messages per second */
};

/* perftest's peak (ib_write_bw's "BW peak"): the best time per message over any run of
 * consecutive messages i..j, (completion of j - post of i) / (j - i + 1). Posts are in order, so
 * every byte of messages i..j crossed the link inside that interval: the peak is bounded by the
 * link. Completions may come out of order (reads): the end of i..j is the latest completion of
 * 0..j, which is never earlier. Messages up to the first one not completed (a partial run).
 * Exact for up to 2048 messages; beyond, runs of 1..256 messages and every power of two. */
static double best_cycles_per_msg(const struct ns_node *n)
{
    uint64_t m = 0, *end;
    double best = -1;
    while (m < n->nmsg && n->msg_done[m])
        m++;
    if (!m || !(end = malloc(m * sizeof *end)))
        return -1;
    for (uint64_t j = 0; j < m; j++)
        end[j] = j && end[j - 1] > n->msg_done[j] ? end[j - 1] : n->msg_done[j];
    for (uint64_t k = 1; k <= m; k = m <= 2048 || k < 256 ? k + 1 : k * 2) {
        for (uint64_t i = 0; i + k <= m; i++) {
            double t = (double)(end[i + k - 1] - n->msg_post[i]) / (double)k;
            if (t > 0 && (best < 0 || t < best))
                best = t;
        }
    }
    free(end);
    return best;
}

/* Average: every measured message over the measured interval (first post to last completion).
 * Peak: perftest's (above), per streaming node; with --bidir the two directions' peaks added. */
static void stream_rates(const struct ns_report *r, struct stream_rates *s)
{
    const struct ns_world *w = r->w;
    const struct ns_opts *o = w->o;
    double t = time_ns(w);
    memset(s, 0, sizeof *s);
    if (!is_wl(w, "stream") || t <= 0 || !w->ops)
        return;
    s->ok = 1;
    s->bw_avg = (double)w->bytes / (t * 1e-9) / 1e6;
    s->rate_avg = (double)w->ops / (t * 1e-9) / 1e6;
    for (unsigned i = 0; i < (o->bidir ? 2u : 1u); i++) {
        double c = best_cycles_per_msg(&w->node[i]);
        if (c <= 0) { /* no message recorded: the average stands in */
            s->rate_peak = s->rate_avg, s->bw_peak = s->bw_avg;
            return;
        }
        double sec = ns_cyc_to_ns(w, c) * 1e-9;
        s->rate_peak += 1.0 / sec / 1e6;
        s->bw_peak += (double)o->size_max / sec / 1e6;
    }
}

/*
 * incast: each sender's bytes delivered (completed writes) by the time the first sender finished
 * (every sender was sending until then), and Jain's fairness index over them,
 * (sum x)^2 / (n sum x^2): 1 when equal, 1/n when one sender had it all. Needs every sender's
 * completion times in this process (one rank): else ok = 0.
 * Steady state (steady_ok): the goodput between t_warm, when every sender has completed its
 * first 2 x --window writes (one pass over its ring of buffers at both ends: every page has been
 * touched, so the cold start's cache misses are behind), and t_end, when the first sender
 * completed its last write (all senders offered load until then): the bytes each sender had
 * delivered at t_end less those at t_warm, over that time. A sender's bytes at t are counted from
 * its completions, interpolated linearly between the two around t (its writes go one after
 * another through its connection: at any time one is partly delivered), so the writes in flight
 * at either end count for the part of them inside the interval, not whole or not at all (a
 * sender's whole write at each end would be ~6 % of an 8-sender, 20-write interval). An estimate:
 * a write's bytes need not arrive evenly between two completions (one ACK may complete two), so each
 * sender's count is off by less than one write at each end, and a short interval can read above the
 * link (102.9 % over 3.8 writes, 4 senders x 24; 99.0 % over 87.8 with 48 each). Not there
 * when the run is too short for it (t_end <= t_warm, or --iters <= 2 x --window).
 */
static int cmp_cycle(const void *a, const void *b)
{
    sim_cycle_t x = *(const sim_cycle_t *)a, y = *(const sim_cycle_t *)b;
    return x < y ? -1 : x > y;
}

/* Writes a sender had delivered at t, from its sorted completion times c[0..n): k whole at c[k-1],
 * linear between c[k-1] and c[k]; t is at or after c[0] (the steady state starts after 2 x --window). */
static double writes_at(const sim_cycle_t *c, uint64_t n, sim_cycle_t t)
{
    uint64_t k = 0;
    while (k < n && c[k] <= t)
        k++;
    if (k == 0 || k == n || c[k] == c[k - 1])
        return (double)k;
    return (double)k + (double)(t - c[k - 1]) / (double)(c[k] - c[k - 1]);
}

struct incast_figs {
    int ok, steady_ok;
    unsigned senders;
    double jain, steady_mbps;
    uint64_t min_bytes, max_bytes;
    double steady_writes;
    uint64_t retx, ce, cuts, ring_drops;
};
static void incast_figs(const struct ns_report *r, struct incast_figs *g)
{
    const struct ns_world *w = r->w;
    const struct ns_opts *o = w->o;
    unsigned s = o->senders ? o->senders : o->nodes - 1;
    sim_cycle_t t_end = SIM_CYCLE_NEVER;
    double sum = 0, sq = 0;

    memset(g, 0, sizeof *g);
    if (!is_wl(w, "incast"))
        return;
    g->senders = s;
    for (unsigned i = 0; i < o->nodes; i++) {
        g->retx += w->node[i].stats.retransmits;
        g->ce += w->node[i].stats.ce_received;
        g->cuts += w->node[i].stats.cc_cuts;
        g->ring_drops += w->node[i].mac.rx_nobuf + w->node[i].mac.rx_overflow;
    }
    for (unsigned i = 1; i <= s; i++) {
        const struct ns_node *n = &w->node[i];
        sim_cycle_t last = 0;
        if (!n->msg_done || n->nmsg < o->iters)
            return;
        for (uint64_t m = 0; m < n->nmsg; m++)
            last = n->msg_done[m] > last ? n->msg_done[m] : last;
        if (!last)
            return;
        t_end = last < t_end ? last : t_end;
    }
    g->min_bytes = UINT64_MAX;
    for (unsigned i = 1; i <= s; i++) {
        const struct ns_node *n = &w->node[i];
        uint64_t b = 0;
        for (uint64_t m = 0; m < n->nmsg; m++)
            b += n->msg_done[m] && n->msg_done[m] <= t_end ? o->size_max : 0;
        g->min_bytes = b < g->min_bytes ? b : g->min_bytes;
        g->max_bytes = b > g->max_bytes ? b : g->max_bytes;
        sum += (double)b;
        sq += (double)b * (double)b;
    }
    g->ok = sq > 0;
    g->jain = g->ok ? sum * sum / ((double)s * sq) : 0;

    uint64_t warm = 2u * (uint64_t)o->window;
    sim_cycle_t t_warm = 0;
    if (!g->ok || o->iters <= warm)
        return;
    for (unsigned i = 1; i <= s; i++) {
        sim_cycle_t t = 0;
        for (uint64_t m = 0; m < warm; m++) /* (the latest of them: completions need not come in order) */
            t = w->node[i].msg_done[m] > t ? w->node[i].msg_done[m] : t;
        t_warm = t > t_warm ? t : t_warm;
    }
    if (t_end <= t_warm)
        return;
    for (unsigned i = 1; i <= s; i++) {
        const struct ns_node *n = &w->node[i];
        sim_cycle_t *c = malloc(n->nmsg * sizeof *c);
        if (!c)
            return;
        memcpy(c, n->msg_done, n->nmsg * sizeof *c);
        qsort(c, n->nmsg, sizeof *c, cmp_cycle);
        g->steady_writes += writes_at(c, n->nmsg, t_end) - writes_at(c, n->nmsg, t_warm);
        free(c);
    }
    g->steady_ok = 1;
    g->steady_mbps = g->steady_writes * (double)o->size_max / (ns_cyc_to_ns(w, (double)(t_end - t_warm)) * 1e-9) / 1e6;
}

/* perftest's latency figures over the whole run's samples */
static void run_lat(const struct ns_report *r, struct ns_lat_stats *st)
{
    uint64_t *v = r->nl ? malloc(r->nl * sizeof *v) : NULL;
    memset(st, 0, sizeof *st);
    if (!v)
        return;
    memcpy(v, r->lat, r->nl * sizeof *v);
    ns_lat_stats(r->w, v, r->nl, st);
    free(v);
}

void ns_summary(FILE *f, const struct ns_report *r)
{
    const struct ns_world *w = r->w;
    const struct ns_opts *o = w->o;
    const struct cluster_stats *cs = r->cs;
    struct totals t;
    struct stream_rates sr;
    char fw[96];
    ns_fw_desc(fw, sizeof fw, r->info, r->img_path);
    sum_nodes(w, &t);
    char procs[32] = "";
    if (o->procs > 1)
        snprintf(procs, sizeof procs, " x %u processes", o->procs);
    fprintf(f, "\nnicsim: %s on %u node%s%s; firmware %s; link %.1f Gb/s; faults drop %.3g dup %.3g corrupt %.3g delay %.3g; seed %" PRIu64 "\n",
            o->workload, o->nodes, o->nodes == 1 ? "" : "s", procs, fw, (double)o->link_bpc * 0.2, o->drop, o->duplicate, o->corrupt, o->delay, o->seed);
    fprintf(f, "  result      %s%s%s\n", ns_verdict(r->rc), w->failed || r->rc > 128 ? ": " : "",
            w->failed || r->rc > 128 ? w->fail_msg : "");
    fprintf(f, "  moved       %" PRIu64 " operations, %" PRIu64 " bytes; %" PRIu64 " bytes verified, %" PRIu64 " mismatches%s\n",
            w->ops, w->bytes, w->verify_bytes, w->verify_mismatch,
            /* one rank: the patterns keep a rank's own share local, so there is nothing to move (wl_apps.c) */
            o->ranks == 1 && !w->ops_expected && !w->bytes && !w->verify_bytes
                ? " (nothing to move: on one node every share of the pattern stays local; all 0 bytes moved were "
                  "verified)"
                : "");
    fprintf(f, "  time        %.1f us measured (%.3f ms simulated in all, %" PRIu64 " cycles); wall %.1f s, %.2f M cycles/s\n",
            time_ns(w) / 1e3, (double)cs->cycles * 1e3 / (double)w->clock_hz, (uint64_t)cs->cycles, cs->wall_s,
            cs->wall_s > 0 ? (double)cs->cycles / cs->wall_s / 1e6 : 0);
    if (w->o->boot_nic) { /* --bootstrap nic: handles and keys published through the NIC */
        uint64_t msgs = 0, rnr = 0, cyc = 0, cmax = 0;
        for (unsigned i = 0; i < w->o->nodes; i++) {
            const struct ns_node *n = &w->node[i];
            msgs += n->boot_msgs, rnr += n->boot_rnr, cyc += n->boot_cycles;
            cmax = n->boot_cycles_max > cmax ? n->boot_cycles_max : cmax;
        }
        fprintf(f, "  bootstrap   nic: %" PRIu64 " messages (%" PRIu64 " resent after RNR); %" PRIu64
                   " cycles in exchanges over all processes, at most %" PRIu64 " (%.1f us) for one\n",
                msgs, rnr, cyc, cmax, (double)cmax * 1e9 / (double)w->clock_hz / 1e3);
    } else
        fprintf(f, "  bootstrap   directory (out of band, no simulated cost)\n");
    char lt[80];
    if (r->nl) {
        struct ns_lat_stats st;
        run_lat(r, &st);
        fprintf(f, "  latency     per operation (us): t_min %.3f t_max %.3f typical %.3f average %.3f stdev %.3f "
                   "99%% %.3f 99.9%% %.3f\n",
                st.min / 1e3, st.max / 1e3, st.p50 / 1e3, st.mean / 1e3, st.stdev / 1e3, st.p99 / 1e3, st.p999 / 1e3);
        fprintf(f, "  bandwidth   %.1f MB/s%s\n", bw_mbps(w),
                is_wl(w, "pingpong") ? " (message sizes together; per size below)"
                                     : limit_text(lt, sizeof lt, r, o->size_max, bw_mbps(w)));
    }
    stream_rates(r, &sr);
    if (sr.ok)
        fprintf(f, "  stream      bandwidth peak %.1f MB/s, average %.1f MB/s; message rate peak %.4f Mmsg/s, "
                   "average %.4f Mmsg/s\n",
                sr.bw_peak, sr.bw_avg, sr.rate_peak, sr.rate_avg);
    if (is_wl(w, "pingpong") && w->npts) {
        fprintf(f, "    %9s %10s %10s %10s %10s %10s %10s %10s %10s\n", "size[B]", "t_min[us]", "t_max[us]",
                "typical[us]", "average[us]", "stdev[us]", "99%[us]", "99.9%[us]", "BW[MB/s]");
        for (unsigned i = 0; i < w->npts; i++) {
            const struct ns_point *p = &w->pts[i];
            fprintf(f, "    %9" PRIu64 " %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.1f%s\n", p->size,
                    p->lat_min_ns / 1e3, p->lat_max_ns / 1e3, p->lat_p50_ns / 1e3, p->lat_mean_ns / 1e3,
                    p->lat_stdev_ns / 1e3, p->lat_p99_ns / 1e3, p->lat_p999_ns / 1e3, p->mbps,
                    limit_text(lt, sizeof lt, r, p->size, p->mbps));
        }
    }
    if (is_wl(w, "incast")) {
        struct incast_figs g;
        incast_figs(r, &g);
        fprintf(f, "  incast      %u senders -> node 0: goodput %.1f MB/s%s; switch queue drops %" PRIu64
                   ", marked %" PRIu64 "; MAC RX drops %" PRIu64 "; retransmits %" PRIu64 "; window cuts %" PRIu64 "\n",
                g.senders, bw_mbps(w), limit_text(lt, sizeof lt, r, o->size_max, bw_mbps(w)), r->sw.queue_drops,
                r->sw.ecn_marked, g.ring_drops, g.retx, g.cuts);
        if (g.ok)
            fprintf(f, "              fairness (Jain) %.4f over the bytes delivered when the first sender finished "
                       "(min %" PRIu64 ", max %" PRIu64 " B)\n", g.jain, g.min_bytes, g.max_bytes);
        if (g.steady_ok)
            fprintf(f, "              steady state (every sender past its first 2 x --window writes, until the first "
                       "finished): %.1f MB/s%s over %.1f writes\n", g.steady_mbps,
                    limit_text(lt, sizeof lt, r, o->size_max, g.steady_mbps), g.steady_writes);
        else
            fprintf(f, "              steady state: none (the run ends before every sender is past its first 2 x "
                       "--window writes)\n");
        fprintf(f, "              flow control %s, congestion control %s (switch marks above %u B)\n",
                o->flow ? "on" : "off", o->cc ? "on" : "off", o->ecn_set ? o->ecn_bytes : o->cc ? 16384u : 0u);
    }
    if (is_wl(w, "reglimit"))
        fprintf(f, "  registered  %" PRIu64 " pages (%.1f MiB) at node 0; stopped by: %s\n", w->reg_pages,
                (double)w->reg_pages / 256.0, w->reg_error[0] ? w->reg_error : "the --ws-pages / 256-buffer cap");
    if (is_wl(w, "missratio") && w->npts)
        fprintf(f, "    miss ratio %.2f: one-way mean %.0f ns, %.1f MB/s%s\n", o->miss_ratio, w->pts[0].lat_mean_ns,
                w->pts[0].mbps, limit_text(lt, sizeof lt, r, w->pts[0].size, w->pts[0].mbps));
    fprintf(f, "  miss penalty %" PRIu64 " misses served; delay p50 %.1f us p99 %.1f us; processing p50 %.1f us p99 %.1f us "
               "(the fill p50 %.1f us)\n",
            r->miss.count, ns_cyc_to_ns(w, (double)r->miss.delay_p50) / 1e3, ns_cyc_to_ns(w, (double)r->miss.delay_p99) / 1e3,
            ns_cyc_to_ns(w, (double)r->miss.proc_p50) / 1e3, ns_cyc_to_ns(w, (double)r->miss.proc_p99) / 1e3,
            ns_cyc_to_ns(w, (double)r->miss.fill_p50) / 1e3);
    fprintf(f, "  switch      %" PRIu64 " frames delivered; dropped: %" PRIu64 " by faults, %" PRIu64 " queue full, %" PRIu64
               " no slot; %" PRIu64 " duplicated, %" PRIu64 " corrupted, %" PRIu64 " delayed\n",
            r->sw.tx_frames, r->sw.fault_drop, r->sw.queue_drops, r->sw.slot_drops, r->sw.fault_duplicate,
            r->sw.fault_corrupt, r->sw.fault_delay);
    if (o->pause)
        fprintf(f, "  link pause  %" PRIu64 " pause requests honoured, ports paused %" PRIu64 " cycles in all\n",
                r->sw.pauses, r->sw.paused_cycles);
    {
        uint64_t ovf = 0, nobuf = 0, crc = 0, und = 0;
        for (unsigned i = 0; i < o->nodes; i++) {
            ovf += w->node[i].mac.rx_overflow, nobuf += w->node[i].mac.rx_nobuf, crc += w->node[i].mac.rx_bad_crc;
            und += w->node[i].mac.tx_underruns;
        }
        fprintf(f, "  MACs        frames dropped on receive: %" PRIu64 " RX FIFO overflow, %" PRIu64 " RX ring full, %" PRIu64
                   " bad CRC; %" PRIu64 " cut-through underruns on transmit\n", ovf, nobuf, crc, und);
    }
    if (r->mem.ok)
        fprintf(f, "  NIC memory  code %" PRIu64 " B, packet buffers %" PRIu64 " B, lookup %" PRIu64 " B, queues %" PRIu64
                   " B, other %" PRIu64 " B\n",
                r->mem.code, r->mem.buffers, r->mem.lookup, r->mem.queues, r->mem.other);
    fprintf(f, "\n  node | VMH lookups  hit%%  miss cold/other (send, recv) | CBH miss | PCH miss |    tx     rx  retx  nack  drop-miss\n");
    for (unsigned i = 0; i < o->nodes; i++) {
        const struct nic_stats *s = &w->node[i].stats;
        const struct nic_cache_stats *v = &s->cache[NIC_CACHE_VMH];
        fprintf(f, "  %4u | %11u %5.1f  %4u/%-4u %4u/%-4u        | %8" PRIu64 " | %8" PRIu64 " | %5u %6u %5u %5u %9u\n", i,
                v->lookups, v->lookups ? 100.0 * v->hits / v->lookups : 0.0, v->miss_cold_send, v->miss_send,
                v->miss_cold_recv, v->miss_recv, cmiss(&s->cache[NIC_CACHE_CBH]), cmiss(&s->cache[NIC_CACHE_PCH]),
                s->tx_packets, s->rx_packets, s->retransmits, s->nacks_sent, s->drops_miss);
    }
    fprintf(f, "  total| %11u %5.1f  %4u/%-4u %4u/%-4u        | %8" PRIu64 " | %8" PRIu64 " | %5" PRIu64 " %6" PRIu64 " %5" PRIu64
               " %5" PRIu64 " %9" PRIu64 "\n",
            t.c[0].lookups, t.c[0].lookups ? 100.0 * t.c[0].hits / t.c[0].lookups : 0.0, t.c[0].miss_cold_send,
            t.c[0].miss_send, t.c[0].miss_cold_recv, t.c[0].miss_recv, cmiss(&t.c[1]), cmiss(&t.c[2]), t.tx, t.rx, t.retx,
            t.nacks_sent, t.drops_miss);
    if (r->rc > 128)
        fprintf(f, "  (partial: the run was stopped by %s; the NICs' counters were not collected)\n",
                report_signame(r->rc - 128));
    fprintf(f, "\n");
}

/* ---- JSON ---- */
static void json_cache(cJSON *o, const char *name, const struct nic_cache_stats *c)
{
    cJSON *x = cJSON_AddObjectToObject(o, name);
    if (!x)
        return;
    report_u64(x, "lookups", c->lookups);
    report_u64(x, "hits", c->hits);
    report_u64(x, "misses", cmiss(c));
    report_u64(x, "cold_misses", (uint64_t)c->miss_cold_send + c->miss_cold_recv);
    report_u64(x, "cold_send", c->miss_cold_send);
    report_u64(x, "cold_recv", c->miss_cold_recv);
    report_u64(x, "noncold_send", c->miss_send);
    report_u64(x, "noncold_recv", c->miss_recv);
    report_u64(x, "evictions", c->evictions);
    report_u64(x, "invalidations", c->invalidations);
    report_u64(x, "fills", c->fills);
    report_u64(x, "fills_rejected", c->fills_rejected);
}

/* perftest's figures in us: {t_min, t_max, typical, average, stdev, p99, p99_9} */
static void json_lat_us(cJSON *o, const char *key, double mn, double mx, double p50, double mean, double sd,
                        double p99, double p999)
{
    cJSON *x = cJSON_AddObjectToObject(o, key);
    if (!x)
        return;
    report_num(x, "t_min", mn / 1e3, 3);
    report_num(x, "t_max", mx / 1e3, 3);
    report_num(x, "typical", p50 / 1e3, 3);
    report_num(x, "average", mean / 1e3, 3);
    report_num(x, "stdev", sd / 1e3, 3);
    report_num(x, "p99", p99 / 1e3, 3);
    report_num(x, "p99_9", p999 / 1e3, 3);
}

static cJSON *build_json(const struct ns_report *r)
{
    const struct ns_world *w = r->w;
    const struct ns_opts *o = w->o;
    const struct cluster_stats *cs = r->cs;
    const struct nic_info *fi = r->info;
    cJSON *root = report_new("nicsim", r->img_path, r->img, r->img_len), *x, *y, *arr;
    char fw[96];
    struct ns_lat_stats st;
    struct stream_rates sr;

    if (!root)
        return NULL;
    ns_fw_desc(fw, sizeof fw, fi, r->img_path);
    report_mark(root);
    cJSON_AddStringToObject(root, "result", ns_verdict(r->rc));
    cJSON_AddStringToObject(root, "error", w->fail_msg);
    if (w->bd)
        ns_bd_json(root);
    report_num(root, "exit_status", r->rc, 0);

    x = cJSON_AddObjectToObject(root, "config");
    cJSON_AddNumberToObject(x, "nodes", o->nodes);
    cJSON_AddNumberToObject(x, "procs", o->procs);
    cJSON_AddNumberToObject(x, "mem_pressure_cycles", (double)o->mem_pressure);
    cJSON_AddStringToObject(x, "workload", o->workload);
    cJSON_AddStringToObject(x, "firmware", fw);
    cJSON_AddStringToObject(x, "image", r->img_path);
    if (fi) { /* from the handshake; null when no driver got that far */
        cJSON_AddStringToObject(x, "lookup", !(fi->caps & NIC_CAP_DYNAMIC_LOOKUP) ? "static" : "dynamic");
        y = cJSON_AddObjectToObject(x, "cache");
        cJSON_AddNumberToObject(y, "C", fi->cache[0].entries);
        cJSON_AddNumberToObject(y, "L", fi->cache[0].line);
        cJSON_AddNumberToObject(y, "A", fi->cache[0].ways);
        cJSON_AddBoolToObject(x, "nack", (fi->caps & NIC_CAP_NACK) != 0);
    } else {
        cJSON_AddNullToObject(x, "lookup");
        cJSON_AddNullToObject(x, "cache");
        cJSON_AddNullToObject(x, "nack");
    }
    report_num(x, "link_gbps", (double)o->link_bpc * 0.2, 3);
    report_u64(x, "link_latency_cycles", o->link_latency);
    cJSON_AddNumberToObject(x, "drop", o->drop);
    cJSON_AddNumberToObject(x, "duplicate", o->duplicate);
    cJSON_AddNumberToObject(x, "corrupt", o->corrupt);
    cJSON_AddNumberToObject(x, "delay", o->delay);
    report_u64(x, "seed", o->seed);
    report_u64(x, "size_min", o->size_min);
    report_u64(x, "size_max", o->size_max);
    cJSON_AddNumberToObject(x, "iters", o->iters);
    cJSON_AddNumberToObject(x, "warmup", o->warmup);
    cJSON_AddNumberToObject(x, "window", o->window);
    cJSON_AddNumberToObject(x, "cq_mod", o->cq_mod);
    cJSON_AddStringToObject(x, "op", o->op_read ? "read" : "write");
    cJSON_AddBoolToObject(x, "bidir", o->bidir);
    cJSON_AddNumberToObject(x, "miss_ratio", o->miss_ratio);
    report_u64(x, "ws_pages", o->ws_pages);
    cJSON_AddNumberToObject(x, "phases", o->phases);
    report_u64(x, "compute_ns", o->compute_ns);
    cJSON_AddStringToObject(x, "host_cost", o->host_cost ? o->host_cost : "");
    report_u64(x, "pin_hwm", o->pin_hwm);
    cJSON_AddNumberToObject(x, "miss_threads", o->miss_threads);
    cJSON_AddBoolToObject(x, "prefill", o->prefill);
    cJSON_AddNumberToObject(x, "prefetch", o->prefetch);
    cJSON_AddStringToObject(x, "pin_mode", o->pin_mode == 1 ? "at-reg" : o->pin_mode == 2 ? (o->pin_async ? "overlap-async" : "overlap") : "on-miss");
    cJSON_AddStringToObject(x, "evict", o->evict == NICDRV_EVICT_LRU ? "lru" : o->evict == NICDRV_EVICT_LFU ? "lfu" : "lrf");
    cJSON_AddBoolToObject(x, "sr", o->sr);
    cJSON_AddStringToObject(x, "bootstrap", o->boot_nic ? "nic" : "directory");
    cJSON_AddBoolToObject(x, "flow", o->flow);
    cJSON_AddBoolToObject(x, "cc", o->cc);
    report_u64(x, "ecn_bytes", o->ecn_set ? o->ecn_bytes : o->cc ? 16384u : 0u);
    cJSON_AddBoolToObject(x, "pause", o->pause);
    cJSON_AddBoolToObject(x, "inline", !o->no_inline);
    cJSON_AddBoolToObject(x, "cut_through", !o->no_ct);
    if (o->pcie_rd_lat)
        report_u64(x, "pcie_read_latency_cycles", o->pcie_rd_lat);
    report_u64(x, "senders", o->senders);
    report_u64(x, "max_cycles", o->max_cycles);
    cJSON_AddBoolToObject(x, "no_skip", o->no_skip);

    x = cJSON_AddObjectToObject(root, "sim");
    report_u64(x, "cycles", (uint64_t)cs->cycles);
    report_num(x, "wall_s", cs->wall_s, 3);
    report_num(x, "cycles_per_s", cs->wall_s > 0 ? (double)cs->cycles / cs->wall_s : 0, 0);
    report_u64(x, "clock_hz", w->clock_hz);
    report_u64(x, "cycles_clocked", cs->cycles_clocked);
    report_u64(x, "skips", cs->skips);
    cJSON_AddNumberToObject(x, "ranks", r->ranks);
    cJSON_AddStringToObject(x, "transport", r->transport ? r->transport : "none");
    report_u64(x, "quantum_cycles", r->quantum);
    report_u64(x, "boundaries", r->boundaries);
    report_num(x, "sync_wait_s", r->wait_s, 3);
    report_num(x, "cpu_s", cs->cpu_s, 3);
    { /* each rank's share of the work (not simulated figures: they describe the simulator) */
        cJSON *pr = cJSON_AddArrayToObject(x, "per_rank");
        for (unsigned k = 0; pr && k < w->nrank_stats; k++) {
            const struct ns_rank_stat *rs = &w->rank_stats[k];
            cJSON *e = cJSON_CreateObject(), *nodes;
            if (!e)
                break;
            cJSON_AddItemToArray(pr, e);
            cJSON_AddNumberToObject(e, "rank", rs->rank);
            nodes = cJSON_AddArrayToObject(e, "nodes");
            for (unsigned i = 0; nodes && i < w->o->nodes; i++)
                if (w->node[i].sim_rank == rs->rank)
                    cJSON_AddItemToArray(nodes, cJSON_CreateNumber(i));
            report_u64(e, "node_cycles_evaluated", rs->cycles_evaluated);
            report_num(e, "cpu_s", rs->cpu_s, 3);
            report_num(e, "compute_cpu_s", rs->cpu_s - rs->boundary_cpu_s, 3);
            report_num(e, "boundary_cpu_s", rs->boundary_cpu_s, 3);
            report_num(e, "wall_s", rs->wall_s, 3);
            report_num(e, "boundary_wall_s", rs->boundary_wall_s, 3);
            report_num(e, "wait_s", rs->wait_s, 3);
            report_u64(e, "boundaries", rs->boundaries);
            report_u64(e, "mpi_exchanges", rs->exchanges);
        }
        cJSON *ne = cJSON_AddArrayToObject(x, "node_cycles_evaluated");
        for (unsigned i = 0; ne && i < w->o->nodes; i++)
            cJSON_AddItemToArray(ne, cJSON_CreateNumber((double)w->node[i].cycles_evaluated));
    }

    x = cJSON_AddObjectToObject(root, "workload");
    cJSON_AddStringToObject(x, "name", o->workload);
    report_u64(x, "ops", w->ops);
    report_u64(x, "bytes", w->bytes);
    report_num(x, "time_ns", time_ns(w), 0);
    y = cJSON_AddObjectToObject(x, "latency_ns");
    report_num(y, "p50", ns_cyc_to_ns(w, pctl(r->lat, r->nl, 50)), 0);
    report_num(y, "p99", ns_cyc_to_ns(w, pctl(r->lat, r->nl, 99)), 0);
    report_u64(y, "samples", r->nl);
    run_lat(r, &st);
    json_lat_us(x, "latency_us", st.min, st.max, st.p50, st.mean, st.stdev, st.p99, st.p999);
    report_num(x, "bandwidth_MBps", bw_mbps(w), 2);
    if (is_wl(w, "pingpong")) { /* per size: see the points */
        cJSON_AddNullToObject(x, "limit_MBps");
        cJSON_AddNullToObject(x, "pct_of_limit");
    } else {
        json_limit(x, r, o->size_max, bw_mbps(w));
    }
    stream_rates(r, &sr);
    y = cJSON_AddObjectToObject(x, "stream");
    if (sr.ok) {
        report_num(y, "bw_peak_MBps", sr.bw_peak, 2);
        report_num(y, "bw_avg_MBps", sr.bw_avg, 2);
        report_num(y, "msg_rate_peak_Mps", sr.rate_peak, 6);
        report_num(y, "msg_rate_avg_Mps", sr.rate_avg, 6);
    }
    arr = cJSON_AddArrayToObject(x, "points");
    for (unsigned i = 0; arr && i < w->npts; i++) {
        const struct ns_point *p = &w->pts[i];
        cJSON *q = cJSON_CreateObject(), *l;
        if (!q)
            break;
        report_u64(q, "size", p->size);
        report_u64(q, "ops", p->ops);
        l = cJSON_AddObjectToObject(q, "latency_ns");
        report_num(l, "p50", p->lat_p50_ns, 0);
        report_num(l, "p99", p->lat_p99_ns, 0);
        report_num(l, "mean", p->lat_mean_ns, 0);
        json_lat_us(q, "latency_us", p->lat_min_ns, p->lat_max_ns, p->lat_p50_ns, p->lat_mean_ns, p->lat_stdev_ns,
                    p->lat_p99_ns, p->lat_p999_ns);
        report_num(q, "bandwidth_MBps", p->mbps, 2);
        json_limit(q, r, p->size, p->mbps);
        cJSON_AddItemToArray(arr, q);
    }
    if (is_wl(w, "incast")) {
        struct incast_figs g;
        incast_figs(r, &g);
        y = cJSON_AddObjectToObject(x, "incast");
        report_u64(y, "senders", g.senders);
        report_num(y, "goodput_MBps", bw_mbps(w), 2);
        json_limit(y, r, o->size_max, bw_mbps(w));
        if (g.ok)
            report_num(y, "jain", g.jain, 4);
        else
            cJSON_AddNullToObject(y, "jain");
        if (g.steady_ok) { /* the goodput once the cold start is over (incast_figs) */
            double lim = limit_mbps(r, o->size_max);
            report_num(y, "steady_goodput_MBps", g.steady_mbps, 2);
            if (lim > 0)
                report_num(y, "steady_pct_of_limit", 100.0 * g.steady_mbps / lim, 2);
            else
                cJSON_AddNullToObject(y, "steady_pct_of_limit");
            report_num(y, "steady_writes", g.steady_writes, 2);
        } else {
            cJSON_AddNullToObject(y, "steady_goodput_MBps");
            cJSON_AddNullToObject(y, "steady_pct_of_limit");
            report_u64(y, "steady_writes", 0);
        }
        report_u64(y, "sender_min_bytes", g.ok ? g.min_bytes : 0);
        report_u64(y, "sender_max_bytes", g.max_bytes);
        report_u64(y, "switch_queue_drops", r->sw.queue_drops);
        report_u64(y, "switch_marked", r->sw.ecn_marked);
        report_u64(y, "mac_rx_drops", g.ring_drops);
        report_u64(y, "retransmits", g.retx);
        report_u64(y, "ce_received", g.ce);
        report_u64(y, "window_cuts", g.cuts);
    }
    report_num(x, "steady_ns", w->t_first && w->t1 > w->t_first ? ns_cyc_to_ns(w, (double)(w->t1 - w->t_first)) : 0.0, 0);
    report_u64(x, "registered_pages", w->reg_pages);
    cJSON_AddStringToObject(x, "registration_error", w->reg_error);

    x = cJSON_AddObjectToObject(root, "verify");
    report_u64(x, "bytes_checked", w->verify_bytes);
    report_u64(x, "mismatches", w->verify_mismatch);
    report_u64(x, "oracle_violations", r->violations);

    x = cJSON_AddObjectToObject(root, "miss_penalty_ns");
    report_u64(x, "count", r->miss.count);
    report_num(x, "delay_p50", ns_cyc_to_ns(w, (double)r->miss.delay_p50), 0);
    report_num(x, "delay_p99", ns_cyc_to_ns(w, (double)r->miss.delay_p99), 0);
    report_num(x, "processing_p50", ns_cyc_to_ns(w, (double)r->miss.proc_p50), 0);
    report_num(x, "processing_p99", ns_cyc_to_ns(w, (double)r->miss.proc_p99), 0);
    report_num(x, "fill_p50", ns_cyc_to_ns(w, (double)r->miss.fill_p50), 0);
    report_num(x, "fill_p99", ns_cyc_to_ns(w, (double)r->miss.fill_p99), 0);
    report_num(x, "processing_nofill_p50", ns_cyc_to_ns(w, (double)r->miss.nofill_p50), 0);
    report_num(x, "processing_nofill_p99", ns_cyc_to_ns(w, (double)r->miss.nofill_p99), 0);
    report_num(x, "total_p50", ns_cyc_to_ns(w, (double)r->miss.total_p50), 0);
    report_num(x, "total_p99", ns_cyc_to_ns(w, (double)r->miss.total_p99), 0);

    x = cJSON_AddObjectToObject(root, "switch");
    report_u64(x, "frames", r->sw.tx_frames);
    report_u64(x, "fault_drop", r->sw.fault_drop);
    report_u64(x, "queue_drops", r->sw.queue_drops);
    report_u64(x, "slot_drops", r->sw.slot_drops);
    report_u64(x, "fault_duplicate", r->sw.fault_duplicate);
    report_u64(x, "fault_corrupt", r->sw.fault_corrupt);
    report_u64(x, "fault_delay", r->sw.fault_delay);
    report_u64(x, "ecn_marked", r->sw.ecn_marked);
    report_u64(x, "pauses", r->sw.pauses);
    report_u64(x, "paused_cycles", r->sw.paused_cycles);

    arr = cJSON_AddArrayToObject(root, "nodes");
    for (unsigned i = 0; arr && i < o->nodes; i++) {
        const struct ns_node *n = &w->node[i];
        const struct nic_stats *s = &n->stats;
        cJSON *q = cJSON_CreateObject();
        if (!q)
            break;
        cJSON_AddNumberToObject(q, "id", i);
        y = cJSON_AddObjectToObject(q, "lookup");
        json_cache(y, "vmh", &s->cache[NIC_CACHE_VMH]);
        json_cache(y, "cbh", &s->cache[NIC_CACHE_CBH]);
        json_cache(y, "pch", &s->cache[NIC_CACHE_PCH]);
        y = cJSON_AddObjectToObject(q, "transport");
        report_u64(y, "tx_packets", s->tx_packets);
        report_u64(y, "rx_packets", s->rx_packets);
        report_u64(y, "retransmits", s->retransmits);
        report_u64(y, "timeouts", s->timeouts);
        report_u64(y, "nacks", s->nacks_sent);
        report_u64(y, "nacks_received", s->nacks_received);
        report_u64(y, "drops_miss", s->drops_miss);
        report_u64(y, "miss_requests", s->miss_requests);
        report_u64(y, "miss_prefetch_lines", s->miss_prefetch_lines);
        report_u64(y, "miss_range_merged", s->miss_range_merged);
        report_u64(y, "drops_bad", s->drops_bad);
        report_u64(y, "dup_packets", s->dup_packets);
        report_u64(y, "protection_errors", s->protection_errors);
        report_u64(y, "loop_frames", s->loop_frames);
        report_u64(y, "loop_holds", s->loop_holds);
        report_u64(y, "loop_retries", s->loop_retries);
        report_u64(y, "ce_received", s->ce_received);
        report_u64(y, "cc_cuts", s->cc_cuts);
        report_u64(y, "peer_fills", s->peer_fills); /* peer contexts (issue 13): docs/firmware.md */
        report_u64(y, "peer_evictions", s->peer_evictions);
        report_u64(y, "peer_writebacks", s->peer_writebacks);
        report_u64(y, "peer_fill_drops", s->peer_fill_drops);
        report_u64(y, "peer_no_victim", s->peer_no_victim);
        y = cJSON_AddObjectToObject(q, "mac");
        report_u64(y, "rx_ok", n->mac.rx_ok);
        report_u64(y, "rx_bad_crc", n->mac.rx_bad_crc);
        report_u64(y, "rx_nobuf", n->mac.rx_nobuf);
        report_u64(y, "rx_overflow", n->mac.rx_overflow);
        report_u64(y, "tx_ok", n->mac.tx_ok);
        report_u64(y, "tx_underruns", n->mac.tx_underruns);
        y = cJSON_AddObjectToObject(q, "nic_mem");
        report_u64(y, "code", r->mem.code);
        report_u64(y, "buffers", r->mem.buffers);
        report_u64(y, "lookup", r->mem.lookup);
        report_u64(y, "queues", r->mem.queues);
        report_u64(y, "other", r->mem.other);
        report_u64(y, "total", r->mem.code + r->mem.buffers + r->mem.lookup + r->mem.queues + r->mem.other);
        y = cJSON_AddObjectToObject(q, "driver");
        report_u64(y, "misses", n->dstats.misses);
        report_u64(y, "misses_merged", n->dstats.misses_merged);
        report_u64(y, "fills", n->dstats.fills);
        report_u64(y, "fills_rejected", n->dstats.fills_rejected);
        report_u64(y, "pins", n->dstats.pins);
        report_u64(y, "pinned_peak", n->dstats.pinned_peak);
        report_u64(y, "evictions", n->dstats.evictions);
        report_u64(y, "usage_reads", n->dstats.usage_reads);
        report_num(y, "fill_wait_ns", ns_cyc_to_ns(w, (double)n->dstats.fill_wait), 0);
        report_u64(y, "static_loads", n->dstats.static_loads);
        report_u64(y, "prefills", n->dstats.prefills);
        report_u64(y, "mmu_releases", n->dstats.mmu_releases);
        report_u64(y, "mmu_invalidations", n->dstats.mmu_invalidations);
        report_u64(y, "mmu_refused", n->dstats.mmu_refused);
        report_u64(y, "prefetch_fills", n->dstats.prefetch_fills);
        report_u64(y, "pin_early_misses", n->dstats.pin_early);
        report_u64(y, "bg_pinned_lines", n->dstats.bg_lines);
        y = cJSON_AddObjectToObject(q, "ops");
        report_u64(y, "posted", n->posted);
        report_u64(y, "completed", n->completed);
        report_u64(y, "errors", n->errors);
        if (r->w->o->boot_nic) { /* --bootstrap nic: what publishing through the NIC cost */
            y = cJSON_AddObjectToObject(q, "bootstrap");
            report_u64(y, "cycles", n->boot_cycles);
            report_u64(y, "cycles_max_process", n->boot_cycles_max);
            report_u64(y, "messages", n->boot_msgs);
            report_u64(y, "rnr_resends", n->boot_rnr);
        }
        cJSON_AddItemToArray(arr, q);
    }
    return root;
}

int ns_write_json(FILE *f, const char *path, const struct ns_report *r)
{
    return report_write(f, build_json(r), "nicsim", path);
}

/* ---- CSV ---- */
/* A field that may hold anything (a path, a cost list): quoted, quotes doubled (RFC 4180). */
static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputs("\",", f);
}

int ns_write_csv(FILE *f, const char *path, const struct ns_report *r)
{
    const struct ns_world *w = r->w;
    const struct ns_opts *o = w->o;
    const struct nic_info *fi = r->info;
    struct totals t;
    struct stream_rates sr;
    struct ns_lat_stats st;
    int bad;

    sum_nodes(w, &t);
    stream_rates(r, &sr);
    run_lat(r, &st);
    /* every option that shaped the run first, then the figures (one unit per column, in its name) */
    fprintf(f, "workload,nodes,lookup,C,L,A,nack,image,op,bidir,window,iters,warmup,size_min,size_max,link_gbps,"
               "link_latency_cycles,drop,duplicate,corrupt,delay,seed,miss_ratio,ws_pages,phases,compute_ns,host_cost,"
               "pin_hwm,miss_threads,prefill,max_cycles,no_skip,procs,mem_pressure_cycles,"
               "size,ops,bytes,time_ns,lat_p50_ns,lat_p99_ns,lat_mean_ns,"
               "lat_min_us,lat_max_us,lat_typical_us,lat_avg_us,lat_stdev_us,lat_p99_us,lat_p99_9_us,"
               "bw_MBps,bw_peak_MBps,bw_avg_MBps,msg_rate_peak_Mps,msg_rate_avg_Mps,"
               "vmh_lookups,vmh_cold_send,vmh_cold_recv,vmh_noncold_send,vmh_noncold_recv,cbh_misses,"
               "pch_misses,retransmits,timeouts,nacks,drops_miss,miss_count,delay_p50_ns,proc_p50_ns,verify_bytes,"
               "mismatches,sim_cycles,result,partial\n");
    unsigned rows = w->npts ? w->npts : 1;
    for (unsigned k = 0; k < rows; k++) {
        const struct ns_point *p = w->npts ? &w->pts[k] : NULL;
        int whole = !p || !is_wl(w, "pingpong");
        if (fi)
            fprintf(f, "%s,%u,%s,%u,%u,%u,%d,", o->workload, o->nodes,
                    !(fi->caps & NIC_CAP_DYNAMIC_LOOKUP) ? "static" : "dynamic", fi->cache[0].entries,
                    fi->cache[0].line, fi->cache[0].ways, (fi->caps & NIC_CAP_NACK) ? 1 : 0);
        else /* no handshake: unknown, empty */
            fprintf(f, "%s,%u,,,,,,", o->workload, o->nodes);
        csv_str(f, r->img_path);
        fprintf(f, "%s,%d,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 ",%g,%g,%g,%g,%" PRIu64 ",%g,%" PRIu64 ",%u,%" PRIu64 ",",
                o->op_read ? "read" : "write", o->bidir, o->window, o->iters, o->warmup, o->size_min, o->size_max,
                (double)o->link_bpc * 0.2, o->link_latency, o->drop, o->duplicate, o->corrupt, o->delay, o->seed,
                o->miss_ratio, o->ws_pages, o->phases, o->compute_ns);
        csv_str(f, o->host_cost);
        fprintf(f, "%" PRIu64 ",%u,%d,%" PRIu64 ",%d,%u,%" PRIu64 ",", o->pin_hwm, o->miss_threads, o->prefill,
                o->max_cycles, o->no_skip, o->procs, o->mem_pressure);
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%.0f,%.0f,%.0f,", p ? p->size : o->size_max,
                whole ? w->ops : p->ops, whole ? w->bytes : p->bytes, time_ns(w),
                whole ? ns_cyc_to_ns(w, pctl(r->lat, r->nl, 50)) : p->lat_p50_ns,
                whole ? ns_cyc_to_ns(w, pctl(r->lat, r->nl, 99)) : p->lat_p99_ns,
                p ? p->lat_mean_ns : (r->nl ? ns_cyc_to_ns(w, pctl(r->lat, r->nl, 50)) : 0));
        if (p && (!whole || is_wl(w, "missratio"))) /* the point's own samples */
            fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,", p->lat_min_ns / 1e3, p->lat_max_ns / 1e3,
                    p->lat_p50_ns / 1e3, p->lat_mean_ns / 1e3, p->lat_stdev_ns / 1e3, p->lat_p99_ns / 1e3,
                    p->lat_p999_ns / 1e3);
        else
            fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,", st.min / 1e3, st.max / 1e3, st.p50 / 1e3, st.mean / 1e3,
                    st.stdev / 1e3, st.p99 / 1e3, st.p999 / 1e3);
        fprintf(f, "%.2f,", p ? p->mbps : bw_mbps(w));
        if (sr.ok)
            fprintf(f, "%.2f,%.2f,%.6f,%.6f,", sr.bw_peak, sr.bw_avg, sr.rate_peak, sr.rate_avg);
        else
            fprintf(f, ",,,,");
        fprintf(f, "%u,%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%.0f,%" PRIu64
                   ",%" PRIu64 ",%" PRIu64 ",%s,%d\n",
                t.c[0].lookups, t.c[0].miss_cold_send, t.c[0].miss_cold_recv, t.c[0].miss_send, t.c[0].miss_recv,
                cmiss(&t.c[1]), cmiss(&t.c[2]), t.retx, t.timeouts, t.nacks_sent, t.drops_miss, r->miss.count,
                ns_cyc_to_ns(w, (double)r->miss.delay_p50), ns_cyc_to_ns(w, (double)r->miss.proc_p50), w->verify_bytes,
                w->verify_mismatch, (uint64_t)cluster_now(w->cl), ns_verdict(r->rc), r->rc > 128);
    }
    bad = ferror(f) != 0;
    if (fclose(f) || bad) {
        fprintf(stderr, "nicsim: %s: the CSV could not be written\n", path);
        return -1;
    }
    return 0;
}
