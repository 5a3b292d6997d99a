// nic_testmb: test-status mailbox. status and value are plain registers mirrored on the harness
// ports; testmb_valid pulses for one cycle after each write to status (write value first).
`default_nettype none
`include "nic_regs.vh"
module nic_testmb (
  input  wire        clk,
  input  wire        rst,
  // register access
  input  wire        wr,
  input  wire [11:0] addr,
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  output reg  [31:0] rdata,
  // to the harness
  output reg         testmb_valid,
  output reg  [31:0] testmb_status,
  output reg  [31:0] testmb_value
);
  always @(posedge clk) begin
    if (rst) begin
      testmb_valid  <= 1'b0;
      testmb_status <= `NIC_TESTMB_STATUS_RESET;
      testmb_value  <= `NIC_TESTMB_VALUE_RESET;
    end else begin
      testmb_valid <= wr && addr == `NIC_TESTMB_STATUS;
      if (wr && addr == `NIC_TESTMB_STATUS) testmb_status <= (testmb_status & ~wmask) | (wdata & wmask);
      if (wr && addr == `NIC_TESTMB_VALUE)  testmb_value  <= (testmb_value & ~wmask) | (wdata & wmask);
    end
  end

  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_TESTMB_ID:      rdata <= `NIC_TESTMB_ID_VALUE;
        `NIC_TESTMB_VERSION: rdata <= `NIC_TESTMB_VERSION_VALUE;
        `NIC_TESTMB_STATUS:  rdata <= testmb_status;
        `NIC_TESTMB_VALUE:   rdata <= testmb_value;
        default:             rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
