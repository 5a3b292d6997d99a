// rv_btb: direct-mapped branch target buffer with 2-bit counters.
// Lookup (fetch): combinational on the fetch pc. Update (execute): when a
// control-flow instruction resolves. Partial tags may alias; the execute stage
// checks every predicted next-pc, so aliasing only costs a misprediction.
`default_nettype none
module rv_btb #(
  parameter IDX_BITS = 5,
  parameter TAG_BITS = 12
) (
  input  wire        clk,
  input  wire        rst,
  // lookup (fetch)
  input  wire [31:0] f_pc,
  output wire        f_taken,
  output wire [31:0] f_target,
  // update (execute)
  input  wire        u_valid,
  input  wire [31:0] u_pc,
  input  wire        u_is_cond,    // conditional branch
  input  wire        u_is_jump,    // jal / jalr
  input  wire        u_taken,
  input  wire [31:0] u_target,
  input  wire        u_invalidate  // non-branch predicted taken: drop entry
);
  localparam N = 1 << IDX_BITS;
  initial begin
    if (IDX_BITS < 1 || IDX_BITS + TAG_BITS > 30) begin
      $display("rv_btb: bad IDX_BITS/TAG_BITS");
      $finish;
    end
  end

  reg [N-1:0]        valid;
  reg [N-1:0]        jump;
  reg [TAG_BITS-1:0] tag    [0:N-1];
  reg [29:0]         target [0:N-1];
  reg [1:0]          ctr    [0:N-1];

  wire [IDX_BITS-1:0] f_idx = f_pc[IDX_BITS+1:2];
  wire [TAG_BITS-1:0] f_tag = f_pc[IDX_BITS+TAG_BITS+1:IDX_BITS+2];
  wire f_hit = valid[f_idx] && tag[f_idx] == f_tag;
  assign f_taken  = f_hit && (jump[f_idx] || ctr[f_idx][1]);
  assign f_target = {target[f_idx], 2'b00};

  wire [IDX_BITS-1:0] u_idx = u_pc[IDX_BITS+1:2];
  wire [TAG_BITS-1:0] u_tag = u_pc[IDX_BITS+TAG_BITS+1:IDX_BITS+2];
  wire u_hit = valid[u_idx] && tag[u_idx] == u_tag;
  wire [1:0] c = ctr[u_idx];
  // pc bits above the tag and below the index are not needed (partial tags)
  wire unused_bits = ^{f_pc[31:IDX_BITS+TAG_BITS+2], f_pc[1:0],
                       u_pc[31:IDX_BITS+TAG_BITS+2], u_pc[1:0], u_target[1:0]};
  wire [1:0] c_inc = c == 2'd3 ? 2'd3 : c + 2'd1;
  wire [1:0] c_dec = c == 2'd0 ? 2'd0 : c - 2'd1;

  always @(posedge clk) begin
    if (rst) begin
      valid <= {N{1'b0}};
    end else if (u_valid) begin
      if (u_invalidate) begin
        if (u_hit) valid[u_idx] <= 1'b0;
      end else if (u_is_jump) begin
        valid[u_idx]  <= 1'b1;
        jump[u_idx]   <= 1'b1;
        tag[u_idx]    <= u_tag;
        target[u_idx] <= u_target[31:2];
        ctr[u_idx]    <= 2'd3;
      end else if (u_is_cond) begin
        if (u_hit && !jump[u_idx]) begin
          ctr[u_idx] <= u_taken ? c_inc : c_dec;
          if (u_taken) target[u_idx] <= u_target[31:2];
        end else if (u_taken) begin
          valid[u_idx]  <= 1'b1;
          jump[u_idx]   <= 1'b0;
          tag[u_idx]    <= u_tag;
          target[u_idx] <= u_target[31:2];
          ctr[u_idx]    <= 2'd2;
        end
      end
    end
  end
endmodule
`default_nettype wire
