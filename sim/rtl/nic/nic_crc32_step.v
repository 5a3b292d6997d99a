// nic_crc32_step: CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) over up to NB bytes in
// one cycle, combinational. Same arithmetic as hal/src/crc32.c's nic_crc32_update(): the state
// is the raw register (start 0xFFFFFFFF, the FCS is ~state sent little-endian).
//
// bmask selects the bytes of `data` to fold in; only a contiguous run from byte 0 is used by the
// MAC (a beat's valid bytes), but any mask is processed in byte order.
//
// Formulation: byte-wise table (crc = tab[(crc ^ byte) & 0xFF] ^ (crc >> 8)), the table being the
// eight bit steps of each byte value, filled at elaboration. Identical results to the bit-serial
// form; a simulator does one lookup per byte instead of eight conditional shifts.
`default_nettype none
module nic_crc32_step #(
  parameter integer NB = 8
) (
  input  wire [31:0]     crc_in,
  input  wire [NB*8-1:0] data,
  input  wire [NB-1:0]   bmask,
  output reg  [31:0]     crc_out
);
  integer t, j;
  reg [31:0] tab [0:255];
  reg [31:0] tc;
  initial begin
    if (NB < 1 || NB > 16) begin
      $display("nic_crc32_step: NB (%0d) must be 1..16", NB);
      $finish;
    end
    for (t = 0; t < 256; t = t + 1) begin
      tc = t;
      for (j = 0; j < 8; j = j + 1)
        tc = tc[0] ? ((tc >> 1) ^ 32'hEDB88320) : (tc >> 1);
      tab[t] = tc;
    end
  end

  integer i;
  reg [31:0] c;
  // (no byte selected: crc_in, without testing each mask bit; the MAC's idle and waiting cycles,
  // simulation speed)
  always @* begin
    c = crc_in;
    if (bmask != {NB{1'b0}})
      for (i = 0; i < NB; i = i + 1)
        if (bmask[i])
          c = tab[c[7:0] ^ data[8*i +: 8]] ^ (c >> 8);
    crc_out = c;
  end
endmodule
`default_nettype wire
