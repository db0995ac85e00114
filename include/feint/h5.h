/* feint HDF5 access: reading coefficient datasets and writing the output
 * file atomically (temporary name in the same directory, renamed on
 * success, removed on failure), in the layout of ../shared/case-format.md. */
#ifndef FEINT_H5_H
#define FEINT_H5_H

#include <stdint.h>

/* Read a 1-D float dataset of exactly `n` values (converted to double).
 * Errors name `where`, the file and the dataset, and say what was expected. */
int feint_h5_read_doubles(const char *file, const char *dataset, int64_t n, const char *where,
                          double **out);

typedef struct feint_output feint_output;

/* Create the temporary file beside `path` (fails early, FEINT_ERR_INPUT,
 * if the directory is not writable). */
int feint_output_create(const char *path, feint_output **out);
/* Datasets; names may contain '/' (groups are created). */
int feint_output_doubles(feint_output *o, const char *name, int rank, const int64_t *dims,
                         const double *data);
int feint_output_int64(feint_output *o, const char *name, int rank, const int64_t *dims,
                       const int64_t *data);
int feint_output_int32(feint_output *o, const char *name, int rank, const int64_t *dims,
                       const int32_t *data);
/* CSR matrix group `name`: indptr, indices (int64, from 32- or 64-bit
 * column indices in memory: exactly one of indices / indices64 non-NULL),
 * data (float64); the MATLAB v7.3 sparse layout beside them: jc, ir (copies
 * of indptr, indices as uint64, the type MATLAB writes), attributes
 * MATLAB_sparse (uint64) = n_rows and MATLAB_class = "double"; attribute
 * shape = [n_rows, n_cols]. Datasets written by the other functions carry
 * MATLAB_class ("double", "int64", "int32") too. */
int feint_output_csr(feint_output *o, const char *name, int64_t n_rows, int64_t n_cols,
                     const int64_t *indptr, const int32_t *indices, const int64_t *indices64, const double *data);
/* Attributes on the root group or on an object. */
int feint_output_attr_string(feint_output *o, const char *object, const char *name, const char *value);
int feint_output_attr_double(feint_output *o, const char *object, const char *name, double value);
int feint_output_attr_int64(feint_output *o, const char *object, const char *name, int64_t value);
/* Close and rename to the final path. Frees o in every case. */
int feint_output_commit(feint_output *o);
/* Close and remove the temporary file. Frees o. */
void feint_output_abort(feint_output *o);

/* Matrix Market (.mtx) export of a CSR matrix: "coordinate real general",
 * 1-based, values with 17 significant digits, `comment` (may be NULL) as
 * comment lines; written atomically (temporary name, then rename). */
int feint_write_matrix_market(const char *path, int64_t n_rows, int64_t n_cols, const int64_t *indptr,
                              const int32_t *indices, const int64_t *indices64, const double *values,
                              const char *comment);

#endif
