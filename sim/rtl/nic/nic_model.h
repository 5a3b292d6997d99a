/*
 * nic_model.h - the Verilated NIC (nic_top) behind a C interface.
 *
 * Role: the only place that knows the model is C++. One struct holds every nic_top port; the
 * harness fills the inputs, calls nic_model_eval() to settle the combinational outputs for the
 * current cycle, decides which handshakes fire (valid && ready as sampled then), and calls
 * nic_model_clock() to take the rising edge. Port meanings: docs/nic.md.
 *
 * Contract: single-threaded; one model per node; the pins struct is owned by the caller.
 */
#ifndef NIC_MODEL_H
#define NIC_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NIC_MODEL_DBG_BPS 4 /* hardware breakpoints of the core's debug port */

struct nic_pins {
    /* ---- inputs ---- */
    uint8_t rst;
    uint8_t host_req_valid, host_req_we, host_req_bar, host_req_be;
    uint32_t host_req_addr, host_req_wdata;
    uint8_t dma_req_ready, dma_wdata_ready;
    uint8_t dma_rsp_valid, dma_rsp_tag, dma_rsp_last, dma_rsp_err;
    uint64_t dma_rsp_data;
    uint8_t dma_wack_valid, dma_wack_tag, dma_wack_err;
    uint8_t tx_ready;
    uint8_t rx_valid, rx_last, rx_bytes;
    uint64_t rx_data;
    uint16_t phy_rate; /* the PHY's link rate, bits per cycle (0: nic_top's LINK_RATE, 50) */
    uint8_t tx_ct_off; /* strap: no cut-through of gated TX frames (docs/nic.md "Cut-through") */
    /* the core's debug port (rv_core, docs/debugging.md); dbg_resume is a one-cycle pulse */
    uint8_t dbg_halt_req, dbg_resume, dbg_step, dbg_ebreak, dbg_bp_en;
    uint32_t dbg_resume_pc;
    uint32_t dbg_bp_addr[NIC_MODEL_DBG_BPS];
    /* the harness's skip hook: the last inputs (sim/node/node.c compares those before it) */
    uint8_t skip_valid;
    uint32_t skip_cycles;
    /* ---- outputs ---- */
    uint8_t host_req_ready, host_rsp_valid, host_irq;
    uint32_t host_rsp_rdata;
    uint8_t dma_req_valid, dma_req_write, dma_req_tag;
    uint16_t dma_req_len;
    uint64_t dma_req_addr;
    uint8_t dma_wdata_valid, dma_wdata_last;
    uint64_t dma_wdata_data;
    uint8_t dma_rsp_ready;
    uint8_t tx_valid, tx_last, tx_bytes;
    uint64_t tx_data;
    uint8_t console_valid, console_char, testmb_valid;
    uint32_t testmb_status, testmb_value;
    uint8_t core_sleeping, idle;
    uint8_t rx_xoff; /* the MAC's pause request (nic_mac_rx: xoff; the switch: switch_pause) */
    uint64_t timer_cycles_to_irq; /* 0 while the timer interrupt is pending */
    uint8_t dbg_halted;
    uint32_t dbg_pc; /* halted: the pc of the next instruction */
};

typedef struct nic_model nic_model_t;

/* NULL when out of memory. */
nic_model_t *nic_model_open(void);
void nic_model_close(nic_model_t *m);

/*
 * Waveforms. Only the traced build of the model (library nic_model_trace, Verilated with FST
 * tracing, many times slower (docs/debugging.md), so never the default) records them:
 * nic_model_traced() says which build this is. nic_model_trace_open() starts an FST file for this
 * model (0, or -1 if this build cannot trace or the file cannot be opened), written until
 * nic_model_close() or the window's end. Time is simulated time at the nominal clock, absolute:
 * cycle C (nic_model_set_cycle, skipped cycles counted) is at C * period (ps; the clock's rising
 * edge half a period later). nic_model_trace_config(), before the open, sets the period (0: 5000
 * ps, 200 MHz), the cycle window [start, stop) and the scopes recorded (names below nic_top, e.g.
 * "u_core"; none: everything).
 */
int nic_model_traced(void);
void nic_model_trace_config(nic_model_t *m, uint64_t start, uint64_t stop, const char *const *scopes, unsigned n);
int nic_model_trace_open(nic_model_t *m, const char *path);
/* The cycle the next eval and clock belong to (the waveform's time). */
void nic_model_set_cycle(nic_model_t *m, uint64_t cycle);
/*
 * Debug backdoor (the GDB stub, sim/node/nodedbg.c): the core's registers (0 = x0 reads 0, 1..31)
 * and the memories the core sees (IMEM and SRAM, core addresses; anything else, MMIO included,
 * is refused with -1), read and written directly in the model without a clock. Meant for a
 * halted core (dbg_halted); the next nic_model_eval() evaluates the model in full.
 */
int nic_model_dbg_reg(nic_model_t *m, unsigned reg, uint32_t *val, int write);
int nic_model_dbg_mem(nic_model_t *m, uint32_t addr, uint8_t *buf, uint32_t len, int write);
/* In a forked copy of the process that is about to clock this model and then exit (the GDB
 * stub's MMIO reads, node_mmio_peek): forget the waveform writer without writing or closing it,
 * so that the copy leaves the parent's FST file alone. */
void nic_model_trace_forget(nic_model_t *m);
/* 1 while the core is held in reset (power-on reset or hostif.ctrl.core_reset) */
int nic_model_core_in_reset(nic_model_t *m);

/* The core's retire trace and data-port request of this cycle (valid after nic_model_eval()),
 * for the instruction trace (sim/node/insntrace.c). */
struct nic_core_probe {
    uint8_t retire_valid, retire_trap, retire_rd, retire_rd_we;
    uint32_t retire_pc, retire_insn, retire_rd_wdata;
    uint8_t dbus_fire, dbus_we, dbus_be; /* a data request accepted at this cycle's edge */
    uint32_t dbus_addr, dbus_wdata;
};
void nic_model_probe(nic_model_t *m, struct nic_core_probe *p);

/* Drive inputs, settle, read outputs (clock low). */
void nic_model_eval(nic_model_t *m, struct nic_pins *p);
/* Rising edge with the inputs of the last eval; outputs are refreshed for the next cycle. */
void nic_model_clock(nic_model_t *m, struct nic_pins *p);

#ifdef __cplusplus
}
#endif

#endif /* NIC_MODEL_H */
