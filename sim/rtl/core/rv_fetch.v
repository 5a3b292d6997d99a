// rv_fetch: instruction fetch unit.
// Role: issues one instruction request per cycle (pipelined memory), follows
// the BTB prediction, and keeps a small in-order queue of fetched words for
// decode. A queue slot is allocated when a request is accepted, so a response
// always has room (the bus has no response back-pressure). On a redirect the
// queue is emptied and responses still in flight are counted and dropped.
// A response for the queue head is bypassed straight to decode.
`default_nettype none
module rv_fetch #(
  parameter [31:0] RESET_VECTOR = 32'h0000_0000,
  parameter        QLOG2 = 2                    // queue depth = 2**QLOG2 (>= 2 for 1 IPC)
) (
  input  wire        clk,
  input  wire        rst,
  // redirect (trap, mret, misprediction, fence.i)
  input  wire        redirect_valid,
  input  wire [31:0] redirect_pc,
  // branch prediction for the fetch pc
  output wire [31:0] pred_pc,
  input  wire        pred_taken,
  input  wire [31:0] pred_target,
  output wire        pred_fire,     // the request at pred_pc is accepted and kept (follows the prediction)
  // instruction bus
  output wire        ibus_req_valid,
  input  wire        ibus_req_ready,
  output wire [31:0] ibus_req_addr,
  input  wire        ibus_rsp_valid,
  input  wire [31:0] ibus_rsp_rdata,
  input  wire        ibus_rsp_err,
  // to decode
  output wire        d_valid,
  output wire [31:0] d_pc,
  output wire [31:0] d_insn,
  output wire        d_err,
  output wire [31:0] d_pred_npc,
  input  wire        d_ready,
  // nothing to do until decode takes a word or a redirect comes: the queue is full and no
  // request is outstanding (the harness's idle test, rv_core `quiescent`)
  output wire        quiet
);
  localparam DEPTH = 1 << QLOG2;
  initial begin
    if (QLOG2 < 1 || QLOG2 > 4) begin
      $display("rv_fetch: QLOG2 must be 1..4");
      $finish;
    end
  end

  reg [31:0]      pc_f;
  reg [31:0]      q_pc   [0:DEPTH-1];
  reg [31:0]      q_npc  [0:DEPTH-1];
  reg [31:0]      q_insn [0:DEPTH-1];
  reg [DEPTH-1:0] q_err;
  reg [DEPTH-1:0] q_done;
  reg [QLOG2-1:0] head, tail, rptr;
  reg [QLOG2:0]   count;     // allocated slots
  reg [QLOG2:0]   discard;   // stale responses still to arrive

  wire [31:0] next_pc = pred_taken ? pred_target : pc_f + 32'd4;
  assign pred_pc = pc_f;

  assign ibus_req_valid = !rst && ({1'b0, count} + {1'b0, discard}) < DEPTH;
  assign ibus_req_addr  = pc_f;
  wire req_fire = ibus_req_valid && ibus_req_ready;
  assign pred_fire = req_fire && !redirect_valid;
  wire rsp_live = ibus_rsp_valid && discard == 0;

  wire head_done = q_done[head];
  assign d_valid    = count != 0 && (head_done || rsp_live);
  assign d_pc       = q_pc[head];
  assign d_pred_npc = q_npc[head];
  assign d_insn     = head_done ? q_insn[head] : ibus_rsp_rdata;
  assign d_err      = head_done ? q_err[head] : ibus_rsp_err;
  wire d_fire = d_valid && d_ready;

  // requests accepted but not yet answered (live and stale)
  reg  [QLOG2:0] outst;
  // (the queue-full test without the reset term of ibus_req_valid: the same value out of reset,
  // which is when it is used; it keeps the reset input out of this signal's logic)
  assign quiet = ({1'b0, count} + {1'b0, discard}) >= DEPTH && outst == 0;
  wire [QLOG2:0] outst_next = outst + {{QLOG2{1'b0}}, req_fire} - {{QLOG2{1'b0}}, ibus_rsp_valid};

  always @(posedge clk) begin
    if (rst) begin
      pc_f <= RESET_VECTOR;
      head <= 0;  tail <= 0;  rptr <= 0;
      count <= 0;  discard <= 0;  outst <= 0;
      q_done <= {DEPTH{1'b0}};
    end else if (redirect_valid) begin
      outst <= outst_next;
      pc_f <= redirect_pc;
      head <= 0;  tail <= 0;  rptr <= 0;
      count <= 0;
      q_done <= {DEPTH{1'b0}};
      // everything still in flight is stale now
      discard <= outst_next;
    end else begin
      outst <= outst_next;
      if (req_fire) begin
        q_pc[tail]   <= pc_f;
        q_npc[tail]  <= next_pc;
        q_done[tail] <= 1'b0;
        tail <= tail + 1'b1;
        pc_f <= next_pc;
      end
      if (ibus_rsp_valid) begin
        if (discard != 0) begin
          discard <= discard - 1'b1;
        end else begin
          q_insn[rptr] <= ibus_rsp_rdata;
          q_err[rptr]  <= ibus_rsp_err;
          q_done[rptr] <= 1'b1;
          rptr <= rptr + 1'b1;
        end
      end
      if (d_fire) head <= head + 1'b1;
      count <= count + {{QLOG2{1'b0}}, req_fire} - {{QLOG2{1'b0}}, d_fire};
    end
  end
endmodule
`default_nettype wire
