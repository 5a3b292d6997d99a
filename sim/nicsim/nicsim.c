/*
 * nicsim - the product's main tool: a cycle-level simulation of a cluster of our NICs running the
 * NCP, each on a host running the driver and one user program of the chosen workload.
 *
 *   build/bin/nicsim [options]            (nicsim --help lists every option with its default)
 *
 * Flow: pick the firmware image (the default build, the seed-faithful timeout build, the static
 * build or a cache-geometry variant from the grid), build the cluster (switch with the link rate,
 * latency and fault rates; one node per NIC; the host cost model), create each node's driver and
 * spawn its program, run until every program finished (or one failed, or --max-cycles), then
 * print a summary and write the reports (--json, --csv). docs/nicsim.md documents the tool, the
 * workloads and the report's keys.
 *
 * Exit status: 0 the workload completed and every byte verified; 1 a failure (error completion,
 * mismatch, oracle violation, leaked pins); 2 --max-cycles reached; 3 bad options or set-up.
 */
#define _POSIX_C_SOURCE 200809L /* readlink, execv, isatty */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nic_model.h"
#include "nic_regs.h"
#include "fwdiag.h"
#include "nicsim.h"
#include "evlog.h"
#include "pcap.h"
#include "sim_exec.h"

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_TIMEOUT = 2, EXIT_SETUP = 3 };

static const struct ns_workload *const workloads[] = {
    &ns_wl_pingpong, &ns_wl_stream, &ns_wl_missratio, &ns_wl_fft,
    &ns_wl_radix,    &ns_wl_lu,     &ns_wl_ocean,     &ns_wl_water, &ns_wl_reglimit,
};
#define NWL (sizeof workloads / sizeof workloads[0])

/* ---- the run ---- */
struct mem_cats {
    uint64_t code, buffers, lookup, queues, other;
    int ok;
};

struct sim {
    struct ns_opts o;
    struct ns_world w;
    char img_path[PATH_MAX];
    uint8_t *img;
    size_t img_len;
    struct mem_cats mem;
    struct nic_info info;
    int have_info;
    struct costs_stats miss;
    struct switch_port_counters sw;
    uint64_t violations;
    pcap_cap_t *pcap;
    evlog_t *ev;
    int pcap_bad;
    int rc;
};

static struct sim S;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: nicsim [options]\n"
            "Cycle-level simulation of a cluster of NICs running the NCP firmware, hosts running the driver\n"
            "and a workload. Every byte moved is verified. Exit: 0 pass, 1 fail, 2 --max-cycles, 3 bad options.\n"
            "\n"
            "Cluster and workload:\n"
            "  --nodes N            nodes on the switch, 2..%u (default 4)\n"
            "  --workload W         one of the list below (default fft)\n"
            "  --size-min B         pingpong: smallest message (default 8)\n"
            "  --size-max B         pingpong: largest message; stream/missratio: the message size\n"
            "                       (default 1048576 for pingpong, 65536 stream, 4096 missratio)\n"
            "  --size B             sets --size-min and --size-max\n"
            "  --iters N            measured operations per size / per run (default 20; stream 200)\n"
            "  --warmup N           unmeasured rounds first (pingpong, missratio; default 2)\n"
            "  --window N           requests outstanding per node (stream, patterns; default 8)\n"
            "  --op write|read      stream: RDMA write or RDMA read (default write)\n"
            "  --bidir              stream: both directions at once\n"
            "  --miss-ratio F       missratio: fraction of pings that miss at node 1 (default 0.5)\n"
            "  --ws-pages N         patterns: working set per node, pages (default 256)\n"
            "  --phases N           patterns: phases (default 4)\n"
            "  --compute-ns NS      patterns: host compute per working-set page per phase (default 200)\n"
            "\n"
            "Firmware:\n"
            "  --lookup dynamic|static  software caches (default) or the seed's static tables\n"
            "  --cache C,L,A        cache geometry variant from build/fwvar (default: the build's own,\n"
            "                       C16384 L64 A4); `cmake --build build --target fw-grid` builds them\n"
            "  --nack on|off        receive-miss NACKs (default on) or seed-faithful timeouts\n"
            "  --fw IMAGE           an explicit flash image (overrides the three above)\n"
            "\n"
            "Link and faults:\n"
            "  --link-gbps G        link rate at the 200 MHz nominal clock (default 10): the switch's\n"
            "                       ports and every NIC's PHY, which its MAC transmits at (20 bytes of\n"
            "                       preamble and gap per frame; the 64-bit MAC carries <= 12.8 Gb/s)\n"
            "  --link-latency CYC   switch + cable: cycles from a frame's first bit leaving the\n"
            "                       switch port to its arrival at the NIC (default 100)\n"
            "  --drop P --duplicate P --corrupt P --delay P   fault rates per frame (default 0)\n"
            "\n"
            "Host:\n"
            "  --host-cost K=V,...  cost model overrides (docs/models.md: irq_ns, wake_min_ns, ...)\n"
            "  --pin-hwm PAGES      driver high-water mark on pinned pages (default 4096)\n"
            "  --miss-threads N     driver miss threads per node (default 1, the seed's single thread)\n"
            "  --prefill on|off     driver installs a process's PCH line at endpoint open and a buffer's\n"
            "                       CBH line at registration (default on; off: on demand, as the seed)\n"
            "\n"
            "Run and reports:\n"
            "  --seed N             seed of the switch faults, costs and patterns (default 1)\n"
            "  --max-cycles N       give up after N simulated cycles (default 2000000000)\n"
            "  --no-skip            clock every cycle (no idle skipping; same results, slower)\n"
            "  --eval-all           evaluate every NIC every cycle, even an idle one (same results,\n"
            "                       slower; with --no-skip the reference for --pin-hash)\n"
            "  --pin-hash           print a hash of every output pin of every NIC in every cycle\n"
            "  --fst FILE           FST waveform of one node's NIC (--trace-node, default 0)\n"
            "  --trace-node N       the node --fst and --trace-insn record\n"
            NODEDBG_USAGE
            "  --json FILE          machine-readable report (docs/nicsim.md lists the keys)\n"
            "  --csv FILE           one row per measured point (pingpong: per size)\n"
            "  --progress / --no-progress   progress line on stderr (default: when stderr is a terminal)\n"
            "  --quiet              no summary table\n"
            "  --console            the NICs' firmware console lines on stderr (a node whose NCP\n"
            "                       traps or halts is explained anyway: cause, function, file:line,\n"
            "                       its last console lines)\n"
            "  --pcap FILE          capture every frame at the switch (pcap, ns timestamps in\n"
            "                       simulated time, link type USER0; tools/wireshark/ncp.lua decodes it)\n"
            "  --events FILE        JSON-lines log: driver misses, fills, invalidations; NACKs, RESUMEs,\n"
            "                       retransmissions and give-ups seen on the wire (docs/nicsim.md)\n"
            "  --help\n"
            "\nWorkloads:\n",
            NS_MAX_NODES);
    for (unsigned i = 0; i < NWL; i++)
        fprintf(f, "  %-10s %s\n", workloads[i]->name, workloads[i]->help);
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    unsigned long long x;
    if (!s || !*s || *s == '-')
        return -1;
    x = strtoull(s, &end, 0);
    if (*end == 'K' || *end == 'k')
        x <<= 10, end++;
    else if (*end == 'M')
        x <<= 20, end++;
    if (*end)
        return -1;
    *v = x;
    return 0;
}

static int parse_prob(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (!*s || *end || !(x >= 0.0 && x <= 1.0))
        return -1;
    *v = x;
    return 0;
}

static int bad(const char *opt, const char *val, const char *want)
{
    fprintf(stderr, "nicsim: bad value '%s' for %s: %s (nicsim --help)\n", val, opt, want);
    return EXIT_SETUP;
}

static int exe_dir(char *buf, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", buf, n - 1);
    char *slash;
    if (k <= 0)
        return -1;
    buf[k] = 0;
    slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return 0;
}

/* The image the options name, or an error that says how to build it. */
static int pick_image(const struct ns_opts *o, char *path, size_t n)
{
    char dir[PATH_MAX - 64]; /* room for the suffixes below */
    FILE *f;
    if (o->fw) {
        snprintf(path, n, "%s", o->fw);
    } else {
        if (exe_dir(dir, sizeof dir))
            return -1;
        if (o->lookup_static) {
            if (o->cache[0] || !o->nack) {
                fprintf(stderr, "nicsim: --lookup static has its own table sizes and NACKs; drop --cache/--nack\n");
                return -1;
            }
            snprintf(path, n, "%s/../fw-static/ncp.img", dir);
        } else if (o->cache[0]) {
            if (!o->nack) {
                fprintf(stderr, "nicsim: the geometry grid (build/fwvar) has NACK builds only; use --fw for others\n");
                return -1;
            }
            snprintf(path, n, "%s/../fwvar/c%u-l%u-a%u/ncp.img", dir, o->cache[0], o->cache[1], o->cache[2]);
        } else {
            snprintf(path, n, "%s/../%s/ncp.img", dir, o->nack ? "fw" : "fw-nonack");
        }
    }
    f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "nicsim: firmware image %s not found", path);
        if (o->cache[0] && !o->fw)
            fprintf(stderr, ": build it with `cmake --build build --target fwvar-c%u-l%u-a%u` (or fw-grid)", o->cache[0],
                    o->cache[1], o->cache[2]);
        fprintf(stderr, "\n");
        return -1;
    }
    fclose(f);
    return 0;
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long k;
    if (!f)
        return NULL;
    if (!fseek(f, 0, SEEK_END) && (k = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
        b = malloc((size_t)k);
        if (b && fread(b, 1, (size_t)k, f) != (size_t)k) {
            free(b);
            b = NULL;
        }
        *len = (size_t)k;
    }
    fclose(f);
    return b;
}

/* NIC memory by category, written next to the image by fw_report.py (`category bytes` lines). */
static void read_mem(const char *img, struct mem_cats *m)
{
    char p[PATH_MAX + 8], cat[32];
    unsigned long long v;
    size_t l = strlen(img);
    FILE *f;
    memset(m, 0, sizeof *m);
    snprintf(p, sizeof p, "%.*s.mem", (int)(l > 4 && !strcmp(img + l - 4, ".img") ? l - 4 : l), img);
    f = fopen(p, "r");
    if (!f) {
        fprintf(stderr, "nicsim: warning: %s missing: nic_mem figures are reported as 0\n", p);
        return;
    }
    while (fscanf(f, "%31s %llu", cat, &v) == 2) {
        if (!strcmp(cat, "code")) m->code = v;
        else if (!strcmp(cat, "buffers")) m->buffers = v;
        else if (!strcmp(cat, "lookup")) m->lookup = v;
        else if (!strcmp(cat, "queues")) m->queues = v;
        else if (!strcmp(cat, "other")) m->other = v;
    }
    m->ok = 1;
    fclose(f);
}

static void node_prog(void *arg)
{
    struct ns_node *n = arg;
    struct ns_world *w = n->w;
    char err[200] = "";
    int rc;

    rc = nicdrv_probe(n->drv, S.img, S.img_len, err, sizeof err);
    if (rc) {
        ns_fail(n, "probe: %s: %s", nicdrv_strerror(rc), err);
        goto out;
    }
    if (n->id == 0) {
        S.info = *nicdrv_fw_info(n->drv);
        S.have_info = 1;
    }
    if (os_proc_create(n->os, 48, &n->pid) != SIM_OK) {
        ns_fail(n, "cannot create the user process");
        goto out;
    }
    if ((rc = nic_dev_open(n->drv, n->pid, NULL, &n->dev)) || (rc = nic_ep_open(n->dev, &n->ep))) {
        ns_fail(n, "open: %s", nic_strerror(rc));
        goto out;
    }
    n->ok = 1;
    w->wl->run(n);
    ns_barrier(n); /* every node finished: nothing in flight any more */
    if ((rc = nicdrv_nic_stats(n->drv, &n->stats)))
        ns_fail(n, "NIC statistics: %s", nicdrv_strerror(rc));
    {   /* the MAC's counters, through BAR0 as a driver would read them */
        const struct nicdrv_bus *bus = nicdrv_bus_of(n->drv);
        static const uint32_t reg[5] = { NIC_MAC_RX_OK, NIC_MAC_RX_BAD_CRC, NIC_MAC_RX_NOBUF, NIC_MAC_RX_OVERFLOW,
                                         NIC_MAC_TX_OK };
        uint32_t *dst[5] = { &n->mac.rx_ok, &n->mac.rx_bad_crc, &n->mac.rx_nobuf, &n->mac.rx_overflow, &n->mac.tx_ok };
        for (unsigned k = 0; k < 5; k++)
            if (bus->rd32(bus->ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + reg[k], dst[k]))
                ns_fail(n, "cannot read the MAC's counters");
    }
    ns_barrier(n);
    if ((rc = nic_dev_close(n->dev)))
        ns_fail(n, "close: %s", nic_strerror(rc));
    n->dev = NULL;
    nicdrv_stats(n->drv, &n->dstats);
    ns_barrier(n); /* nobody removes its NIC while a peer may still talk to it */
out:
    nicdrv_remove(n->drv);
    n->pinned_after_close = os_pinned_pages_total(n->os);
    if (n->pinned_after_close)
        ns_fail(n, "%" PRIu64 " pages still pinned after close and remove", n->pinned_after_close);
    w->done++;
}

/* After a failure every program skips to its end-of-run steps (counters, close, remove), so
 * the report still has each node's counters; a program that does not get there within
 * NS_FAIL_GRACE cycles (stuck) is abandoned. */
#define NS_FAIL_GRACE 50000000ull
/* --pcap / --events: every frame handed to the switch */
static void wire_tap(void *ctx, sim_cycle_t now, uint32_t port, const uint8_t *frame, size_t len)
{
    (void)ctx;
    (void)port;
    if (S.pcap)
        pcap_cap_frame(S.pcap, now, frame, len);
    if (S.ev)
        evlog_frame(S.ev, now, frame, len);
}

/* --events: the driver's cache work, at the simulated time it happens */
static void drv_observe(void *ctx, const char *kind, unsigned cache, uint16_t pid, uint32_t key)
{
    struct ns_node *n = ctx;
    if (S.ev)
        evlog_driver(S.ev, cluster_now(n->w->cl), n->id, kind, cache, pid, key);
}

static bool stop_fn(cluster_t *c, void *ctx)
{
    struct ns_world *w = ctx;
    /* A halted NCP (ns_check_halt) is a failure like any other: the programs skip to their end
     * (their commands to the halted NIC time out, so the drivers release their locks and can be
     * removed), and what fails on the way is counted as suppressed, not printed. */
    ns_check_halt(w);
    return w->done == w->o->nodes || (w->failed && cluster_now(c) > w->fail_at + NS_FAIL_GRACE);
}

static void note_fn(void *ctx, char *buf, size_t n)
{
    struct ns_world *w = ctx;
    if (w->ops_expected)
        snprintf(buf, n, "%" PRIu64 "/%" PRIu64 " ops (%.0f%%), %.1f MB verified", w->ops, w->ops_expected,
                 100.0 * (double)w->ops / (double)w->ops_expected, (double)w->verify_bytes / 1e6);
    else
        snprintf(buf, n, "%" PRIu64 " ops, %.1f MB verified", w->ops, (double)w->verify_bytes / 1e6);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- reports ---- */
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

static const char *verdict(void)
{
    return S.rc == EXIT_PASS ? "PASS" : S.rc == EXIT_TIMEOUT ? "TIMEOUT" : "FAIL";
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

/* The physical limit of a message of `size` bytes on one link direction: it travels as
 * ceil(size / MTU) frames, each with the wire header (48 bytes, docs/wire-protocol.md), the MAC's
 * FCS (4) and Ethernet's preamble, start delimiter and inter-frame gap (20), at the link rate:
 * limit = size / (size + frames * 72) x link bytes per second, times two for --bidir streams
 * (both directions count in their bandwidth). Negative when the workload has no single figure. */
#define NS_WIRE_HDR 48u
#define NS_WIRE_FCS 4u
static double limit_mbps(const struct ns_world *w, uint64_t size)
{
    const struct ns_opts *o = w->o;
    uint64_t mtu = S.have_info && S.info.mtu ? S.info.mtu : 4096, frames = size ? (size + mtu - 1) / mtu : 1;
    double link_Bps = (double)o->link_bpc * (double)w->clock_hz / 8.0;
    int dirs = !strcmp(o->workload, "stream") && o->bidir ? 2 : 1;

    if (strcmp(o->workload, "stream") && strcmp(o->workload, "pingpong") && strcmp(o->workload, "missratio"))
        return -1;
    return (double)size / (double)(size + frames * (NS_WIRE_HDR + NS_WIRE_FCS + SWITCH_GAP_BYTES)) * link_Bps * dirs / 1e6;
}

/* " (limit L MB/s, P % of it)" after a bandwidth figure, or nothing */
static const char *limit_text(char *buf, size_t n, const struct ns_world *w, uint64_t size, double mbps)
{
    double lim = limit_mbps(w, size);
    if (lim <= 0)
        buf[0] = 0;
    else
        snprintf(buf, n, " (limit %.1f MB/s, %.1f %% of it)", lim, 100.0 * mbps / lim);
    return buf;
}

/* JSON: "limit_MBps": L, "pct_of_limit": P (null, null without a single figure) */
static void json_limit(FILE *f, const struct ns_world *w, uint64_t size, double mbps)
{
    double lim = limit_mbps(w, size);
    if (lim <= 0)
        fprintf(f, "\"limit_MBps\": null, \"pct_of_limit\": null");
    else
        fprintf(f, "\"limit_MBps\": %.2f, \"pct_of_limit\": %.2f", lim, 100.0 * mbps / lim);
}

static void fw_desc(char *buf, size_t n)
{
    if (!S.have_info) {
        snprintf(buf, n, "%.80s", S.img_path);
        return;
    }
    const struct nic_cache_geom *g = &S.info.cache[NIC_CACHE_VMH];
    if (S.info.caps & NIC_CAP_DYNAMIC_LOOKUP)
        snprintf(buf, n, "dynamic C%u L%u A%u, %s", g->entries, g->line, g->ways,
                 S.info.caps & NIC_CAP_NACK ? "miss NACKs" : "seed-faithful timeouts");
    else
        snprintf(buf, n, "static tables");
}

static void summary(FILE *f, const struct ns_world *w, const struct cluster_stats *cs, const uint64_t *lat, uint64_t nl)
{
    const struct ns_opts *o = w->o;
    struct totals t;
    char fw[96];
    fw_desc(fw, sizeof fw);
    sum_nodes(w, &t);
    fprintf(f, "\nnicsim: %s on %u nodes; firmware %s; link %.1f Gb/s; faults drop %.3g dup %.3g corrupt %.3g delay %.3g; seed %" PRIu64 "\n",
            o->workload, o->nodes, fw, (double)o->link_bpc * 0.2, o->drop, o->duplicate, o->corrupt, o->delay, o->seed);
    fprintf(f, "  result      %s%s%s\n", verdict(), w->failed ? ": " : "", w->failed ? w->fail_msg : "");
    fprintf(f, "  moved       %" PRIu64 " operations, %" PRIu64 " bytes; %" PRIu64 " bytes verified, %" PRIu64 " mismatches\n",
            w->ops, w->bytes, w->verify_bytes, w->verify_mismatch);
    fprintf(f, "  time        %.1f us measured (%.3f ms simulated in all, %" PRIu64 " cycles); wall %.1f s, %.2f M cycles/s\n",
            time_ns(w) / 1e3, (double)cs->cycles * 1e3 / (double)w->clock_hz, (uint64_t)cs->cycles, cs->wall_s,
            cs->wall_s > 0 ? (double)cs->cycles / cs->wall_s / 1e6 : 0);
    char lt[80];
    if (nl)
        fprintf(f, "  latency     per operation p50 %.0f ns, p99 %.0f ns; bandwidth %.1f MB/s%s\n",
                ns_cyc_to_ns(w, pctl(lat, nl, 50)), ns_cyc_to_ns(w, pctl(lat, nl, 99)), bw_mbps(w),
                strcmp(o->workload, "pingpong") ? limit_text(lt, sizeof lt, w, o->size_max, bw_mbps(w)) : "");
    for (unsigned i = 0; i < w->npts && !strcmp(o->workload, "pingpong"); i++)
        fprintf(f, "    %8" PRIu64 " B  one-way p50 %9.0f ns  p99 %9.0f ns  %8.1f MB/s%s\n", w->pts[i].size,
                w->pts[i].lat_p50_ns, w->pts[i].lat_p99_ns, w->pts[i].mbps,
                limit_text(lt, sizeof lt, w, w->pts[i].size, w->pts[i].mbps));
    if (!strcmp(o->workload, "reglimit"))
        fprintf(f, "  registered  %" PRIu64 " pages (%.1f MiB) at node 0; stopped by: %s\n", w->reg_pages,
                (double)w->reg_pages / 256.0, w->reg_error[0] ? w->reg_error : "the --ws-pages / 256-buffer cap");
    if (!strcmp(o->workload, "missratio") && w->npts)
        fprintf(f, "    miss ratio %.2f: one-way mean %.0f ns, %.1f MB/s%s\n", o->miss_ratio, w->pts[0].lat_mean_ns,
                w->pts[0].mbps, limit_text(lt, sizeof lt, w, w->pts[0].size, w->pts[0].mbps));
    fprintf(f, "  miss penalty %" PRIu64 " misses served; delay p50 %.1f us p99 %.1f us; processing p50 %.1f us p99 %.1f us\n",
            S.miss.count, ns_cyc_to_ns(w, (double)S.miss.delay_p50) / 1e3, ns_cyc_to_ns(w, (double)S.miss.delay_p99) / 1e3,
            ns_cyc_to_ns(w, (double)S.miss.proc_p50) / 1e3, ns_cyc_to_ns(w, (double)S.miss.proc_p99) / 1e3);
    fprintf(f, "  switch      %" PRIu64 " frames delivered; dropped: %" PRIu64 " by faults, %" PRIu64 " queue full, %" PRIu64
               " no slot; %" PRIu64 " duplicated, %" PRIu64 " corrupted, %" PRIu64 " delayed\n",
            S.sw.tx_frames, S.sw.fault_drop, S.sw.queue_drops, S.sw.slot_drops, S.sw.fault_duplicate, S.sw.fault_corrupt,
            S.sw.fault_delay);
    {
        uint64_t ovf = 0, nobuf = 0, crc = 0;
        for (unsigned i = 0; i < o->nodes; i++)
            ovf += w->node[i].mac.rx_overflow, nobuf += w->node[i].mac.rx_nobuf, crc += w->node[i].mac.rx_bad_crc;
        fprintf(f, "  MACs        frames dropped on receive: %" PRIu64 " RX FIFO overflow, %" PRIu64 " RX ring full, %" PRIu64
                   " bad CRC\n", ovf, nobuf, crc);
    }
    if (S.mem.ok)
        fprintf(f, "  NIC memory  code %" PRIu64 " B, packet buffers %" PRIu64 " B, lookup %" PRIu64 " B, queues %" PRIu64
                   " B, other %" PRIu64 " B\n",
                S.mem.code, S.mem.buffers, S.mem.lookup, S.mem.queues, S.mem.other);
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
    fprintf(f, "\n");
}

static void json_cache(FILE *f, const char *name, const struct nic_cache_stats *c, int last)
{
    fprintf(f,
            "\"%s\": {\"lookups\": %u, \"hits\": %u, \"misses\": %" PRIu64 ", \"cold_misses\": %u, \"cold_send\": %u, "
            "\"cold_recv\": %u, \"noncold_send\": %u, \"noncold_recv\": %u, \"evictions\": %u, \"invalidations\": %u, "
            "\"fills\": %u, \"fills_rejected\": %u}%s",
            name, c->lookups, c->hits, cmiss(c), c->miss_cold_send + c->miss_cold_recv, c->miss_cold_send,
            c->miss_cold_recv, c->miss_send, c->miss_recv, c->evictions, c->invalidations, c->fills, c->fills_rejected,
            last ? "" : ", ");
}

static int write_json(const char *path, const struct ns_world *w, const struct cluster_stats *cs, const uint64_t *lat,
                      uint64_t nl)
{
    const struct ns_opts *o = w->o;
    FILE *f = fopen(path, "w");
    char fw[96];
    if (!f) {
        fprintf(stderr, "nicsim: cannot write %s\n", path);
        return -1;
    }
    fw_desc(fw, sizeof fw);
    fprintf(f, "{\n  \"tool\": \"nicsim\",\n  \"result\": \"%s\",\n  \"error\": \"", verdict());
    for (const char *p = w->fail_msg; *p; p++)
        fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
    fprintf(f, "\",\n");
    fprintf(f,
            "  \"config\": {\"nodes\": %u, \"workload\": \"%s\", \"firmware\": \"%s\", \"image\": \"%s\", "
            "\"lookup\": \"%s\", \"cache\": {\"C\": %u, \"L\": %u, \"A\": %u}, \"nack\": %s, \"link_gbps\": %.3f, "
            "\"link_latency_cycles\": %" PRIu64 ", \"drop\": %g, \"duplicate\": %g, \"corrupt\": %g, \"delay\": %g, "
            "\"seed\": %" PRIu64 ", \"size_min\": %" PRIu64 ", \"size_max\": %" PRIu64 ", \"iters\": %u, \"window\": %u, "
            "\"op\": \"%s\", \"bidir\": %s, \"miss_ratio\": %g, \"ws_pages\": %" PRIu64 ", \"phases\": %u, "
            "\"compute_ns\": %" PRIu64 ", \"pin_hwm\": %" PRIu64 ", \"miss_threads\": %u, \"prefill\": %s},\n",
            o->nodes, o->workload, fw, S.img_path,
            S.have_info && !(S.info.caps & NIC_CAP_DYNAMIC_LOOKUP) ? "static" : "dynamic",
            S.have_info ? S.info.cache[0].entries : 0, S.have_info ? S.info.cache[0].line : 0,
            S.have_info ? S.info.cache[0].ways : 0, S.have_info && (S.info.caps & NIC_CAP_NACK) ? "true" : "false",
            (double)o->link_bpc * 0.2, o->link_latency, o->drop, o->duplicate, o->corrupt, o->delay, o->seed,
            o->size_min, o->size_max, o->iters, o->window, o->op_read ? "read" : "write", o->bidir ? "true" : "false",
            o->miss_ratio, o->ws_pages, o->phases, o->compute_ns, o->pin_hwm, o->miss_threads,
            o->prefill ? "true" : "false");
    uint64_t not_eval = 0; /* idle node-cycles the model was not evaluated (node_config.eval_all) */
    for (unsigned i = 0; i < o->nodes; i++)
        not_eval += node_status(cluster_node(w->cl, i))->cycles_not_evaluated;
    fprintf(f, "  \"sim\": {\"cycles\": %" PRIu64 ", \"wall_s\": %.3f, \"cycles_per_s\": %.0f, \"clock_hz\": %" PRIu64
               ", \"cycles_clocked\": %" PRIu64 ", \"skips\": %" PRIu64 ", \"node_cycles_not_evaluated\": %" PRIu64 "},\n",
            (uint64_t)cs->cycles, cs->wall_s, cs->wall_s > 0 ? (double)cs->cycles / cs->wall_s : 0, w->clock_hz,
            cs->cycles_clocked, cs->skips, not_eval);
    fprintf(f, "  \"workload\": {\"name\": \"%s\", \"ops\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"time_ns\": %.0f, "
               "\"latency_ns\": {\"p50\": %.0f, \"p99\": %.0f, \"samples\": %" PRIu64 "}, \"bandwidth_MBps\": %.2f, ",
            o->workload, w->ops, w->bytes, time_ns(w), ns_cyc_to_ns(w, pctl(lat, nl, 50)), ns_cyc_to_ns(w, pctl(lat, nl, 99)),
            nl, bw_mbps(w));
    if (!strcmp(o->workload, "pingpong"))
        fprintf(f, "\"limit_MBps\": null, \"pct_of_limit\": null"); /* per size: see the points */
    else
        json_limit(f, w, o->size_max, bw_mbps(w));
    fprintf(f, ", \"points\": [");
    for (unsigned i = 0; i < w->npts; i++) {
        fprintf(f, "%s{\"size\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"latency_ns\": {\"p50\": %.0f, \"p99\": %.0f, \"mean\": %.0f}, "
                   "\"bandwidth_MBps\": %.2f, ",
                i ? ", " : "", w->pts[i].size, w->pts[i].ops, w->pts[i].lat_p50_ns, w->pts[i].lat_p99_ns,
                w->pts[i].lat_mean_ns, w->pts[i].mbps);
        json_limit(f, w, w->pts[i].size, w->pts[i].mbps);
        fprintf(f, "}");
    }
    fprintf(f, "], \"steady_ns\": %.0f, \"registered_pages\": %" PRIu64 ", \"registration_error\": \"%s\"},\n",
            w->t_first && w->t1 > w->t_first ? ns_cyc_to_ns(w, (double)(w->t1 - w->t_first)) : 0.0, w->reg_pages,
            w->reg_error);
    fprintf(f, "  \"verify\": {\"bytes_checked\": %" PRIu64 ", \"mismatches\": %" PRIu64 ", \"oracle_violations\": %" PRIu64 "},\n",
            w->verify_bytes, w->verify_mismatch, S.violations);
    fprintf(f, "  \"miss_penalty_ns\": {\"count\": %" PRIu64 ", \"delay_p50\": %.0f, \"delay_p99\": %.0f, \"processing_p50\": %.0f, "
               "\"processing_p99\": %.0f, \"total_p50\": %.0f, \"total_p99\": %.0f},\n",
            S.miss.count, ns_cyc_to_ns(w, (double)S.miss.delay_p50), ns_cyc_to_ns(w, (double)S.miss.delay_p99),
            ns_cyc_to_ns(w, (double)S.miss.proc_p50), ns_cyc_to_ns(w, (double)S.miss.proc_p99),
            ns_cyc_to_ns(w, (double)S.miss.total_p50), ns_cyc_to_ns(w, (double)S.miss.total_p99));
    fprintf(f, "  \"switch\": {\"frames\": %" PRIu64 ", \"fault_drop\": %" PRIu64 ", \"queue_drops\": %" PRIu64
               ", \"slot_drops\": %" PRIu64 ", \"fault_duplicate\": %" PRIu64 ", \"fault_corrupt\": %" PRIu64
               ", \"fault_delay\": %" PRIu64 "},\n",
            S.sw.tx_frames, S.sw.fault_drop, S.sw.queue_drops, S.sw.slot_drops, S.sw.fault_duplicate, S.sw.fault_corrupt,
            S.sw.fault_delay);
    fprintf(f, "  \"nodes\": [\n");
    for (unsigned i = 0; i < o->nodes; i++) {
        const struct ns_node *n = &w->node[i];
        const struct nic_stats *s = &n->stats;
        fprintf(f, "    {\"id\": %u, \"lookup\": {", i);
        json_cache(f, "vmh", &s->cache[NIC_CACHE_VMH], 0);
        json_cache(f, "cbh", &s->cache[NIC_CACHE_CBH], 0);
        json_cache(f, "pch", &s->cache[NIC_CACHE_PCH], 1);
        fprintf(f, "},\n     \"transport\": {\"tx_packets\": %u, \"rx_packets\": %u, \"retransmits\": %u, \"timeouts\": %u, "
                   "\"nacks\": %u, \"nacks_received\": %u, \"drops_miss\": %u, \"drops_bad\": %u, \"dup_packets\": %u, "
                   "\"protection_errors\": %u},\n",
                s->tx_packets, s->rx_packets, s->retransmits, s->timeouts, s->nacks_sent, s->nacks_received,
                s->drops_miss, s->drops_bad, s->dup_packets, s->protection_errors);
        fprintf(f, "     \"mac\": {\"rx_ok\": %u, \"rx_bad_crc\": %u, \"rx_nobuf\": %u, \"rx_overflow\": %u, \"tx_ok\": %u},\n",
                n->mac.rx_ok, n->mac.rx_bad_crc, n->mac.rx_nobuf, n->mac.rx_overflow, n->mac.tx_ok);
        fprintf(f, "     \"nic_mem\": {\"code\": %" PRIu64 ", \"buffers\": %" PRIu64 ", \"lookup\": %" PRIu64 ", \"queues\": %" PRIu64
                   ", \"other\": %" PRIu64 ", \"total\": %" PRIu64 "},\n",
                S.mem.code, S.mem.buffers, S.mem.lookup, S.mem.queues, S.mem.other,
                S.mem.code + S.mem.buffers + S.mem.lookup + S.mem.queues + S.mem.other);
        fprintf(f, "     \"driver\": {\"misses\": %" PRIu64 ", \"misses_merged\": %" PRIu64 ", \"fills\": %" PRIu64
                   ", \"fills_rejected\": %" PRIu64 ", \"pins\": %" PRIu64 ", \"pinned_peak\": %" PRIu64 ", \"evictions\": %" PRIu64
                   ", \"static_loads\": %" PRIu64 ", \"prefills\": %" PRIu64 "},\n",
                n->dstats.misses, n->dstats.misses_merged, n->dstats.fills, n->dstats.fills_rejected, n->dstats.pins,
                n->dstats.pinned_peak, n->dstats.evictions, n->dstats.static_loads, n->dstats.prefills);
        fprintf(f, "     \"ops\": {\"posted\": %" PRIu64 ", \"completed\": %" PRIu64 ", \"errors\": %" PRIu64 "}}%s\n", n->posted,
                n->completed, n->errors, i + 1 < o->nodes ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) ? -1 : 0;
}

static int write_csv(const char *path, const struct ns_world *w, const uint64_t *lat, uint64_t nl)
{
    const struct ns_opts *o = w->o;
    FILE *f = fopen(path, "w");
    struct totals t;
    if (!f) {
        fprintf(stderr, "nicsim: cannot write %s\n", path);
        return -1;
    }
    sum_nodes(w, &t);
    fprintf(f, "workload,nodes,lookup,C,L,A,nack,drop,seed,miss_ratio,ws_pages,size,ops,bytes,time_ns,lat_p50_ns,lat_p99_ns,"
               "lat_mean_ns,bw_MBps,vmh_lookups,vmh_cold_send,vmh_cold_recv,vmh_noncold_send,vmh_noncold_recv,cbh_misses,"
               "pch_misses,retransmits,timeouts,nacks,drops_miss,miss_count,delay_p50_ns,proc_p50_ns,verify_bytes,"
               "mismatches,sim_cycles,result\n");
    unsigned rows = w->npts ? w->npts : 1;
    for (unsigned r = 0; r < rows; r++) {
        const struct ns_point *p = w->npts ? &w->pts[r] : NULL;
        int whole = !p || strcmp(o->workload, "pingpong");
        fprintf(f, "%s,%u,%s,%u,%u,%u,%d,%g,%" PRIu64 ",%g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%.0f,%.0f,%.0f,%.2f,",
                o->workload, o->nodes, S.have_info && !(S.info.caps & NIC_CAP_DYNAMIC_LOOKUP) ? "static" : "dynamic",
                S.have_info ? S.info.cache[0].entries : 0, S.have_info ? S.info.cache[0].line : 0,
                S.have_info ? S.info.cache[0].ways : 0, S.have_info && (S.info.caps & NIC_CAP_NACK) ? 1 : 0, o->drop,
                o->seed, o->miss_ratio, o->ws_pages, p ? p->size : o->size_max, whole ? w->ops : p->ops,
                whole ? w->bytes : p->bytes, time_ns(w),
                whole ? ns_cyc_to_ns(w, pctl(lat, nl, 50)) : p->lat_p50_ns,
                whole ? ns_cyc_to_ns(w, pctl(lat, nl, 99)) : p->lat_p99_ns,
                p ? p->lat_mean_ns : (nl ? ns_cyc_to_ns(w, pctl(lat, nl, 50)) : 0), p ? p->mbps : bw_mbps(w));
        fprintf(f, "%u,%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%.0f,%" PRIu64
                   ",%" PRIu64 ",%" PRIu64 ",%s\n",
                t.c[0].lookups, t.c[0].miss_cold_send, t.c[0].miss_cold_recv, t.c[0].miss_send, t.c[0].miss_recv,
                cmiss(&t.c[1]), cmiss(&t.c[2]), t.retx, t.timeouts, t.nacks_sent, t.drops_miss, S.miss.count,
                ns_cyc_to_ns(w, (double)S.miss.delay_p50), ns_cyc_to_ns(w, (double)S.miss.proc_p50), w->verify_bytes,
                w->verify_mismatch, (uint64_t)cluster_now(w->cl), verdict());
    }
    return fclose(f) ? -1 : 0;
}

/* ---- options ---- */
static int parse(int argc, char **argv, struct ns_opts *o)
{
    enum {
        O_NODES = 256, O_WL, O_SMIN, O_SMAX, O_SIZE, O_ITERS, O_WARM, O_WIN, O_OP, O_BIDIR, O_MR, O_WS, O_PH, O_CNS,
        O_LOOKUP, O_CACHE, O_NACK, O_FW, O_GBPS, O_LAT, O_DROP, O_DUP, O_CORR, O_DELAY, O_HC, O_HWM, O_SEED, O_MAXC,
        O_NOSKIP, O_FST, O_TN, O_JSON, O_CSV, O_PROG, O_NOPROG, O_QUIET, O_CONSOLE, O_MT, O_PREFILL, O_PCAP, O_EVENTS, O_HELP,
        O_EVALALL, O_PINHASH
    };
    static const struct option lo[] = {
        { "nodes", 1, 0, O_NODES },       { "workload", 1, 0, O_WL },      { "size-min", 1, 0, O_SMIN },
        { "size-max", 1, 0, O_SMAX },     { "size", 1, 0, O_SIZE },        { "iters", 1, 0, O_ITERS },
        { "warmup", 1, 0, O_WARM },       { "window", 1, 0, O_WIN },       { "op", 1, 0, O_OP },
        { "bidir", 0, 0, O_BIDIR },       { "miss-ratio", 1, 0, O_MR },    { "ws-pages", 1, 0, O_WS },
        { "phases", 1, 0, O_PH },         { "compute-ns", 1, 0, O_CNS },   { "lookup", 1, 0, O_LOOKUP },
        { "cache", 1, 0, O_CACHE },       { "nack", 1, 0, O_NACK },        { "fw", 1, 0, O_FW },
        { "link-gbps", 1, 0, O_GBPS },    { "link-latency", 1, 0, O_LAT }, { "drop", 1, 0, O_DROP },
        { "duplicate", 1, 0, O_DUP },     { "corrupt", 1, 0, O_CORR },     { "delay", 1, 0, O_DELAY },
        { "host-cost", 1, 0, O_HC },      { "pin-hwm", 1, 0, O_HWM },      { "seed", 1, 0, O_SEED },
        { "max-cycles", 1, 0, O_MAXC },   { "no-skip", 0, 0, O_NOSKIP },   { "fst", 1, 0, O_FST },
        { "trace-node", 1, 0, O_TN },     { "json", 1, 0, O_JSON },        { "csv", 1, 0, O_CSV },
        { "progress", 0, 0, O_PROG },     { "no-progress", 0, 0, O_NOPROG }, { "quiet", 0, 0, O_QUIET },
        { "console", 0, 0, O_CONSOLE },   { "miss-threads", 1, 0, O_MT }, { "prefill", 1, 0, O_PREFILL },
        { "pcap", 1, 0, O_PCAP },         { "events", 1, 0, O_EVENTS },    NODEDBG_LONG_OPTIONS,
        { "eval-all", 0, 0, O_EVALALL },  { "pin-hash", 0, 0, O_PINHASH },
        { "help", 0, 0, O_HELP },         { 0, 0, 0, 0 },
    };
    uint64_t v, smin = 0, smax = 0, iters = 0;
    int ws_set = 0;
    int c;

    memset(o, 0, sizeof *o);
    nodedbg_opts_default(&o->dbg);
    o->nodes = 4;
    o->workload = "fft";
    o->nack = 1;
    o->link_bpc = 50;
    o->link_latency = 100;
    o->seed = 1;
    o->max_cycles = 2000000000ull;
    o->progress = -1;
    o->warmup = 2;
    o->window = 8;
    o->miss_ratio = 0.5;
    o->ws_pages = 256;
    o->phases = 4;
    o->compute_ns = 200;
    o->miss_threads = 1;
    o->prefill = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case O_NODES:
            if (parse_u64(a, &v) || v < 2 || v > NS_MAX_NODES)
                return bad("--nodes", a, "2..16");
            o->nodes = (unsigned)v;
            break;
        case O_WL: {
            unsigned i;
            for (i = 0; i < NWL && strcmp(a, workloads[i]->name); i++)
                ;
            if (i == NWL)
                return bad("--workload", a, "pingpong, stream, missratio, fft, radix, lu, ocean, water or reglimit");
            o->workload = workloads[i]->name;
            break;
        }
        case O_SMIN:
        case O_SMAX:
        case O_SIZE:
            if (parse_u64(a, &v) || v < 1 || v > (64u << 20))
                return bad(c == O_SMIN ? "--size-min" : c == O_SMAX ? "--size-max" : "--size", a, "1..64M bytes");
            if (c != O_SMAX)
                smin = v;
            if (c != O_SMIN)
                smax = v;
            break;
        case O_ITERS:
            if (parse_u64(a, &iters) || iters < 1 || iters > 10000000)
                return bad("--iters", a, "1..10000000");
            break;
        case O_WARM:
            if (parse_u64(a, &v) || v > 1000)
                return bad("--warmup", a, "0..1000");
            o->warmup = (unsigned)v;
            break;
        case O_WIN:
            if (parse_u64(a, &v) || v < 1 || v > 256)
                return bad("--window", a, "1..256");
            o->window = (unsigned)v;
            break;
        case O_OP:
            if (strcmp(a, "write") && strcmp(a, "read"))
                return bad("--op", a, "write or read");
            o->op_read = !strcmp(a, "read");
            break;
        case O_BIDIR: o->bidir = 1; break;
        case O_MR:
            if (parse_prob(a, &o->miss_ratio))
                return bad("--miss-ratio", a, "a fraction 0..1");
            break;
        case O_WS:
            ws_set = 1;
            if (parse_u64(a, &o->ws_pages) || o->ws_pages < 16 || o->ws_pages > (1u << 20))
                return bad("--ws-pages", a, "16..1048576 pages");
            break;
        case O_PH:
            if (parse_u64(a, &v) || v < 1 || v > 100000)
                return bad("--phases", a, "1..100000");
            o->phases = (unsigned)v;
            break;
        case O_CNS:
            if (parse_u64(a, &o->compute_ns))
                return bad("--compute-ns", a, "ns, >= 0");
            break;
        case O_LOOKUP:
            if (strcmp(a, "dynamic") && strcmp(a, "static"))
                return bad("--lookup", a, "dynamic or static");
            o->lookup_static = !strcmp(a, "static");
            break;
        case O_CACHE: {
            unsigned cc, ll, aa;
            char tail;
            if (sscanf(a, "%u,%u,%u%c", &cc, &ll, &aa, &tail) != 3 || !cc || !ll || !aa || (cc & (cc - 1)) ||
                (ll & (ll - 1)) || (aa & (aa - 1)) || cc < ll * aa)
                return bad("--cache", a, "C,L,A: powers of two with C >= L*A, e.g. 16384,64,4");
            o->cache[0] = cc, o->cache[1] = ll, o->cache[2] = aa;
            break;
        }
        case O_NACK:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad("--nack", a, "on or off");
            o->nack = !strcmp(a, "on");
            break;
        case O_FW: o->fw = a; break;
        case O_GBPS:
            if (parse_u64(a, &v) || v < 1 || v > 200)
                return bad("--link-gbps", a, "1..200 (whole Gb/s)");
            o->link_bpc = (uint32_t)(v * 5); /* bits per cycle at 200 MHz */
            break;
        case O_LAT:
            if (parse_u64(a, &o->link_latency) || o->link_latency > 100000000)
                return bad("--link-latency", a, "cycles 0..100000000");
            break;
        case O_DROP: if (parse_prob(a, &o->drop)) return bad("--drop", a, "a probability 0..1"); break;
        case O_DUP: if (parse_prob(a, &o->duplicate)) return bad("--duplicate", a, "a probability 0..1"); break;
        case O_CORR: if (parse_prob(a, &o->corrupt)) return bad("--corrupt", a, "a probability 0..1"); break;
        case O_DELAY: if (parse_prob(a, &o->delay)) return bad("--delay", a, "a probability 0..1"); break;
        case O_HC: o->host_cost = a; break;
        case O_HWM:
            if (parse_u64(a, &o->pin_hwm) || o->pin_hwm < 16)
                return bad("--pin-hwm", a, "pages, >= 16");
            break;
        case O_SEED:
            if (parse_u64(a, &o->seed))
                return bad("--seed", a, "a non-negative integer");
            break;
        case O_MAXC:
            if (parse_u64(a, &o->max_cycles) || !o->max_cycles)
                return bad("--max-cycles", a, "a positive cycle count");
            break;
        case O_NOSKIP: o->no_skip = 1; break;
        case O_EVALALL: o->eval_all = 1; break;
        case O_PINHASH: o->pin_hash = 1; break;
        case O_FST: o->fst = a; break;
        case O_TN:
            if (parse_u64(a, &v) || v >= NS_MAX_NODES)
                return bad("--trace-node", a, "a node id");
            o->trace_node = (int)v;
            break;
        case O_JSON: o->json = a; break;
        case O_CSV: o->csv = a; break;
        case O_PROG: o->progress = 1; break;
        case O_NOPROG: o->progress = 0; break;
        case O_QUIET: o->quiet = 1; break;
        case O_CONSOLE: o->console = 1; break;
        case O_PCAP: o->pcap = a; break;
        case O_EVENTS: o->events = a; break;
        case O_PREFILL:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad("--prefill", a, "on or off");
            o->prefill = !strcmp(a, "on");
            break;
        case O_MT:
            if (parse_u64(a, &v) || v < 1 || v > NICDRV_MAX_MISS_THREADS)
                return bad("--miss-threads", a, "1..16");
            o->miss_threads = (unsigned)v;
            break;
        case O_HELP:
        case 'h': usage(stdout); exit(0);
        default: {
            int k = nodedbg_option(&o->dbg, c, a, "nicsim", stderr);
            if (k == 1)
                break;
            if (k == 0)
                fprintf(stderr, "nicsim: unknown option or missing value: %s (nicsim --help)\n", argv[optind - 1]);
            return EXIT_SETUP;
        }
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nicsim: unexpected argument '%s' (nicsim --help)\n", argv[optind]);
        return EXIT_SETUP;
    }
    /* per-workload defaults */
    int pp = !strcmp(o->workload, "pingpong"), st = !strcmp(o->workload, "stream"), mr = !strcmp(o->workload, "missratio");
    int rl = !strcmp(o->workload, "reglimit");
    o->size_min = smin ? smin : pp ? 8 : st ? 65536 : 4096;
    o->size_max = smax ? smax : pp ? (smin > (1u << 20) ? smin : 1u << 20) : st ? 65536 : rl ? (2u << 20) : 4096;
    if (rl && !ws_set)
        o->ws_pages = 65536; /* 256 MiB */
    if (!smin && smax && !pp)
        o->size_min = smax;
    o->iters = (unsigned)(iters ? iters : st ? 200 : mr ? 40 : 20);
    if (o->trace_node >= (int)o->nodes) {
        fprintf(stderr, "nicsim: --trace-node %d but only %u nodes\n", o->trace_node, o->nodes);
        return EXIT_SETUP;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct ns_opts *o = &S.o;
    struct ns_world *w = &S.w;
    struct cluster_config cc;
    const struct ns_workload *wl = NULL;
    char err[200];
    int rc;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((rc = parse(argc, argv, o)))
        return rc;
    if (o->fst && !nic_model_traced()) {
        sim_exec_twin("nicsim", "nicsim-trace", "--fst", argv); /* returns only on failure */
        return EXIT_SETUP;
    }
    for (unsigned i = 0; i < NWL; i++)
        if (!strcmp(workloads[i]->name, o->workload))
            wl = workloads[i];
    if (o->nodes < wl->min_nodes || o->nodes > wl->max_nodes) {
        fprintf(stderr, "nicsim: %s needs %u..%u nodes\n", wl->name, wl->min_nodes, wl->max_nodes);
        return EXIT_SETUP;
    }
    if (wl->check(o, err, sizeof err)) {
        fprintf(stderr, "nicsim: %s\n", err);
        return EXIT_SETUP;
    }
    if (pick_image(o, S.img_path, sizeof S.img_path))
        return EXIT_SETUP;
    if (!(S.img = read_all(S.img_path, &S.img_len))) {
        fprintf(stderr, "nicsim: cannot read %s\n", S.img_path);
        return EXIT_SETUP;
    }
    read_mem(S.img_path, &S.mem);

    memset(w, 0, sizeof *w);
    w->o = o;
    w->wl = wl;
    w->lat = calloc(NS_LAT_MAX, sizeof *w->lat);
    coro_event_init(&w->bar_ev);
    w->costs = costs_create(0, o->seed);
    if (!w->lat || !w->costs)
        return EXIT_SETUP;
    if (o->host_cost && costs_set_list(w->costs, o->host_cost)) {
        fprintf(stderr, "nicsim: --host-cost: %s\n", costs_error(w->costs));
        return EXIT_SETUP;
    }
    w->clock_hz = costs_clock_hz(w->costs);
    cluster_config_default(&cc, o->nodes);
    cc.sw.port.bits_per_cycle = o->link_bpc;
    cc.sw.port.latency = o->link_latency;
    cc.sw.faults.drop = o->drop;
    cc.sw.faults.duplicate = o->duplicate;
    cc.sw.faults.corrupt = o->corrupt;
    cc.sw.faults.delay = o->delay;
    cc.seed = o->seed;
    cc.console = o->console ? stderr : NULL; /* firmware console lines ("[node N] ...") */
    cc.skip_idle = !o->no_skip;
    cc.node.eval_all = o->eval_all != 0;
    cc.node.pin_hash = o->pin_hash != 0;
    w->cl = cluster_create(&cc, w->costs);
    if (!w->cl) {
        fprintf(stderr, "nicsim: cannot create the cluster (bad link or fault settings?)\n");
        return EXIT_SETUP;
    }
    w->img_path = S.img_path;
    if (o->pcap && !(S.pcap = pcap_cap_open(o->pcap, NULL, w->clock_hz))) {
        fprintf(stderr, "nicsim: --pcap %s: %s\n", o->pcap, strerror(errno));
        return EXIT_SETUP;
    }
    if (o->events && !(S.ev = evlog_open(o->events, w->clock_hz))) {
        fprintf(stderr, "nicsim: --events %s: %s\n", o->events, strerror(errno));
        return EXIT_SETUP;
    }
    if (S.pcap || S.ev)
        switch_set_tap(cluster_switch(w->cl), wire_tap, NULL);
    nodedbg_t *dbg = nodedbg_attach(&o->dbg, w->cl, (unsigned)o->trace_node, S.img_path, "nicsim", stderr);
    if (!dbg)
        return EXIT_SETUP;
    if (o->fst && node_trace_open(cluster_node(w->cl, (unsigned)o->trace_node), o->fst)) {
        fprintf(stderr, "nicsim: cannot open %s\n", o->fst);
        return EXIT_SETUP;
    }
    for (unsigned i = 0; i < o->nodes; i++) {
        struct nicdrv_config dc;
        struct ns_node *n = &w->node[i];
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = (uint16_t)o->nodes;
        if (o->pin_hwm)
            dc.pin_hwm_pages = o->pin_hwm;
        dc.miss_threads = o->miss_threads;
        dc.prefill = o->prefill != 0;
        if (S.ev) {
            dc.observe = drv_observe;
            dc.observe_ctx = n;
        }
        n->w = w;
        n->id = i;
        n->os = node_os(cluster_node(w->cl, i));
        n->hs = hostsw_create(w->cl, i, w->costs, &dc);
        if (!n->hs) {
            fprintf(stderr, "nicsim: cannot create node %u's host software\n", i);
            return EXIT_SETUP;
        }
        n->drv = hostsw_driver(n->hs);
        node_set_reset(cluster_node(w->cl, i), false);
        if (coro_spawn(cluster_sched(w->cl), "user", node_prog, n, NULL))
            return EXIT_SETUP;
    }
    int prog = o->progress < 0 ? isatty(2) : o->progress;
    if (prog)
        cluster_set_progress_note(w->cl, note_fn, w);
    rc = cluster_run(w->cl, o->max_cycles, stop_fn, w, prog ? stderr : NULL);
    w->stopping = 1;
    if (ns_check_halt(w)) { /* the explanation first; what followed from the halt is not repeated */
        for (unsigned i = 0; i < o->nodes; i++)
            if (node_status(cluster_node(w->cl, i))->halted)
                fwdiag_explain(stderr, "nicsim", cluster_node(w->cl, i), S.img_path);
        if (w->suppressed)
            fprintf(stderr, "nicsim: %" PRIu64 " later error%s suppressed (consequences of the halt)\n", w->suppressed,
                    w->suppressed == 1 ? "" : "s");
    }
    switch_set_tap(cluster_switch(w->cl), NULL, NULL);
    if (S.ev) {
        uint64_t nl = evlog_lines(S.ev);
        if (evlog_close(S.ev)) {
            fprintf(stderr, "nicsim: --events %s: write failed: the log is incomplete\n", o->events);
            S.pcap_bad = 1;
        } else if (!o->quiet) {
            fprintf(stderr, "nicsim: %" PRIu64 " events logged to %s\n", nl, o->events);
        }
        S.ev = NULL;
    }
    if (S.pcap) {
        uint64_t nf = pcap_cap_frames(S.pcap);
        if (pcap_cap_close(S.pcap)) {
            fprintf(stderr, "nicsim: --pcap %s: write failed: the capture is incomplete\n", o->pcap);
            S.pcap_bad = 1;
        } else if (!o->quiet) {
            fprintf(stderr, "nicsim: %" PRIu64 " frames captured to %s\n", nf, o->pcap);
        }
        S.pcap = NULL;
    }
    S.rc = w->failed ? EXIT_FAIL : rc ? EXIT_TIMEOUT : EXIT_PASS;
    if (rc && !w->failed)
        snprintf(w->fail_msg, sizeof w->fail_msg, "--max-cycles %" PRIu64 " reached before the workload finished",
                 o->max_cycles);
    for (unsigned i = 0; i < o->nodes; i++)
        S.violations += hostmem_counters(node_hostmem(cluster_node(w->cl, i)))->violations;
    if (S.violations && S.rc == EXIT_PASS) {
        S.rc = EXIT_FAIL;
        snprintf(w->fail_msg, sizeof w->fail_msg, "%" PRIu64 " unpinned-DMA oracle violations", S.violations);
    }
    if (S.rc == EXIT_PASS && w->verify_bytes == 0 && w->ops) {
        S.rc = EXIT_FAIL;
        snprintf(w->fail_msg, sizeof w->fail_msg, "nothing was verified");
    }
    costs_stats(w->costs, &S.miss);
    switch_totals(cluster_switch(w->cl), &S.sw);
    uint64_t nl = w->nlat;
    qsort(w->lat, nl, sizeof *w->lat, cmp_u64);
    const struct cluster_stats *cs = cluster_stats(w->cl);
    if (!o->quiet)
        summary(stdout, w, cs, w->lat, nl);
    if (o->pin_hash) { /* every output pin of every node, every cycle (node_config.pin_hash) */
        uint64_t h = 0, not_eval = 0;
        for (unsigned i = 0; i < o->nodes; i++) {
            h = (h ^ node_status(cluster_node(w->cl, i))->pin_hash) * 0x100000001B3ull + i;
            not_eval += node_status(cluster_node(w->cl, i))->cycles_not_evaluated;
        }
        printf("nicsim: pin hash %016" PRIx64 " (every output pin of every node, every cycle to %" PRIu64
               "; %" PRIu64 " idle node-cycles not evaluated)\n",
               h, (uint64_t)cs->cycles, not_eval);
    }
    if (S.pcap_bad)
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    if (o->json && write_json(o->json, w, cs, w->lat, nl))
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    if (o->csv && write_csv(o->csv, w, w->lat, nl))
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    if (S.rc != EXIT_PASS)
        fprintf(stderr, "nicsim: %s: %s\n", verdict(), w->fail_msg);
    if (nodedbg_finish(dbg, S.rc)) {
        fprintf(stderr, "nicsim: --trace-insn: write failed: the trace is incomplete\n");
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    }
    for (unsigned i = 0; i < o->nodes; i++)
        hostsw_destroy(w->node[i].hs);
    cluster_destroy(w->cl);
    costs_destroy(w->costs);
    free(w->lat);
    free(S.img);
    return S.rc;
}
