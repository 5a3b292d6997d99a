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
    uint64_t timer_cycles_to_irq; /* 0 while the timer interrupt is pending */
};

typedef struct nic_model nic_model_t;

/* NULL when out of memory. */
nic_model_t *nic_model_open(void);
void nic_model_close(nic_model_t *m);

/*
 * Waveforms. Only the traced build of the model (library nic_model_trace, Verilated with FST
 * tracing, ~45% slower, so never the default) records them: nic_model_traced() says which build
 * this is. nic_model_trace_open() starts an FST file for this model (0, or -1 if this build
 * cannot trace or the file cannot be opened); time is in clocked cycles (two steps per cycle),
 * written until nic_model_close().
 */
int nic_model_traced(void);
int nic_model_trace_open(nic_model_t *m, const char *path);
/* Drive inputs, settle, read outputs (clock low). */
void nic_model_eval(nic_model_t *m, struct nic_pins *p);
/* Rising edge with the inputs of the last eval; outputs are refreshed for the next cycle. */
void nic_model_clock(nic_model_t *m, struct nic_pins *p);

#ifdef __cplusplus
}
#endif

#endif /* NIC_MODEL_H */
