/*
 * nicrun: run a firmware test image on a simulated cluster of NICs and report the outcome.
 *
 * Every node gets the same flash image, loaded by the driver's loader (nicdrv_fw_load) through
 * the host window, after the harness has written a struct fwtest_args block (tests/fw/fwtest.h)
 * into NIC SRAM and the node id into mac.node_id. The run ends when every node has reported
 * through its test mailbox, when one fails, or at --max-cycles. Afterwards nicrun checks what the
 * image said it left in host memory, and prints link accounting (frames sent, delivered, dropped
 * by fault injection, dropped by each NIC's RX MAC) so that every frame is accounted for.
 *
 * Exit status: 0 every node passed (and every check held), 1 a node failed or a check did not
 * hold, 2 timeout, 3 usage or setup error.
 */
#define _POSIX_C_SOURCE 200809L /* readlink, execv */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "fwdiag.h"
#include "fwtest.h"
#include "hostbus.h"
#include "nic_regs.h"
#include "nic_model.h"
#include "nicdrv.h"
#include "nodedbg.h"
#include "pcap.h"
#include "report.h"
#include "sim_exec.h"

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_TIMEOUT = 2, EXIT_SETUP = 3 };

struct run {
    cluster_t *cl;
    uint8_t *image;
    size_t image_len;
    unsigned nodes;
    uint32_t frames;
    bool faults; /* the switch injects faults (fwtest_args.faults) */
    bool expect_oracle;
    bool check_link;
    unsigned booted, boot_failed;
    uint64_t host_buf_pa[CLUSTER_MAX_NODES];
    uint64_t unpinned_pa[CLUSTER_MAX_NODES];
    unsigned violations;
    char violation[256];
    /* ranks (mpirun): quanta, and every node's status replicated at each boundary */
    dist_t *dist;
    bool quanta;
    struct node_status gst[CLUSTER_MAX_NODES];
    unsigned g_boot_failed, g_violations;
    int host_ok[CLUSTER_MAX_NODES]; /* check_host by the node's rank: 1 verified, 0 nothing, -1 bad */
    struct switch_port_counters gsw[CLUSTER_MAX_NODES];
};

/* A node's status: its own (one process) or the copy from the last boundary (ranks). */
static const struct node_status *st(const struct run *r, unsigned i)
{
    return r->quanta ? &r->gst[i] : node_status(cluster_node(r->cl, i));
}

struct boot_arg {
    struct run *run;
    unsigned node;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: nicrun [options] IMAGE.img\n"
               "Runs a firmware test image on every node of a simulated cluster (docs/nic.md).\n"
               "\n"
               "  --nodes N          nodes on the switch (default 2)\n"
               "  --max-cycles N     stop with TIMEOUT after N cycles (default 20000000)\n"
               "  --seed S           seed for the switch's fault injection and host memory (default 1)\n"
               "  --drop P --corrupt P --duplicate P --delay P\n"
               "                     fault probability per frame, 0..1 (default 0)\n"
               "  --frames N         frames each sender sends, for link tests (default 64)\n"
               "  --link-gbps G      link rate, 1..200 whole Gb/s at 200 MHz (default 10): the switch's\n"
               "                     ports and every NIC's PHY, which its MAC transmits at\n"
               "  --no-skip          clock every cycle, even when all NICs are idle\n"
               "  --eval-all         evaluate every NIC every cycle, even an idle one (with --no-skip:\n"
               "                     the reference the speed-ups must match)\n"
               "  --pin-hash         print a hash of every output pin of every NIC in every cycle\n"
               "  --expect-oracle    pass only if the unpinned-DMA oracle fires (and report it)\n"
               "  --check-link       the image reports link counters (fw_nic_link): account for every\n"
               "                     frame between senders, switch and receiving MACs\n"
               "  --fst FILE         FST waveform of one node's NIC (runs nicrun-trace, the traced model,\n"
               "                     many times slower: docs/debugging.md); time is simulated time\n"
               "  --trace-node N     the node --fst and --trace-insn record (default 0)\n"
               NODEDBG_USAGE
               "  --pcap FILE        capture every frame at the switch (pcap, ns timestamps in simulated\n"
               "                     time, link type USER0; decode with tools/wireshark/ncp.lua)\n"
               "  --json FILE        machine-readable report (docs/nicsim.md, nicrun's report); opened\n"
               "                     before the run; SIGINT/SIGTERM write it marked partial\n"
               "  --quiet            no node console output\n"
               "A node whose NCP traps or halts is explained: cause, function and file:line (from the\n"
               "ELF next to IMAGE.img, IMAGE.elf) and its last console lines.\n"
               "exit status: 0 pass, 1 fail, 2 timeout, 3 usage/setup error\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return errno || end == s || *end ? -1 : 0;
}

static int parse_prob(const char *s, double *p)
{
    char *end;
    errno = 0;
    *p = strtod(s, &end);
    return errno || end == s || *end || *p < 0.0 || *p > 1.0 ? -1 : 0;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* The host memory model refused a DMA; the NIC gets an error completion either way. A DMA to a
 * page that is not pinned is the oracle firing: the run fails (unless --expect-oracle). A DMA
 * to an address with no memory is a host bus error the firmware must handle: reported only. */
static void on_violation(void *ctx, const struct hostmem_violation *v, const char *msg)
{
    struct run *r = ctx;

    if (v->kind != HOSTMEM_VIOL_UNPINNED) {
        printf("nicrun: host bus error reported to the NIC: %s\n", msg);
        return;
    }
    if (r->violations++ == 0)
        snprintf(r->violation, sizeof r->violation, "%s", msg);
    fprintf(stderr, "nicrun: DMA oracle: %s\n", msg);
}

/* Host memory every test may use: a pinned kernel page with a pattern, a process page that is
 * not pinned, and an address with no memory. */
static int setup_host(struct run *r, unsigned i, struct fwtest_args *a)
{
    node_t *n = cluster_node(r->cl, i);
    hostmem_t *mem = node_hostmem(n);
    os_t *os = node_os(n);
    uint64_t pfn, va = 0x40000000u, pa;
    uint32_t pid;
    uint8_t page[HOSTMEM_PAGE_SIZE];

    if (hostmem_frame_alloc(mem, &pfn) || hostmem_pin(mem, 0, pfn))
        return -1;
    for (uint32_t k = 0; k < sizeof page; k++)
        page[k] = fwtest_pattern(k, i);
    if (hostmem_cpu_write(mem, pfn << HOSTMEM_PAGE_SHIFT, page, sizeof page))
        return -1;
    r->host_buf_pa[i] = pfn << HOSTMEM_PAGE_SHIFT;
    if (os_proc_create(os, 48, &pid) || os_touch(os, pid, va, HOSTMEM_PAGE_SIZE) || os_translate(os, pid, va, &pa))
        return -1;
    r->unpinned_pa[i] = pa;
    hostmem_set_fail_hook(mem, on_violation, r);

    memset(a, 0, sizeof *a);
    a->magic = FWTEST_ARGS_MAGIC;
    a->node_id = i;
    a->nodes = r->nodes;
    a->host_buf_lo = (uint32_t)r->host_buf_pa[i];
    a->host_buf_hi = (uint32_t)(r->host_buf_pa[i] >> 32);
    a->host_buf_len = HOSTMEM_PAGE_SIZE;
    a->unpinned_lo = (uint32_t)pa;
    a->unpinned_hi = (uint32_t)(pa >> 32);
    a->nomem_lo = 0x1000u; /* frame 1: below the host memory range, never backed */
    a->nomem_hi = 0;
    a->frames = r->frames;
    a->seed = 0x1234u + i;
    a->faults = r->faults;
    return 0;
}

/* Host coroutine per node: arguments into SRAM, node id, then the driver's firmware loader. */
static void boot(void *arg)
{
    struct boot_arg *b = arg;
    struct run *r = b->run;
    node_t *n = cluster_node(r->cl, b->node);
    struct nicdrv_bus bus;
    struct fwtest_args a;
    const uint32_t *w = (const uint32_t *)&a;
    char err[200];
    int rc;

    hostbus_init(&bus, n);
    if (setup_host(r, b->node, &a)) {
        fprintf(stderr, "nicrun: node %u: host memory setup failed\n", b->node);
        r->boot_failed++;
        return;
    }
    rc = bus.wr32(bus.ctx, NICDRV_BAR_REGS, NIC_HOSTIF_OFFSET + NIC_HOSTIF_CTRL, NIC_HOSTIF_CTRL_CORE_RESET_MASK);
    rc = rc ? rc
            : bus.wr32(bus.ctx, NICDRV_BAR_REGS, NIC_HOSTIF_OFFSET + NIC_HOSTIF_WIN_BASE,
                       FWTEST_ARGS_ADDR - NIC_SRAM_BASE);
    for (size_t k = 0; !rc && k < sizeof a / 4; k++)
        rc = bus.wr32(bus.ctx, NICDRV_BAR_WINDOW, (uint32_t)(k * 4), w[k]);
    rc = rc ? rc : bus.wr32(bus.ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + NIC_MAC_NODE_ID, b->node);
    if (!rc)
        rc = nicdrv_fw_load(&bus, r->image, r->image_len, 0, NULL, err, sizeof err);
    else
        snprintf(err, sizeof err, "%s", nicdrv_strerror(rc));
    if (rc) {
        fprintf(stderr, "nicrun: node %u: firmware load failed: %s\n", b->node, err);
        r->boot_failed++;
        return;
    }
    r->booted++;
}

#define HALT_GRACE 20000u /* cycles (100 us) */

static bool all_done(cluster_t *c, void *ctx)
{
    struct run *r = ctx;
    unsigned done = 0;

    if ((r->quanta ? r->g_boot_failed || (r->expect_oracle && r->g_violations)
                   : r->boot_failed || (r->expect_oracle && r->violations)) || report_signal)
        return true;
    unsigned halted = 0;
    sim_cycle_t first = SIM_CYCLE_NEVER;
    for (unsigned i = 0; i < r->nodes; i++) {
        const struct node_status *s = st(r, i);
        if (s->halted) { /* explained after the run; what follows a halt is noise */
            halted++;
            first = s->halted_at < first ? s->halted_at : first;
            continue;
        }
        if (s->test_done && s->test_status != 1)
            return true;
        done += s->test_done;
    }
    /* a halt ends the run once the others are done or halted too, or after a short grace (other
     * nodes crashing on the same bug are explained as well) */
    if (halted)
        return done + halted == r->nodes || cluster_now(c) > first + HALT_GRACE;
    return done == r->nodes;
}

/* What the image claimed to leave in host memory (testmb.value), checked from the host side. */
static int check_host(struct run *r, unsigned i, uint32_t value)
{
    hostmem_t *mem = node_hostmem(cluster_node(r->cl, i));
    uint8_t page[HOSTMEM_PAGE_SIZE];

    if (value != FWTEST_VALUE_HOSTBUF_INVERTED)
        return 0;
    if (hostmem_cpu_read(mem, r->host_buf_pa[i], page, sizeof page))
        return -1;
    for (uint32_t k = 0; k < sizeof page; k++) {
        uint8_t want = (uint8_t)(0xFFu ^ fwtest_pattern(k, i));
        if (page[k] != want) {
            fprintf(stderr, "nicrun: node %u: host buffer byte %u is 0x%02x, expected 0x%02x\n", i, k, page[k], want);
            return -1;
        }
    }
    return 1;
}

/* The switch's counters summed over its ports: under ranks each port's from its node's rank. */
static void run_switch_totals(const struct run *r, struct switch_port_counters *tot)
{
    if (!r->quanta) {
        switch_totals(cluster_switch(r->cl), tot);
        return;
    }
    memset(tot, 0, sizeof *tot);
    for (unsigned i = 0; i < r->nodes; i++)
        for (size_t k = 0; k < sizeof *tot / sizeof(uint64_t); k++)
            ((uint64_t *)tot)[k] += ((const uint64_t *)&r->gsw[i])[k];
}

/*
 * Link accounting. Switch: every frame handed in, plus every duplicate it made, was delivered or
 * dropped by a counted cause. Each receiving NIC (--check-link): its MAC saw exactly the frames
 * the switch handed it, and every one with a bad FCS was dropped as bad CRC, or earlier for a
 * counted reason (no buffer, runt, oversize) before its CRC was checked.
 */
static int link_accounting(struct run *r)
{
    struct switch_port_counters tot;
    uint64_t sent = 0, recv = 0;
    int bad = 0;

    run_switch_totals(r, &tot);
    for (unsigned i = 0; i < r->nodes; i++) {
        const struct node_status *s = st(r, i);
        sent += s->frames_sent;
        recv += s->frames_received;
    }
    printf("nicrun: link: %" PRIu64 " frames sent, %" PRIu64 " handed to NICs; switch: %" PRIu64 " in, %" PRIu64
           " out, dropped %" PRIu64 " (fault) + %" PRIu64 " (queue) + %" PRIu64 " (slots), duplicated %" PRIu64
           ", corrupted %" PRIu64 ", delayed %" PRIu64 "\n",
           sent, recv, tot.rx_frames, tot.tx_frames, tot.fault_drop, tot.queue_drops, tot.slot_drops,
           tot.fault_duplicate, tot.fault_corrupt, tot.fault_delay);
    if (tot.rx_frames != sent || tot.tx_frames != recv ||
        tot.rx_frames + tot.fault_duplicate != tot.tx_frames + tot.fault_drop + tot.queue_drops + tot.slot_drops) {
        fprintf(stderr, "nicrun: link accounting: switch counters do not add up\n");
        bad = 1;
    }
    for (unsigned i = 0; r->check_link && i < r->nodes; i++) {
        const struct node_status *s = st(r, i);
        uint32_t v = s->test_value;
        if (!s->test_done || s->test_status != 1)
            continue;
        printf("nicrun: node %u: MAC saw %u frames (bad CRC %u, other drops %u); the switch handed it %" PRIu64
               ", %" PRIu64 " with a bad FCS\n",
               i, FWTEST_LINK_SEEN(v), FWTEST_LINK_BAD(v), FWTEST_LINK_OTHER(v), s->frames_received,
               s->frames_received_bad_fcs);
        if (FWTEST_LINK_SEEN(v) != s->frames_received || FWTEST_LINK_BAD(v) > s->frames_received_bad_fcs ||
            s->frames_received_bad_fcs > (uint64_t)FWTEST_LINK_BAD(v) + FWTEST_LINK_OTHER(v)) {
            fprintf(stderr, "nicrun: node %u: link accounting does not add up\n", i);
            bad = 1;
        }
    }
    return bad;
}

/* ---- ranks (mpirun -np K nicrun ...): docs/simulation-speed.md "Ranks" ---- */
static void sync_pack(void *ctx, sim_cycle_t t, struct cluster_buf *b)
{
    struct run *r = ctx;
    uint32_t h[3] = { r->boot_failed, r->violations, 0 };
    (void)t;
    for (unsigned i = 0; i < r->nodes; i++)
        h[2] += cluster_is_local(r->cl, i);
    cluster_buf_put(b, h, sizeof h);
    for (uint32_t i = 0; i < r->nodes; i++)
        if (cluster_is_local(r->cl, i)) {
            cluster_buf_put(b, &i, sizeof i);
            cluster_buf_put(b, node_status(cluster_node(r->cl, i)), sizeof(struct node_status));
        }
}

static int sync_unpack(void *ctx, sim_cycle_t t, const uint8_t *const *blocks, const size_t *lens, unsigned n)
{
    struct run *r = ctx;
    (void)t;
    r->g_boot_failed = r->g_violations = 0;
    for (unsigned k = 0; k < n; k++) {
        uint32_t h[3], id;
        size_t off = sizeof h;
        if (lens[k] < sizeof h)
            continue;
        memcpy(h, blocks[k], sizeof h);
        r->g_boot_failed += h[0];
        r->g_violations += h[1];
        for (uint32_t j = 0; j < h[2] && off + sizeof id + sizeof(struct node_status) <= lens[k]; j++) {
            memcpy(&id, blocks[k] + off, sizeof id);
            if (id < r->nodes)
                memcpy(&r->gst[id], blocks[k] + off + sizeof id, sizeof(struct node_status));
            off += sizeof id + sizeof(struct node_status);
        }
    }
    return 0;
}

static const struct cluster_sync nicrun_sync = { sync_pack, sync_unpack };

/* The end of a run on ranks: every node's status, host check and switch port counters, and the
 * oracle's first message, to every rank. */
static void gather_results(struct run *r)
{
    struct cluster_buf b = { 0, 0, 0 };
    const uint8_t *const *blocks;
    const size_t *lens;
    uint32_t h[2] = { r->violations, 0 };

    for (uint32_t i = 0; i < r->nodes; i++)
        h[1] += cluster_is_local(r->cl, i);
    cluster_buf_put(&b, h, sizeof h);
    cluster_buf_put(&b, r->violation, sizeof r->violation);
    for (uint32_t i = 0; i < r->nodes; i++) {
        const struct node_status *s;
        int32_t ok = 0;
        if (!cluster_is_local(r->cl, i))
            continue;
        s = node_status(cluster_node(r->cl, i));
        if (s->test_done && s->test_status == 1 && !r->expect_oracle)
            ok = check_host(r, i, s->test_value);
        cluster_buf_put(&b, &i, sizeof i);
        cluster_buf_put(&b, s, sizeof *s);
        cluster_buf_put(&b, &ok, sizeof ok);
        cluster_buf_put(&b, switch_port_counters(cluster_switch(r->cl), i), sizeof(struct switch_port_counters));
    }
    if (dist_allgather(r->dist, b.p, b.n, cluster_now(r->cl), &blocks, &lens)) {
        fprintf(stderr, "nicrun: rank %u: cannot gather the results\n", dist_rank(r->dist));
        dist_abort(r->dist, DIST_EXIT_LOST);
    }
    r->violations = 0;
    for (unsigned k = 0; k < dist_size(r->dist); k++) {
        size_t off = sizeof h + sizeof r->violation, one = sizeof(uint32_t) + sizeof(struct node_status) + sizeof(int32_t) +
                                                          sizeof(struct switch_port_counters);
        uint32_t hk[2], id;
        int32_t ok;
        if (lens[k] < off)
            continue;
        memcpy(hk, blocks[k], sizeof hk);
        if (hk[0] && !r->violations)
            memcpy(r->violation, blocks[k] + sizeof hk, sizeof r->violation);
        r->violation[sizeof r->violation - 1] = 0;
        r->violations += hk[0];
        for (uint32_t j = 0; j < hk[1] && off + one <= lens[k]; j++, off += one) {
            const uint8_t *p = blocks[k] + off;
            memcpy(&id, p, sizeof id);
            if (id >= r->nodes)
                continue;
            memcpy(&r->gst[id], p + sizeof id, sizeof(struct node_status));
            memcpy(&ok, p + sizeof id + sizeof(struct node_status), sizeof ok);
            r->host_ok[id] = ok;
            memcpy(&r->gsw[id], p + sizeof id + sizeof(struct node_status) + sizeof ok, sizeof(struct switch_port_counters));
        }
    }
    r->boot_failed = r->g_boot_failed;
    free(b.p);
}

/* --json: the run's outcome (docs/nicsim.md, "nicrun's report") */
struct run_opts {
    uint64_t max_cycles, seed, frames, gbps, trace_node;
    double fault[4];
    bool skip;
};

static cJSON *run_json(const struct run *r, const struct run_opts *ro, const char *img_path, int result,
                       const char *error)
{
    cJSON *root = report_new("nicrun", img_path, r->image, r->image_len), *x, *arr;
    struct switch_port_counters tot;
    const struct cluster_stats *cs = cluster_stats(r->cl);
    if (!root)
        return NULL;
    report_mark(root);
    cJSON_AddStringToObject(root, "result", result == EXIT_PASS      ? "PASS"
                                            : result == EXIT_TIMEOUT ? "TIMEOUT"
                                            : result == EXIT_SETUP   ? "SETUP"
                                            : result > 128           ? "INTERRUPTED"
                                                                     : "FAIL");
    cJSON_AddStringToObject(root, "error", error);
    cJSON_AddNumberToObject(root, "exit_status", result);
    x = cJSON_AddObjectToObject(root, "config");
    cJSON_AddNumberToObject(x, "nodes", r->nodes);
    cJSON_AddStringToObject(x, "image", img_path);
    report_u64(x, "max_cycles", ro->max_cycles);
    report_u64(x, "seed", ro->seed);
    cJSON_AddNumberToObject(x, "drop", ro->fault[0]);
    cJSON_AddNumberToObject(x, "corrupt", ro->fault[1]);
    cJSON_AddNumberToObject(x, "duplicate", ro->fault[2]);
    cJSON_AddNumberToObject(x, "delay", ro->fault[3]);
    report_u64(x, "frames", ro->frames);
    report_u64(x, "link_gbps", ro->gbps);
    cJSON_AddBoolToObject(x, "no_skip", !ro->skip);
    cJSON_AddBoolToObject(x, "expect_oracle", r->expect_oracle);
    cJSON_AddBoolToObject(x, "check_link", r->check_link);
    x = cJSON_AddObjectToObject(root, "sim");
    report_u64(x, "cycles", cs->cycles);
    report_u64(x, "cycles_clocked", cs->cycles_clocked);
    report_u64(x, "skips", cs->skips);
    report_num(x, "wall_s", cs->wall_s, 3);
    arr = cJSON_AddArrayToObject(root, "nodes");
    for (unsigned i = 0; arr && i < r->nodes; i++) {
        const struct node_status *s = st(r, i); /* under ranks: gathered from each node's rank */
        cJSON *q = cJSON_CreateObject();
        char v[16];
        if (!q)
            break;
        cJSON_AddNumberToObject(q, "id", i);
        cJSON_AddBoolToObject(q, "done", s->test_done);
        cJSON_AddBoolToObject(q, "passed", s->test_done && s->test_status == 1);
        cJSON_AddNumberToObject(q, "code", s->test_done && s->test_status != 1 ? s->test_status >> 1 : 0);
        snprintf(v, sizeof v, "0x%08" PRIx32, s->test_value);
        cJSON_AddStringToObject(q, "value", v);
        if (s->test_done)
            report_u64(q, "done_at_cycle", s->test_done_at);
        else
            cJSON_AddNullToObject(q, "done_at_cycle");
        cJSON_AddBoolToObject(q, "halted", s->halted);
        report_u64(q, "frames_sent", s->frames_sent);
        report_u64(q, "frames_received", s->frames_received);
        cJSON_AddItemToArray(arr, q);
    }
    run_switch_totals(r, &tot);
    x = cJSON_AddObjectToObject(root, "switch");
    report_u64(x, "rx_frames", tot.rx_frames);
    report_u64(x, "tx_frames", tot.tx_frames);
    report_u64(x, "fault_drop", tot.fault_drop);
    report_u64(x, "queue_drops", tot.queue_drops);
    report_u64(x, "slot_drops", tot.slot_drops);
    report_u64(x, "fault_duplicate", tot.fault_duplicate);
    report_u64(x, "fault_corrupt", tot.fault_corrupt);
    report_u64(x, "fault_delay", tot.fault_delay);
    x = cJSON_AddObjectToObject(root, "oracle");
    cJSON_AddNumberToObject(x, "violations", r->violations);
    cJSON_AddStringToObject(x, "first", r->violation);
    return root;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "nodes", required_argument, 0, 'n' },   { "max-cycles", required_argument, 0, 'c' },
        { "seed", required_argument, 0, 's' },    { "drop", required_argument, 0, 'D' },
        { "corrupt", required_argument, 0, 'C' }, { "duplicate", required_argument, 0, 'U' },
        { "delay", required_argument, 0, 'L' },   { "frames", required_argument, 0, 'f' },
        { "no-skip", no_argument, 0, 'k' },       { "expect-oracle", no_argument, 0, 'o' },
        { "check-link", no_argument, 0, 'K' },    { "quiet", no_argument, 0, 'q' },
        { "fst", required_argument, 0, 'F' },     { "trace-node", required_argument, 0, 'T' },
        { "pcap", required_argument, 0, 'P' },    { "help", no_argument, 0, 'h' },
        { "link-gbps", required_argument, 0, 'G' }, { "json", required_argument, 0, 'J' },
        { "eval-all", no_argument, 0, 'E' }, { "pin-hash", no_argument, 0, 'H' },
        NODEDBG_LONG_OPTIONS,
        { 0, 0, 0, 0 },
    };
    struct cluster_config cfg;
    struct run r = { 0 };
    struct boot_arg args[CLUSTER_MAX_NODES];
    uint64_t v, max_cycles = 20000000, nodes = 2, seed = 1, frames = 64, gbps = 10;
    bool skip = true, quiet = false, eval_all = false, pin_hash = false;
    const char *fst_path = NULL, *pcap_path = NULL, *json_path = NULL;
    FILE *json = NULL;
    char error[320] = "";
    int li = -1;
    pcap_cap_t *pcap = NULL;
    unsigned halted = 0;
    uint64_t trace_node = 0;
    double fault[4] = { 0, 0, 0, 0 };
    int opt, rc;
    struct nodedbg_opts dbo;
    nodedbg_t *dbg = NULL;

    nodedbg_opts_default(&dbo);

    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", opts, &li)) != -1) {
        switch (opt) {
        case 'n':
            if (parse_u64(optarg, &nodes) || nodes < 1 || nodes > CLUSTER_MAX_NODES)
                goto bad;
            break;
        case 'c':
            if (parse_u64(optarg, &max_cycles) || max_cycles == 0)
                goto bad;
            break;
        case 's':
            if (parse_u64(optarg, &seed))
                goto bad;
            break;
        case 'D':
        case 'C':
        case 'U':
        case 'L':
            if (parse_prob(optarg, &fault[strchr("DCUL", opt) - "DCUL"]))
                goto bad;
            break;
        case 'G':
            if (parse_u64(optarg, &gbps) || gbps < 1 || gbps > 200)
                goto bad;
            break;
        case 'f':
            if (parse_u64(optarg, &v) || v > 1000000)
                goto bad;
            frames = v;
            break;
        case 'k':
            skip = false;
            break;
        case 'o':
            r.expect_oracle = true;
            break;
        case 'K':
            r.check_link = true;
            break;
        case 'F':
            fst_path = optarg;
            break;
        case 'P':
            pcap_path = optarg;
            break;
        case 'J':
            json_path = optarg;
            break;
        case 'T':
            if (parse_u64(optarg, &trace_node))
                goto bad;
            break;
        case 'q':
            quiet = true;
            break;
        case 'E':
            eval_all = true;
            break;
        case 'H':
            pin_hash = true;
            break;
        case 'h':
            usage(stdout);
            return EXIT_PASS;
        default: {
            int k = nodedbg_option(&dbo, opt, optarg, "nicrun", stderr);
            if (k == 1)
                break;
            if (k == 0)
                fprintf(stderr, "nicrun: unknown option or missing value: %s (nicrun --help)\n", argv[optind - 1]);
            return EXIT_SETUP;
        }
        }
        li = -1;
    }
    if (optind != argc - 1) {
        fprintf(stderr, optind < argc ? "nicrun: one IMAGE.img expected, not several (nicrun --help)\n"
                                      : "nicrun: IMAGE.img missing (nicrun --help)\n");
        usage(stderr);
        return EXIT_SETUP;
    }
    if (fst_path && !nic_model_traced()) { /* the same command line on nicrun-trace, built next to us */
        sim_exec_twin("nicrun", "nicrun-trace", "--fst", argv); /* returns only on failure */
        return EXIT_SETUP;
    }
    if (fst_path && trace_node >= nodes) {
        fprintf(stderr, "nicrun: --trace-node %" PRIu64 " but only %" PRIu64 " nodes\n", trace_node, nodes);
        return EXIT_SETUP;
    }
    r.image = read_file(argv[optind], &r.image_len);
    if (!r.image) {
        fprintf(stderr, "nicrun: %s: %s\n", argv[optind], strerror(errno));
        return EXIT_SETUP;
    }
    {   /* as the driver's loader will see it: a corrupt image is a set-up error before any cluster */
        struct nic_fwimg_info fi;
        if (report_image("nicrun", argv[optind], r.image, r.image_len, &fi)) {
            free(r.image);
            return EXIT_SETUP;
        }
    }
    report_signals();
    r.nodes = (unsigned)nodes;
    r.frames = (uint32_t)frames;
    {
        char err[200];
        if (!(r.dist = dist_open(&argc, &argv, "nicrun", 0, err, sizeof err))) {
            fprintf(stderr, "nicrun: %s\n", err);
            free(r.image);
            return EXIT_SETUP;
        }
    }
    /* under mpirun (any number of ranks): quanta, the same run for any K; alone: as ever */
    r.quanta = dist_is_mpi(r.dist);
    unsigned rank = dist_rank(r.dist);
    if (dist_size(r.dist) > r.nodes) {
        if (rank == 0)
            fprintf(stderr, "nicrun: %u ranks for %u nodes: every rank needs at least one node (run mpirun -np K "
                            "with K <= --nodes)\n", dist_size(r.dist), r.nodes);
        dist_close(r.dist);
        return EXIT_SETUP;
    }
    if (dist_check_same(r.dist, "nicrun", argc, argv, r.image, r.image_len) ||
        (dist_size(r.dist) > 1 && (fst_path || dbo.gdb_port >= 0 || dbo.trace_path || dbo.fst_scopes) &&
         (rank == 0 ? fprintf(stderr, "nicrun: --fst, --gdb and --trace-insn work with one rank only\n") : 1))) {
        dist_close(r.dist);
        return EXIT_SETUP;
    }
    if (rank != 0)
        quiet = true, pcap_path = NULL, json_path = NULL; /* rank 0 reports */
    if (json_path && !(json = report_open("nicrun", "--json", json_path))) { /* before the run */
        if (dist_size(r.dist) > 1)
            dist_abort(r.dist, EXIT_SETUP);
        dist_close(r.dist);
        free(r.image);
        return EXIT_SETUP;
    }

    cluster_config_default(&cfg, r.nodes);
    cfg.seed = seed;
    cfg.skip_idle = skip;
    cfg.node.eval_all = eval_all;
    cfg.node.pin_hash = pin_hash;
    cfg.console = quiet ? NULL : stdout;
    cfg.sw.port.bits_per_cycle = (uint32_t)(gbps * 5); /* bits per cycle at 200 MHz */
    cfg.sw.faults.drop = fault[0];
    cfg.sw.faults.corrupt = fault[1];
    cfg.sw.faults.duplicate = fault[2];
    cfg.sw.faults.delay = fault[3];
    r.faults = fault[0] > 0 || fault[1] > 0 || fault[2] > 0 || fault[3] > 0;
    cfg.quanta = r.quanta;
    cfg.dist = r.dist;
    r.cl = cluster_create(&cfg, NULL);
    if (!r.cl) {
        fprintf(stderr, "nicrun: cannot create the cluster\n");
        free(r.image);
        return EXIT_SETUP;
    }
    dbg = nodedbg_attach(&dbo, r.cl, (unsigned)trace_node, argv[optind], "nicrun", stderr);
    if (!dbg) {
        cluster_destroy(r.cl);
        free(r.image);
        return EXIT_SETUP;
    }
    if (fst_path && node_trace_open(cluster_node(r.cl, (unsigned)trace_node), fst_path)) {
        fprintf(stderr, "nicrun: %s: cannot open the waveform file\n", fst_path);
        cluster_destroy(r.cl);
        free(r.image);
        return EXIT_SETUP;
    }
    if (pcap_path && !(pcap = pcap_cap_open(pcap_path, r.cl, cfg.clock_hz))) {
        fprintf(stderr, "nicrun: --pcap %s: %s\n", pcap_path, strerror(errno));
        cluster_destroy(r.cl);
        free(r.image);
        return EXIT_SETUP;
    }
    if (r.quanta)
        cluster_set_sync(r.cl, &nicrun_sync, &r);
    for (unsigned i = 0; i < r.nodes; i++) {
        char name[16];
        if (!cluster_is_local(r.cl, i))
            continue;
        args[i] = (struct boot_arg){ &r, i };
        snprintf(name, sizeof name, "boot%u", i);
        coro_spawn(cluster_sched(r.cl), name, boot, &args[i], NULL);
        node_set_reset(cluster_node(r.cl, i), false);
    }

    rc = cluster_run(r.cl, max_cycles, all_done, &r, quiet ? NULL : stderr);
    if (r.quanta)
        gather_results(&r);

    const struct cluster_stats *cs = cluster_stats(r.cl);
    int result = EXIT_PASS;
    /* A halted NCP first, explained; the failures that follow from it (loads that never finish,
     * a timeout, its mailbox code) are not reported again. */
    for (unsigned i = 0; i < r.nodes; i++) {
        node_t *n = cluster_node(r.cl, i);
        if (!st(&r, i)->halted)
            continue;
        if (n) /* by the node's rank */
            fwdiag_explain(stderr, "nicrun", n, argv[optind]);
        halted++;
    }
    if (halted) {
        snprintf(error, sizeof error, "%u node%s halted", halted, halted == 1 ? "" : "s");
        if (rank == 0)
            fprintf(stderr, "nicrun: FAIL: %u node%s halted (later errors suppressed)\n", halted, halted == 1 ? "" : "s");
        result = EXIT_FAIL;
    } else if (r.boot_failed) {
        snprintf(error, sizeof error, "%u node%s could not be booted", r.boot_failed, r.boot_failed == 1 ? "" : "s");
        result = EXIT_SETUP;
    } else if (report_signal) {
        snprintf(error, sizeof error, "stopped by %s at cycle %" PRIu64 " (partial)", report_signame(report_signal),
                 cs->cycles);
        fprintf(stderr, "nicrun: %s\n", error);
        result = 128 + report_signal;
    } else if (r.expect_oracle) {
        if (r.violations) {
            if (rank == 0)
                printf("nicrun: the DMA oracle fired as expected: %s\n", r.violation);
        } else {
            if (rank == 0)
                fprintf(stderr, "nicrun: expected the DMA oracle to fire, it did not\n");
            snprintf(error, sizeof error, "expected the DMA oracle to fire, it did not");
            result = EXIT_FAIL;
        }
    } else if (rc != 0) {
        if (rank == 0)
            fprintf(stderr, "nicrun: TIMEOUT after %" PRIu64 " cycles\n", cs->cycles);
        snprintf(error, sizeof error, "--max-cycles %" PRIu64 " reached", max_cycles);
        result = EXIT_TIMEOUT;
    }
    for (unsigned i = 0; i < r.nodes && !r.expect_oracle && !halted; i++) {
        const struct node_status *s = st(&r, i);
        if (!s->test_done)
            continue;
        if (rank != 0) { /* rank 0 reports; the verdict is the same everywhere */
            if (s->test_status != 1 || r.host_ok[i] < 0)
                result = EXIT_FAIL;
            continue;
        }
        if (s->test_status != 1) {
            fprintf(stderr, "nicrun: node %u: FAIL code %" PRIu32 " (value 0x%08" PRIx32 ") at cycle %" PRIu64 "\n", i,
                    s->test_status >> 1, s->test_value, s->test_done_at);
            if (!error[0])
                snprintf(error, sizeof error, "node %u: FAIL code %" PRIu32, i, s->test_status >> 1);
            result = EXIT_FAIL;
        } else {
            printf("nicrun: node %u: PASS at cycle %" PRIu64 " (value 0x%08" PRIx32 ")\n", i, s->test_done_at,
                   s->test_value);
            int ok = r.quanta ? r.host_ok[i] : check_host(&r, i, s->test_value);
            if (ok > 0)
                printf("nicrun: node %u: host buffer verified (%u bytes written by NIC DMA)\n", i, HOSTMEM_PAGE_SIZE);
            if (ok < 0) {
                if (!error[0])
                    snprintf(error, sizeof error, "node %u: the host buffer does not hold what the image said", i);
                result = EXIT_FAIL;
            }
        }
    }
    if (r.violations && !r.expect_oracle) {
        if (!error[0])
            snprintf(error, sizeof error, "DMA oracle: %s", r.violation);
        result = EXIT_FAIL;
    }
    if (!halted && rank == 0 && link_accounting(&r) && result == EXIT_PASS) {
        snprintf(error, sizeof error, "link accounting does not add up");
        result = EXIT_FAIL;
    }
    if (pcap) {
        uint64_t nf = pcap_cap_frames(pcap);
        if (pcap_cap_close(pcap)) {
            fprintf(stderr, "nicrun: --pcap %s: write failed: the capture is incomplete\n", pcap_path);
            result = result ? result : EXIT_SETUP;
        } else {
            printf("nicrun: %" PRIu64 " frames captured to %s\n", nf, pcap_path);
        }
    }
    uint64_t not_eval = 0, hash = 0;
    for (unsigned i = 0; i < r.nodes && pin_hash; i++) { /* every output pin of every node, every cycle */
        const node_t *n = cluster_node(r.cl, i);
        if (!n) /* another rank's */
            continue;
        hash = (hash ^ node_status(n)->pin_hash) * 0x100000001B3ull + i;
        printf("nicrun: node %u pin hash %016" PRIx64 "\n", i, node_status(n)->pin_hash);
    }
    for (unsigned i = 0; i < r.nodes; i++)
        if (cluster_node(r.cl, i))
            not_eval += node_status(cluster_node(r.cl, i))->cycles_not_evaluated;
    if (pin_hash && rank == 0 && !r.quanta)
        printf("nicrun: pin hash %016" PRIx64 " (every output pin of every node, every cycle to %" PRIu64 ")\n",
               hash, cs->cycles);
    if (rank == 0)
        printf("nicrun: %" PRIu64 " cycles simulated (%" PRIu64 " clocked, %" PRIu64 " idle jumps; %" PRIu64
               " idle node-cycles not evaluated) in %.3f s: %.2f M simulated cycles/s%s\n",
               cs->cycles, cs->cycles_clocked, cs->skips, not_eval, cs->wall_s,
               cs->wall_s > 0 ? (double)cs->cycles / cs->wall_s / 1e6 : 0.0, r.quanta ? " (quanta, MPI)" : "");
    sim_cycle_t end = cs->cycles;
    if (nodedbg_finish(dbg, result)) {
        fprintf(stderr, "nicrun: --trace-insn: write failed: the trace is incomplete\n");
        result = result ? result : EXIT_SETUP;
    }
    if (json) {
        struct run_opts ro = { max_cycles, seed, frames, gbps, trace_node, { fault[0], fault[1], fault[2], fault[3] },
                               skip };
        if (report_write(json, run_json(&r, &ro, argv[optind], result, error), "nicrun", json_path) &&
            result == EXIT_PASS)
            result = EXIT_SETUP;
    }
    cluster_destroy(r.cl);
    free(r.image);
    /* every rank agrees on the verdict; the link accounting was rank 0's */
    if (r.quanta && dist_size(r.dist) > 1)
        result = (int)(dist_sum_u64(r.dist, rank == 0 ? (uint64_t)result : 0, end));
    dist_close(r.dist);
    return result;
bad:
    fprintf(stderr, "nicrun: bad value '%s' for --%s (nicrun --help)\n", optarg ? optarg : "",
            li >= 0 ? opts[li].name : "?");
    return EXIT_SETUP;
}
