/* HDF5 reading of coefficient datasets and atomic writing of results. */
#include "feint/h5.h"

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feint/error.h"

/* HDF5 prints its own error stack by default; feint reports its own. */
static void quiet_hdf5(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

int feint_h5_read_doubles(const char *file, const char *dataset, int64_t n, const char *where,
                          double **out) {
  *out = NULL;
  quiet_hdf5();
  if (access(file, R_OK) != 0)
    return feint_error_set(FEINT_ERR_INPUT, "%s: cannot read HDF5 file '%s': %s", where, file, strerror(errno));
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return feint_error_set(FEINT_ERR_INPUT, "%s: '%s' is not an HDF5 file", where, file);
  int status = FEINT_OK;
  hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT), space = -1;
  if (d < 0) {
    status = feint_error_set(FEINT_ERR_INPUT, "%s: no dataset '%s' in '%s'", where, dataset, file);
    goto done;
  }
  space = H5Dget_space(d);
  hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count != n) {
    status = feint_error_set(FEINT_ERR_INPUT, "%s: dataset '%s' in '%s' has %lld values, expected %lld", where,
                             dataset, file, (long long)count, (long long)n);
    goto done;
  }
  if ((status = feint_malloc((size_t)n, sizeof(double), out, "coefficient dataset"))) goto done;
  if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0) {
    free(*out);
    *out = NULL;
    status = feint_error_set(FEINT_ERR_INPUT, "%s: dataset '%s' in '%s' could not be read as numbers", where,
                             dataset, file);
  }
done:
  if (space >= 0) H5Sclose(space);
  if (d >= 0) H5Dclose(d);
  H5Fclose(f);
  return status;
}

struct feint_output {
  hid_t file;
  char *path;
  char *tmp;
};

/* MATLAB recognises an HDF5 file as a v7.3 MAT-file by a 512-byte user
 * block starting with this text. */
#define MAT_USERBLOCK 512
static const char mat_header[] = "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created by: feint HDF5 schema 1.00 .";

int feint_output_create(const char *path, feint_output **out) {
  *out = NULL;
  quiet_hdf5();
  /* before anything is computed: the file is only renamed into place at
   * the end, where a directory would fail after all the work */
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': it is a directory (give a file name)",
                           path);
  feint_output *o = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *o, &o, "output"));
  size_t n = strlen(path) + 32;
  int status;
  if ((status = feint_strdup(path, &o->path)) || (status = feint_malloc(n, 1, &o->tmp, "path"))) {
    free(o->path);
    free(o);
    return status;
  }
  snprintf(o->tmp, n, "%s.tmp-%ld", path, (long)getpid());
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_userblock(fcpl, MAT_USERBLOCK);
  o->file = H5Fcreate(o->tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  H5Pclose(fcpl);
  if (o->file < 0) {
    /* say why in the words of the operating system */
    FILE *probe = fopen(o->tmp, "wb");
    const char *why = probe ? "HDF5 could not create it" : strerror(errno);
    if (probe) {
      fclose(probe);
      remove(o->tmp);
    }
    status = feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': %s", path, why);
    free(o->tmp);
    free(o->path);
    free(o);
    return status;
  }
  *out = o;
  return FEINT_OK;
}

/* Create the groups leading to `name` ("a/b/c" -> a, a/b). */
static int make_parents(feint_output *o, const char *name) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", name);
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (H5Lexists(o->file, buf, H5P_DEFAULT) <= 0) {
      hid_t g = H5Gcreate2(o->file, buf, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (g < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot create group '%s'", o->path, buf);
      H5Gclose(g);
    }
    *s = '/';
  }
  return FEINT_OK;
}

static int write_attr(feint_output *o, const char *object, const char *name, hid_t type, hid_t space,
                      const void *value) {
  hid_t obj = H5Oopen(o->file, object ? object : "/", H5P_DEFAULT);
  if (obj < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: no object '%s'", o->path, object);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = a < 0 ? -1 : H5Awrite(a, type, value);
  if (a >= 0) H5Aclose(a);
  H5Oclose(obj);
  if (e < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot write attribute '%s'", o->path, name);
  return FEINT_OK;
}

/* Strings are variable-length UTF-8 (h5py reads them as str); MATLAB's
 * own attributes are fixed-length ASCII, as MATLAB writes them. */
static int write_string_attr(feint_output *o, const char *object, const char *name, const char *value,
                             int fixed) {
  hid_t type = H5Tcopy(H5T_C_S1);
  if (fixed) { /* as MATLAB writes them: "double" is a 6-byte string */
    H5Tset_size(type, strlen(value));
    H5Tset_strpad(type, H5T_STR_NULLTERM);
  } else {
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
  }
  hid_t space = H5Screate(H5S_SCALAR);
  int status = write_attr(o, object, name, type, space, fixed ? (const void *)value : (const void *)&value);
  H5Sclose(space);
  H5Tclose(type);
  return status;
}

int feint_output_attr_string(feint_output *o, const char *object, const char *name, const char *value) {
  return write_string_attr(o, object, name, value, 0);
}

int feint_output_attr_double(feint_output *o, const char *object, const char *name, double value) {
  hid_t space = H5Screate(H5S_SCALAR);
  int status = write_attr(o, object, name, H5T_NATIVE_DOUBLE, space, &value);
  H5Sclose(space);
  return status;
}

/* A dataset of file type `file_type` from memory of type `mem_type` (HDF5
 * converts, in pieces, with no full-size copy); matlab_class (NULL: none)
 * is the MATLAB_class attribute MATLAB's load needs on a variable. */
static int write_dataset_as(feint_output *o, const char *name, int rank, const int64_t *dims, hid_t file_type,
                            hid_t mem_type, const void *data, const char *matlab_class) {
  FEINT_CALL(make_parents(o, name));
  hsize_t hd[8];
  for (int k = 0; k < rank; k++) hd[k] = (hsize_t)dims[k];
  hid_t space = H5Screate_simple(rank, hd, NULL);
  hid_t d = H5Dcreate2(o->file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = d < 0 ? -1 : H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  if (e < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot write dataset '%s'", o->path, name);
  return matlab_class ? write_string_attr(o, name, "MATLAB_class", matlab_class, 1) : FEINT_OK;
}

int feint_output_doubles(feint_output *o, const char *name, int rank, const int64_t *dims, const double *data) {
  return write_dataset_as(o, name, rank, dims, H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, data, "double");
}
int feint_output_int64(feint_output *o, const char *name, int rank, const int64_t *dims, const int64_t *data) {
  return write_dataset_as(o, name, rank, dims, H5T_NATIVE_INT64, H5T_NATIVE_INT64, data, "int64");
}
int feint_output_int32(feint_output *o, const char *name, int rank, const int64_t *dims, const int32_t *data) {
  return write_dataset_as(o, name, rank, dims, H5T_NATIVE_INT32, H5T_NATIVE_INT32, data, "int32");
}

int feint_output_attr_int64(feint_output *o, const char *object, const char *name, int64_t value) {
  hid_t space = H5Screate(H5S_SCALAR);
  int status = write_attr(o, object, name, H5T_NATIVE_INT64, space, &value);
  H5Sclose(space);
  return status;
}

int feint_output_csr(feint_output *o, const char *name, int64_t n_rows, int64_t n_cols, const int64_t *indptr,
                     const int32_t *indices, const int64_t *indices64, const double *data) {
  char path[512];
  const int64_t nnz = indptr[n_rows], rows1 = n_rows + 1;
  const void *idx = indices64 ? (const void *)indices64 : (const void *)indices;
  const hid_t idx_type = indices64 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32;
  /* indptr and indices int64 whatever the width in memory (scipy, PETSc by
   * name); jc and ir uint64 as MATLAB writes them (the MAT-file variable:
   * the group, MATLAB_class "double", MATLAB_sparse uint64 = n_rows) */
  snprintf(path, sizeof path, "%s/indptr", name);
  FEINT_CALL(write_dataset_as(o, path, 1, &rows1, H5T_STD_I64LE, H5T_NATIVE_INT64, indptr, NULL));
  snprintf(path, sizeof path, "%s/indices", name);
  FEINT_CALL(write_dataset_as(o, path, 1, &nnz, H5T_STD_I64LE, idx_type, idx, NULL));
  snprintf(path, sizeof path, "%s/data", name);
  FEINT_CALL(write_dataset_as(o, path, 1, &nnz, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data, NULL));
  snprintf(path, sizeof path, "%s/jc", name);
  FEINT_CALL(write_dataset_as(o, path, 1, &rows1, H5T_STD_U64LE, H5T_NATIVE_INT64, indptr, NULL));
  snprintf(path, sizeof path, "%s/ir", name);
  FEINT_CALL(write_dataset_as(o, path, 1, &nnz, H5T_STD_U64LE, idx_type, idx, NULL));
  const uint64_t sparse = (uint64_t)n_rows;
  hid_t scalar = H5Screate(H5S_SCALAR);
  int status = write_attr(o, name, "MATLAB_sparse", H5T_STD_U64LE, scalar, &sparse);
  H5Sclose(scalar);
  FEINT_CALL(status);
  FEINT_CALL(write_string_attr(o, name, "MATLAB_class", "double", 1));
  hsize_t two = 2;
  int64_t shape[2] = {n_rows, n_cols};
  hid_t space = H5Screate_simple(1, &two, NULL);
  status = write_attr(o, name, "shape", H5T_NATIVE_INT64, space, shape);
  H5Sclose(space);
  return status;
}

int feint_output_commit(feint_output *o) {
  int status = FEINT_OK;
  if (H5Fclose(o->file) < 0) status = feint_error_set(FEINT_ERR_COMPUTE, "cannot close '%s'", o->tmp);
  if (status == FEINT_OK) {
    FILE *f = fopen(o->tmp, "r+b");
    if (f) {
      char block[128];
      memset(block, ' ', sizeof block);
      memcpy(block, mat_header, sizeof mat_header - 1);
      block[124] = 0x00; /* version 0x0200, endian indicator "IM" */
      block[125] = 0x02;
      block[126] = 'I';
      block[127] = 'M';
      if (fwrite(block, 1, sizeof block, f) != sizeof block) status = FEINT_ERR_COMPUTE;
      if (fclose(f) != 0) status = FEINT_ERR_COMPUTE;
    } else {
      status = FEINT_ERR_COMPUTE;
    }
    if (status) feint_error_set(status, "cannot write the header of '%s': %s", o->tmp, strerror(errno));
  }
  if (status == FEINT_OK && rename(o->tmp, o->path) != 0)
    status = feint_error_set(FEINT_ERR_COMPUTE, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
  if (status) remove(o->tmp);
  free(o->tmp);
  free(o->path);
  free(o);
  return status;
}

void feint_output_abort(feint_output *o) {
  if (!o) return;
  H5Fclose(o->file);
  remove(o->tmp);
  free(o->tmp);
  free(o->path);
  free(o);
}
