/* feint morton: the one Morton (Z-order) key of a cell, shared by the
 * host curve order (src/plan/cell_order.c) and the GPU one
 * (src/backend/cuda/cell_order.cu). Both must give every cell the same
 * key, bit for bit, or the two orders (and so the kernels' summation
 * orders) would differ: hence one definition, compiled for the host by
 * the C compiler and for the device by nvcc. */
#ifndef FEINT_MORTON_H
#define FEINT_MORTON_H

#include <stdint.h>

#include "feint/host_device.h"

/* Double arithmetic rounded to nearest and never contracted into a fused
 * multiply-add: the intrinsics on the device (nvcc may contract plain
 * expressions), the operators on the host (C11 does not contract across
 * statements, and feint's host flags do not enable FMA). */
#ifdef __CUDA_ARCH__
#define FEINT_DADD(a, b) __dadd_rn((a), (b))
#define FEINT_DSUB(a, b) __dsub_rn((a), (b))
#define FEINT_DMUL(a, b) __dmul_rn((a), (b))
#define FEINT_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define FEINT_DADD(a, b) ((a) + (b))
#define FEINT_DSUB(a, b) ((a) - (b))
#define FEINT_DMUL(a, b) ((a) * (b))
#define FEINT_DDIV(a, b) ((a) / (b))
#endif

/* The most bits per axis a key takes: dim * bits <= 30 keeps a key an int
 * (a 3D key of 10 bits per axis: 2^30 boxes). */
#define FEINT_MORTON_MAX_BITS 10

/* One axis of a centroid on `bits` bits: sum is the sum of the cell's nv
 * vertex coordinates on that axis (added in vertex order from 0, each with
 * FEINT_DADD), [lo, hi] the mesh's extent on it. The centroid's place in
 * [0, 1] times 2^bits, truncated, the top box holding the maximum; a flat
 * axis (hi <= lo) is box 0. */
FEINT_HOST_DEVICE static inline int feint_morton_axis(double sum, int nv, double lo, double hi, int bits) {
  const double f = hi > lo ? FEINT_DDIV(FEINT_DSUB(FEINT_DDIV(sum, (double)nv), lo), FEINT_DSUB(hi, lo)) : 0;
  const int q = (int)FEINT_DMUL(f, (double)(1 << bits)), top = (1 << bits) - 1;
  return q < top ? q : top;
}

/* The low 21 bits of v spread to every third bit (bit i to bit 3i), and
 * the low 32 bits of v to every other bit (bit i to bit 2i). */
FEINT_HOST_DEVICE static inline uint64_t feint_morton_spread3(uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}
FEINT_HOST_DEVICE static inline uint64_t feint_morton_spread2(uint64_t v) {
  v &= 0xffffffffull;
  /* runs of s bits moved 2s apart, s = 16, 8, 4, 2, 1: the mask is s ones
   * every 2s bits (0x0000ffff0000ffff, ..., 0x5555555555555555) */
  for (int s = 16; s >= 1; s /= 2) v = (v | v << s) & (~0ull / ((1ull << 2 * s) - 1) * ((1ull << s) - 1));
  return v;
}

/* The Morton code of boxes q0 .. q_{dim-1} (dim 1..3; up to 21 bits each
 * in 3D, 32 in 2D): their bits interleaved level by level, q0's bit the
 * highest of a level (q1, q2 unused below dim). Both curves take it: the
 * cells' (x first) and the nodes' (feint_mesh_reorder_nodes: z first). */
FEINT_HOST_DEVICE static inline uint64_t feint_morton_interleave(int dim, uint64_t q0, uint64_t q1, uint64_t q2) {
  if (dim == 3) return feint_morton_spread3(q0) << 2 | feint_morton_spread3(q1) << 1 | feint_morton_spread3(q2);
  if (dim == 2) return feint_morton_spread2(q0) << 1 | feint_morton_spread2(q1);
  return q0;
}

/* The key of a cell whose vertex coordinates sum to sum[a] on axis a <
 * dim: the axes' boxes interleaved, x's bit above y's above z's within a
 * level (2D, bits 2, boxes qx = 2 = 10b, qy = 1 = 01b: key 1001b = 9).
 * dim * bits <= 30. */
FEINT_HOST_DEVICE static inline int feint_morton_key(int dim, int bits, int nv, const double sum[3],
                                                     const double lo[3], const double hi[3]) {
  const uint64_t mask = ((uint64_t)1 << bits) - 1;
  uint64_t q[3] = {0, 0, 0};
  for (int a = 0; a < dim; a++) q[a] = (uint64_t)feint_morton_axis(sum[a], nv, lo[a], hi[a], bits) & mask;
  return (int)feint_morton_interleave(dim, q[0], q[1], q[2]);
}

#endif
