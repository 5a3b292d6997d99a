// nic_model.cpp - thin C++ glue: struct nic_pins <-> Vnic_top ports (see nic_model.h).
#include "nic_model.h"

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

// Verilator's runtime headers are not warning-clean under -Wextra (unused parameters in
// verilated_types.h); they are not ours to fix, so only that warning is silenced, only for them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "Vnic_top.h"
#include "Vnic_top___024root.h"
#include "verilated.h"
#ifdef NIC_MODEL_TRACED
#include "verilated_fst_c.h"
#endif
#pragma GCC diagnostic pop

// Clock edge without the input-combinational region (simulation speed, docs/simulation-speed.md).
// Verilator's eval() always starts by re-evaluating every combinational path from the top-level
// inputs (the "ico" region). nic_model_clock() is called with exactly the inputs of the
// nic_model_eval() just before it, and no logic depends on the level of clk, so that region
// would recompute the same values (10-15% of a cycle's work). For the Verilator release
// whose generated scheduler this mirrors (5.006: _eval() = ico loop, then act/nba loop) the
// edge runs the act/nba loop directly; any other release, and the traced build (whose
// waveform bookkeeping lives in eval()), falls back to eval().
#if defined(VERILATOR_VERSION_INTEGER) && VERILATOR_VERSION_INTEGER == 5006000 && !defined(NIC_MODEL_TRACED)
#define NIC_MODEL_FAST_EDGE 1
void Vnic_top___024root___eval_triggers__act(Vnic_top___024root *vlSelf);
void Vnic_top___024root___eval_act(Vnic_top___024root *vlSelf);
void Vnic_top___024root___eval_nba(Vnic_top___024root *vlSelf);

static void eval_edge(Vnic_top *top)
{
    Vnic_top___024root *r = top->rootp;

    // 5.006's act/nba loop, for a design whose only trigger is the rising edge of clk (checked
    // below): evaluate the triggers; on an edge run the act and nba regions; repeat until no
    // trigger fires. The same region calls in the same order as the generated loop, without
    // its second, always idle, trigger evaluation before the nba region.
    static_assert(std::is_same<decltype(r->__VactTriggered), VlTriggerVec<1>>::value,
                  "eval_edge assumes the single trigger posedge clk");
    for (unsigned iter = 0;; iter++) {
        Vnic_top___024root___eval_triggers__act(r);
        if (!r->__VactTriggered.any())
            break;
        if (VL_UNLIKELY(iter > 100))
            VL_FATAL_MT(__FILE__, __LINE__, "", "NBA region did not converge.");
        r->__VnbaTriggered.clear();
        r->__VnbaTriggered.set(r->__VactTriggered);
        Vnic_top___024root___eval_act(r);
        Vnic_top___024root___eval_nba(r);
    }
}
#endif

/* The inputs are the first members of struct nic_pins, up to host_req_ready. */
#define NIC_PINS_IN_BYTES offsetof(struct nic_pins, host_req_ready)
static_assert(offsetof(struct nic_pins, skip_cycles) + sizeof(uint32_t) <= NIC_PINS_IN_BYTES,
              "nic_pins: inputs first");

struct nic_model {
    VerilatedContext ctx;
    Vnic_top *top;
    bool settled; /* evaluated (eval or edge) with the inputs in last_in */
    unsigned char last_in[NIC_PINS_IN_BYTES]; /* the input part of the pins last driven */
#ifdef NIC_MODEL_TRACED
    VerilatedFstC *fst;
    uint64_t steps;
#endif
};

/* After every evaluation: one waveform step (no-op in the untraced build). */
static inline void trace_step(nic_model *m)
{
#ifdef NIC_MODEL_TRACED
    if (m->fst)
        m->fst->dump(m->steps++);
#else
    (void)m;
#endif
}

static void drive(Vnic_top *t, const struct nic_pins *p)
{
    t->rst = p->rst;
    t->host_req_valid = p->host_req_valid;
    t->host_req_we = p->host_req_we;
    t->host_req_bar = p->host_req_bar;
    t->host_req_addr = p->host_req_addr;
    t->host_req_wdata = p->host_req_wdata;
    t->host_req_be = p->host_req_be;
    t->dma_req_ready = p->dma_req_ready;
    t->dma_wdata_ready = p->dma_wdata_ready;
    t->dma_rsp_valid = p->dma_rsp_valid;
    t->dma_rsp_tag = p->dma_rsp_tag;
    t->dma_rsp_data = p->dma_rsp_data;
    t->dma_rsp_last = p->dma_rsp_last;
    t->dma_rsp_err = p->dma_rsp_err;
    t->dma_wack_valid = p->dma_wack_valid;
    t->dma_wack_tag = p->dma_wack_tag;
    t->dma_wack_err = p->dma_wack_err;
    t->tx_ready = p->tx_ready;
    t->rx_valid = p->rx_valid;
    t->rx_data = p->rx_data;
    t->rx_last = p->rx_last;
    t->rx_bytes = p->rx_bytes;
    t->phy_rate = p->phy_rate;
    t->skip_valid = p->skip_valid;
    t->skip_cycles = p->skip_cycles;
}

static void sample(const Vnic_top *t, struct nic_pins *p)
{
    p->host_req_ready = t->host_req_ready;
    p->host_rsp_valid = t->host_rsp_valid;
    p->host_rsp_rdata = t->host_rsp_rdata;
    p->host_irq = t->host_irq;
    p->dma_req_valid = t->dma_req_valid;
    p->dma_req_write = t->dma_req_write;
    p->dma_req_addr = t->dma_req_addr;
    p->dma_req_len = t->dma_req_len;
    p->dma_req_tag = t->dma_req_tag;
    p->dma_wdata_valid = t->dma_wdata_valid;
    p->dma_wdata_data = t->dma_wdata_data;
    p->dma_wdata_last = t->dma_wdata_last;
    p->dma_rsp_ready = t->dma_rsp_ready;
    p->tx_valid = t->tx_valid;
    p->tx_data = t->tx_data;
    p->tx_last = t->tx_last;
    p->tx_bytes = t->tx_bytes;
    p->console_valid = t->console_valid;
    p->console_char = t->console_char;
    p->testmb_valid = t->testmb_valid;
    p->testmb_status = t->testmb_status;
    p->testmb_value = t->testmb_value;
    p->core_sleeping = t->core_sleeping;
    p->idle = t->idle;
    p->timer_cycles_to_irq = t->timer_cycles_to_irq;
}

extern "C" nic_model_t *nic_model_open(void)
{
    nic_model *m = new (std::nothrow) nic_model(); /* value-initialised: no trace file yet */
    if (!m)
        return nullptr;
    m->top = new (std::nothrow) Vnic_top(&m->ctx, "nic");
    if (!m->top) {
        delete m;
        return nullptr;
    }
    m->top->clk = 0;
    return m;
}

extern "C" int nic_model_traced(void)
{
#ifdef NIC_MODEL_TRACED
    return 1;
#else
    return 0;
#endif
}

extern "C" int nic_model_trace_open(nic_model_t *m, const char *path)
{
#ifdef NIC_MODEL_TRACED
    if (m->fst)
        return -1;
    m->ctx.traceEverOn(true);
    m->fst = new (std::nothrow) VerilatedFstC;
    if (!m->fst)
        return -1;
    m->top->trace(m->fst, 99);
    m->fst->open(path);
    if (!m->fst->isOpen()) {
        delete m->fst;
        m->fst = nullptr;
        return -1;
    }
    return 0;
#else
    (void)m;
    (void)path;
    return -1;
#endif
}

extern "C" void nic_model_close(nic_model_t *m)
{
    if (!m)
        return;
#ifdef NIC_MODEL_TRACED
    if (m->fst) {
        m->fst->close();
        delete m->fst;
    }
#endif
    m->top->final();
    delete m->top;
    delete m;
}

extern "C" void nic_model_eval(nic_model_t *m, struct nic_pins *p)
{
#ifdef NIC_MODEL_FAST_EDGE
    // The same inputs as the evaluation (or edge) just before, which left every signal settled
    // for them, and no logic depends on the level of clk: eval() would recompute the same
    // values (its input-combinational region) and only record the falling clock for edge
    // detection, which is done here (simulation speed: most cycles of a busy run, e.g. no host
    // access and no DMA beat arriving). The inputs are compared as bytes (padding included: a
    // difference there only costs a full evaluation).
    if (m->settled && std::memcmp(m->last_in, p, NIC_PINS_IN_BYTES) == 0) {
        m->top->clk = 0;
        m->top->rootp->__Vtrigrprev__TOP__clk = 0;
        sample(m->top, p);
        return;
    }
#endif
    std::memcpy(m->last_in, p, NIC_PINS_IN_BYTES);
    drive(m->top, p);
    m->top->clk = 0;
    m->top->eval();
    m->settled = true;
    trace_step(m);
    sample(m->top, p);
}

extern "C" void nic_model_clock(nic_model_t *m, struct nic_pins *p)
{
    m->top->clk = 1;
#ifdef NIC_MODEL_FAST_EDGE
    eval_edge(m->top);
#else
    m->top->eval();
#endif
    m->settled = true;
    trace_step(m);
    sample(m->top, p);
}
