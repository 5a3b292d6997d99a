/*
 * tb_nic: C view of the Verilated nic_top for the RTL testbenches (tests/rtl/).
 *
 * The model's ports are mirrored in struct tb_pins: the test sets the inputs, calls
 * tb_nic_settle() (combinational outputs such as *_ready now reflect those inputs), looks at the
 * handshakes, then tb_nic_edge() clocks one rising edge. tb_nic_glue.cpp is the only C++.
 */
#ifndef TB_NIC_H
#define TB_NIC_H

#include <stdint.h>

struct tb_pins {
    /* inputs */
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
    uint8_t skip_valid;
    uint32_t skip_cycles;
    /* outputs */
    uint8_t host_req_ready, host_rsp_valid, host_irq;
    uint32_t host_rsp_rdata;
    uint8_t dma_req_valid, dma_req_write, dma_req_tag;
    uint64_t dma_req_addr;
    uint16_t dma_req_len;
    uint8_t dma_wdata_valid, dma_wdata_last, dma_rsp_ready;
    uint64_t dma_wdata_data;
    uint8_t tx_valid, tx_last, tx_bytes;
    uint64_t tx_data;
    uint8_t console_valid, console_char, testmb_valid, core_sleeping, idle;
    uint32_t testmb_status, testmb_value, timer_cycles_to_irq;
};

struct tb_nic;

#ifdef __cplusplus
extern "C" {
#endif
struct tb_nic *tb_nic_new(void);
void tb_nic_free(struct tb_nic *t);
struct tb_pins *tb_nic_pins(struct tb_nic *t);
void tb_nic_settle(struct tb_nic *t);
void tb_nic_edge(struct tb_nic *t);
#ifdef __cplusplus
}
#endif

#endif /* TB_NIC_H */
