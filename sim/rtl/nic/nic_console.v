// nic_console: debug console. A write to txdata puts its character on the harness port for one
// cycle (console_valid); the harness logs it for this node. Never blocks.
`default_nettype none
`include "nic_regs.vh"
module nic_console (
  input  wire        clk,
  input  wire        rst,
  // register access
  input  wire        wr,
  input  wire [11:0] addr,
  // lint_off: the register port every block has; txdata uses only its character bits of wdata and wmask
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  /* verilator lint_on UNUSEDSIGNAL */
  output reg  [31:0] rdata,
  // to the harness
  output reg         console_valid,
  output reg  [7:0]  console_char
);
  always @(posedge clk) begin
    if (rst) begin
      console_valid <= 1'b0;
      console_char  <= 8'd0;
    end else begin
      console_valid <= wr && addr == `NIC_CONSOLE_TXDATA && wmask[`NIC_CONSOLE_TXDATA_CHAR_LSB];
      if (wr && addr == `NIC_CONSOLE_TXDATA)
        console_char <= wdata[`NIC_CONSOLE_TXDATA_CHAR_MSB:`NIC_CONSOLE_TXDATA_CHAR_LSB];
    end
  end

  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_CONSOLE_ID:      rdata <= `NIC_CONSOLE_ID_VALUE;
        `NIC_CONSOLE_VERSION: rdata <= `NIC_CONSOLE_VERSION_VALUE;
        default:              rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
