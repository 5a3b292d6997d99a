// nic_rd_stream: reads `len` bytes from NIC SRAM starting at any byte address and delivers them
// as a packed little-endian stream of B-byte beats (first byte at o_data[7:0]; every beat full
// except the last, which carries o_bytes valid bytes and zeros above them).
//
// Role: the data source of the DMA engine's host writes and of the MAC's TX path.
// Throughput: one beat per cycle for B <= 8 while the SRAM grants every other cycle; a 32-byte
// staging buffer and at most one read in flight (a fetch is issued while the buffered bytes plus
// the word in flight fit: avail + inflight*16 <= 16).
`default_nettype none
module nic_rd_stream #(
  parameter integer B = 8        // beat bytes: 4 or 8
) (
  input  wire           clk,
  input  wire           rst,
  // command (accepted when start && !busy)
  input  wire           start,
  input  wire [31:0]    addr,
  input  wire [16:0]    len,      // 1..65536 bytes (range-checked by the owner)
  output reg            busy,
  // SRAM read port
  output wire           m_valid,
  output wire [31:0]    m_addr,
  input  wire           m_gnt,
  input  wire           m_rsp_valid,
  input  wire [127:0]   m_rdata,
  // output stream
  output wire           o_valid,
  input  wire           o_ready,
  output wire [B*8-1:0] o_data,
  output wire [4:0]     o_bytes,
  output wire           o_last
);
  initial begin
    if (B != 4 && B != 8) begin
      $display("nic_rd_stream: B (%0d) must be 4 or 8", B);
      $finish;
    end
  end

  reg [255:0] buff;        // buffered bytes, byte 0 = next to send
  reg [5:0]   avail;       // valid bytes in buff (0..32)
  reg [31:0]  waddr;       // next word to fetch (16-byte aligned)
  reg [12:0]  words_left;  // words still to fetch
  reg [16:0]  out_left;    // bytes still to send
  reg         inflight;    // a read was granted last cycle
  reg         first;       // the next arriving word is the first (skip its leading bytes)
  reg [3:0]   skip;        // leading bytes of the first word not part of the request

  assign m_addr  = waddr;

  localparam [31:0] B32 = B;
  // o_bytes: min(out_left, B); o_data: the first o_bytes bytes of buff (all of them but on a short
  // last beat). The wide shifts of buff are done in the clocked block, only in the cycles that
  // need them (simulation speed: Verilator evaluates every continuous assignment on every cycle).
  // While not busy, out_left is 0 (a stream ends when its last beat leaves, and starts with
  // busy), so the outputs are then the constants below: the same values, without evaluating the
  // expressions in every idle cycle (simulation speed).
  reg            m_valid_r, o_valid_r, o_last_r;
  reg  [4:0]     o_bytes_r;
  reg  [B*8-1:0] o_data_r;
  always @* begin
    m_valid_r = 1'b0;
    o_bytes_r = 5'd0;
    o_valid_r = 1'b0;
    o_last_r  = 1'b1;
    o_data_r  = {(B*8){1'b0}};
    if (busy) begin
      m_valid_r = (words_left != 0) && ({1'b0, avail} + (inflight ? 7'd16 : 7'd0) <= 7'd16);
      o_bytes_r = ({15'd0, out_left} < B32) ? out_left[4:0] : B32[4:0];
      o_valid_r = (out_left != 0) && (avail >= {1'b0, o_bytes_r});
      o_last_r  = (out_left == {12'd0, o_bytes_r});
      o_data_r  = buff[B*8-1:0] & ((o_bytes_r >= B32[4:0]) ? {(B*8){1'b1}} :
                                   ~({(B*8){1'b1}} << {o_bytes_r, 3'b000}));
    end
  end
  assign m_valid = m_valid_r;
  assign o_bytes = o_bytes_r;
  assign o_valid = o_valid_r;
  assign o_last  = o_last_r;
  assign o_data  = o_data_r;

  wire        fire   = o_valid && o_ready;
  wire [5:0]  cons   = fire ? {1'b0, o_bytes} : 6'd0;
  wire [5:0]  avail1 = avail - cons;
  wire [5:0]  nadd   = first ? (6'd16 - {2'b00, skip}) : 6'd16;

  // lint_off: nwords has a carry bit for the sum; only nwords >> 4 (the word count) is used
  /* verilator lint_off UNUSEDSIGNAL */
  wire [17:0] nwords = {1'b0, len} + {14'd0, addr[3:0]} + 18'd15;   // words = nwords >> 4
  /* verilator lint_on UNUSEDSIGNAL */

  always @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0;
      inflight <= 1'b0;
      avail <= 6'd0;
      buff <= 256'd0;
      words_left <= 13'd0;
      out_left <= 17'd0;
      first <= 1'b0;
      skip <= 4'd0;
      waddr <= 32'd0;
    end else if (!busy) begin
      inflight <= 1'b0;
      if (start) begin
        busy <= 1'b1;
        waddr <= {addr[31:4], 4'd0};
        skip <= addr[3:0];
        first <= 1'b1;
        out_left <= len;
        words_left <= nwords[16:4];
        avail <= 6'd0;
        buff <= 256'd0;
      end
    end else begin
      inflight <= m_valid && m_gnt;
      if (m_valid && m_gnt) begin
        waddr <= waddr + 32'd16;
        words_left <= words_left - 1'b1;
      end
      // buff <= (buff >> consumed bytes) | (arriving word, less its skipped bytes, at avail1);
      // a full beat consumes B bytes, only a last beat fewer
      if (fire || (m_rsp_valid && inflight))
        buff <= (!fire ? buff : o_last ? buff >> {cons, 3'b000} : buff >> (B * 8)) |
                ((m_rsp_valid && inflight) ?
                 ({128'd0, first ? m_rdata >> {skip, 3'b000} : m_rdata} << {avail1, 3'b000}) : 256'd0);
      if (m_rsp_valid && inflight) begin
        avail <= avail1 + nadd;
        first <= 1'b0;
      end else begin
        avail <= avail1;
      end
      if (fire) begin
        out_left <= out_left - {12'd0, o_bytes};
        if (o_last) busy <= 1'b0;
      end
    end
  end
endmodule
`default_nettype wire
