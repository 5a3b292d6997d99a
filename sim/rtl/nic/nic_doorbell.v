// nic_doorbell: per-process doorbells, firmware side. The host port pushes {page, offset, data}
// for every write into doorbell page p (BAR4 + p * 4 KiB); the page identifies the process, so
// a process that can map only its own page cannot ring for another. Entries leave in arrival
// order through head_src/head_data and pop. A push into a full FIFO is dropped and counted in
// status.overflow (saturating), never lost silently. Every accepted push raises the intc source
// `doorbell`; the firmware acknowledges, then drains until status.count is 0.
`default_nettype none
`include "nic_regs.vh"
module nic_doorbell #(
  parameter integer DEPTH = 64
) (
  input  wire        clk,
  input  wire        rst,
  // register access
  input  wire        wr,
  input  wire [11:0] addr,
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  /* verilator lint_on UNUSEDSIGNAL */
  output reg  [31:0] rdata,
  // from the host port
  input  wire        push,
  input  wire [11:0] push_page,
  input  wire [11:0] push_offset,
  input  wire [31:0] push_data,
  // to intc
  output reg         ev_doorbell
);
  localparam integer CW = $clog2(DEPTH) + 1;
  initial begin
    if (DEPTH > 255 || DEPTH < 2) begin
      $display("nic_doorbell: DEPTH (%0d) must be 2..255 (status.count is 8 bits)", DEPTH);
      $finish;
    end
  end

  wire        full, empty;
  wire [CW-1:0] count;
  wire [55:0] head;
  wire        pop = wr && addr == `NIC_DOORBELL_POP && !empty;
  reg  [15:0] overflow;

  nic_fifo #(.W(56), .DEPTH(DEPTH)) u_fifo (
    .clk(clk), .rst(rst),
    .push(push), .wdata({push_page, push_offset, push_data}), .full(full),
    .pop(pop), .rdata(head), .empty(empty), .count(count)
  );

  always @(posedge clk) begin
    if (rst) begin
      overflow <= 16'd0;
      ev_doorbell <= 1'b0;
    end else begin
      ev_doorbell <= push && !full;
      if (push && full && overflow != 16'hFFFF) overflow <= overflow + 16'd1;
    end
  end

  wire [31:0] status = ({{(32-CW){1'b0}}, count} << `NIC_DOORBELL_STATUS_COUNT_LSB) |
                       ({16'd0, overflow} << `NIC_DOORBELL_STATUS_OVERFLOW_LSB);
  wire [31:0] src = empty ? 32'd0 : (({20'd0, head[43:32]} << `NIC_DOORBELL_HEAD_SRC_OFFSET_LSB) |
                                     ({20'd0, head[55:44]} << `NIC_DOORBELL_HEAD_SRC_PAGE_LSB));
  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_DOORBELL_ID:        rdata <= `NIC_DOORBELL_ID_VALUE;
        `NIC_DOORBELL_VERSION:   rdata <= `NIC_DOORBELL_VERSION_VALUE;
        `NIC_DOORBELL_STATUS:    rdata <= status;
        `NIC_DOORBELL_HEAD_SRC:  rdata <= src;
        `NIC_DOORBELL_HEAD_DATA: rdata <= empty ? 32'd0 : head[31:0];
        default:                 rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
