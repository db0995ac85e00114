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

/* The key of a cell whose vertex coordinates sum to sum[a] on axis a <
 * dim: the bits of the axes' boxes interleaved from the most significant
 * level down, x's bit above y's above z's within a level (2D, bits 2,
 * boxes qx = 2 = 10b, qy = 1 = 01b: key 1001b = 9). dim * bits <= 30. */
FEINT_HOST_DEVICE static inline int feint_morton_key(int dim, int bits, int nv, const double sum[3],
                                                     const double lo[3], const double hi[3]) {
  int q[3] = {0, 0, 0};
  for (int a = 0; a < dim; a++) q[a] = feint_morton_axis(sum[a], nv, lo[a], hi[a], bits);
  int k = 0;
  for (int bit = bits - 1; bit >= 0; bit--)
    for (int a = 0; a < dim; a++) k = k << 1 | (q[a] >> bit & 1);
  return k;
}

#endif
