// rv_csr: machine-mode CSR file, trap entry/exit and interrupt selection.
// Role: executed from the commit (memory) stage only, so every CSR access and
// trap happens in program order (precise). Read-only CSRs (addr[11:10]==3) and
// unimplemented addresses are reported through `csr_illegal`.
// Implemented: mstatus misa mie mtvec mscratch mepc mcause mtval mip
//   mcycle[h] minstret[h] cycle[h] instret[h] mvendorid marchid mimpid mhartid.
// Not implemented (illegal): time/timeh (use the TIMER block), mstatush,
//   mcounteren, mcountinhibit, hpm counters, PMP, debug CSRs.
`default_nettype none
module rv_csr #(
  parameter [31:0] HART_ID = 32'd0
) (
  input  wire        clk,
  input  wire        rst,
  // CSR instruction in the commit stage
  input  wire [11:0] csr_addr,
  input  wire [1:0]  csr_op,       // funct3[1:0]: 1 write, 2 set, 3 clear
  input  wire [31:0] csr_operand,  // rs1 value or zero-extended uimm
  input  wire        csr_write,    // instruction writes (rw, or rs1/uimm != 0)
  input  wire        csr_commit,   // perform the write this cycle
  output reg  [31:0] csr_rdata,
  output wire        csr_illegal,
  // trap entry / exit
  input  wire        trap_take,
  input  wire        trap_irq,
  input  wire [3:0]  trap_code,
  input  wire [31:0] trap_pc,
  input  wire [31:0] trap_tval,
  output wire [31:0] trap_vector,
  input  wire        mret_take,
  output wire [31:0] mepc_out,
  // counters
  input  wire        instret_inc,
  input  wire [31:0] cycle_skip,   // harness: mcycle advances by 1 + cycle_skip (rv_core)
  // interrupts (level inputs)
  input  wire        irq_external,
  input  wire        irq_timer,
  input  wire        irq_software,
  output wire        irq_pending,  // an interrupt must be taken (MIE && mip&mie)
  output wire [3:0]  irq_code,     // highest priority pending&enabled cause
  output wire        wfi_wake      // (mip & mie) != 0, regardless of MIE
);
  reg        mie_bit, mpie_bit;        // mstatus.MIE / MPIE
  reg        meie, mtie, msie;         // mie
  reg [29:0] mtvec_base;
  reg        mtvec_vec;
  reg [31:0] mscratch;
  reg [29:0] mepc;
  reg        mcause_int;
  reg [3:0]  mcause_code;
  reg [31:0] mtval;
  reg [63:0] mcycle;
  reg [63:0] minstret;

  wire unused_bits = ^trap_pc[1:0];   // pcs are 4-byte aligned (no C extension)
  wire [31:0] mstatus = {19'd0, 2'b11, 3'd0, mpie_bit, 3'd0, mie_bit, 3'd0};
  wire [31:0] mip     = {20'd0, irq_external, 3'd0, irq_timer, 3'd0, irq_software, 3'd0};
  wire [31:0] mie_r   = {20'd0, meie, 3'd0, mtie, 3'd0, msie, 3'd0};

  reg known;
  always @* begin
    known = 1'b1;
    case (csr_addr)
      12'h300: csr_rdata = mstatus;
      12'h301: csr_rdata = 32'h4000_1100;   // MXL=32, I, M
      12'h304: csr_rdata = mie_r;
      12'h305: csr_rdata = {mtvec_base, 1'b0, mtvec_vec};
      12'h340: csr_rdata = mscratch;
      12'h341: csr_rdata = {mepc, 2'b00};
      12'h342: csr_rdata = {mcause_int, 27'd0, mcause_code};
      12'h343: csr_rdata = mtval;
      12'h344: csr_rdata = mip;
      12'hB00, 12'hC00: csr_rdata = mcycle[31:0];
      12'hB80, 12'hC80: csr_rdata = mcycle[63:32];
      12'hB02, 12'hC02: csr_rdata = minstret[31:0];
      12'hB82, 12'hC82: csr_rdata = minstret[63:32];
      12'hF11, 12'hF12, 12'hF13: csr_rdata = 32'd0;
      12'hF14: csr_rdata = HART_ID;
      default: begin csr_rdata = 32'd0; known = 1'b0; end
    endcase
  end
  assign csr_illegal = !known || (csr_write && csr_addr[11:10] == 2'b11);

  reg [31:0] wval;
  always @* begin
    case (csr_op)
      2'd1:    wval = csr_operand;
      2'd2:    wval = csr_rdata | csr_operand;
      default: wval = csr_rdata & ~csr_operand;
    endcase
  end
  wire wr = csr_commit && csr_write && !csr_illegal;

  // Counters. A write to one half sets that half and keeps the other; the counter does not
  // increment in the cycle of the write (neither half), so a following read sees the written
  // value plus only later increments, and a low half written to all ones carries into the high
  // half on the next increment, never in the cycle of the write. The write takes effect under
  // the same condition as every other CSR write (no trap, no mret in that cycle).
  wire        cnt_wr      = wr && !trap_take && !mret_take;
  wire        mcycle_wl   = cnt_wr && csr_addr == 12'hB00;
  wire        mcycle_wh   = cnt_wr && csr_addr == 12'hB80;
  wire        minstret_wl = cnt_wr && csr_addr == 12'hB02;
  wire        minstret_wh = cnt_wr && csr_addr == 12'hB82;
  wire [63:0] mcycle_inc   = mcycle + 64'd1 + {32'd0, cycle_skip};
  wire [63:0] minstret_inc = minstret + {63'd0, instret_inc};
  wire [63:0] mcycle_next =
      mcycle_wl ? {mcycle[63:32], wval} :
      mcycle_wh ? {wval, mcycle[31:0]} : mcycle_inc;
  wire [63:0] minstret_next =
      minstret_wl ? {minstret[63:32], wval} :
      minstret_wh ? {wval, minstret[31:0]} : minstret_inc;

  // interrupts: MEI > MSI > MTI
  wire [2:0] pend = {irq_external & meie, irq_software & msie, irq_timer & mtie};
  assign wfi_wake    = |pend;
  assign irq_pending = mie_bit && wfi_wake;
  assign irq_code    = pend[2] ? 4'd11 : pend[1] ? 4'd3 : 4'd7;
  assign trap_vector = {mtvec_base, 2'b00} + ((mtvec_vec && trap_irq) ? {26'd0, trap_code, 2'b00} : 32'd0);
  assign mepc_out    = {mepc, 2'b00};

  always @(posedge clk) begin
    if (rst) begin
      mie_bit <= 1'b0;  mpie_bit <= 1'b0;
      meie <= 1'b0;  mtie <= 1'b0;  msie <= 1'b0;
      mtvec_base <= 30'd0;  mtvec_vec <= 1'b0;
      mcause_int <= 1'b0;  mcause_code <= 4'd0;
      mcycle <= 64'd0;  minstret <= 64'd0;
    end else begin
      mcycle   <= mcycle_next;
      minstret <= minstret_next;
      if (trap_take) begin
        mepc        <= trap_pc[31:2];
        mcause_int  <= trap_irq;
        mcause_code <= trap_code;
        mtval       <= trap_tval;
        mpie_bit    <= mie_bit;
        mie_bit     <= 1'b0;
      end else if (mret_take) begin
        mie_bit  <= mpie_bit;
        mpie_bit <= 1'b1;
      end else if (wr) begin
        case (csr_addr)
          12'h300: begin mie_bit <= wval[3];  mpie_bit <= wval[7]; end
          12'h304: begin meie <= wval[11];  mtie <= wval[7];  msie <= wval[3]; end
          12'h305: begin mtvec_base <= wval[31:2];  mtvec_vec <= wval[0]; end
          12'h340: mscratch <= wval;
          12'h341: mepc <= wval[31:2];
          12'h342: begin mcause_int <= wval[31];  mcause_code <= wval[3:0]; end
          12'h343: mtval <= wval;
          // mcycle[h], minstret[h]: written through mcycle_next / minstret_next above
          default: ;  // misa, mip: writes ignored (WARL / read-only bits)
        endcase
      end
    end
  end
endmodule
`default_nettype wire
