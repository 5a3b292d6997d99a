/*
 * loop.h - boot and the run-to-completion event loop: loop.c.
 */
#ifndef NCP_LOOP_H
#define NCP_LOOP_H

#include "ncp.h"

void ncp_boot(void);
void ncp_run_once(void);
void ncp_run(int (*until)(void));

#endif /* NCP_LOOP_H */
