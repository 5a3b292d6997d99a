/*
 * node.h - one simulated node: a Verilated NIC plus its host (physical memory with the DMA
 * oracle, OS model, PCIe link), joined to the cluster's switch.
 *
 * Role map: node_cycle() is one NIC clock. It moves, at their simulated times,
 *   host MMIO requests   PCIe model -> nic_top host port (and read data back)
 *   DMA requests/data    nic_top DMA master <-> PCIe model <-> host memory (through the oracle)
 *   frames               nic_top MAC TX -> switch ingress; switch egress -> nic_top MAC RX
 *   host interrupt       rising edge of host_irq -> an MSI on the PCIe model
 *   console / mailbox    characters to the node's log, test status to node_status
 * Nothing here interprets what the firmware does; it is the board and the world around it.
 *
 * Host MMIO addresses on the PCIe model are (BAR code << NODE_BAR_SHIFT) | offset, with the BAR
 * codes the NIC's host port decodes (NIC_BAR_*_CODE, linker/memmap.toml).
 *
 * Contract: single-threaded; the cluster owns nodes and calls them in a fixed order each cycle.
 */
#ifndef NODE_H
#define NODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hostmem.h"
#include "nic_memmap.h"
#include "os.h"
#include "pcie.h"
#include "switch.h"

#define NODE_BAR_SHIFT 24 /* host_req_addr is 24 bits */
#define NODE_MMIO_ADDR(bar, off) (((uint64_t)(bar) << NODE_BAR_SHIFT) | (uint64_t)(off))

typedef struct node node_t;

struct node_config {
    unsigned id;             /* node id = switch port = link address */
    struct pcie_config pcie; /* pcie.dev is the NIC's device id in hostmem */
    struct hostmem_config mem;
    struct os_config os;
    FILE *console; /* console lines go here, prefixed "[node N] " (NULL: discarded) */
    uint32_t phy_bits_per_cycle; /* the PHY's rate, both ways: the MAC transmits at it (nic_top's
                                    phy_rate pin, read back in mac.link_rate) and received beats
                                    enter the MAC at it, as a real PHY delivers them (the cluster
                                    sets its port rate; 0 = the MAC's default LINK_RATE for
                                    transmit and one 64-bit beat per cycle for receive). */
    bool tx_ct_off;         /* the MAC's cut-through strap (nic_top tx_ct_off): gated frames wait
                               for their DMA's completion whatever the firmware asks (A/B studies) */
    uint32_t phy_gap_bytes; /* line bytes per frame beyond its own (preamble, start delimiter,
                               inter-frame gap: 20, as the MAC's transmit side charges); the
                               cluster sets the switch's gap_bytes */
    /* Simulation speed (docs/simulation-speed.md). By default an idle NIC (nic_top's `idle`:
     * core quiescent in wfi, engines idle) whose inputs stay as they were is not evaluated: the
     * node counts the cycles and presents the outputs it had (the timer's countdown advanced),
     * and catches the model up with one clock and a skip when anything arrives. eval_all
     * evaluates every cycle (the reference). pin_hash folds every output pin of every cycle into
     * node_status.pin_hash (slower; for checking that an optimisation changes nothing). */
    bool eval_all;
    bool pin_hash;
};

struct node_status {
    bool test_done; /* the mailbox got an odd status */
    uint32_t test_status, test_value;
    sim_cycle_t test_done_at;
    uint64_t console_bytes;
    uint64_t frames_sent, frames_received, bytes_sent, bytes_received;
    uint64_t frames_received_bad_fcs; /* handed to the MAC with an FCS that does not match */
    uint64_t msi_sent;
    uint64_t dma_read_reqs, dma_write_reqs, dma_errors;
    uint64_t cycles_run, cycles_skipped;
    uint64_t cycles_not_evaluated; /* idle cycles the model was not evaluated (node_config.eval_all) */
    uint64_t cycles_evaluated;     /* clocks the model was evaluated (the simulator's work for this
                                      node; the same for any number of ranks) */
    uint64_t pin_hash;             /* node_config.pin_hash: every output pin, every cycle */
    /* The NCP stopped (firmware/rt/trap.c's fatal path, seen on its console): halted is set by
     * "ncp: fatal: WHY" (why copied), trapped additionally by the "ncp: unhandled trap" line
     * before it (mcause, mepc, mtval). Nothing else in the harness interprets the firmware. */
    bool halted, trapped;
    uint32_t mcause, mepc, mtval;
    sim_cycle_t halted_at;
    char why[64];
};

/* The node's last console lines, oldest first (kept whether or not cfg.console prints them). */
#define NODE_CONSOLE_TAIL 8
#define NODE_CONSOLE_LINE 160
unsigned node_console_tail(const node_t *n, char lines[][NODE_CONSOLE_LINE], unsigned max);

void node_config_default(struct node_config *cfg, unsigned id);

/* NULL on bad configuration or out of memory. The switch (NULL: no link) outlives the node;
 * costs may be NULL (pinning is free). */
node_t *node_create(const struct node_config *cfg, switch_t *sw, const costs_t *costs);
void node_destroy(node_t *n);

/* Hold or release the whole NIC in power-on reset. */
void node_set_reset(node_t *n, bool on);

/* One NIC clock at cycle `now`; skip > 0 additionally advances the NIC's timer and cycle counter
 * by that many cycles (the cluster has proven nothing happens meanwhile). An idle node with
 * nothing arriving is not evaluated (node_config.eval_all); the pins it presents, its status and
 * everything it does are those of an evaluation. */
void node_cycle(node_t *n, sim_cycle_t now, uint32_t skip);

/* True when nothing can happen in this node until node_next_event(): the core sleeps, the NIC's
 * engines are idle and the harness holds no transfer in progress. */
bool node_quiescent(const node_t *n);
/* Earliest cycle something is due for this node (PCIe arrival, frame delivery, timer interrupt);
 * SIM_CYCLE_NEVER if none. Meaningful when node_quiescent(). */
sim_cycle_t node_next_event(const node_t *n, sim_cycle_t now);
/* Hands the MAC's pause request (nic_pins.rx_xoff) to the switch once the link's latency has
 * passed since it changed (switch_pause; nothing when the switch ignores pauses). The cluster calls
 * it at each quantum boundary, after the boundary's frames are in the switch, so the request takes
 * effect at the same cycle for any number of ranks. */
void node_pause_sync(node_t *n, sim_cycle_t now);

/* Start an FST waveform of this node's NIC (only with the traced model, sim_node_trace): 0 or -1. */
int node_trace_open(node_t *n, const char *path);

/* Debugging (sim/node/nodedbg.c: GDB, instruction trace, waveform window). The NIC model and its
 * pins (the core's debug port is driven through them; dbg_resume is cleared after the cycle that
 * drives it), and a probe called in every clocked cycle after the model settled (before the
 * clock edge), NULL to remove it. */
struct nic_model;
struct nic_pins;
struct nic_model *node_nic(node_t *n);
struct nic_pins *node_pins(node_t *n);
/* The values the NIC's register blocks would return to reads of the words at byte offsets
 * off, off + 4, ... (BAR0 / the core's MMIO window) right now, without disturbing the run: the
 * reads are made in a forked copy of the process that clocks the model a few cycles with the
 * core held halted and nothing arriving from the host, DMA or link, and then exits, so a read's
 * side effects (the doorbell block's latch of its head) never reach this process. 0, or -1 if the
 * copy could not be made or did not answer. For the GDB stub, while the node's core is halted. */
int node_mmio_peek(node_t *n, uint32_t off, uint32_t *val, unsigned words);
typedef void (*node_probe_fn)(void *ctx, node_t *n, sim_cycle_t now);
void node_set_probe(node_t *n, node_probe_fn fn, void *ctx);

unsigned node_id(const node_t *n);
pcie_t *node_pcie(node_t *n);
hostmem_t *node_hostmem(node_t *n);
os_t *node_os(node_t *n);
const struct node_status *node_status(const node_t *n);

#endif /* NODE_H */
