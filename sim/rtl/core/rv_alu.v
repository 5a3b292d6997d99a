// rv_alu: combinational integer ALU for RV32I + Zba + Zbb (execute stage).
// Zba/Zbb (the ratified bit-manipulation subsets; docs/core.md "ISA"): address generation
// (shNadd), logic with negate, min/max, rotates, bit counts, sign/zero extension, byte reversal.
// Each operation is a branch of the case, so a simulation evaluates only the selected one.
`default_nettype none
module rv_alu (
  input  wire [4:0]  op,   // see the localparams (rv_decode uses the same codes)
  input  wire [31:0] a,
  input  wire [31:0] b,
  output reg  [31:0] y
);
  localparam [4:0] ADD = 5'd0, SUB = 5'd1, SLL = 5'd2, SLT = 5'd3, SLTU = 5'd4, XOR = 5'd5,
                   SRL = 5'd6, SRA = 5'd7, OR = 5'd8, AND = 5'd9,
                   SH1ADD = 5'd10, SH2ADD = 5'd11, SH3ADD = 5'd12, ANDN = 5'd13, ORN = 5'd14,
                   XNOR = 5'd15, CLZ = 5'd16, CTZ = 5'd17, CPOP = 5'd18, SEXTB = 5'd19,
                   SEXTH = 5'd20, ZEXTH = 5'd21, MIN = 5'd22, MAX = 5'd23, MINU = 5'd24,
                   MAXU = 5'd25, ROL = 5'd26, ROR = 5'd27, ORCB = 5'd28, REV8 = 5'd29;
  wire [32:0] diff = {1'b0, a} - {1'b0, b};
  wire        lt_u = diff[32];
  wire        lt_s = (a[31] != b[31]) ? a[31] : diff[32];
  wire [4:0]  sh   = b[4:0];
  wire [5:0]  rsh  = 6'd32 - {1'b0, sh};  // the rotates' other shift (32 when sh is 0: no bits)
  integer     i;
  reg         seen;
  always @* begin
    seen = 1'b0;
    case (op)
      ADD:     y = a + b;
      SUB:     y = diff[31:0];
      SLL:     y = a << sh;
      SLT:     y = {31'd0, lt_s};
      SLTU:    y = {31'd0, lt_u};
      XOR:     y = a ^ b;
      SRL:     y = a >> sh;
      SRA:     y = $unsigned($signed(a) >>> sh);
      OR:      y = a | b;
      SH1ADD:  y = {a[30:0], 1'b0} + b;
      SH2ADD:  y = {a[29:0], 2'b0} + b;
      SH3ADD:  y = {a[28:0], 3'b0} + b;
      ANDN:    y = a & ~b;
      ORN:     y = a | ~b;
      XNOR:    y = ~(a ^ b);
      CLZ: begin  // leading zeros (32 for 0)
        y = 32'd0;
        for (i = 31; i >= 0; i = i - 1) begin
          if (a[i]) seen = 1'b1;
          if (!seen) y = y + 32'd1;
        end
      end
      CTZ: begin  // trailing zeros (32 for 0)
        y = 32'd0;
        for (i = 0; i < 32; i = i + 1) begin
          if (a[i]) seen = 1'b1;
          if (!seen) y = y + 32'd1;
        end
      end
      CPOP: begin
        y = 32'd0;
        for (i = 0; i < 32; i = i + 1) y = y + {31'd0, a[i]};
      end
      SEXTB:   y = {{24{a[7]}}, a[7:0]};
      SEXTH:   y = {{16{a[15]}}, a[15:0]};
      ZEXTH:   y = {16'd0, a[15:0]};
      MIN:     y = lt_s ? a : b;
      MAX:     y = lt_s ? b : a;
      MINU:    y = lt_u ? a : b;
      MAXU:    y = lt_u ? b : a;
      ROL:     y = (a << sh) | (a >> rsh);
      ROR:     y = (a >> sh) | (a << rsh);
      ORCB:    y = {{8{|a[31:24]}}, {8{|a[23:16]}}, {8{|a[15:8]}}, {8{|a[7:0]}}};
      REV8:    y = {a[7:0], a[15:8], a[23:16], a[31:24]};
      AND:     y = a & b;
      default: y = 32'd0;    // (codes 30, 31: never decoded)
    endcase
  end
endmodule
`default_nettype wire
