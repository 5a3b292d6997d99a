// nic_fifo: synchronous first-word-fall-through FIFO (valid/ready on both sides).
//
// Role: the queues of the DMA engine, the MAC and the doorbells. DEPTH must be a power of two;
// `count` is exact (0..DEPTH). A push while full or a pop while empty is ignored; the owner
// decides what a refused push means (every owner counts it).
`default_nettype none
module nic_fifo #(
  parameter integer W     = 32,
  parameter integer DEPTH = 8
) (
  input  wire                     clk,
  input  wire                     rst,
  // write side
  input  wire                     push,
  input  wire [W-1:0]             wdata,
  output wire                     full,
  // read side (rdata is the head while !empty)
  input  wire                     pop,
  output wire [W-1:0]             rdata,
  output wire                     empty,
  output reg  [$clog2(DEPTH):0]   count
);
  localparam integer AW = $clog2(DEPTH);
  initial begin
    if (DEPTH < 2 || (1 << AW) != DEPTH) begin
      $display("nic_fifo: DEPTH (%0d) must be a power of two >= 2", DEPTH);
      $finish;
    end
    if (W < 1) begin
      $display("nic_fifo: W must be >= 1");
      $finish;
    end
  end

  reg [W-1:0]  mem [0:DEPTH-1];
  reg [AW-1:0] wp, rp;
  assign full  = count[AW];
  assign empty = (count == 0);
  assign rdata = mem[rp];

  wire do_push = push && !full;
  wire do_pop  = pop && !empty;

  always @(posedge clk) begin
    if (do_push) mem[wp] <= wdata;
  end

  always @(posedge clk) begin
    if (rst) begin
      wp <= {AW{1'b0}};
      rp <= {AW{1'b0}};
      count <= {(AW+1){1'b0}};
    end else begin
      if (do_push) wp <= wp + 1'b1;
      if (do_pop)  rp <= rp + 1'b1;
      // (a push and a pop in the same cycle leave it; written as a test of that first, so the
      // simulator does nothing in the common cycle without either: simulation speed)
      if (do_push != do_pop) count <= do_push ? count + 1'b1 : count - 1'b1;
    end
  end
endmodule
`default_nettype wire
