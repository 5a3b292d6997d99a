// rv_alu: combinational integer ALU for RV32I (execute stage).
`default_nettype none
module rv_alu (
  input  wire [3:0]  op,   // 0 add,1 sub,2 sll,3 slt,4 sltu,5 xor,6 srl,7 sra,8 or,9 and
  input  wire [31:0] a,
  input  wire [31:0] b,
  output reg  [31:0] y
);
  wire [32:0] diff = {1'b0, a} - {1'b0, b};
  wire        lt_u = diff[32];
  wire        lt_s = (a[31] != b[31]) ? a[31] : diff[32];
  wire [4:0]  sh   = b[4:0];
  always @* begin
    case (op)
      4'd0:    y = a + b;
      4'd1:    y = diff[31:0];
      4'd2:    y = a << sh;
      4'd3:    y = {31'd0, lt_s};
      4'd4:    y = {31'd0, lt_u};
      4'd5:    y = a ^ b;
      4'd6:    y = a >> sh;
      4'd7:    y = $unsigned($signed(a) >>> sh);
      4'd8:    y = a | b;
      default: y = a & b;
    endcase
  end
endmodule
`default_nettype wire
