/* SHA-256 (FIPS 180-4). */
#include "feint/sha256.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress(uint32_t s[8], const uint8_t b[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)b[4 * t] << 24 | (uint32_t)b[4 * t + 1] << 16 |
           (uint32_t)b[4 * t + 2] << 8 | (uint32_t)b[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = s[0], bb = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
  for (int t = 0; t < 64; t++) {
    uint32_t S1 = ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + S1 + ch + K[t] + w[t];
    uint32_t S0 = ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22);
    uint32_t maj = (a & bb) ^ (a & c) ^ (bb & c);
    uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = bb;
    bb = a;
    a = t1 + t2;
  }
  s[0] += a;
  s[1] += bb;
  s[2] += c;
  s[3] += d;
  s[4] += e;
  s[5] += f;
  s[6] += g;
  s[7] += h;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI_PATH 1
/* The x86 SHA extensions (Intel since Goldmont/Ice Lake, AMD since Zen):
 * four rounds per pair of sha256rnds2, the message schedule by sha256msg1/2;
 * about 5x the portable compress, which put a 277 MB mesh's provenance hash
 * (0.8-1.3 s on one core) on the critical path of a 1.5 s run. The state is
 * kept as ABEF / CDGH, the instructions' order. */
__attribute__((target("sha,sse4.1"))) static void compress_shani(uint32_t s[8], const uint8_t *b, size_t blocks) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i tmp = _mm_loadu_si128((const __m128i *)&s[0]);
  __m128i st1 = _mm_loadu_si128((const __m128i *)&s[4]);
  tmp = _mm_shuffle_epi32(tmp, 0xB1);                 /* CDAB */
  st1 = _mm_shuffle_epi32(st1, 0x1B);                 /* EFGH */
  __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);         /* ABEF */
  st1 = _mm_blend_epi16(st1, tmp, 0xF0);              /* CDGH */
  /* the state stays in the instructions' order from one block to the next: a file's blocks in one call */
  for (; blocks > 0; blocks--, b += 64) {
    const __m128i abef = st0, cdgh = st1;
    __m128i w[4];
    for (int g = 0; g < 16; g++) {
      __m128i m;
      if (g < 4) {
        m = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(b + 16 * g)), swap);
      } else {
        m = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
        m = _mm_add_epi32(m, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
        m = _mm_sha256msg2_epu32(m, w[(g + 3) & 3]);
      }
      w[g & 3] = m;
      __m128i k = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&K[4 * g]));
      st1 = _mm_sha256rnds2_epu32(st1, st0, k);
      st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(k, 0x0E));
    }
    st0 = _mm_add_epi32(st0, abef);
    st1 = _mm_add_epi32(st1, cdgh);
  }
  tmp = _mm_shuffle_epi32(st0, 0x1B);                 /* FEBA */
  st1 = _mm_shuffle_epi32(st1, 0xB1);                 /* DCHG */
  st0 = _mm_blend_epi16(tmp, st1, 0xF0);              /* DCBA */
  st1 = _mm_alignr_epi8(st1, tmp, 8);                 /* HGFE */
  _mm_storeu_si128((__m128i *)&s[0], st0);
  _mm_storeu_si128((__m128i *)&s[4], st1);
}
#endif

#ifdef HAVE_SHA_NI_PATH
/* SHA and SSE4.1, read with cpuid: clang before 15 rejects
 * __builtin_cpu_supports("sha"), and `make fuzz` builds this with clang */
static int cpu_has_sha(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1)) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b & bit_SHA) != 0;
}
#endif

/* The compression function in use: the SHA extensions where the processor
 * has them (unless feint_sha256_use_portable asked otherwise). */
static int portable_only;

void feint_sha256_use_portable(int on) { portable_only = on; }

int feint_sha256_uses_sha_ni(void) {
#ifdef HAVE_SHA_NI_PATH
  static int has_sha = -1;
  if (has_sha < 0) has_sha = cpu_has_sha();
  return has_sha && !portable_only;
#else
  return 0;
#endif
}

/* blocks consecutive 64-byte blocks of b */
static void compress_blocks(uint32_t s[8], const uint8_t *b, size_t blocks) {
#ifdef HAVE_SHA_NI_PATH
  if (feint_sha256_uses_sha_ni()) {
    compress_shani(s, b, blocks);
    return;
  }
#endif
  for (; blocks > 0; blocks--, b += 64) compress(s, b);
}

void feint_sha256_init(feint_sha256 *h) {
  static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(h->state, H0, sizeof H0);
  h->length = 0;
  h->fill = 0;
}

void feint_sha256_update(feint_sha256 *h, const void *data, size_t n) {
  const uint8_t *p = (const uint8_t *)data;
  h->length += (uint64_t)n;
  if (h->fill > 0) { /* the partial block first */
    size_t take = 64 - h->fill;
    if (take > n) take = n;
    memcpy(h->block + h->fill, p, take);
    h->fill += take;
    p += take;
    n -= take;
    if (h->fill < 64) return;
    compress_blocks(h->state, h->block, 1);
    h->fill = 0;
  }
  /* whole blocks straight from the data (a copy of each into h->block cost a tenth of the hash) */
  compress_blocks(h->state, p, n / 64);
  p += n / 64 * 64;
  n %= 64;
  memcpy(h->block, p, n);
  h->fill = n;
}

void feint_sha256_final(feint_sha256 *h, char hex[65]) {
  uint64_t bits = h->length * 8;
  h->block[h->fill++] = 0x80;
  if (h->fill > 56) {
    memset(h->block + h->fill, 0, 64 - h->fill);
    compress_blocks(h->state, h->block, 1);
    h->fill = 0;
  }
  memset(h->block + h->fill, 0, 56 - h->fill);
  for (int i = 0; i < 8; i++) h->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
  compress_blocks(h->state, h->block, 1);
  h->fill = 0;
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) hex[8 * i + j] = digits[(h->state[i] >> (28 - 4 * j)) & 0xf];
  hex[64] = '\0';
}

/* The file's hash, or the errno of the failure (0 on success); no
 * feint_error_set, so that it may run on any thread. */
static int hash_file(const char *path, char hex[65], int *failed_read) {
  FILE *f = fopen(path, "rb");
  *failed_read = 0;
  if (!f) return errno ? errno : EIO;
  feint_sha256 h;
  feint_sha256_init(&h);
  static _Thread_local unsigned char buf[1 << 20];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) feint_sha256_update(&h, buf, n);
  int bad = ferror(f);
  int saved = errno;
  fclose(f);
  if (bad) {
    *failed_read = 1;
    return saved ? saved : EIO;
  }
  feint_sha256_final(&h, hex);
  return 0;
}

static int report(const char *path, int err, int failed_read) {
  if (!err) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT, failed_read ? "%s: read error: %s" : "%s: cannot open: %s", path,
                         strerror(err));
}

int feint_sha256_file(const char *path, char hex[65]) {
  int failed_read;
  const int err = hash_file(path, hex, &failed_read);
  return report(path, err, failed_read);
}

struct feint_sha256_job {
  pthread_t thread;
  int started;
  char *path;
  char hex[65];
  int err, failed_read;
};

static void *job_main(void *arg) {
  feint_sha256_job *j = arg;
  j->err = hash_file(j->path, j->hex, &j->failed_read);
  return NULL;
}

int feint_sha256_file_start(const char *path, feint_sha256_job **out) {
  *out = NULL;
  feint_sha256_job *j = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *j, &j, "hash job"));
  int status = feint_strdup(path, &j->path);
  if (status) {
    free(j);
    return status;
  }
  /* no thread (a limit on threads): the hash is computed at the wait */
  j->started = pthread_create(&j->thread, NULL, job_main, j) == 0;
  *out = j;
  return FEINT_OK;
}

const char *feint_sha256_job_path(const feint_sha256_job *j) { return j ? j->path : NULL; }

int feint_sha256_file_wait(feint_sha256_job *j, char hex[65]) {
  if (j->started) {
    pthread_join(j->thread, NULL);
    j->started = 0;
  } else if (!j->hex[0] && !j->err) {
    j->err = hash_file(j->path, j->hex, &j->failed_read);
  }
  if (!j->err) memcpy(hex, j->hex, 65);
  return report(j->path, j->err, j->failed_read);
}

void feint_sha256_job_destroy(feint_sha256_job *j) {
  if (!j) return;
  if (j->started) pthread_join(j->thread, NULL);
  free(j->path);
  free(j);
}
