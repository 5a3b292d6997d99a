/*
 * requester.h - the requester: endpoints, send queue entries, segmentation: requester.c.
 */
#ifndef NCP_REQUESTER_H
#define NCP_REQUESTER_H

#include "ncp.h"

extern const char *const ep_state_name[];

void req_on_doorbell(uint32_t ep, uint32_t off, uint32_t data);
/* Serves the endpoints with send work, and the parked ones when a fill arrived. */
void req_poll(void);

#endif /* NCP_REQUESTER_H */
