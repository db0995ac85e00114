/* The on-disk cache of compiled code: see include/feint/cache.h. */
#include "feint/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feint/driver.h"
#include "feint/error.h"
#include "feint/version.h"

/* The header, little-endian whatever the host:
 *   0  magic "FEINTCA\x1a"  8
 *   8  format version (u32)
 *  12  header bytes (u32)
 *  16  key, 64 hex digits
 *  80  payload bytes (u64)
 *  88  SHA-256 of the payload, 64 hex digits
 * 152  payload */
#define MAGIC "FEINTCA\x1a"
#define FORMAT_VERSION 1u
#define HEADER_BYTES 152
/* A compiled module is a few hundred KB; a larger "entry" is not ours and
 * is not read into memory. */
#define MAX_PAYLOAD ((uint64_t)1 << 30)

struct feint_cache {
  int on;       /* lookups and stores touch dir */
  int storing;  /* stores are tried (0 after one failed) */
  char *dir;
  char warning[512];
};

/* snprintf into a reason (st->why, the warning): a long path is cut,
 * which is all a reason needs (vsnprintf: no truncation warning). */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

void feint_cache_key_add(feint_cache_key *k, const char *name, const void *data, size_t n) {
  unsigned char len[8];
  put_u64(len, n);
  feint_sha256_update(&k->h, name, strlen(name) + 1);
  feint_sha256_update(&k->h, len, sizeof len);
  if (n) feint_sha256_update(&k->h, data, n);
}

void feint_cache_key_add_str(feint_cache_key *k, const char *name, const char *s) {
  feint_cache_key_add(k, name, s ? s : "", s ? strlen(s) : 0);
}

void feint_cache_key_add_int(feint_cache_key *k, const char *name, long long v) {
  unsigned char b[8];
  put_u64(b, (uint64_t)v);
  feint_cache_key_add(k, name, b, sizeof b);
}

void feint_cache_key_init(feint_cache_key *k, const char *what) {
  feint_sha256_init(&k->h);
  feint_cache_key_add_int(k, "cache format", FORMAT_VERSION);
  feint_cache_key_add_str(k, "feint version", FEINT_VERSION);
  feint_cache_key_add_str(k, "what", what);
}

void feint_cache_key_final(feint_cache_key *k, char hex[65]) { feint_sha256_final(&k->h, hex); }

static void payload_checksum(const void *data, size_t size, char hex[65]) {
  feint_sha256 h;
  feint_sha256_init(&h);
  if (size) feint_sha256_update(&h, data, size);
  feint_sha256_final(&h, hex);
}

/* The directory by the rules of cache.h into *dir (NULL: none found). */
static int default_dir(char **dir) {
  *dir = NULL;
  const char *over = getenv("FEINT_CACHE_DIR");
  if (over && *over) return feint_strdup(over, dir);
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  const char *base = xdg && xdg[0] == '/' ? xdg : home && *home ? home : NULL;
  if (!base) return FEINT_OK;
  const char *tail = base == xdg ? "/feint" : "/.cache/feint";
  size_t n = strlen(base) + strlen(tail) + 1;
  FEINT_CALL(feint_malloc(n, 1, dir, "the cache directory's name"));
  snprintf(*dir, n, "%s%s", base, tail);
  return FEINT_OK;
}

int feint_cache_open(const char *dir, int enabled, feint_cache **out) {
  *out = NULL;
  const char *no = getenv("FEINT_NO_CACHE");
  if (no && *no && strcmp(no, "0") && strcmp(no, "1"))
    return feint_error_set(FEINT_ERR_INPUT, "FEINT_NO_CACHE=%s: expected 1 (no cache of compiled code) or 0", no);
  feint_cache *c;
  FEINT_CALL(feint_calloc(1, sizeof *c, &c, "the cache"));
  if (enabled && !(no && !strcmp(no, "1"))) {
    int status = dir ? feint_strdup(dir, &c->dir) : default_dir(&c->dir);
    if (status) {
      free(c);
      return status;
    }
    if (c->dir)
      c->on = c->storing = 1;
    else
      say(c->warning, sizeof c->warning,
               "no cache directory (neither FEINT_CACHE_DIR, XDG_CACHE_HOME nor HOME is set): compiled code is "
               "not cached");
  }
  *out = c;
  return FEINT_OK;
}

void feint_cache_close(feint_cache *c) {
  if (!c) return;
  free(c->dir);
  free(c);
}

int feint_cache_enabled(const feint_cache *c) { return c && c->on; }
const char *feint_cache_dir(const feint_cache *c) { return c && c->on ? c->dir : ""; }
const char *feint_cache_warning(const feint_cache *c) { return c ? c->warning : ""; }

int feint_cache_entry_path(const feint_cache *c, const char key[65], char *path, size_t size) {
  if (!feint_cache_enabled(c)) return -1;
  int n = snprintf(path, size, "%s/%.64s.bin", c->dir, key);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void stats_reset(feint_cache_stats *st) { memset(st, 0, sizeof *st); }

/* Reads the header of the open file f of size bytes and checks it against
 * key: 0 and the payload's length and checksum, or -1 with why. */
static int check_header(FILE *f, uint64_t size, const char key[65], uint64_t *length, char sum[65], char *why,
                        size_t why_size) {
  unsigned char h[HEADER_BYTES];
  size_t got = fread(h, 1, sizeof h, f);
  if (got < 8 || memcmp(h, MAGIC, 8)) {
    say(why, why_size, "not a feint cache entry (%s)", got < 8 ? "shorter than the magic" : "another magic");
    return -1;
  }
  if (got < HEADER_BYTES) {
    say(why, why_size, "truncated: %zu of the header's %d bytes", got, HEADER_BYTES);
    return -1;
  }
  uint32_t version = get_u32(h + 8), header = get_u32(h + 12);
  if (version != FORMAT_VERSION || header != HEADER_BYTES) {
    say(why, why_size, "cache format version %u (header %u bytes); this feint reads version %u", version, header,
             FORMAT_VERSION);
    return -1;
  }
  if (memcmp(h + 16, key, 64)) {
    say(why, why_size, "holds another key's entry (%.12s...)", (const char *)(h + 16));
    return -1;
  }
  *length = get_u64(h + 80);
  if (*length > MAX_PAYLOAD) {
    say(why, why_size, "its payload of %llu bytes is larger than any entry feint writes",
             (unsigned long long)*length);
    return -1;
  }
  if (size != HEADER_BYTES + *length) {
    say(why, why_size, "%s: %llu payload bytes in the file, %llu in its header",
             size < HEADER_BYTES + *length ? "truncated" : "bytes past its end",
             (unsigned long long)(size - HEADER_BYTES), (unsigned long long)*length);
    return -1;
  }
  memcpy(sum, h + 88, 64);
  sum[64] = 0;
  return 0;
}

int feint_cache_lookup(feint_cache *c, const char key[65], void **data, size_t *size, feint_cache_stats *st) {
  feint_cache_stats local;
  if (!st) st = &local;
  stats_reset(st);
  *data = NULL;
  *size = 0;
  if (!feint_cache_enabled(c)) return FEINT_OK;
  double t0 = feint_now();
  char path[4096];
  if (feint_cache_entry_path(c, key, path, sizeof path)) {
    say(st->why, sizeof st->why, "the cache directory's name is too long");
    st->ms = 1e3 * (feint_now() - t0);
    return FEINT_OK;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    /* no entry is the usual miss; any other reason is said */
    if (errno != ENOENT && errno != ENOTDIR) {
      st->rejected = 1;
      say(st->why, sizeof st->why, "cannot read: %s", strerror(errno));
    }
    st->ms = 1e3 * (feint_now() - t0);
    return FEINT_OK;
  }
  int status = FEINT_OK;
  struct stat s;
  uint64_t length = 0;
  char sum[65], got[65];
  unsigned char *buf = NULL;
  if (fstat(fileno(f), &s) || !S_ISREG(s.st_mode)) {
    say(st->why, sizeof st->why, "not a regular file");
  } else if (!check_header(f, (uint64_t)s.st_size, key, &length, sum, st->why, sizeof st->why)) {
    status = feint_malloc(length ? length : 1, 1, &buf, "a cache entry");
    if (!status && fread(buf, 1, length, f) != length) {
      say(st->why, sizeof st->why, "truncated while read (%s)", ferror(f) ? strerror(errno) : "end of file");
    } else if (!status) {
      payload_checksum(buf, length, got);
      if (strcmp(got, sum))
        say(st->why, sizeof st->why, "corrupt: the payload's SHA-256 is not the one in its header");
    }
  }
  fclose(f);
  if (!status && !st->why[0]) {
    *data = buf;
    *size = (size_t)length;
    st->hit = 1;
    st->bytes = (size_t)length;
  } else {
    free(buf);
    st->rejected = !status;
  }
  st->ms = 1e3 * (feint_now() - t0);
  return status;
}

/* mkdir -p dir with mode 0700 for what is created: 0, or -1 with errno. */
static int make_dirs(const char *dir) {
  char p[4096];
  size_t n = strlen(dir);
  if (n >= sizeof p) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(p, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] != '/' && p[i] != 0) continue;
    char keep = p[i];
    p[i] = 0;
    struct stat s;
    if (mkdir(p, 0700) && errno != EEXIST) return -1;
    if (stat(p, &s)) return -1;
    if (!S_ISDIR(s.st_mode)) {
      errno = ENOTDIR;
      return -1;
    }
    p[i] = keep;
  }
  return 0;
}

/* write(2) all of n bytes: 0, or -1 with errno. */
static int write_all(int fd, const void *data, size_t n) {
  const unsigned char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* A failed store: st->why, the cache's warning (once), stores off. */
static void store_failed(feint_cache *c, feint_cache_stats *st, const char *what, const char *path, int err) {
  say(st->why, sizeof st->why, "cannot %s %s: %s", what, path, strerror(err));
  if (!c->warning[0])
    say(c->warning, sizeof c->warning,
             "the cache of compiled code is not written (%s); set FEINT_CACHE_DIR to a writable directory, or "
             "FEINT_NO_CACHE=1",
             st->why);
  c->storing = 0;
}

int feint_cache_store(feint_cache *c, const char key[65], const void *data, size_t size, feint_cache_stats *st) {
  feint_cache_stats local;
  if (!st) st = &local;
  stats_reset(st);
  if (!feint_cache_enabled(c) || !c->storing) return FEINT_OK;
  double t0 = feint_now();
  char path[4096], tmp[4096 + 16];
  if (feint_cache_entry_path(c, key, path, sizeof path)) {
    store_failed(c, st, "name an entry in", c->dir, ENAMETOOLONG);
    st->ms = 1e3 * (feint_now() - t0);
    return FEINT_OK;
  }
  /* the temporary file beside the entry (rename is atomic within one file
   * system only), hidden by its dot from anyone listing entries */
  snprintf(tmp, sizeof tmp, "%s/.%.64s.XXXXXX", c->dir, key);
  unsigned char h[HEADER_BYTES];
  char sum[65];
  payload_checksum(data, size, sum);
  memcpy(h, MAGIC, 8);
  put_u32(h + 8, FORMAT_VERSION);
  put_u32(h + 12, HEADER_BYTES);
  memcpy(h + 16, key, 64);
  put_u64(h + 80, size);
  memcpy(h + 88, sum, 64);
  int fd = -1;
  if (make_dirs(c->dir)) {
    store_failed(c, st, "create the cache directory", c->dir, errno);
  } else if ((fd = mkstemp(tmp)) < 0) {
    store_failed(c, st, "write in the cache directory", c->dir, errno);
  } else {
    /* no fsync: an entry torn by a crash fails its checksum and is
     * rebuilt, which costs less than syncing every store */
    int failed = write_all(fd, h, sizeof h) || write_all(fd, data, size);
    int err = errno;
    if (close(fd) && !failed) {
      failed = 1;
      err = errno;
    }
    if (!failed && rename(tmp, path)) {
      failed = 1;
      err = errno;
    }
    if (failed) {
      unlink(tmp);
      store_failed(c, st, "write the cache entry", path, err);
    } else {
      st->stored = 1;
      st->bytes = size;
    }
  }
  st->ms = 1e3 * (feint_now() - t0);
  return FEINT_OK;
}
