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
#include "report.h"
#include "sim_exec.h"

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_TIMEOUT = 2, EXIT_SETUP = 3 };

/* The build's own configuration of build/fw (cmake/FirmwareOptions.cmake, passed in by
 * sim/nicsim/CMakeLists.txt): the geometry the default and --nack off images must have. */
#ifndef NS_BUILD_CACHE_C
#error "NS_BUILD_CACHE_C/L/A: the build's cache geometry (sim/nicsim/CMakeLists.txt)"
#endif

static const struct ns_workload *const workloads[] = {
    &ns_wl_pingpong, &ns_wl_stream, &ns_wl_missratio, &ns_wl_fft,
    &ns_wl_radix,    &ns_wl_lu,     &ns_wl_ocean,     &ns_wl_water, &ns_wl_reglimit, &ns_wl_incast,
};
#define NWL (sizeof workloads / sizeof workloads[0])

/* ---- the run ---- */

struct sim {
    struct ns_opts o;
    struct ns_world w;
    char img_path[PATH_MAX];
    uint8_t *img;
    size_t img_len;
    struct ns_mem_cats mem;
    struct nic_info info;
    int have_info;
    struct costs_stats miss;
    struct switch_port_counters sw;
    uint64_t violations;
    dist_t *dist; /* the ranks (one local process without mpirun) */
    pcap_cap_t *pcap;
    evlog_t *ev;
    int pcap_bad;
    uint16_t rank_of[CLUSTER_MAX_NODES]; /* --rank-map: node -> MPI rank */
    int rc;
    FILE *json, *csv;  /* opened before the run */
    int mismatch;      /* the firmware's handshake differs from what was asked (exit 3) */
};

static struct sim S;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: nicsim [options]\n"
            "Cycle-level simulation of a cluster of NICs running the NCP firmware, hosts running the driver\n"
            "and a workload. Every byte moved is verified. Exit: 0 pass, 1 fail, 2 --max-cycles, 3 bad options\n"
            "or set-up (a bad image, a firmware that does not match the options, an output file that cannot\n"
            "be opened); SIGINT/SIGTERM stop the run with 128 + the signal and partial reports.\n"
            "\n"
            "Cluster and workload:\n"
            "  --nodes N            nodes on the switch, 1..%u (default 4; 1: fft, radix, lu, ocean and water,\n"
            "                       which then move no data: a node's own share stays local, so the time is\n"
            "                       the modelled computation); the firmware's own limit\n"
            "                       (max_peers, NCP_MAX_PEERS, 256 by default) applies: a larger cluster\n"
            "                       stops with an error. Peer contexts beyond the NCP's resident ones\n"
            "                       (NCP_PEER_SLOTS, 64) live in a host table the driver gives it\n"
            "  --peer-slots N       peer contexts the NCP keeps resident in NIC SRAM (1..its NCP_PEER_SLOTS;\n"
            "                       default 0: all): fewer makes it fill and evict with a small cluster\n"
            "  --procs P            user processes per node (default 1), each its own pid, endpoint and\n"
            "                       registrations, sharing the node's NIC and its caches; the workload's\n"
            "                       ranks are nodes x P, rank r on node r %% nodes (at most the NIC's user\n"
            "                       endpoints: its max_procs - 1)\n"
            "  --workload W         one of the list below (default fft)\n"
            "  --size-min B         pingpong: smallest message (default 8)\n"
            "  --size-max B         pingpong: largest message; stream/incast/missratio: the message size\n"
            "                       (default 1048576 for pingpong, 65536 stream and incast, 4096 missratio)\n"
            "  --size B             sets --size-min and --size-max\n"
            "  --iters N            measured operations per size / per run (default 20; stream 200)\n"
            "  --warmup N           unmeasured rounds first (pingpong, missratio; default 2)\n"
            "  --window N           requests outstanding per node (stream, patterns; default 8)\n"
            "  --op write|read      stream: RDMA write or RDMA read (default write)\n"
            "  --bidir              stream: both directions at once\n"
            "  --cq-mod N           stream: only every N-th request (and the last) asks for a completion\n"
            "                       (perftest's CQ moderation; 1..--window, default 1: every one); one\n"
            "                       completion retires it and every earlier request (they retire in order)\n"
            "  --inline on|off      the library sends writes of at most 24 bytes inline, their data in the\n"
            "                       send queue entry (ABI 2.4; default on; off: by DMA, as larger ones)\n"
            "  --cut-through on|off the MACs' cut-through strap (docs/nic.md \"Cut-through\"; default on:\n"
            "                       a data frame starts while its payload's DMA still runs, as the firmware\n"
            "                       asks; off: every one waits for its DMA's completion)\n"
            "  --senders N          incast: senders to node 0, nodes 1..N (default: every other node;\n"
            "                       --size-max, --iters, --window as stream's, per sender)\n"
            "  --miss-ratio F       missratio: fraction of pings that miss at node 1 (default 0.5)\n"
            "  --ws-pages N         patterns: working set per node, pages (default 256)\n"
            "  --phases N           patterns: phases (default 4)\n"
            "  --compute-ns NS      patterns: host compute per working-set page per phase (default 200)\n"
            "\n"
            "Firmware:\n"
            "  --lookup dynamic|static  software caches (default) or the seed's static tables\n"
            "  --cache C,L,A        cache geometry variant from build/fwvar (default: the build's own,\n"
            "                       C%u L%u A%u); `cmake --build build --target fw-grid` builds them\n"
            "  --nack on|off        receive-miss NACKs (default on) or seed-faithful timeouts\n"
            "  --fw IMAGE           an explicit flash image (instead of the three above, which are then\n"
            "                       only checked against its handshake when given)\n"
            "  The firmware's handshake must match: lookup, NACKs and geometry (else exit 3).\n"
            "\n"
            "Link and faults:\n"
            "  --link-gbps G        link rate at the 200 MHz nominal clock (default 10): the switch's\n"
            "                       ports and every NIC's PHY, which its MAC transmits at (20 bytes of\n"
            "                       preamble and gap per frame; the 64-bit MAC carries <= 12.8 Gb/s)\n"
            "  --link-latency CYC   switch + cable: cycles from a frame's first bit leaving the\n"
            "                       switch port to its arrival at the NIC (default 100)\n"
            "  --pcie-read-latency CYC  a NIC's DMA read of host memory: request -> first data, beyond\n"
            "                       the link's serialisation (default 120: 600 ns; docs/models.md)\n"
            "  --drop P --duplicate P --corrupt P --delay P   fault rates per frame (default 0)\n"
            "\n"
            "Host:\n"
            "  --host-cost K=V,...  cost model overrides (docs/models.md: irq_ns, wake_min_ns, ...)\n"
            "  --pin-hwm PAGES      driver high-water mark on pinned pages (default 4096)\n"
            "  --miss-threads N     driver miss threads per node (default 1, the seed's single thread)\n"
            "  --mem-pressure CYC   OS memory pressure: every CYC cycles each host migrates or reclaims 2\n"
            "                       pages, pinned ones too (the driver's MMU notifier invalidates the NIC's\n"
            "                       line and unpins first; default off)\n"
            "  --prefill on|off     driver installs a process's PCH line at endpoint open and a buffer's\n"
            "                       CBH line at registration (default on; off: on demand, as the seed)\n"
            "  --prefetch N         prefetch on a miss: a VMH miss asks the driver for up to N lines, to\n"
            "                       the end of its message (0..64; default 0: one line, the seed)\n"
            "  --pin-mode M         on-miss (default: pages pinned when a miss is served, the seed),\n"
            "                       at-reg (registration pins and fills every line before it returns),\n"
            "                       overlap (registration pins and fills the buffer's first line, the\n"
            "                       driver the rest in the background; packets ahead of it miss,\n"
            "                       counted), overlap-async (registration returns at once, seed 004)\n"
            "  --evict P            the driver's victim at the pin high-water mark: lrf (default: least\n"
            "                       recently filled, the driver's own record), lru (least recently used\n"
            "                       on the NIC: its LRU stamps, NIC_CMD_USAGE, before each eviction) or\n"
            "                       lfu (least frequently used on the NIC: its access counts)\n"
            "  --sr on|off          the NCPs' transport: selective repeat (out-of-order receive, SACKs,\n"
            "                       only missing packets resent) or go-back-N (default off)\n"            "  --bootstrap B        how processes publish their buffers' handles and keys: directory\n"
            "                       (default: out of band, zero cost) or nic (message-queue sends to\n"
            "                       every other process at each barrier, in simulated time; at most 7\n"
            "                       processes per node; docs/nicsim.md \"Bootstrap\")\n"
            "\n"
            "Transport (issue 14; docs/wire-protocol.md \"Flow and congestion control\"):\n"
            "  --flow on|off        receiver credits: no receiver is overrun by a sender (default off)\n"
            "  --cc on|off          congestion control: the switch marks, receivers echo, each\n"
            "                       connection keeps an AIMD window (default off)\n"
            "  --ecn-kb K           switch marks frames queued above K KiB (default 16 with --cc on,\n"
            "                       else 0: no marking)\n"
            "  --queue-kb K         switch output queue per port, KiB (default 64)\n"
            "  --pause on|off       link pause: a receiving MAC whose ring is nearly full stops its\n"
            "                       switch port (802.3x-style; no frame lost at a NIC's ring; the\n"
            "                       switch's queue holds them; default off)\n"
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
            "  --breakdown          pingpong: where the time of each one-way write goes, step by step\n"
            "                       (doorbell, entry fetch, firmware by function, DMA, MAC, switch,\n"
            "                       placement, ACK, completion, poll), medians per size; sizes up to\n"
            "                       4096 (default 8..4096); the run is bit-identical without it\n"
            "                       (docs/nicsim.md \"Latency breakdown\")\n"
            "  --mpi-timeout S      under mpirun: seconds a rank waits for the others at a quantum\n"
            "                       boundary before it aborts the run (default 120)\n"
            "  --rank-map MAP       under mpirun -np K: which rank simulates which node: interleave\n"
            "                       (node i on rank i mod K, the default), block (contiguous blocks)\n"
            "                       or a list of --nodes ranks (node 0 on rank 0, every rank a node);\n"
            "                       the report is the same for every map\n"
            "  --help\n"
            "\nRanks: mpirun -np K nicsim ... spreads the nodes over K ranks (K <= --nodes); every\n"
            "simulated figure is the same for any K (docs/simulation-speed.md \"Ranks\").\n"
            "\nWorkloads:\n",
            NS_MAX_NODES, NS_BUILD_CACHE_C, NS_BUILD_CACHE_L, NS_BUILD_CACHE_A);
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
        /* not in a build tree: an installed one (cmake/Install.cmake), PREFIX/share/nic/... */
        if (access(path, R_OK)) {
            char rel[64];
            snprintf(rel, sizeof rel, "%.63s", path + strlen(dir) + 4); /* after "DIR/../" */
            snprintf(path, n, "%s/../share/nic/%s", dir, rel);
            if (access(path, R_OK)) /* report the build tree's path */
                snprintf(path, n, "%s/../%s", dir, rel);
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
static void read_mem(const char *img, struct ns_mem_cats *m)
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

/* What the options asked of the firmware against what its handshake says (nic_info: caps
 * DYNAMIC_LOOKUP and NACK, the VMH geometry). With --fw only the options given are checked.
 * 0, or -1 with the difference in msg. */
static int check_handshake(const struct ns_opts *o, const struct nic_info *fi, char *msg, size_t n)
{
    int is_static = !(fi->caps & NIC_CAP_DYNAMIC_LOOKUP), has_nack = (fi->caps & NIC_CAP_NACK) != 0;
    const struct nic_cache_geom *g = &fi->cache[NIC_CACHE_VMH];
    unsigned want[3] = { o->cache[0], o->cache[1], o->cache[2] };
    if ((!o->fw || o->lookup_set) && is_static != o->lookup_static) {
        snprintf(msg, n, "its lookup is %s, --lookup %s was asked%s", is_static ? "static" : "dynamic",
                 o->lookup_static ? "static" : "dynamic", o->lookup_set ? "" : " (the default)");
        return -1;
    }
    if (((!o->fw && !o->lookup_static) || o->nack_set) && has_nack != o->nack) {
        snprintf(msg, n, "it %s receive-miss NACKs, --nack %s was asked%s", has_nack ? "sends" : "does not send",
                 o->nack ? "on" : "off", o->nack_set ? "" : " (the default)");
        return -1;
    }
    if (!o->cache_set && !o->fw && !o->lookup_static)
        want[0] = NS_BUILD_CACHE_C, want[1] = NS_BUILD_CACHE_L, want[2] = NS_BUILD_CACHE_A;
    if (want[0] && !is_static && (g->entries != want[0] || g->line != want[1] || g->ways != want[2])) {
        snprintf(msg, n, "its VMH cache is C%u L%u A%u, %s C%u L%u A%u", g->entries, g->line, g->ways,
                 o->cache_set ? "--cache asked" : "the build's geometry is", want[0], want[1], want[2]);
        return -1;
    }
    return 0;
}

static void node_prog(void *arg)
{
    struct ns_node *n = arg;
    struct ns_world *w = n->w;
    struct ns_node *first = &w->node[n->nid]; /* the node's first process: its driver's owner */
    char err[200] = "";
    int rc;

    if (n->lp) { /* another process of the node: after the first one's probe */
        while (!first->probe)
            coro_sleep(1000);
        if (first->probe < 0)
            goto out;
        goto open;
    }
    rc = nicdrv_probe(n->drv, S.img, S.img_len, err, sizeof err);
    if (rc) {
        unsigned peers = nicdrv_fw_info(n->drv)->max_peers;
        if (peers && w->o->nodes > peers) { /* INIT refused: a setup error (exit 3), say why */
            S.mismatch = 1;
            ns_fail(n, "the firmware supports at most %u nodes (its max_peers: NCP_MAX_PEERS, "
                       "firmware/include/ncp_config.h.in); --nodes %u needs a firmware built with more",
                    peers, w->o->nodes);
        } else
            ns_fail(n, "probe: %s: %s", nicdrv_strerror(rc), err);
        goto out;
    }
    if (n->id == 0) {
        S.info = *nicdrv_fw_info(n->drv);
        S.have_info = 1;
    }
    {
        char why[160];
        if (check_handshake(w->o, nicdrv_fw_info(n->drv), why, sizeof why)) {
            S.mismatch = 1;
            ns_fail(n, "firmware %s does not match the options: %s (rebuild with `scripts/build`, or pick the "
                       "image with --lookup/--nack/--cache/--fw)", S.img_path, why);
            goto out;
        }
    }
    {   /* every process needs an endpoint of its own: endpoint 0 is the driver's */
        unsigned eps = nicdrv_fw_info(n->drv)->max_procs ? nicdrv_fw_info(n->drv)->max_procs - 1u : 0;
        if (w->o->procs > eps) {
            S.mismatch = 1; /* a set-up error: exit 3 */
            ns_fail(n, "--procs %u: the NIC serves at most %u user endpoints per node (its max_procs %u less the "
                       "driver's endpoint 0)", w->o->procs, eps, nicdrv_fw_info(n->drv)->max_procs);
            goto out;
        }
    }
    n->probe = 1;
open:
    if (os_proc_create(n->os, 48, &n->pid) != SIM_OK) {
        ns_fail(n, "cannot create the user process");
        goto out;
    }
    struct nic_dev_attr attr = { .no_inline = w->o->no_inline };
    if ((rc = nic_dev_open(n->drv, n->pid, &attr, &n->dev)) || (rc = nic_ep_open(n->dev, &n->ep)) ||
        (w->o->boot_nic && (rc = ns_boot_eq(n)))) {
        ns_fail(n, "open: %s", nic_strerror(rc));
        goto out;
    }
    if (w->o->boot_nic && ns_boot_open(n))
        goto out;
    n->ok = 1;
    w->wl->run(n);
    ns_barrier(n); /* every node finished: nothing in flight any more */
    if (n->lp)
        goto close;
    if ((rc = nicdrv_nic_stats(n->drv, &n->stats)))
        ns_fail(n, "NIC statistics: %s", nicdrv_strerror(rc));
    {   /* the MAC's counters, through BAR0 as a driver would read them */
        const struct nicdrv_bus *bus = nicdrv_bus_of(n->drv);
        static const uint32_t reg[6] = { NIC_MAC_RX_OK, NIC_MAC_RX_BAD_CRC, NIC_MAC_RX_NOBUF, NIC_MAC_RX_OVERFLOW,
                                         NIC_MAC_TX_OK, NIC_MAC_TX_UNDERRUNS };
        uint32_t *dst[6] = { &n->mac.rx_ok, &n->mac.rx_bad_crc, &n->mac.rx_nobuf, &n->mac.rx_overflow, &n->mac.tx_ok,
                             &n->mac.tx_underruns };
        for (unsigned k = 0; k < 6; k++)
            if (bus->rd32(bus->ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + reg[k], dst[k]))
                ns_fail(n, "cannot read the MAC's counters");
    }
close:
    ns_barrier(n);
    if ((rc = nic_dev_close(n->dev)))
        ns_fail(n, "close: %s", nic_strerror(rc));
    n->dev = NULL;
    if (w->o->procs == 1)
        nicdrv_stats(n->drv, &n->dstats);
    ns_barrier(n); /* nobody removes its NIC while a peer may still talk to it */
    if (n->lp)
        goto done;
    if (w->o->procs > 1)
        nicdrv_stats(n->drv, &n->dstats); /* after every process of the node closed */
out:
    if (n->lp) {
        first->probe = first->probe ? first->probe : -1;
        goto done;
    }
    if (!n->probe)
        n->probe = -1; /* the node's other processes give up */
    nicdrv_remove(n->drv);
    n->pinned_after_close = os_pinned_pages_total(n->os);
    if (n->pinned_after_close)
        ns_fail(n, "%" PRIu64 " pages still pinned after close and remove", n->pinned_after_close);
done:
    ns_done(n);
}

/* --mem-pressure: the node's OS moves and reclaims pages every period, from a kernel thread (the
 * driver's MMU notifier blocks in it while the NIC answers the INVALIDATE). Runs until the run
 * stops (after the programs end nothing is pinned: the hook is then never asked). */
static void kswapd(void *arg)
{
    struct ns_node *n = arg;
    for (;;) {
        sim_cycle_t t = os_pressure_next_event(n->os), now = coro_now();
        coro_sleep(t > now ? t - now : 1);
        os_pressure_step(n->os, coro_now());
    }
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
    /* Asked at quantum boundaries (ns_dist.c). A halted NCP is a failure like any other: the
     * programs skip to their end (their commands to the halted NIC time out, so the drivers
     * release their locks and can be removed), and what fails on the way is counted as
     * suppressed, not printed. */
    return w->done == w->o->ranks || (w->failed && cluster_now(c) > w->fail_at + NS_FAIL_GRACE) || report_signal;
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

/* ---- options ---- */
static int parse(int argc, char **argv, struct ns_opts *o)
{
    enum {
        O_NODES = 256, O_WL, O_SMIN, O_SMAX, O_SIZE, O_ITERS, O_WARM, O_WIN, O_OP, O_BIDIR, O_MR, O_WS, O_PH, O_CNS,
        O_LOOKUP, O_CACHE, O_NACK, O_FW, O_GBPS, O_LAT, O_DROP, O_DUP, O_CORR, O_DELAY, O_HC, O_HWM, O_SEED, O_MAXC,
        O_NOSKIP, O_FST, O_TN, O_JSON, O_CSV, O_PROG, O_NOPROG, O_QUIET, O_CONSOLE, O_MT, O_PREFILL, O_PF, O_PINMODE, O_EVICT, O_PCAP, O_EVENTS, O_MPIT, O_RMAP, O_HELP,
        O_EVALALL, O_PINHASH, O_PROCS, O_MEMP, O_FLOW, O_CC, O_ECN, O_QKB, O_SENDERS, O_SR, O_BD, O_BOOT, O_PSLOTS, O_CQMOD,
        O_PAUSE, O_INLINE, O_CT, O_PCIERD
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
        { "prefetch", 1, 0, O_PF },       { "pin-mode", 1, 0, O_PINMODE }, { "evict", 1, 0, O_EVICT },
        { "pcap", 1, 0, O_PCAP },         { "events", 1, 0, O_EVENTS },    { "mpi-timeout", 1, 0, O_MPIT },
        { "rank-map", 1, 0, O_RMAP },
        NODEDBG_LONG_OPTIONS,
        { "procs", 1, 0, O_PROCS },       { "mem-pressure", 1, 0, O_MEMP },
        { "eval-all", 0, 0, O_EVALALL },  { "pin-hash", 0, 0, O_PINHASH },
        { "flow", 1, 0, O_FLOW },         { "cc", 1, 0, O_CC },            { "ecn-kb", 1, 0, O_ECN },
        { "queue-kb", 1, 0, O_QKB },      { "senders", 1, 0, O_SENDERS },  { "sr", 1, 0, O_SR },
        { "breakdown", 0, 0, O_BD },      { "bootstrap", 1, 0, O_BOOT },
        { "peer-slots", 1, 0, O_PSLOTS }, { "cq-mod", 1, 0, O_CQMOD },   { "pause", 1, 0, O_PAUSE }, { "inline", 1, 0, O_INLINE },
        { "cut-through", 1, 0, O_CT },    { "pcie-read-latency", 1, 0, O_PCIERD },
        { "help", 0, 0, O_HELP },         { 0, 0, 0, 0 },
    };
    uint64_t v, smin = 0, smax = 0, iters = 0;
    int ws_set = 0;
    int c;

    memset(o, 0, sizeof *o);
    nodedbg_opts_default(&o->dbg);
    o->nodes = 4;
    o->procs = 1;
    o->workload = "fft";
    o->nack = 1;
    o->link_bpc = 50;
    o->link_latency = 100;
    o->seed = 1;
    o->max_cycles = 2000000000ull;
    o->progress = -1;
    o->warmup = 2;
    o->window = 8;
    o->cq_mod = 1;
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
            if (parse_u64(a, &v) || v < 1 || v > NS_MAX_NODES)
                return bad("--nodes", a, "1..256");
            o->nodes = (unsigned)v;
            break;
        case O_PROCS:
            if (parse_u64(a, &v) || v < 1 || v > 64)
                return bad("--procs", a, "1..64 (and at most the NIC's user endpoints)");
            o->procs = (unsigned)v;
            break;
        case O_MEMP:
            if (parse_u64(a, &o->mem_pressure) || o->mem_pressure < 1000)
                return bad("--mem-pressure", a, "a period in cycles, >= 1000");
            break;
        case O_WL: {
            unsigned i;
            for (i = 0; i < NWL && strcmp(a, workloads[i]->name); i++)
                ;
            if (i == NWL)
                return bad("--workload", a, "pingpong, stream, missratio, fft, radix, lu, ocean, water, reglimit or incast");
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
        case O_CQMOD:
            if (parse_u64(a, &v) || v < 1 || v > 256)
                return bad("--cq-mod", a, "1..256");
            o->cq_mod = (unsigned)v;
            break;
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
            o->lookup_set = 1;
            break;
        case O_CACHE: {
            unsigned cc, ll, aa;
            char tail;
            if (sscanf(a, "%u,%u,%u%c", &cc, &ll, &aa, &tail) != 3 || !cc || !ll || !aa || (cc & (cc - 1)) ||
                (ll & (ll - 1)) || (aa & (aa - 1)) || cc < ll * aa)
                return bad("--cache", a, "C,L,A: powers of two with C >= L*A, e.g. 16384,64,4");
            o->cache[0] = cc, o->cache[1] = ll, o->cache[2] = aa;
            o->cache_set = 1;
            break;
        }
        case O_NACK:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad("--nack", a, "on or off");
            o->nack = !strcmp(a, "on");
            o->nack_set = 1;
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
        case O_MPIT:
            if (parse_u64(a, &v) || v < 1 || v > 86400)
                return bad("--mpi-timeout", a, "seconds 1..86400");
            o->mpi_timeout = (double)v;
            break;
        case O_EVENTS: o->events = a; break;
        case O_RMAP: o->rank_map = a; break;
        case O_SR:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad("--sr", a, "on or off");
            o->sr = !strcmp(a, "on");
            break;
        case O_BD: o->breakdown = 1; break;
        case O_BOOT:
            if (strcmp(a, "nic") && strcmp(a, "directory"))
                return bad("--bootstrap", a, "nic or directory");
            o->boot_nic = !strcmp(a, "nic");
            break;
        case O_PREFILL:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad("--prefill", a, "on or off");
            o->prefill = !strcmp(a, "on");
            break;
        case O_PSLOTS:
            if (parse_u64(a, &v) || v > 255)
                return bad("--peer-slots", a, "0..255 resident peer contexts (at most the firmware's NCP_PEER_SLOTS)");
            o->peer_slots = (unsigned)v;
            break;
        case O_PF:
            if (parse_u64(a, &v) || v > NIC_PREFETCH_MAX)
                return bad("--prefetch", a, "0..64 lines");
            o->prefetch = (unsigned)v;
            break;
        case O_PINMODE:
            if (!strcmp(a, "on-miss"))
                o->pin_mode = NICDRV_PIN_ON_MISS;
            else if (!strcmp(a, "at-reg"))
                o->pin_mode = NICDRV_PIN_AT_REG;
            else if (!strcmp(a, "overlap"))
                o->pin_mode = NICDRV_PIN_OVERLAP;
            else if (!strcmp(a, "overlap-async"))
                o->pin_mode = NICDRV_PIN_OVERLAP, o->pin_async = 1;
            else
                return bad("--pin-mode", a, "on-miss, at-reg, overlap or overlap-async");
            break;
        case O_EVICT:
            if (!strcmp(a, "lrf"))
                o->evict = NICDRV_EVICT_LRF;
            else if (!strcmp(a, "lru"))
                o->evict = NICDRV_EVICT_LRU;
            else if (!strcmp(a, "lfu"))
                o->evict = NICDRV_EVICT_LFU;
            else
                return bad("--evict", a, "lrf, lru or lfu");
            break;
        case O_FLOW:
        case O_CC:
        case O_PAUSE:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad(c == O_FLOW ? "--flow" : c == O_CC ? "--cc" : "--pause", a, "on or off");
            *(c == O_FLOW ? &o->flow : c == O_CC ? &o->cc : &o->pause) = !strcmp(a, "on");
            break;
        case O_INLINE:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad("--inline", a, "on or off");
            o->no_inline = !strcmp(a, "off");
            break;
        case O_PCIERD:
            if (parse_u64(a, &v) || v < 1 || v > 100000)
                return bad("--pcie-read-latency", a, "cycles 1..100000");
            o->pcie_rd_lat = (uint32_t)v;
            break;
        case O_CT:
            if (strcmp(a, "on") && strcmp(a, "off"))
                return bad("--cut-through", a, "on or off");
            o->no_ct = !strcmp(a, "off");
            break;
        case O_ECN:
            if (parse_u64(a, &v) || v > 65536)
                return bad("--ecn-kb", a, "KiB 0..65536");
            o->ecn_bytes = (uint32_t)v * 1024u;
            o->ecn_set = 1;
            break;
        case O_QKB:
            if (parse_u64(a, &v) || v < 1 || v > 65536)
                return bad("--queue-kb", a, "KiB 1..65536");
            o->queue_bytes = (uint32_t)v * 1024u;
            break;
        case O_SENDERS:
            if (parse_u64(a, &v) || v < 1 || v >= NS_MAX_NODES)
                return bad("--senders", a, "1..255");
            o->senders = (unsigned)v;
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
    int pp = !strcmp(o->workload, "pingpong"), mr = !strcmp(o->workload, "missratio");
    int st = !strcmp(o->workload, "stream") || !strcmp(o->workload, "incast"); /* the same defaults */
    int rl = !strcmp(o->workload, "reglimit");
    if (o->cq_mod > 1 && strcmp(o->workload, "stream")) {
        fprintf(stderr, "nicsim: --cq-mod is the stream workload's (its requests' completions), not %s's\n",
                o->workload);
        return EXIT_SETUP;
    }
    if (o->breakdown) { /* its checks, before anything runs (exit 3) */
        if (!pp) {
            fprintf(stderr, "nicsim: --breakdown needs --workload pingpong (it breaks down pingpong's one-way "
                            "writes), not %s\n", o->workload);
            return EXIT_SETUP;
        }
        if (o->dbg.gdb_port >= 0 || o->dbg.trace_path) {
            fprintf(stderr, "nicsim: --breakdown cannot be combined with --gdb or --trace-insn (both use the "
                            "node probe)\n");
            return EXIT_SETUP;
        }
        if (smax > 4096 || smin > 4096) {
            fprintf(stderr, "nicsim: --breakdown breaks down writes of one frame: --size-max must be at most 4096 "
                            "(the NCP's MTU)\n");
            return EXIT_SETUP;
        }
    }
    o->size_min = smin ? smin : pp ? 8 : st ? 65536 : 4096;
    o->size_max = smax ? smax : pp ? (o->breakdown ? 4096 : smin > (1u << 20) ? smin : 1u << 20) : st ? 65536 : rl ? (2u << 20) : 4096;
    if (rl && !ws_set)
        o->ws_pages = 65536; /* 256 MiB */
    if (!smin && smax && !pp)
        o->size_min = smax;
    o->iters = (unsigned)(iters ? iters : st ? 200 : mr ? 40 : 20);
    o->ranks = o->nodes * o->procs;
    if (o->ranks > NS_MAX_RANKS) {
        fprintf(stderr, "nicsim: --nodes %u x --procs %u = %u processes; at most %u\n", o->nodes, o->procs, o->ranks,
                NS_MAX_RANKS);
        return EXIT_SETUP;
    }
    if (o->trace_node >= (int)o->nodes) {
        fprintf(stderr, "nicsim: --trace-node %d but only %u nodes\n", o->trace_node, o->nodes);
        return EXIT_SETUP;
    }
    return 0;
}

/* ---- ranks: the start-up checks (docs/simulation-speed.md "Ranks") ---- */

/* --rank-map for K ranks into map[nodes]: 0, or an error in err. */
static int rank_map(const struct ns_opts *o, unsigned k, uint16_t *map, char *err, size_t n)
{
    const char *m = o->rank_map ? o->rank_map : "interleave";
    unsigned per[CLUSTER_MAX_NODES] = { 0 };

    if (!strcmp(m, "block")) {
        cluster_assign_blocks(o->nodes, k, map);
    } else if (!strcmp(m, "interleave")) {
        for (unsigned i = 0; i < o->nodes; i++)
            map[i] = (uint16_t)(i % k);
    } else {
        const char *p = m;
        unsigned i = 0;
        for (;;) {
            char *end;
            unsigned long r;
            if (*p < '0' || *p > '9') {
                snprintf(err, n, "bad value '%s' for --rank-map: interleave, block or a comma-separated list of "
                                 "--nodes ranks", m);
                return -1;
            }
            r = strtoul(p, &end, 10);
            if (i >= o->nodes) {
                snprintf(err, n, "--rank-map %s names more than the %u nodes", m, o->nodes);
                return -1;
            }
            if (r >= k) {
                snprintf(err, n, "--rank-map %s puts node %u on rank %lu, but there are %u ranks", m, i, r, k);
                return -1;
            }
            map[i++] = (uint16_t)r;
            if (!*end)
                break;
            if (*end != ',') {
                snprintf(err, n, "bad value '%s' for --rank-map: a comma-separated list of ranks", m);
                return -1;
            }
            p = end + 1;
        }
        if (i != o->nodes) {
            snprintf(err, n, "--rank-map %s names %u nodes, not --nodes %u", m, i, o->nodes);
            return -1;
        }
    }
    for (unsigned i = 0; i < o->nodes; i++)
        per[map[i]]++;
    for (unsigned r = 0; r < k; r++)
        if (!per[r]) {
            snprintf(err, n, "--rank-map %s leaves rank %u without a node (every rank needs one)", m, r);
            return -1;
        }
    if (map[0] != 0) { /* rank 0 writes the report, whose per-workload figures node 0 keeps */
        snprintf(err, n, "--rank-map %s puts node 0 on rank %u: it must be on rank 0", m, map[0]);
        return -1;
    }
    return 0;
}
static int check_ranks(dist_t *d, int argc, char **argv, const struct ns_opts *o)
{
    if (dist_check_same(d, "nicsim", argc, argv, S.img, S.img_len))
        return EXIT_SETUP;
    if (dist_size(d) > 1 && o->breakdown) {
        if (dist_rank(d) == 0)
            fprintf(stderr, "nicsim: --breakdown works with one rank only (it observes nodes 0 and 1 together)\n");
        return EXIT_SETUP;
    }
    if (dist_size(d) > 1 && (o->events || o->fst || o->dbg.gdb_port >= 0 || o->dbg.trace_path || o->dbg.fst_scopes)) {
        if (dist_rank(d) == 0)
            fprintf(stderr, "nicsim: %s works with one rank only (it records one process's view)\n",
                    o->events ? "--events" : o->fst ? "--fst" : "--gdb / --trace-insn / --fst-scope");
        return EXIT_SETUP;
    }
    return 0;
}

static int finish(int rc)
{
    dist_close(S.dist);
    S.dist = NULL;
    return rc;
}

/* A set-up error on this rank (a bad image, a report file that cannot be opened): every rank ends
 * (the others would wait for it at the first boundary). */
static int setup_fail(unsigned nranks)
{
    if (nranks > 1)
        dist_abort(S.dist, EXIT_SETUP);
    return finish(EXIT_SETUP);
}

int main(int argc, char **argv)
{
    struct ns_opts *o = &S.o;
    struct ns_world *w = &S.w;
    struct cluster_config cc;
    const struct ns_workload *wl = NULL;
    char err[512]; /* a workload's reason, with the numbers to use (over 200 characters) */
    int rc;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((rc = parse(argc, argv, o)))
        return rc;
    if (!(S.dist = dist_open(&argc, &argv, "nicsim", o->mpi_timeout, err, sizeof err))) {
        fprintf(stderr, "nicsim: %s\n", err);
        return EXIT_SETUP;
    }
    unsigned rank = dist_rank(S.dist), nranks = dist_size(S.dist);
    if (nranks > o->nodes) {
        if (rank == 0)
            fprintf(stderr, "nicsim: %u ranks for %u nodes: every rank needs at least one node (run mpirun -np K "
                            "with K <= --nodes)\n", nranks, o->nodes);
        return finish(EXIT_SETUP);
    }
    if (rank_map(o, nranks, S.rank_of, err, sizeof err)) {
        if (rank == 0)
            fprintf(stderr, "nicsim: %s\n", err);
        return finish(EXIT_SETUP);
    }
    if (nranks > 1 && o->procs > 1) {
        if (rank == 0)
            fprintf(stderr, "nicsim: --procs %u under %u MPI ranks: not supported (run --procs with one rank)\n",
                    o->procs, nranks);
        return finish(EXIT_SETUP);
    }
    if (rank != 0) /* rank 0 speaks for the run: summary, reports, progress */
        o->quiet = 1, o->progress = 0, o->json = o->csv = o->pcap = NULL;
    if (o->fst && !nic_model_traced()) {
        sim_exec_twin("nicsim", "nicsim-trace", "--fst", argv); /* returns only on failure */
        return EXIT_SETUP;
    }
    for (unsigned i = 0; i < NWL; i++)
        if (!strcmp(workloads[i]->name, o->workload))
            wl = workloads[i];
    if (o->nodes < wl->min_nodes || o->nodes > wl->max_nodes) {
        fprintf(stderr, "nicsim: --workload %s needs --nodes %u..%u%s\n", wl->name, wl->min_nodes, wl->max_nodes,
                o->nodes < wl->min_nodes && wl->min_nodes == 2
                    ? " (it runs between nodes; one node runs only fft, radix, lu, ocean and water, which move "
                      "no data there: a node's own share stays local)"
                    : "");
        return EXIT_SETUP;
    }
    if (wl->check(o, err, sizeof err)) {
        fprintf(stderr, "nicsim: %s\n", err);
        return EXIT_SETUP;
    }
    /* a rank that cannot go on alone ends every rank (the others would wait at the start-up check) */
    if (pick_image(o, S.img_path, sizeof S.img_path) ||
        (!(S.img = read_all(S.img_path, &S.img_len)) && fprintf(stderr, "nicsim: cannot read %s\n", S.img_path))) {
        if (nranks > 1)
            dist_abort(S.dist, EXIT_SETUP);
        return finish(EXIT_SETUP);
    }
    if ((rc = check_ranks(S.dist, argc, argv, o)))
        return finish(rc);
    {   /* the image as the driver's loader will see it, and its lookup flag, before any cluster */
        struct nic_fwimg_info fi;
        if (report_image("nicsim", S.img_path, S.img, S.img_len, &fi))
            return setup_fail(nranks);
        if ((!o->fw || o->lookup_set) && !!(fi.flags & NIC_FWIMG_F_STATIC_LOOKUP) != !!o->lookup_static) {
            fprintf(stderr, "nicsim: firmware %s does not match the options: its image is built for %s lookup, "
                            "--lookup %s was asked%s (rebuild with `scripts/build`, or pick the image with "
                            "--lookup/--fw)\n",
                    S.img_path, fi.flags & NIC_FWIMG_F_STATIC_LOOKUP ? "static" : "dynamic",
                    o->lookup_static ? "static" : "dynamic", o->lookup_set ? "" : " (the default)");
            return setup_fail(nranks);
        }
    }
    /* the reports' files before the run: a bad path costs nothing */
    if (o->json && !(S.json = report_open("nicsim", "--json", o->json)))
        return setup_fail(nranks);
    if (o->csv && !(S.csv = report_open("nicsim", "--csv", o->csv)))
        return setup_fail(nranks);
    if (nranks == 1) /* under ranks the launcher's SIGTERM means another rank died (dist_mpi.c) */
        report_signals();
    read_mem(S.img_path, &S.mem);

    memset(w, 0, sizeof *w);
    w->o = o;
    w->wl = wl;
    coro_event_init(&w->bar_ev);
    w->costs = costs_create(0, o->seed); /* the parameters, and every node's samples at the end */
    if (!w->costs)
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
    cc.sw.ecn_bytes = o->ecn_set ? o->ecn_bytes : o->cc ? 16384u : 0u;
    cc.sw.pause = o->pause != 0;
    if (o->queue_bytes)
        cc.sw.queue_bytes = o->queue_bytes;
    cc.seed = o->seed;
    cc.console = o->console ? stderr : NULL; /* firmware console lines ("[node N] ...") */
    cc.skip_idle = !o->no_skip;
    cc.node.eval_all = o->eval_all != 0;
    cc.node.pin_hash = o->pin_hash != 0;
    cc.node.tx_ct_off = o->no_ct != 0;
    if (o->pcie_rd_lat)
        cc.node.pcie.dma_read_latency = o->pcie_rd_lat;
    cc.quanta = true; /* the same semantics for one rank and many */
    if (o->mem_pressure) { /* seed 004: the OS takes pages back through the driver's MMU notifier */
        cc.node.os.pressure_period = o->mem_pressure;
        cc.node.os.pressure_pages = 2;
        cc.node.os.pressure_pinned = true;
        cc.node.os.seed = o->seed;
    }
    cc.dist = S.dist;
    cc.rank_of = S.rank_of;
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
    if (o->breakdown) {
        ns_bd_attach(w, stderr);
        w->bd = 1;
    }
    if (o->fst && node_trace_open(cluster_node(w->cl, (unsigned)o->trace_node), o->fst)) {
        fprintf(stderr, "nicsim: cannot open %s\n", o->fst);
        return EXIT_SETUP;
    }
    ns_dist_attach(w);
    for (unsigned i = 0; i < o->nodes; i++) {
        struct nicdrv_config dc;
        struct ns_node *n = &w->node[i];
        n->w = w;
        n->id = i;
        n->nid = i;
        n->lp = 0;
        if (!cluster_is_local(w->cl, i))
            continue; /* another rank's */
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = (uint16_t)o->nodes;
        if (o->pin_hwm)
            dc.pin_hwm_pages = o->pin_hwm;
        dc.miss_threads = o->miss_threads;
        dc.prefill = o->prefill != 0;
        dc.mmu_notifier = o->mem_pressure != 0;
        dc.prefetch_lines = o->prefetch;
        dc.peer_slots = o->peer_slots;
        dc.pin_mode = o->pin_mode;
        dc.pin_sync_lines = o->pin_async ? 0u : 1u;
        dc.evict_policy = o->evict;
        dc.xport_opts = (o->flow ? NIC_XOPT_FLOW : 0u) | (o->cc ? NIC_XOPT_CONGESTION : 0u) |
                       (o->sr ? NIC_XOPT_SR : 0u);
        if (S.ev) {
            dc.observe = drv_observe;
            dc.observe_ctx = n;
        }
        n->os = node_os(cluster_node(w->cl, i));
        /* each node draws its host costs from its own stream, so no draw depends on another
         * node's (or rank's) order */
        n->costs = costs_create(0, o->seed ^ ((uint64_t)(i + 1) << 40));
        if (!n->costs || (o->host_cost && costs_set_list(n->costs, o->host_cost)))
            return EXIT_SETUP;
        n->hs = hostsw_create(w->cl, i, n->costs, &dc);
        if (!n->hs) {
            fprintf(stderr, "nicsim: cannot create node %u's host software\n", i);
            return EXIT_SETUP;
        }
        n->drv = hostsw_driver(n->hs);
        node_set_reset(cluster_node(w->cl, i), false);
        if (coro_spawn(cluster_sched(w->cl), "user", node_prog, n, NULL) ||
            (o->mem_pressure && coro_spawn(cluster_sched(w->cl), "kswapd", kswapd, n, NULL)))
            return EXIT_SETUP;
        for (unsigned lp = 1; lp < o->procs; lp++) { /* the node's other processes: ranks lp x nodes + i */
            struct ns_node *q = &w->node[lp * o->nodes + i];
            q->w = w;
            q->id = lp * o->nodes + i;
            q->nid = i;
            q->lp = lp;
            q->os = n->os;
            q->costs = n->costs;
            q->hs = n->hs;
            q->drv = n->drv;
            if (coro_spawn(cluster_sched(w->cl), "user", node_prog, q, NULL))
                return EXIT_SETUP;
        }
    }
    int prog = o->progress < 0 ? isatty(2) : o->progress;
    if (prog)
        cluster_set_progress_note(w->cl, note_fn, w);
    rc = cluster_run(w->cl, o->max_cycles, stop_fn, w, prog ? stderr : NULL);
    ns_dist_flush(w);
    w->stopping = 1;
    if (ns_check_halt(w)) { /* the explanation first; what followed from the halt is not repeated */
        for (unsigned i = 0; i < o->nodes; i++) /* by the rank of each halted node */
            if (cluster_node(w->cl, i) && node_status(cluster_node(w->cl, i))->halted)
                fwdiag_explain(stderr, "nicsim", cluster_node(w->cl, i), S.img_path);
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
    for (unsigned r = o->nodes; r < o->ranks; r++) { /* the report's per-node operations: every process's */
        struct ns_node *f = &w->node[r % o->nodes];
        f->posted += w->node[r].posted, f->completed += w->node[r].completed, f->errors += w->node[r].errors;
    }
    S.rc = S.mismatch ? EXIT_SETUP : w->failed ? EXIT_FAIL : rc ? EXIT_TIMEOUT : EXIT_PASS;
    if (report_signal && !S.mismatch) { /* stopped from outside: the report says so, marked partial */
        S.rc = 128 + report_signal;
        if (!w->failed)
            snprintf(w->fail_msg, sizeof w->fail_msg, "stopped by %s at cycle %" PRIu64 " (partial)",
                     report_signame(report_signal), (uint64_t)cluster_now(w->cl));
    } else if (rc && !w->failed)
        snprintf(w->fail_msg, sizeof w->fail_msg, "--max-cycles %" PRIu64 " reached before the workload finished",
                 o->max_cycles);
    for (unsigned i = 0; i < o->nodes; i++)
        if (cluster_node(w->cl, i))
            S.violations += hostmem_counters(node_hostmem(cluster_node(w->cl, i)))->violations;
    /* every rank's results into every rank's world: the same verdict everywhere */
    ns_dist_gather(w, w->costs, &S.sw, &S.violations);
    if (w->halted && w->suppressed && rank == 0)
        fprintf(stderr, "nicsim: %" PRIu64 " later error%s suppressed (consequences of the halt)\n", w->suppressed,
                w->suppressed == 1 ? "" : "s");
    if (S.violations && S.rc == EXIT_PASS) {
        S.rc = EXIT_FAIL;
        snprintf(w->fail_msg, sizeof w->fail_msg, "%" PRIu64 " unpinned-DMA oracle violations", S.violations);
    }
    if (S.rc == EXIT_PASS && w->verify_bytes == 0 && w->ops) {
        S.rc = EXIT_FAIL;
        snprintf(w->fail_msg, sizeof w->fail_msg, "nothing was verified");
    }
    costs_stats(w->costs, &S.miss);
    uint64_t nl = w->nlat;
    qsort(w->lat, nl, sizeof *w->lat, cmp_u64);
    const struct cluster_stats *cs = cluster_stats(w->cl);
    if (S.pcap_bad)
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    struct ns_report rep = {
        .w = w, .cs = cs, .lat = w->lat, .nl = nl, .img_path = S.img_path, .img = S.img, .img_len = S.img_len,
        .mem = S.mem, .info = S.have_info ? &S.info : NULL, .miss = S.miss, .sw = S.sw, .violations = S.violations,
        .rc = S.rc, .ranks = dist_size(S.dist), .transport = dist_transport(S.dist),
        .quantum = (uint64_t)cluster_quantum(w->cl), .boundaries = dist_collectives(S.dist),
        .wait_s = dist_wait_s(S.dist),
    };
    if (!o->quiet)
        ns_summary(stdout, &rep);
    if (o->pin_hash && dist_size(S.dist) <= 1) { /* every output pin of every node, every cycle */
        uint64_t h = 0, not_eval = 0;
        for (unsigned i = 0; i < o->nodes; i++) {
            h = (h ^ node_status(cluster_node(w->cl, i))->pin_hash) * 0x100000001B3ull + i;
            not_eval += node_status(cluster_node(w->cl, i))->cycles_not_evaluated;
        }
        printf("nicsim: pin hash %016" PRIx64 " (every output pin of every node, every cycle to %" PRIu64
               "; %" PRIu64 " idle node-cycles not evaluated)\n",
               h, (uint64_t)cs->cycles, not_eval);
    }
    if (w->bd) /* after everything the run prints without it */
        ns_bd_print(stdout);
    if (S.json && ns_write_json(S.json, o->json, &rep))
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    if (S.csv && ns_write_csv(S.csv, o->csv, &rep))
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    if (S.rc != EXIT_PASS && rank == 0)
        fprintf(stderr, "nicsim: %s: %s\n", ns_verdict(S.rc), w->fail_msg);
    if (nodedbg_finish(dbg, S.rc)) {
        fprintf(stderr, "nicsim: --trace-insn: write failed: the trace is incomplete\n");
        S.rc = S.rc ? S.rc : EXIT_SETUP;
    }
    if (w->bd) {
        ns_bd_detach(w);
        ns_bd_free();
    }
    for (unsigned i = 0; i < o->nodes; i++)
        hostsw_destroy(w->node[i].hs);
    cluster_destroy(w->cl);
    for (unsigned i = 0; i < o->nodes; i++)
        costs_destroy(w->node[i].costs);
    costs_destroy(w->costs);
    free(w->lat);
    free(w->rank_stats);
    free(w->out.p);
    for (unsigned i = 0; i < o->ranks; i++)
        free(w->node[i].msg_post), free(w->node[i].msg_done);
    free(S.img);
    return finish(S.rc);
}
