// nic_dbus: the core's data-port decoder (core addresses, nic_memmap.vh):
//   IMEM  loads only (.rodata, .data load image); a store is an access fault
//   SRAM  32-bit accesses into the 128-bit SRAM (byte enables shifted to the word's lane)
//   MMIO  the register bus (an address in no block is an access fault)
//   anything else: access fault (dbus_rsp_err)
// Every access is answered exactly one cycle after it is accepted (the SRAM and register bus
// grant in the same cycle when free, so an uncontended access is single-cycle). The core keeps
// at most one access outstanding; the decoder's state is reset with the core.
`default_nettype none
`include "nic_memmap.vh"
module nic_dbus (
  input  wire         clk,
  input  wire         core_rst,
  // core data port
  input  wire         dbus_req_valid,
  output wire         dbus_req_ready,
  input  wire [31:0]  dbus_req_addr,
  input  wire         dbus_req_we,
  input  wire [3:0]   dbus_req_be,
  input  wire [31:0]  dbus_req_wdata,
  output reg          dbus_rsp_valid,
  output reg  [31:0]  dbus_rsp_rdata,
  output reg          dbus_rsp_err,
  // IMEM port B (core side)
  output wire         im_valid,
  output wire [31:0]  im_off,
  input  wire         im_gnt,
  input  wire [31:0]  im_rdata,
  // SRAM requester
  output wire         sm_valid,
  output wire [31:0]  sm_addr,
  output wire         sm_we,
  output wire [15:0]  sm_be,
  output wire [127:0] sm_wdata,
  input  wire         sm_gnt,
  input  wire [127:0] sm_rdata,
  // register bus (core side)
  output wire         rb_valid,
  output wire         rb_we,
  output wire [15:0]  rb_addr,
  output wire [31:0]  rb_wdata,
  output wire [3:0]   rb_be,
  input  wire         rb_gnt,
  input  wire [31:0]  rb_rdata,
  input  wire         rb_err
);
  localparam [31:0] IB = `NIC_IMEM_BASE, IS = `NIC_IMEM_SIZE;
  localparam [31:0] SB = `NIC_SRAM_BASE, SS = `NIC_SRAM_SIZE;
  localparam [31:0] MB = `NIC_MMIO_BASE, MS = `NIC_MMIO_SIZE;

  wire [31:0] ioff = dbus_req_addr - IB;
  wire [31:0] soff = dbus_req_addr - SB;
  wire [31:0] moff = dbus_req_addr - MB;
  wire is_imem = (ioff < IS);
  wire is_sram = (soff < SS);
  wire is_mmio = (moff < MS);
  wire is_bad  = !(is_imem || is_sram || is_mmio) || (is_imem && dbus_req_we);

  assign im_valid = dbus_req_valid && is_imem && !dbus_req_we;
  assign im_off   = ioff;
  assign sm_valid = dbus_req_valid && is_sram;
  assign sm_addr  = soff;
  assign sm_we    = dbus_req_we;
  assign sm_be    = {12'd0, dbus_req_be} << {soff[3:2], 2'b00};
  assign sm_wdata = {4{dbus_req_wdata}};
  assign rb_valid = dbus_req_valid && is_mmio;
  assign rb_we    = dbus_req_we;
  assign rb_addr  = moff[15:0];
  assign rb_wdata = dbus_req_wdata;
  assign rb_be    = dbus_req_be;

  assign dbus_req_ready = is_bad || (is_imem && im_gnt) || (is_sram && sm_gnt) || (is_mmio && rb_gnt);
  wire acc = dbus_req_valid && dbus_req_ready;

  localparam [2:0] K_NONE = 3'd0, K_IMEM = 3'd1, K_SRAM = 3'd2, K_REG = 3'd3, K_ERR = 3'd4, K_ACK = 3'd5;
  reg [2:0] kind;
  reg [1:0] lane;
  always @(posedge clk) begin
    if (core_rst) begin
      kind <= K_NONE;
    end else if (acc) begin
      kind <= is_bad ? K_ERR : is_imem ? K_IMEM : is_sram ? (dbus_req_we ? K_ACK : K_SRAM) : K_REG;
    end else begin
      kind <= K_NONE;
    end
    lane <= soff[3:2];
  end

  always @* begin
    dbus_rsp_valid = (kind != K_NONE);
    dbus_rsp_err   = (kind == K_ERR) || (kind == K_REG && rb_err);
    case (kind)
      K_IMEM:  dbus_rsp_rdata = im_rdata;
      K_SRAM:  dbus_rsp_rdata = sm_rdata[32*lane +: 32];
      K_REG:   dbus_rsp_rdata = rb_rdata;
      default: dbus_rsp_rdata = 32'd0;
    endcase
  end
endmodule
`default_nettype wire
