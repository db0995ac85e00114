/* The MPI plugin (feint-mpi.so): MPI, METIS and parallel HDF5 behind the
 * table of plugin.h. Built with mpicc only (not part of libfeint); comm.c
 * loads it when mpirun started feint on more than one rank.
 *
 * Parallel HDF5 (Debian's libhdf5-openmpi) lives here beside the serial
 * HDF5 that feint links: the two export the same function names under
 * different symbol versions (HDF5_MPI_1.8.7, HDF5_SERIAL_1.8.7), so this
 * plugin's calls bind to the parallel library and feint's to the serial
 * one. They never hold the same file open at once. */
#include <hdf5.h>
#include <metis.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist/plugin.h"

static void mpi_message(int code, const char *what, char *err, size_t err_size) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error %d", code);
  snprintf(err, err_size, "%s: %s", what, text);
}

static int plugin_init(int *rank, int *size, char *err, size_t err_size) {
  int code = MPI_Init(NULL, NULL);
  if (code != MPI_SUCCESS) {
    mpi_message(code, "MPI_Init", err, err_size);
    return 1;
  }
  /* errors come back as codes, so that every one is reported with its rank */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

static void plugin_finalize(void) { MPI_Finalize(); }

static int plugin_send_many(int n, const void *const *bufs, const int *bytes, const int *to, int tag, char *err,
                            size_t err_size) {
  MPI_Request *requests = malloc((size_t)(n > 0 ? n : 1) * sizeof *requests);
  if (!requests) {
    snprintf(err, err_size, "out of memory for %d sends", n);
    return 1;
  }
  int code = MPI_SUCCESS, posted = 0;
  for (; posted < n && code == MPI_SUCCESS; posted++)
    code = MPI_Isend(bufs[posted], bytes[posted], MPI_BYTE, to[posted], tag, MPI_COMM_WORLD, &requests[posted]);
  if (code != MPI_SUCCESS) {
    posted--; /* the one that failed holds no request */
    mpi_message(code, "MPI_Isend", err, err_size);
  }
  /* what was posted is waited for, failed or not: its buffers are the caller's */
  const int waited = MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
  if (code == MPI_SUCCESS && waited != MPI_SUCCESS) {
    code = waited;
    mpi_message(code, "MPI_Waitall (sends)", err, err_size);
  }
  free(requests);
  return code != MPI_SUCCESS;
}

static int plugin_recv(void *buf, int bytes, int from, int tag, int *got, char *err, size_t err_size) {
  /* A rank waits for rank 0 while it reads the mesh (seconds): MPI_Recv
   * would spin a core the whole time, taking it from rank 0's threads on
   * the same host, so wait by probing, sleeping longer the longer it takes
   * (at most 1 ms late). */
  int code, here = 0;
  for (long k = 0, pause_ns = 20000; !here; k++) {
    if ((code = MPI_Iprobe(from, tag, MPI_COMM_WORLD, &here, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
      mpi_message(code, "MPI_Iprobe", err, err_size);
      return 1;
    }
    if (here || k < 2000) continue;
    struct timespec pause = {0, pause_ns};
    nanosleep(&pause, NULL);
    if (pause_ns < 1000000) pause_ns += pause_ns / 4;
  }
  MPI_Status status;
  code = MPI_Recv(buf, bytes, MPI_BYTE, from, tag, MPI_COMM_WORLD, &status);
  if (code == MPI_SUCCESS) code = MPI_Get_count(&status, MPI_BYTE, got);
  if (code != MPI_SUCCESS) mpi_message(code, "MPI_Recv", err, err_size);
  return code != MPI_SUCCESS;
}

static void plugin_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static int plugin_partition(int n_cells, int n_nodes, int32_t *eptr, int32_t *eind, int ncommon, int nparts,
                            int32_t *part, char *err, size_t err_size) {
  idx_t ne = n_cells, nn = n_nodes, nc = ncommon, np = nparts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1; /* the same parts on every run */
  /* METIS wants the node partition too */
  idx_t *npart = malloc((size_t)(n_nodes > 0 ? n_nodes : 1) * sizeof *npart);
  if (!npart) {
    snprintf(err, err_size, "out of memory for the node partition (%d nodes)", n_nodes);
    return 1;
  }
  int code = METIS_PartMeshDual(&ne, &nn, eptr, eind, NULL, NULL, &nc, &np, NULL, options, &objval, part, npart);
  free(npart);
  if (code != METIS_OK) {
    snprintf(err, err_size, "METIS_PartMeshDual failed (%s)",
             code == METIS_ERROR_MEMORY ? "out of memory" : code == METIS_ERROR_INPUT ? "bad input" : "error");
    return 1;
  }
  return 0;
}

/* The most values one transfer moves: MPI-IO counts in int, so a piece
 * goes in transfers of at most 2^27 values (1 GiB of doubles);
 * FEINT_MPIO_CHUNK lowers it (a test hook for the loop). */
static int64_t transfer_values(void) {
  const char *hook = getenv("FEINT_MPIO_CHUNK");
  const long long v = hook ? atoll(hook) : 0;
  return v > 0 && v < (1LL << 27) ? v : (1LL << 27);
}

/* This rank's piece of one dataset, range by range (one range: offset,
 * count), each in transfers of transfer_values() values (whole rows of
 * the first dimension). Collective transfers need every rank in each:
 * there every rank makes as many as the rank that needs most, the extra
 * ones empty. */
static int write_piece(hid_t file, hid_t dxpl, int collective, const feint_dist_piece *p) {
  hid_t d = H5Dopen2(file, p->name, H5P_DEFAULT);
  if (d < 0) return 1;
  hid_t fs = H5Dget_space(d);
  hsize_t dims[8] = {0}, row = 1;
  const int rank = fs < 0 ? -1 : H5Sget_simple_extent_ndims(fs);
  if (rank >= 1 && rank <= 8 && H5Sget_simple_extent_dims(fs, dims, NULL) >= 0)
    for (int k = 1; k < rank; k++) row *= dims[k];
  int64_t chunk = transfer_values() / (int64_t)row * (int64_t)row;
  if (chunk < (int64_t)row) chunk = (int64_t)row;
  const int64_t one[3] = {p->offset, 0, p->count};
  const hid_t type = p->mem == FEINT_DIST_I64 ? H5T_NATIVE_INT64 : p->mem == FEINT_DIST_I32 ? H5T_NATIVE_INT32
                                                                                            : H5T_NATIVE_DOUBLE;
  const int64_t value_bytes = p->mem == FEINT_DIST_I32 ? 4 : 8;
  const int64_t n_ranges = p->n_ranges > 0 ? p->n_ranges : 1, *ranges = p->n_ranges > 0 ? p->ranges : one;
  /* a range that is not whole rows is an error, but the rank still takes part (empty) in collective transfers */
  int whole_rows = rank >= 1 && rank <= 8;
  long long transfers = 0;
  for (int64_t r = 0; r < n_ranges; r++) {
    whole_rows = whole_rows && ranges[3 * r] % (int64_t)row == 0 && ranges[3 * r + 2] % (int64_t)row == 0 &&
                 ranges[3 * r + 2] >= 0;
    transfers += (ranges[3 * r + 2] + chunk - 1) / chunk;
  }
  long long most = transfers;
  if (collective) MPI_Allreduce(&transfers, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  const int bad = !whole_rows;
  herr_t e = fs < 0 || bad ? -1 : 0;
  int64_t r = 0, at = 0; /* the next transfer: range r from its value at */
  for (long long t = 0; t < most; t++) {
    while (r < n_ranges && at >= ranges[3 * r + 2]) {
      r++;
      at = 0;
    }
    const int64_t left = r < n_ranges && !bad ? ranges[3 * r + 2] - at : 0;
    const hsize_t count = (hsize_t)(left < chunk ? (left > 0 ? left : 1) : chunk);
    hsize_t start_nd[8] = {0}, count_nd[8];
    for (int k = 0; k < rank && whole_rows; k++) count_nd[k] = dims[k];
    if (left > 0) {
      start_nd[0] = (hsize_t)(ranges[3 * r] + at) / row;
      count_nd[0] = count / row;
    }
    hid_t ms = H5Screate_simple(1, &count, NULL);
    herr_t f = ms < 0 || fs < 0 ? -1 : 0;
    if (!f && left > 0) f = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start_nd, NULL, count_nd, NULL);
    if (!f && left <= 0) f = H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0 ? -1 : 0;
    if (!f)
      f = H5Dwrite(d, type, ms, fs, dxpl, left > 0 ? (const char *)p->data + (ranges[3 * r + 1] + at) * value_bytes : p->data);
    if (ms >= 0) H5Sclose(ms);
    if (f < 0) e = -1;
    if (left > 0) at += (int64_t)count;
  }
  if (fs >= 0) H5Sclose(fs);
  H5Dclose(d);
  return e < 0;
}

static int plugin_write(const char *path, int n, const feint_dist_piece *pieces, char *err, size_t err_size) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  int bad = file < 0, failed_at = -1;
  if (!bad) {
    /* each rank's piece is one contiguous range: independent transfers
     * write it where it goes; collective ones (FEINT_MPIO=collective) pass
     * the data through aggregator ranks first */
    const char *mode = getenv("FEINT_MPIO");
    const int collective = mode && !strcmp(mode, "collective");
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    for (int k = 0; k < n; k++)
      if (write_piece(file, dxpl, collective, &pieces[k]) && failed_at < 0) failed_at = k;
    H5Pclose(dxpl);
    if (H5Fclose(file) < 0 && failed_at < 0) failed_at = n;
    bad = failed_at >= 0;
  }
  /* every rank returns the same: the first failure anywhere */
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return 0;
  if (file < 0) snprintf(err, err_size, "parallel HDF5 cannot open %s", path);
  else if (failed_at >= 0 && failed_at < n) snprintf(err, err_size, "parallel HDF5 cannot write %s in %s", pieces[failed_at].name, path);
  else if (bad) snprintf(err, err_size, "parallel HDF5 cannot close %s", path);
  else snprintf(err, err_size, "another rank's parallel write into %s failed", path);
  return 1;
}

const feint_dist_plugin feint_dist_plugin_v6 = {FEINT_DIST_PLUGIN_ABI, plugin_init,  plugin_finalize,
                                                 plugin_send_many,      plugin_recv,  plugin_abort,
                                                 plugin_partition,      plugin_write};
