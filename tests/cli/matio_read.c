/* matio_read FILE VAR: load a variable of a MAT-file with libmatio (the
 * reader Debian has; no MATLAB here) and print it: a sparse matrix as
 * "sparse ROWS COLS NNZ" and one "row col value" line per entry (0-based,
 * MATLAB's column-major order), a dense double array as "dense N" and its
 * values. The output tests check feint's v7.3 layout with it. */
#include <matio.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: matio_read FILE.h5 VARIABLE\n");
    return 2;
  }
  mat_t *mat = Mat_Open(argv[1], MAT_ACC_RDONLY);
  if (!mat) {
    fprintf(stderr, "matio_read: %s: not a MAT-file libmatio opens\n", argv[1]);
    return 1;
  }
  matvar_t *v = Mat_VarRead(mat, argv[2]);
  if (!v) {
    fprintf(stderr, "matio_read: %s: no variable '%s' libmatio reads\n", argv[1], argv[2]);
    Mat_Close(mat);
    return 1;
  }
  int status = 0;
  if (v->class_type == MAT_C_SPARSE && v->rank == 2) {
    const mat_sparse_t *s = v->data;
    const double *x = s->data;
    printf("sparse %zu %zu %d\n", v->dims[0], v->dims[1], s->ndata);
    for (int c = 0; c + 1 < s->njc; c++)
      for (mat_uint32_t k = s->jc[c]; k < s->jc[c + 1]; k++) printf("%u %d %.17g\n", s->ir[k], c, x[k]);
  } else if (v->class_type == MAT_C_DOUBLE) {
    const double *x = v->data;
    size_t n = v->nbytes / sizeof(double);
    printf("dense %zu\n", n);
    for (size_t k = 0; k < n; k++) printf("%.17g\n", x[k]);
  } else {
    fprintf(stderr, "matio_read: '%s' is of class %d\n", argv[2], (int)v->class_type);
    status = 1;
  }
  Mat_VarFree(v);
  Mat_Close(mat);
  return status;
}
