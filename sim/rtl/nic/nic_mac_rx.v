// nic_mac_rx: link MAC receive path, into a ring of SRAM buffers (layout rxdesc, nic_regs.vh).
//
// The link has no back-pressure: beats enter a FIFO of FIFO_DEPTH beats at line rate. When the
// FIFO is about to fill (the SRAM is busy for too long), the frame in progress is dropped and
// counted (ev_overflow): an abort marker takes the FIFO's last slot if part of the frame was
// already queued, and the rest of the frame is discarded at the port.
//
// The engine takes frames from the FIFO in order. Without rx_enable or a free ring entry
// (head - tail == 1 << entries_log2) the frame is dropped (ev_nobuf). Otherwise it reads the
// entry's descriptor (buf), writes the frame's bytes to buf with nic_wr_stream (at most
// buf_size bytes: a longer frame cannot overrun the buffer), checks the CRC over the whole frame
// (the register residue of a good frame is 0xDEBB20E3), and then drops it as a runt (fewer than
// MIN_FRAME wire bytes), oversize (more than buf_size bytes without the CRC) or bad CRC, each
// counted; a good frame gets its descriptor written {buf, status {len, phase}, seq, crc} after its
// data, then head increments and ev_ok pulses (the intc source mac_rx).
//
// Pause request (xoff, 802.3x-style link flow control; docs/wire-protocol.md "Link pause"): set
// when at most XOFF_FREE ring entries are free, withdrawn when at least XON_FREE are (or receive is
// disabled). The link partner (the switch port, if it honours pauses) stops starting frames to
// this port meanwhile; XOFF_FREE covers the frames already on their way when it reacts: the one
// arriving, and those that start on the link within its reaction time (the link's latency, 100
// cycles, plus a quantum boundary: sim/node/cluster.c), 1 at 10 Gb/s, 3 at 100 Gb/s.
`default_nettype none
`include "nic_regs.vh"
`include "nic_memmap.vh"
module nic_mac_rx #(
  parameter integer SRAM_SIZE  = `NIC_SRAM_SIZE,
  parameter integer W          = 64,
  parameter integer FIFO_DEPTH = 64,   // beats
  parameter integer MIN_FRAME  = 16,   // wire bytes, with CRC
  parameter integer XOFF_FREE  = 4,    // pause requested with at most this many free ring entries
  parameter integer XON_FREE   = 8     // and withdrawn with at least this many
) (
  input  wire               clk,
  input  wire               rst,
  // configuration (mac registers)
  input  wire               rx_enable,
  // lint_off: ring [3:0] (16-byte aligned) and the descriptor row beyond its buf word are not used
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [31:0]        ring,          // [3:0] ignored: 16-byte aligned
  input  wire [127:0]       m_rdata,       // only the descriptor's buf word is read
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [3:0]         entries_log2,
  input  wire [15:0]        buf_size,
  input  wire [31:0]        tail,
  output reg  [31:0]        head,
  // link
  input  wire               rx_valid,
  input  wire [W-1:0]       rx_data,
  input  wire               rx_last,
  input  wire [$clog2(W/8):0] rx_bytes,
  // SRAM port
  output wire               m_valid,
  output wire [31:0]        m_addr,
  output wire               m_we,
  output wire [15:0]        m_be,
  output wire [127:0]       m_wdata,
  input  wire               m_gnt,
  input  wire               m_rsp_valid,
  // events
  output reg                ev_ok,
  output reg                ev_bad_crc,
  output reg                ev_runt,
  output reg                ev_oversize,
  output reg                ev_nobuf,
  output reg                ev_overflow,
  output wire               urgent,        // the FIFO is a quarter full: SRAM priority
  output reg                xoff,          // pause request to the link partner (above)
  output wire               idle
);
  localparam integer B  = W / 8;
  localparam integer BW = $clog2(B) + 1;
  localparam integer FW = BW + W + 2;          // FIFO entry {cancel, last, bytes, data}
  localparam integer CW = $clog2(FIFO_DEPTH) + 1;
  initial begin
    if (W != 32 && W != 64) begin
      $display("nic_mac_rx: W (%0d) must be 32 or 64", W);
      $finish;
    end
    if (MIN_FRAME < 5) begin
      $display("nic_mac_rx: MIN_FRAME (%0d) must be at least 5", MIN_FRAME);
      $finish;
    end
    if (FIFO_DEPTH < 4) begin
      $display("nic_mac_rx: FIFO_DEPTH (%0d) must be at least 4", FIFO_DEPTH);
      $finish;
    end
  end

  // ---- port side: FIFO writer ----
  // lint_off: f_full: never pushed while full (a slot is kept for the cancel marker)
  /* verilator lint_off UNUSEDSIGNAL */
  wire          f_full;            // never pushed while full: a slot is kept for the cancel marker
  /* verilator lint_on UNUSEDSIGNAL */
  wire          f_empty;
  wire [CW-1:0] f_count;
  wire [FW-1:0] f_head;
  reg           f_push, f_pop;
  reg  [FW-1:0] f_in;
  reg           p_dropping;       // discarding the rest of an overflowed frame
  reg           p_queued;         // part of the current frame is in the FIFO
  reg           p_inframe;
  localparam [31:0] ROOM32 = FIFO_DEPTH - 1;
  localparam [CW-1:0] ROOM = ROOM32[CW-1:0];
  wire          p_room = (f_count < ROOM);

  nic_fifo #(.W(FW), .DEPTH(FIFO_DEPTH)) u_f (
    .clk(clk), .rst(rst), .push(f_push), .wdata(f_in), .full(f_full),
    .pop(f_pop), .rdata(f_head), .empty(f_empty), .count(f_count));

  always @* begin
    f_push = 1'b0;
    f_in   = {1'b0, rx_last, rx_bytes, rx_data};
    if (rx_valid && !p_dropping) begin
      if (p_room) begin
        f_push = 1'b1;
      end else if (p_queued) begin
        f_push = 1'b1;                       // the reserved slot: cancel marker
        f_in   = {1'b1, 1'b1, {BW{1'b0}}, {W{1'b0}}};
      end
    end
  end

  always @(posedge clk) begin
    ev_overflow <= 1'b0;
    if (rst) begin
      p_dropping <= 1'b0;
      p_queued <= 1'b0;
      p_inframe <= 1'b0;
    end else if (rx_valid) begin
      p_inframe <= !rx_last;
      if (p_dropping) begin
        if (rx_last) p_dropping <= 1'b0;
      end else if (p_room) begin
        p_queued <= !rx_last;
      end else begin
        ev_overflow <= 1'b1;
        p_queued <= 1'b0;
        p_dropping <= !rx_last;
      end
    end
  end

  wire          h_cancel = f_head[FW-1];
  wire          h_last   = f_head[FW-2];
  wire [BW-1:0] h_bytes  = f_head[W +: BW];
  wire [W-1:0]  h_data   = f_head[W-1:0];

  // ---- engine ----
  localparam [2:0] S_IDLE = 3'd0, S_DRD = 3'd1, S_DWAIT = 3'd2, S_DATA = 3'd3, S_FLUSH = 3'd4,
                   S_DWR = 3'd5, S_DROP = 3'd6;
  reg  [2:0]  st;
  reg  [31:0] d_addr;          // descriptor address
  reg  [31:0] d_buf;
  reg  [16:0] flen;            // wire bytes so far
  reg  [31:0] crc;
  reg  [31:0] last4;           // the last four bytes seen
  reg  [2:0]  verdict;         // 0 good, 1 bad crc, 2 runt, 3 oversize

  // The ring's size (nent), whether it has a free entry (head - tail < nent) and the head entry's
  // offset, and the descriptor's status word, are written out where they are used in the clocked
  // block (a frame taken in S_IDLE, a descriptor built in S_FLUSH), so that they are evaluated
  // only then, not in every cycle (simulation speed).
  localparam [31:0] ONE32 = 32'd1;

  // wr_stream
  wire        ws_busy, ws_done, ws_ready;
  wire        ws_valid;
  wire [31:0] ws_addr;
  wire [15:0] ws_be;
  wire [127:0] ws_wdata;
  reg         ws_start, ws_cancel;
  wire        offered = (st == S_DATA) && !f_empty && !h_cancel;   // a beat offered to the writer
  wire        take = offered && ws_ready;
  nic_wr_stream #(.B(B)) u_ws (
    .clk(clk), .rst(rst),
    .start(ws_start), .addr(d_buf), .limit({1'b0, buf_size}), .cancel(ws_cancel),
    .busy(ws_busy), .done(ws_done),
    .i_valid(offered), .i_ready(ws_ready), .i_data(h_data),
    .i_bytes({{(5-BW){1'b0}}, h_bytes}), .i_last(h_last), .i_wen(1'b1),
    .m_valid(ws_valid), .m_addr(ws_addr), .m_be(ws_be), .m_wdata(ws_wdata), .m_gnt(m_gnt));

  // CRC over the beat's valid bytes (bm[i] = i < h_bytes, as one shift). crc_next is used only
  // when a beat is taken in S_DATA, so the bytes are folded only while one is offered there (a
  // function of registers, so the CRC stays out of the input cone; no byte selected otherwise,
  // and crc_next is then crc: simulation speed)
  // lint_off: bm_all's top bit (more than B bytes) is not used
  /* verilator lint_off UNUSEDSIGNAL */
  wire [B:0]   bm_all = ~({(B+1){1'b1}} << h_bytes);   // bit B: h_bytes > B, never (1..B)
  /* verilator lint_on UNUSEDSIGNAL */
  wire [B-1:0] bm = offered ? bm_all[B-1:0] : {B{1'b0}};
  wire [31:0] crc_next;
  nic_crc32_step #(.NB(B)) u_crc (.crc_in(crc), .data(h_data), .bmask(bm), .crc_out(crc_next));
  // the last four bytes seen, after this beat's n bytes (a function so that the shift is only
  // evaluated in the cycles that take a beat)
  function [31:0] last4_after(input [W-1:0] d, input [BW-1:0] n);
    // lint_off: only cat's low 32 bits are kept; the shift drops the rest
    /* verilator lint_off UNUSEDSIGNAL */
    reg [W+31:0] cat;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
      cat = {d, last4} >> {n, 3'b000};
      last4_after = cat[31:0];
    end
  endfunction
  wire [16:0] flen_next = flen + {{(17-BW){1'b0}}, h_bytes};

  // SRAM port: descriptor read/write in S_DRD/S_DWR, data writes otherwise
  // the descriptor, registered when the frame is accepted (its fields do not change in S_DWR)
  reg  [127:0] desc;

  assign m_valid = (st == S_DRD) || (st == S_DWR) || ws_valid;
  assign m_addr  = (st == S_DRD || st == S_DWR) ? d_addr : ws_addr;
  assign m_we    = (st != S_DRD);
  assign m_be    = (st == S_DWR) ? 16'hFFFF : ws_be;
  assign m_wdata = (st == S_DWR) ? desc : ws_wdata;

  localparam [31:0] SRAM_SZ = SRAM_SIZE, MINF = MIN_FRAME;

  always @* begin
    f_pop = 1'b0;
    case (st)
      S_IDLE:  f_pop = !f_empty && h_cancel;
      S_DATA:  f_pop = take || (!f_empty && h_cancel);
      S_DROP:  f_pop = !f_empty;
      default: f_pop = 1'b0;
    endcase
  end

  wire [31:0] rd_buf = m_rdata[8 * `NIC_RXDESC_BUF +: 32];

  always @(posedge clk) begin
    ev_ok <= 1'b0;
    ev_bad_crc <= 1'b0;
    ev_runt <= 1'b0;
    ev_oversize <= 1'b0;
    ev_nobuf <= 1'b0;
    ws_start <= 1'b0;
    ws_cancel <= 1'b0;
    // the pause request, from registers only (head, tail, the ring's size): out of the input cone
    if (rst || !rx_enable)
      xoff <= 1'b0;
    else if (head - tail + XOFF_FREE >= (ONE32 << entries_log2))
      xoff <= 1'b1;
    else if (head - tail + XON_FREE <= (ONE32 << entries_log2))
      xoff <= 1'b0;
    if (rst) begin
      st <= S_IDLE;
      head <= `NIC_MAC_RX_HEAD_RESET;
      d_addr <= 32'd0;
      d_buf <= 32'd0;
      flen <= 17'd0;
      crc <= 32'hFFFF_FFFF;
      last4 <= 32'd0;
      verdict <= 3'd0;
    end else begin
      case (st)
        S_IDLE: if (!f_empty && !h_cancel) begin
          flen <= 17'd0;
          crc <= 32'hFFFF_FFFF;
          last4 <= 32'd0;
          if (rx_enable && (head - tail < (ONE32 << entries_log2))) begin
            d_addr <= {ring[31:4], 4'd0} +
                      ((head & ((ONE32 << entries_log2) - 32'd1)) << $clog2(`NIC_RXDESC_SIZE));
            st <= S_DRD;
          end else begin
            ev_nobuf <= 1'b1;
            st <= S_DROP;
          end
        end
        S_DRD: if (m_gnt) st <= S_DWAIT;
        S_DWAIT: if (m_rsp_valid) begin
          d_buf <= rd_buf;
          if ({1'b0, rd_buf} + {17'd0, buf_size} > {1'b0, SRAM_SZ}) begin
            ev_nobuf <= 1'b1;               // a buffer outside SRAM is no buffer
            st <= S_DROP;
          end else begin
            ws_start <= 1'b1;
            st <= S_DATA;
          end
        end
        S_DATA: if (!f_empty && h_cancel) begin
          ws_cancel <= 1'b1;                // overflow already counted at the port
          st <= S_IDLE;
        end else if (take) begin
          crc <= crc_next;
          last4 <= last4_after(h_data, h_bytes);
          flen <= flen_next;
          if (h_last) begin
            if ({15'd0, flen_next} < MINF)                      verdict <= 3'd2;
            else if (flen_next - 17'd4 > {1'b0, buf_size})       verdict <= 3'd3;
            else if (crc_next != 32'hDEBB20E3)                  verdict <= 3'd1;
            else                                                verdict <= 3'd0;
            st <= S_FLUSH;
          end
        end
        S_FLUSH: if (ws_done) begin
          case (verdict)
            3'd0: begin
              desc <= ({96'd0, d_buf} << (8 * `NIC_RXDESC_BUF)) |
                      ({96'd0, ({15'd0, flen[16:0] - 17'd4} << `NIC_RXDESC_STATUS_LEN_LSB) |
                               ({31'd0, ~(|(head & (ONE32 << entries_log2)))}
                                << `NIC_RXDESC_STATUS_PHASE_LSB)} << (8 * `NIC_RXDESC_STATUS)) |
                      ({96'd0, head} << (8 * `NIC_RXDESC_SEQ)) |
                      ({96'd0, last4} << (8 * `NIC_RXDESC_CRC));
              st <= S_DWR;
            end
            3'd1: begin ev_bad_crc <= 1'b1; st <= S_IDLE; end
            3'd2: begin ev_runt <= 1'b1; st <= S_IDLE; end
            default: begin ev_oversize <= 1'b1; st <= S_IDLE; end
          endcase
        end
        S_DWR: if (m_gnt) begin
          head <= head + 32'd1;
          ev_ok <= 1'b1;
          st <= S_IDLE;
        end
        S_DROP: if (!f_empty && (h_last || h_cancel)) st <= S_IDLE;
        default: st <= S_IDLE;
      endcase
    end
  end

  localparam [31:0] URG32 = FIFO_DEPTH / 4;
  assign urgent = f_count >= URG32[CW-1:0];
  // idle: nothing arriving or being stored, and no event pulse still to be counted
  assign idle = f_empty && (st == S_IDLE) && !p_inframe && !ws_busy &&
                !(ev_ok || ev_bad_crc || ev_runt || ev_oversize || ev_nobuf || ev_overflow);
endmodule
`default_nettype wire
