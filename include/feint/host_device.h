/* FEINT_HOST_DEVICE: a function that the host C code and the CUDA kernels
 * both call, written once (__host__ __device__ under nvcc, plain C
 * elsewhere). feint/physics.h still defines it itself (identically): its
 * include would recompile every kernel file, so it moves here with the
 * next change to physics.h. */
#ifndef FEINT_HOST_DEVICE_H
#define FEINT_HOST_DEVICE_H

#ifndef FEINT_HOST_DEVICE
#ifdef __CUDACC__
#define FEINT_HOST_DEVICE __host__ __device__
#else
#define FEINT_HOST_DEVICE
#endif
#endif

#endif
