/* feint_file_hash: see feint/file_hash.h. */
#include "feint/file_hash.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "feint/cache.h"
#include "feint/error.h"
#include "feint/sha256.h"

struct feint_file_hash {
  char *path;
  feint_sha256_job *job; /* NULL: taken from the cache */
  feint_cache *cache;
  struct stat before; /* the file as it was when the hash began (where `keyed`) */
  double began;       /* wall-clock seconds, as the file's times */
  int keyed, cached, settled;
  char key[65], hex[65];
};

static double wall_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double seconds_of(struct timespec t) { return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void key_of(const char *real, const struct stat *s, char key[65]) {
  feint_cache_key k;
  feint_cache_key_init(&k, "file-sha256");
  feint_cache_key_add_str(&k, "path", real);
  feint_cache_key_add_int(&k, "device", (long long)s->st_dev);
  feint_cache_key_add_int(&k, "inode", (long long)s->st_ino);
  feint_cache_key_add_int(&k, "size", (long long)s->st_size);
  feint_cache_key_add_int(&k, "mtime_s", (long long)s->st_mtim.tv_sec);
  feint_cache_key_add_int(&k, "mtime_ns", (long long)s->st_mtim.tv_nsec);
  feint_cache_key_add_int(&k, "ctime_s", (long long)s->st_ctim.tv_sec);
  feint_cache_key_add_int(&k, "ctime_ns", (long long)s->st_ctim.tv_nsec);
  feint_cache_key_final(&k, key);
}

static int is_hex64(const char *s, size_t n) {
  if (n != 64) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
  return 1;
}

int feint_file_hash_start(const char *path, int use_cache, feint_file_hash **out) {
  *out = NULL;
  feint_file_hash *h = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *h, &h, "a file's hash"));
  int status = feint_strdup(path, &h->path);
  if (!status) status = feint_cache_open(NULL, use_cache, &h->cache);
  char real[PATH_MAX];
  if (!status && feint_cache_enabled(h->cache) && stat(path, &h->before) == 0 && S_ISREG(h->before.st_mode) &&
      realpath(path, real)) {
    h->keyed = 1;
    key_of(real, &h->before, h->key);
    void *data = NULL;
    size_t size = 0;
    status = feint_cache_lookup(h->cache, h->key, &data, &size, NULL);
    if (!status && data && is_hex64(data, size)) {
      memcpy(h->hex, data, 64);
      h->cached = 1;
    }
    free(data);
  }
  if (!status && !h->cached) {
    h->began = wall_now();
    const double changed = seconds_of(h->before.st_mtim) > seconds_of(h->before.st_ctim)
                               ? seconds_of(h->before.st_mtim)
                               : seconds_of(h->before.st_ctim);
    h->settled = h->keyed && h->began - changed >= FEINT_FILE_HASH_SETTLED;
    status = feint_sha256_file_start(path, &h->job);
  }
  if (status) {
    feint_file_hash_destroy(h);
    return status;
  }
  *out = h;
  return FEINT_OK;
}

int feint_file_hash_wait(feint_file_hash *h, char hex[65]) {
  if (!h->cached) {
    FEINT_CALL(feint_sha256_file_wait(h->job, h->hex));
    struct stat after;
    if (h->settled && stat(h->path, &after) == 0 && same_file(&h->before, &after))
      feint_cache_store(h->cache, h->key, h->hex, 64, NULL); /* never fails the run */
    h->settled = 0;                                            /* stored once */
  }
  memcpy(hex, h->hex, 65);
  return FEINT_OK;
}

const char *feint_file_hash_path(const feint_file_hash *h) { return h ? h->path : NULL; }

int feint_file_hash_cached(const feint_file_hash *h) { return h && h->cached; }

void feint_file_hash_destroy(feint_file_hash *h) {
  if (!h) return;
  feint_sha256_job_destroy(h->job);
  feint_cache_close(h->cache);
  free(h->path);
  free(h);
}
