/*
 * conn.h - connections: secrets, ISNs, tokens, the ACKs we owe: conn.c.
 */
#ifndef NCP_CONN_H
#define NCP_CONN_H

#include "ncp.h"

/* The connections, one per peer (owned by conn.c; every role reads its peer's). */
extern struct ncp_peer conn_peer[NCP_MAX_PEERS];

/* Connection ISNs and tokens from the fabric secret (boot and INIT: resets every connection). */
void ncp_secure(const uint32_t k[4]);
/* ACK frames to the peers that owe one and whose data is in host memory. */
void conn_flush_acks(void);
/* Selective repeat (1) or go-back-N (0) on every connection: INIT option NIC_XOPT_SR. */
void conn_set_sr(int on);
/* The transport's timer source (timer.h): timeouts and give-ups. */
int conn_timer(uint32_t now, uint32_t *at);
/* How long a read's responder may show no progress before the read fails (ops.c). */
uint32_t ncp_read_timeout(void);

/* This module's counters into the statistics (ncp_counters_gather). */
void conn_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_CONN_H */
