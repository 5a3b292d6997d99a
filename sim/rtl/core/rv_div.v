// rv_div: iterative radix-64 divider for DIV/DIVU/REM/REMU (execute stage).
// Contract: pulse `start` (ignored while busy or done) with operands; `done`
// rises after the iterations the dividend needs and holds `result` until
// `ack` (the instruction leaves execute) or `kill` (pipeline flush).
// Timing: the dividend magnitude is split into six 6-bit chunks (36 bits, the
// top 4 zero); only the chunks from the highest non-zero one down are
// iterated, one chunk per cycle, so `done` rises 1-6 cycles after `start`
// (1 cycle for divide by zero): the divide occupies execute for at most 8
// cycles (start, <= 6 iterations, the cycle it leaves), 4 for a dividend
// below 2^12. One iteration is three chained radix-4 restoring steps, each
// comparing the shifted remainder with d, 2d and 3d in parallel (3d is
// computed once at start), so the per-cycle path is three adder delays.
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

  // chunks of the 36-bit dividend {4'b0, a_mag}: chunk 5 = a_mag[31:30], chunk k<5 = a_mag[6k+5:6k].
  // Returns {iterations needed (1..6), dividend shifted so its highest non-zero chunk is on top}.
  // A function called at start (not logic evaluated every cycle: simulation speed).
  function [38:0] prep(input [31:0] m);
    reg [5:0] nz;
    begin
      nz = {|m[31:30], |m[29:24], |m[23:18], |m[17:12], |m[11:6], |m[5:0]};
      casez (nz)
        6'b1?????: prep = {3'd6, 4'd0, m};
        6'b01????: prep = {3'd5, m[29:0], 6'd0};
        6'b001???: prep = {3'd4, m[23:0], 12'd0};
        6'b0001??: prep = {3'd3, m[17:0], 18'd0};
        6'b00001?: prep = {3'd2, m[11:0], 24'd0};
        default:   prep = {3'd1, m[5:0], 30'd0};
      endcase
    end
  endfunction

  reg  [35:0] quo;       // dividend shifts out at the top, quotient shifts in at the bottom
  reg  [31:0] rem;       // always < dvs
  reg  [31:0] dvs;
  reg  [33:0] dvs3;      // 3 * dvs
  reg  [2:0]  count;
  reg         want_rem, neg_q, neg_r;

  // one radix-4 restoring step: r4 = rem*4 + 2 dividend bits; subtract the largest of 3d, 2d, d that fits
  // returns {quotient digit, new remainder (34 bits, the top 2 are 0)}
  function automatic [35:0] step4(input [31:0] r, input [1:0] bits, input [31:0] d, input [33:0] d3);
    reg [34:0] r4, t1, t2, t3;
    begin
      r4 = {1'b0, r, bits};
      t3 = r4 - {1'b0, d3};
      t2 = r4 - {2'b0, d, 1'b0};
      t1 = r4 - {3'b0, d};
      if (!t3[34])      step4 = {2'd3, t3[33:0]};
      else if (!t2[34]) step4 = {2'd2, t2[33:0]};
      else if (!t1[34]) step4 = {2'd1, t1[33:0]};
      else              step4 = {2'd0, r4[33:0]};
    end
  endfunction

  // one iteration: three chained steps on the top 6 bits of quo; returns {quo shifted with the 3
  // quotient digits in, new remainder}. A function called in the busy branch of the clocked block
  // below, so it is evaluated only in the cycles that iterate (simulation speed).
  function automatic [67:0] iter3(input [35:0] q, input [31:0] r, input [31:0] d, input [33:0] d3);
    // lint_off: bits 33:32 of each step's remainder are always 0 (the remainder is < d)
    /* verilator lint_off UNUSEDSIGNAL */
    reg [35:0] s1, s2, s3;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
      s1 = step4(r,         q[35:34], d, d3);
      s2 = step4(s1[31:0],  q[33:32], d, d3);
      s3 = step4(s2[31:0],  q[31:30], d, d3);
      iter3 = {q[29:0], s1[35:34], s2[35:34], s3[35:34], s3[31:0]};
    end
  endfunction

  // the quotient fits in 32 bits (bits 35:32 of quo are 0 when done)
  wire [31:0] q_out = neg_q ? (~quo[31:0] + 32'd1) : quo[31:0];
  wire [31:0] r_out = neg_r ? (~rem + 32'd1) : rem;
  assign result = want_rem ? r_out : q_out;

  always @(posedge clk) begin
    if (rst || kill) begin
      busy <= 1'b0;
      done <= 1'b0;
    end else if (done) begin
      if (ack) done <= 1'b0;
    end else if (busy) begin
      {quo, rem} <= iter3(quo, rem, dvs, dvs3);
      count <= count - 3'd1;
      if (count == 3'd1) begin
        busy <= 1'b0;
        done <= 1'b1;
      end
    end else if (start) begin
      want_rem <= op[1];
      if (b == 32'd0) begin
        // quotient all ones, remainder = dividend, no sign fix-up
        quo <= {4'd0, 32'hFFFF_FFFF};
        rem <= a;
        neg_q <= 1'b0;
        neg_r <= 1'b0;
        done <= 1'b1;
      end else begin
        {count, quo} <= prep(a_mag);
        rem   <= 32'd0;
        dvs   <= b_mag;
        dvs3  <= {2'b0, b_mag} + {1'b0, b_mag, 1'b0};
        neg_q <= a_neg ^ b_neg;
        neg_r <= a_neg;
        busy  <= 1'b1;
      end
    end
  end
endmodule
`default_nettype wire
