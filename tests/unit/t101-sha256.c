/* SHA-256 against the FIPS 180-4 / NIST example vectors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "feint/error.h"
#include "feint/sha256.h"

static void hash_str(const char *s, char hex[65]) {
  feint_sha256 h;
  feint_sha256_init(&h);
  feint_sha256_update(&h, s, strlen(s));
  feint_sha256_final(&h, hex);
}

int main(void) {
  char hex[65];
  hash_str("", hex);
  CHECK(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "%s",
        hex);
  hash_str("abc", hex);
  CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "%s",
        hex);
  const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hash_str(m448, hex);
  CHECK(!strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"), "%s",
        hex);
  /* the same message fed byte by byte crosses block boundaries differently */
  feint_sha256 h;
  feint_sha256_init(&h);
  for (size_t i = 0; i < strlen(m448); i++) feint_sha256_update(&h, m448 + i, 1);
  feint_sha256_final(&h, hex);
  CHECK(!strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"), "%s",
        hex);
  /* 896-bit message */
  hash_str("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlm"
           "nopqrsmnopqrstnopqrstu",
           hex);
  CHECK(!strcmp(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"), "%s",
        hex);
  /* a million 'a' in uneven chunks */
  char chunk[1000];
  memset(chunk, 'a', sizeof chunk);
  feint_sha256_init(&h);
  size_t left = 1000000, step = 1;
  while (left) {
    size_t n = step < left ? step : left;
    if (n > sizeof chunk) n = sizeof chunk;
    feint_sha256_update(&h, chunk, n);
    left -= n;
    step = step * 7 % 997 + 1;
  }
  feint_sha256_final(&h, hex);
  CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"), "%s",
        hex);

  /* files: the same as in memory, and a missing file is an input error */
  char dir[] = "/tmp/feint-t101-XXXXXX";
  CHECK_OK(mkdtemp(dir) ? 0 : 1);
  char path[512];
  snprintf(path, sizeof path, "%s/abc.txt", dir);
  FILE *f = fopen(path, "wb");
  CHECK_OK(f ? 0 : 1);
  fputs("abc", f);
  fclose(f);
  CHECK_OK(feint_sha256_file(path, hex));
  CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "%s",
        hex);
  remove(path);
  CHECK(feint_sha256_file(path, hex) == FEINT_ERR_INPUT, "missing file");
  CHECK(strstr(feint_error_message(), path) != NULL, "%s", feint_error_message());
  rmdir(dir);

  /* the SHA-extension path (where the processor has one) and the portable
   * one agree on random messages of every length around the block edges,
   * fed in random pieces */
  srand(12345);
  static unsigned char msg[4096];
  for (size_t i = 0; i < sizeof msg; i++) msg[i] = (unsigned char)rand();
  int differ = 0;
  for (size_t len = 0; len < sizeof msg; len += len < 300 ? 1 : 97) {
    char a[65], b[65];
    for (int portable = 0; portable < 2; portable++) {
      feint_sha256_use_portable(portable);
      feint_sha256 h;
      feint_sha256_init(&h);
      for (size_t at = 0; at < len;) {
        size_t piece = 1 + (size_t)rand() % 200;
        if (piece > len - at) piece = len - at;
        feint_sha256_update(&h, msg + at, piece);
        at += piece;
      }
      feint_sha256_final(&h, portable ? b : a);
    }
    differ += strcmp(a, b) != 0;
  }
  feint_sha256_use_portable(0);
  CHECK(differ == 0, "%d message lengths hash differently on the two paths", differ);
  return check_report("t101-sha256");
}
