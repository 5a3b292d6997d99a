/*
 * lkc.c - software set-associative LRU lookup cache (see lkc.h for the geometry and contracts).
 *
 * Role map: lkc_lookup() is the fast path (both send and receive paths call it per page or
 * buffer); everything else runs on fills, invalidations and commands.
 */
#include "lkc.h"

#include <string.h>

#include "ncp_util.h"

void lkc_init(struct lkc *c, const struct lkc_cfg *cfg, struct lkc_way *ways, uint32_t *data,
              uint16_t *epochs, uint32_t *seen, uint32_t *uses)
{
    c->cfg = cfg;
    c->ways = ways;
    c->data = data;
    c->epochs = epochs;
    c->seen = seen;
    c->uses = uses;
    memset(epochs, 0, LKC_EPOCHS_N(cfg->epoch_log2) * sizeof epochs[0]);
    lkc_reset(c);
}

void lkc_reset(struct lkc *c)
{
    const struct lkc_cfg *cfg = c->cfg;

    memset(c->ways, 0, LKC_WAYS_N(cfg->sets_log2, cfg->ways_log2) * sizeof c->ways[0]);
    memset(c->uses, 0, LKC_WAYS_N(cfg->sets_log2, cfg->ways_log2) * sizeof c->uses[0]);
    memset(c->seen, 0, LKC_SEEN_WORDS(cfg->seen_log2) * sizeof c->seen[0]);
    for (uint32_t i = 0; i < LKC_EPOCHS_N(cfg->epoch_log2); i++)
        c->epochs[i]++;
    c->clock = 0;
    memset(&c->st, 0, sizeof c->st);
}

static uint32_t seen_bit(const struct lkc *c, uint16_t pid, uint32_t line)
{
    uint32_t h = (line * 0x9E3779B1u) ^ ((uint32_t)pid * 0x85EBCA77u);
    return (h ^ (h >> 15)) & ((1u << c->cfg->seen_log2) - 1u);
}

const uint32_t *lkc_lookup(struct lkc *c, uint16_t pid, uint32_t idx, unsigned path)
{
    const struct lkc_cfg *cfg = c->cfg;
    uint32_t line = idx >> cfg->line_log2;
    uint32_t set = lkc_set(c, pid, line);
    uint32_t tag = line >> cfg->sets_log2;
    uint32_t key = pid | LKC_KEY_VALID;
    uint32_t base = set << cfg->ways_log2;
    struct lkc_way *w = c->ways + base;
    uint32_t nways = 1u << cfg->ways_log2;

    ncp_sat_inc(&c->st.lookups);
    for (uint32_t i = 0; i < nways; i++) {
        if (w[i].tag == tag && w[i].key == key) {
            w[i].stamp = ++c->clock;
            c->uses[base + i]++;
            ncp_sat_inc(&c->st.hits);
            uint32_t e = (((base + i) << cfg->line_log2) | (idx & ((1u << cfg->line_log2) - 1u)));
            return c->data + (e << cfg->entry_log2);
        }
    }
    uint32_t b = seen_bit(c, pid, line);
    int cold = !(c->seen[b / 32] & (1u << (b % 32)));
    if (path == LKC_PATH_SEND)
        ncp_sat_inc(cold ? &c->st.miss_cold_send : &c->st.miss_send);
    else
        ncp_sat_inc(cold ? &c->st.miss_cold_recv : &c->st.miss_recv);
    return NULL;
}

const uint32_t *lkc_peek(const struct lkc *c, uint16_t pid, uint32_t idx)
{
    const struct lkc_cfg *cfg = c->cfg;
    uint32_t line = idx >> cfg->line_log2;
    uint32_t set = lkc_set(c, pid, line);
    uint32_t base = set << cfg->ways_log2;

    for (uint32_t i = 0; i < (1u << cfg->ways_log2); i++) {
        const struct lkc_way *w = &c->ways[base + i];
        if (w->tag == line >> cfg->sets_log2 && w->key == (pid | LKC_KEY_VALID)) {
            uint32_t e = (((base + i) << cfg->line_log2) | (idx & ((1u << cfg->line_log2) - 1u)));
            return c->data + (e << cfg->entry_log2);
        }
    }
    return NULL;
}

uint32_t *lkc_fill_begin(struct lkc *c, uint16_t pid, uint32_t line, uint16_t epoch, unsigned *way_out)
{
    const struct lkc_cfg *cfg = c->cfg;
    uint32_t set = lkc_set(c, pid, line);
    uint32_t tag = line >> cfg->sets_log2;
    uint32_t base = set << cfg->ways_log2;
    uint32_t nways = 1u << cfg->ways_log2;
    uint32_t victim = nways, oldest_age = 0;

    if (epoch != lkc_epoch(c, pid)) {
        ncp_sat_inc(&c->st.fills_rejected);
        return NULL;
    }
    for (uint32_t i = 0; i < nways && victim == nways; i++) {
        const struct lkc_way *w = &c->ways[base + i];
        if (w->tag == tag && w->key == (pid | LKC_KEY_VALID))
            victim = i; /* refill of a present line: replace in place, no duplicate */
    }
    for (uint32_t i = 0; i < nways && victim == nways; i++)
        if (!(c->ways[base + i].key & LKC_KEY_VALID))
            victim = i;
    if (victim == nways) {
        for (uint32_t i = 0; i < nways; i++) {
            uint32_t age = c->clock - c->ways[base + i].stamp;
            if (victim == nways || age > oldest_age) {
                victim = i;
                oldest_age = age;
            }
        }
        ncp_sat_inc(&c->st.evictions);
    }
    c->ways[base + victim].key = 0; /* invalid while the line is written: no torn entries */
    *way_out = base + victim;
    return c->data + ((base + victim) << (cfg->line_log2 + cfg->entry_log2));
}

int lkc_has_room(const struct lkc *c, uint16_t pid, uint32_t line)
{
    const struct lkc_cfg *cfg = c->cfg;
    uint32_t base = lkc_set(c, pid, line) << cfg->ways_log2;

    for (uint32_t i = 0; i < (1u << cfg->ways_log2); i++) {
        const struct lkc_way *w = &c->ways[base + i];
        if (!(w->key & LKC_KEY_VALID) || (w->key == (pid | LKC_KEY_VALID) && w->tag == line >> cfg->sets_log2))
            return 1;
    }
    return 0;
}

void lkc_fill_commit(struct lkc *c, unsigned way, uint16_t pid, uint32_t line)
{
    const struct lkc_cfg *cfg = c->cfg;
    struct lkc_way *w = &c->ways[way];
    uint32_t b = seen_bit(c, pid, line);

    NCP_ASSERT(NCP_MOD_LKC, 1, way < LKC_WAYS_N(cfg->sets_log2, cfg->ways_log2));
    NCP_ASSERT(NCP_MOD_LKC, 2, lkc_set(c, pid, line) == way >> cfg->ways_log2);
    w->tag = line >> cfg->sets_log2;
    w->line = line;
    w->stamp = ++c->clock;
    c->uses[way] = 0; /* a new line: no hit yet */
    w->key = pid | LKC_KEY_VALID;
    c->seen[b / 32] |= 1u << (b % 32);
    ncp_sat_inc(&c->st.fills);
}

uint32_t lkc_invalidate(struct lkc *c, uint16_t pid, uint32_t first, uint32_t n)
{
    const struct lkc_cfg *cfg = c->cfg;
    uint32_t dropped = 0, total = LKC_WAYS_N(cfg->sets_log2, cfg->ways_log2);

    c->epochs[pid & ((1u << cfg->epoch_log2) - 1u)]++;
    if (n != 0 && n <= (1u << cfg->sets_log2)) {
        /* a short range: visit only the sets it maps to */
        for (uint32_t l = first; l != first + n; l++) {
            uint32_t base = lkc_set(c, pid, l) << cfg->ways_log2;
            for (uint32_t i = 0; i < (1u << cfg->ways_log2); i++) {
                struct lkc_way *w = &c->ways[base + i];
                if (w->key == (pid | LKC_KEY_VALID) && w->line == l) {
                    w->key = 0;
                    dropped++;
                }
            }
        }
    } else {
        for (uint32_t i = 0; i < total; i++) {
            struct lkc_way *w = &c->ways[i];
            if (w->key == (pid | LKC_KEY_VALID) && (n == 0 || (w->line - first) < n)) {
                w->key = 0;
                dropped++;
            }
        }
    }
    ncp_sat_add(&c->st.invalidations, dropped);
    return dropped;
}

uint32_t lkc_bytes(const struct lkc_cfg *cfg)
{
    return LKC_WAYS_N(cfg->sets_log2, cfg->ways_log2) * (uint32_t)(sizeof(struct lkc_way) + sizeof(uint32_t)) +
           LKC_DATA_WORDS(cfg->sets_log2, cfg->ways_log2, cfg->line_log2, cfg->entry_log2) * 4u +
           LKC_EPOCHS_N(cfg->epoch_log2) * 2u + LKC_SEEN_WORDS(cfg->seen_log2) * 4u;
}
