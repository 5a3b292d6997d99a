/*
 * misstab.c - outstanding miss requests, merged per line, bounded (see misstab.h).
 */
#include "misstab.h"

#include <string.h>

#include "ncp_util.h"

void miss_init(struct misstab *t, struct miss_ent *storage, uint32_t n, uint32_t expire)
{
    memset(storage, 0, n * sizeof storage[0]);
    t->e = storage;
    t->n = n;
    t->expire = expire;
    memset(&t->st, 0, sizeof t->st);
}

enum miss_add_result miss_add(struct misstab *t, uint8_t cache, uint16_t pid, uint32_t line, uint16_t epoch,
                              uint8_t path, uint32_t now, struct miss_ent **out)
{
    struct miss_ent *free_e = NULL;

    for (uint32_t i = 0; i < t->n; i++) {
        struct miss_ent *e = &t->e[i];
        if (e->state == MISS_FREE) {
            if (!free_e)
                free_e = e;
            continue;
        }
        if (e->cache == cache && e->pid == pid && line - e->line < e->n) {
            *out = e;
            if (line != e->first)
                ncp_sat_inc(&t->st.range_merged);
            if (e->state == MISS_POSTED && now - e->since >= t->expire) {
                /* the host never answered (or its fill got lost): ask again */
                e->state = MISS_HELD;
                e->epoch = epoch;
                ncp_sat_inc(&t->st.expired);
                return MISS_ADD_NEW;
            }
            ncp_sat_inc(&t->st.merged);
            return MISS_ADD_MERGED;
        }
    }
    if (!free_e) {
        ncp_sat_inc(&t->st.full);
        *out = NULL;
        return MISS_ADD_FULL;
    }
    free_e->state = MISS_HELD;
    free_e->cache = cache;
    free_e->pid = pid;
    free_e->line = line;
    free_e->n = 1;
    free_e->first = line;
    free_e->epoch = epoch;
    free_e->path = path;
    free_e->since = now;
    ncp_sat_inc(&t->st.recorded);
    *out = free_e;
    return MISS_ADD_NEW;
}

void miss_posted(struct misstab *t, struct miss_ent *e, uint32_t now)
{
    NCP_ASSERT(NCP_MOD_MISS, 1, e >= t->e && e < t->e + t->n && e->state != MISS_FREE);
    e->state = MISS_POSTED;
    e->since = now;
}

void miss_set_span(struct miss_ent *e, uint32_t n)
{
    e->n = (uint8_t)(n < 1u ? 1u : n > 255u ? 255u : n);
}

int miss_resolve(struct misstab *t, uint8_t cache, uint16_t pid, uint32_t line)
{
    for (uint32_t i = 0; i < t->n; i++) {
        struct miss_ent *e = &t->e[i];
        if (e->state != MISS_FREE && e->cache == cache && e->pid == pid && line - e->line < e->n) {
            uint32_t done = line - e->line + 1u; /* the driver fills a range in order */
            if (done < e->n) {
                e->line = line + 1u;
                e->n = (uint8_t)(e->n - done);
                return 0;
            }
            e->state = MISS_FREE;
            ncp_sat_inc(&t->st.resolved);
            return 1;
        }
    }
    return 0;
}

struct miss_ent *miss_next_held(struct misstab *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->e[i].state == MISS_HELD)
            return &t->e[i];
    return NULL;
}

uint32_t miss_forget(struct misstab *t, uint8_t cache, uint16_t pid)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < t->n; i++) {
        struct miss_ent *e = &t->e[i];
        if (e->state != MISS_FREE && e->cache == cache && e->pid == pid) {
            e->state = MISS_FREE;
            n++;
        }
    }
    return n;
}

uint32_t miss_outstanding(const struct misstab *t)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < t->n; i++)
        n += t->e[i].state != MISS_FREE;
    return n;
}
