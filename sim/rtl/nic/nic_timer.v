// nic_timer: machine timer. mtime counts core clock cycles; MTIP = (mtime >= mtimecmp); the msip
// register drives MSIP. Register writes replace the written half (mtime does not also count in
// that cycle).
//
// Harness hooks (simulation only; tie skip_valid to 0 on a board): in a cycle with skip_valid,
// mtime advances by 1 + skip_cycles instead of 1, so a harness that stopped clocking an idle NIC
// for skip_cycles cycles keeps time exact. cycles_to_irq says how far that may go: the cycles
// until mtime reaches mtimecmp (64 bits, exact: a harness that does not evaluate an idle NIC
// counts it down itself), 0 while MTIP is already set.
`default_nettype none
`include "nic_regs.vh"
module nic_timer (
  input  wire        clk,
  input  wire        rst,
  // register access
  input  wire        wr,
  input  wire [11:0] addr,
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  output reg  [31:0] rdata,
  // harness hook
  input  wire        skip_valid,
  input  wire [31:0] skip_cycles,
  output wire [63:0] cycles_to_irq,
  // to the core
  output wire        mtip,
  output wire        msip
);
  reg [63:0] mtime, mtimecmp;
  reg        msip_r;
  wire [31:0] w = wdata & wmask;

  assign mtip = (mtime >= mtimecmp);
  assign msip = msip_r;
  wire [63:0] to_cmp = mtimecmp - mtime;
  assign cycles_to_irq = mtip ? 64'd0 : to_cmp;

  wire [63:0] step = skip_valid ? ({32'd0, skip_cycles} + 64'd1) : 64'd1;

  always @(posedge clk) begin
    if (rst) begin
      mtime    <= {`NIC_TIMER_MTIME_HI_RESET, `NIC_TIMER_MTIME_LO_RESET};
      mtimecmp <= {`NIC_TIMER_MTIMECMP_HI_RESET, `NIC_TIMER_MTIMECMP_LO_RESET};
      msip_r   <= 1'b0;
    end else begin
      if (wr && addr == `NIC_TIMER_MTIME_LO)
        mtime[31:0] <= (mtime[31:0] & ~wmask) | w;
      else if (wr && addr == `NIC_TIMER_MTIME_HI)
        mtime[63:32] <= (mtime[63:32] & ~wmask) | w;
      else
        mtime <= mtime + step;
      if (wr && addr == `NIC_TIMER_MTIMECMP_LO) mtimecmp[31:0]  <= (mtimecmp[31:0] & ~wmask) | w;
      if (wr && addr == `NIC_TIMER_MTIMECMP_HI) mtimecmp[63:32] <= (mtimecmp[63:32] & ~wmask) | w;
      if (wr && addr == `NIC_TIMER_MSIP && wmask[`NIC_TIMER_MSIP_PENDING_LSB])
        msip_r <= wdata[`NIC_TIMER_MSIP_PENDING_LSB];
    end
  end

  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_TIMER_ID:          rdata <= `NIC_TIMER_ID_VALUE;
        `NIC_TIMER_VERSION:     rdata <= `NIC_TIMER_VERSION_VALUE;
        `NIC_TIMER_MTIME_LO:    rdata <= mtime[31:0];
        `NIC_TIMER_MTIME_HI:    rdata <= mtime[63:32];
        `NIC_TIMER_MTIMECMP_LO: rdata <= mtimecmp[31:0];
        `NIC_TIMER_MTIMECMP_HI: rdata <= mtimecmp[63:32];
        `NIC_TIMER_MSIP:        rdata <= {31'd0, msip_r} << `NIC_TIMER_MSIP_PENDING_LSB;
        default:                rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
