/* The on-disk cache of compiled code (issue 19): a run-time compiled
 * kernel (NVRTC's CUBIN) is kept in a file named by a SHA-256 of
 * everything that determines it, so that a second run loads it instead of
 * compiling again.
 *
 * Where: the directory given to feint_cache_open, else FEINT_CACHE_DIR,
 * else $XDG_CACHE_HOME/feint (an absolute XDG_CACHE_HOME only, as the XDG
 * base directory specification says), else $HOME/.cache/feint; created
 * (with its parents, mode 0700) by the first store. FEINT_NO_CACHE=1 turns
 * the cache off as the enabled flag 0 does.
 *
 * An entry, <dir>/<key>.bin, is a 152-byte header (magic, format version,
 * header size, its own key, payload length, SHA-256 of the payload) and
 * the payload. It is written to a temporary file in the same directory
 * and renamed over the entry, so a reader sees a whole entry or none, and
 * two processes storing the same key both leave a whole one. A lookup
 * checks the whole header and the payload's checksum: a truncated,
 * corrupt or foreign file is ignored (the lookup misses, saying why) and
 * the next store replaces it.
 *
 * The cache never fails a run: a directory that cannot be created or
 * written makes stores do nothing, with one warning (feint_cache_warning)
 * for the caller to print; lookups keep reading what is there (a cache
 * filled by someone else may be read-only). Only out of memory and a bad
 * FEINT_NO_CACHE value are errors. One feint_cache serves one thread at a
 * time (processes may share the directory: stores are atomic). */
#ifndef FEINT_CACHE_H
#define FEINT_CACHE_H

#include <stddef.h>

#include "feint/sha256.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The key of an entry: a SHA-256 over named fields. Every field is hashed
 * with its name and length, so ("ab", "c") and ("a", "bc") differ; init
 * hashes feint's version and what the entry holds (e.g. "nvrtc-cubin"),
 * so no key survives a new feint. */
typedef struct {
  feint_sha256 h;
} feint_cache_key;

void feint_cache_key_init(feint_cache_key *k, const char *what);
void feint_cache_key_add(feint_cache_key *k, const char *name, const void *data, size_t n);
void feint_cache_key_add_str(feint_cache_key *k, const char *name, const char *s);
void feint_cache_key_add_int(feint_cache_key *k, const char *name, long long v);
/* 64 lowercase hex digits and a NUL into hex[65]. */
void feint_cache_key_final(feint_cache_key *k, char hex[65]);

/* What one lookup or store did. */
typedef struct {
  int hit;      /* lookup: 1 a valid entry was read */
  int rejected; /* lookup: a file was there but is not a valid entry of this key (why) */
  int stored;   /* store: 1 the entry was written */
  size_t bytes; /* payload bytes read (a hit) or written (a store) */
  double ms;    /* wall time of the lookup or store */
  char why[224]; /* rejected: what was wrong with the file; a failed store: why */
} feint_cache_stats;

typedef struct feint_cache feint_cache;

/* A cache in dir (NULL: the default above). enabled 0, or FEINT_NO_CACHE=1:
 * an off cache, whose lookups miss and stores do nothing without touching
 * any file. FEINT_NO_CACHE other than unset, "", 0 or 1: FEINT_ERR_INPUT.
 * No directory to be found (no FEINT_CACHE_DIR, XDG_CACHE_HOME nor HOME):
 * an off cache with a warning. Nothing is created here. */
int feint_cache_open(const char *dir, int enabled, feint_cache **out);
void feint_cache_close(feint_cache *c);

/* 1 when lookups and stores may touch the directory. */
int feint_cache_enabled(const feint_cache *c);
/* The directory ("" when the cache is off). */
const char *feint_cache_dir(const feint_cache *c);
/* Why the cache is off or no longer stores ("" when nothing went wrong):
 * one sentence for the caller to print as a warning. */
const char *feint_cache_warning(const feint_cache *c);

/* The payload of the entry of key into *data (a new buffer, free(); NULL
 * on a miss) and *size. A miss (no entry, an invalid one, an off cache)
 * is FEINT_OK with *data NULL; st (may be NULL) says which. Errors: out
 * of memory only. */
int feint_cache_lookup(feint_cache *c, const char key[65], void **data, size_t *size, feint_cache_stats *st);

/* Write size bytes of data as the entry of key (atomically replacing any
 * file there). Always FEINT_OK: a failure to write leaves no file behind,
 * sets st->why and the cache's warning, and turns further stores off. */
int feint_cache_store(feint_cache *c, const char key[65], const void *data, size_t size, feint_cache_stats *st);

/* The path of key's entry into path[size] (tests corrupt it): 0, or -1
 * when the cache is off or the path does not fit. */
int feint_cache_entry_path(const feint_cache *c, const char key[65], char *path, size_t size);

#ifdef __cplusplus
}
#endif

#endif
