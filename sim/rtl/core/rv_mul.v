// rv_mul: two-stage 33x33 signed multiplier for MUL/MULH/MULHSU/MULHU.
// Stage 1 (execute): four 17x17 partial products are registered when `en`
// (the instruction leaves execute). Stage 2 (memory): they are summed
// combinationally into the 64-bit product. Result latency: one pipeline stage,
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
  // A = Ah * 2^16 + Al with Al unsigned 16 bits and Ah signed 17 bits.
  wire signed [16:0] ah = {a_signed & a[31], a[31:16]};
  wire signed [16:0] bh = {b_signed & b[31], b[31:16]};
  wire signed [16:0] al = {1'b0, a[15:0]};
  wire signed [16:0] bl = {1'b0, b[15:0]};

  reg signed [33:0] p_ll, p_lh, p_hl, p_hh;
  always @(posedge clk) begin
    if (en) begin
      p_ll <= al * bl;
      p_lh <= al * bh;
      p_hl <= ah * bl;
      p_hh <= ah * bh;
    end
  end

  wire [63:0] e_ll = {{30{p_ll[33]}}, p_ll};
  wire [63:0] e_lh = {{30{p_lh[33]}}, p_lh};
  wire [63:0] e_hl = {{30{p_hl[33]}}, p_hl};
  wire [63:0] e_hh = {{30{p_hh[33]}}, p_hh};
  assign product = e_ll + (e_lh << 16) + (e_hl << 16) + (e_hh << 32);
endmodule
`default_nettype wire
