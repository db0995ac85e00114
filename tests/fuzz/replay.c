/* A libFuzzer harness without libFuzzer: each argument (a file, or every
 * file of a directory) is given once to LLVMFuzzerTestOneInput, so the
 * suite replays the seed corpora and the regression inputs with the normal
 * build (t33-fuzz-regress.sh). A harness reports a failure by crashing or
 * aborting, as under libFuzzer; this exits 1 only on an unreadable file. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    uint8_t *bigger = realloc(buf, 2 * cap);
    if (!bigger) free(buf);
    buf = bigger;
    cap *= 2;
  }
  int bad = ferror(f) || !buf;
  fclose(f);
  if (bad) {
    fprintf(stderr, "%s: cannot read\n", path);
    free(buf);
    return 1;
  }
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int failed = 0, inputs = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
        failed |= replay_file(path);
        inputs++;
      }
      if (d) closedir(d);
      else failed = 1;
    } else {
      failed |= replay_file(argv[i]);
      inputs++;
    }
  }
  printf("%d inputs replayed\n", inputs);
  return failed;
}
