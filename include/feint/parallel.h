/* feint parallel: a loop over [0, n) split into contiguous ranges, one per
 * core (at most 16), for the host's bandwidth-bound passes over large
 * arrays (narrowing and widening index arrays, first-touching buffers,
 * marking vertices). Small loops stay on the caller's thread. */
#ifndef FEINT_PARALLEL_H
#define FEINT_PARALLEL_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most ranges a loop is split into: per-range result arrays of this size suffice. */
enum { FEINT_PARALLEL_MAX_RANGES = 16 };

/* fn(begin, end, ctx) runs on each range [begin, end); the ranges cover
 * [0, n) in order, range t of T being [n t / T, n (t + 1) / T). T is the
 * number of cores (at most 16; FEINT_THREADS caps it), fewer so that each range holds at least
 * `grain` items (grain < 1: 1). A thread that cannot be created runs its
 * range on the caller's thread: the loop always completes. Returns T. */
typedef void (*feint_range_fn)(int64_t begin, int64_t end, void *ctx);
int feint_parallel_for(int64_t n, int64_t grain, feint_range_fn fn, void *ctx);

/* As feint_parallel_for, with each range's index t (0 <= t < T) passed to
 * fn, for passes that keep one result per range. */
typedef void (*feint_indexed_range_fn)(int64_t begin, int64_t end, int range, void *ctx);
int feint_parallel_for_indexed(int64_t n, int64_t grain, feint_indexed_range_fn fn, void *ctx);

/* Where range t of T over n items starts: n t / T (range T starts at n). */
int64_t feint_parallel_range_start(int64_t n, int ranges, int t);

/* The number of ranges feint_parallel_for would use for n items. */
int feint_parallel_ranges(int64_t n, int64_t grain);
/* memcpy on every core, in ranges of at least 1 MiB: copies into fresh
 * memory are bound by its first touch, which one core does at a fraction
 * of the host's rate. */
void feint_parallel_memcpy(void *dst, const void *src, size_t bytes);
/* The CPUs this process may run on (its affinity mask; else those online). */
int feint_parallel_cpus(void);
/* A cap on every loop's ranges from now on (0: none; FEINT_THREADS still
 * applies), for a process that shares its host's cores with others for
 * a while; returns the cap before. */
int feint_parallel_cap(int threads);

#ifdef __cplusplus
}
#endif
#endif
