/* A file's SHA-256 for a run's provenance (the mesh's), computed on a
 * thread of its own beside the run, or taken from feint's cache
 * (feint/cache.h) where the file is the one hashed before.
 *
 * "The same file": the same absolute path, device, inode, size, and
 * modification and change times to the nanosecond. A write changes the
 * times, but within the file system's clock tick (a few ms) two writes
 * can leave the same ones; so a hash is kept only where the file had not
 * changed for FEINT_FILE_HASH_SETTLED seconds when it was hashed, and its
 * times had not moved when the hash was done (as git's index treats
 * "racily clean" entries). The change time cannot be set by a user, so
 * a file given old times (touch -d) is still hashed again.
 *
 * The hash of a 1.1 GB mesh takes its thread 0.9-1.9 s (SHA-256 is
 * sequential); four ranks' runs of it waited up to 0.64 s for it. */
#ifndef FEINT_FILE_HASH_H
#define FEINT_FILE_HASH_H

enum { FEINT_FILE_HASH_SETTLED = 2 };

typedef struct feint_file_hash feint_file_hash;

/* Start hashing path (use_cache 0: no cache, as --no-cache and a case's
 * cache: false turn off the compiled code's). Errors: out of memory and a
 * bad FEINT_NO_CACHE (feint_cache_open's) only: a file that cannot be read
 * is reported by the wait. */
int feint_file_hash_start(const char *path, int use_cache, feint_file_hash **out);
/* The hash into hex[65] (64 hex digits); FEINT_ERR_INPUT naming the file
 * if it cannot be read. A hash computed is stored in the cache where the
 * file qualifies (above). */
int feint_file_hash_wait(feint_file_hash *h, char hex[65]);
/* The path being hashed (NULL for no hash). */
const char *feint_file_hash_path(const feint_file_hash *h);
/* 1 where the hash came from the cache. */
int feint_file_hash_cached(const feint_file_hash *h);
/* Joins a thread still running. */
void feint_file_hash_destroy(feint_file_hash *h);

#endif
