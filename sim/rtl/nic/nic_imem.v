// nic_imem: instruction memory, 32-bit words, two ports.
//   Port A: the core's instruction fetch (always ready, response next cycle; an address outside
//           IMEM answers with ibus_rsp_err).
//   Port B: shared by the core's data-port loads (.rodata, .data load image) and the host
//           window. Round-robin between the two when both ask in one cycle. Host writes are
//           accepted only while the core is held in reset; while it runs they are dropped and
//           ev_wr_dropped pulses (counted in hostif.imem_wr_dropped).
// Responses are not given for requests accepted while the core is in reset (port A), so a
// fetch issued just before a reset cannot reach the restarted core.
`default_nettype none
`include "nic_memmap.vh"
module nic_imem #(
  parameter integer    SIZE = `NIC_IMEM_SIZE,   // bytes
  parameter [31:0]     BASE = `NIC_IMEM_BASE
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        core_rst,
  // port A: instruction fetch (core addresses)
  input  wire        ibus_req_valid,
  output wire        ibus_req_ready,
  input  wire [31:0] ibus_req_addr,
  output reg         ibus_rsp_valid,
  output reg  [31:0] ibus_rsp_rdata,
  output reg         ibus_rsp_err,
  // port B, core side: loads (byte offset inside IMEM, range-checked by the decoder)
  input  wire        c_valid,
  // lint_off: offset bits above the memory and [1:0] (whole words) are not decoded, on either side
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [31:0] c_off,
  output wire        c_gnt,
  output wire [31:0] c_rdata,            // the cycle after c_gnt
  // port B, host side (byte offset inside IMEM, range-checked by the host port)
  input  wire        h_valid,
  input  wire        h_we,
  input  wire [31:0] h_off,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [3:0]  h_be,
  input  wire [31:0] h_wdata,
  output wire        h_gnt,
  output wire [31:0] h_rdata,            // the cycle after h_gnt for a read
  output wire        ev_wr_dropped
);
  localparam integer DEPTH = SIZE / 4;
  localparam integer AW    = $clog2(DEPTH);
  initial begin
    if (SIZE < 64 || (1 << $clog2(SIZE)) != SIZE) begin
      $display("nic_imem: SIZE (%0d) must be a power of two >= 64", SIZE);
      $finish;
    end
    if (BASE[1:0] != 2'b00) begin
      $display("nic_imem: BASE must be word aligned");
      $finish;
    end
  end

  // public: the simulator's debug backdoor (GDB memory access while the core is halted)
  reg [31:0] mem [0:DEPTH-1] /*verilator public_flat_rw*/;

  // ---- port A ----
  localparam [31:0] SZ = SIZE;
  wire [31:0] a_off = ibus_req_addr - BASE;
  wire        a_in  = (a_off < SZ);
  assign ibus_req_ready = 1'b1;
  always @(posedge clk) begin
    if (rst) begin
      ibus_rsp_valid <= 1'b0;
      ibus_rsp_err   <= 1'b0;
    end else begin
      ibus_rsp_valid <= ibus_req_valid && !core_rst;
      ibus_rsp_err   <= !a_in;
    end
    if (ibus_req_valid) ibus_rsp_rdata <= mem[a_off[AW+1:2]];
  end

  // ---- port B ----
  reg  host_turn;                           // who wins the next conflict
  wire h_drop = h_valid && h_we && !core_rst;
  wire h_use  = h_valid && !h_drop;
  assign c_gnt = c_valid && (!h_use || !host_turn);
  wire   hg    = h_use && !c_gnt;
  assign h_gnt = hg || h_drop;
  assign ev_wr_dropped = h_drop;
  wire [AW-1:0] b_idx = c_gnt ? c_off[AW+1:2] : h_off[AW+1:2];
  reg  [31:0]   b_q;
  integer i;
  always @(posedge clk) begin
    if (rst) host_turn <= 1'b0;
    else if (c_valid && h_use) host_turn <= !host_turn;
    if (hg && h_we) begin
      for (i = 0; i < 4; i = i + 1)
        if (h_be[i]) mem[b_idx][8*i +: 8] <= h_wdata[8*i +: 8];
    end else if (c_gnt || hg) begin
      b_q <= mem[b_idx];
    end
  end
  assign c_rdata = b_q;
  assign h_rdata = b_q;
endmodule
`default_nettype wire
