/* The on-disk cache of compiled code (include/feint/cache.h), in a fresh
 * directory under /tmp: the key (fields named and length-prefixed, the
 * same fields the same key), store and lookup round trip, another key
 * misses, a damaged entry (truncated in the payload or the header, a
 * flipped payload byte, a foreign magic, another key's entry under this
 * key's name, a newer format version, bytes past the end) is rejected,
 * saying why, and the next store replaces it; atomic stores leave no
 * temporary file; a directory that cannot be created (or written, where
 * the tests do not run as root) turns stores off with one warning and no
 * error; an off cache (flag 0, FEINT_NO_CACHE=1) touches nothing; the
 * default directory follows FEINT_CACHE_DIR, XDG_CACHE_HOME and HOME;
 * FEINT_NO_CACHE with another value is an input error. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "feint/cache.h"
#include "feint/error.h"

static char root[256];

static void key_of(const char *source, char hex[65]) {
  feint_cache_key k;
  feint_cache_key_init(&k, "test");
  feint_cache_key_add_str(&k, "source", source);
  feint_cache_key_add_int(&k, "cc", 90);
  feint_cache_key_final(&k, hex);
}

static int exists(const char *path) {
  struct stat s;
  return stat(path, &s) == 0;
}

/* The number of entries in dir whose name starts with a dot (temporary
 * files) and of all entries (not . and ..). */
static void count_files(const char *dir, int *hidden, int *all) {
  *hidden = *all = 0;
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    (*all)++;
    if (e->d_name[0] == '.') (*hidden)++;
  }
  closedir(d);
}

/* Looks key up; 1 on a hit whose payload is want[0..n). */
static int hit_with(feint_cache *c, const char *key, const void *want, size_t n, feint_cache_stats *st) {
  void *data = NULL;
  size_t size = 0;
  CHECK_OK(feint_cache_lookup(c, key, &data, &size, st));
  int ok = st->hit && data && size == n && !memcmp(data, want, n) && st->bytes == n;
  CHECK(st->hit == (data != NULL), "hit %d but data %p", st->hit, data);
  free(data);
  return ok;
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(data, 1, n, f) == n, "cannot write %s", path);
  if (f) fclose(f);
}

/* The entry file's bytes into *buf (malloc) and *n. */
static void read_file(const char *path, unsigned char **buf, size_t *n) {
  FILE *f = fopen(path, "rb");
  *buf = NULL;
  *n = 0;
  if (!f) return;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  *buf = malloc(len > 0 ? (size_t)len : 1);
  if (*buf && fread(*buf, 1, (size_t)len, f) == (size_t)len) *n = (size_t)len;
  fclose(f);
}

/* Damages key's entry by edit, then checks the lookup rejects it with a
 * reason containing reason, and that a store replaces it. */
static void check_damage(feint_cache *c, const char *key, const char *payload, size_t n, const char *what,
                         void (*edit)(unsigned char *buf, size_t *len), const char *reason) {
  char path[4096];
  feint_cache_stats st;
  CHECK_OK(feint_cache_store(c, key, payload, n, &st));
  CHECK(st.stored, "%s: store before damage: %s", what, st.why);
  CHECK(feint_cache_entry_path(c, key, path, sizeof path) == 0, "entry path");
  unsigned char *buf;
  size_t len;
  read_file(path, &buf, &len);
  CHECK(buf && len == 152 + n, "%s: entry of %zu bytes, expected %zu", what, len, 152 + n);
  if (!buf) return;
  edit(buf, &len);
  write_file(path, buf, len);
  free(buf);
  void *data = (void *)1;
  size_t size = 7;
  CHECK_OK(feint_cache_lookup(c, key, &data, &size, &st));
  CHECK(!st.hit && st.rejected && !data && size == 0, "%s: not rejected (hit %d rejected %d)", what, st.hit,
        st.rejected);
  CHECK(strstr(st.why, reason), "%s: why \"%s\" does not say \"%s\"", what, st.why, reason);
  printf("%-28s rejected: %s\n", what, st.why);
  CHECK_OK(feint_cache_store(c, key, payload, n, &st));
  CHECK(st.stored && st.bytes == n, "%s: store over the damaged entry: %s", what, st.why);
  CHECK(hit_with(c, key, payload, n, &st), "%s: no hit after the store replaced the damaged entry", what);
}

static void cut_payload(unsigned char *b, size_t *len) { (void)b, *len -= 3; }
static void cut_header(unsigned char *b, size_t *len) { (void)b, *len = 100; }
static void cut_all(unsigned char *b, size_t *len) { (void)b, *len = 0; }
static void flip_payload(unsigned char *b, size_t *len) { b[*len - 5] ^= 0x10; }
static void foreign_magic(unsigned char *b, size_t *len) { (void)len, memcpy(b, "\x7f" "ELF", 4); }
static void newer_version(unsigned char *b, size_t *len) { (void)len, b[8] = 2; }
static void flip_key(unsigned char *b, size_t *len) { (void)len, b[16 + 10] ^= 1; }
static void flip_length(unsigned char *b, size_t *len) { (void)len, b[80] ^= 1; }

int main(void) {
  snprintf(root, sizeof root, "/tmp/feint-t103-XXXXXX");
  CHECK(mkdtemp(root) != NULL, "mkdtemp");
  unsetenv("FEINT_NO_CACHE");
  unsetenv("FEINT_CACHE_DIR");

  /* keys */
  char k1[65], k2[65], k3[65];
  key_of("y[i] = a*x[i] + b;", k1);
  key_of("y[i] = a*x[i] + b;", k2);
  CHECK(!strcmp(k1, k2) && strlen(k1) == 64, "the same fields give different keys");
  key_of("y[i] = a*x[i] - b;", k2);
  CHECK(strcmp(k1, k2), "another source gives the same key");
  feint_cache_key ka, kb;
  feint_cache_key_init(&ka, "test");
  feint_cache_key_add_str(&ka, "a", "ab");
  feint_cache_key_add_str(&ka, "b", "c");
  feint_cache_key_init(&kb, "test");
  feint_cache_key_add_str(&kb, "a", "a");
  feint_cache_key_add_str(&kb, "b", "bc");
  feint_cache_key_final(&ka, k3);
  char k4[65];
  feint_cache_key_final(&kb, k4);
  CHECK(strcmp(k3, k4), "fields are not delimited: (ab, c) and (a, bc) share a key");

  /* round trip in a directory created by the first store (two levels) */
  char dir[512];
  snprintf(dir, sizeof dir, "%s/a/feint", root);
  feint_cache *c;
  CHECK_OK(feint_cache_open(dir, 1, &c));
  CHECK(feint_cache_enabled(c) && !strcmp(feint_cache_dir(c), dir), "cache in %s not on", dir);
  CHECK(!exists(dir), "open created the directory");
  feint_cache_stats st;
  void *data;
  size_t size;
  CHECK_OK(feint_cache_lookup(c, k1, &data, &size, &st));
  CHECK(!st.hit && !st.rejected && !data, "lookup in an empty cache: hit %d rejected %d", st.hit, st.rejected);
  const char payload[] = "\x7f" "ELF a pretend CUBIN with a NUL \0 inside, 64 bytes long.......";
  const size_t n = sizeof payload;
  CHECK_OK(feint_cache_store(c, k1, payload, n, &st));
  CHECK(st.stored && st.bytes == n && st.ms >= 0, "store: stored %d bytes %zu: %s", st.stored, st.bytes, st.why);
  printf("store: %zu bytes in %.3f ms\n", st.bytes, st.ms);
  CHECK(exists(dir), "store did not create the directory");
  struct stat s;
  CHECK(stat(dir, &s) == 0 && (s.st_mode & 0777) == 0700, "the directory's mode is %o, expected 700",
        (unsigned)(s.st_mode & 0777));
  CHECK(hit_with(c, k1, payload, n, &st), "no hit with the stored payload");
  printf("lookup: hit %d, %zu bytes in %.3f ms\n", st.hit, st.bytes, st.ms);
  CHECK_OK(feint_cache_lookup(c, k2, &data, &size, &st));
  CHECK(!st.hit && !st.rejected && !data, "another key hits");
  /* an empty payload is an entry too */
  CHECK_OK(feint_cache_store(c, k2, "", 0, &st));
  CHECK(st.stored, "empty payload not stored: %s", st.why);
  CHECK_OK(feint_cache_lookup(c, k2, &data, &size, &st));
  CHECK(st.hit && data && size == 0, "empty payload: hit %d size %zu", st.hit, size);
  free(data);
  /* a second cache object on the same directory (the next run) hits */
  feint_cache *c2;
  CHECK_OK(feint_cache_open(dir, 1, &c2));
  CHECK(hit_with(c2, k1, payload, n, &st), "a second cache on the directory misses");
  feint_cache_close(c2);

  /* damaged entries */
  check_damage(c, k1, payload, n, "payload truncated", cut_payload, "truncated");
  check_damage(c, k1, payload, n, "header truncated", cut_header, "truncated");
  check_damage(c, k1, payload, n, "empty file", cut_all, "not a feint cache entry");
  check_damage(c, k1, payload, n, "payload byte flipped", flip_payload, "corrupt");
  check_damage(c, k1, payload, n, "foreign magic", foreign_magic, "not a feint cache entry");
  check_damage(c, k1, payload, n, "newer format version", newer_version, "format version 2");
  check_damage(c, k1, payload, n, "another key inside", flip_key, "another key");
  check_damage(c, k1, payload, n, "length field changed", flip_length, "payload bytes");
  {
    /* bytes past the end, and another key's whole entry copied here */
    char path[4096], path2[4096];
    feint_cache_entry_path(c, k1, path, sizeof path);
    feint_cache_entry_path(c, k2, path2, sizeof path2);
    unsigned char *buf;
    size_t len;
    read_file(path, &buf, &len);
    if (buf) {
      FILE *f = fopen(path, "ab");
      CHECK(f && fwrite("xy", 1, 2, f) == 2, "append");
      if (f) fclose(f);
      CHECK_OK(feint_cache_lookup(c, k1, &data, &size, &st));
      CHECK(!st.hit && st.rejected && strstr(st.why, "past its end"), "bytes past the end: %s", st.why);
      printf("%-28s rejected: %s\n", "bytes past the end", st.why);
      free(buf);
    }
    read_file(path2, &buf, &len);
    if (buf) {
      write_file(path, buf, len);
      CHECK_OK(feint_cache_lookup(c, k1, &data, &size, &st));
      CHECK(!st.hit && st.rejected && strstr(st.why, "another key"), "another key's entry: %s", st.why);
      printf("%-28s rejected: %s\n", "another key's entry", st.why);
      free(buf);
    }
    /* a directory where the entry should be */
    unlink(path);
    CHECK(mkdir(path, 0700) == 0, "mkdir %s", path);
    CHECK_OK(feint_cache_lookup(c, k1, &data, &size, &st));
    CHECK(!st.hit && !data, "a directory as entry hits");
    rmdir(path);
    CHECK_OK(feint_cache_store(c, k1, payload, n, &st));
  }
  int hidden, all;
  count_files(dir, &hidden, &all);
  CHECK(hidden == 0 && all == 2, "after the stores: %d temporary files, %d files (expected 0 and 2)", hidden, all);
  CHECK(!strcmp(feint_cache_warning(c), ""), "a warning without a failure: %s", feint_cache_warning(c));
  feint_cache_close(c);

  /* a directory that cannot be created: under a regular file */
  char file[512], bad[600];
  snprintf(file, sizeof file, "%s/file", root);
  write_file(file, "x", 1);
  snprintf(bad, sizeof bad, "%s/cache", file);
  CHECK_OK(feint_cache_open(bad, 1, &c));
  CHECK_OK(feint_cache_lookup(c, k1, &data, &size, &st));
  CHECK(!st.hit && !data, "hit under a file");
  CHECK_OK(feint_cache_store(c, k1, payload, n, &st));
  CHECK(!st.stored && strstr(st.why, "cannot create the cache directory"), "store under a file: stored %d, %s",
        st.stored, st.why);
  CHECK(strstr(feint_cache_warning(c), "not written") && strstr(feint_cache_warning(c), "FEINT_CACHE_DIR"),
        "warning: \"%s\"", feint_cache_warning(c));
  printf("uncreatable directory: warning: %s\n", feint_cache_warning(c));
  CHECK_OK(feint_cache_store(c, k1, payload, n, &st));
  CHECK(!st.stored && !st.why[0], "a second store was tried after the first failed: %s", st.why);
  feint_cache_close(c);

  /* a read-only directory (root writes anyway: then said and skipped) */
  char ro[512];
  snprintf(ro, sizeof ro, "%s/ro", root);
  CHECK(mkdir(ro, 0500) == 0, "mkdir %s", ro);
  if (access(ro, W_OK) == 0) {
    printf("read-only directory: skipped (running as root, who may write it)\n");
  } else {
    CHECK_OK(feint_cache_open(ro, 1, &c));
    CHECK_OK(feint_cache_store(c, k1, payload, n, &st));
    CHECK(!st.stored && feint_cache_warning(c)[0], "store in a read-only directory: stored %d", st.stored);
    count_files(ro, &hidden, &all);
    CHECK(all == 0, "%d files left in the read-only directory", all);
    printf("read-only directory: warning: %s\n", feint_cache_warning(c));
    feint_cache_close(c);
  }
  chmod(ro, 0700);

  /* an off cache touches nothing: flag 0, FEINT_NO_CACHE=1 */
  char off[512];
  snprintf(off, sizeof off, "%s/off", root);
  for (int how = 0; how < 2; how++) {
    if (how) setenv("FEINT_NO_CACHE", "1", 1);
    CHECK_OK(feint_cache_open(off, how, &c)); /* how 0: the flag; 1: the variable */
    CHECK(!feint_cache_enabled(c) && !strcmp(feint_cache_dir(c), ""), "off cache (%d) is on", how);
    CHECK_OK(feint_cache_store(c, k1, payload, n, &st));
    CHECK(!st.stored, "off cache stored");
    CHECK_OK(feint_cache_lookup(c, k1, &data, &size, &st));
    CHECK(!st.hit && !st.rejected && !data, "off cache hit");
    CHECK(!exists(off), "off cache (%s) created its directory", how ? "FEINT_NO_CACHE=1" : "flag 0");
    CHECK(!strcmp(feint_cache_warning(c), ""), "off cache warns: %s", feint_cache_warning(c));
    feint_cache_close(c);
  }
  setenv("FEINT_NO_CACHE", "0", 1);
  CHECK_OK(feint_cache_open(off, 1, &c));
  CHECK(feint_cache_enabled(c), "FEINT_NO_CACHE=0 turned the cache off");
  feint_cache_close(c);
  setenv("FEINT_NO_CACHE", "yes", 1);
  c = NULL;
  CHECK(feint_cache_open(off, 1, &c) == FEINT_ERR_INPUT && !c, "FEINT_NO_CACHE=yes accepted");
  CHECK(strstr(feint_error_message(), "FEINT_NO_CACHE=yes"), "message: %s", feint_error_message());
  unsetenv("FEINT_NO_CACHE");

  /* the default directory */
  char want[600];
  setenv("FEINT_CACHE_DIR", off, 1);
  CHECK_OK(feint_cache_open(NULL, 1, &c));
  CHECK(!strcmp(feint_cache_dir(c), off), "FEINT_CACHE_DIR: %s", feint_cache_dir(c));
  feint_cache_close(c);
  unsetenv("FEINT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", root, 1);
  setenv("HOME", "/nonexistent-home", 1);
  CHECK_OK(feint_cache_open(NULL, 1, &c));
  snprintf(want, sizeof want, "%s/feint", root);
  CHECK(!strcmp(feint_cache_dir(c), want), "XDG_CACHE_HOME: %s, expected %s", feint_cache_dir(c), want);
  feint_cache_close(c);
  setenv("XDG_CACHE_HOME", "relative/dir", 1);
  CHECK_OK(feint_cache_open(NULL, 1, &c));
  CHECK(!strcmp(feint_cache_dir(c), "/nonexistent-home/.cache/feint"), "relative XDG_CACHE_HOME: %s",
        feint_cache_dir(c));
  feint_cache_close(c);
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  CHECK_OK(feint_cache_open(NULL, 1, &c));
  CHECK(!feint_cache_enabled(c) && strstr(feint_cache_warning(c), "no cache directory"), "no HOME: on %d, %s",
        feint_cache_enabled(c), feint_cache_warning(c));
  feint_cache_close(c);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  CHECK(system(cmd) == 0, "%s", cmd);
  return check_report("t103-cache");
}
