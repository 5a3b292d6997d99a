// rv_div: iterative radix-2 divider for DIV/DIVU/REM/REMU (execute stage).
// Contract: pulse `start` (ignored while busy or done) with operands; `done`
// rises 33 cycles later (1 cycle for divide by zero) and holds `result` until
// `ack` (the instruction leaves execute) or `kill` (pipeline flush).
// Spec corner cases fall out of the magnitude algorithm: x/0 -> -1 (all ones),
// x%0 -> x, INT_MIN/-1 -> INT_MIN, INT_MIN%-1 -> 0.
`default_nettype none
module rv_div (
  input  wire        clk,
  input  wire        rst,
  // control
  input  wire        start,
  input  wire        kill,
  input  wire        ack,
  input  wire [1:0]  op,     // funct3[1:0]: 0 div, 1 divu, 2 rem, 3 remu
  input  wire [31:0] a,
  input  wire [31:0] b,
  // status
  output reg         busy,
  output reg         done,
  output wire [31:0] result
);
  wire        is_signed = !op[0];
  wire        a_neg = is_signed && a[31];
  wire        b_neg = is_signed && b[31];
  wire [31:0] a_mag = a_neg ? (~a + 32'd1) : a;
  wire [31:0] b_mag = b_neg ? (~b + 32'd1) : b;

  reg  [31:0] quo;       // dividend shifts out, quotient shifts in
  reg  [31:0] rem;
  reg  [31:0] dvs;
  reg  [5:0]  count;
  reg         want_rem, neg_q, neg_r;

  wire [32:0] trial = {rem, quo[31]} - {1'b0, dvs};
  wire [31:0] q_out = neg_q ? (~quo + 32'd1) : quo;
  wire [31:0] r_out = neg_r ? (~rem + 32'd1) : rem;
  assign result = want_rem ? r_out : q_out;

  always @(posedge clk) begin
    if (rst || kill) begin
      busy <= 1'b0;
      done <= 1'b0;
    end else if (done) begin
      if (ack) done <= 1'b0;
    end else if (busy) begin
      if (trial[32]) begin
        rem <= {rem[30:0], quo[31]};
        quo <= {quo[30:0], 1'b0};
      end else begin
        rem <= trial[31:0];
        quo <= {quo[30:0], 1'b1};
      end
      count <= count - 6'd1;
      if (count == 6'd1) begin
        busy <= 1'b0;
        done <= 1'b1;
      end
    end else if (start) begin
      want_rem <= op[1];
      if (b == 32'd0) begin
        // quotient all ones, remainder = dividend, no sign fix-up
        quo <= 32'hFFFF_FFFF;
        rem <= a;
        neg_q <= 1'b0;
        neg_r <= 1'b0;
        done <= 1'b1;
      end else begin
        quo <= a_mag;
        rem <= 32'd0;
        dvs <= b_mag;
        neg_q <= a_neg ^ b_neg;
        neg_r <= a_neg;
        count <= 6'd32;
        busy <= 1'b1;
      end
    end
  end
endmodule
`default_nettype wire
