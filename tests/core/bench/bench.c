/* bench.c - firmware-like CPI benchmark for rv_core (freestanding, no libc).
 * Kernels: word copy loop, table-driven CRC32 (table built bitwise), open-
 * addressing hash table insert + lookup, byte-stream state machine. The
 * combined checksum is compared with BENCH_EXPECTED (computed by building
 * this file natively with -DBENCH_HOST, see README in docs/core.md). */
#include <stdint.h>

#define BUF_WORDS 1024
#define HASH_SLOTS 1024
#define HASH_KEYS 600
#define ROUNDS 4
#define BENCH_EXPECTED 0xb5b69baeu

static uint32_t src[BUF_WORDS];
static uint32_t dst[BUF_WORDS];
static uint32_t crc_table[256];
static uint32_t hash_keys[HASH_SLOTS];
static uint32_t hash_vals[HASH_SLOTS];

static uint32_t lcg(uint32_t *s)
{
  *s = *s * 1664525u + 1013904223u;
  return *s;
}

static void copy_words(uint32_t *d, const uint32_t *s, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    d[i] = s[i];
}

static void crc_init(void)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
      c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
  uint32_t c = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < n; i++)
    c = crc_table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static uint32_t hash_slot(uint32_t key)
{
  return (key * 2654435761u) >> 22;  /* top 10 bits: 1024 slots */
}

static void hash_insert(uint32_t key, uint32_t val)
{
  uint32_t h = hash_slot(key);
  while (hash_keys[h] != 0 && hash_keys[h] != key)
    h = (h + 1) & (HASH_SLOTS - 1);
  hash_keys[h] = key;
  hash_vals[h] = val;
}

static uint32_t hash_lookup(uint32_t key)
{
  uint32_t h = hash_slot(key);
  while (hash_keys[h] != 0) {
    if (hash_keys[h] == key)
      return hash_vals[h];
    h = (h + 1) & (HASH_SLOTS - 1);
  }
  return 0;
}

/* a tiny header parser: states IDLE, LEN, BODY, CSUM over a byte stream */
static uint32_t parse_stream(const uint8_t *p, uint32_t n)
{
  enum { IDLE, LEN, BODY, CSUM } st = IDLE;
  uint32_t len = 0, sum = 0, good = 0, bad = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t b = p[i];
    switch (st) {
    case IDLE:
      if (b == 0x7E) st = LEN;
      break;
    case LEN:
      len = b & 15u;
      sum = 0;
      st = len ? BODY : IDLE;
      break;
    case BODY:
      sum += b;
      if (--len == 0) st = CSUM;
      break;
    case CSUM:
      if ((sum & 0xFFu) == b) good++; else bad++;
      st = IDLE;
      break;
    }
  }
  return good * 65536u + bad;
}

uint32_t bench_run(void)
{
  uint32_t seed = 12345, acc = 0;
  for (int i = 0; i < BUF_WORDS; i++) {
    uint32_t r = lcg(&seed);
    /* sprinkle frame markers so the parser finds frames */
    src[i] = (i % 5 == 0) ? ((r & 0xFFFF0000u) | 0x0A7Eu) : r;
  }
  crc_init();
  for (int round = 0; round < ROUNDS; round++) {
    copy_words(dst, src, BUF_WORDS);
    acc ^= crc32((const uint8_t *)dst, BUF_WORDS * 4);
    for (uint32_t i = 0; i < HASH_SLOTS; i++) {
      hash_keys[i] = 0;
      hash_vals[i] = 0;
    }
    for (uint32_t k = 1; k <= HASH_KEYS; k++)
      hash_insert(k * 7919u + (uint32_t)round, k ^ dst[k]);
    for (uint32_t k = 1; k <= HASH_KEYS + 100; k++)
      acc += hash_lookup(k * 7919u + (uint32_t)round) * k;
    acc += parse_stream((const uint8_t *)dst, BUF_WORDS * 4);
    src[round] ^= acc;
  }
  return acc;
}

#ifdef BENCH_HOST
#include <stdio.h>
int main(void)
{
  printf("0x%08xu\n", bench_run());
  return 0;
}
#else
int bench_main(void)
{
  return bench_run() == BENCH_EXPECTED ? 0 : 1;
}
#endif
