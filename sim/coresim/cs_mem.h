/* cs_mem.h - flat memory regions of coresim.
 * Contract: regions never overlap (cs_mem_add merges); an access outside every
 * region reports failure so the bus can answer with rsp_err. */
#ifndef CS_MEM_H
#define CS_MEM_H
#include <stddef.h>
#include <stdint.h>

#define CS_MEM_MAX_REGIONS 16

struct cs_region {
    uint32_t base;
    uint32_t size; /* bytes, multiple of 4 KiB, base+size <= 2^32 */
    uint8_t *data;
};

struct cs_mem {
    struct cs_region r[CS_MEM_MAX_REGIONS];
    int n;
    int last; /* index of the last region hit (lookup cache) */
};

/* add [base, base+size) rounded out to 4 KiB, merging with neighbours.
 * Returns 0, or -1 when the table is full or out of memory. Only valid before
 * cs_mem_alloc. */
int cs_mem_add(struct cs_mem *m, uint64_t base, uint64_t size);
/* allocate zeroed storage for all regions; 0 or -1 */
int cs_mem_alloc(struct cs_mem *m);
void cs_mem_free(struct cs_mem *m);
/* pointer to len bytes at addr if entirely inside one region, else NULL */
uint8_t *cs_mem_ptr(struct cs_mem *m, uint32_t addr, uint32_t len);
/* aligned 32-bit word access with byte enables; 0 ok, -1 unmapped */
int cs_mem_read32(struct cs_mem *m, uint32_t addr, uint32_t *val);
int cs_mem_write32(struct cs_mem *m, uint32_t addr, uint32_t val, unsigned be);

#endif
