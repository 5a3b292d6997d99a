// nic_wr_stream: writes a packed little-endian stream of B-byte beats into NIC SRAM starting at
// any byte address, with byte enables; bytes past `limit` (counted from the start) are dropped,
// not written, so a frame longer than its buffer cannot overrun it.
//
// Role: the data sink of the DMA engine's host reads and of the MAC's RX path.
// Each beat is shifted into a 32-byte accumulator at the current byte position; a completed
// 16-byte word is written while the next beat is accepted (one beat per cycle when granted).
// After the last beat the partial words are written and `done` pulses; `cancel` discards the
// rest at once (the bytes already written stay). Beats with i_wen = 0 advance the position
// without writing (a DMA response with an error).
`default_nettype none
module nic_wr_stream #(
  parameter integer B = 8        // beat bytes: 4 or 8
) (
  input  wire           clk,
  input  wire           rst,
  // command (accepted when start && !busy)
  input  wire           start,
  input  wire [31:0]    addr,
  input  wire [16:0]    limit,    // bytes that may be written (1..65536)
  input  wire           cancel,
  output reg            busy,
  output reg            done,     // pulse: the last beat's bytes are in SRAM
  // input stream
  input  wire           i_valid,
  output wire           i_ready,
  input  wire [B*8-1:0] i_data,
  input  wire [4:0]     i_bytes,  // 1..B
  input  wire           i_last,
  input  wire           i_wen,
  // SRAM write port
  output wire           m_valid,
  output wire [31:0]    m_addr,
  output wire [15:0]    m_be,
  output wire [127:0]   m_wdata,
  input  wire           m_gnt
);
  initial begin
    if (B != 4 && B != 8) begin
      $display("nic_wr_stream: B (%0d) must be 4 or 8", B);
      $finish;
    end
  end

  reg [255:0] acc;       // bytes of words waddr and waddr+16
  reg [31:0]  accbe;
  reg [4:0]   pos;       // byte position of the next byte (0..23)
  reg [31:0]  waddr;     // word address of acc[127:0]
  reg [16:0]  room;      // bytes still allowed by the limit
  reg         ending;    // last beat taken; flushing

  wire need_flush = busy && ((pos >= 5'd16) || (ending && pos != 5'd0));
  wire be_zero    = (accbe[15:0] == 16'd0);
  assign m_valid  = need_flush && !be_zero;
  assign m_addr   = waddr;
  assign m_be     = accbe[15:0];
  assign m_wdata  = acc[127:0];
  wire flushed    = need_flush && (be_zero || m_gnt);

  wire [31:0]  accbe1 = flushed ? (accbe >> 16) : accbe;
  wire [4:0]   pos1   = flushed ? ((pos >= 5'd16) ? pos - 5'd16 : 5'd0) : pos;

  assign i_ready = busy && !ending && ((pos < 5'd16) || flushed);
  wire take = i_valid && i_ready;

  // bytes of this beat that may be written: a function, called in the clocked block when a beat
  // is taken, not evaluated in every cycle (simulation speed)
  wire [16:0] nb   = {12'd0, i_bytes};
  function [16:0] nok_f(input wen, input [16:0] n, input [16:0] r);
    nok_f = wen ? ((n < r) ? n : r) : 17'd0;
  endfunction
  // ... and their byte enables
  function [31:0] inbe_f(input wen, input [16:0] n, input [16:0] r);
    reg [16:0] k;
    begin
      k = nok_f(wen, n, r);
      inbe_f = (32'd1 << k) - 32'd1;   // k <= 31: i_bytes is 5 bits
    end
  endfunction

  always @(posedge clk) begin
    done <= 1'b0;
    if (rst) begin
      busy <= 1'b0;
      ending <= 1'b0;
      acc <= 256'd0;
      accbe <= 32'd0;
      pos <= 5'd0;
      waddr <= 32'd0;
      room <= 17'd0;
    end else if (!busy) begin
      if (start) begin
        busy <= 1'b1;
        ending <= 1'b0;
        acc <= 256'd0;
        accbe <= 32'd0;
        pos <= {1'b0, addr[3:0]};
        waddr <= {addr[31:4], 4'd0};
        room <= limit;
      end
    end else if (cancel) begin
      busy <= 1'b0;
      ending <= 1'b0;
    end else if (ending && pos == 5'd0) begin
      busy <= 1'b0;
      ending <= 1'b0;
      done <= 1'b1;
    end else begin
      if (flushed) waddr <= waddr + 32'd16;
      if (take) begin
        // (the wide shifts live here, not in continuous assignments: evaluated only when used)
        acc   <= (flushed ? {128'd0, acc[255:128]} : acc) | ({{(256-B*8){1'b0}}, i_data} << {pos1, 3'b000});
        accbe <= accbe1 | (inbe_f(i_wen, nb, room) << pos1);
        pos   <= pos1 + i_bytes;
        room  <= room - nok_f(i_wen, nb, room);
        if (i_last) ending <= 1'b1;
      end else begin
        if (flushed) acc <= {128'd0, acc[255:128]};
        accbe <= accbe1;
        pos   <= pos1;
      end
    end
  end
endmodule
`default_nettype wire
