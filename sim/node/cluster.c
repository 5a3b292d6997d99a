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
    cluster_hook_fn hook; /* debugging (cluster_set_hook) */
    void *hook_ctx;
};

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
    c->sw = switch_create(&c->cfg.sw);
    struct coro_config cc;
    coro_config_default(&cc);
    /* each node's host runs a few coroutines (driver interrupt and miss threads, the user
     * programs): room for 8 per node, at least the default */
    if (cc.max_coros < 8u * cfg->nodes + 32u)
        cc.max_coros = 8u * cfg->nodes + 32u;
    c->sched = coro_sched_create(&cc);
    if (!c->sw || !c->sched)
        goto fail;
    for (unsigned i = 0; i < cfg->nodes; i++) {
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
    free(c);
}

/* Earliest cycle at which anything happens, if every node is quiescent; else now. */
static sim_cycle_t next_activity(cluster_t *c)
{
    sim_cycle_t t = coro_next_event(c->sched);

    for (unsigned i = 0; i < c->cfg.nodes; i++) {
        if (!node_quiescent(c->node[i]))
            return c->now;
        t = sim_cycle_min(t, node_next_event(c->node[i], c->now));
    }
    return sim_cycle_max(t, c->now);
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cluster_run(cluster_t *c, sim_cycle_t max_cycles, cluster_stop_fn stop, void *ctx, FILE *progress)
{
    sim_cycle_t end = sim_cycle_add(c->now, max_cycles);
    double t0 = wall(), last = t0;
    sim_cycle_t last_cycles = c->now;
    int rc = 1;

    while (c->now < end) {
        uint32_t skip = 0;
        bool hold = c->hook && c->hook(c, c->hook_ctx);

        if (coro_next_event(c->sched) <= c->now)
            coro_run(c->sched, c->now);
        if (c->cfg.skip_idle && !hold) {
            sim_cycle_t t = next_activity(c);
            /* jump to one cycle before the event: that cycle is clocked with the skip */
            if (t > c->now + 1) {
                sim_cycle_t gap = sim_cycle_min(t, end) - c->now - 1;
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
        for (unsigned i = 0; i < c->cfg.nodes; i++)
            node_cycle(c->node[i], c->now, skip);
        c->now += 1 + (sim_cycle_t)skip;
        c->st.cycles_clocked++;
        if (stop && stop(c, ctx)) {
            rc = 0;
            break;
        }
        if (progress && (c->st.cycles_clocked & 0xFFFu) == 0) {
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
    return i < c->cfg.nodes ? c->node[i] : NULL;
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
