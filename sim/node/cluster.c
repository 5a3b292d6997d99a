/* cluster.c - the simulation loop (see cluster.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cluster {
    struct cluster_config cfg;
    node_t *node[CLUSTER_MAX_NODES];
    switch_t *sw;
    coro_sched_t *sched;
    sim_cycle_t now;
    struct cluster_stats st;
    cluster_note_fn note;
    void *note_ctx;
    /* quanta */
    unsigned rank, nranks;
    uint16_t rank_of[CLUSTER_MAX_NODES]; /* node -> rank */
    uint16_t local[CLUSTER_MAX_NODES];   /* this rank's nodes, in node order */
    unsigned nlocal;
    const struct cluster_sync *sync;
    void *sync_ctx;
    struct cluster_buf out;
    sim_cycle_t jump_to; /* set at a boundary: every rank idle until then (0: no jump) */
    cluster_hook_fn hook; /* debugging (cluster_set_hook) */
    void *hook_ctx;
};

void cluster_assign_blocks(unsigned nodes, unsigned nranks, uint16_t *rank_of)
{
    for (unsigned r = 0; r < nranks; r++)
        for (unsigned i = (unsigned)((uint64_t)nodes * r / nranks); i < (uint64_t)nodes * (r + 1) / nranks; i++)
            rank_of[i] = (uint16_t)r;
}

void cluster_config_default(struct cluster_config *cfg, unsigned nodes)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->nodes = nodes;
    switch_config_default(&cfg->sw, nodes < 2 ? 2 : nodes);
    cfg->sw.check_src = true; /* the fabric knows its ports: no frame in another node's name (switch.h) */
    node_config_default(&cfg->node, 0);
    cfg->skip_idle = true;
    cfg->clock_hz = SIM_CLOCK_DEFAULT_HZ;
    cfg->seed = 1;
    cfg->console = stdout;
}

cluster_t *cluster_create(const struct cluster_config *cfg, const costs_t *costs)
{
    cluster_t *c;

    if (cfg->nodes < 1 || cfg->nodes > CLUSTER_MAX_NODES)
        return NULL;
    c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->cfg = *cfg;
    c->cfg.sw.nports = cfg->nodes < 2 ? 2 : cfg->nodes;
    c->cfg.sw.seed = cfg->seed;
    c->nranks = cfg->quanta ? dist_size(cfg->dist) : 1;
    c->rank = cfg->quanta ? dist_rank(cfg->dist) : 0;
    if (c->nranks > cfg->nodes) { /* every rank needs a node: the caller says so first */
        free(c);
        return NULL;
    }
    if (cfg->rank_of) {
        unsigned per[CLUSTER_MAX_NODES] = { 0 };
        for (unsigned i = 0; i < cfg->nodes; i++) {
            if (cfg->rank_of[i] >= c->nranks) {
                free(c);
                return NULL;
            }
            c->rank_of[i] = cfg->rank_of[i];
            per[cfg->rank_of[i]]++;
        }
        for (unsigned r = 0; r < c->nranks; r++)
            if (!per[r]) { /* every rank needs a node */
                free(c);
                return NULL;
            }
    } else {
        cluster_assign_blocks(cfg->nodes, c->nranks, c->rank_of);
    }
    c->cfg.rank_of = NULL; /* copied */
    for (unsigned i = 0; i < cfg->nodes; i++)
        if (c->rank_of[i] == c->rank)
            c->local[c->nlocal++] = (uint16_t)i;
    c->sw = switch_create(&c->cfg.sw);
    {   /* room for every local node's host threads (user program, interrupt, up to 16 miss threads) */
        struct coro_config cc;
        coro_config_default(&cc);
        cc.max_coros = 64 + 20 * c->nlocal;
        c->sched = coro_sched_create(&cc);
    }
    if (!c->sw || !c->sched)
        goto fail;
    if (cfg->quanta) {
        switch_set_deferred(c->sw, true);
        for (unsigned p = 0; p < c->cfg.sw.nports; p++)
            switch_set_local(c->sw, p, p < cfg->nodes && c->rank_of[p] == c->rank);
    }
    for (unsigned k = 0; k < c->nlocal; k++) {
        unsigned i = c->local[k];
        struct node_config nc = cfg->node;
        nc.id = i;
        nc.mem.seed = cfg->seed * 1000003u + i;
        nc.os.seed = cfg->seed * 1000033u + i;
        nc.console = cfg->console;
        nc.phy_bits_per_cycle = c->cfg.sw.port.bits_per_cycle;
        nc.phy_gap_bytes = c->cfg.sw.gap_bytes;
        c->node[i] = node_create(&nc, c->sw, costs);
        if (!c->node[i])
            goto fail;
    }
    return c;
fail:
    cluster_destroy(c);
    return NULL;
}

void cluster_destroy(cluster_t *c)
{
    if (!c)
        return;
    coro_sched_destroy(c->sched); /* shuts coroutines down before the nodes they use go */
    for (unsigned i = 0; i < CLUSTER_MAX_NODES; i++)
        node_destroy(c->node[i]);
    switch_destroy(c->sw);
    free(c->out.p);
    free(c);
}

static int boundary(cluster_t *c);

int cluster_buf_put(struct cluster_buf *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        uint8_t *p;
        while (cap < b->n + n)
            cap *= 2;
        if (!(p = realloc(b->p, cap)))
            return -1;
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
    return 0;
}

static double cpu(void);
static double wall(void);

/* boundary() with its cost counted (cluster_stats) */
static int boundary_timed(cluster_t *c)
{
    double c0, w0;
    int rc;
    if (!c->cfg.quanta)
        return 0;
    c0 = cpu(), w0 = wall();
    rc = boundary(c);
    c->st.boundaries++;
    c->st.boundary_cpu_s += cpu() - c0;
    c->st.boundary_wall_s += wall() - w0;
    return rc;
}

int cluster_boundary(cluster_t *c)
{
    return boundary_timed(c);
}

void cluster_set_sync(cluster_t *c, const struct cluster_sync *ops, void *ctx)
{
    c->sync = ops;
    c->sync_ctx = ctx;
}

sim_cycle_t cluster_quantum(const cluster_t *c)
{
    sim_cycle_t q;
    if (!c->cfg.quanta)
        return 0;
    q = switch_min_latency(c->sw);
    return q < 1 ? 1 : q;
}

unsigned cluster_rank_of(const cluster_t *c, unsigned node)
{
    return node < c->cfg.nodes ? c->rank_of[node] : 0;
}

bool cluster_is_local(const cluster_t *c, unsigned node)
{
    return node < c->cfg.nodes && c->rank_of[node] == c->rank;
}

dist_t *cluster_dist(const cluster_t *c)
{
    return c->cfg.quanta ? c->cfg.dist : NULL;
}

/* Earliest cycle at which anything happens, if every node is quiescent; else now. */
static sim_cycle_t next_activity(cluster_t *c)
{
    sim_cycle_t t = coro_next_event(c->sched);

    for (unsigned k = 0; k < c->nlocal; k++) {
        unsigned i = c->local[k];
        if (!node_quiescent(c->node[i]))
            return c->now;
        t = sim_cycle_min(t, node_next_event(c->node[i], c->now));
    }
    return sim_cycle_max(t, c->now);
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The end of a quantum: every rank's frames into the switch, every rank's hook data, in rank
 * order; -1 when the ranks lost each other (already reported). */
static int boundary(cluster_t *c)
{
    if (!c->cfg.quanta)
        return 0;
    size_t swb = 0;
    const uint8_t *sw = switch_pending(c->sw, &swb, NULL);
    uint64_t n64 = swb, hdr[2];
    const uint8_t *const *blocks;
    const size_t *lens;
    unsigned k = c->nranks;
    const uint8_t **sb, **ab;
    size_t *sl, *al;
    int rc = 0, frames = 0, woke = 0;
    sim_cycle_t next = SIM_CYCLE_NEVER;

    /* this rank's earliest activity (now if a node is busy or a coroutine is due) */
    hdr[0] = c->cfg.skip_idle ? next_activity(c) : c->now;
    hdr[1] = n64;
    c->out.n = 0;
    c->jump_to = 0;
    if (cluster_buf_put(&c->out, hdr, sizeof hdr) || cluster_buf_put(&c->out, sw, swb))
        return -1;
    switch_pending_clear(c->sw);
    if (c->sync && c->sync->pack)
        c->sync->pack(c->sync_ctx, c->now, &c->out);
    if (c->cfg.dist) {
        if (dist_allgather(c->cfg.dist, c->out.p, c->out.n, c->now, &blocks, &lens))
            return -1;
    } else {
        static const uint8_t *one[1];
        static size_t onel[1];
        one[0] = c->out.p;
        onel[0] = c->out.n;
        blocks = one;
        lens = onel;
        k = 1;
    }
    sb = malloc(k * sizeof *sb), ab = malloc(k * sizeof *ab);
    sl = malloc(k * sizeof *sl), al = malloc(k * sizeof *al);
    if (!sb || !ab || !sl || !al) {
        rc = -1;
        goto out;
    }
    for (unsigned r = 0; r < k; r++) {
        uint64_t h[2];
        if (lens[r] < sizeof h) {
            rc = -1;
            goto out;
        }
        memcpy(h, blocks[r], sizeof h);
        if (h[1] > lens[r] - sizeof h) {
            rc = -1;
            goto out;
        }
        next = sim_cycle_min(next, h[0]);
        frames |= h[1] != 0;
        sb[r] = blocks[r] + sizeof h;
        sl[r] = (size_t)h[1];
        ab[r] = sb[r] + h[1];
        al[r] = lens[r] - sizeof h - (size_t)h[1];
    }
    if (switch_apply(c->sw, sb, sl, k) != SIM_OK) {
        rc = -1;
        goto out;
    }
    for (unsigned i = 0; i < c->nlocal; i++) /* pause requests after the frames handed in before them */
        node_pause_sync(c->node[c->local[i]], c->now);
    if (c->sync && c->sync->unpack)
        woke = c->sync->unpack(c->sync_ctx, c->now, ab, al, k);
    /* Every rank idle, no frame and nothing woken at this boundary: all ranks jump together to
     * the earliest activity of any (the same decision on every rank, so the same run for any
     * number of ranks; within a quantum every cycle is clocked). */
    if (!frames && !woke && next > c->now + 1)
        c->jump_to = next;
out:
    free(sb);
    free(ab);
    free(sl);
    free(al);
    return rc;
}

int cluster_run(cluster_t *c, sim_cycle_t max_cycles, cluster_stop_fn stop, void *ctx, FILE *progress)
{
    sim_cycle_t end = sim_cycle_add(c->now, max_cycles);
    sim_cycle_t q = cluster_quantum(c), qend = end;
    double t0 = wall(), last = t0, c0 = cpu();
    sim_cycle_t last_cycles = c->now;
    uint64_t nb = 0;
    int rc = 1;

    if (q)
        qend = sim_cycle_min(end, (c->now / q + 1) * q);
    while (c->now < end) {
        uint32_t skip = 0;
        bool hold = c->hook && c->hook(c, c->hook_ctx);

        if (coro_next_event(c->sched) <= c->now)
            coro_run(c->sched, c->now);
        if (q) {
            /* agreed at the boundary (see boundary()); a debugger's hold (one rank only) forbids it */
            if (c->jump_to > c->now + 1 && !hold) {
                sim_cycle_t to = sim_cycle_min(c->jump_to, end), g = (c->now / q + 1) * q;
                /* Boundaries stay on the grid of multiples of q, as without jumps, and a jump
                 * does not pass the boundary at which the run would stop (the idle nodes change
                 * nothing the predicate sees): the same run as --no-skip (nicsim.identity_*). */
                if (to > g && stop) {
                    sim_cycle_t now = c->now;
                    c->now = g;
                    bool s = stop(c, ctx);
                    c->now = now;
                    if (s)
                        to = g;
                }
                sim_cycle_t gap = to - c->now - 1;
                skip = gap > UINT32_MAX ? UINT32_MAX : (uint32_t)gap;
                if (skip)
                    c->st.skips++;
                sim_cycle_t after = c->now + 1 + skip;
                qend = sim_cycle_min(end, (after + q - 1) / q * q);
            }
            c->jump_to = 0;
        } else if (c->cfg.skip_idle && !hold) {
            sim_cycle_t t = next_activity(c);
            /* jump to one cycle before the event: that cycle is clocked with the skip */
            if (t > c->now + 1) {
                sim_cycle_t gap = sim_cycle_min(t, qend) - c->now - 1;
                skip = gap > UINT32_MAX ? UINT32_MAX : (uint32_t)gap;
                /* Not past the end: if the run would stop after this cycle (the coroutines just
                 * finished it; the quiescent nodes change nothing the predicate sees), this
                 * cycle is clocked alone, so the run ends at the cycle it ends without skipping. */
                if (skip && stop) {
                    c->now++;
                    bool s = stop(c, ctx);
                    c->now--;
                    if (s)
                        skip = 0;
                }
                if (skip)
                    c->st.skips++;
            }
        }
        for (unsigned k = 0; k < c->nlocal; k++)
            node_cycle(c->node[c->local[k]], c->now, skip);
        c->now += 1 + (sim_cycle_t)skip;
        c->st.cycles_clocked++;
        if (!q && c->cfg.sw.pause) /* without quanta the switch takes frames as they come: pauses too */
            for (unsigned k = 0; k < c->nlocal; k++)
                node_pause_sync(c->node[c->local[k]], c->now);
        if (q) {
            if (c->now < qend)
                continue;
            if (boundary_timed(c)) {
                fprintf(stderr, "cluster: rank %u: the ranks lost each other at cycle %llu\n", c->rank,
                        (unsigned long long)c->now);
                dist_abort(c->cfg.dist, DIST_EXIT_LOST);
            }
            qend = sim_cycle_min(end, c->now + q);
        }
        if (stop && stop(c, ctx)) {
            rc = 0;
            break;
        }
        if (progress && (q ? (++nb & 0x3Fu) == 0 : (c->st.cycles_clocked & 0xFFFu) == 0)) {
            double w = wall();
            if (w - last >= 1.0) {
                char note[96] = "";
                if (c->note)
                    c->note(c->note_ctx, note, sizeof note);
                double pmax = 100.0 * (double)c->now / (double)(end ? end : 1);
                char maxs[32] = ""; /* the cycle limit, once it is near enough to matter */
                if (pmax >= 1.0)
                    snprintf(maxs, sizeof maxs, ", %.0f%% of max", pmax);
                fprintf(progress, "\r[sim] %.3f ms simulated%s, %.2f M cycles/s%s%s   ",
                        (double)c->now * 1e3 / (double)c->cfg.clock_hz, maxs,
                        (double)(c->now - last_cycles) / (w - last) / 1e6, note[0] ? ", " : "", note);
                fflush(progress);
                last = w;
                last_cycles = c->now;
            }
        }
    }
    if (progress && last != t0)
        fputc('\n', progress);
    c->st.cycles = c->now;
    c->st.wall_s += wall() - t0;
    c->st.cpu_s += cpu() - c0;
    return rc;
}

void cluster_set_hook(cluster_t *c, cluster_hook_fn fn, void *ctx)
{
    c->hook = fn;
    c->hook_ctx = ctx;
}

void cluster_set_progress_note(cluster_t *c, cluster_note_fn fn, void *ctx)
{
    c->note = fn;
    c->note_ctx = ctx;
}

unsigned cluster_nodes(const cluster_t *c)
{
    return c->cfg.nodes;
}

/* splitmix64 of the cluster seed and a purpose: the harness's secrets for the simulated hosts. */
uint64_t cluster_secret(const cluster_t *c, uint64_t purpose)
{
    uint64_t z = c->cfg.seed * 0x9E3779B97F4A7C15ull + purpose * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z ? z : 1;
}

node_t *cluster_node(cluster_t *c, unsigned i)
{
    return i < c->cfg.nodes ? c->node[i] : NULL; /* NULL for another rank's node */
}

switch_t *cluster_switch(cluster_t *c)
{
    return c->sw;
}

coro_sched_t *cluster_sched(cluster_t *c)
{
    return c->sched;
}

sim_cycle_t cluster_now(const cluster_t *c)
{
    return c->now;
}

const struct cluster_stats *cluster_stats(const cluster_t *c)
{
    return &c->st;
}
