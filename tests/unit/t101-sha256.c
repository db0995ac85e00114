/* SHA-256: the FIPS 180-4 / NIST example vectors, then both compression
 * paths against Python's hashlib on many random messages. */
#include <stdint.h>
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

  /* Both compression paths (the SHA extensions where this processor has
   * them, and the portable one) against an independent reference, Python's
   * hashlib, on random messages of every length 0..1000 (all block edges)
   * and of a few MB, each fed in random pieces. Without python3 the paths
   * are compared with each other only, which says nothing on a processor
   * without the extensions: the test says which it did. */
  enum { SHORT = 1001, N_LONG = 3 };
  const size_t long_len[N_LONG] = {65537, 1048593, 3145727};
  const size_t big = long_len[N_LONG - 1];
  unsigned char *msg = malloc(big);
  CHECK_OK(msg ? 0 : 1);
  uint64_t x = 0x9E3779B97F4A7C15u; /* xorshift64: the same bytes everywhere */
  for (size_t i = 0; i < big; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    msg[i] = (unsigned char)(x >> 24);
  }
  char mdir[] = "/tmp/feint-t101m-XXXXXX", mpath[512];
  CHECK_OK(mkdtemp(mdir) ? 0 : 1);
  snprintf(mpath, sizeof mpath, "%s/msg.bin", mdir);
  f = fopen(mpath, "wb");
  CHECK_OK(f && fwrite(msg, 1, big, f) == big ? 0 : 1);
  fclose(f);
  static char ref[SHORT + N_LONG][65];
  int have_ref = 0;
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c 'import hashlib, sys\n"
           "d = open(sys.argv[1], \"rb\").read()\n"
           "for n in list(range(%d)) + [int(a) for a in sys.argv[2:]]: print(hashlib.sha256(d[:n]).hexdigest())'"
           " %s %zu %zu %zu 2>/dev/null",
           SHORT, mpath, long_len[0], long_len[1], long_len[2]);
  FILE *py = access("/usr/bin/python3", X_OK) == 0 ? popen(cmd, "r") : NULL;
  if (py) {
    char word[65];
    /* read to the end: a pipe closed early kills python3 with EPIPE */
    while (fscanf(py, "%64s", word) == 1)
      if (have_ref++ < SHORT + N_LONG) memcpy(ref[have_ref - 1], word, sizeof word);
    if (pclose(py) != 0 || have_ref != SHORT + N_LONG) have_ref = 0;
  }
  remove(mpath);
  rmdir(mdir);
  const int sha_ni = feint_sha256_uses_sha_ni();
  const char *paths[2] = {"SHA-NI", "portable"};
  int wrong[2] = {0, 0}, differ = 0;
  srand(12345);
  for (int k = 0; k < SHORT + N_LONG; k++) {
    const size_t len = k < SHORT ? (size_t)k : long_len[k - SHORT];
    const size_t max_piece = k < SHORT ? 200 : 70000;
    char hexes[2][65];
    for (int portable = !sha_ni; portable < 2; portable++) {
      feint_sha256_use_portable(portable);
      feint_sha256_init(&h);
      for (size_t at = 0; at < len;) {
        size_t piece = 1 + (size_t)rand() % max_piece;
        if (piece > len - at) piece = len - at;
        feint_sha256_update(&h, msg + at, piece);
        at += piece;
      }
      feint_sha256_final(&h, hexes[portable]);
      if (have_ref == SHORT + N_LONG && strcmp(hexes[portable], ref[k])) {
        if (!wrong[portable]) fprintf(stderr, "%s path, %zu bytes: %s, hashlib %s\n", paths[portable], len,
                                      hexes[portable], ref[k]);
        wrong[portable]++;
      }
    }
    differ += sha_ni && strcmp(hexes[0], hexes[1]) != 0;
  }
  feint_sha256_use_portable(0);
  free(msg);
  CHECK(wrong[0] == 0 && wrong[1] == 0, "wrong hashes: SHA-NI %d, portable %d", wrong[0], wrong[1]);
  CHECK(differ == 0, "%d messages hash differently on the two paths", differ);
  const char *against = have_ref ? "with each other and against Python's hashlib"
                               : "with each other only (no /usr/bin/python3)";
  if (sha_ni)
    printf("t101: SHA-NI and portable paths compared %s on %d messages (0..1000 bytes, up to 3 MB)\n", against,
           SHORT + N_LONG);
  else
    printf("t101: this processor has no SHA extensions: the portable path alone compared %s on %d messages\n",
           have_ref ? "against Python's hashlib" : "with nothing (no /usr/bin/python3)", SHORT + N_LONG);
  return check_report("t101-sha256");
}
