/* feint HDF5 access: reading coefficient datasets and writing the output
 * file atomically (temporary name in the same directory, created at the
 * first write, renamed on success, removed on failure and on SIGINT,
 * SIGTERM and SIGHUP), in the layout of ../shared/case-format.md. */
#ifndef FEINT_H5_H
#define FEINT_H5_H

#include <stdint.h>

/* Read a 1-D float dataset of exactly `n` values (converted to double).
 * Errors name `where`, the file and the dataset, and say what was expected. */
int feint_h5_read_doubles(const char *file, const char *dataset, int64_t n, const char *where,
                          double **out);

typedef struct feint_output feint_output;

/* Check the target before anything is computed (FEINT_ERR_INPUT: an empty
 * name, a directory, a device, FIFO or socket, a dangling symbolic link, a
 * directory that cannot take a new file). A symbolic link is written
 * through: its target gets the file, the link stays. Nothing is created
 * until the first write. */
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
 * data (float64); the MATLAB v7.3 sparse layout beside them: jc, ir (hard
 * links to indptr, indices: each array is stored once), attributes
 * MATLAB_sparse (uint64) = n_rows and MATLAB_class = "double"; attribute
 * shape = [n_rows, n_cols]. With pattern_group non-NULL, indptr and
 * indices are links to pattern_group/indptr and /indices (in this file
 * when pattern_file is NULL, else external links into pattern_file) and
 * the arrays given are not written. data NULL: the data dataset is made
 * at its size and left for other writers (feint_output_suspend). Datasets
 * written by the other functions carry MATLAB_class ("double", "int64",
 * "int32") too. _reserve makes the same group with nnz entries and leaves
 * indptr (int64), indices (int64) and data for other writers (indptr and
 * indices linked as above when pattern_group is given). */
/* Start writing the CSR pattern of group `name` (name/indptr and
 * name/indices, as feint_output_csr writes them) on a thread of its own,
 * so that it is written while the caller computes the values; a later
 * feint_output_csr on the same name writes the rest. Every other call on
 * o first waits for it (no two HDF5 calls overlap) and reports its
 * failure. indptr and indices must stay unchanged until then. */
int feint_output_pattern_start(feint_output *o, const char *name, int64_t n_rows, const int64_t *indptr,
                               const int32_t *indices, const int64_t *indices64);
int feint_output_csr(feint_output *o, const char *name, int64_t n_rows, int64_t n_cols,
                     const int64_t *indptr, const int32_t *indices, const int64_t *indices64, const double *data,
                     const char *pattern_file, const char *pattern_group);
/* A float64 dataset of rank dimensions dims made at its full size (its
 * space in the file allocated now, contiguous, never filled), for other
 * writers. */
int feint_output_reserve_doubles(feint_output *o, const char *name, int rank, const int64_t *dims);
/* The same, of int64. */
int feint_output_reserve_int64(feint_output *o, const char *name, int rank, const int64_t *dims);
/* Close the file, still under its temporary name (*path), so that other
 * processes can write into what was made for them (the ranks of an
 * mpirun, feint_comm_write); the next call reopens it. An abort still
 * removes it. */
int feint_output_suspend(feint_output *o, const char **path);
int feint_output_csr_reserve(feint_output *o, const char *name, int64_t n_rows, int64_t n_cols, int64_t nnz,
                             const char *pattern_file, const char *pattern_group);
/* Wait for the pattern thread (feint_output_pattern_start) and report its
 * failure; o may be NULL. */
int feint_output_wait(feint_output *o);
/* A link `name` to the dataset or group `target`: a hard link in this file
 * (file NULL) or an external link into `file` (relative to this file's
 * directory, or absolute). */
int feint_output_link(feint_output *o, const char *name, const char *file, const char *target);
/* An int32 dataset of n zeros that takes no space in the file (never
 * written; readers get the fill value 0). */
int feint_output_zeros_int32(feint_output *o, const char *name, int64_t n);
/* A hyperslab of a rank-1 or rank-2 dataspace: start, stride, count per
 * dimension (rank 0: the whole space). */
typedef struct {
  int rank;
  int64_t start[2], stride[2], count[2];
} feint_output_slab;
/* A virtual dataset `name` (rank 1 or 2, dims; float64, or int64 when
 * is_int64) whose slabs to[k] read slab from[k] of dataset source[k] of
 * this file (each pair of the same number of elements, taken in row-major
 * order; what no slab covers reads 0): a view that stores no data, for
 * readers that want another shape or order of what the file holds (the
 * XDMF views, feint/xdmf.h). The sources must be written before. */
int feint_output_view(feint_output *o, const char *name, int is_int64, int rank, const int64_t *dims, int n,
                      const feint_output_slab *to, const char *const *source, const feint_output_slab *from);
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
