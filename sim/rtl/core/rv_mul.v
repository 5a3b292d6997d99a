// rv_mul: two-stage 33x33 signed multiplier for MUL/MULH/MULHSU/MULHU.
// Stage 1 (execute): four 17x17 partial products, summed into the 64-bit product,
// registered when `en` (the instruction leaves execute). Stage 2 (memory): the
// product is read. Result latency: one pipeline stage,
// so a dependent instruction waits one cycle (same as a load).
`default_nettype none
module rv_mul (
  input  wire        clk,
  // stage 1
  input  wire        en,
  input  wire [31:0] a,
  input  wire [31:0] b,
  input  wire        a_signed,
  input  wire        b_signed,
  // stage 2
  output wire [63:0] product
);
  // A = Ah * 2^16 + Al with Al unsigned 16 bits and Ah signed 17 bits; the same for B. The four
  // 17x17 partial products are formed and summed when `en` and the 64-bit product is registered:
  // the same value in every cycle as registering the partial products and summing them after the
  // register, but the simulator evaluates the multiply only in the cycles with `en` instead of
  // the sum in every cycle (simulation speed, docs/simulation-speed.md).
  function [63:0] mul33(input [31:0] x, input [31:0] y, input xs, input ys);
    reg signed [16:0] ah, bh, al, bl;
    reg signed [33:0] p_ll, p_lh, p_hl, p_hh;
    begin
      ah = {xs & x[31], x[31:16]};
      bh = {ys & y[31], y[31:16]};
      al = {1'b0, x[15:0]};
      bl = {1'b0, y[15:0]};
      p_ll = al * bl;
      p_lh = al * bh;
      p_hl = ah * bl;
      p_hh = ah * bh;
      mul33 = {{30{p_ll[33]}}, p_ll} + ({{30{p_lh[33]}}, p_lh} << 16) + ({{30{p_hl[33]}}, p_hl} << 16) +
              ({{30{p_hh[33]}}, p_hh} << 32);
    end
  endfunction

  reg [63:0] p;
  always @(posedge clk) begin
    if (en) p <= mul33(a, b, a_signed, b_signed);
  end
  assign product = p;
endmodule
`default_nettype wire
