/*
 * mq.h - message queues (ABI 2.2, issue 15 item 7; docs/wire-protocol.md "Message queues"):
 * two-sided sends into posted receive buffers, for small messages and connection set-up.
 */
#ifndef NCP_MQ_H
#define NCP_MQ_H

#include "ncp.h"
#include "pkt.h"

/* Built into ncp.img (ncp_core), the firmware test images (ncp_core_fp) and the host-native tests;
 * only the fast-path benchmark image (ncp_core_bench, firmware/CMakeLists.txt) has NCP_MQ=0, so its
 * figures stay comparable: there a send or a receive post is a malformed entry (sqe.c) and a frame
 * with PKT_F_SEND is refused. */
#ifndef NCP_MQ
#define NCP_MQ 1
#endif

#if NCP_MQ
void mq_init(void);
/* NIC_OP_POST_RECV from endpoint epi of process pid, its local range checked (lbuf, local-write
 * right): the buffer joins the queue's ring. Returns the entry's status (nic_abi.h). */
int32_t mq_post(uint32_t epi, uint16_t pid, const struct nic_sq_entry *e, uint64_t laddr);
/* The receive path of a WRITE with PKT_F_SEND (responder.c): the header rewritten to the queue's
 * oldest posted buffer (its owner, buffer, key, offset) and its notification noted for RX entry
 * ridx; NULL when the send was answered instead (refused, or BUSY: no buffer posted). */
const struct pkt_hdr *mq_on_send(uint16_t peer, const struct pkt_hdr *h, uint32_t ridx);
/* The packet mq_on_send rewrote was accepted: its buffer leaves the ring. */
void mq_accepted(void);
/* Endpoint epi closed: the queues it claimed are free again (their posted buffers forgotten). */
void mq_ep_closed(uint32_t epi);
void mq_counters(struct nic_stats *s, struct ncp_counters *k);
#else
#include "rx.h"
static inline void mq_init(void) {}
static inline int32_t mq_post(uint32_t epi, uint16_t pid, const struct nic_sq_entry *e, uint64_t laddr)
{
    (void)epi, (void)pid, (void)e, (void)laddr;
    return NIC_ST_BAD_DESC;
}
static inline const struct pkt_hdr *mq_on_send(uint16_t peer, const struct pkt_hdr *h, uint32_t ridx)
{
    (void)ridx;
    rx_refuse(peer, h, NIC_ST_BAD_HANDLE); /* no queues here */
    return NULL;
}
static inline void mq_accepted(void) {}
static inline void mq_ep_closed(uint32_t epi)
{
    (void)epi;
}
static inline void mq_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)s, (void)k;
}
#endif

#endif /* NCP_MQ_H */
