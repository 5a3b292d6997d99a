// nic_dma: host DMA engine, NIC SRAM <-> host physical memory (64-bit addresses).
//
// Firmware stages sram/host addresses and writes req_submit {len, to_host, tag}; the request
// enters a queue of QDEPTH (a submit into a full queue is dropped and counted in `overflow`).
// With ctrl.enable set, the issuer takes requests in order and validates them: len field above
// 65536 -> error 3 (bad length), sram + len beyond SRAM -> error 2 (SRAM range). A valid request
// is split into host bursts that never cross a MAX_BURST-aligned host boundary (so never a 4 KiB
// page) and issued on the host request channel; up to INFLIGHT bursts are outstanding. Every
// burst (and every rejected request) takes a slot of an in-order table; slots retire in issue
// order, so completions come out in submission order whatever the host does. A request's
// completion {err, tag} carries its first burst error; host bus errors (an error response, an
// error acknowledgement, a response with an unexpected tag or length) are error 1. Each
// completion pulses the intc source `dma`; error completions count in err_count (saturating).
//
// Host channels (see docs/nic.md for timing): dma_req_* carries one burst (dma_req_tag = the
// slot sequence number); write data follows on dma_wdata_* in request order; read data returns on
// dma_rsp_* in request order (bursts not interleaved, last on the final beat); write
// acknowledgements return on dma_wack_* in request order. Data is little-endian and packed: beat
// k of a burst carries its bytes 8k..8k+7, first at [7:0]; the last beat has len mod 8 (or 8)
// valid bytes, zeros above them.
`default_nettype none
`include "nic_regs.vh"
`include "nic_memmap.vh"
module nic_dma #(
  parameter integer SRAM_SIZE = `NIC_SRAM_SIZE,
  parameter integer QDEPTH    = 8,     // submitted requests waiting for the issuer
  parameter integer INFLIGHT  = 4,     // host bursts outstanding
  parameter integer MAX_BURST = 256,   // bytes per host burst
  parameter integer CPL_DEPTH = 16     // completions waiting for the firmware
) (
  input  wire         clk,
  input  wire         rst,
  // register access
  input  wire         wr,
  input  wire [11:0]  addr,
  input  wire [31:0]  wdata,
  input  wire [31:0]  wmask,
  input  wire         acc,   // register access: rdata <= the register at addr
  output reg  [31:0]  rdata,
  // host request channel
  output wire         dma_req_valid,
  input  wire         dma_req_ready,
  output wire         dma_req_write,
  output wire [63:0]  dma_req_addr,
  output wire [12:0]  dma_req_len,
  output wire [7:0]   dma_req_tag,
  // write data (to host)
  output wire         dma_wdata_valid,
  input  wire         dma_wdata_ready,
  output wire [63:0]  dma_wdata_data,
  output wire         dma_wdata_last,
  // read data (from host)
  input  wire         dma_rsp_valid,
  output wire         dma_rsp_ready,
  input  wire [7:0]   dma_rsp_tag,
  input  wire [63:0]  dma_rsp_data,
  input  wire         dma_rsp_last,
  input  wire         dma_rsp_err,
  // write acknowledgements
  input  wire         dma_wack_valid,
  input  wire [7:0]   dma_wack_tag,
  input  wire         dma_wack_err,
  // SRAM port W (host -> SRAM writes)
  // request tags for the MAC's gated frames (nic_mac_tx): a request accepted, a completion pushed
  output wire         tag_sub,
  output wire [7:0]   tag_sub_id,
  output wire         tag_cpl,
  output wire [7:0]   tag_cpl_id,
  output wire         tag_cpl_err,
  // host read data written into SRAM (the MAC's cut-through of gated frames, nic_mac_tx): a write
  // of 16-byte word ct_word with byte enables ct_be, for the request with tag ct_tag, was granted
  // in the previous cycle (registered: no path from the SRAM's arbitration into the MAC)
  output reg          ct_wr,
  output reg  [7:0]   ct_tag,
  output reg  [27:0]  ct_word,
  output reg  [15:0]  ct_be,
  output wire         sw_valid,
  output wire [31:0]  sw_addr,
  output wire [15:0]  sw_be,
  output wire [127:0] sw_wdata,
  input  wire         sw_gnt,
  // SRAM port R (SRAM -> host reads)
  output wire         sr_valid,
  output wire [31:0]  sr_addr,
  input  wire         sr_gnt,
  input  wire         sr_rsp_valid,
  input  wire [127:0] sr_rdata,
  // status
  output reg          ev_dma,
  output wire         idle
);
  localparam integer SW = $clog2(INFLIGHT);     // slot index width
  localparam integer QW = 32 + 64 + 17 + 1 + 8; // queue entry
  initial begin
    if (INFLIGHT < 2 || INFLIGHT > 128 || (1 << SW) != INFLIGHT) begin
      $display("nic_dma: INFLIGHT (%0d) must be a power of two, 2..128", INFLIGHT);
      $finish;
    end
    if (MAX_BURST < 16 || MAX_BURST > 4096 || (1 << $clog2(MAX_BURST)) != MAX_BURST) begin
      $display("nic_dma: MAX_BURST (%0d) must be a power of two, 16..4096", MAX_BURST);
      $finish;
    end
    if (QDEPTH > 255 || CPL_DEPTH > 255) begin
      $display("nic_dma: QDEPTH and CPL_DEPTH must fit the 8-bit status fields");
      $finish;
    end
  end

  // completion error codes: dma.cpl_head.err's values (hal/regmap/nic.toml)
  localparam [3:0] E_OK = `NIC_DMA_CPL_HEAD_ERR_OK, E_BUS = `NIC_DMA_CPL_HEAD_ERR_BUS,
                   E_RANGE = `NIC_DMA_CPL_HEAD_ERR_RANGE, E_LEN = `NIC_DMA_CPL_HEAD_ERR_LEN;

  wire [31:0] w = wdata & wmask;
  function [31:0] merge(input [31:0] old);
    merge = (old & ~wmask) | w;
  endfunction

  // ---- registers ----
  reg        enable;
  reg [31:0] req_sram, req_host_lo, req_host_hi, err_count, overflow;

  // ---- submit queue ----
  wire          q_full, q_empty;
  wire [QW-1:0] q_head;
  wire [$clog2(QDEPTH):0] q_count;
  wire          submit = wr && addr == `NIC_DMA_REQ_SUBMIT;
  wire [QW-1:0] q_in = {req_sram, req_host_hi, req_host_lo,
                        wdata[`NIC_DMA_REQ_SUBMIT_LEN_MSB:`NIC_DMA_REQ_SUBMIT_LEN_LSB],
                        wdata[`NIC_DMA_REQ_SUBMIT_TO_HOST_LSB],
                        wdata[`NIC_DMA_REQ_SUBMIT_TAG_MSB:`NIC_DMA_REQ_SUBMIT_TAG_LSB]};
  reg           q_pop;
  nic_fifo #(.W(QW), .DEPTH(QDEPTH)) u_q (
    .clk(clk), .rst(rst), .push(submit), .wdata(q_in), .full(q_full),
    .pop(q_pop), .rdata(q_head), .empty(q_empty), .count(q_count));
  wire [31:0] h_sram  = q_head[QW-1 -: 32];
  wire [63:0] h_host  = q_head[QW-33 -: 64];
  wire [16:0] h_len   = q_head[25:9];
  wire        h_write = q_head[8];
  wire [7:0]  h_tag   = q_head[7:0];
  wire [17:0] h_len_eff = (h_len == 17'd0) ? 18'h10000 : {1'b0, h_len};
  wire        h_badlen  = (h_len > 17'h10000);
  localparam [31:0] SRAM_SZ = SRAM_SIZE;
  localparam [32:0] SRAM_END = {1'b0, SRAM_SZ};

  // ---- in-order slot table ----
  reg [SW:0]     t_wp, t_rp;                      // free-running (one extra bit)
  reg [7:0]      t_seq;                           // sequence number of the next slot (dma_req_tag)
  reg [31:0]     s_sram  [0:INFLIGHT-1];
  reg [12:0]     s_len   [0:INFLIGHT-1];
  reg            s_last  [0:INFLIGHT-1];
  reg [7:0]      s_utag  [0:INFLIGHT-1];
  reg [7:0]      s_htag  [0:INFLIGHT-1];
  reg [INFLIGHT-1:0] s_done;
  reg [3:0]      s_err   [0:INFLIGHT-1];
  wire [SW:0]    t_used = t_wp - t_rp;
  wire           t_full = t_used[SW];
  wire [SW-1:0]  t_wslot = t_wp[SW-1:0];
  wire [SW-1:0]  t_rslot = t_rp[SW-1:0];

  // ---- issuer: current request being split into bursts ----
  reg        c_active, c_write;
  reg [31:0] c_sram;
  reg [63:0] c_host;
  reg [17:0] c_left;
  reg [7:0]  c_utag;
  localparam integer MBW = $clog2(MAX_BURST);
  wire [MBW:0]  to_bound = (MAX_BURST[MBW:0]) - {1'b0, c_host[MBW-1:0]};
  wire [17:0]   blen18   = (c_left < {{(17-MBW){1'b0}}, to_bound}) ? c_left : {{(17-MBW){1'b0}}, to_bound};
  wire [12:0]   blen     = blen18[12:0];
  wire          b_last   = (blen18 == c_left);

  assign dma_req_valid = c_active && !t_full;
  assign dma_req_write = c_write;
  assign dma_req_addr  = c_host;
  assign dma_req_len   = blen;
  assign dma_req_tag   = t_seq;
  wire   issue = dma_req_valid && dma_req_ready;
  // a rejected request (bad length, or sram + len beyond SRAM) takes a slot already done, so its
  // completion keeps its place in order. Nested conditions: the head's checks are evaluated only
  // in a cycle in which the issuer may take it (simulation speed).
  reg    reject_take, accept_take;
  always @* begin
    reject_take = 1'b0;
    accept_take = 1'b0;
    if (!c_active && enable && !q_empty) begin
      if (h_badlen || ({1'b0, h_sram} + {15'd0, h_len_eff} > SRAM_END))
        reject_take = !t_full;
      else
        accept_take = 1'b1;
    end
    q_pop = reject_take || accept_take;
  end

  // slot id queues for the data engines
  wire rdq_empty, wrq_empty, wkq_empty;
  wire [SW-1:0] rdq_head, wrq_head, wkq_head;
  wire rd_done_pop, wr_sent_pop;
  // lint_off: FIFO full/count: the slot accounting bounds every queue, so they are never consulted
  /* verilator lint_off UNUSEDSIGNAL */
  wire rdq_full, wrq_full, wkq_full;
  wire [SW:0] rdq_count, wrq_count, wkq_count;
  /* verilator lint_on UNUSEDSIGNAL */
  nic_fifo #(.W(SW), .DEPTH(INFLIGHT)) u_rdq (
    .clk(clk), .rst(rst), .push(issue && !c_write), .wdata(t_wslot), .full(rdq_full),
    .pop(rd_done_pop), .rdata(rdq_head), .empty(rdq_empty), .count(rdq_count));
  nic_fifo #(.W(SW), .DEPTH(INFLIGHT)) u_wrq (
    .clk(clk), .rst(rst), .push(issue && c_write), .wdata(t_wslot), .full(wrq_full),
    .pop(wr_sent_pop), .rdata(wrq_head), .empty(wrq_empty), .count(wrq_count));
  wire wack_pop = dma_wack_valid && !wkq_empty;
  nic_fifo #(.W(SW), .DEPTH(INFLIGHT)) u_wkq (
    .clk(clk), .rst(rst), .push(wr_sent_pop), .wdata(wrq_head), .full(wkq_full),
    .pop(wack_pop), .rdata(wkq_head), .empty(wkq_empty), .count(wkq_count));

  // ---- read engine: host -> SRAM ----
  reg        r_active;
  reg [SW-1:0] r_slot;
  reg [12:0] r_left;        // bytes still expected
  reg        r_err;
  wire       ws_busy, ws_done, ws_ready;
  wire [4:0] r_nb = (r_left < 13'd8) ? r_left[4:0] : 5'd8;
  wire       r_tag_ok = (dma_rsp_tag == s_htag[r_slot]);
  wire       r_beat_bad = dma_rsp_err || !r_tag_ok || (r_left == 13'd0) ||
                          (dma_rsp_last != (r_left <= 13'd8));
  wire       r_start = !r_active && !rdq_empty && !ws_busy;
  assign dma_rsp_ready = r_active && ws_ready;
  wire       r_take = dma_rsp_valid && dma_rsp_ready;
  nic_wr_stream #(.B(8)) u_ws (
    .clk(clk), .rst(rst),
    .start(r_start), .addr(s_sram[rdq_head]), .limit({4'd0, s_len[rdq_head]}), .cancel(1'b0),
    .busy(ws_busy), .done(ws_done),
    .i_valid(dma_rsp_valid && r_active), .i_ready(ws_ready), .i_data(dma_rsp_data),
    .i_bytes((r_nb == 5'd0) ? 5'd8 : r_nb), .i_last(dma_rsp_last), .i_wen(!dma_rsp_err && r_tag_ok),
    .m_valid(sw_valid), .m_addr(sw_addr), .m_be(sw_be), .m_wdata(sw_wdata), .m_gnt(sw_gnt));
  assign rd_done_pop = r_active && ws_done;
  // the read stream writes its burst's bytes in address order, and bursts (and requests) in
  // order: after a write, every byte of the request below the written word's highest enabled
  // byte is in SRAM (a beat with an error writes nothing: its request's completion then fails).
  // The MAC works out that address in the cycles it needs it (simulation speed).
  always @(posedge clk) begin
    ct_wr <= !rst && sw_valid && sw_gnt && sw_be != 16'd0;
    if (sw_valid && sw_gnt) begin
      ct_tag  <= s_utag[rdq_head];
      ct_word <= sw_addr[31:4];
      ct_be   <= sw_be;
    end
  end

  // ---- write engine: SRAM -> host ----
  reg        x_active;
  wire       rs_busy, rs_valid, rs_last;
  wire [4:0] rs_bytes;
  // lint_off: rd_stream outputs the write path has no use for (busy, bytes of the last beat)
  /* verilator lint_off UNUSEDSIGNAL */
  wire       rs_busy_unused = rs_busy;
  wire [4:0] rs_bytes_unused = rs_bytes;
  /* verilator lint_on UNUSEDSIGNAL */
  wire       x_start = !x_active && !wrq_empty;
  nic_rd_stream #(.B(8)) u_rs (
    .clk(clk), .rst(rst),
    .start(x_start), .addr(s_sram[wrq_head]), .len({4'd0, s_len[wrq_head]}), .busy(rs_busy),
    .m_valid(sr_valid), .m_addr(sr_addr), .m_gnt(sr_gnt), .m_rsp_valid(sr_rsp_valid), .m_rdata(sr_rdata),
    .o_valid(rs_valid), .o_ready(dma_wdata_ready && x_active), .o_data(dma_wdata_data),
    .o_bytes(rs_bytes), .o_last(rs_last));
  assign dma_wdata_valid = rs_valid && x_active;
  assign dma_wdata_last  = rs_last;
  assign wr_sent_pop = dma_wdata_valid && dma_wdata_ready && rs_last;

  // ---- retire + completions ----
  wire        cq_full, cq_empty;
  wire [11:0] cq_head;
  wire [$clog2(CPL_DEPTH):0] cq_count;
  reg  [3:0]  acc_err;                       // first error of the request being retired
  wire        ret = (t_used != 0) && s_done[t_rslot] && !(s_last[t_rslot] && cq_full);
  wire [3:0]  ret_err = (acc_err != E_OK) ? acc_err : s_err[t_rslot];
  wire        cpl_push = ret && s_last[t_rslot];
  wire        cpl_pop = wr && addr == `NIC_DMA_CPL_POP;
  assign tag_sub     = submit && !q_full;
  assign tag_sub_id  = wdata[`NIC_DMA_REQ_SUBMIT_TAG_MSB:`NIC_DMA_REQ_SUBMIT_TAG_LSB];
  assign tag_cpl     = cpl_push;
  assign tag_cpl_id  = s_utag[t_rslot];
  assign tag_cpl_err = (ret_err != E_OK);
  nic_fifo #(.W(12), .DEPTH(CPL_DEPTH)) u_cq (
    .clk(clk), .rst(rst), .push(cpl_push), .wdata({s_utag[t_rslot], ret_err}), .full(cq_full),
    .pop(cpl_pop), .rdata(cq_head), .empty(cq_empty), .count(cq_count));

  // lint_off: merge() returns the whole register; ctrl keeps only its enable bit
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] ctrl_new = merge({31'd0, enable} << `NIC_DMA_CTRL_ENABLE_LSB);
  /* verilator lint_on UNUSEDSIGNAL */
  wire [1:0] err_inc = {1'b0, cpl_push && ret_err != E_OK} + {1'b0, dma_wack_valid && wkq_empty};
  always @(posedge clk) begin
    ev_dma <= 1'b0;
    if (rst) begin
      enable <= 1'b0;
      req_sram <= `NIC_DMA_REQ_SRAM_RESET;
      req_host_lo <= `NIC_DMA_REQ_HOST_LO_RESET;
      req_host_hi <= `NIC_DMA_REQ_HOST_HI_RESET;
      err_count <= 32'd0;
      overflow <= 32'd0;
      t_wp <= 0;
      t_rp <= 0;
      t_seq <= 8'd0;
      s_done <= {INFLIGHT{1'b0}};
      c_active <= 1'b0;
      r_active <= 1'b0;
      x_active <= 1'b0;
      acc_err <= E_OK;
    end else begin
      // registers
      if (wr) begin
        case (addr)
          `NIC_DMA_CTRL:        enable      <= ctrl_new[`NIC_DMA_CTRL_ENABLE_LSB];
          `NIC_DMA_REQ_SRAM:    req_sram    <= merge(req_sram);
          `NIC_DMA_REQ_HOST_LO: req_host_lo <= merge(req_host_lo);
          `NIC_DMA_REQ_HOST_HI: req_host_hi <= merge(req_host_hi);
          default: ;
        endcase
      end
      if (submit && q_full && overflow != 32'hFFFF_FFFF) overflow <= overflow + 32'd1;

      // issuer
      if (accept_take) begin
        c_active <= 1'b1;
        c_write  <= h_write;
        c_sram   <= h_sram;
        c_host   <= h_host;
        c_left   <= h_len_eff;
        c_utag   <= h_tag;
      end
      if (reject_take) begin
        s_sram[t_wslot]  <= 32'd0;
        s_len[t_wslot]   <= 13'd0;
        s_last[t_wslot]  <= 1'b1;
        s_utag[t_wslot]  <= h_tag;
        s_htag[t_wslot]  <= 8'd0;
        s_err[t_wslot]   <= h_badlen ? E_LEN : E_RANGE;
        s_done[t_wslot]  <= 1'b1;
        t_wp <= t_wp + 1'b1;
      end
      if (issue) begin
        s_sram[t_wslot]  <= c_sram;
        s_len[t_wslot]   <= blen;
        s_last[t_wslot]  <= b_last;
        s_utag[t_wslot]  <= c_utag;
        s_htag[t_wslot]  <= t_seq;
        s_err[t_wslot]   <= E_OK;
        s_done[t_wslot]  <= 1'b0;
        t_wp   <= t_wp + 1'b1;
        t_seq  <= t_seq + 8'd1;
        c_sram <= c_sram + {19'd0, blen};
        c_host <= c_host + {51'd0, blen};
        c_left <= c_left - {5'd0, blen};
        if (b_last) c_active <= 1'b0;
      end

      // read engine
      if (r_start) begin
        r_active <= 1'b1;
        r_slot   <= rdq_head;
        r_left   <= s_len[rdq_head];
        r_err    <= 1'b0;
      end
      if (r_take) begin
        r_left <= (r_left > {8'd0, r_nb}) ? r_left - {8'd0, r_nb} : 13'd0;
        if (r_beat_bad) r_err <= 1'b1;
      end
      if (rd_done_pop) begin
        r_active <= 1'b0;
        s_done[r_slot] <= 1'b1;
        s_err[r_slot]  <= r_err ? E_BUS : E_OK;
      end

      // write engine
      if (x_start) x_active <= 1'b1;
      if (wr_sent_pop) x_active <= 1'b0;
      if (wack_pop) begin
        s_done[wkq_head] <= 1'b1;
        s_err[wkq_head]  <= (dma_wack_err || dma_wack_tag != s_htag[wkq_head]) ? E_BUS : E_OK;
      end

      // retire
      if (ret) begin
        t_rp <= t_rp + 1'b1;
        s_done[t_rslot] <= 1'b0;
        acc_err <= s_last[t_rslot] ? E_OK : ret_err;
        if (cpl_push) ev_dma <= 1'b1;
      end
      // error completions, and acknowledgements nobody waits for (a protocol error), saturating
      if (err_inc != 2'd0)
        err_count <= (err_count > 32'hFFFF_FFFD) ? 32'hFFFF_FFFF : err_count + {30'd0, err_inc};
    end
  end

  assign idle = q_empty && !c_active && (t_used == 0) && !r_active && !x_active && !ws_busy;

  wire [31:0] status = ({{(31-$clog2(QDEPTH)){1'b0}}, QDEPTH[$clog2(QDEPTH):0] - q_count}
                          << `NIC_DMA_STATUS_REQ_FREE_LSB) |
                       ({{(31-$clog2(CPL_DEPTH)){1'b0}}, cq_count} << `NIC_DMA_STATUS_CPL_COUNT_LSB);
  wire [31:0] cpl = cq_empty ? 32'd0 : (({28'd0, cq_head[3:0]} << `NIC_DMA_CPL_HEAD_ERR_LSB) |
                                        ({24'd0, cq_head[11:4]} << `NIC_DMA_CPL_HEAD_TAG_LSB));
  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_DMA_ID:          rdata <= `NIC_DMA_ID_VALUE;
        `NIC_DMA_VERSION:     rdata <= `NIC_DMA_VERSION_VALUE;
        `NIC_DMA_CTRL:        rdata <= {31'd0, enable} << `NIC_DMA_CTRL_ENABLE_LSB;
        `NIC_DMA_REQ_SRAM:    rdata <= req_sram;
        `NIC_DMA_REQ_HOST_LO: rdata <= req_host_lo;
        `NIC_DMA_REQ_HOST_HI: rdata <= req_host_hi;
        `NIC_DMA_STATUS:      rdata <= status;
        `NIC_DMA_CPL_HEAD:    rdata <= cpl;
        `NIC_DMA_ERR_COUNT:   rdata <= err_count;
        `NIC_DMA_OVERFLOW:    rdata <= overflow;
        default:              rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
