// rv_btb: direct-mapped branch target buffer with 2-bit counters, and a
// return-address stack.
// Lookup (fetch): combinational on the fetch pc. Update (execute): when a
// control-flow instruction resolves. Partial tags may alias; the execute stage
// checks every predicted next-pc, so aliasing only costs a misprediction.
// Each entry records the kind of the instruction: conditional branch (taken
// when the counter says so), jump (jal/jalr: the last target), call (jal/jalr
// with rd = ra or t0: the last target, and pc+4 is pushed on the stack) or
// return (jalr with rs1 = ra or t0, rd not a link register: the target is the
// top of the stack, which is popped).
// Return-address stack: two copies of a RAS_DEPTH-entry circular stack. The
// fetch copy is updated speculatively when a fetch request predicted as a
// call or return is accepted; the execute copy when a call or return leaves
// execute (it is never wrong: what leaves execute without an exception
// commits). On every redirect (misprediction, trap, mret, fence.i) the fetch
// copy is reloaded from the execute copy, including the update of the
// instruction leaving execute in that cycle. Deeper recursion than RAS_DEPTH
// overwrites the oldest entries: those returns mispredict (2 bubbles each).
`default_nettype none
module rv_btb #(
  parameter IDX_BITS  = 8,
  parameter TAG_BITS  = 12,
  parameter RAS_LOG2  = 3        // stack depth 2**RAS_LOG2
) (
  input  wire        clk,
  input  wire        rst,
  // lookup (fetch)
  input  wire [31:0] f_pc,
  output wire        f_taken,
  output wire [31:0] f_target,
  input  wire        f_fire,       // the fetch request at f_pc is accepted (and not redirected)
  input  wire        redirect,     // fetch redirect: reload the fetch stack
  // update (execute)
  input  wire        u_valid,
  input  wire [31:0] u_pc,
  input  wire        u_is_cond,    // conditional branch
  input  wire        u_is_jump,    // jal / jalr
  input  wire        u_is_call,    // jal / jalr with a link rd (also u_is_jump)
  input  wire        u_is_ret,     // jalr with a link rs1, rd not a link (also u_is_jump)
  input  wire        u_taken,
  input  wire [31:0] u_target,
  input  wire [31:0] u_link,       // pc + 4 of the updating instruction
  input  wire        u_invalidate  // non-branch predicted taken: drop entry
);
  localparam N = 1 << IDX_BITS;
  localparam R = 1 << RAS_LOG2;
  localparam [1:0] K_COND = 2'd0, K_JUMP = 2'd1, K_CALL = 2'd2, K_RET = 2'd3;
  initial begin
    if (IDX_BITS < 1 || IDX_BITS + TAG_BITS > 30 || RAS_LOG2 < 1 || RAS_LOG2 > 5) begin
      $display("rv_btb: bad IDX_BITS/TAG_BITS/RAS_LOG2");
      $finish;
    end
  end

  reg [N-1:0]        valid;
  reg [1:0]          kind   [0:N-1];
  reg [TAG_BITS-1:0] tag    [0:N-1];
  reg [29:0]         target [0:N-1];
  reg [1:0]          ctr    [0:N-1];

  // return-address stacks (word addresses), fetch and execute copies
  reg [29:0]         fras [0:R-1];
  reg [29:0]         eras [0:R-1];
  reg [RAS_LOG2-1:0] fsp, esp;       // index of the top entry

  wire [IDX_BITS-1:0] f_idx = f_pc[IDX_BITS+1:2];
  wire [TAG_BITS-1:0] f_tag = f_pc[IDX_BITS+TAG_BITS+1:IDX_BITS+2];
  wire       f_hit  = valid[f_idx] && tag[f_idx] == f_tag;
  wire [1:0] f_kind = kind[f_idx];
  assign f_taken  = f_hit && (f_kind != K_COND || ctr[f_idx][1]);
  assign f_target = f_kind == K_RET ? {fras[fsp], 2'b00} : {target[f_idx], 2'b00};
  wire f_push = f_fire && f_hit && f_kind == K_CALL;
  wire f_pop  = f_fire && f_hit && f_kind == K_RET;
  wire [29:0] f_link = f_pc[31:2] + 30'd1;

  wire [IDX_BITS-1:0] u_idx = u_pc[IDX_BITS+1:2];
  wire [TAG_BITS-1:0] u_tag = u_pc[IDX_BITS+TAG_BITS+1:IDX_BITS+2];
  wire u_hit = valid[u_idx] && tag[u_idx] == u_tag;
  wire [1:0] c = ctr[u_idx];
  // pc bits above the tag and below the index are not needed (partial tags)
  wire unused_bits = ^{f_pc[1:0], u_pc[31:IDX_BITS+TAG_BITS+2], u_pc[1:0], u_target[1:0], u_link[1:0]};
  wire [1:0] c_inc = c == 2'd3 ? 2'd3 : c + 2'd1;
  wire [1:0] c_dec = c == 2'd0 ? 2'd0 : c - 2'd1;
  wire [1:0] u_kind = u_is_call ? K_CALL : u_is_ret ? K_RET : K_JUMP;

  always @(posedge clk) begin
    if (rst) begin
      valid <= {N{1'b0}};
    end else if (u_valid) begin
      if (u_invalidate) begin
        if (u_hit) valid[u_idx] <= 1'b0;
      end else if (u_is_jump) begin
        valid[u_idx]  <= 1'b1;
        kind[u_idx]   <= u_kind;
        tag[u_idx]    <= u_tag;
        target[u_idx] <= u_target[31:2];
        ctr[u_idx]    <= 2'd3;
      end else if (u_is_cond) begin
        if (u_hit && kind[u_idx] == K_COND) begin
          ctr[u_idx] <= u_taken ? c_inc : c_dec;
          if (u_taken) target[u_idx] <= u_target[31:2];
        end else if (u_taken) begin
          valid[u_idx]  <= 1'b1;
          kind[u_idx]   <= K_COND;
          tag[u_idx]    <= u_tag;
          target[u_idx] <= u_target[31:2];
          ctr[u_idx]    <= 2'd2;
        end
      end
    end
  end

  // execute copy: the architectural call/return sequence
  wire                e_push = u_valid && u_is_call;
  wire                e_pop  = u_valid && u_is_ret;
  wire [RAS_LOG2-1:0] esp_next = e_push ? esp + 1'b1 : e_pop ? esp - 1'b1 : esp;
  integer i;
  always @(posedge clk) begin
    if (rst) begin
      esp <= {RAS_LOG2{1'b0}};
      fsp <= {RAS_LOG2{1'b0}};
    end else begin
      esp <= esp_next;
      if (e_push) eras[esp_next] <= u_link[31:2];
      if (redirect) begin
        fsp <= esp_next;
        for (i = 0; i < R; i = i + 1)
          fras[i] <= (e_push && esp_next == i[RAS_LOG2-1:0]) ? u_link[31:2] : eras[i];
      end else if (f_push) begin
        fsp <= fsp + 1'b1;
        fras[fsp + 1'b1] <= f_link;
      end else if (f_pop) begin
        fsp <= fsp - 1'b1;
      end
    end
  end
endmodule
`default_nettype wire
