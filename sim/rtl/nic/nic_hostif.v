// nic_hostif: host interface registers. Core reset control (ctrl.core_reset, 1 at power-on),
// firmware state/version/info for the driver's handshake, the host interrupt (cause/mask/raise:
// host_irq = |(irq_cause & irq_mask), level), the host window's base and target, and the host
// error counters (IMEM writes refused while the core runs, host accesses that hit nothing).
`default_nettype none
`include "nic_regs.vh"
module nic_hostif (
  input  wire        clk,
  input  wire        rst,
  // register access
  input  wire        wr,
  input  wire [11:0] addr,
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  output reg  [31:0] rdata,
  // status and error events
  input  wire        core_sleeping,
  input  wire        ev_imem_wr_dropped,
  input  wire        ev_host_bad,
  // outputs
  output wire        core_reset,     // hold the core in reset
  output wire        win_imem,       // host window targets IMEM (else SRAM)
  output wire [31:0] win_base,
  output wire        host_irq
);
  localparam [31:0] CAUSE_IMPL = (32'd1 << `NIC_HOSTIF_IRQ_CAUSE_MISS_LSB) |
                                 (32'd1 << `NIC_HOSTIF_IRQ_CAUSE_CMPL_LSB) |
                                 (32'd1 << `NIC_HOSTIF_IRQ_CAUSE_ERROR_LSB);
  localparam [31:0] CTRL_IMPL = (32'd1 << `NIC_HOSTIF_CTRL_CORE_RESET_LSB) |
                                (32'd1 << `NIC_HOSTIF_CTRL_WIN_IMEM_LSB);
  reg [31:0] ctrl, fw_state, fw_version, fw_info, irq_cause, irq_mask, win_base_r, scratch;
  reg [31:0] imem_wr_dropped, host_bad;
  wire [31:0] w = wdata & wmask;

  function [31:0] merge(input [31:0] old);
    merge = (old & ~wmask) | w;
  endfunction

  always @(posedge clk) begin
    if (rst) begin
      ctrl            <= `NIC_HOSTIF_CTRL_RESET;
      fw_state        <= `NIC_HOSTIF_FW_STATE_RESET;
      fw_version      <= `NIC_HOSTIF_FW_VERSION_RESET;
      fw_info         <= `NIC_HOSTIF_FW_INFO_RESET;
      irq_cause       <= `NIC_HOSTIF_IRQ_CAUSE_RESET;
      irq_mask        <= `NIC_HOSTIF_IRQ_MASK_RESET;
      win_base_r      <= `NIC_HOSTIF_WIN_BASE_RESET;
      scratch         <= `NIC_HOSTIF_SCRATCH_RESET;
      imem_wr_dropped <= `NIC_HOSTIF_IMEM_WR_DROPPED_RESET;
      host_bad        <= `NIC_HOSTIF_HOST_BAD_RESET;
    end else begin
      if (wr) begin
        case (addr)
          `NIC_HOSTIF_CTRL:       ctrl       <= merge(ctrl) & CTRL_IMPL;
          `NIC_HOSTIF_FW_STATE:   fw_state   <= merge(fw_state);
          `NIC_HOSTIF_FW_VERSION: fw_version <= merge(fw_version);
          `NIC_HOSTIF_FW_INFO:    fw_info    <= merge(fw_info);
          `NIC_HOSTIF_IRQ_MASK:   irq_mask   <= merge(irq_mask) & CAUSE_IMPL;
          `NIC_HOSTIF_WIN_BASE:   win_base_r <= merge(win_base_r) & 32'hFFFF_F000;
          `NIC_HOSTIF_SCRATCH:    scratch    <= merge(scratch);
          default: ;
        endcase
      end
      // raise (w1s) and cause (w1c) both act on irq_cause; a raise wins over a same-cycle clear
      irq_cause <= ((irq_cause & ~((wr && addr == `NIC_HOSTIF_IRQ_CAUSE) ? w : 32'd0)) |
                    ((wr && addr == `NIC_HOSTIF_IRQ_RAISE) ? w : 32'd0)) & CAUSE_IMPL;
      if (ev_imem_wr_dropped && imem_wr_dropped != 32'hFFFF_FFFF) imem_wr_dropped <= imem_wr_dropped + 32'd1;
      if (ev_host_bad && host_bad != 32'hFFFF_FFFF) host_bad <= host_bad + 32'd1;
    end
  end

  assign core_reset = ctrl[`NIC_HOSTIF_CTRL_CORE_RESET_LSB];
  assign win_imem   = ctrl[`NIC_HOSTIF_CTRL_WIN_IMEM_LSB];
  assign win_base   = win_base_r;
  assign host_irq   = |(irq_cause & irq_mask);

  wire [31:0] status = ({31'd0, core_reset} << `NIC_HOSTIF_STATUS_CORE_IN_RESET_LSB) |
                       ({31'd0, core_sleeping} << `NIC_HOSTIF_STATUS_CORE_SLEEPING_LSB);
  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_HOSTIF_ID:              rdata <= `NIC_HOSTIF_ID_VALUE;
        `NIC_HOSTIF_VERSION:         rdata <= `NIC_HOSTIF_VERSION_VALUE;
        `NIC_HOSTIF_CTRL:            rdata <= ctrl;
        `NIC_HOSTIF_FW_STATE:        rdata <= fw_state;
        `NIC_HOSTIF_FW_VERSION:      rdata <= fw_version;
        `NIC_HOSTIF_FW_INFO:         rdata <= fw_info;
        `NIC_HOSTIF_IRQ_CAUSE:       rdata <= irq_cause;
        `NIC_HOSTIF_IRQ_MASK:        rdata <= irq_mask;
        `NIC_HOSTIF_WIN_BASE:        rdata <= win_base_r;
        `NIC_HOSTIF_SCRATCH:         rdata <= scratch;
        `NIC_HOSTIF_STATUS:          rdata <= status;
        `NIC_HOSTIF_IMEM_WR_DROPPED: rdata <= imem_wr_dropped;
        `NIC_HOSTIF_HOST_BAD:        rdata <= host_bad;
        default:                     rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
