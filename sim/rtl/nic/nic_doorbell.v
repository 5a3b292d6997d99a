// nic_doorbell: per-process doorbells, firmware side. The host port passes {page, offset, data}
// for every write into doorbell page p (BAR4 + p * NIC_BAR_DOORBELL_PAGE); the page identifies the process, so a
// process that can map only its own page cannot ring for another.
//
// Coalescing (version 2): the doorbells the protocol defines have one register each, and a write
// replaces the register's value (the latest producer / consumer count wins) and marks it pending:
//   slot 0      page 0, offset NIC_DBPAGE_CMD_PI  (the driver's command ring producer count)
//   slot 1      page 0, offset NIC_DBPAGE_EV_CI   (the driver's event ring consumer count)
//   slot p + 1  page p (1 <= p < NIC_SENDQ_SLOTS), offset NIC_DBPAGE_SQ_PI (endpoint p's send queue)
// so nothing a process rings can overflow anything or displace another's doorbell: a process that
// rings in a loop only rewrites its own register. Every other write (an offset the protocol does
// not define, a page with no endpoint) goes to a small FIFO that may fill: a push into a full FIFO
// is dropped and counted in status.overflow (saturating); the driver's doorbells never go there.
// status.coalesced counts slot writes that replaced a value not yet taken (saturating).
//
// Firmware side (unchanged from version 1): while status.count > 0, head_src / head_data give one
// doorbell and pop takes it. The head is latched until popped: the driver's slots first, then the
// endpoints' round-robin (after the last one taken), then the FIFO. A slot written again after its
// head_data was read stays pending at the pop (the new value is taken next).
`default_nettype none
`include "nic_regs.vh"
`include "nic_memmap.vh"
module nic_doorbell #(
  parameter integer DEPTH = 64,
  parameter integer EPS   = `NIC_SENDQ_SLOTS  // pages with an endpoint (page 0 is the driver's)
) (
  input  wire        clk,
  input  wire        rst,
  // register access
  input  wire        wr,
  input  wire [11:0] addr,
  // lint_off: the register port every block has; no register here keeps written data (pop takes any)
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  /* verilator lint_on UNUSEDSIGNAL */
  output reg  [31:0] rdata,
  // from the host port
  input  wire        push,
  input  wire [`NIC_DOORBELL_HEAD_SRC_PAGE_WIDTH-1:0]   push_page,
  input  wire [`NIC_DOORBELL_HEAD_SRC_OFFSET_WIDTH-1:0] push_offset,
  input  wire [31:0] push_data,
  // to intc
  output reg         ev_doorbell
);
  localparam integer CW = $clog2(DEPTH) + 1;
  localparam integer PW = `NIC_DOORBELL_HEAD_SRC_PAGE_WIDTH, OW = `NIC_DOORBELL_HEAD_SRC_OFFSET_WIDTH;
  localparam integer FW = PW + OW + 32;        // FIFO entry {page, offset, data}
  localparam integer NS = EPS + 1;             // slots
  localparam integer SW = $clog2(NS + 1);      // slot index width (NS = none)
  initial begin
    if (DEPTH > 128 || DEPTH < 2) begin
      $display("nic_doorbell: DEPTH (%0d) must be 2..128 (status.count is 8 bits)", DEPTH);
      $finish;
    end
    if (EPS < 1 || EPS > 64) begin
      $display("nic_doorbell: EPS (%0d) must be 1..64", EPS);
      $finish;
    end
  end

  // ---- which slot a push names (NS: none, it goes to the FIFO) ----
  reg [SW-1:0] push_slot;
  always @* begin
    push_slot = NS[SW-1:0];
    if (push_page == {PW{1'b0}} && push_offset == `NIC_DBPAGE_CMD_PI)
      push_slot = 0;
    else if (push_page == {PW{1'b0}} && push_offset == `NIC_DBPAGE_EV_CI)
      push_slot = 1;
    else if (push_page != {PW{1'b0}} && {{(32-PW){1'b0}}, push_page} < EPS && push_offset == `NIC_DBPAGE_SQ_PI)
      push_slot = push_page[SW-1:0] + 1'b1;
  end
  wire to_slot = push && push_slot != NS[SW-1:0];

  // ---- the FIFO of everything else ----
  wire          full, empty;
  wire [CW-1:0] fcount;
  wire [FW-1:0] fhead;
  reg  [15:0]   overflow, coalesced;

  // ---- slots and the latched head ----
  reg  [31:0]   val [0:NS-1];
  reg  [NS-1:0] pend, wr_since_rd;
  reg           cur_valid, cur_fifo;
  reg  [SW-1:0] cur;
  reg  [SW-1:0] rr;        // the endpoint slot taken last (round-robin start)

  // next head: driver slots first, then endpoint slots (2..EPS) after rr, then the FIFO.
  // Only consulted while no head is latched (cur_valid: eff is cur), so it is left at 0 then;
  // the endpoint scan runs only when an endpoint slot is pending (else it finds nothing: rr is
  // always 2..EPS, so the scan visits slots 2..EPS only). Simulation speed: the scan is the
  // block's largest piece of logic and most cycles need none of it (docs/simulation-speed.md).
  reg [SW-1:0] pick;
  reg          pick_ok;
  integer      i, s;
  always @* begin
    pick = 0;
    pick_ok = 1'b0;
    s = 0;
    if (cur_valid) begin
      pick_ok = 1'b0;   // unused: the latched head is the head
    end else if (pend[0]) begin
      pick = 0;
      pick_ok = 1'b1;
    end else if (pend[1]) begin
      pick = 1;
      pick_ok = 1'b1;
    end else if (pend[NS-1:2] != {(NS-2){1'b0}}) begin
      for (i = 1; i <= EPS - 1; i = i + 1) begin
        s = {{(32-SW){1'b0}}, rr} + i;
        if (s > EPS) s = s - (EPS - 1);
        if (!pick_ok && pend[s]) begin
          pick = s[SW-1:0];
          pick_ok = 1'b1;
        end
      end
    end
  end
  // the head: latched at the first head_src / head_data read after a pop, until the next pop
  wire          eff_valid = cur_valid || pick_ok || !empty;
  wire          eff_fifo  = cur_valid ? cur_fifo : !pick_ok;
  wire [SW-1:0] eff       = cur_valid ? cur : pick;
  wire          rd_head   = acc && (addr == `NIC_DOORBELL_HEAD_SRC || addr == `NIC_DOORBELL_HEAD_DATA);
  wire          pop       = wr && addr == `NIC_DOORBELL_POP && eff_valid;

  nic_fifo #(.W(FW), .DEPTH(DEPTH)) u_fifo (
    .clk(clk), .rst(rst),
    .push(push && !to_slot), .wdata({push_page, push_offset, push_data}), .full(full),
    .pop(pop && eff_fifo), .rdata(fhead), .empty(empty), .count(fcount)
  );

  integer k;
  always @(posedge clk) begin
    if (rst) begin
      overflow <= 16'd0;
      coalesced <= 16'd0;
      ev_doorbell <= 1'b0;
      pend <= {NS{1'b0}};
      wr_since_rd <= {NS{1'b0}};
      cur_valid <= 1'b0;
      cur_fifo <= 1'b0;
      cur <= 0;
      rr <= EPS[SW-1:0];
      for (k = 0; k < NS; k = k + 1) val[k] <= 32'd0;
    end else begin
      ev_doorbell <= to_slot || (push && !full);
      if (push && !to_slot && full && overflow != 16'hFFFF) overflow <= overflow + 16'd1;
      if (rd_head && !cur_valid && eff_valid) begin
        cur_valid <= 1'b1;
        cur_fifo <= eff_fifo;
        cur <= eff;
      end
      // a read of head_data: the value the firmware took
      if (acc && addr == `NIC_DOORBELL_HEAD_DATA && eff_valid && !eff_fifo) wr_since_rd[eff] <= 1'b0;
      // a pop: the head is taken (a slot rewritten since its value was read stays pending)
      if (pop) begin
        cur_valid <= 1'b0;
        if (!eff_fifo) begin
          if (!wr_since_rd[eff]) pend[eff] <= 1'b0;
          if (eff >= 2) rr <= eff;
        end
      end
      // a write to a slot: the latest value wins (after the pop above, so a write in the pop's
      // cycle keeps the slot pending)
      if (to_slot) begin
        val[push_slot] <= push_data;
        pend[push_slot] <= 1'b1;
        wr_since_rd[push_slot] <= 1'b1;
        if (pend[push_slot] && coalesced != 16'hFFFF) coalesced <= coalesced + 16'd1;
      end
    end
  end

  // status.count: doorbells waiting (pending slots + FIFO entries); counted only when status is
  // read (a function called in the read-data block below, not logic evaluated every cycle)
  function [7:0] npend(input [NS-1:0] p);
    integer j;
    begin
      npend = 8'd0;
      for (j = 0; j < NS; j = j + 1) npend = npend + {7'd0, p[j]};
    end
  endfunction
  wire [PW-1:0] src_page = eff == 0 || eff == 1 ? {PW{1'b0}} : {{(PW-SW){1'b0}}, eff} - 1'b1;
  wire [OW-1:0] src_off  = eff == 0 ? `NIC_DBPAGE_CMD_PI : eff == 1 ? `NIC_DBPAGE_EV_CI : `NIC_DBPAGE_SQ_PI;
  wire [31:0] src = !eff_valid ? 32'd0 :
                    eff_fifo ? (({{(32-OW){1'b0}}, fhead[32 +: OW]} << `NIC_DOORBELL_HEAD_SRC_OFFSET_LSB) |
                                ({{(32-PW){1'b0}}, fhead[32 + OW +: PW]} << `NIC_DOORBELL_HEAD_SRC_PAGE_LSB)) :
                               (({{(32-OW){1'b0}}, src_off} << `NIC_DOORBELL_HEAD_SRC_OFFSET_LSB) |
                                ({{(32-PW){1'b0}}, src_page} << `NIC_DOORBELL_HEAD_SRC_PAGE_LSB));
  wire [31:0] hdata = !eff_valid ? 32'd0 : eff_fifo ? fhead[31:0] : val[eff];
  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_DOORBELL_ID:        rdata <= `NIC_DOORBELL_ID_VALUE;
        `NIC_DOORBELL_VERSION:   rdata <= `NIC_DOORBELL_VERSION_VALUE;
        `NIC_DOORBELL_STATUS:    rdata <= ({24'd0, npend(pend) + {{(8-CW){1'b0}}, fcount}}
                                            << `NIC_DOORBELL_STATUS_COUNT_LSB) |
                                           ({16'd0, overflow} << `NIC_DOORBELL_STATUS_OVERFLOW_LSB);
        `NIC_DOORBELL_HEAD_SRC:  rdata <= src;
        `NIC_DOORBELL_HEAD_DATA: rdata <= hdata;
        `NIC_DOORBELL_COALESCED: rdata <= {16'd0, coalesced};
        default:                 rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
