/* core_model.h - C API over the Verilated rv_core (core_model.cpp).
 * Contract: one cycle = core_model_eval() with clk low and the inputs for this
 * cycle (outputs are then valid, including combinational ones), followed by
 * core_model_posedge(). Not thread-safe; one model per process. */
#ifndef CORE_MODEL_H
#define CORE_MODEL_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CORE_MODEL_DBG_BPS 4

struct core_pins {
    /* inputs */
    uint8_t rst;
    uint8_t ibus_req_ready, ibus_rsp_valid, ibus_rsp_err;
    uint32_t ibus_rsp_rdata;
    uint8_t dbus_req_ready, dbus_rsp_valid, dbus_rsp_err;
    uint32_t dbus_rsp_rdata;
    uint8_t irq_external, irq_timer, irq_software;
    /* debug port (rv_core.v; docs/debugging.md): dbg_resume is a one-cycle pulse */
    uint8_t dbg_halt_req, dbg_resume, dbg_step, dbg_ebreak, dbg_bp_en;
    uint32_t dbg_resume_pc;
    uint32_t dbg_bp_addr[CORE_MODEL_DBG_BPS];
    /* outputs */
    uint8_t ibus_req_valid;
    uint32_t ibus_req_addr;
    uint8_t dbus_req_valid, dbus_req_we, dbus_req_be;
    uint32_t dbus_req_addr, dbus_req_wdata;
    uint8_t retire_valid, retire_rd, retire_rd_we, retire_trap, sleeping;
    uint32_t retire_pc, retire_insn, retire_rd_wdata;
    uint8_t dbg_halted;
    uint32_t dbg_pc;
};

struct core_model;

/* vcd_path: waveform file, only honoured by the traced build (coresim-trace);
 * returns NULL on failure. */
struct core_model *core_model_open(const char *vcd_path);
void core_model_close(struct core_model *m);
/* 1 if this binary carries the traced model */
int core_model_is_traced(void);
/* drive inputs with clk low, settle, read outputs back into *p */
void core_model_eval(struct core_model *m, struct core_pins *p);
/* rising clock edge */
void core_model_posedge(struct core_model *m);
/* debug backdoor: register x`reg` (1..31; 0 reads 0) read or written without a clock; -1 if reg
 * > 31. The next core_model_eval() sees a written value. */
int core_model_dbg_reg(struct core_model *m, unsigned reg, uint32_t *val, int write);

#ifdef __cplusplus
}
#endif
#endif
