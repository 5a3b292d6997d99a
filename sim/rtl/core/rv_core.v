// rv_core: RV32IM + Zicsr + Zifencei, machine mode only, 5-stage in-order pipeline.
//
// Stages (see docs/core.md for the full description):
//   F  rv_fetch issues one ibus request per cycle, predicted by rv_btb.
//   D  the fetch response (or queued word) is read from the queue; the register
//      file is read; a pending enabled interrupt tags the instruction.
//   E  decode, forwarding (M, W), ALU, branch resolve + redirect, divide,
//      multiply stage 1, load/store address and dbus request.
//   M  commit point: waits for the dbus response, load align, multiply stage 2,
//      CSR access, traps / mret / wfi / fence.i, minstret.
//   W  register-file write and the retirement trace outputs.
// Precise traps: everything with side effects happens at M in order; a memory
// request leaves E only when the instruction in M is known to commit without a
// trap in that cycle, so no younger access is ever issued past a fault.
`default_nettype none
module rv_core #(
  parameter [31:0] RESET_VECTOR = 32'h0000_0000,
  parameter [31:0] HART_ID      = 32'd0,
  parameter integer DBG_BPS     = 4              // hardware breakpoint comparators (debug port)
) (
  input  wire        clk,
  input  wire        rst,            // synchronous, active-high
  // instruction port: request valid/ready, in-order responses
  output wire        ibus_req_valid,
  input  wire        ibus_req_ready,
  output wire [31:0] ibus_req_addr,
  input  wire        ibus_rsp_valid,
  input  wire [31:0] ibus_rsp_rdata,
  input  wire        ibus_rsp_err,
  // data port
  output wire        dbus_req_valid,
  input  wire        dbus_req_ready,
  output wire [31:0] dbus_req_addr,
  output wire        dbus_req_we,
  output wire [3:0]  dbus_req_be,
  output wire [31:0] dbus_req_wdata,
  input  wire        dbus_rsp_valid,
  input  wire [31:0] dbus_rsp_rdata,
  input  wire        dbus_rsp_err,
  // interrupts (level)
  input  wire        irq_external,
  input  wire        irq_timer,
  input  wire        irq_software,
  // retirement trace
  output wire        retire_valid,
  output wire [31:0] retire_pc,
  output wire [31:0] retire_insn,
  output wire [4:0]  retire_rd,
  output wire        retire_rd_we,
  output wire [31:0] retire_rd_wdata,
  output wire        retire_trap,
  output wire        sleeping,
  // debug port (docs/debugging.md; tie the inputs to 0 when unused). The core halts between two
  // instructions: nothing enters execute, the older ones drain, then dbg_halted is 1 and dbg_pc
  // is the pc of the next instruction to execute. Causes: dbg_halt_req (level), a hardware
  // breakpoint (dbg_bp_en[i] and the instruction in decode at dbg_bp_addr[i]), an ebreak while
  // dbg_ebreak (it halts before executing instead of trapping), the end of a single step.
  // dbg_resume (a pulse while halted) restarts at dbg_resume_pc, after one instruction if
  // dbg_step (interrupts are not taken during a step); the first instruction after a resume
  // does not hit a breakpoint (stepping off one). Registers and memory are read and written
  // by the simulator's backdoor while halted (rv_regfile.regs is public to Verilator).
  input  wire        dbg_halt_req,
  input  wire        dbg_resume,
  input  wire        dbg_step,
  input  wire [31:0] dbg_resume_pc,
  input  wire        dbg_ebreak,
  input  wire [DBG_BPS*32-1:0] dbg_bp_addr,
  input  wire [DBG_BPS-1:0]    dbg_bp_en,
  output wire        dbg_halted,
  output wire [31:0] dbg_pc,
  // Simulation harness hooks (tie cycle_skip to 0 on a board): in a cycle with cycle_skip = k
  // mcycle advances by 1 + k (a harness that stopped clocking a quiescent core for k cycles
  // keeps it exact); `quiescent`: sleeping, the fetch queue full with nothing outstanding and
  // the divider idle and nothing retiring, so no state but mcycle changes until an interrupt
  // (defined out of reset only: the user tests it with the reset deasserted).
  input  wire [31:0] cycle_skip,
  output wire        quiescent
);
  initial begin
    if (RESET_VECTOR[1:0] != 2'b00) begin
      $display("rv_core: RESET_VECTOR must be 4-byte aligned");
      $finish;
    end
  end

  // ------------------------------------------------------------------
  // cross-stage control (defined further down)
  // ------------------------------------------------------------------
  wire        m_flush;         // M commits a trap/mret/fence.i/wfi/replay
  wire [31:0] m_target;
  wire        e_redirect;      // E resolved a misprediction
  wire [31:0] e_npc;
  wire        e_fire;
  wire        e_ready;         // E can take a new instruction this cycle
  wire        irq_pending;

  wire        dbg_go;          // debug resume: restart fetch at dbg_resume_pc
  wire        d_hold;          // debug: decode holds its instruction (a stop is due or halted)
  wire        redirect    = m_flush || e_redirect || dbg_go;
  wire [31:0] redirect_pc = dbg_go ? dq_resume_pc : m_flush ? m_target : e_npc;

  // ------------------------------------------------------------------
  // F: fetch + prediction
  // ------------------------------------------------------------------
  wire [31:0] pred_pc, pred_target;
  wire        pred_taken, pred_fire;
  wire        d_valid, d_err;
  wire [31:0] d_pc, d_insn, d_pred_npc;

  // BTB update from E
  wire        bu_valid, bu_is_cond, bu_is_jump, bu_is_call, bu_is_ret, bu_taken, bu_invalidate;
  wire [31:0] bu_pc, bu_target, bu_link;

  rv_btb u_btb (
    .clk(clk), .rst(rst),
    .f_pc(pred_pc), .f_taken(pred_taken), .f_target(pred_target),
    .f_fire(pred_fire), .redirect(redirect),
    .u_valid(bu_valid), .u_pc(bu_pc), .u_is_cond(bu_is_cond), .u_is_jump(bu_is_jump),
    .u_is_call(bu_is_call), .u_is_ret(bu_is_ret),
    .u_taken(bu_taken), .u_target(bu_target), .u_link(bu_link), .u_invalidate(bu_invalidate)
  );

  wire fetch_quiet;
  rv_fetch #(.RESET_VECTOR(RESET_VECTOR)) u_fetch (
    .clk(clk), .rst(rst),
    .redirect_valid(redirect), .redirect_pc(redirect_pc),
    .pred_pc(pred_pc), .pred_taken(pred_taken), .pred_target(pred_target), .pred_fire(pred_fire),
    .ibus_req_valid(ibus_req_valid), .ibus_req_ready(ibus_req_ready), .ibus_req_addr(ibus_req_addr),
    .ibus_rsp_valid(ibus_rsp_valid), .ibus_rsp_rdata(ibus_rsp_rdata), .ibus_rsp_err(ibus_rsp_err),
    .d_valid(d_valid), .d_pc(d_pc), .d_insn(d_insn), .d_err(d_err), .d_pred_npc(d_pred_npc),
    .d_ready(e_ready && !d_hold), .quiet(fetch_quiet)
  );

  // ------------------------------------------------------------------
  // debug: halt between instructions (the decode stage holds; see the port list)
  // ------------------------------------------------------------------
  // The port's inputs are registered: no combinational path from them into the pipeline (a
  // request takes effect one cycle later; simulation: the model's input-driven logic stays small)
  reg                   dq_halt, dq_resume, dq_step, dq_ebreak;
  reg  [31:0]           dq_resume_pc;
  reg  [DBG_BPS*32-1:0] dq_bp_addr;
  reg  [DBG_BPS-1:0]    dq_bp_en;
  always @(posedge clk) begin
    dq_halt      <= dbg_halt_req;
    dq_resume    <= dbg_resume;
    dq_step      <= dbg_step;
    dq_ebreak    <= dbg_ebreak;
    dq_resume_pc <= dbg_resume_pc;
    dq_bp_addr   <= dbg_bp_addr;
    dq_bp_en     <= dbg_bp_en;
  end
  reg         dbg_halted_r, dbg_skip_bp, dbg_stepping, dbg_step_issued;
  reg  [31:0] dbg_npc;         // pc of the next instruction to execute, once the pipeline drained
  reg         d_bp_hit;
  integer     bpi;
  always @* begin
    d_bp_hit = 1'b0;
    for (bpi = 0; bpi < DBG_BPS; bpi = bpi + 1)
      if (dq_bp_en[bpi] && d_pc == dq_bp_addr[bpi*32 +: 32]) d_bp_hit = 1'b1;
  end
  wire d_ebreak   = dq_ebreak && !d_err && d_insn == 32'h0010_0073;
  // a stop is due: nothing more enters execute
  wire dbg_stop   = dq_halt || dbg_step_issued || (d_valid && !dbg_skip_bp && (d_bp_hit || d_ebreak));
  assign d_hold   = dbg_halted_r || dbg_stop;
  assign dbg_go   = dbg_halted_r && dq_resume;
  wire d_to_e     = e_ready && d_valid && !d_hold && !redirect;

  // ------------------------------------------------------------------
  // D: register read, interrupt tagging
  // ------------------------------------------------------------------
  wire        w_we;
  wire [4:0]  w_rd_i;
  wire [31:0] w_data;
  wire [31:0] d_rs1v, d_rs2v;

  rv_regfile u_rf (
    .clk(clk),
    .ra1(d_insn[19:15]), .rd1(d_rs1v),
    .ra2(d_insn[24:20]), .rd2(d_rs2v),
    .we(w_we), .wa(w_rd_i), .wd(w_data)
  );

  // ------------------------------------------------------------------
  // E: execute
  // ------------------------------------------------------------------
  reg         e_valid;
  reg  [31:0] e_pc, e_insn, e_pred_npc, e_rs1_l, e_rs2_l;
  reg         e_ifault, e_irq;

  wire        dc_illegal, dc_a_pc, dc_a_zero, dc_b_imm, dc_uses_rs1, dc_uses_rs2, dc_rd_we;
  wire        dc_branch, dc_jal, dc_jalr, dc_load, dc_store, dc_mul, dc_div, dc_csr;
  wire        dc_ecall, dc_ebreak, dc_mret, dc_wfi, dc_fencei;
  wire [4:0]  dc_alu_op;
  wire [31:0] dc_imm;

  rv_decode u_dec (
    .insn(e_insn), .illegal(dc_illegal), .alu_op(dc_alu_op), .a_sel_pc(dc_a_pc),
    .a_sel_zero(dc_a_zero), .b_sel_imm(dc_b_imm), .imm(dc_imm), .uses_rs1(dc_uses_rs1),
    .uses_rs2(dc_uses_rs2), .rd_we(dc_rd_we), .is_branch(dc_branch), .is_jal(dc_jal),
    .is_jalr(dc_jalr), .is_load(dc_load), .is_store(dc_store), .is_mul(dc_mul),
    .is_div(dc_div), .is_csr(dc_csr), .is_ecall(dc_ecall), .is_ebreak(dc_ebreak),
    .is_mret(dc_mret), .is_wfi(dc_wfi), .is_fencei(dc_fencei)
  );

  wire [4:0] e_rs1 = e_insn[19:15];
  wire [4:0] e_rs2 = e_insn[24:20];
  wire [2:0] e_f3  = e_insn[14:12];

  // M / W stage state needed for forwarding
  reg         m_valid, m_rd_we, m_late;
  reg  [4:0]  m_rd;
  reg  [31:0] m_result;
  reg         w_valid, w_rd_we;
  reg  [4:0]  w_rd;
  reg  [31:0] w_result;

  reg  [31:0] m_pc, m_insn, m_tval, m_csr_operand;
  reg  [3:0]  m_cause;
  reg         m_exc, m_irq, m_load, m_store, m_mul, m_csr, m_mret, m_wfi, m_fencei;

  // load data alignment
  wire [31:0] ld_shift = dbus_rsp_rdata >> {m_result[1:0], 3'b000};
  reg  [31:0] ld_data;
  always @* begin
    case (m_insn[14:12])
      3'd0:    ld_data = {{24{ld_shift[7]}}, ld_shift[7:0]};
      3'd1:    ld_data = {{16{ld_shift[15]}}, ld_shift[15:0]};
      3'd4:    ld_data = {24'd0, ld_shift[7:0]};
      3'd5:    ld_data = {16'd0, ld_shift[15:0]};
      default: ld_data = ld_shift;
    endcase
  end

  wire rs1_hit_m = m_valid && m_rd_we && m_rd == e_rs1;
  wire rs2_hit_m = m_valid && m_rd_we && m_rd == e_rs2;
  wire rs1_hit_w = w_valid && w_rd_we && w_rd == e_rs1;
  wire rs2_hit_w = w_valid && w_rd_we && w_rd == e_rs2;
  // Load data forwarded from M to E in the cycle its response arrives (the SRAM answers the cycle
  // after the grant, so a load followed by its use costs no bubble): the aligned response goes to
  // the operand mux. An error response traps in M, which flushes E the same cycle.
  wire m_ld_fwd = m_load && dbus_rsp_valid && !dbus_rsp_err;
  wire [31:0] m_fwd = m_ld_fwd ? ld_data : m_result;
  wire [31:0] rs1v = rs1_hit_m ? m_fwd : rs1_hit_w ? w_result : e_rs1_l;
  wire [31:0] rs2v = rs2_hit_m ? m_fwd : rs2_hit_w ? w_result : e_rs2_l;
  // a mul / CSR result in M, or a load's before its response, is not ready yet: wait a cycle
  wire e_hazard = m_late && !m_ld_fwd && ((dc_uses_rs1 && rs1_hit_m) || (dc_uses_rs2 && rs2_hit_m));

  // exceptions known before or in E
  wire e_exc_early = e_irq || e_ifault || dc_illegal || dc_ecall || dc_ebreak;

  wire [31:0] alu_a = dc_a_pc ? e_pc : dc_a_zero ? 32'd0 : rs1v;
  wire [31:0] alu_b = dc_b_imm ? dc_imm : rs2v;
  wire [31:0] alu_y;
  rv_alu u_alu (.op(dc_alu_op), .a(alu_a), .b(alu_b), .y(alu_y));

  // branch resolution
  wire br_eq  = rs1v == rs2v;
  wire br_lt  = $signed(rs1v) < $signed(rs2v);
  wire br_ltu = rs1v < rs2v;
  reg  br_cond;
  always @* begin
    case (e_f3)
      3'd0:    br_cond = br_eq;
      3'd1:    br_cond = !br_eq;
      3'd4:    br_cond = br_lt;
      3'd5:    br_cond = !br_lt;
      3'd6:    br_cond = br_ltu;
      default: br_cond = !br_ltu;
    endcase
  end
  wire        br_taken = dc_branch && br_cond;
  wire        e_jump   = dc_jal || dc_jalr || br_taken;
  wire [31:0] pc_plus4 = e_pc + 32'd4;
  wire [31:0] e_target = dc_jalr ? ((rs1v + dc_imm) & ~32'd1) : e_pc + dc_imm;
  assign e_npc = e_jump ? e_target : pc_plus4;

  // memory access
  wire [31:0] e_addr = alu_y;
  wire e_misal_mem = (e_f3[1:0] == 2'd1 && e_addr[0]) || (e_f3[1:0] == 2'd2 && e_addr[1:0] != 2'd0);
  wire e_misal_ld  = !e_exc_early && dc_load  && e_misal_mem;
  wire e_misal_st  = !e_exc_early && dc_store && e_misal_mem;
  wire e_misal_pc  = !e_exc_early && e_jump && e_target[1];
  wire e_exc       = e_exc_early || e_misal_ld || e_misal_st || e_misal_pc;
  wire e_do        = e_valid && !e_exc;     // executes normally

  reg [3:0]  e_be;
  reg [31:0] e_wdata;
  always @* begin
    case (e_f3[1:0])
      2'd0: begin e_be = 4'b0001 << e_addr[1:0];  e_wdata = {4{rs2v[7:0]}}; end
      2'd1: begin e_be = e_addr[1] ? 4'b1100 : 4'b0011;  e_wdata = {2{rs2v[15:0]}}; end
      default: begin e_be = 4'b1111;  e_wdata = rs2v; end
    endcase
  end

  // M may accept E's instruction: empty, or leaving without a flush
  wire m_fire;
  wire m_clear = !m_valid || (m_fire && !m_flush);
  wire e_mem   = e_do && (dc_load || dc_store);
  assign dbus_req_valid = e_mem && !e_hazard && m_clear;
  assign dbus_req_addr  = e_addr;
  assign dbus_req_we    = dc_store;
  assign dbus_req_be    = e_be;
  assign dbus_req_wdata = e_wdata;
  wire dbus_req_fire = dbus_req_valid && dbus_req_ready;

  // divide
  wire        div_busy, div_done;
  wire [31:0] div_result;
  wire        e_div = e_do && dc_div;
  rv_div u_div (
    .clk(clk), .rst(rst),
    .start(e_div && !e_hazard && !div_busy && !div_done), .kill(m_flush), .ack(e_fire),
    .op(e_f3[1:0]), .a(rs1v), .b(rs2v),
    .busy(div_busy), .done(div_done), .result(div_result)
  );

  // multiply stage 1
  wire [63:0] mul_product;
  rv_mul u_mul (
    .clk(clk), .en(e_fire && dc_mul),
    .a(rs1v), .b(rs2v),
    .a_signed(e_f3[1:0] == 2'd1 || e_f3[1:0] == 2'd2), .b_signed(e_f3[1:0] == 2'd1),
    .product(mul_product)
  );

  wire m_can_take = !m_valid || m_fire;
  wire e_stall = e_hazard || (e_div && !div_done) || (e_mem ? !dbus_req_fire : !m_can_take);
  assign e_fire  = e_valid && !m_flush && !e_stall;
  assign e_ready = !e_valid || e_fire;

  assign e_redirect = e_fire && !e_exc && e_npc != e_pred_npc;

  // BTB training
  assign bu_valid      = e_fire && !e_exc;
  assign bu_pc         = e_pc;
  assign bu_is_cond    = dc_branch;
  assign bu_is_jump    = dc_jal || dc_jalr;
  assign bu_taken      = br_taken;
  assign bu_target     = e_target;
  assign bu_link       = pc_plus4;
  // return-address stack hints (RISC-V unprivileged spec, table 2.1): x1 and x5 are link registers
  wire   e_rd_link     = e_insn[11:7] == 5'd1 || e_insn[11:7] == 5'd5;
  wire   e_rs1_link    = e_rs1 == 5'd1 || e_rs1 == 5'd5;
  assign bu_is_call    = (dc_jal || dc_jalr) && e_rd_link;
  assign bu_is_ret     = dc_jalr && e_rs1_link && !e_rd_link;
  assign bu_invalidate = !dc_branch && !dc_jal && !dc_jalr && e_pred_npc != pc_plus4;

  wire [31:0] e_result = (dc_jal || dc_jalr) ? pc_plus4 : dc_div ? div_result : alu_y;

  // exception cause / tval for M
  reg  [3:0]  e_cause;
  reg  [31:0] e_tval;
  always @* begin
    e_cause = 4'd0;  e_tval = 32'd0;
    if (e_ifault)        begin e_cause = 4'd1;  e_tval = e_pc; end
    else if (dc_illegal) begin e_cause = 4'd2;  e_tval = e_insn; end
    else if (dc_ebreak)  begin e_cause = 4'd3; end
    else if (dc_ecall)   begin e_cause = 4'd11; end
    else if (e_misal_pc) begin e_cause = 4'd0;  e_tval = e_target; end
    else if (e_misal_ld) begin e_cause = 4'd4;  e_tval = e_addr; end
    else if (e_misal_st) begin e_cause = 4'd6;  e_tval = e_addr; end
  end

  always @(posedge clk) begin
    if (rst || redirect) begin
      e_valid <= 1'b0;
    end else if (e_ready) begin
      e_valid    <= d_valid && !d_hold;
      e_pc       <= d_pc;
      e_insn     <= d_insn;
      e_pred_npc <= d_pred_npc;
      e_ifault   <= d_err;
      e_irq      <= irq_pending && !dbg_stepping;
      e_rs1_l    <= d_rs1v;
      e_rs2_l    <= d_rs2v;
    end else begin
      // held in E: keep operands current as producers drain to the regfile
      e_rs1_l <= rs1v;
      e_rs2_l <= rs2v;
    end
  end

  // ------------------------------------------------------------------
  // M: commit
  // ------------------------------------------------------------------

  always @(posedge clk) begin
    if (rst) begin
      m_valid <= 1'b0;
    end else if (m_fire || !m_valid) begin
      m_valid <= e_fire;
      if (e_fire) begin
        m_pc          <= e_pc;
        m_insn        <= e_insn;
        m_rd          <= e_insn[11:7];
        m_rd_we       <= dc_rd_we && !e_exc;
        m_late        <= dc_load || dc_mul || dc_csr;
        m_result      <= e_mem ? e_addr : e_result;
        m_exc         <= e_exc && !e_irq;
        m_irq         <= e_irq;
        m_cause       <= e_cause;
        m_tval        <= e_tval;
        m_load        <= e_do && dc_load;
        m_store       <= e_do && dc_store;
        m_mul         <= e_do && dc_mul;
        m_csr         <= e_do && dc_csr;
        m_mret        <= e_do && dc_mret;
        m_wfi         <= e_do && dc_wfi;
        m_fencei      <= e_do && dc_fencei;
        m_csr_operand <= e_f3[2] ? {27'd0, e_rs1} : rs1v;
      end
    end
  end

  wire        m_mem = m_load || m_store;
  wire        csr_illegal, wfi_wake;
  wire [31:0] csr_rdata, trap_vector, mepc;
  wire [3:0]  irq_code;

  // a wfi completes at once when the debugger stops the core (a wfi may be a no-op)
  wire m_stall    = (m_mem && !dbus_rsp_valid) || (m_wfi && !wfi_wake && !dbg_stop);
  assign m_fire   = m_valid && !m_stall;
  wire m_bus_err  = m_mem && dbus_rsp_err;
  wire m_csr_bad  = m_csr && csr_illegal;
  wire m_irq_take = m_irq && irq_pending;
  wire m_replay   = m_irq && !irq_pending;   // interrupt went away: re-run the instruction
  wire m_trap     = m_irq_take || m_exc || m_bus_err || m_csr_bad;
  // A write to mstatus or mie changes which interrupts may be taken. Younger instructions were
  // tagged (or not) in D with the old enables, so they are refetched: an interrupt enabled by
  // `csrsi mstatus, 8` is taken before the next instruction, as firmware interrupt windows
  // (`csrsi mstatus, 8; csrci mstatus, 8`) require.
  wire m_csr_wr   = m_insn[13:12] == 2'd1 || m_insn[19:15] != 5'd0;
  wire m_irq_cfg  = m_csr && m_csr_wr && (m_insn[31:20] == 12'h300 || m_insn[31:20] == 12'h304);
  assign m_flush  = m_fire && (m_trap || m_replay || m_mret || m_fencei || m_wfi || m_irq_cfg);
  wire m_commit   = m_fire && !m_trap && !m_replay;

  reg  [3:0]  m_trap_code;
  reg  [31:0] m_trap_tval;
  always @* begin
    if (m_irq_take)     begin m_trap_code = irq_code;  m_trap_tval = 32'd0; end
    else if (m_exc)     begin m_trap_code = m_cause;  m_trap_tval = m_tval; end
    else if (m_bus_err) begin m_trap_code = m_store ? 4'd7 : 4'd5;  m_trap_tval = m_result; end
    else                begin m_trap_code = 4'd2;  m_trap_tval = m_insn; end
  end

  assign m_target = m_trap ? trap_vector : m_mret ? mepc : m_replay ? m_pc : m_pc + 32'd4;

  rv_csr #(.HART_ID(HART_ID)) u_csr (
    .clk(clk), .rst(rst),
    .csr_addr(m_insn[31:20]), .csr_op(m_insn[13:12]), .csr_operand(m_csr_operand),
    .csr_write(m_csr_wr),
    .csr_commit(m_commit && m_csr), .csr_rdata(csr_rdata), .csr_illegal(csr_illegal),
    .trap_take(m_fire && m_trap), .trap_irq(m_irq_take), .trap_code(m_trap_code),
    .trap_pc(m_pc), .trap_tval(m_trap_tval), .trap_vector(trap_vector),
    .mret_take(m_commit && m_mret), .mepc_out(mepc),
    .instret_inc(m_commit), .cycle_skip(cycle_skip),
    .irq_external(irq_external), .irq_timer(irq_timer), .irq_software(irq_software),
    .irq_pending(irq_pending), .irq_code(irq_code), .wfi_wake(wfi_wake)
  );

  wire [31:0] m_wdata = m_load ? ld_data : m_mul ? (m_insn[13:12] == 2'd0 ? mul_product[31:0] : mul_product[63:32])
                      : m_csr ? csr_rdata : m_result;

  // ------------------------------------------------------------------
  // W: register write + retirement trace
  // ------------------------------------------------------------------
  reg [31:0] w_pc, w_insn;
  reg        w_trap;
  always @(posedge clk) begin
    if (rst) begin
      w_valid <= 1'b0;
      w_rd_we <= 1'b0;
    end else begin
      w_valid  <= m_fire && !m_replay;
      w_trap   <= m_trap;
      w_rd_we  <= m_commit && m_rd_we;
      w_rd     <= m_rd;
      w_result <= m_wdata;
      w_pc     <= m_pc;
      w_insn   <= m_insn;
    end
  end
  assign w_we   = w_valid && w_rd_we;
  assign w_rd_i = w_rd;
  assign w_data = w_result;

  assign retire_valid    = w_valid;
  assign retire_pc       = w_pc;
  assign retire_insn     = w_insn;
  assign retire_rd       = w_rd;
  assign retire_rd_we    = w_rd_we;
  assign retire_rd_wdata = w_result;
  assign retire_trap     = w_trap;
  assign sleeping        = m_valid && m_wfi && !wfi_wake && !dbg_stop;
  assign quiescent       = sleeping && fetch_quiet && !div_busy && !retire_valid;

  // debug state: the next pc follows execute (its resolved next pc) and commit (trap, mret,
  // replay, fence.i targets); the halt is taken once execute, commit and writeback are empty
  wire pipe_empty = !e_valid && !m_valid && !w_valid;
  always @(posedge clk) begin
    if (rst) begin
      dbg_halted_r    <= 1'b0;
      dbg_skip_bp     <= 1'b0;
      dbg_stepping    <= 1'b0;
      dbg_step_issued <= 1'b0;
      dbg_npc         <= RESET_VECTOR;
    end else if (dbg_go) begin
      dbg_halted_r    <= 1'b0;
      dbg_skip_bp     <= 1'b1;
      dbg_stepping    <= dq_step;
      dbg_step_issued <= 1'b0;
      dbg_npc         <= dq_resume_pc;
    end else begin
      if (!dbg_halted_r && dbg_stop && pipe_empty) begin
        dbg_halted_r    <= 1'b1;
        dbg_stepping    <= 1'b0;
        dbg_step_issued <= 1'b0;
      end
      if (d_to_e) begin
        dbg_skip_bp <= 1'b0;
        if (dbg_stepping) dbg_step_issued <= 1'b1;
      end
      if (m_flush)     dbg_npc <= m_target;
      else if (e_fire) dbg_npc <= e_npc;
    end
  end
  assign dbg_halted = dbg_halted_r && !dq_resume;   // leaving as soon as the resume is taken
  assign dbg_pc     = dbg_npc;

`ifdef RV_CORE_STATS
  // measurement hook (not synthesized): control-transfer prediction statistics, printed at the end
  reg [63:0] st_insn, st_cond, st_cond_t, st_cond_mp, st_jal, st_jal_mp, st_ret, st_ret_mp,
             st_jr, st_jr_mp, st_alias, st_div, st_div_cyc, st_cyc;
  initial begin
    st_insn = 0; st_cond = 0; st_cond_t = 0; st_cond_mp = 0; st_jal = 0; st_jal_mp = 0;
    st_ret = 0; st_ret_mp = 0; st_jr = 0; st_jr_mp = 0; st_alias = 0; st_div = 0; st_div_cyc = 0; st_cyc = 0;
  end
  wire st_is_ret = dc_jalr && e_insn[11:7] == 5'd0 && e_rs1 == 5'd1;
  always @(posedge clk) begin
    st_cyc <= st_cyc + 1;
    if (e_valid && e_div && !div_done) st_div_cyc <= st_div_cyc + 1;
    if (e_fire && !e_exc) begin
      st_insn <= st_insn + 1;
      if (dc_div) st_div <= st_div + 1;
      if (dc_branch) begin
        st_cond <= st_cond + 1;
        if (br_taken) st_cond_t <= st_cond_t + 1;
        if (e_redirect) st_cond_mp <= st_cond_mp + 1;
      end else if (dc_jal) begin
        st_jal <= st_jal + 1;
        if (e_redirect) st_jal_mp <= st_jal_mp + 1;
      end else if (st_is_ret) begin
        st_ret <= st_ret + 1;
        if (e_redirect) st_ret_mp <= st_ret_mp + 1;
      end else if (dc_jalr) begin
        st_jr <= st_jr + 1;
        if (e_redirect) st_jr_mp <= st_jr_mp + 1;
      end else if (e_redirect) st_alias <= st_alias + 1;
    end
  end
  final begin
    $display("rv_core stats: cycles %0d insn %0d cond %0d taken %0d mispred %0d | jal %0d mp %0d | ret %0d mp %0d | jalr %0d mp %0d | alias %0d | div %0d cycles %0d",
             st_cyc, st_insn, st_cond, st_cond_t, st_cond_mp, st_jal, st_jal_mp, st_ret, st_ret_mp, st_jr, st_jr_mp, st_alias, st_div, st_div_cyc);
  end
`endif
endmodule
`default_nettype wire
