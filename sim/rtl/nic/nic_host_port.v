// nic_host_port: the host MMIO target (the PCIe model drives it).
//   BAR0 (host_req_bar 0): the register blocks at their offsets (64 KiB), via nic_regbus
//   BAR2 (host_req_bar 2): the 64 KiB window into SRAM, or into IMEM with hostif.ctrl.win_imem,
//                          starting at hostif.win_base
//   BAR4 (host_req_bar 3): doorbell pages, DB_PAGES x NIC_BAR_DOORBELL_PAGE (linker/memmap.toml;
//                          4 KiB). On page p < NIC_SENDQ_SLOTS, offsets
//                          below NIC_SENDQ_STRIDE are endpoint p's send queue in SRAM (at
//                          sendq + p * stride + offset; reads and writes, byte enables honoured):
//                          a user process, which is given only its own page, writes its work
//                          requests straight into NIC memory. Any other write to page p, offset
//                          o, data d queues {p, o, d} for the firmware (whole-word: the byte
//                          enables are not used); such reads return 0
// Anything else (BAR1, addresses beyond a BAR, beyond the memory, a page >= DB_PAGES, a register
// block that does not exist) is counted in hostif.host_bad (ev_bad); reads return 0xFFFFFFFF and
// writes are dropped. Writes are posted; a read is answered exactly one cycle after it is
// accepted (host_rsp_valid + host_rsp_rdata). host_req_ready drops only while the SRAM, IMEM or
// register bus is granted to someone else.
`default_nettype none
`include "nic_regs.vh"
`include "nic_memmap.vh"
module nic_host_port #(
  parameter integer DB_PAGES = `NIC_BAR_DOORBELL_PAGES
) (
  input  wire         clk,
  input  wire         rst,
  // host MMIO target
  input  wire         host_req_valid,
  output wire         host_req_ready,
  input  wire         host_req_we,
  input  wire [1:0]   host_req_bar,
  input  wire [23:0]  host_req_addr,
  input  wire [31:0]  host_req_wdata,
  input  wire [3:0]   host_req_be,
  output reg          host_rsp_valid,
  output reg  [31:0]  host_rsp_rdata,
  // window configuration (hostif)
  input  wire [31:0]  win_base,
  input  wire         win_imem,
  // register bus (host side)
  output wire         rb_valid,
  output wire         rb_we,
  output wire [15:0]  rb_addr,
  output wire [31:0]  rb_wdata,
  output wire [3:0]   rb_be,
  input  wire         rb_gnt,
  input  wire [31:0]  rb_rdata,
  input  wire         rb_err,
  // SRAM requester
  output wire         sm_valid,
  output wire [31:0]  sm_addr,
  output wire         sm_we,
  output wire [15:0]  sm_be,
  output wire [127:0] sm_wdata,
  input  wire         sm_gnt,
  input  wire [127:0] sm_rdata,
  // IMEM port B (host side)
  output wire         im_valid,
  output wire         im_we,
  output wire [31:0]  im_off,
  output wire [3:0]   im_be,
  output wire [31:0]  im_wdata,
  input  wire         im_gnt,
  input  wire [31:0]  im_rdata,
  // doorbells
  output wire         db_push,
  // widths: doorbell.head_src's fields, which nicgen checks against host_bar.doorbell.page
  output wire [`NIC_DOORBELL_HEAD_SRC_PAGE_WIDTH-1:0]   db_page,
  output wire [`NIC_DOORBELL_HEAD_SRC_OFFSET_WIDTH-1:0] db_offset,
  output wire [31:0]  db_data,
  // events, status
  output wire         ev_bad,
  output wire         busy              // a read response is due next cycle
);
  localparam [31:0] IS = `NIC_IMEM_SIZE, SS = `NIC_SRAM_SIZE, DBP = DB_PAGES;
  // a doorbell address: page number above PB bits of offset (linker/memmap.toml host_bar doorbell)
  localparam integer PB = `NIC_BAR_DOORBELL_PAGE_BITS, PW = `NIC_DOORBELL_HEAD_SRC_PAGE_WIDTH;
  initial begin
    if (DB_PAGES < 1 || DB_PAGES > (1 << PW)) begin
      $display("nic_host_port: DB_PAGES (%0d) must be 1..%0d (doorbell.head_src.page)", DB_PAGES, 1 << PW);
      $finish;
    end
  end

  // BAR codes and sizes: linker/memmap.toml [[host_bar]] (nic_memmap.vh)
  localparam [31:0] REGS_CODE = `NIC_BAR_REGS_CODE, WIN_CODE = `NIC_BAR_WINDOW_CODE, DB_CODE = `NIC_BAR_DOORBELL_CODE;
  localparam [31:0] REGS_SIZE = `NIC_BAR_REGS_SIZE, WIN_SIZE = `NIC_BAR_WINDOW_SIZE;
  wire [31:0] req_a = {8'd0, host_req_addr};
  wire        bar0 = (host_req_bar == REGS_CODE[1:0]) && (req_a < REGS_SIZE);
  wire        bar2 = (host_req_bar == WIN_CODE[1:0]) && (req_a < WIN_SIZE);
  wire [31:0] db_pg  = {8'd0, host_req_addr} >> PB;
  wire        bar4 = (host_req_bar == DB_CODE[1:0]) && (db_pg < DBP);
  wire [31:0] woff = win_base + {16'd0, host_req_addr[15:2], 2'b00};
  wire        to_imem = bar2 && win_imem && (woff < IS);
  wire        to_win = bar2 && !win_imem && (woff < SS);
  // send queues behind the doorbell pages (linker/memmap.toml [sendq])
  localparam [31:0] SQ_OFF = `NIC_SRAM_SENDQ_OFFSET, SQ_STRIDE = `NIC_SENDQ_STRIDE, SQ_SLOTS = `NIC_SENDQ_SLOTS;
  wire [31:0] db_off = {8'd0, host_req_addr} & ((32'd1 << PB) - 32'd4);
  wire        to_sq  = bar4 && (db_off < SQ_STRIDE) && (db_pg < SQ_SLOTS);
  wire        to_sram = to_win || to_sq;
  wire [31:0] saddr  = to_sq ? SQ_OFF + db_pg * SQ_STRIDE + db_off : woff;
  wire        bad = !(bar0 || to_imem || to_sram || bar4);

  assign rb_valid = host_req_valid && bar0;
  assign rb_we    = host_req_we;
  assign rb_addr  = host_req_addr[15:0];
  assign rb_wdata = host_req_wdata;
  assign rb_be    = host_req_be;

  assign sm_valid = host_req_valid && to_sram;
  assign sm_addr  = saddr;
  assign sm_we    = host_req_we;
  assign sm_be    = {12'd0, host_req_be} << {saddr[3:2], 2'b00};
  assign sm_wdata = {4{host_req_wdata}};

  assign im_valid = host_req_valid && to_imem;
  assign im_we    = host_req_we;
  assign im_off   = woff;
  assign im_be    = host_req_be;
  assign im_wdata = host_req_wdata;

  assign host_req_ready = bad || (bar4 && !to_sq) || (bar0 && rb_gnt) || (to_sram && sm_gnt) || (to_imem && im_gnt);
  wire acc = host_req_valid && host_req_ready;

  assign db_push   = acc && bar4 && !to_sq && host_req_we;
  assign db_page   = db_pg[PW-1:0];
  assign db_offset = host_req_addr[PB-1:0];
  assign db_data   = host_req_wdata;

  localparam [2:0] K_NONE = 3'd0, K_REG = 3'd1, K_SRAM = 3'd2, K_IMEM = 3'd3, K_ZERO = 3'd4, K_BAD = 3'd5;
  reg [2:0] kind;
  reg [1:0] lane;
  assign busy = (kind != K_NONE);
  reg bad_q, rb_q;
  always @(posedge clk) begin
    if (rst) begin
      kind <= K_NONE;
      bad_q <= 1'b0;
      rb_q <= 1'b0;
    end else begin
      bad_q <= acc && bad;
      rb_q <= acc && bar0;
      if (acc && !host_req_we)
        kind <= bad ? K_BAD : bar0 ? K_REG : to_sram ? K_SRAM : to_imem ? K_IMEM : K_ZERO;
      else
        kind <= K_NONE;
    end
    lane <= saddr[3:2];
  end

  // an access to a register block that does not exist is counted too (rb_err follows the grant)
  assign ev_bad = bad_q || (rb_q && rb_err);

  always @* begin
    host_rsp_valid = (kind != K_NONE);
    case (kind)
      K_REG:   host_rsp_rdata = rb_err ? 32'hFFFF_FFFF : rb_rdata;
      K_SRAM:  host_rsp_rdata = sm_rdata[32*lane +: 32];
      K_IMEM:  host_rsp_rdata = im_rdata;
      K_BAD:   host_rsp_rdata = 32'hFFFF_FFFF;
      default: host_rsp_rdata = 32'd0;
    endcase
  end
endmodule
`default_nettype wire
