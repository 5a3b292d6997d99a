/* cs_mem.c - flat memory regions for coresim (see cs_mem.h). */
#include "cs_mem.h"

#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

int cs_mem_add(struct cs_mem *m, uint64_t base, uint64_t size)
{
    uint64_t lo = base & ~(uint64_t)(PAGE - 1);
    uint64_t hi = (base + size + PAGE - 1) & ~(uint64_t)(PAGE - 1);
    if (size == 0)
        return 0;
    if (hi > 0x100000000ull)
        return -1;
    /* absorb every region that overlaps or touches [lo, hi) */
    for (int i = 0; i < m->n;) {
        uint64_t rlo = m->r[i].base, rhi = rlo + m->r[i].size;
        if (rlo <= hi && lo <= rhi) {
            if (rlo < lo)
                lo = rlo;
            if (rhi > hi)
                hi = rhi;
            m->r[i] = m->r[m->n - 1];
            m->n--;
        } else {
            i++;
        }
    }
    if (m->n == CS_MEM_MAX_REGIONS)
        return -1;
    m->r[m->n].base = (uint32_t)lo;
    m->r[m->n].size = (uint32_t)(hi - lo);
    m->r[m->n].data = NULL;
    m->n++;
    return 0;
}

int cs_mem_alloc(struct cs_mem *m)
{
    for (int i = 0; i < m->n; i++) {
        m->r[i].data = calloc(1, m->r[i].size);
        if (!m->r[i].data)
            return -1;
    }
    m->last = 0;
    return 0;
}

void cs_mem_free(struct cs_mem *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->r[i].data);
        m->r[i].data = NULL;
    }
}

static struct cs_region *find(struct cs_mem *m, uint32_t addr, uint32_t len)
{
    struct cs_region *r = &m->r[m->last];
    if (m->n && addr - r->base < r->size && len <= r->size - (addr - r->base))
        return r;
    for (int i = 0; i < m->n; i++) {
        r = &m->r[i];
        if (addr - r->base < r->size && len <= r->size - (addr - r->base)) {
            m->last = i;
            return r;
        }
    }
    return NULL;
}

uint8_t *cs_mem_ptr(struct cs_mem *m, uint32_t addr, uint32_t len)
{
    struct cs_region *r = find(m, addr, len);
    return r ? r->data + (addr - r->base) : NULL;
}

int cs_mem_read32(struct cs_mem *m, uint32_t addr, uint32_t *val)
{
    uint8_t *p = cs_mem_ptr(m, addr & ~3u, 4);
    if (!p)
        return -1;
    *val = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return 0;
}

int cs_mem_write32(struct cs_mem *m, uint32_t addr, uint32_t val, unsigned be)
{
    uint8_t *p = cs_mem_ptr(m, addr & ~3u, 4);
    if (!p)
        return -1;
    for (int i = 0; i < 4; i++)
        if (be & (1u << i))
            p[i] = (uint8_t)(val >> (8 * i));
    return 0;
}
