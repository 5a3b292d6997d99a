/*
 * epc.h - host endpoints (issue 15 item 2): endpoint ids NCP_EPS..NCP_EP_IDS-1 whose contexts live
 * in the driver's table in host memory and are cached in NCP_EPC_N slots of ep_tab (indices
 * NCP_EPS..NCP_EP_SLOTS-1), their send queues in the process's memory fetched by DMA into a
 * staging image per slot: epc.c. docs/host-interface.md "Host endpoints".
 */
#ifndef NCP_EPC_H
#define NCP_EPC_H

#include "ncp.h"

/*
 * Linked on demand: the shared paths reach this module through weak references only, so an image
 * that does not name it (a firmware test image short of IMEM) has no host endpoints (EP_TABLE is
 * refused, info.max_eps = 0) and pays nothing; ncp.img names it (main.c), as do its tests.
 */
#define EPC_WEAK __attribute__((weak))

/* The staging images of the cached host endpoints' send queues (the resident ones are in the
 * sendq SRAM region, written by the host through its doorbell page). */
extern uint8_t epc_sq[NCP_EPC_N][NCP_SQ_N * sizeof(struct nic_sq_entry)] EPC_WEAK;
/* Endpoint id of each cache slot (0: none). */
extern uint16_t epc_id[NCP_EPC_N] EPC_WEAK;

/* SRAM offset of the send queue image of ep_tab[epi]. */
static inline uint32_t ep_sq_off(uint32_t epi)
{
    return epi < NCP_EPS ? NIC_SRAM_SENDQ_OFFSET + epi * NIC_SENDQ_STRIDE : HAL_SRAM_OFF(epc_sq[epi - NCP_EPS]);
}
/* The endpoint id of ep_tab[epi] (what the host knows it by: completions' event queue entries). */
static inline uint16_t ep_id(uint32_t epi)
{
    return epi < NCP_EPS ? (uint16_t)epi : epc_id[epi - NCP_EPS];
}

EPC_WEAK void epc_init(void);
/* NIC_CMD_EP_TABLE: page k of the context table at pa. Returns an enum nic_status. */
EPC_WEAK int32_t epc_table(uint32_t k, uint64_t pa);
/* EP_OPEN of a host endpoint id: an enum nic_status (nothing is cached until it rings). */
EPC_WEAK int32_t epc_open(uint32_t id);
/* EP_CLOSE of a host endpoint id: the ep_tab index to close (cached), 0 when the NCP holds nothing
 * of it (answer OK), -1 BAD_CMD, -2 BUSY (a fetch or fill of it in flight: ask again). */
EPC_WEAK int32_t epc_close(uint32_t id);
/* A doorbell on a host endpoint's page. */
EPC_WEAK void epc_on_doorbell(uint32_t id, uint32_t off, uint32_t data);
/* Doorbells were dropped (the doorbell FIFO overflowed): every host endpoint's record is read again. */
EPC_WEAK void epc_check_lost(void);
/* Pending fills, evictions and deferred fetches (ncp_work.epc). */
EPC_WEAK void epc_poll(void);
/* DK_EPC continuation: a = slot | kind << 8. */
EPC_WEAK void epc_dma_done(uint32_t a, uint32_t b, int err);
EPC_WEAK void epc_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_EPC_H */
