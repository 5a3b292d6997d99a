// core_model.cpp - thin C++ shim: the Verilated rv_core behind the C API of
// core_model.h. Built twice: plain (coresim) and with CORE_MODEL_TRACED
// (coresim-trace, Verilator --trace) because tracing slows every cycle.
#include "core_model.h"

#include <verilated.h>
#ifdef CORE_MODEL_TRACED
#include <verilated_vcd_c.h>
#include "Vrv_core_tr.h"
#include "Vrv_core_tr___024root.h"
typedef Vrv_core_tr Vtop;
#else
#include "Vrv_core.h"
#include "Vrv_core___024root.h"
typedef Vrv_core Vtop;
#endif

// Clock edge without the input-combinational region (simulation speed, docs/simulation-speed.md;
// the same as sim/rtl/nic/nic_model.cpp): core_model_posedge() is called with the inputs of the
// core_model_eval() just before it and no logic depends on the level of clk, so eval()'s first
// region (every combinational path from the inputs) would recompute the same values. For the
// Verilator release whose scheduler this mirrors (5.006), untraced, the edge runs the act/nba
// loop directly; otherwise eval().
#if defined(VERILATOR_VERSION_INTEGER) && VERILATOR_VERSION_INTEGER == 5006000 && !defined(CORE_MODEL_TRACED)
#define CORE_MODEL_FAST_EDGE 1
#include <type_traits>
void Vrv_core___024root___eval_triggers__act(Vrv_core___024root *vlSelf);
void Vrv_core___024root___eval_act(Vrv_core___024root *vlSelf);
void Vrv_core___024root___eval_nba(Vrv_core___024root *vlSelf);

static void eval_edge(Vtop *top)
{
    Vrv_core___024root *r = top->rootp;

    static_assert(std::is_same<decltype(r->__VactTriggered), VlTriggerVec<1>>::value,
                  "eval_edge assumes the single trigger posedge clk");
    for (unsigned iter = 0;; iter++) {
        Vrv_core___024root___eval_triggers__act(r);
        if (!r->__VactTriggered.any())
            break;
        if (VL_UNLIKELY(iter > 100))
            VL_FATAL_MT(__FILE__, __LINE__, "", "NBA region did not converge.");
        r->__VnbaTriggered.clear();
        r->__VnbaTriggered.set(r->__VactTriggered);
        Vrv_core___024root___eval_act(r);
        Vrv_core___024root___eval_nba(r);
    }
}
#endif

struct core_model {
    VerilatedContext *ctx;
    Vtop *top;
#ifdef CORE_MODEL_TRACED
    VerilatedVcdC *vcd;
#endif
    uint64_t time;
};

extern "C" struct core_model *core_model_open(const char *vcd_path)
{
    core_model *m = new core_model();
    m->ctx = new VerilatedContext;
    m->time = 0;
#ifdef CORE_MODEL_TRACED
    m->ctx->traceEverOn(true);
#endif
    m->top = new Vtop(m->ctx, "core");
#ifdef CORE_MODEL_TRACED
    m->vcd = nullptr;
    if (vcd_path) {
        m->vcd = new VerilatedVcdC;
        m->top->trace(m->vcd, 99);
        m->vcd->open(vcd_path);
        if (!m->vcd->isOpen()) {
            delete m->vcd;
            delete m->top;
            delete m->ctx;
            delete m;
            return nullptr;
        }
    }
#else
    (void)vcd_path;
#endif
    m->top->clk = 0;
    return m;
}

extern "C" void core_model_close(struct core_model *m)
{
    if (!m)
        return;
    m->top->final();
#ifdef CORE_MODEL_TRACED
    if (m->vcd) {
        m->vcd->close();
        delete m->vcd;
    }
#endif
    delete m->top;
    delete m->ctx;
    delete m;
}

extern "C" int core_model_is_traced(void)
{
#ifdef CORE_MODEL_TRACED
    return 1;
#else
    return 0;
#endif
}

extern "C" void core_model_eval(struct core_model *m, struct core_pins *p)
{
    Vtop *t = m->top;
    t->clk = 0;
    t->rst = p->rst;
    t->ibus_req_ready = p->ibus_req_ready;
    t->ibus_rsp_valid = p->ibus_rsp_valid;
    t->ibus_rsp_rdata = p->ibus_rsp_rdata;
    t->ibus_rsp_err = p->ibus_rsp_err;
    t->dbus_req_ready = p->dbus_req_ready;
    t->dbus_rsp_valid = p->dbus_rsp_valid;
    t->dbus_rsp_rdata = p->dbus_rsp_rdata;
    t->dbus_rsp_err = p->dbus_rsp_err;
    t->irq_external = p->irq_external;
    t->irq_timer = p->irq_timer;
    t->irq_software = p->irq_software;
    t->cycle_skip = 0; /* rv_core's harness hook: coresim clocks every cycle */
    t->dbg_halt_req = p->dbg_halt_req;
    t->dbg_resume = p->dbg_resume;
    t->dbg_step = p->dbg_step;
    t->dbg_resume_pc = p->dbg_resume_pc;
    t->dbg_ebreak = p->dbg_ebreak;
    t->dbg_bp_en = p->dbg_bp_en;
    for (int i = 0; i < CORE_MODEL_DBG_BPS; i++)
        t->dbg_bp_addr[i] = p->dbg_bp_addr[i];
    t->eval();
#ifdef CORE_MODEL_TRACED
    if (m->vcd)
        m->vcd->dump(m->time);
#endif
    m->time++;
    p->ibus_req_valid = t->ibus_req_valid;
    p->ibus_req_addr = t->ibus_req_addr;
    p->dbus_req_valid = t->dbus_req_valid;
    p->dbus_req_addr = t->dbus_req_addr;
    p->dbus_req_we = t->dbus_req_we;
    p->dbus_req_be = t->dbus_req_be;
    p->dbus_req_wdata = t->dbus_req_wdata;
    p->retire_valid = t->retire_valid;
    p->retire_pc = t->retire_pc;
    p->retire_insn = t->retire_insn;
    p->retire_rd = t->retire_rd;
    p->retire_rd_we = t->retire_rd_we;
    p->retire_rd_wdata = t->retire_rd_wdata;
    p->retire_trap = t->retire_trap;
    p->sleeping = t->sleeping;
    p->dbg_halted = t->dbg_halted;
    p->dbg_pc = t->dbg_pc;
}

extern "C" int core_model_dbg_reg(struct core_model *m, unsigned reg, uint32_t *val, int write)
{
    if (reg > 31)
        return -1;
    if (reg == 0) {
        if (!write)
            *val = 0;
        return 0;
    }
    if (write)
        m->top->rootp->rv_core__DOT__u_rf__DOT__regs[reg - 1] = *val;
    else
        *val = m->top->rootp->rv_core__DOT__u_rf__DOT__regs[reg - 1];
    return 0;
}

extern "C" void core_model_posedge(struct core_model *m)
{
    m->top->clk = 1;
#ifdef CORE_MODEL_FAST_EDGE
    eval_edge(m->top);
#else
    m->top->eval();
#endif
#ifdef CORE_MODEL_TRACED
    if (m->vcd)
        m->vcd->dump(m->time);
#endif
    m->time++;
}
