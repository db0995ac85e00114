/* HDF5 reading of coefficient datasets and atomic writing of results. */
#include "feint/h5.h"
#include "feint/parallel.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <limits.h>
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

/* The output file. Nothing exists on disk until the first dataset is
 * written: feint_output_create only checks the target (so a bad path fails
 * before anything is computed), and the temporary file beside the target
 * is created at the first write, so a run that fails while computing, or
 * is interrupted, leaves nothing behind. SIGINT and SIGTERM remove the
 * temporary file (output_signal) before the process dies. */
/* A CSR pattern being written by its own thread (feint_output_pattern_start). */
typedef struct {
  char name[400];
  int64_t n_rows;
  const int64_t *indptr, *indices64;
  const int32_t *indices;
  pthread_t thread;
  int running;             /* the thread is to be joined */
  int status;              /* its result, and its message */
  char message[4096];
  char location[256]; /* feint_error_location() of the failure */
} pattern_writer;

struct feint_output {
  hid_t file;    /* -1 until the first write */
  char *path;    /* the target (a symbolic link's target: links are written through) */
  char *tmp;     /* path.tmp-PID beside it */
  pattern_writer pattern; /* name[0] != 0: the pattern of that CSR group is written (or being written) */
  int suspended; /* closed for others to write into (feint_output_suspend); reopened at the next call */
};

static int output_join(feint_output *o);

/* The temporary files of the outputs open in this process, for the signal
 * handler: fixed storage, since a handler may not allocate. */
enum { OUTPUT_MAX_OPEN = 4, OUTPUT_PATH_MAX = 4096 };
static char open_tmp[OUTPUT_MAX_OPEN][OUTPUT_PATH_MAX];
static volatile sig_atomic_t open_used[OUTPUT_MAX_OPEN];
static int handlers_installed;

static void output_signal(int sig) {
  for (int i = 0; i < OUTPUT_MAX_OPEN; i++)
    if (open_used[i]) unlink(open_tmp[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_handlers(void) {
  if (handlers_installed) return;
  handlers_installed = 1;
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = output_signal;
    sigemptyset(&sa.sa_mask);
    /* a signal the user's shell ignores (nohup) stays ignored */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sigs[i], &sa, NULL);
  }
}

static void track_tmp(const char *tmp, int on) {
  for (int i = 0; i < OUTPUT_MAX_OPEN; i++) {
    if (on && !open_used[i] && strlen(tmp) < OUTPUT_PATH_MAX) {
      memcpy(open_tmp[i], tmp, strlen(tmp) + 1);
      open_used[i] = 1;
      return;
    }
    if (!on && open_used[i] && !strcmp(open_tmp[i], tmp)) {
      open_used[i] = 0;
      return;
    }
  }
}

/* MATLAB recognises an HDF5 file as a v7.3 MAT-file by a 512-byte user
 * block starting with this text. */
#define MAT_USERBLOCK 512
static const char mat_header[] = "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created by: feint HDF5 schema 1.00 .";

/* The file a path names, through symbolic links (written through: the link
 * stays, its target gets the file); `path` itself when it does not exist.
 * Refuses what is not a regular file (a directory, a device such as
 * /dev/null, a FIFO), before anything is computed. A link to a file not
 * yet made is followed to where it points. */
static int output_target_at(const char *path, char **target, int depth) {
  *target = NULL;
  if (!path[0]) return feint_error_set(FEINT_ERR_INPUT, "the output file name is empty");
  struct stat st;
  if (stat(path, &st) != 0) {
    struct stat lst;
    if (errno != ENOENT || depth > 16 || lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode)) {
      if (errno == ENOENT) return feint_strdup(path, target); /* a new file */
      return feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': %s", path, strerror(errno));
    }
    /* a link to a file yet to be made: write through to where it points */
    char link[OUTPUT_PATH_MAX], next[2 * OUTPUT_PATH_MAX];
    const ssize_t n = readlink(path, link, sizeof link - 1);
    if (n < 0) return feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': %s", path, strerror(errno));
    link[n] = '\0';
    const char *slash = strrchr(path, '/');
    if (link[0] == '/' || !slash) snprintf(next, sizeof next, "%s", link);
    else snprintf(next, sizeof next, "%.*s/%s", (int)(slash - path), path, link);
    return output_target_at(next, target, depth + 1);
  }
  if (S_ISDIR(st.st_mode))
    return feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': it is a directory (give a file name)",
                           path);
  if (!S_ISREG(st.st_mode))
    return feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': it is not a regular file (a device, "
                           "FIFO or socket); feint writes HDF5 files", path);
  char *real = realpath(path, NULL);
  if (!real) return feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': %s", path, strerror(errno));
  int status = feint_strdup(real, target);
  free(real);
  return status;
}

static int output_target(const char *path, char **target) { return output_target_at(path, target, 0); }

/* The directory of `file` can take a new file (the temporary one). */
static int directory_writable(const char *shown, const char *file) {
  char dir[OUTPUT_PATH_MAX];
  const char *slash = strrchr(file, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == file) snprintf(dir, sizeof dir, "/");
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
  if (access(dir, W_OK | X_OK) != 0)
    return feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': %s", shown, strerror(errno));
  return FEINT_OK;
}

int feint_output_create(const char *path, feint_output **out) {
  *out = NULL;
  quiet_hdf5();
  char *target = NULL;
  FEINT_CALL(output_target(path, &target));
  feint_output *o = NULL;
  const size_t n = strlen(target) + 32;
  int status;
  if (n > OUTPUT_PATH_MAX)
    status = feint_error_set(FEINT_ERR_INPUT, "cannot write output file '%s': the path is too long", path);
  else if (!(status = directory_writable(path, target)) && !(status = feint_calloc(1, sizeof *o, &o, "output")))
    status = feint_malloc(n, 1, &o->tmp, "path");
  if (status) {
    free(target);
    if (o) free(o);
    return status;
  }
  o->path = target;
  o->file = -1;
  snprintf(o->tmp, n, "%s.tmp-%ld", target, (long)getpid());
  *out = o;
  return FEINT_OK;
}

/* Create the temporary file at the first write. */
static int output_open(feint_output *o) {
  if (o->file >= 0) return FEINT_OK;
  if (o->suspended) {
    o->file = H5Fopen(o->tmp, H5F_ACC_RDWR, H5P_DEFAULT);
    if (o->file < 0) return feint_error_set(FEINT_ERR_COMPUTE, "cannot reopen '%s' after the ranks wrote it", o->tmp);
    o->suspended = 0;
    return FEINT_OK;
  }
  install_handlers();
  track_tmp(o->tmp, 1);
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_userblock(fcpl, MAT_USERBLOCK);
  o->file = H5Fcreate(o->tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  H5Pclose(fcpl);
  if (o->file >= 0) return FEINT_OK;
  /* say why in the words of the operating system */
  FILE *probe = fopen(o->tmp, "wb");
  const char *why = probe ? "HDF5 could not create it" : strerror(errno);
  if (probe) fclose(probe);
  remove(o->tmp);
  track_tmp(o->tmp, 0);
  return feint_error_set(FEINT_ERR_COMPUTE, "cannot write output file '%s': %s", o->path, why);
}

/* Create the groups leading to `name` ("a/b/c" -> a, a/b). */
static int make_parents(feint_output *o, const char *name) {
  FEINT_CALL(output_open(o));
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
  FEINT_CALL(output_open(o));
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
  FEINT_CALL(output_join(o));
  return write_string_attr(o, object, name, value, 0);
}

int feint_output_attr_double(feint_output *o, const char *object, const char *name, double value) {
  FEINT_CALL(output_join(o));
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

/* A 1-D dataset of n values made at its full size, its space allocated
 * now and never filled: other writers fill it (feint_output_suspend). */
static int reserve_dataset(feint_output *o, const char *name, hid_t file_type, int rank, const int64_t *dims,
                           const char *matlab_class) {
  FEINT_CALL(make_parents(o, name));
  hsize_t hd[8];
  if (rank < 1 || rank > 8) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a dataset of rank %d", rank);
  for (int k = 0; k < rank; k++) hd[k] = (hsize_t)dims[k];
  hid_t space = H5Screate_simple(rank, hd, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  herr_t e = space < 0 || dcpl < 0 ? -1 : 0;
  if (!e) e = H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  if (!e) e = H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  if (!e) e = H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  hid_t d = e < 0 ? -1 : H5Dcreate2(o->file, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d >= 0) H5Dclose(d);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  if (d < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot make dataset '%s'", o->path, name);
  return matlab_class ? write_string_attr(o, name, "MATLAB_class", matlab_class, 1) : FEINT_OK;
}

int feint_output_reserve_doubles(feint_output *o, const char *name, int rank, const int64_t *dims) {
  FEINT_CALL(output_join(o));
  return reserve_dataset(o, name, H5T_IEEE_F64LE, rank, dims, "double");
}

int feint_output_reserve_int64(feint_output *o, const char *name, int rank, const int64_t *dims) {
  FEINT_CALL(output_join(o));
  return reserve_dataset(o, name, H5T_STD_I64LE, rank, dims, "int64");
}

int feint_output_suspend(feint_output *o, const char **path) {
  FEINT_CALL(output_join(o));
  FEINT_CALL(output_open(o));
  const herr_t e = H5Fclose(o->file);
  o->file = -1;
  o->suspended = 1;
  if (e < 0) return feint_error_set(FEINT_ERR_COMPUTE, "cannot close '%s' for the ranks to write", o->tmp);
  *path = o->tmp;
  return FEINT_OK;
}

int feint_output_doubles(feint_output *o, const char *name, int rank, const int64_t *dims, const double *data) {
  FEINT_CALL(output_join(o));
  return write_dataset_as(o, name, rank, dims, H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, data, "double");
}
int feint_output_int64(feint_output *o, const char *name, int rank, const int64_t *dims, const int64_t *data) {
  FEINT_CALL(output_join(o));
  return write_dataset_as(o, name, rank, dims, H5T_NATIVE_INT64, H5T_NATIVE_INT64, data, "int64");
}
int feint_output_int32(feint_output *o, const char *name, int rank, const int64_t *dims, const int32_t *data) {
  FEINT_CALL(output_join(o));
  return write_dataset_as(o, name, rank, dims, H5T_NATIVE_INT32, H5T_NATIVE_INT32, data, "int32");
}

/* Select slab s on space (rank 0: all of it). */
static herr_t select_slab(hid_t space, const feint_output_slab *s) {
  if (s->rank == 0) return H5Sselect_all(space);
  hsize_t start[2], stride[2], count[2];
  for (int k = 0; k < s->rank; k++) {
    start[k] = (hsize_t)s->start[k];
    stride[k] = (hsize_t)s->stride[k];
    count[k] = (hsize_t)s->count[k];
  }
  return H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, NULL);
}

int feint_output_view(feint_output *o, const char *name, int is_int64, int rank, const int64_t *dims, int n,
                      const feint_output_slab *to, const char *const *source, const feint_output_slab *from) {
  FEINT_CALL(output_join(o));
  FEINT_CALL(make_parents(o, name));
  hsize_t hd[2] = {0, 0};
  for (int k = 0; k < rank; k++) hd[k] = (hsize_t)dims[k];
  hid_t vspace = H5Screate_simple(rank, hd, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  const hid_t type = is_int64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
  herr_t e = vspace < 0 || dcpl < 0 ? -1 : 0;
  for (int k = 0; k < n && e >= 0; k++) {
    hid_t src = H5Dopen2(o->file, source[k], H5P_DEFAULT);
    hid_t sspace = src < 0 ? -1 : H5Dget_space(src);
    e = sspace < 0 ? -1 : select_slab(vspace, &to[k]);
    if (e >= 0) e = select_slab(sspace, &from[k]);
    if (e >= 0) e = H5Pset_virtual(dcpl, vspace, ".", source[k], sspace); /* ".": this file, under any name */
    if (sspace >= 0) H5Sclose(sspace);
    if (src >= 0) H5Dclose(src);
  }
  hid_t d = e < 0 ? -1 : H5Dcreate2(o->file, name, type, vspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d >= 0) H5Dclose(d);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (vspace >= 0) H5Sclose(vspace);
  if (d < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot write the view '%s'", o->path, name);
  return FEINT_OK;
}

int feint_output_attr_int64(feint_output *o, const char *object, const char *name, int64_t value) {
  FEINT_CALL(output_join(o));
  hid_t space = H5Screate(H5S_SCALAR);
  int status = write_attr(o, object, name, H5T_NATIVE_INT64, space, &value);
  H5Sclose(space);
  return status;
}

/* int32 -> int64 on every core, for a large index array: HDF5 converts
 * through a small buffer on one core, which took longer than the write
 * of the 15M-nonzero matrix itself. */
typedef struct {
  const int32_t *src;
  int64_t *dst;
} widen_job;

static void widen_range(int64_t a, int64_t b, void *arg) {
  const widen_job *w = arg;
  for (int64_t k = a; k < b; k++) w->dst[k] = w->src[k];
}

static void widen_int32(const int32_t *src, int64_t *dst, int64_t n) {
  widen_job job = {src, dst};
  feint_parallel_for(n, (int64_t)1 << 18, widen_range, &job);
}

/* The next slab's widening, on its own thread while this one is written. */
typedef struct {
  const int32_t *src;
  int64_t *dst;
  int64_t n;
} widen_slab;

static void *widen_slab_run(void *arg) {
  const widen_slab *w = arg;
  widen_int32(w->src, w->dst, w->n);
  return NULL;
}

/* A 1-D int64 dataset from int32 values, widened on every core slab by
 * slab into two reused buffers, slab k + 1 widened while slab k is
 * written (widening the whole array at once first touched as many fresh
 * pages as the file has bytes, slower than the write itself for 231M
 * nonzeros; widening and writing in turn left the write waiting for a
 * third of its time). */
static int write_widened(feint_output *o, const char *name, const int32_t *src, int64_t n) {
  FEINT_CALL(make_parents(o, name));
  enum { SLAB = 1 << 22 }; /* 32 MiB of int64 */
  const int64_t slab = n < SLAB ? (n ? n : 1) : SLAB;
  int64_t *buf[2] = {malloc((size_t)slab * sizeof(int64_t)), n > SLAB ? malloc((size_t)slab * sizeof(int64_t)) : NULL};
  if (!buf[0] || (n > SLAB && !buf[1])) {
    free(buf[0]);
    free(buf[1]);
    return write_dataset_as(o, name, 1, &n, H5T_STD_I64LE, H5T_NATIVE_INT32, src, NULL);
  }
  hsize_t hn = (hsize_t)n;
  hid_t fspace = H5Screate_simple(1, &hn, NULL);
  hid_t d = H5Dcreate2(o->file, name, H5T_STD_I64LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = d < 0 ? -1 : 0;
  widen_int32(src, buf[0], n < SLAB ? n : SLAB);
  for (int64_t a = 0, k = 0; a < n && e >= 0; a += SLAB, k++) {
    const hsize_t start = (hsize_t)a, count = (hsize_t)(n - a < SLAB ? n - a : SLAB);
    /* the next slab into the other buffer meanwhile (here if no thread) */
    widen_slab next = {src + a + SLAB, buf[(k + 1) % 2], n - a - SLAB < SLAB ? n - a - SLAB : SLAB};
    pthread_t th;
    const int ahead = next.n > 0 && pthread_create(&th, NULL, widen_slab_run, &next) == 0;
    hid_t mspace = H5Screate_simple(1, &count, NULL);
    e = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL);
    if (e >= 0) e = H5Dwrite(d, H5T_NATIVE_INT64, mspace, fspace, H5P_DEFAULT, buf[k % 2]);
    H5Sclose(mspace);
    if (ahead)
      pthread_join(th, NULL);
    else if (next.n > 0)
      widen_slab_run(&next);
  }
  if (d >= 0) H5Dclose(d);
  H5Sclose(fspace);
  free(buf[0]);
  free(buf[1]);
  if (e < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot write dataset '%s'", o->path, name);
  return FEINT_OK;
}

/* A link `name` to the object `target`: a hard link in this file (file
 * NULL), else an external link into `file` (a name relative to this file's
 * directory or absolute; HDF5 looks for it there). */
static int output_link(feint_output *o, const char *name, const char *file, const char *target) {
  FEINT_CALL(make_parents(o, name));
  herr_t e = file ? H5Lcreate_external(file, target, o->file, name, H5P_DEFAULT, H5P_DEFAULT)
                  : H5Lcreate_hard(o->file, target, o->file, name, H5P_DEFAULT, H5P_DEFAULT);
  if (e < 0)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot link '%s' to '%s%s%s'", o->path, name, file ? file : "",
                           file ? ":" : "", target);
  return FEINT_OK;
}

int feint_output_link(feint_output *o, const char *name, const char *file, const char *target) {
  FEINT_CALL(output_join(o));
  return output_link(o, name, file, target);
}

int feint_output_zeros_int32(feint_output *o, const char *name, int64_t n) {
  FEINT_CALL(output_join(o));
  FEINT_CALL(make_parents(o, name));
  hsize_t hd = (hsize_t)n;
  hid_t space = H5Screate_simple(1, &hd, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  const int32_t zero = 0;
  /* never written: no storage is allocated, readers get the fill value */
  H5Pset_fill_value(dcpl, H5T_NATIVE_INT32, &zero);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_IFSET);
  hid_t d = H5Dcreate2(o->file, name, H5T_NATIVE_INT32, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  if (d < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot write dataset '%s'", o->path, name);
  H5Dclose(d);
  return write_string_attr(o, name, "MATLAB_class", "int32", 1);
}

/* name/indptr and name/indices, int64 whatever the width in memory. */
static int write_pattern(feint_output *o, const char *name, int64_t n_rows, const int64_t *indptr,
                         const int32_t *indices, const int64_t *indices64) {
  char path[512];
  const int64_t nnz = indptr[n_rows], rows1 = n_rows + 1;
  snprintf(path, sizeof path, "%s/indptr", name);
  FEINT_CALL(write_dataset_as(o, path, 1, &rows1, H5T_STD_I64LE, H5T_NATIVE_INT64, indptr, NULL));
  snprintf(path, sizeof path, "%s/indices", name);
  if (indices64) return write_dataset_as(o, path, 1, &nnz, H5T_STD_I64LE, H5T_NATIVE_INT64, indices64, NULL);
  return write_widened(o, path, indices, nnz);
}

/* The pattern thread: its message is kept for output_join (errors are
 * per thread). */
static void *pattern_main(void *arg) {
  feint_output *o = arg;
  pattern_writer *w = &o->pattern;
  w->status = write_pattern(o, w->name, w->n_rows, w->indptr, w->indices, w->indices64);
  if (w->status) {
    snprintf(w->message, sizeof w->message, "%s", feint_error_message());
    snprintf(w->location, sizeof w->location, "%s", feint_error_location());
  }
  return NULL;
}

/* Wait for the pattern thread: no two HDF5 calls run at once (the library
 * is not thread-safe). Its failure becomes this call's. */
static int output_join(feint_output *o) {
  pattern_writer *w = &o->pattern;
  if (!w->running) return FEINT_OK;
  pthread_join(w->thread, NULL);
  w->running = 0;
  if (w->status) return feint_error_restore(w->status, w->message, w->location);
  return FEINT_OK;
}

int feint_output_wait(feint_output *o) { return o ? output_join(o) : FEINT_OK; }

int feint_output_pattern_start(feint_output *o, const char *name, int64_t n_rows, const int64_t *indptr,
                               const int32_t *indices, const int64_t *indices64) {
  FEINT_CALL(output_join(o));
  pattern_writer *w = &o->pattern;
  if (strlen(name) >= sizeof w->name)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: group name '%s' too long", o->path, name);
  FEINT_CALL(output_open(o)); /* the file's creation stays on this thread */
  snprintf(w->name, sizeof w->name, "%s", name);
  w->n_rows = n_rows;
  w->indptr = indptr;
  w->indices = indices;
  w->indices64 = indices64;
  w->status = FEINT_OK;
  w->running = pthread_create(&w->thread, NULL, pattern_main, o) == 0;
  if (!w->running) return write_pattern(o, name, n_rows, indptr, indices, indices64); /* no thread: here */
  return FEINT_OK;
}

/* A CSR group's pattern (written, linked, or made for other writers when
 * indptr is NULL), MATLAB's names for it, its data (written, or made when
 * data is NULL) and its attributes. */
static int csr_group(feint_output *o, const char *name, int64_t n_rows, int64_t n_cols, int64_t nnz,
                     const int64_t *indptr, const int32_t *indices, const int64_t *indices64, const double *data,
                     const char *pattern_file, const char *pattern_group) {
  FEINT_CALL(output_join(o));
  char path[512], target[512];
  /* indptr and indices int64 whatever the width in memory (scipy, PETSc by
   * name); jc and ir are the same datasets under MATLAB's names (hard
   * links: each array stored once; libmatio and PETSc convert the int64 on
   * reading). A pattern already in a file (a sweep's earlier member) is
   * linked, not written again; one written ahead under this name
   * (feint_output_pattern_start) is there already. */
  static const char *const parts[2] = {"indptr", "indices"};
  if (pattern_group) {
    for (int k = 0; k < 2; k++) {
      snprintf(path, sizeof path, "%s/%s", name, parts[k]);
      snprintf(target, sizeof target, "%s/%s", pattern_group, parts[k]);
      FEINT_CALL(output_link(o, path, pattern_file, target));
    }
  } else if (!indptr) {
    snprintf(path, sizeof path, "%s/indptr", name);
    {
      const int64_t rows = n_rows + 1;
      FEINT_CALL(reserve_dataset(o, path, H5T_STD_I64LE, 1, &rows, NULL));
    }
    snprintf(path, sizeof path, "%s/indices", name);
    FEINT_CALL(reserve_dataset(o, path, H5T_STD_I64LE, 1, &nnz, NULL));
  } else if (strcmp(o->pattern.name, name)) {
    FEINT_CALL(write_pattern(o, name, n_rows, indptr, indices, indices64));
  }
  /* MATLAB's names link where indptr and indices point (a link to an
   * external link cannot be made) */
  static const char *const alias[2] = {"jc", "ir"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", name, alias[k]);
    snprintf(target, sizeof target, "%s/%s", pattern_group ? pattern_group : name, parts[k]);
    FEINT_CALL(output_link(o, path, pattern_group ? pattern_file : NULL, target));
  }
  snprintf(path, sizeof path, "%s/data", name);
  if (data) FEINT_CALL(write_dataset_as(o, path, 1, &nnz, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data, NULL));
  else FEINT_CALL(reserve_dataset(o, path, H5T_IEEE_F64LE, 1, &nnz, NULL));
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

int feint_output_csr(feint_output *o, const char *name, int64_t n_rows, int64_t n_cols, const int64_t *indptr,
                     const int32_t *indices, const int64_t *indices64, const double *data, const char *pattern_file,
                     const char *pattern_group) {
  return csr_group(o, name, n_rows, n_cols, indptr[n_rows], indptr, indices, indices64, data, pattern_file,
                   pattern_group);
}

int feint_output_csr_reserve(feint_output *o, const char *name, int64_t n_rows, int64_t n_cols, int64_t nnz,
                             const char *pattern_file, const char *pattern_group) {
  return csr_group(o, name, n_rows, n_cols, nnz, NULL, NULL, NULL, NULL, pattern_file, pattern_group);
}

/* MATLAB (and libmatio) load a v7.3 file variable by variable and stop at
 * a group they cannot read: every group that is not a sparse matrix
 * becomes a MATLAB struct of its members, marked the way MATLAB writes one
 * (MATLAB_class "struct", MATLAB_fields the member names as variable-length
 * character arrays). */
typedef struct {
  feint_output *o;
  int status;
} struct_walk;

static herr_t count_links(hid_t g, const char *name, const H5L_info_t *info, void *op) {
  (void)g;
  (void)name;
  (void)info;
  (*(size_t *)op)++;
  return 0;
}

static herr_t copy_name(hid_t g, const char *name, const H5L_info_t *info, void *op) {
  (void)g;
  (void)info;
  hvl_t **cursor = op;
  char *copy = malloc(strlen(name) + 1);
  if (!copy) return -1;
  memcpy(copy, name, strlen(name) + 1);
  (*cursor)->p = copy;
  (*cursor)->len = strlen(name);
  (*cursor)++;
  return 0;
}

static herr_t mark_struct(hid_t file, const char *name, const H5O_info_t *info, void *op) {
  struct_walk *w = op;
  if (info->type != H5O_TYPE_GROUP || !strcmp(name, ".")) return 0;
  hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
  if (g < 0) return -1;
  int is_matrix = H5Aexists(g, "MATLAB_sparse") > 0, has_class = H5Aexists(g, "MATLAB_class") > 0;
  size_t n = 0;
  hvl_t *names = NULL, *cursor;
  herr_t e = 0;
  if (!is_matrix && !has_class) {
    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, count_links, &n);
    names = calloc(n ? n : 1, sizeof *names);
    cursor = names;
    e = names ? H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_name, &cursor) : -1;
    if (e >= 0) {
      hid_t ch = H5Tcopy(H5T_C_S1);
      H5Tset_size(ch, 1);
      hid_t vl = H5Tvlen_create(ch);
      hsize_t dim = n;
      hid_t space = H5Screate_simple(1, &dim, NULL);
      hid_t a = H5Acreate2(g, "MATLAB_fields", vl, space, H5P_DEFAULT, H5P_DEFAULT);
      e = a < 0 ? -1 : H5Awrite(a, vl, names);
      if (a >= 0) H5Aclose(a);
      H5Sclose(space);
      H5Tclose(vl);
      H5Tclose(ch);
    }
    for (size_t i = 0; names && i < n; i++) free(names[i].p);
    free(names);
  }
  H5Gclose(g);
  if (e < 0) return -1;
  if (!is_matrix && !has_class) {
    char path[600];
    snprintf(path, sizeof path, "/%s", name);
    if ((w->status = write_string_attr(w->o, path, "MATLAB_class", "struct", 1))) return -1;
  }
  return 0;
}

static int mark_structs(feint_output *o) {
  struct_walk w = {o, FEINT_OK};
  if (H5Ovisit(o->file, H5_INDEX_NAME, H5_ITER_INC, mark_struct, &w) < 0 && !w.status)
    w.status = feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot mark the groups as MATLAB structs", o->path);
  return w.status;
}

int feint_output_commit(feint_output *o) {
  int status = output_join(o);
  if (!status) status = output_open(o); /* a run that wrote nothing still leaves a (small) file */
  if (status) {
    feint_output_abort(o);
    return status;
  }
  if ((status = mark_structs(o))) {
    feint_output_abort(o);
    return status;
  }
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
  track_tmp(o->tmp, 0);
  free(o->tmp);
  free(o->path);
  free(o);
  return status;
}

void feint_output_abort(feint_output *o) {
  if (!o) return;
  if (o->pattern.running) { /* its result does not matter now: the run's own error is the one to report */
    pthread_join(o->pattern.thread, NULL);
    o->pattern.running = 0;
  }
  if (o->file >= 0 || o->suspended) {
    if (o->file >= 0) H5Fclose(o->file);
    remove(o->tmp);
    track_tmp(o->tmp, 0);
  }
  free(o->tmp);
  free(o->path);
  free(o);
}
