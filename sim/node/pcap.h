/*
 * pcap.h - packet capture at the switch (--pcap FILE in nicsim and nicrun).
 *
 * pcap with nanosecond timestamps (magic 0xa1b23c4d), link type LINKTYPE_USER0 (147): each record
 * is one frame exactly as a NIC handed it to the switch (NCP header, payload, FCS), before
 * routing and fault injection. Timestamps are simulated time at the nominal clock (cycle *
 * 1e9 / clock_hz ns from the start of the run). tools/wireshark/ncp.lua decodes the NCP header.
 *
 * Contract: pcap_cap_open before the run (a bad path fails there, not after it); it installs the
 * switch's tap (the only tap: tests that set their own do not also capture); close flushes.
 */
#ifndef SIM_PCAP_H
#define SIM_PCAP_H

#include <stdint.h>

#include "cluster.h"

#define PCAP_LINKTYPE_USER0 147u

typedef struct pcap_cap pcap_cap_t;

/* NULL with errno set when the file cannot be created. cl: install the switch's tap; NULL: the
 * caller's own tap calls pcap_cap_frame (sharing the tap with another observer). */
pcap_cap_t *pcap_cap_open(const char *path, cluster_t *cl, uint64_t clock_hz);
void pcap_cap_frame(pcap_cap_t *p, sim_cycle_t now, const uint8_t *frame, size_t len);
/* Frames written so far. */
uint64_t pcap_cap_frames(const pcap_cap_t *p);
/* Flushes and closes; 0, or -1 if a write failed (the capture is incomplete). Detaches the tap. */
int pcap_cap_close(pcap_cap_t *p);

#endif /* SIM_PCAP_H */
