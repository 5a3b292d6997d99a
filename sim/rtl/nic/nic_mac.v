// nic_mac: link MAC registers around the TX path (nic_mac_tx) and the RX path (nic_mac_rx).
// Counters saturate; tx_status.done and tx_ctl_status.done are free-running (wrap). Interrupts: ev_tx
// when a frame left a TX queue (sent or refused), ev_rx when a good frame's descriptor is written.
`default_nettype none
`include "nic_regs.vh"
`include "nic_memmap.vh"
module nic_mac #(
  parameter integer SRAM_SIZE  = `NIC_SRAM_SIZE,
  parameter integer W          = 64,     // link datapath bits (32 or 64)
  parameter integer RATE       = 50,     // link bits per cycle when phy_rate is 0
  parameter integer GAP        = 20,     // bytes per frame: preamble, start delimiter, IFG
  parameter integer TXQ_DEPTH  = 8,
  parameter integer TXCQ_DEPTH = 16,     // control frames (tx_submit.ctl)
  parameter integer RX_FIFO    = 64,     // RX FIFO beats
  parameter integer MIN_FRAME  = 16,     // wire bytes, with CRC
  parameter integer MAX_FRAME  = 9216    // wire bytes, with CRC (TX limit; RX limit is buf_size)
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
  // link
  input  wire [15:0]  phy_rate,   // the PHY's link rate, bits per cycle (0: RATE)
  input  wire         tx_ct_off,  // strap: cut-through off whatever mac.tx_ct says (A/B studies)
  output wire         tx_valid,
  input  wire         tx_ready,
  output wire [W-1:0] tx_data,
  output wire         tx_last,
  output wire [$clog2(W/8):0] tx_bytes,
  input  wire         rx_valid,
  input  wire [W-1:0] rx_data,
  input  wire         rx_last,
  input  wire [$clog2(W/8):0] rx_bytes,
  // SRAM port T (TX reads)
  output wire         st_valid,
  output wire [31:0]  st_addr,
  input  wire         st_gnt,
  input  wire         st_rsp_valid,
  input  wire [127:0] st_rdata,
  // SRAM port R (RX descriptor reads, data and descriptor writes)
  output wire         sr_valid,
  output wire [31:0]  sr_addr,
  output wire         sr_we,
  output wire [15:0]  sr_be,
  output wire [127:0] sr_wdata,
  input  wire         sr_gnt,
  input  wire         sr_rsp_valid,
  input  wire [127:0] sr_rdata,
  // the DMA engine's request tags (gated TX frames: nic_mac_tx)
  input  wire         dma_sub,
  input  wire [7:0]   dma_sub_tag,
  input  wire         dma_cpl,
  input  wire [7:0]   dma_cpl_tag,
  input  wire         dma_cpl_err,
  // the DMA engine's writes of host read data (cut-through of gated TX frames: nic_mac_tx)
  input  wire         ct_wr,
  input  wire [7:0]   ct_tag,
  input  wire [27:0]  ct_word,
  input  wire [15:0]  ct_be,
  // events
  output wire         ev_rx,
  output wire         ev_tx,
  output wire         tx_idle,
  output wire         rx_idle,
  output wire         rx_urgent,  // the RX FIFO is filling: give sr_* SRAM priority
  output wire         rx_xoff     // pause request to the link partner (nic_mac_rx)
);
  initial begin
    if (RATE < 1 || RATE > 65535) begin
      $display("nic_mac: RATE (%0d) must be 1..65535", RATE);
      $finish;
    end
  end
  wire [31:0] w = wdata & wmask;
  function [31:0] merge(input [31:0] old);
    merge = (old & ~wmask) | w;
  endfunction

  reg [31:0] ctrl, tx_addr, rx_ring, rx_cfg, rx_tail, node_id;
  reg [31:0] rx_ok, rx_bad_crc, rx_runt, rx_oversize, rx_nobuf, tx_ok, tx_errors, tx_overflow, rx_overflow;
  reg [31:0] tx_ct, tx_underruns;
  reg        ct_off;   // the tx_ct_off strap, registered (a strap is static; no input in the MAC's cone)
  reg [15:0] tx_done, tx_cdone;
  wire tx_enable = ctrl[`NIC_MAC_CTRL_TX_ENABLE_LSB];
  wire rx_enable = ctrl[`NIC_MAC_CTRL_RX_ENABLE_LSB];

  localparam [31:0] RATE32 = RATE, GAP32 = GAP, MAXF_HALF32 = MAX_FRAME / 2;
  localparam [15:0] MAXF_HALF = MAXF_HALF32[15:0];
  wire [15:0] rate = (phy_rate != 16'd0) ? phy_rate : RATE32[15:0];
  wire [31:0] link_rate = {8'd0, GAP32[7:0], rate};

  wire        sub = wr && addr == `NIC_MAC_TX_SUBMIT;
  wire        sub_ctl = wdata[`NIC_MAC_TX_SUBMIT_CTL_LSB];
  wire        enq = sub && !sub_ctl;
  wire        cenq = sub && sub_ctl;
  wire        q_full, cq_full;
  wire [7:0]  q_free, cq_free;
  wire        t_done, t_cdone, t_ok, t_err, t_underrun;
  nic_mac_tx #(.SRAM_SIZE(SRAM_SIZE), .QDEPTH(TXQ_DEPTH), .CQDEPTH(TXCQ_DEPTH), .W(W), .GAP(GAP),
               .MIN_FRAME(MIN_FRAME), .MAX_FRAME(MAX_FRAME)) u_tx (
    .clk(clk), .rst(rst), .tx_enable(tx_enable), .rate(rate),
    .enq(enq), .enq_addr(tx_addr),
    .enq_len(wdata[`NIC_MAC_TX_SUBMIT_LEN_MSB:`NIC_MAC_TX_SUBMIT_LEN_LSB]),
    .enq_gate(wdata[`NIC_MAC_TX_SUBMIT_GATE_LSB]),
    .enq_tag(wdata[`NIC_MAC_TX_SUBMIT_TAG_MSB:`NIC_MAC_TX_SUBMIT_TAG_LSB]),
    .cenq(cenq),
    .dma_sub(dma_sub), .dma_sub_tag(dma_sub_tag), .dma_cpl(dma_cpl), .dma_cpl_tag(dma_cpl_tag),
    .dma_cpl_err(dma_cpl_err),
    .ct_thresh(ct_off ? 16'd0 : tx_ct[`NIC_MAC_TX_CT_THRESH_MSB:`NIC_MAC_TX_CT_THRESH_LSB]),
    .ct_wr(ct_wr), .ct_tag(ct_tag),
    .ct_word(ct_word), .ct_be(ct_be), .ev_underrun(t_underrun),
    .q_full(q_full), .q_free(q_free), .cq_full(cq_full), .cq_free(cq_free),
    .m_valid(st_valid), .m_addr(st_addr), .m_gnt(st_gnt), .m_rsp_valid(st_rsp_valid), .m_rdata(st_rdata),
    .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_data(tx_data), .tx_last(tx_last), .tx_bytes(tx_bytes),
    .ev_done(t_done), .ev_cdone(t_cdone), .ev_ok(t_ok), .ev_err(t_err), .idle(tx_idle));

  wire [31:0] rx_head;
  wire r_ok, r_bad_crc, r_runt, r_oversize, r_nobuf, r_overflow;
  nic_mac_rx #(.SRAM_SIZE(SRAM_SIZE), .W(W), .FIFO_DEPTH(RX_FIFO), .MIN_FRAME(MIN_FRAME)) u_rx (
    .clk(clk), .rst(rst),
    .rx_enable(rx_enable), .ring(rx_ring),
    .entries_log2(rx_cfg[`NIC_MAC_RX_CFG_ENTRIES_LOG2_MSB:`NIC_MAC_RX_CFG_ENTRIES_LOG2_LSB]),
    .buf_size(rx_cfg[`NIC_MAC_RX_CFG_BUF_SIZE_MSB:`NIC_MAC_RX_CFG_BUF_SIZE_LSB]),
    .tail(rx_tail), .head(rx_head),
    .rx_valid(rx_valid), .rx_data(rx_data), .rx_last(rx_last), .rx_bytes(rx_bytes),
    .m_valid(sr_valid), .m_addr(sr_addr), .m_we(sr_we), .m_be(sr_be), .m_wdata(sr_wdata),
    .m_gnt(sr_gnt), .m_rsp_valid(sr_rsp_valid), .m_rdata(sr_rdata),
    .ev_ok(r_ok), .ev_bad_crc(r_bad_crc), .ev_runt(r_runt), .ev_oversize(r_oversize),
    .ev_nobuf(r_nobuf), .ev_overflow(r_overflow), .urgent(rx_urgent), .xoff(rx_xoff), .idle(rx_idle));

  assign ev_rx = r_ok;
  assign ev_tx = t_done || t_cdone;

  wire [31:0] tx_status = ({24'd0, q_free} << `NIC_MAC_TX_STATUS_FREE_LSB) |
                          ({16'd0, tx_done} << `NIC_MAC_TX_STATUS_DONE_LSB);
  wire [31:0] tx_ctl_status = ({24'd0, cq_free} << `NIC_MAC_TX_CTL_STATUS_FREE_LSB) |
                              ({16'd0, tx_cdone} << `NIC_MAC_TX_CTL_STATUS_DONE_LSB);
  // One block, reads first, reset last (it overrides every register it names): written so,
  // the simulator updates these registers in place instead of through shadow copies (speed).
  always @(posedge clk) begin
    // read data, registered at an access (nic_regbus returns it the cycle after the grant)
    if (acc) begin
      case (addr)
        `NIC_MAC_ID:          rdata <= `NIC_MAC_ID_VALUE;
        `NIC_MAC_VERSION:     rdata <= `NIC_MAC_VERSION_VALUE;
        `NIC_MAC_CTRL:        rdata <= ctrl;
        `NIC_MAC_TX_ADDR:     rdata <= tx_addr;
        `NIC_MAC_TX_STATUS:   rdata <= tx_status;
        `NIC_MAC_TX_CTL_STATUS: rdata <= tx_ctl_status;
        `NIC_MAC_RX_RING:     rdata <= rx_ring;
        `NIC_MAC_RX_CFG:      rdata <= rx_cfg;
        `NIC_MAC_RX_HEAD:     rdata <= rx_head;
        `NIC_MAC_RX_TAIL:     rdata <= rx_tail;
        `NIC_MAC_NODE_ID:     rdata <= node_id;
        `NIC_MAC_LINK_RATE:   rdata <= link_rate;
        `NIC_MAC_RX_OK:       rdata <= rx_ok;
        `NIC_MAC_RX_BAD_CRC:  rdata <= rx_bad_crc;
        `NIC_MAC_RX_RUNT:     rdata <= rx_runt;
        `NIC_MAC_RX_OVERSIZE: rdata <= rx_oversize;
        `NIC_MAC_RX_NOBUF:    rdata <= rx_nobuf;
        `NIC_MAC_TX_OK:       rdata <= tx_ok;
        `NIC_MAC_TX_ERRORS:   rdata <= tx_errors;
        `NIC_MAC_TX_OVERFLOW: rdata <= tx_overflow;
        `NIC_MAC_RX_OVERFLOW: rdata <= rx_overflow;
        `NIC_MAC_TX_CT:       rdata <= tx_ct;
        `NIC_MAC_TX_UNDERRUNS: rdata <= tx_underruns;
        default:              rdata <= 32'd0;
      endcase
    end
    // an underrun (cut-through: the line caught up with the DMA) doubles the threshold, as a
    // driver raises its transmit threshold on each underrun; past the largest frame: 0, off
    if (t_underrun)
      tx_ct <= (tx_ct[`NIC_MAC_TX_CT_THRESH_MSB:`NIC_MAC_TX_CT_THRESH_LSB] >= MAXF_HALF) ? 32'd0 : (tx_ct << 1);
    if (wr) begin
      case (addr)
        `NIC_MAC_CTRL:    ctrl    <= merge(ctrl) & ((32'd1 << `NIC_MAC_CTRL_TX_ENABLE_LSB) |
                                                    (32'd1 << `NIC_MAC_CTRL_RX_ENABLE_LSB));
        `NIC_MAC_TX_ADDR: tx_addr <= merge(tx_addr);
        `NIC_MAC_RX_RING: rx_ring <= merge(rx_ring) & 32'hFFFF_FFF0;
        `NIC_MAC_RX_CFG:  rx_cfg  <= merge(rx_cfg);
        `NIC_MAC_RX_TAIL: rx_tail <= merge(rx_tail);
        `NIC_MAC_NODE_ID: node_id <= merge(node_id);
        `NIC_MAC_TX_CT:   tx_ct   <= merge(tx_ct) & (32'hFFFF << `NIC_MAC_TX_CT_THRESH_LSB);
        default: ;
      endcase
    end
    // saturating event counters
    if (r_ok && rx_ok != 32'hFFFF_FFFF) rx_ok <= rx_ok + 32'd1;
    if (r_bad_crc && rx_bad_crc != 32'hFFFF_FFFF) rx_bad_crc <= rx_bad_crc + 32'd1;
    if (r_runt && rx_runt != 32'hFFFF_FFFF) rx_runt <= rx_runt + 32'd1;
    if (r_oversize && rx_oversize != 32'hFFFF_FFFF) rx_oversize <= rx_oversize + 32'd1;
    if (r_nobuf && rx_nobuf != 32'hFFFF_FFFF) rx_nobuf <= rx_nobuf + 32'd1;
    if (r_overflow && rx_overflow != 32'hFFFF_FFFF) rx_overflow <= rx_overflow + 32'd1;
    if (t_ok && tx_ok != 32'hFFFF_FFFF) tx_ok <= tx_ok + 32'd1;
    if (t_err && tx_errors != 32'hFFFF_FFFF) tx_errors <= tx_errors + 32'd1;
    if (t_underrun && tx_underruns != 32'hFFFF_FFFF) tx_underruns <= tx_underruns + 32'd1;
    ct_off <= tx_ct_off;
    if (((enq && q_full) || (cenq && cq_full)) && tx_overflow != 32'hFFFF_FFFF) tx_overflow <= tx_overflow + 32'd1;
    if (t_done) tx_done <= tx_done + 16'd1;
    if (t_cdone) tx_cdone <= tx_cdone + 16'd1;
    if (rst) begin   // power-on reset
      ctrl <= `NIC_MAC_CTRL_RESET;
      tx_addr <= `NIC_MAC_TX_ADDR_RESET;
      rx_ring <= `NIC_MAC_RX_RING_RESET;
      rx_cfg <= `NIC_MAC_RX_CFG_RESET;
      rx_tail <= `NIC_MAC_RX_TAIL_RESET;
      node_id <= `NIC_MAC_NODE_ID_RESET;
      tx_ct <= `NIC_MAC_TX_CT_RESET;
      tx_underruns <= 32'd0;
      rx_ok <= 32'd0; rx_bad_crc <= 32'd0; rx_runt <= 32'd0; rx_oversize <= 32'd0;
      rx_nobuf <= 32'd0; tx_ok <= 32'd0; tx_errors <= 32'd0; tx_overflow <= 32'd0;
      rx_overflow <= 32'd0; tx_done <= 16'd0; tx_cdone <= 16'd0;
    end
  end
endmodule
`default_nettype wire
