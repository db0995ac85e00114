/* SHA-256 (FIPS 180-4), for provenance hashes of case and mesh files. */
#ifndef FEINT_SHA256_H
#define FEINT_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t state[8];
  uint64_t length;
  uint8_t block[64];
  size_t fill;
} feint_sha256;

void feint_sha256_init(feint_sha256 *h);
void feint_sha256_update(feint_sha256 *h, const void *data, size_t n);
/* Writes 64 lowercase hex digits and a NUL into hex[65]. */
void feint_sha256_final(feint_sha256 *h, char hex[65]);
/* Tests: 1 makes the hash use the portable compression function even
 * where the processor's SHA extensions are used by default. */
void feint_sha256_use_portable(int on);
/* 1 where the hash now uses the processor's SHA extensions (they exist and
 * the portable path was not asked for), else 0: tests say what they compared. */
int feint_sha256_uses_sha_ni(void);
/* Hash a whole file; FEINT_ERR_INPUT naming the file if it can't be read. */
int feint_sha256_file(const char *path, char hex[65]);
/* The hash of a file computed on a thread of its own, so that it overlaps
 * the run (a 277 MB mesh takes about 0.8 s on one core): start, then wait
 * where the hash is needed (errors are reported there, as
 * feint_sha256_file's), then destroy (joins a thread still running). */
typedef struct feint_sha256_job feint_sha256_job;
int feint_sha256_file_start(const char *path, feint_sha256_job **job);
int feint_sha256_file_wait(feint_sha256_job *job, char hex[65]);
/* The path being hashed (NULL for no job). */
const char *feint_sha256_job_path(const feint_sha256_job *job);
void feint_sha256_job_destroy(feint_sha256_job *job);
#endif
