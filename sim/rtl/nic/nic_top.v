// nic_top: the NIC. rv_core (sim/rtl/core) with its instruction memory, the shared NIC SRAM,
// the register blocks (nic_regs.vh), the host DMA engine, the link MAC, the host port and the
// harness hooks. See docs/nic.md for the block diagram, port timing and formats.
//
// SRAM requesters (nic_sram, round-robin per bank): 0 core, 1 host window, 2 DMA host->SRAM,
// 3 DMA SRAM->host, 4 MAC TX, 5 MAC RX (first, while its FIFO is a quarter full).
`default_nettype none
`include "nic_regs.vh"
`include "nic_memmap.vh"
module nic_top #(
  parameter integer IMEM_SIZE     = `NIC_IMEM_SIZE,
  parameter integer SRAM_SIZE     = `NIC_SRAM_SIZE,
  parameter integer SRAM_BANKS    = 4,
  parameter integer DB_PAGES      = `NIC_BAR_DOORBELL_PAGES,
  parameter integer DB_DEPTH      = 64,
  parameter integer DMA_QDEPTH    = 8,
  parameter integer DMA_INFLIGHT  = 8,
  parameter integer DMA_MAX_BURST = 256,
  parameter integer DMA_CPL_DEPTH = 16,
  parameter integer LINK_W        = 64,
  parameter integer LINK_RATE     = 50,   // link bits per cycle when phy_rate is 0 (50 = 10 Gb/s)
  parameter integer LINK_GAP      = 20,   // bytes per frame: preamble, start delimiter, IFG
  parameter integer MAC_TXQ       = 8,
  parameter integer MAC_RX_FIFO   = 64,
  parameter integer MIN_FRAME     = 16,
  parameter integer MAX_FRAME     = 9216
) (
  // clock, power-on reset (synchronous, active high)
  input  wire         clk,
  input  wire         rst,
  // host MMIO target (the PCIe model is the initiator)
  input  wire         host_req_valid,
  output wire         host_req_ready,
  input  wire         host_req_we,
  input  wire [1:0]   host_req_bar,
  input  wire [23:0]  host_req_addr,
  input  wire [31:0]  host_req_wdata,
  input  wire [3:0]   host_req_be,
  output wire         host_rsp_valid,
  output wire [31:0]  host_rsp_rdata,
  output wire         host_irq,
  // host DMA master (the PCIe/host-memory model is the target)
  output wire         dma_req_valid,
  input  wire         dma_req_ready,
  output wire         dma_req_write,
  output wire [63:0]  dma_req_addr,
  output wire [12:0]  dma_req_len,
  output wire [7:0]   dma_req_tag,
  output wire         dma_wdata_valid,
  input  wire         dma_wdata_ready,
  output wire [63:0]  dma_wdata_data,
  output wire         dma_wdata_last,
  input  wire         dma_rsp_valid,
  output wire         dma_rsp_ready,
  input  wire [7:0]   dma_rsp_tag,
  input  wire [63:0]  dma_rsp_data,
  input  wire         dma_rsp_last,
  input  wire         dma_rsp_err,
  input  wire         dma_wack_valid,
  input  wire [7:0]   dma_wack_tag,
  input  wire         dma_wack_err,
  // link
  output wire         tx_valid,
  input  wire         tx_ready,
  output wire [LINK_W-1:0] tx_data,
  output wire         tx_last,
  output wire [$clog2(LINK_W/8):0] tx_bytes,
  input  wire         rx_valid,
  input  wire [LINK_W-1:0] rx_data,
  input  wire         rx_last,
  input  wire [$clog2(LINK_W/8):0] rx_bytes,
  input  wire [15:0]  phy_rate,     // the PHY's link rate, bits per cycle (0: LINK_RATE)
  input  wire         tx_ct_off,    // strap: no cut-through of gated TX frames (mac.tx_ct ignored)
  // harness: console, test mailbox, state
  output wire         console_valid,
  output wire [7:0]   console_char,
  output wire         testmb_valid,
  output wire [31:0]  testmb_status,
  output wire [31:0]  testmb_value,
  output wire         core_sleeping,
  output wire         idle,
  output wire         rx_xoff,      // the MAC asks the link partner to pause (nic_mac_rx: xoff)
  output wire [63:0]  timer_cycles_to_irq,
  // harness hook (simulation only; tie to 0 on a board)
  input  wire         skip_valid,
  input  wire [31:0]  skip_cycles,
  // the core's debug port (rv_core; docs/debugging.md): halt, resume, step, breakpoints
  input  wire         dbg_halt_req,
  input  wire         dbg_resume,
  input  wire         dbg_step,
  input  wire [31:0]  dbg_resume_pc,
  input  wire         dbg_ebreak,
  input  wire [127:0] dbg_bp_addr,
  input  wire [3:0]   dbg_bp_en,
  output wire         dbg_halted,
  output wire [31:0]  dbg_pc
);
  localparam integer NREQ = 6;
  localparam integer R_CORE = 0, R_HOST = 1, R_DMAW = 2, R_DMAR = 3, R_TX = 4, R_RX = 5;

  // ---- core ----
  wire        core_reset_ctl;
  wire        core_rst /*verilator public_flat_rd*/ = rst || core_reset_ctl;   // public: the GDB stub waits for the boot
  wire        ib_valid, ib_ready, ib_rsp_valid, ib_rsp_err;
  wire [31:0] ib_addr, ib_rdata;
  wire        db_valid /*verilator public_flat_rd*/, db_ready /*verilator public_flat_rd*/;
  wire        db_we /*verilator public_flat_rd*/, db_rsp_valid, db_rsp_err;
  wire [31:0] db_addr /*verilator public_flat_rd*/, db_wdata /*verilator public_flat_rd*/, db_rdata;
  wire [3:0]  db_be /*verilator public_flat_rd*/;
  wire        meip, mtip, msip;
  // public: the retire trace and the core's data requests are read by the simulator's
  // instruction trace (nicrun --trace-insn, sim/node/insntrace.c); not ports, so a synthesised
  // NIC does not keep them
  wire        retire_valid /*verilator public_flat_rd*/, retire_trap /*verilator public_flat_rd*/;
  // lint_off: the core's retire trace (pc, insn, rd): the NIC counts retirements only; coresim uses the rest
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] retire_pc /*verilator public_flat_rd*/, retire_insn /*verilator public_flat_rd*/;
  wire [31:0] retire_rd_wdata /*verilator public_flat_rd*/;
  wire [4:0]  retire_rd /*verilator public_flat_rd*/;
  wire        retire_rd_we /*verilator public_flat_rd*/;
  /* verilator lint_on UNUSEDSIGNAL */
  wire        sleeping, core_quiet;

  rv_core #(.RESET_VECTOR(`NIC_IMEM_BASE)) u_core (
    .clk(clk), .rst(core_rst),
    .ibus_req_valid(ib_valid), .ibus_req_ready(ib_ready), .ibus_req_addr(ib_addr),
    .ibus_rsp_valid(ib_rsp_valid), .ibus_rsp_rdata(ib_rdata), .ibus_rsp_err(ib_rsp_err),
    .dbus_req_valid(db_valid), .dbus_req_ready(db_ready), .dbus_req_addr(db_addr),
    .dbus_req_we(db_we), .dbus_req_be(db_be), .dbus_req_wdata(db_wdata),
    .dbus_rsp_valid(db_rsp_valid), .dbus_rsp_rdata(db_rdata), .dbus_rsp_err(db_rsp_err),
    .irq_external(meip), .irq_timer(mtip), .irq_software(msip),
    .retire_valid(retire_valid), .retire_pc(retire_pc), .retire_insn(retire_insn),
    .retire_rd(retire_rd), .retire_rd_we(retire_rd_we), .retire_rd_wdata(retire_rd_wdata),
    .retire_trap(retire_trap), .sleeping(sleeping),
    .dbg_halt_req(dbg_halt_req), .dbg_resume(dbg_resume), .dbg_step(dbg_step),
    .dbg_resume_pc(dbg_resume_pc), .dbg_ebreak(dbg_ebreak), .dbg_bp_addr(dbg_bp_addr),
    .dbg_bp_en(dbg_bp_en), .dbg_halted(dbg_halted), .dbg_pc(dbg_pc),

    .cycle_skip(skip_valid ? skip_cycles : 32'd0), .quiescent(core_quiet));
  assign core_sleeping = sleeping && !core_rst;

  // ---- SRAM ----
  wire [NREQ-1:0]     s_valid, s_we, s_gnt, s_rsp_valid;
  wire [NREQ*32-1:0]  s_addr;
  wire [NREQ*16-1:0]  s_be;
  wire [NREQ*128-1:0] s_wdata, s_rdata;
  wire                s_conflict;
  wire                mac_rx_urgent;
  // Served first on their bank: the MAC RX while its FIFO fills (the link has no back-pressure),
  // and the core's data port: a core access is a single word and the core waits for it (every
  // cycle lost to a streaming requester on the same bank is a stall of the firmware: issue 12,
  // ~5 % of a stream receiver's cycles), while the DMA engine and the MAC TX stream through
  // buffers and take the cycles the core leaves (it issues at most one access per cycle and
  // alternates banks with its addresses).
  wire [NREQ-1:0]     s_prio = {mac_rx_urgent, {(NREQ-2){1'b0}}, 1'b1};   // R_RX = NREQ - 1, R_CORE = 0
  nic_sram #(.SIZE(SRAM_SIZE), .NREQ(NREQ), .BANKS(SRAM_BANKS)) u_sram (
    .clk(clk), .rst(rst),
    .req_valid(s_valid), .req_addr(s_addr), .req_we(s_we), .req_be(s_be), .req_wdata(s_wdata),
    .prio(s_prio),
    .gnt(s_gnt), .rsp_valid(s_rsp_valid), .rsp_rdata(s_rdata), .conflict(s_conflict));
  // lint_off: SRAM response valids (the core and host ports know their timing) and the DMA writer's read data (a write-only port)
  /* verilator lint_off UNUSEDSIGNAL */
  wire [NREQ-1:0] s_rsp_valid_unused = s_rsp_valid;   // core and host know their timing
  wire [127:0]    s_rdata_dmaw_unused = s_rdata[R_DMAW*128 +: 128];   // a write-only port
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- IMEM ----
  wire        imc_valid, imc_gnt, imh_valid, imh_we, imh_gnt, ev_imem_drop;
  wire [31:0] imc_off, imc_rdata, imh_off, imh_wdata, imh_rdata;
  wire [3:0]  imh_be;
  nic_imem #(.SIZE(IMEM_SIZE), .BASE(`NIC_IMEM_BASE)) u_imem (
    .clk(clk), .rst(rst), .core_rst(core_rst),
    .ibus_req_valid(ib_valid), .ibus_req_ready(ib_ready), .ibus_req_addr(ib_addr),
    .ibus_rsp_valid(ib_rsp_valid), .ibus_rsp_rdata(ib_rdata), .ibus_rsp_err(ib_rsp_err),
    .c_valid(imc_valid), .c_off(imc_off), .c_gnt(imc_gnt), .c_rdata(imc_rdata),
    .h_valid(imh_valid), .h_we(imh_we), .h_off(imh_off), .h_be(imh_be), .h_wdata(imh_wdata),
    .h_gnt(imh_gnt), .h_rdata(imh_rdata), .ev_wr_dropped(ev_imem_drop));

  // ---- register bus ----
  localparam integer NBLK = 9;
  localparam integer B_HOSTIF = 0, B_INTC = 1, B_TIMER = 2, B_DMA = 3, B_MAC = 4, B_PERF = 5,
                     B_CONSOLE = 6, B_TESTMB = 7, B_DOORBELL = 8;
  wire        rbc_valid, rbc_we, rbc_gnt, rbh_valid, rbh_we, rbh_gnt, rb_err;
  wire [15:0] rbc_addr, rbh_addr;
  wire [31:0] rbc_wdata, rbh_wdata, rb_rdata;
  wire [3:0]  rbc_be, rbh_be;
  wire [NBLK-1:0]    blk_wr, blk_acc;
  wire [11:0]        blk_addr;
  wire [31:0]        blk_wdata, blk_wmask;
  wire [NBLK*32-1:0] blk_rdata;
  nic_regbus #(.NBLK(NBLK)) u_rb (
    .clk(clk), .rst(rst),
    .c_valid(rbc_valid), .c_we(rbc_we), .c_addr(rbc_addr), .c_wdata(rbc_wdata), .c_be(rbc_be),
    .c_gnt(rbc_gnt),
    .h_valid(rbh_valid), .h_we(rbh_we), .h_addr(rbh_addr), .h_wdata(rbh_wdata), .h_be(rbh_be),
    .h_gnt(rbh_gnt),
    .rdata(rb_rdata), .err(rb_err),
    .blk_wr(blk_wr), .blk_acc(blk_acc), .blk_addr(blk_addr), .blk_wdata(blk_wdata), .blk_wmask(blk_wmask),
    .blk_rdata(blk_rdata));

  // ---- core data port decoder ----
  nic_dbus u_dbus (
    .clk(clk), .core_rst(core_rst),
    .dbus_req_valid(db_valid), .dbus_req_ready(db_ready), .dbus_req_addr(db_addr),
    .dbus_req_we(db_we), .dbus_req_be(db_be), .dbus_req_wdata(db_wdata),
    .dbus_rsp_valid(db_rsp_valid), .dbus_rsp_rdata(db_rdata), .dbus_rsp_err(db_rsp_err),
    .im_valid(imc_valid), .im_off(imc_off), .im_gnt(imc_gnt), .im_rdata(imc_rdata),
    .sm_valid(s_valid[R_CORE]), .sm_addr(s_addr[R_CORE*32 +: 32]), .sm_we(s_we[R_CORE]),
    .sm_be(s_be[R_CORE*16 +: 16]), .sm_wdata(s_wdata[R_CORE*128 +: 128]), .sm_gnt(s_gnt[R_CORE]),
    .sm_rdata(s_rdata[R_CORE*128 +: 128]),
    .rb_valid(rbc_valid), .rb_we(rbc_we), .rb_addr(rbc_addr), .rb_wdata(rbc_wdata), .rb_be(rbc_be),
    .rb_gnt(rbc_gnt), .rb_rdata(rb_rdata), .rb_err(rb_err));

  // ---- host port ----
  wire        win_imem, ev_host_bad, host_busy;
  wire [31:0] win_base;
  wire        dbl_push;
  wire [`NIC_DOORBELL_HEAD_SRC_PAGE_WIDTH-1:0]   dbl_page;
  wire [`NIC_DOORBELL_HEAD_SRC_OFFSET_WIDTH-1:0] dbl_offset;
  wire [31:0] dbl_data;
  nic_host_port #(.DB_PAGES(DB_PAGES)) u_hp (
    .clk(clk), .rst(rst),
    .host_req_valid(host_req_valid), .host_req_ready(host_req_ready), .host_req_we(host_req_we),
    .host_req_bar(host_req_bar), .host_req_addr(host_req_addr), .host_req_wdata(host_req_wdata),
    .host_req_be(host_req_be), .host_rsp_valid(host_rsp_valid), .host_rsp_rdata(host_rsp_rdata),
    .win_base(win_base), .win_imem(win_imem),
    .rb_valid(rbh_valid), .rb_we(rbh_we), .rb_addr(rbh_addr), .rb_wdata(rbh_wdata), .rb_be(rbh_be),
    .rb_gnt(rbh_gnt), .rb_rdata(rb_rdata), .rb_err(rb_err),
    .sm_valid(s_valid[R_HOST]), .sm_addr(s_addr[R_HOST*32 +: 32]), .sm_we(s_we[R_HOST]),
    .sm_be(s_be[R_HOST*16 +: 16]), .sm_wdata(s_wdata[R_HOST*128 +: 128]), .sm_gnt(s_gnt[R_HOST]),
    .sm_rdata(s_rdata[R_HOST*128 +: 128]),
    .im_valid(imh_valid), .im_we(imh_we), .im_off(imh_off), .im_be(imh_be), .im_wdata(imh_wdata),
    .im_gnt(imh_gnt), .im_rdata(imh_rdata),
    .db_push(dbl_push), .db_page(dbl_page), .db_offset(dbl_offset), .db_data(dbl_data),
    .ev_bad(ev_host_bad), .busy(host_busy));

  // ---- register blocks ----
  nic_hostif u_hostif (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_HOSTIF]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_HOSTIF]),
    .rdata(blk_rdata[B_HOSTIF*32 +: 32]),
    .core_sleeping(core_sleeping), .ev_imem_wr_dropped(ev_imem_drop), .ev_host_bad(ev_host_bad),
    .core_reset(core_reset_ctl), .win_imem(win_imem), .win_base(win_base), .host_irq(host_irq));

  wire ev_dma, ev_mac_rx, ev_mac_tx, ev_doorbell;
  nic_intc u_intc (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_INTC]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_INTC]),
    .rdata(blk_rdata[B_INTC*32 +: 32]),
    .ev_dma(ev_dma), .ev_mac_rx(ev_mac_rx), .ev_mac_tx(ev_mac_tx), .ev_doorbell(ev_doorbell),
    .meip(meip));

  nic_timer u_timer (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_TIMER]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_TIMER]),
    .rdata(blk_rdata[B_TIMER*32 +: 32]),
    .skip_valid(skip_valid), .skip_cycles(skip_cycles), .cycles_to_irq(timer_cycles_to_irq),
    .mtip(mtip), .msip(msip));

  wire dma_idle;
  wire dma_tag_sub, dma_tag_cpl, dma_tag_cpl_err;   // gated TX frames: the DMA engine's tags to the MAC
  wire [7:0] dma_tag_sub_id, dma_tag_cpl_id;
  wire dma_ct_wr;                                    // cut-through of gated TX frames: DMA writes to the MAC
  wire [7:0] dma_ct_tag;
  wire [27:0] dma_ct_word;
  wire [15:0] dma_ct_be;
  nic_dma #(.SRAM_SIZE(SRAM_SIZE), .QDEPTH(DMA_QDEPTH), .INFLIGHT(DMA_INFLIGHT),
            .MAX_BURST(DMA_MAX_BURST), .CPL_DEPTH(DMA_CPL_DEPTH)) u_dma (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_DMA]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_DMA]),
    .rdata(blk_rdata[B_DMA*32 +: 32]),
    .dma_req_valid(dma_req_valid), .dma_req_ready(dma_req_ready), .dma_req_write(dma_req_write),
    .dma_req_addr(dma_req_addr), .dma_req_len(dma_req_len), .dma_req_tag(dma_req_tag),
    .dma_wdata_valid(dma_wdata_valid), .dma_wdata_ready(dma_wdata_ready),
    .dma_wdata_data(dma_wdata_data), .dma_wdata_last(dma_wdata_last),
    .dma_rsp_valid(dma_rsp_valid), .dma_rsp_ready(dma_rsp_ready), .dma_rsp_tag(dma_rsp_tag),
    .dma_rsp_data(dma_rsp_data), .dma_rsp_last(dma_rsp_last), .dma_rsp_err(dma_rsp_err),
    .dma_wack_valid(dma_wack_valid), .dma_wack_tag(dma_wack_tag), .dma_wack_err(dma_wack_err),
    .sw_valid(s_valid[R_DMAW]), .sw_addr(s_addr[R_DMAW*32 +: 32]), .sw_be(s_be[R_DMAW*16 +: 16]),
    .sw_wdata(s_wdata[R_DMAW*128 +: 128]), .sw_gnt(s_gnt[R_DMAW]),
    .sr_valid(s_valid[R_DMAR]), .sr_addr(s_addr[R_DMAR*32 +: 32]), .sr_gnt(s_gnt[R_DMAR]),
    .sr_rsp_valid(s_rsp_valid[R_DMAR]), .sr_rdata(s_rdata[R_DMAR*128 +: 128]),
    .tag_sub(dma_tag_sub), .tag_sub_id(dma_tag_sub_id), .tag_cpl(dma_tag_cpl), .tag_cpl_id(dma_tag_cpl_id),
    .tag_cpl_err(dma_tag_cpl_err), .ct_wr(dma_ct_wr), .ct_tag(dma_ct_tag), .ct_word(dma_ct_word), .ct_be(dma_ct_be),
    .ev_dma(ev_dma), .idle(dma_idle));
  assign s_we[R_DMAW] = 1'b1;
  assign s_we[R_DMAR] = 1'b0;
  assign s_be[R_DMAR*16 +: 16] = 16'd0;
  assign s_wdata[R_DMAR*128 +: 128] = 128'd0;

  wire tx_idle, rx_idle;
  nic_mac #(.SRAM_SIZE(SRAM_SIZE), .W(LINK_W), .RATE(LINK_RATE), .GAP(LINK_GAP), .TXQ_DEPTH(MAC_TXQ),
            .RX_FIFO(MAC_RX_FIFO), .MIN_FRAME(MIN_FRAME), .MAX_FRAME(MAX_FRAME)) u_mac (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_MAC]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_MAC]),
    .rdata(blk_rdata[B_MAC*32 +: 32]),
    .phy_rate(phy_rate), .tx_ct_off(tx_ct_off),
    .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_data(tx_data), .tx_last(tx_last), .tx_bytes(tx_bytes),
    .rx_valid(rx_valid), .rx_data(rx_data), .rx_last(rx_last), .rx_bytes(rx_bytes),
    .st_valid(s_valid[R_TX]), .st_addr(s_addr[R_TX*32 +: 32]), .st_gnt(s_gnt[R_TX]),
    .st_rsp_valid(s_rsp_valid[R_TX]), .st_rdata(s_rdata[R_TX*128 +: 128]),
    .sr_valid(s_valid[R_RX]), .sr_addr(s_addr[R_RX*32 +: 32]), .sr_we(s_we[R_RX]),
    .sr_be(s_be[R_RX*16 +: 16]), .sr_wdata(s_wdata[R_RX*128 +: 128]), .sr_gnt(s_gnt[R_RX]),
    .sr_rsp_valid(s_rsp_valid[R_RX]), .sr_rdata(s_rdata[R_RX*128 +: 128]),
    .dma_sub(dma_tag_sub), .dma_sub_tag(dma_tag_sub_id), .dma_cpl(dma_tag_cpl), .dma_cpl_tag(dma_tag_cpl_id),
    .dma_cpl_err(dma_tag_cpl_err), .ct_wr(dma_ct_wr), .ct_tag(dma_ct_tag), .ct_word(dma_ct_word), .ct_be(dma_ct_be),
    .ev_rx(ev_mac_rx), .ev_tx(ev_mac_tx), .tx_idle(tx_idle), .rx_idle(rx_idle), .rx_urgent(mac_rx_urgent),
    .rx_xoff(rx_xoff));
  assign s_we[R_TX] = 1'b0;
  assign s_be[R_TX*16 +: 16] = 16'd0;
  assign s_wdata[R_TX*128 +: 128] = 128'd0;

  nic_perf u_perf (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_PERF]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_PERF]),
    .rdata(blk_rdata[B_PERF*32 +: 32]),
    .retired(retire_valid && !retire_trap && !core_rst), .sleeping(core_sleeping),
    .sram_conflict(s_conflict), .skip_valid(skip_valid), .skip_cycles(skip_cycles));

  nic_console u_console (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_CONSOLE]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_CONSOLE]),
    .rdata(blk_rdata[B_CONSOLE*32 +: 32]),
    .console_valid(console_valid), .console_char(console_char));

  nic_testmb u_testmb (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_TESTMB]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_TESTMB]),
    .rdata(blk_rdata[B_TESTMB*32 +: 32]),
    .testmb_valid(testmb_valid), .testmb_status(testmb_status), .testmb_value(testmb_value));

  nic_doorbell #(.DEPTH(DB_DEPTH)) u_doorbell (
    .clk(clk), .rst(rst),
    .wr(blk_wr[B_DOORBELL]), .addr(blk_addr), .wdata(blk_wdata), .wmask(blk_wmask), .acc(blk_acc[B_DOORBELL]),
    .rdata(blk_rdata[B_DOORBELL*32 +: 32]),
    .push(dbl_push), .push_page(dbl_page), .push_offset(dbl_offset), .push_data(dbl_data),
    .ev_doorbell(ev_doorbell));

  // ---- harness: idle ----
  // The core waits in wfi and nothing else can change state by itself: no DMA request queued or
  // in flight, no TX frame queued or being sent, no RX frame arriving or being stored, no host
  // read response due. (Doorbells or completions waiting for the firmware do not count: with
  // the core asleep they stay as they are.) The core is quiescent too (its fetch queue full,
  // nothing outstanding, the divider idle) and the MAC's transmit pacing credit full, so that
  // no state but the counters a skip advances (mtime, mcycle, the perf cycle counters) changes
  // in an idle cycle: skipping or not evaluating one is exact (docs/simulation-speed.md).
  // No event pulse is on its way to the interrupt controller either (it would wake the core).
  // Written as nested conditions (the same value): the simulator then tests the core first and
  // skips the rest while it is awake, instead of evaluating the whole conjunction every cycle
  // (simulation speed, docs/simulation-speed.md).
  reg idle_r;
  always @* begin
    idle_r = 1'b0;
    if (core_sleeping && !host_req_valid)
      idle_r = core_quiet && !(ev_dma || ev_mac_rx || ev_mac_tx || ev_doorbell) &&
               dma_idle && tx_idle && rx_idle && !host_busy;
  end
  assign idle = idle_r;
endmodule
`default_nettype wire
