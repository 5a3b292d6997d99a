// Thin C++ glue between the Verilated nic_top (Vnic_top) and the C testbench (tb_nic.h).
#include "Vnic_top.h"
#include "verilated.h"
#include "tb_nic.h"

struct tb_nic {
    VerilatedContext ctx;
    Vnic_top *m;
    tb_pins p;
};

extern "C" struct tb_nic *tb_nic_new(void)
{
    tb_nic *t = new tb_nic();
    t->m = new Vnic_top(&t->ctx);
    t->p = tb_pins();
    t->m->clk = 0;
    return t;
}

extern "C" void tb_nic_free(struct tb_nic *t)
{
    t->m->final();
    delete t->m;
    delete t;
}

extern "C" struct tb_pins *tb_nic_pins(struct tb_nic *t) { return &t->p; }

static void put(tb_nic *t)
{
    Vnic_top *m = t->m;
    const tb_pins &p = t->p;
    m->rst = p.rst;
    m->host_req_valid = p.host_req_valid;
    m->host_req_we = p.host_req_we;
    m->host_req_bar = p.host_req_bar;
    m->host_req_addr = p.host_req_addr;
    m->host_req_wdata = p.host_req_wdata;
    m->host_req_be = p.host_req_be;
    m->dma_req_ready = p.dma_req_ready;
    m->dma_wdata_ready = p.dma_wdata_ready;
    m->dma_rsp_valid = p.dma_rsp_valid;
    m->dma_rsp_tag = p.dma_rsp_tag;
    m->dma_rsp_data = p.dma_rsp_data;
    m->dma_rsp_last = p.dma_rsp_last;
    m->dma_rsp_err = p.dma_rsp_err;
    m->dma_wack_valid = p.dma_wack_valid;
    m->dma_wack_tag = p.dma_wack_tag;
    m->dma_wack_err = p.dma_wack_err;
    m->tx_ready = p.tx_ready;
    m->rx_valid = p.rx_valid;
    m->rx_data = p.rx_data;
    m->rx_last = p.rx_last;
    m->rx_bytes = p.rx_bytes;
    m->skip_valid = p.skip_valid;
    m->skip_cycles = p.skip_cycles;
}

static void get(tb_nic *t)
{
    Vnic_top *m = t->m;
    tb_pins &p = t->p;
    p.host_req_ready = m->host_req_ready;
    p.host_rsp_valid = m->host_rsp_valid;
    p.host_rsp_rdata = m->host_rsp_rdata;
    p.host_irq = m->host_irq;
    p.dma_req_valid = m->dma_req_valid;
    p.dma_req_write = m->dma_req_write;
    p.dma_req_addr = m->dma_req_addr;
    p.dma_req_len = m->dma_req_len;
    p.dma_req_tag = m->dma_req_tag;
    p.dma_wdata_valid = m->dma_wdata_valid;
    p.dma_wdata_data = m->dma_wdata_data;
    p.dma_wdata_last = m->dma_wdata_last;
    p.dma_rsp_ready = m->dma_rsp_ready;
    p.tx_valid = m->tx_valid;
    p.tx_data = m->tx_data;
    p.tx_last = m->tx_last;
    p.tx_bytes = m->tx_bytes;
    p.console_valid = m->console_valid;
    p.console_char = m->console_char;
    p.testmb_valid = m->testmb_valid;
    p.testmb_status = m->testmb_status;
    p.testmb_value = m->testmb_value;
    p.core_sleeping = m->core_sleeping;
    p.idle = m->idle;
    p.timer_cycles_to_irq = m->timer_cycles_to_irq;
}

extern "C" void tb_nic_settle(struct tb_nic *t)
{
    put(t);
    t->m->clk = 0;
    t->m->eval();
    get(t);
}

extern "C" void tb_nic_edge(struct tb_nic *t)
{
    put(t);
    t->m->clk = 1;
    t->m->eval();
    t->m->clk = 0;
    t->m->eval();
    get(t);
}
