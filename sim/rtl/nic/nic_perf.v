// nic_perf: free-running 32-bit performance counters (they wrap): cycles, instructions retired
// (retire_valid && !retire_trap from the core), cycles asleep in wfi, SRAM conflict cycles.
// A harness skip (see nic_timer) adds skip_cycles to `cycles`, and to `sleep_cycles` when the
// core sleeps (it always does when the harness skips: nic_top's `idle` requires it).
`default_nettype none
`include "nic_regs.vh"
module nic_perf (
  input  wire        clk,
  input  wire        rst,
  // register access (all registers read-only)
  // lint_off: the register port every block has; perf registers are read-only: writes are ignored
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire        wr,
  input  wire [31:0] wdata,
  input  wire [31:0] wmask,
  input  wire        acc,   // register access: rdata <= the register at addr
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [11:0] addr,
  output reg  [31:0] rdata,
  // events
  input  wire        retired,
  input  wire        sleeping,
  input  wire        sram_conflict,
  input  wire        skip_valid,
  input  wire [31:0] skip_cycles
);
  reg [31:0] cycles, instret, sleep_cycles, sram_conflicts;
  wire [31:0] skip = skip_valid ? skip_cycles : 32'd0;

  always @(posedge clk) begin
    if (rst) begin
      cycles         <= `NIC_PERF_CYCLES_RESET;
      instret        <= `NIC_PERF_INSTRET_RESET;
      sleep_cycles   <= `NIC_PERF_SLEEP_CYCLES_RESET;
      sram_conflicts <= `NIC_PERF_SRAM_CONFLICTS_RESET;
    end else begin
      cycles <= cycles + 32'd1 + skip;
      if (retired) instret <= instret + 32'd1;
      if (sleeping) sleep_cycles <= sleep_cycles + 32'd1 + skip;
      if (sram_conflict) sram_conflicts <= sram_conflicts + 32'd1;
    end
  end

  // read data, registered at an access (nic_regbus returns it the cycle after the grant)
  always @(posedge clk) begin
    if (acc) begin
      case (addr)
        `NIC_PERF_ID:             rdata <= `NIC_PERF_ID_VALUE;
        `NIC_PERF_VERSION:        rdata <= `NIC_PERF_VERSION_VALUE;
        `NIC_PERF_CYCLES:         rdata <= cycles;
        `NIC_PERF_INSTRET:        rdata <= instret;
        `NIC_PERF_SLEEP_CYCLES:   rdata <= sleep_cycles;
        `NIC_PERF_SRAM_CONFLICTS: rdata <= sram_conflicts;
        default:                  rdata <= 32'd0;
      endcase
    end
  end
endmodule
`default_nettype wire
