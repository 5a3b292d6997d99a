// nic_regbus: the register bus. The core's data port and the host's BAR0 share it: one access
// per cycle, round-robin when both ask. The 64 KiB register space holds NBLK 4 KiB blocks at
// the offsets in nic_regs.vh; the granted access goes to the selected block (write strobe,
// access strobe, 12-bit offset, data and a bit mask from the byte enables). At the access
// strobe the block registers its read data for that offset; rdata (that block's registered
// word, 0 after an access in no block) and err are valid the cycle after the grant, for
// whichever side was granted. An address in no block gives err (the core takes an access
// fault; the host reads 0xFFFFFFFF and hostif counts it).
`default_nettype none
`include "nic_regs.vh"
module nic_regbus #(
  parameter integer NBLK = 9
) (
  input  wire             clk,
  input  wire             rst,
  // core side
  input  wire             c_valid,
  input  wire             c_we,
  input  wire [15:0]      c_addr,
  input  wire [31:0]      c_wdata,
  input  wire [3:0]       c_be,
  output wire             c_gnt,
  // host side
  input  wire             h_valid,
  input  wire             h_we,
  input  wire [15:0]      h_addr,
  input  wire [31:0]      h_wdata,
  input  wire [3:0]       h_be,
  output wire             h_gnt,
  // response (both sides, the cycle after a grant)
  output reg  [31:0]      rdata,      // registers of the blocks, selected by the last access
  output reg              err,
  // to the blocks: hostif, intc, timer, dma, mac, perf, console, testmb, doorbell
  output wire [NBLK-1:0]  blk_wr,
  output wire [NBLK-1:0]  blk_acc,    // access (read or write): the block registers its rdata
  output wire [11:0]      blk_addr,
  output wire [31:0]      blk_wdata,
  output wire [31:0]      blk_wmask,
  input  wire [NBLK*32-1:0] blk_rdata
);
  initial begin
    if (NBLK != 9) begin
      $display("nic_regbus: NBLK must be 9 (the blocks of nic_regs.vh)");
      $finish;
    end
  end
  localparam [31:0] O0 = `NIC_HOSTIF_OFFSET, O1 = `NIC_INTC_OFFSET, O2 = `NIC_TIMER_OFFSET,
                    O3 = `NIC_DMA_OFFSET, O4 = `NIC_MAC_OFFSET, O5 = `NIC_PERF_OFFSET,
                    O6 = `NIC_CONSOLE_OFFSET, O7 = `NIC_TESTMB_OFFSET, O8 = `NIC_DOORBELL_OFFSET;
  localparam [NBLK*4-1:0] BLK_IDX = {O8[15:12], O7[15:12], O6[15:12], O5[15:12], O4[15:12],
                                     O3[15:12], O2[15:12], O1[15:12], O0[15:12]};

  reg host_turn;
  assign c_gnt = c_valid && (!h_valid || !host_turn);
  assign h_gnt = h_valid && !c_gnt;
  wire        any = c_gnt || h_gnt;
  wire        we  = c_gnt ? c_we : h_we;
  // lint_off: address bits [1:0]: registers are whole words
  /* verilator lint_off UNUSEDSIGNAL */
  wire [15:0] a   = c_gnt ? c_addr : h_addr;   // [1:0] ignored: word registers
  /* verilator lint_on UNUSEDSIGNAL */
  wire [3:0]  be  = c_gnt ? c_be : h_be;
  assign blk_addr  = {a[11:2], 2'b00};
  assign blk_wdata = c_gnt ? c_wdata : h_wdata;
  // {{8{be[3]}}, {8{be[2]}}, {8{be[1]}}, {8{be[0]}}}, written as a table of the 16 cases (the
  // simulator looks it up instead of assembling four bytes, in the input-driven logic: speed)
  reg [31:0] wmask;
  always @* begin
    case (be)
      4'h0: wmask = 32'h0000_0000;  4'h1: wmask = 32'h0000_00FF;
      4'h2: wmask = 32'h0000_FF00;  4'h3: wmask = 32'h0000_FFFF;
      4'h4: wmask = 32'h00FF_0000;  4'h5: wmask = 32'h00FF_00FF;
      4'h6: wmask = 32'h00FF_FF00;  4'h7: wmask = 32'h00FF_FFFF;
      4'h8: wmask = 32'hFF00_0000;  4'h9: wmask = 32'hFF00_00FF;
      4'hA: wmask = 32'hFF00_FF00;  4'hB: wmask = 32'hFF00_FFFF;
      4'hC: wmask = 32'hFFFF_0000;  4'hD: wmask = 32'hFFFF_00FF;
      4'hE: wmask = 32'hFFFF_FF00;  default: wmask = 32'hFFFF_FFFF;
    endcase
  end
  assign blk_wmask = wmask;

  reg [NBLK-1:0] sel;
  integer i;
  always @* begin
    for (i = 0; i < NBLK; i = i + 1)
      sel[i] = (a[15:12] == BLK_IDX[4*i +: 4]);
  end
  assign blk_wr  = (any && we) ? sel : {NBLK{1'b0}};
  assign blk_acc = any ? sel : {NBLK{1'b0}};

  // Read data: each block registers its own read data at an access (blk_acc), so no block's
  // read multiplexer sits in the combinational path of the host's request (simulation speed:
  // the simulator evaluates that path several times a cycle); the block of the last access is
  // remembered here (rsel) and its registered word returned. Same value as registering the
  // selected block's combinational read data at the grant.
  reg [NBLK-1:0] rsel;
  always @* begin
    rdata = 32'd0;
    for (i = 0; i < NBLK; i = i + 1)
      if (rsel[i]) rdata = blk_rdata[32*i +: 32];
  end

  always @(posedge clk) begin
    if (rst) begin
      host_turn <= 1'b0;
      err <= 1'b0;
      rsel <= {NBLK{1'b0}};
    end else begin
      if (c_valid && h_valid) host_turn <= !host_turn;
      if (any) begin
        rsel <= sel;
        err  <= (sel == {NBLK{1'b0}});
      end
    end
  end
endmodule
`default_nettype wire
