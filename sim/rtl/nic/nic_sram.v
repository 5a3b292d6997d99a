// nic_sram: the NIC SRAM, 128-bit words in BANKS interleaved banks, shared by NREQ requesters.
//
// Role: one memory for the core data port, the host window, the DMA engine (one port per
// direction) and the MAC (TX and RX). Bank b holds the 16-byte words whose address bits
// [4 +: log2(BANKS)] equal b, so a streaming requester alternates banks and two requesters on
// different banks proceed in the same cycle.
//
// Protocol, per requester i: hold req_valid[i] with the byte address (only bits [31:4] select the
// word; SIZE bounds are the requester's job: out-of-range bits are ignored), we, be (one bit per
// byte of the 128-bit word, byte k = wdata[8k+7:8k], little-endian) and wdata. gnt[i] is
// combinational in the same cycle: the access happens at that clock edge. For a read,
// rsp_valid[i] pulses the next cycle with the word on rsp_rdata[i]. A requester alone on a bank
// is granted at once (single-cycle access, which the core's CPI depends on).
//
// Arbitration: per bank, round-robin over the requesters that want that bank. The pointer moves
// just past the winner, so a waiting requester is granted within NREQ-1 grants of that bank:
// every requester makes progress whatever the others do. `conflict` is 1 in a cycle in which at
// least one requester waits (perf.sram_conflicts counts these cycles).
//
// Priority: a requester with prio[i] set is served before the others on the bank it wants
// (round-robin among the prioritised ones). The MAC RX raises it while its FIFO fills: the link
// has no back-pressure, and under round-robin with five streaming requesters the RX path got
// less than the line rate (issue 18, 8c: RX FIFO overflows on a clean link). Its demand is
// bounded by the line rate, so the others still progress. nic_top also sets it for the core's
// data port (one word at a time, which the core stalls on; issue 12).
`default_nettype none
`include "nic_memmap.vh"
module nic_sram #(
  parameter integer SIZE  = `NIC_SRAM_SIZE,  // bytes
  parameter integer NREQ  = 6,
  parameter integer BANKS = 2
) (
  input  wire                 clk,
  input  wire                 rst,
  // requests (one slice per requester)
  input  wire [NREQ-1:0]      req_valid,
  // lint_off: address bits above SIZE and [3:0] (16-byte rows) are not decoded
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [NREQ*32-1:0]   req_addr,   // byte address; bits beyond SIZE and [3:0] unused
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [NREQ-1:0]      req_we,
  input  wire [NREQ*16-1:0]   req_be,
  input  wire [NREQ*128-1:0]  req_wdata,
  input  wire [NREQ-1:0]      prio,       // served first on their bank
  output reg  [NREQ-1:0]      gnt,
  // read responses, one cycle after the grant
  output reg  [NREQ-1:0]      rsp_valid,
  output wire [NREQ*128-1:0]  rsp_rdata,
  // statistics
  output wire                 conflict
);
  localparam integer BB    = (BANKS > 1) ? $clog2(BANKS) : 1;   // bank index width
  localparam integer BSH   = (BANKS > 1) ? $clog2(BANKS) : 0;   // bank bits in the address
  localparam integer DEPTH = SIZE / 16 / BANKS;                 // words per bank
  localparam integer RW    = (DEPTH > 1) ? $clog2(DEPTH) : 1;   // row index width
  localparam integer RB    = (NREQ > 1) ? $clog2(NREQ) : 1;     // requester index width

  initial begin
    if (BANKS < 1 || (1 << BSH) != BANKS) begin
      $display("nic_sram: BANKS (%0d) must be a power of two", BANKS);
      $finish;
    end
    if (SIZE < 16 * BANKS * 2 || (1 << $clog2(SIZE)) != SIZE) begin
      $display("nic_sram: SIZE (%0d) must be a power of two of at least 32 bytes per bank", SIZE);
      $finish;
    end
    if (NREQ < 1 || NREQ > 16) begin
      $display("nic_sram: NREQ (%0d) must be 1..16", NREQ);
      $finish;
    end
  end

  // ---- per-requester decode (flat vector: the bank of each requester; the row is selected for
  // the winner only, below) ----
  wire [NREQ*BB-1:0] rbank;
  genvar gi;
  generate
    for (gi = 0; gi < NREQ; gi = gi + 1) begin : g_dec
      if (BANKS > 1) begin : g_b
        assign rbank[gi*BB +: BB] = req_addr[gi*32 + 4 +: BB];
      end else begin : g_nb
        assign rbank[gi*BB +: BB] = 1'b0;
      end
    end
  endgenerate

  // ---- per-bank round-robin arbitration ----
  // For bank b: the requesters that want it (mask), rotated right by the pointer; the lowest set
  // bit of the rotation is the first requester at or after the pointer; rotated back it is the
  // one-hot grant. (Same choice as scanning ptr, ptr+1, ... for the first requester; written
  // with masks so the simulator does a few word operations instead of a loop per bank.)
  reg  [BANKS*RB-1:0]  ptr;     // next requester to favour, per bank
  reg  [BANKS*RB-1:0]  win;     // this cycle's winner, per bank
  reg  [BANKS-1:0]     found;   // the bank has a winner this cycle
  wire [BANKS*128-1:0] qflat;   // registered read word, per bank

  reg  [NREQ-1:0]   bmask, brot, blow, bgnt;
  reg  [2*NREQ-1:0] bdbl;
  reg  [RB-1:0]     bwin;
  integer b, k;
  always @* begin
    found = {BANKS{1'b0}};
    win   = {(BANKS*RB){1'b0}};
    gnt   = {NREQ{1'b0}};
    bdbl  = {(2*NREQ){1'b0}};
    brot  = {NREQ{1'b0}};
    blow  = {NREQ{1'b0}};
    bgnt  = {NREQ{1'b0}};
    bwin  = {RB{1'b0}};
    bmask = {NREQ{1'b0}};
    // no request, no grant: the per-bank masks are not built in those cycles (simulation speed)
    if (|req_valid) for (b = 0; b < BANKS; b = b + 1) begin
      for (k = 0; k < NREQ; k = k + 1)
        bmask[k] = req_valid[k] && rbank[k*BB +: BB] == b[BB-1:0];
      // a bank nobody wants has no winner and grants nothing (what the rotation below gives
      // for an empty mask): the simulator skips the rotation in those cycles (simulation speed)
      if (|bmask) begin
        if (|(bmask & prio))
          bmask = bmask & prio;
        bdbl  = {bmask, bmask} >> ptr[b*RB +: RB];
        brot  = bdbl[NREQ-1:0];
        blow  = brot & (~brot + {{(NREQ-1){1'b0}}, 1'b1});
        bdbl  = {blow, blow} << ptr[b*RB +: RB];
        bgnt  = bdbl[2*NREQ-1:NREQ];
        bwin  = {RB{1'b0}};
        for (k = 0; k < NREQ; k = k + 1)
          bwin = bwin | ({RB{bgnt[k]}} & k[RB-1:0]);
        found[b] = 1'b1;
        win[b*RB +: RB] = bwin;
        gnt = gnt | bgnt;
      end
    end
  end

  assign conflict = |(req_valid & ~gnt);

  // the bank each requester's last read went to, to route its response
  reg [NREQ*BB-1:0] rsp_bank;

  always @(posedge clk) begin
    if (rst) begin
      ptr       <= {(BANKS*RB){1'b0}};
      rsp_valid <= {NREQ{1'b0}};
    end else begin
      for (b = 0; b < BANKS; b = b + 1)
        if (found[b])
          ptr[b*RB +: RB] <= ({{(32-RB){1'b0}}, win[b*RB +: RB]} == NREQ - 1) ? {RB{1'b0}} : win[b*RB +: RB] + 1'b1;
      rsp_valid <= gnt & ~req_we;
    end
    for (k = 0; k < NREQ; k = k + 1)
      if (gnt[k]) rsp_bank[k*BB +: BB] <= rbank[k*BB +: BB];
  end

  // ---- storage: one memory per bank, byte-enable writes, registered read ----
  generate
    for (gi = 0; gi < BANKS; gi = gi + 1) begin : g_bank
      reg  [127:0]  mem [0:DEPTH-1] /*verilator public_flat_rw*/;   // public: the debug backdoor (GDB)
      reg  [127:0]  q;
      wire [RB-1:0] w   = win[gi*RB +: RB];
      // the winner's row, only when the bank has one (it is not used otherwise): the simulator
      // does not select it in cycles without an access to the bank (simulation speed)
      reg  [RW-1:0] row;
      always @* begin
        row = {RW{1'b0}};
        if (found[gi]) row = req_addr[w*32 + 4 + BSH +: RW];
      end
      integer bi;
      // the winner's byte enables and write data are selected here, in the cycles with a write.
      // The bytes are written with blocking assignments: the memory's only reader is the
      // registered read below, in the same block and never in the cycle of a write (one access
      // per bank and cycle), so every read sees what non-blocking writes would have left; the
      // simulator then writes the enabled bytes at once instead of scheduling 16 delayed byte
      // writes per bank and testing their flags in every cycle (simulation speed). Synthesis
      // reads the non-blocking form (the same values), which it maps to a memory with a write
      // port (the blocking one becomes registers).
`ifdef VERILATOR
      // lint_off: blocking memory writes on purpose, see above
      /* verilator lint_off BLKSEQ */
      always @(posedge clk) begin
        if (found[gi]) begin
          if (req_we[w]) begin
            for (bi = 0; bi < 16; bi = bi + 1)
              if (req_be[w*16 + bi]) mem[row][8*bi +: 8] = req_wdata[w*128 + 8*bi +: 8];
          end else begin
            q <= mem[row];
          end
        end
      end
      /* verilator lint_on BLKSEQ */
`else
      always @(posedge clk) begin
        if (found[gi]) begin
          if (req_we[w]) begin
            for (bi = 0; bi < 16; bi = bi + 1)
              if (req_be[w*16 + bi]) mem[row][8*bi +: 8] <= req_wdata[w*128 + 8*bi +: 8];
          end else begin
            q <= mem[row];
          end
        end
      end
`endif
      assign qflat[gi*128 +: 128] = q;
    end
    for (gi = 0; gi < NREQ; gi = gi + 1) begin : g_rsp
      assign rsp_rdata[gi*128 +: 128] = qflat[rsp_bank[gi*BB +: BB]*128 +: 128];
    end
  endgenerate
endmodule
`default_nettype wire
