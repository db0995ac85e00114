/* feint 1D rules and bases for tensor-product (quadrilateral, hexahedral)
 * elements of order N = 1..19 (the BP operators use N <= 15).
 *
 * Reference interval: [-1, 1] (the hexahedron is [-1, 1]^3, as in
 * Swirydowicz et al.). Points are in increasing order; weights sum to 2.
 *
 *   Gauss-Legendre (GL), n points: the roots of P_n; exact for polynomials
 *     of degree <= 2n - 1; all points interior.
 *   Gauss-Lobatto-Legendre (GLL), n >= 2 points: -1, the roots of P'_{n-1},
 *     +1; exact for degree <= 2n - 3. The nodes of the order N = n - 1
 *     Lagrange basis of the BP operators.
 *
 * Both are computed by Newton iteration on the three-term recurrence of the
 * Legendre polynomials, to round-off (|error| ~ 1e-15 for n <= 24).
 *
 * Lagrange matrices between two point sets. Given n distinct nodes x_0..x_{n-1}
 * and their Lagrange basis l_i (l_i(x_j) = delta_ij, degree n - 1), and m
 * points y_0..y_{m-1}:
 *   interpolation  I[q*n + i] = l_i(y_q)   (m x n, row-major)
 *   derivative     D[q*n + i] = l_i'(y_q)  (m x n, row-major)
 * so u(y_q) = sum_i I[q][i] u(x_i) and u'(y_q) = sum_i D[q][i] u(x_i) for
 * every polynomial u of degree <= n - 1 (exactly, up to round-off). With
 * y = x, I is the identity and D is the collocation differentiation matrix.
 * l_i' is evaluated as sum_{k != i} 1/(x_i - x_k) prod_{j != i,k}
 * (y - x_j)/(x_i - x_j) (O(n^2) per entry, no cancellation at the nodes). */
#ifndef FEINT_TENSOR_H
#define FEINT_TENSOR_H

#define FEINT_TENSOR_MAX_POINTS 24 /* degree 47: 3p + 2 at p = 15, a nodal coefficient on a hexahedron */

/* n in 1..24: x[n], w[n]. FEINT_ERR_INPUT for n out of range. */
int feint_gauss_legendre(int n, double *x, double *w);
/* n in 2..24: x[n], w[n]. */
int feint_gauss_lobatto(int n, double *x, double *w);

/* I (m x n) and D (m x n) as above; either may be NULL. n in 1..24, m >= 1;
 * FEINT_ERR_INPUT for coincident nodes. */
int feint_lagrange_matrices(int n, const double *nodes, int m, const double *points, double *I, double *D);

/* Legendre polynomial P_n(x) and its derivative (for tests and rules). */
void feint_legendre(int n, double x, double *p, double *dp);

#endif
