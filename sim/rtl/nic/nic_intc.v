// nic_intc: interrupt controller. Events from the blocks (one-cycle pulses) latch into
// `pending`; the core's MEIP is |(pending & enable). Software clears with `ack` (write ones) and
// may set with `raise` (the host uses it to post a command). An event and an ack of the same
// source in one cycle leave it pending (the event is never lost).
`default_nettype none
`include "nic_regs.vh"
module nic_intc (
  input  wire        clk,
  input  wire        rst,
  // register access (see nic_regbus in nic_top)
  input  wire        wr,
  input  wire [11:0] addr,
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  output reg  [31:0] rdata,
  // event pulses from the blocks
  input  wire        ev_dma,
  input  wire        ev_mac_rx,
  input  wire        ev_mac_tx,
  input  wire        ev_doorbell,
  // to the core
  output wire        meip
);
  localparam [31:0] IMPL = (32'd1 << `NIC_INTC_PENDING_DMA_LSB) | (32'd1 << `NIC_INTC_PENDING_MAC_RX_LSB) |
                           (32'd1 << `NIC_INTC_PENDING_MAC_TX_LSB) | (32'd1 << `NIC_INTC_PENDING_DOORBELL_LSB) |
                           (32'd1 << `NIC_INTC_PENDING_HOST_LSB);
  reg [31:0] pending, enable;

  wire [31:0] ev = ({31'd0, ev_dma}      << `NIC_INTC_PENDING_DMA_LSB) |
                   ({31'd0, ev_mac_rx}   << `NIC_INTC_PENDING_MAC_RX_LSB) |
                   ({31'd0, ev_mac_tx}   << `NIC_INTC_PENDING_MAC_TX_LSB) |
                   ({31'd0, ev_doorbell} << `NIC_INTC_PENDING_DOORBELL_LSB);
  wire [31:0] w = wdata & wmask;
  wire [31:0] ack   = (wr && addr == `NIC_INTC_ACK)   ? w : 32'd0;
  wire [31:0] raise = (wr && addr == `NIC_INTC_RAISE) ? w : 32'd0;

  assign meip = |(pending & enable);

  always @(posedge clk) begin
    if (rst) begin
      pending <= `NIC_INTC_PENDING_RESET;
      enable  <= `NIC_INTC_ENABLE_RESET;
    end else begin
      pending <= ((pending & ~ack) | raise | ev) & IMPL;
      if (wr && addr == `NIC_INTC_ENABLE) enable <= ((enable & ~wmask) | w) & IMPL;
    end
  end

  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_INTC_ID:      rdata <= `NIC_INTC_ID_VALUE;
        `NIC_INTC_VERSION: rdata <= `NIC_INTC_VERSION_VALUE;
        `NIC_INTC_PENDING: rdata <= pending;
        `NIC_INTC_ENABLE:  rdata <= enable;
        default:           rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
