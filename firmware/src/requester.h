/*
 * requester.h - the requester: endpoints, send queue entries, segmentation: requester.c.
 */
#ifndef NCP_REQUESTER_H
#define NCP_REQUESTER_H

#include "ncp.h"

/* The endpoints (owned by requester.c; opened and closed by cmd.c, retired by ops.c). */
extern struct ncp_ep ep_tab[NCP_EP_SLOTS]; /* resident, then the host endpoints' cache slots */

extern const char *const ep_state_name[];

/* Boot: every endpoint CLOSED. */
void req_init(void);
/* EP_OPEN: endpoint epi of process pid, IDLE, its completion queue at cq_pa of 2^cq_log2 entries. */
void ep_open(uint8_t epi, uint16_t pid, uint64_t cq_pa, uint32_t cq_log2);
void req_on_doorbell(uint32_t ep, uint32_t off, uint32_t data);
/* Serves the endpoints with send work, and the parked ones when a fill arrived. */
void req_poll(void);
/* Timer source (timer.h): the wake-up of parked endpoints. */
int req_timer(uint32_t now, uint32_t *at);

/* This module's counters into the statistics (ncp_counters_gather). */
void req_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_REQUESTER_H */
