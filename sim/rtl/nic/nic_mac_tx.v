// nic_mac_tx: link MAC transmit path.
//
// Frames are queued as {SRAM byte offset, length without CRC} (QDEPTH entries). With tx_enable,
// the head frame is checked (MIN_FRAME-4 <= len <= MAX_FRAME-4 and inside SRAM; otherwise it is
// refused: `ev_err` and `ev_done` pulse, nothing is sent), read from SRAM by nic_rd_stream, and
// sent with its CRC-32 (IEEE, ~register little-endian, as hal/src/crc32.c) appended: on the wire
// a frame is len + 4 bytes, packed W/8 bytes per beat, tx_bytes valid bytes in the last beat.
// Pacing: a credit of `rate` bits (the PHY's link rate, input) is added per cycle, capped at one
// beat (W bits) plus `rate`; a beat leaves when the line time of its bits has accrued, and the
// last beat of a frame also pays GAP bytes (Ethernet's preamble, start delimiter and inter-frame
// gap: 20) after it (the credit goes negative), so a frame of n wire bytes takes n*8/rate cycles
// from its first bit and the next starts GAP*8/rate later: `rate` bits per cycle of wire bytes
// plus GAP per frame (50 = 10 Gb/s at 200 MHz), at most one beat (W bits) per cycle. On an idle
// line the first beat leaves at once (its line time counted as just elapsed). tx_ready may stall
// the link at any beat.
//
// Gated frames (the DMA engine hands a loaded frame to the link without the firmware): a frame
// queued with `enq_gate` waits at the head of the queue until the DMA request tagged `enq_tag`
// has completed (frames behind it wait too: the queue's order is kept); if that request failed,
// the frame is voided (ev_done and ev_err pulse, nothing is sent), so a frame whose payload did
// not arrive never goes out with stale bytes. Each tag's state is kept (256 x {done, err}):
// dma_sub clears done, dma_cpl sets it, so a gate written after its request's submit never sees
// the tag's previous use.
//
// Control frames (a second queue, CQDEPTH entries): a frame queued with `enq_ctl` goes into the
// control queue, which is never gated and goes first: when a frame is to start, the control
// queue's head is taken before the data queue's, so a control frame (an ACK, a NACK: not
// sequenced) never waits behind a data frame waiting for its payload's DMA. Each queue counts its
// own frames out (ev_done for the data queue, ev_cdone for the control queue), in its own order.
//
// Cut-through (ct_thresh != 0): a gated frame at the head need not wait for its DMA request's
// completion. It starts once the DMA engine has written the request's data (ct_wr, ct_tag,
// ct_word, ct_be: in address order) up to at least ct_thresh bytes past the frame's start, and is then read from
// SRAM no faster than that data arrives (a read of a word the DMA has not written yet waits). Its
// last beat, which carries the FCS, waits for the request's completion: if the request failed, the
// FCS is inverted (the frame is poisoned: every receiver drops it for its CRC) and the frame counts
// as voided (ev_err, not ev_ok), as a gated frame whose DMA failed before it started. The wire
// cannot wait inside a frame: a cycle in which the line could take a beat but the frame's next
// bytes (or the completion its last beat waits for) have not arrived is an underrun, which
// poisons the frame as well (ev_underrun, once per frame); the transport resends it as any frame
// lost on the wire. With ct_thresh = 0 (reset) every gated frame waits for its completion.
`default_nettype none
`include "nic_memmap.vh"
module nic_mac_tx #(
  parameter integer SRAM_SIZE = `NIC_SRAM_SIZE,
  parameter integer QDEPTH    = 8,
  parameter integer CQDEPTH   = 16,     // control queue
  parameter integer W         = 64,     // link datapath bits
  parameter integer GAP       = 20,     // bytes per frame: preamble 7, start delimiter 1, IFG 12
  parameter integer MIN_FRAME = 16,     // wire bytes, with CRC
  parameter integer MAX_FRAME = 9216    // wire bytes, with CRC
) (
  input  wire               clk,
  input  wire               rst,
  input  wire               tx_enable,
  input  wire [15:0]        rate,      // link bits per cycle (>= 1)
  // queue
  input  wire               enq,
  input  wire [31:0]        enq_addr,
  input  wire [15:0]        enq_len,
  input  wire               enq_gate,
  input  wire [7:0]         enq_tag,
  input  wire               cenq,      // a control frame (enq_addr, enq_len; never gated)
  // the DMA engine's requests (gated frames)
  input  wire               dma_sub,   // a request with tag dma_sub_tag was accepted
  input  wire [7:0]         dma_sub_tag,
  input  wire               dma_cpl,   // the request with tag dma_cpl_tag completed
  input  wire [7:0]         dma_cpl_tag,
  input  wire               dma_cpl_err,
  // cut-through (see above): the threshold, and the DMA engine's writes of host read data
  input  wire [15:0]        ct_thresh,
  input  wire               ct_wr,
  input  wire [7:0]         ct_tag,
  input  wire [27:0]        ct_word,
  input  wire [15:0]        ct_be,
  output reg                ev_underrun,
  output wire               q_full,
  output wire [7:0]         q_free,
  output wire               cq_full,
  output wire [7:0]         cq_free,
  // SRAM read port
  output wire               m_valid,
  output wire [31:0]        m_addr,
  input  wire               m_gnt,
  input  wire               m_rsp_valid,
  input  wire [127:0]       m_rdata,
  // link
  output wire               tx_valid,
  input  wire               tx_ready,
  output wire [W-1:0]       tx_data,
  output wire               tx_last,
  output wire [$clog2(W/8):0] tx_bytes,
  // events
  output reg                ev_done,   // a frame left the data queue (sent or refused)
  output reg                ev_cdone,  // a frame left the control queue (sent or refused)
  output reg                ev_ok,
  output reg                ev_err,
  output wire               idle
);
  localparam integer B  = W / 8;
  localparam integer BW = $clog2(B) + 1;
  initial begin
    if (W != 32 && W != 64) begin
      $display("nic_mac_tx: W (%0d) must be 32 or 64", W);
      $finish;
    end
    if (GAP < 0 || GAP > 255) begin
      $display("nic_mac_tx: GAP (%0d) must be 0..255", GAP);
      $finish;
    end
    if (MIN_FRAME < 5 || MAX_FRAME < MIN_FRAME || MAX_FRAME > 65535) begin
      $display("nic_mac_tx: need 5 <= MIN_FRAME <= MAX_FRAME <= 65535");
      $finish;
    end
    if (QDEPTH > 255 || CQDEPTH > 255) begin
      $display("nic_mac_tx: QDEPTH and CQDEPTH must fit an 8-bit free count");
      $finish;
    end
  end

  // ---- queue ----
  wire        q_empty;
  wire [56:0] q_head;
  wire [$clog2(QDEPTH):0] q_count;
  reg         q_pop;
  nic_fifo #(.W(57), .DEPTH(QDEPTH)) u_q (
    .clk(clk), .rst(rst), .push(enq), .wdata({enq_gate, enq_tag, enq_addr, enq_len}), .full(q_full),
    .pop(q_pop), .rdata(q_head), .empty(q_empty), .count(q_count));
  localparam [31:0] QD32 = QDEPTH;
  assign q_free = QD32[7:0] - {{(7-$clog2(QDEPTH)){1'b0}}, q_count};

  // ---- control queue ----
  wire        cq_empty;
  wire [47:0] cq_head;
  wire [$clog2(CQDEPTH):0] cq_count;
  reg         cq_pop;
  nic_fifo #(.W(48), .DEPTH(CQDEPTH)) u_cq (
    .clk(clk), .rst(rst), .push(cenq), .wdata({enq_addr, enq_len}), .full(cq_full),
    .pop(cq_pop), .rdata(cq_head), .empty(cq_empty), .count(cq_count));
  localparam [31:0] CQD32 = CQDEPTH;
  assign cq_free = CQD32[7:0] - {{(7-$clog2(CQDEPTH)){1'b0}}, cq_count};

  // the frame to start next: the control queue's head, else the data queue's
  wire        c_sel  = !cq_empty;
  wire [31:0] h_addr = c_sel ? cq_head[47:16] : q_head[47:16];
  wire [15:0] h_len  = c_sel ? cq_head[15:0] : q_head[15:0];
  wire        h_gate = !c_sel && q_head[56];
  wire [7:0]  h_tag  = q_head[55:48];

  // ---- DMA tags (gated frames) ----
  reg  [255:0] tag_done, tag_err;
  // ---- cut-through: the DMA engine's latest write of host read data (w_ok: for the current
  // use of tag w_tag; a new request with that tag makes it stale) ----
  reg          w_ok;
  reg  [7:0]   w_tag;
  reg  [31:0]  w_end;
  wire         h_done = tag_done[h_tag];
  // the head may leave the queue (g_ready): ungated, its DMA done, or far enough (cut-through;
  // the compare only in a cycle that asks it: simulation speed)
  reg          g_ready;
  always @* begin
    g_ready = !h_gate || h_done;
    if (!g_ready && ct_thresh != 16'd0 && w_ok && w_tag == h_tag)
      g_ready = {1'b0, w_end} >= {1'b0, h_addr} + {17'd0, ct_thresh};
  end
  wire         g_void  = h_gate && h_done && tag_err[h_tag]; // ... voided: its payload's DMA failed
  // 1 + the index of the highest enabled byte of a DMA write (its bytes are contiguous)
  function [4:0] be_end(input [15:0] be);
    integer i;
    begin
      be_end = 5'd0;
      for (i = 0; i < 16; i = i + 1)
        if (be[i]) be_end = i[4:0] + 5'd1;
    end
  endfunction
  always @(posedge clk) begin
    if (rst) begin
      tag_done <= {256{1'b1}};
      tag_err  <= 256'd0;
    end else begin
      if (dma_cpl) begin
        tag_done[dma_cpl_tag] <= 1'b1;
        tag_err[dma_cpl_tag]  <= dma_cpl_err;
      end
      if (dma_sub) tag_done[dma_sub_tag] <= 1'b0;
    end
  end
  localparam [31:0] SRAM_SZ = SRAM_SIZE, MINL = MIN_FRAME - 4, MAXL = MAX_FRAME - 4, B32 = B;

  // ---- frame reader ----
  reg         sending;
  wire        rs_busy, rs_valid, rs_last;
  wire [4:0]  rs_bytes;
  wire [W-1:0] rs_data;
  wire        rs_ready;
  // start: a head may leave now (the control queue's, or the data queue's with its gate open),
  // it is a good frame (h_ok: length and SRAM range) and not voided. cq_pop / q_pop: the head
  // leaves the queue (sent, or refused); start is then exactly "sent". Nested conditions, so that
  // the head's checks are evaluated only in a cycle in which a frame may start (simulation speed).
  reg         start;
  always @* begin
    cq_pop = 1'b0;
    q_pop  = 1'b0;
    start  = 1'b0;
    if (!sending && !rs_busy && tx_enable) begin
      cq_pop = c_sel;
      q_pop  = !c_sel && !q_empty && g_ready;
      if (c_sel || (!q_empty && g_ready))
        start = ({16'd0, h_len} >= MINL) && ({16'd0, h_len} <= MAXL) &&
                ({1'b0, h_addr} + {17'd0, h_len} <= {1'b0, SRAM_SZ}) && !g_void;
    end
  end
  // the frame being sent started before its DMA request completed (cut-through): ct_tag_r, the
  // frame's end, and how far the request's data is in SRAM (ct_lim); poisoned: its FCS inverted
  reg          ct_run, poison;
  reg  [7:0]   ct_tag_r;
  reg  [32:0]  ct_fend;
  reg  [31:0]  ct_lim;
  wire         ct_done = tag_done[ct_tag_r];
  wire         ct_wait = ct_run && !ct_done;                 // the completion is still to come
  wire         ct_fail = ct_run && ct_done && tag_err[ct_tag_r];
  wire         rs_m_valid;
  // a word may be read when the bytes of it the frame needs are in SRAM
  reg          m_ok;
  always @* begin
    m_ok = 1'b1;
    if (ct_wait)
      m_ok = ({1'b0, m_addr[31:4], 4'd0} + 33'd16 <= {1'b0, ct_lim}) || (ct_fend <= {1'b0, ct_lim});
  end
  assign m_valid = rs_m_valid && m_ok;
  nic_rd_stream #(.B(B)) u_rs (
    .clk(clk), .rst(rst),
    .start(start), .addr(h_addr), .len({1'b0, h_len}), .busy(rs_busy),
    .m_valid(rs_m_valid), .m_addr(m_addr), .m_gnt(m_gnt && m_ok), .m_rsp_valid(m_rsp_valid), .m_rdata(m_rdata),
    .o_valid(rs_valid), .o_ready(rs_ready), .o_data(rs_data), .o_bytes(rs_bytes), .o_last(rs_last));

  // ---- CRC append ----
  reg  [31:0] crc;
  reg         tail;          // the extra beat with the CRC bytes that did not fit
  reg  [31:0] tail_fcs;
  reg  [2:0]  tail_n;        // CRC bytes in the extra beat
  wire [31:0] crc_next;
  // bm[i] = i < rs_bytes, as one shift (rs_bytes is 0..B)
  // lint_off: bm_all's top bit (more than B bytes) is not used
  /* verilator lint_off UNUSEDSIGNAL */
  wire [B:0]   bm_all = ~({(B+1){1'b1}} << rs_bytes);
  /* verilator lint_on UNUSEDSIGNAL */
  wire [B-1:0] bm = bm_all[B-1:0];
  nic_crc32_step #(.NB(B)) u_crc (.crc_in(crc), .data(rs_data), .bmask(bm), .crc_out(crc_next));
  wire        bad = poison || ct_fail;   // this frame's FCS is inverted (see above)
  wire [31:0] fcs = bad ? crc_next : ~crc_next;
  wire [BW-1:0] nb = rs_bytes[BW-1:0];
  wire        fits = ({27'd0, rs_bytes} + 32'd4 <= B32);
  // the last data beat with the first FCS bytes after its nb bytes (the rest go in the tail beat)
  wire [W-1:0] merged = rs_data | ({{(W-32){1'b0}}, fcs} << {nb, 3'b000});

  reg          o_valid, o_last;
  reg [W-1:0]  o_data;
  reg [BW-1:0] o_bytes;
  always @* begin
    if (tail) begin
      o_valid = 1'b1;
      o_data  = {{(W-32){1'b0}}, tail_fcs};
      o_bytes = {{(BW-3){1'b0}}, tail_n};
      o_last  = 1'b1;
    end else begin
      o_valid = rs_valid;
      if (rs_last) begin
        o_data  = merged;
        o_bytes = fits ? nb + 3'd4 : B32[BW-1:0];
        o_last  = fits;
      end else begin
        o_data  = rs_data;
        o_bytes = B32[BW-1:0];
        o_last  = 1'b0;
      end
    end
  end

  // ---- pacing ----
  // bank = credit + 8*GAP: the credit runs from -8*GAP (just after a frame's last beat, which also
  // pays its gap) up to W + rate bits (a beat and less than a cycle's line time: an idle line
  // lets the next frame's first beat go at once, its line time just elapsed, and no more, so a
  // frame never beats the line by a cycle; a busy one keeps its fraction of a cycle).
  localparam integer CW = 18;   // bank: at most W + 8*GAP + 2 * a 16-bit rate
  localparam [31:0] BASE32 = W + 8 * GAP, GAPB32 = 8 * GAP;
  localparam [CW-1:0] BASE = BASE32[CW-1:0], GAP_C = GAPB32[CW-1:0];
  wire [CW-1:0] CAP = BASE + {{(CW-16){1'b0}}, rate};
  reg  [CW-1:0] bank;
  wire [CW-1:0] bits = {{(CW-BW-3){1'b0}}, o_bytes, 3'b000};
  wire [CW-1:0] cost = bits + (o_last ? GAP_C : {CW{1'b0}});
  // the frame's last data beat (its FCS) waits for its DMA request's completion (cut-through)
  wire hold = ct_wait && rs_last && !tail;
  assign tx_valid = o_valid && !hold && (bank >= bits + GAP_C);
  // an underrun: the line could take a whole beat, and the frame has none for it because its data
  // or its completion has not arrived (not a wait for the SRAM: the model lets that one pass)
  localparam [31:0] W32 = W;
  localparam [CW-1:0] BEAT_C = W32[CW-1:0];
  reg starved;
  always @* begin
    starved = 1'b0;
    if (ct_wait)
      starved = sending && !tail && tx_ready && (bank >= BEAT_C + GAP_C) && (hold || (!rs_valid && rs_m_valid && !m_ok));
  end
  assign tx_data  = o_data;
  assign tx_last  = o_last;
  assign tx_bytes = o_bytes;
  wire fire = tx_valid && tx_ready;
  assign rs_ready = fire && !tail;
  wire [CW-1:0] bank_sum = bank - (fire ? cost : {CW{1'b0}}) + {{(CW-16){1'b0}}, rate};

  reg cur_ctl;   // the frame being sent came from the control queue

  always @(posedge clk) begin
    ev_done <= 1'b0;
    ev_cdone <= 1'b0;
    ev_ok   <= 1'b0;
    ev_err  <= 1'b0;
    ev_underrun <= 1'b0;
    if (rst) begin
      w_ok <= 1'b0;
      w_tag <= 8'd0;
      w_end <= 32'd0;
      ct_run <= 1'b0;
      poison <= 1'b0;
      ct_tag_r <= 8'd0;
      ct_fend <= 33'd0;
      ct_lim <= 32'd0;
      sending <= 1'b0;
      cur_ctl <= 1'b0;
      tail <= 1'b0;
      crc <= 32'hFFFF_FFFF;
      bank <= CAP;
      tail_fcs <= 32'd0;
      tail_n <= 3'd0;
    end else begin
      bank <= (bank_sum > CAP) ? CAP : bank_sum;
      if (ct_wr) begin
        w_ok  <= 1'b1;
        w_tag <= ct_tag;
        w_end <= {ct_word, 4'd0} + {27'd0, be_end(ct_be)};
      end else if (dma_sub && dma_sub_tag == w_tag) begin
        w_ok  <= 1'b0;                    // a new request with that tag: its data is still to come
      end
      if (ct_run) begin
        if (ct_done) begin
          ct_run <= 1'b0;
          if (tag_err[ct_tag_r]) poison <= 1'b1;
        end else if (w_ok && w_tag == ct_tag_r && w_end > ct_lim) begin
          ct_lim <= w_end;
        end
      end
      if (starved) begin
        poison <= 1'b1;
        ev_underrun <= !poison;
      end
      if (q_pop || cq_pop) begin
        if (start) begin                  // (the same as h_ok && !g_void here)
          sending <= 1'b1;
          cur_ctl <= cq_pop;
          crc <= 32'hFFFF_FFFF;
          poison <= 1'b0;
          ct_run <= q_pop && h_gate && !h_done;
          ct_tag_r <= h_tag;
          ct_fend <= {1'b0, h_addr} + {17'd0, h_len};
          ct_lim <= w_end;
        end else begin
          ev_done  <= q_pop;
          ev_cdone <= cq_pop;
          ev_err   <= 1'b1;
        end
      end
      if (fire && !tail) begin
        crc <= crc_next;
        if (rs_last && !fits) begin
          tail     <= 1'b1;
          tail_fcs <= fcs >> {(B32[5:0] - {1'b0, rs_bytes}), 3'b000};
          tail_n   <= 3'd4 - (B32[2:0] - rs_bytes[2:0]);
        end
      end
      if (fire && o_last) begin
        tail    <= 1'b0;
        sending <= 1'b0;
        ev_done  <= !cur_ctl;
        ev_cdone <= cur_ctl;
        ev_ok    <= !bad;
        ev_err   <= bad;                  // poisoned: counted as a voided frame
        poison   <= 1'b0;
        ct_run   <= 1'b0;
      end
    end
  end

  // idle: nothing to send, the pacing credit full (it changes no more until a frame comes) and
  // no event pulse still to be counted
  assign idle = q_empty && cq_empty && !sending && !rs_busy && bank == CAP &&
                !(ev_done || ev_cdone || ev_ok || ev_err || ev_underrun);
endmodule
`default_nettype wire
