// rv_regfile: 31 x 32-bit integer registers (x0 reads zero), two read ports
// read in decode, one write port written from writeback. A read of the register
// being written in the same cycle returns the new value (write-first bypass).
`default_nettype none
module rv_regfile (
  input  wire        clk,
  // read ports (combinational)
  input  wire [4:0]  ra1,
  output wire [31:0] rd1,
  input  wire [4:0]  ra2,
  output wire [31:0] rd2,
  // write port
  input  wire        we,
  input  wire [4:0]  wa,
  input  wire [31:0] wd
);
  // public: the simulators' debug backdoor (GDB register access while the core is halted)
  reg [31:0] regs [1:31] /*verilator public_flat_rw*/;
  wire wr = we && wa != 5'd0;
  always @(posedge clk) if (wr) regs[wa] <= wd;
  assign rd1 = ra1 == 5'd0 ? 32'd0 : (wr && wa == ra1) ? wd : regs[ra1];
  assign rd2 = ra2 == 5'd0 ? 32'd0 : (wr && wa == ra2) ? wd : regs[ra2];
endmodule
`default_nettype wire
