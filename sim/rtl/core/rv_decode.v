// rv_decode: combinational RV32IM + Zba + Zbb + Zicsr + Zifencei decoder (execute stage).
// Role: turns an instruction word into control signals; flags every encoding
// that is not implemented as illegal (the core raises mcause=2, mtval=insn).
// CSR address legality is decided later by rv_csr (commit stage).
`default_nettype none
module rv_decode (
  // instruction
  input  wire [31:0] insn,
  // classification
  output reg         illegal,
  output reg  [4:0]  alu_op,      // see rv_alu
  output reg         a_sel_pc,    // ALU operand A = pc (auipc)
  output reg         a_sel_zero,  // ALU operand A = 0 (lui)
  output reg         b_sel_imm,   // ALU operand B = immediate
  output reg  [31:0] imm,
  output reg         uses_rs1,
  output reg         uses_rs2,
  output reg         rd_we,       // writes rd (rd != x0)
  output reg         is_branch,
  output reg         is_jal,
  output reg         is_jalr,
  output reg         is_load,
  output reg         is_store,
  output reg         is_mul,
  output reg         is_div,
  output reg         is_csr,
  output reg         is_ecall,
  output reg         is_ebreak,
  output reg         is_mret,
  output reg         is_wfi,
  output reg         is_fencei
);
  localparam [4:0] ALU_ADD = 5'd0, ALU_SUB = 5'd1, ALU_SLL = 5'd2, ALU_SLT = 5'd3,
                   ALU_SLTU = 5'd4, ALU_XOR = 5'd5, ALU_SRL = 5'd6, ALU_SRA = 5'd7,
                   ALU_OR = 5'd8, ALU_AND = 5'd9,
                   ALU_SH1ADD = 5'd10, ALU_SH2ADD = 5'd11, ALU_SH3ADD = 5'd12, ALU_ANDN = 5'd13,
                   ALU_ORN = 5'd14, ALU_XNOR = 5'd15, ALU_CLZ = 5'd16, ALU_CTZ = 5'd17,
                   ALU_CPOP = 5'd18, ALU_SEXTB = 5'd19, ALU_SEXTH = 5'd20, ALU_ZEXTH = 5'd21,
                   ALU_MIN = 5'd22, ALU_MAX = 5'd23, ALU_MINU = 5'd24, ALU_MAXU = 5'd25,
                   ALU_ROL = 5'd26, ALU_ROR = 5'd27, ALU_ORCB = 5'd28, ALU_REV8 = 5'd29;

  wire [6:0] opcode = insn[6:0];
  wire [2:0] funct3 = insn[14:12];
  wire [6:0] funct7 = insn[31:25];
  wire       rd_nz  = insn[11:7] != 5'd0;
  wire [4:0] rs2f   = insn[24:20];  // Zbb's unary operations: the operation, in the rs2 field

  wire [31:0] imm_i = {{20{insn[31]}}, insn[31:20]};
  wire [31:0] imm_s = {{20{insn[31]}}, insn[31:25], insn[11:7]};
  wire [31:0] imm_b = {{19{insn[31]}}, insn[31], insn[7], insn[30:25], insn[11:8], 1'b0};
  wire [31:0] imm_u = {insn[31:12], 12'd0};
  wire [31:0] imm_j = {{11{insn[31]}}, insn[31], insn[19:12], insn[20], insn[30:21], 1'b0};

  always @* begin
    illegal = 1'b0;  alu_op = ALU_ADD;  a_sel_pc = 1'b0;  a_sel_zero = 1'b0;
    b_sel_imm = 1'b0;  imm = imm_i;  uses_rs1 = 1'b0;  uses_rs2 = 1'b0;  rd_we = 1'b0;
    is_branch = 1'b0;  is_jal = 1'b0;  is_jalr = 1'b0;  is_load = 1'b0;  is_store = 1'b0;
    is_mul = 1'b0;  is_div = 1'b0;  is_csr = 1'b0;  is_ecall = 1'b0;  is_ebreak = 1'b0;
    is_mret = 1'b0;  is_wfi = 1'b0;  is_fencei = 1'b0;
    case (opcode)
      7'b0110111: begin  // LUI
        a_sel_zero = 1'b1;  b_sel_imm = 1'b1;  imm = imm_u;  rd_we = rd_nz;
      end
      7'b0010111: begin  // AUIPC
        a_sel_pc = 1'b1;  b_sel_imm = 1'b1;  imm = imm_u;  rd_we = rd_nz;
      end
      7'b1101111: begin  // JAL
        is_jal = 1'b1;  imm = imm_j;  rd_we = rd_nz;
      end
      7'b1100111: begin  // JALR
        is_jalr = 1'b1;  uses_rs1 = 1'b1;  rd_we = rd_nz;
        illegal = funct3 != 3'd0;
      end
      7'b1100011: begin  // BRANCH
        is_branch = 1'b1;  imm = imm_b;  uses_rs1 = 1'b1;  uses_rs2 = 1'b1;
        illegal = funct3 == 3'd2 || funct3 == 3'd3;
      end
      7'b0000011: begin  // LOAD
        is_load = 1'b1;  b_sel_imm = 1'b1;  uses_rs1 = 1'b1;  rd_we = rd_nz;
        illegal = funct3 == 3'd3 || funct3 == 3'd6 || funct3 == 3'd7;
      end
      7'b0100011: begin  // STORE
        is_store = 1'b1;  b_sel_imm = 1'b1;  imm = imm_s;  uses_rs1 = 1'b1;  uses_rs2 = 1'b1;
        illegal = funct3[2] || funct3[1:0] == 2'd3;
      end
      7'b0010011: begin  // OP-IMM
        b_sel_imm = 1'b1;  uses_rs1 = 1'b1;  rd_we = rd_nz;
        case (funct3)
          3'd0: alu_op = ALU_ADD;
          3'd1: begin
            if (funct7 == 7'd0) alu_op = ALU_SLL;
            else if (funct7 == 7'b0110000 && rs2f == 5'd0) alu_op = ALU_CLZ;
            else if (funct7 == 7'b0110000 && rs2f == 5'd1) alu_op = ALU_CTZ;
            else if (funct7 == 7'b0110000 && rs2f == 5'd2) alu_op = ALU_CPOP;
            else if (funct7 == 7'b0110000 && rs2f == 5'd4) alu_op = ALU_SEXTB;
            else if (funct7 == 7'b0110000 && rs2f == 5'd5) alu_op = ALU_SEXTH;
            else illegal = 1'b1;
          end
          3'd2: alu_op = ALU_SLT;
          3'd3: alu_op = ALU_SLTU;
          3'd4: alu_op = ALU_XOR;
          3'd5: begin
            if (funct7 == 7'd0) alu_op = ALU_SRL;
            else if (funct7 == 7'b0100000) alu_op = ALU_SRA;
            else if (funct7 == 7'b0110000) alu_op = ALU_ROR;      // rori
            else if (insn[31:20] == 12'h287) alu_op = ALU_ORCB;
            else if (insn[31:20] == 12'h698) alu_op = ALU_REV8;   // (RV32's encoding)
            else illegal = 1'b1;
          end
          3'd6: alu_op = ALU_OR;
          default: alu_op = ALU_AND;
        endcase
      end
      7'b0110011: begin  // OP
        uses_rs1 = 1'b1;  uses_rs2 = 1'b1;  rd_we = rd_nz;
        if (funct7 == 7'b0000001) begin
          is_mul = !funct3[2];
          is_div = funct3[2];
        end else if (funct7 == 7'd0) begin
          case (funct3)
            3'd0: alu_op = ALU_ADD;
            3'd1: alu_op = ALU_SLL;
            3'd2: alu_op = ALU_SLT;
            3'd3: alu_op = ALU_SLTU;
            3'd4: alu_op = ALU_XOR;
            3'd5: alu_op = ALU_SRL;
            3'd6: alu_op = ALU_OR;
            default: alu_op = ALU_AND;
          endcase
        end else if (funct7 == 7'b0100000) begin
          case (funct3)
            3'd0: alu_op = ALU_SUB;
            3'd4: alu_op = ALU_XNOR;
            3'd5: alu_op = ALU_SRA;
            3'd6: alu_op = ALU_ORN;
            3'd7: alu_op = ALU_ANDN;
            default: illegal = 1'b1;
          endcase
        end else if (funct7 == 7'b0010000) begin  // Zba
          case (funct3)
            3'd2: alu_op = ALU_SH1ADD;
            3'd4: alu_op = ALU_SH2ADD;
            3'd6: alu_op = ALU_SH3ADD;
            default: illegal = 1'b1;
          endcase
        end else if (funct7 == 7'b0000101) begin  // min/max
          case (funct3)
            3'd4: alu_op = ALU_MIN;
            3'd5: alu_op = ALU_MINU;
            3'd6: alu_op = ALU_MAX;
            3'd7: alu_op = ALU_MAXU;
            default: illegal = 1'b1;
          endcase
        end else if (funct7 == 7'b0110000 && (funct3 == 3'd1 || funct3 == 3'd5)) begin
          alu_op = funct3 == 3'd1 ? ALU_ROL : ALU_ROR;
        end else if (funct7 == 7'b0000100 && funct3 == 3'd4 && rs2f == 5'd0) begin
          alu_op = ALU_ZEXTH;  // zext.h (RV32: pack rd, rs1, x0)
        end else begin
          illegal = 1'b1;
        end
      end
      7'b0001111: begin  // MISC-MEM: fence is a no-op (in-order, single bus master)
        if (funct3 == 3'd1) is_fencei = 1'b1;
        else illegal = funct3 != 3'd0;
      end
      7'b1110011: begin  // SYSTEM
        if (funct3 == 3'd0) begin
          case (insn)
            32'h0000_0073: is_ecall = 1'b1;
            32'h0010_0073: is_ebreak = 1'b1;
            32'h3020_0073: is_mret = 1'b1;
            32'h1050_0073: is_wfi = 1'b1;
            default:       illegal = 1'b1;
          endcase
        end else if (funct3 == 3'd4) begin
          illegal = 1'b1;
        end else begin
          is_csr = 1'b1;  rd_we = rd_nz;  uses_rs1 = !funct3[2];
        end
      end
      default: illegal = 1'b1;
    endcase
    if (illegal) begin
      rd_we = 1'b0;  is_branch = 1'b0;  is_jal = 1'b0;  is_jalr = 1'b0;  is_load = 1'b0;
      is_store = 1'b0;  is_mul = 1'b0;  is_div = 1'b0;  is_csr = 1'b0;  is_fencei = 1'b0;
    end
  end
endmodule
`default_nettype wire
