/*
 * cmd.h - host commands and the event ring to the host: cmd.c.
 */
#ifndef NCP_CMD_H
#define NCP_CMD_H

#include "dmaq.h"
#include "ncp.h"

void cmd_init(void);
void cmd_on_doorbell(uint32_t off, uint32_t data);
void cmd_poll(void);
void cmd_dma_done(uint8_t err);
/* The event ring at `pa` of 2^log2 entries, empty (INIT). */
void ev_ring_set(uint64_t pa, uint32_t log2);
/* Events produced so far (the count the host acknowledges with an EV_CI doorbell). */
uint32_t ev_produced(void);
int ev_post(uint8_t type, uint8_t cache, uint8_t path, uint16_t pid, uint16_t epoch, uint32_t key, int32_t status,
            uint32_t a);
/* A MISS event for `lines` lines from `line` on (prefetch on a miss; 0 or 1: the line only). */
int ev_post_miss(uint8_t cache, uint8_t path, uint16_t pid, uint16_t epoch, uint32_t line, uint32_t lines);
/* A 32-byte staging slot for an event or completion entry about to be DMA'd, or NULL when every
 * slot's DMA is still in flight. */
/* 1 when the next n staging slots are free (their DMA done). */
int stage_free(uint32_t n);
void *stage_slot(void);
/* The staging slots (cmd.c) and stage_slot inline, for the completion path (cqe_post: no call, so
 * no registers saved around it). A slot is free again when the DMA posted right after it was taken
 * (its ticket) completed. */
extern uint8_t stage[NCP_STAGE_N][32];
extern uint32_t stage_ticket[NCP_STAGE_N];
extern uint32_t stage_next;
static inline __attribute__((always_inline)) void *stage_slot_inline(void)
{
    uint32_t i = stage_next % NCP_STAGE_N;
    if (stage_next >= NCP_STAGE_N && !seq_le(stage_ticket[i], dmaq.done))
        return NULL;
    stage_next++;
    stage_ticket[i] = dmaq.head + 1u; /* the DMA the caller posts next (dmaq_barrier_ticket() + 1) */
    return stage[i];
}

/* This module's counters into the statistics (ncp_counters_gather). */
void cmd_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_CMD_H */
