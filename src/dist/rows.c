/* Rows owned in contiguous blocks (PETSc's layout; feint/dist.h): every
 * rank integrates its own cells, sends its contributions to the rows of
 * another rank's block to that rank, and adds those it receives into its
 * own block. The block's pattern is the union of the contributions'
 * patterns, made once (feint_dist_rows_create); each sum after that sends
 * only values, in the order the pattern was sent in. Contributions are
 * added rank by rank in rank order: the sums do not depend on timing. */
#include <stdlib.h>
#include <string.h>

#include "feint/dist.h"
#include "feint/error.h"
#include "feint/parallel.h"
#include "feint/plan.h"
#include "dist/lower_bound.h"

/* What one rank sends this one: its rows of this rank's block (whole
 * numbers, ascending) and, for the matrix, where each of its entries goes
 * in the block's values. */
struct feint_dist_source {
  int64_t n_rows;
  int64_t *rows;   /* n_rows */
  int64_t *starts; /* n_rows + 1: the row's entries in the message (matrix) */
  int64_t nnz;
  const int64_t *cols; /* during create only: the message's whole columns, or NULL: this rank's own
                          rows, read from its local pattern as they are merged */
  int32_t *slots;      /* nnz: entry -> its place in its row of the block (from the row's start) */
};

/* The block's columns as int32 where every whole column fits (the
 * one-rank plan's rule, its test hook included). */
static int narrow_columns(int64_t n_rows) { return n_rows <= feint_plan_narrow_limit(); }



/* One exchange's arrays: a message to each rank (its head: `heads` int64
 * each), what each sends. A rank that cannot allocate them cannot even
 * say so, and the others would wait for it: the run ends. */
typedef struct {
  feint_comm_message *msgs;
  void **in;
  size_t *in_bytes;
  int64_t *heads;
} exchange_buffers;

static int exchange_buffers_create(feint_comm *comm, int size, int heads, exchange_buffers *b) {
  memset(b, 0, sizeof *b);
  const int ok = feint_calloc((size_t)size, sizeof *b->msgs, &b->msgs, "an exchange's messages") == FEINT_OK &&
                 feint_calloc((size_t)size, sizeof *b->in, &b->in, "an exchange's messages") == FEINT_OK &&
                 feint_calloc((size_t)size, sizeof *b->in_bytes, &b->in_bytes, "an exchange's messages") == FEINT_OK &&
                 feint_calloc((size_t)size * (size_t)heads, sizeof *b->heads, &b->heads, "an exchange's messages") ==
                     FEINT_OK;
  if (ok) return FEINT_OK;
  feint_comm_abort(comm, FEINT_ERR_COMPUTE);
  return FEINT_ERR_COMPUTE;
}

static void exchange_buffers_destroy(exchange_buffers *b, int size) {
  for (int p = 0; b->in && p < size; p++) free(b->in[p]);
  free(b->in);
  free(b->in_bytes);
  free(b->msgs);
  free(b->heads);
  memset(b, 0, sizeof *b);
}

/* The exchange itself: a rank that cannot send ends the run. */
static int exchange(feint_comm *comm, exchange_buffers *b) {
  const int sent = feint_comm_exchange(comm, b->msgs, b->in, b->in_bytes);
  if (sent) feint_comm_abort(comm, sent);
  return sent;
}

/* ---- the block's pattern: each owned row the union of its sources' rows ---- */

typedef struct {
  const feint_dist_rows *r;
  struct feint_dist_source *src;
  const feint_plan *local;    /* this rank's local pattern, its own rows' entries from own_first */
  const int64_t *local_whole; /* and each local row's (column's) whole number */
  int64_t own_first;
  int fill; /* 0: count each row's columns into indptr[i + 1]; 1: write columns and slots */
  int failed;
} merge_job;

/* Entry k of source p's rows: its whole column. */
static inline int64_t source_column(const merge_job *j, int p, int64_t k) {
  const struct feint_dist_source *s = &j->src[p];
  return s->cols ? s->cols[k] : j->local_whole[feint_plan_column(j->local, j->own_first + k)];
}

/* The owned rows [a, b): a k-way merge of the sources' sorted columns. */
static void merge_range(int64_t a, int64_t b, void *arg) {
  merge_job *j = arg;
  const feint_dist_rows *r = j->r;
  const int size = r->size;
  int64_t *at = malloc((size_t)size * 2 * sizeof *at);
  if (!at) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  int64_t *end = at + size;
  int64_t *cursor = malloc((size_t)size * sizeof *cursor);
  if (!cursor) {
    free(at);
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int p = 0; p < size; p++)
    cursor[p] = feint_dist_lower_bound(j->src[p].rows, j->src[p].n_rows, r->row0 + a);
  for (int64_t i = a; i < b; i++) {
    const int64_t w = r->row0 + i;
    for (int p = 0; p < size; p++) {
      const struct feint_dist_source *s = &j->src[p];
      if (cursor[p] < s->n_rows && s->rows[cursor[p]] == w) {
        at[p] = s->starts[cursor[p]];
        end[p] = s->starts[cursor[p] + 1];
        cursor[p]++;
      } else {
        at[p] = end[p] = 0;
      }
    }
    int64_t n = 0, out = j->fill ? r->indptr[i] : 0;
    for (;;) {
      int64_t least = INT64_MAX;
      for (int p = 0; p < size; p++)
        if (at[p] < end[p] && source_column(j, p, at[p]) < least) least = source_column(j, p, at[p]);
      if (least == INT64_MAX) break;
      if (j->fill && r->cols) r->cols[out] = least;
      else if (j->fill) r->cols32[out] = (int32_t)least;
      for (int p = 0; p < size; p++)
        if (at[p] < end[p] && source_column(j, p, at[p]) == least) {
          if (j->fill) j->src[p].slots[at[p]] = (int32_t)n;
          at[p]++;
        }
      n++;
      out++;
    }
    if (!j->fill) r->indptr[i + 1] = n;
    if (n > INT32_MAX) __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED); /* a row past int slots */
  }
  free(at);
  free(cursor);
}

/* Every owned row from this rank alone, whole (the rows partition): the
 * block's pattern is its own rows' (own_pattern). */
typedef struct {
  feint_dist_rows *r;
  const struct feint_dist_source *own;
} own_job;

static void own_rows_range(int64_t a, int64_t b, void *arg) {
  const own_job *j = arg;
  for (int64_t i = a; i < b; i++) j->r->indptr[i + 1] = j->own->starts[i + 1];
}

/* The rows partition's block: this rank's own rows as they are. Its
 * columns were made for the block alone (local_pattern) and become the
 * block's, uncopied; no routes, since a sum copies the values whole. */
static void own_pattern(feint_dist_rows *r, struct feint_dist_source *own, int64_t **cols, int32_t **cols32) {
  r->nnz = own->nnz;
  r->cols = *cols;
  r->cols32 = *cols32;
  *cols = NULL;
  *cols32 = NULL;
  own_job j = {r, own};
  feint_parallel_for(r->n_owned, 1 << 14, own_rows_range, &j);
}

static int make_pattern(feint_dist_rows *r, struct feint_dist_source *src, int64_t **own_cols, int32_t **own_cols32,
                        const feint_plan *local, const int64_t *local_whole) {
  FEINT_CALL(feint_calloc((size_t)r->n_owned + 1, sizeof *r->indptr, &r->indptr, "the owned rows' pattern"));
  if (r->complete) {
    own_pattern(r, &src[r->rank], own_cols, own_cols32);
    return FEINT_OK;
  }
  for (int p = 0; p < r->size; p++)
    FEINT_CALL(feint_malloc((size_t)src[p].nnz + 1, sizeof *src[p].slots, &src[p].slots, "the owned rows' routes"));
  merge_job j = {r, src, local, local_whole, r->first_value[r->rank], 0, 0};
  feint_parallel_for(r->n_owned, 1 << 12, merge_range, &j);
  if (j.failed) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory (or a row past 2^31 entries) merging the owned rows");
  for (int64_t i = 0; i < r->n_owned; i++) r->indptr[i + 1] += r->indptr[i];
  r->nnz = r->indptr[r->n_owned];
  if (narrow_columns(r->n_rows))
    FEINT_CALL(feint_malloc((size_t)r->nnz + 1, sizeof *r->cols32, &r->cols32, "the owned rows' columns"));
  else
    FEINT_CALL(feint_malloc((size_t)r->nnz + 1, sizeof *r->cols, &r->cols, "the owned rows' columns"));
  j.fill = 1;
  feint_parallel_for(r->n_owned, 1 << 12, merge_range, &j);
  if (j.failed) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory merging the owned rows");
  return FEINT_OK;
}

/* A source's message (head: status, rows, entries; then rows, starts and
 * columns) read into *s; rows and starts copied, columns borrowed. */
static int read_source(const feint_dist_rows *r, int p, const char *msg, size_t bytes, int matrix,
                       struct feint_dist_source *s) {
  int64_t head[3];
  if (bytes < sizeof head) return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's rows are cut short", p);
  memcpy(head, msg, sizeof head);
  if (head[0]) return feint_dist_peer_failed(p);
  const int64_t n = head[1], nnz = head[2];
  const size_t need = sizeof head + (size_t)n * 8 + (matrix ? (size_t)(n + 1) * 8 + (size_t)nnz * 8 : 0);
  if (n < 0 || nnz < 0 || n > r->n_owned || need != bytes)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's rows are malformed", p);
  s->n_rows = n;
  s->nnz = nnz;
  FEINT_CALL(feint_malloc((size_t)n + 1, sizeof *s->rows, &s->rows, "a rank's rows"));
  memcpy(s->rows, msg + sizeof head, (size_t)n * 8);
  for (int64_t k = 0; k < n; k++)
    if (s->rows[k] < r->row0 || s->rows[k] >= r->row0 + r->n_owned || (k && s->rows[k] <= s->rows[k - 1]))
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d sent row %lld, not one of this rank's", p,
                             (long long)s->rows[k]);
  if (!matrix) return FEINT_OK;
  FEINT_CALL(feint_malloc((size_t)n + 1, sizeof *s->starts, &s->starts, "a rank's rows"));
  memcpy(s->starts, msg + sizeof head + (size_t)n * 8, (size_t)(n + 1) * 8);
  if (s->starts[0] != 0 || s->starts[n] != nnz)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's rows are malformed", p);
  s->cols = (const int64_t *)(const void *)(msg + sizeof head + (size_t)(2 * n + 1) * 8);
  return FEINT_OK;
}

static void release_sources(struct feint_dist_source *src, int size) {
  for (int p = 0; src && p < size; p++) {
    free(src[p].rows);
    free(src[p].starts);
    free(src[p].slots);
  }
  free(src);
}

void feint_dist_rows_destroy(feint_dist_rows *r) {
  if (!r) return;
  free(r->indptr);
  free(r->cols);
  free(r->cols32);
  free(r->first_local);
  free(r->first_value);
  release_sources(r->from, r->size);
  free(r);
}

/* The local pattern's columns as whole numbers, in parallel. */
typedef struct {
  const feint_plan *pl;
  const int64_t *local_whole;
  int64_t first; /* the local entry of cols[0] */
  int64_t *cols;
  int32_t *cols32; /* or these */
} column_job;

static void column_range(int64_t a, int64_t b, void *arg) {
  const column_job *j = arg;
  if (j->cols)
    for (int64_t k = a; k < b; k++) j->cols[k] = j->local_whole[feint_plan_column(j->pl, j->first + k)];
  else
    for (int64_t k = a; k < b; k++) j->cols32[k] = (int32_t)j->local_whole[feint_plan_column(j->pl, j->first + k)];
}

/* Where owner q's slice of the local entries' whole columns lies in
 * cols (local_pattern): on the rows partition only this rank's own slice
 * is made (the others' are empty), the block's pattern to be; on a
 * partition of the cells every other owner's, to send, and not its own
 * (the merge reads those from the local pattern). */
static int64_t slice_at(const feint_dist_rows *r, int q) {
  const int64_t own0 = r->first_value[r->rank], own_n = r->first_value[r->rank + 1] - own0;
  if (r->complete) return r->first_value[q] - own0;
  return q <= r->rank ? r->first_value[q] : r->first_value[q] - own_n;
}

/* This rank's rows as it sends them to each owner: whole columns (*cols,
 * owner q's slice at slice_at(q)), the row starts relative to each
 * owner's first row (*starts, one array: owner q's at first_local[q] + q).
 * The rows partition's own slice, the block's pattern to be, is int32
 * (*cols32, *cols NULL) where the whole's columns allow. */
static int local_pattern(const feint_dist_rows *r, int64_t n_local, const int64_t *local_whole, const feint_plan *pl,
                         int64_t **cols, int32_t **cols32, int64_t **starts) {
  const int64_t own0 = r->first_value[r->rank], own1 = r->first_value[r->rank + 1];
  const int64_t n = r->complete ? own1 - own0 : pl->nnz - (own1 - own0);
  if (r->complete && narrow_columns(r->n_rows)) {
    FEINT_CALL(feint_malloc((size_t)n + 1, sizeof **cols32, cols32, "the rows' whole columns"));
  } else {
    FEINT_CALL(feint_malloc((size_t)n + 1, sizeof **cols, cols, "the rows' whole columns"));
  }
  if (r->complete) {
    column_job cj = {pl, local_whole, own0, *cols, *cols32};
    feint_parallel_for(own1 - own0, 1 << 16, column_range, &cj);
  } else {
    column_job below = {pl, local_whole, 0, *cols, NULL}, above = {pl, local_whole, own1, *cols + own0, NULL};
    feint_parallel_for(own0, 1 << 16, column_range, &below);
    feint_parallel_for(pl->nnz - own1, 1 << 16, column_range, &above);
  }
  FEINT_CALL(feint_malloc((size_t)(n_local + r->size), sizeof **starts, starts, "the rows sent to their owners"));
  for (int q = 0; q < r->size; q++) {
    const int64_t a = r->first_local[q], b = r->first_local[q + 1];
    for (int64_t i = a; i <= b; i++) (*starts)[i + q] = pl->indptr[i] - pl->indptr[a];
  }
  return FEINT_OK;
}

int feint_dist_rows_create(feint_comm *comm, int status_in, int64_t n_rows, int64_t group, int64_t n_local,
                           const int64_t *local_whole, const feint_plan *local, int complete,
                           feint_dist_rows **out) {
  *out = NULL;
  const int size = feint_comm_size(comm), rank = feint_comm_rank(comm);
  feint_dist_rows *r = NULL;
  int status = status_in;
  int64_t *cols = NULL, *starts = NULL, zero[1] = {0};
  int32_t *cols32 = NULL;
  if (!status) status = feint_calloc(1, sizeof *r, &r, "the owned rows");
  if (!status) {
    r->size = size;
    r->rank = rank;
    r->n_rows = n_rows;
    r->matrix = local != NULL;
    r->complete = complete;
    r->row0 = feint_dist_row_start(n_rows, group, size, rank);
    r->n_owned = (rank + 1 == size ? n_rows : feint_dist_row_start(n_rows, group, size, rank + 1)) - r->row0;
    status = feint_calloc((size_t)size + 1, sizeof *r->first_local, &r->first_local, "the owned rows");
  }
  if (!status) status = feint_calloc((size_t)size + 1, sizeof *r->first_value, &r->first_value, "the owned rows");
  if (!status) status = feint_calloc((size_t)size, sizeof *r->from, &r->from, "the owned rows");
  if (!status) {
    for (int q = 0; q <= size; q++) {
      const int64_t s = q == size ? n_rows : feint_dist_row_start(n_rows, group, size, q);
      r->first_local[q] = feint_dist_lower_bound(local_whole, n_local, s);
    }
    /* whole rows: the other owners' slices left empty, this rank's own as they are */
    for (int q = 0; complete && q <= size; q++)
      if (q != rank && q != rank + 1) r->first_local[q] = r->first_local[q < rank ? rank : rank + 1];
    for (int q = 0; q <= size; q++) r->first_value[q] = local ? local->indptr[r->first_local[q]] : r->first_local[q];
    if (local) status = local_pattern(r, n_local, local_whole, local, &cols, &cols32, &starts);
  }
  /* every rank takes part in the exchange, a failed one with its status only */
  const int failed = status != FEINT_OK;
  exchange_buffers x;
  FEINT_CALL(exchange_buffers_create(comm, size, 3, &x));
  for (int q = 0; q < size; q++) {
    int64_t *h = x.heads + 3 * q;
    feint_comm_message *m = &x.msgs[q];
    m->pieces[0] = h;
    m->sizes[0] = sizeof(int64_t) * 3;
    m->n = 1;
    h[0] = failed;
    if (failed || q == rank) continue;
    const int64_t a = r->first_local[q], b = r->first_local[q + 1];
    h[1] = b - a;
    h[2] = r->first_value[q + 1] - r->first_value[q];
    m->pieces[1] = b > a ? local_whole + a : zero;
    m->sizes[1] = (size_t)(b - a) * 8;
    m->n = 2;
    if (local) {
      m->pieces[2] = starts + a + q;
      m->sizes[2] = (size_t)(b - a + 1) * 8;
      m->pieces[3] = h[2] ? cols + slice_at(r, q) : zero;
      m->sizes[3] = (size_t)h[2] * 8;
      m->n = 4;
    }
  }
  FEINT_CALL(exchange(comm, &x));
  for (int p = 0; p < size && !status; p++) {
    struct feint_dist_source *s = &r->from[p];
    if (p != rank) {
      status = read_source(r, p, x.in[p], x.in_bytes[p], local != NULL, s);
      continue;
    }
    const int64_t a = r->first_local[p], b = r->first_local[p + 1];
    s->n_rows = b - a;
    s->nnz = r->first_value[p + 1] - r->first_value[p];
    status = feint_malloc((size_t)s->n_rows + 1, sizeof *s->rows, &s->rows, "this rank's own rows");
    if (!status) memcpy(s->rows, local_whole + a, (size_t)s->n_rows * 8);
    if (!status && local) status = feint_malloc((size_t)s->n_rows + 1, sizeof *s->starts, &s->starts, "own rows");
    if (!status && local) {
      memcpy(s->starts, starts + a + p, (size_t)(s->n_rows + 1) * 8);
      s->cols = r->complete ? cols : NULL;
    }
  }
  if (!status && complete && r->from[rank].n_rows != r->n_owned)
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d holds %lld of its %lld rows", rank,
                             (long long)r->from[rank].n_rows, (long long)r->n_owned);
  if (!status && local) status = make_pattern(r, r->from, &cols, &cols32, local, local_whole);
  for (int p = 0; p < size; p++)
    if (r && r->from) r->from[p].cols = NULL;
  exchange_buffers_destroy(&x, size);
  free(cols);
  free(cols32);
  free(starts);
  if (status) {
    feint_dist_rows_destroy(r);
    return status;
  }
  *out = r;
  return FEINT_OK;
}

/* ---- sums ---- */

typedef struct {
  const double *values;
  const struct feint_dist_source *s;
  const int64_t *indptr; /* the matrix: the block's rows (NULL: a vector) */
  int64_t row0;
  double *owned;
  int copy; /* the rows partition: this rank's values are the block's, in its order */
} add_job;

/* Values [a, b) of a vector, or the source's rows [a, b) of the matrix,
 * each entry at its slot in its row of the block. */
static void add_range(int64_t a, int64_t b, void *arg) {
  const add_job *j = arg;
  const struct feint_dist_source *s = j->s;
  if (j->copy) {
    memcpy(j->owned + a, j->values + a, (size_t)(b - a) * sizeof *j->values);
  } else if (j->indptr) {
    for (int64_t i = a; i < b; i++) {
      double *row = j->owned + j->indptr[s->rows[i] - j->row0];
      for (int64_t k = s->starts[i]; k < s->starts[i + 1]; k++) row[s->slots[k]] += j->values[k];
    }
  } else {
    for (int64_t k = a; k < b; k++) j->owned[s->rows[k] - j->row0] += j->values[k];
  }
}

int feint_dist_rows_sum(feint_dist_rows *r, feint_comm *comm, int status_in, int matrix, const double *local,
                        double *owned) {
  const int size = r->size, rank = r->rank;
  if (matrix && !r->matrix) status_in = feint_error_set(FEINT_ERR_COMPUTE, "internal: the rows have no pattern");
  exchange_buffers x;
  FEINT_CALL(exchange_buffers_create(comm, size, 2, &x));
  void **in = x.in;
  const size_t *in_bytes = x.in_bytes;
  const int64_t *first = matrix ? r->first_value : r->first_local;
  for (int q = 0; q < size; q++) {
    int64_t *h = x.heads + 2 * q;
    h[0] = status_in != FEINT_OK;
    h[1] = first[q + 1] - first[q];
    x.msgs[q].pieces[0] = h;
    x.msgs[q].sizes[0] = sizeof(int64_t) * 2;
    x.msgs[q].n = 1;
    if (!status_in && h[1]) {
      x.msgs[q].pieces[1] = local + first[q];
      x.msgs[q].sizes[1] = (size_t)h[1] * sizeof(double);
      x.msgs[q].n = 2;
    }
  }
  FEINT_CALL(exchange(comm, &x));
  int status = status_in;
  if (!status && !r->complete) memset(owned, 0, (size_t)(matrix ? r->nnz : r->n_owned) * sizeof *owned);
  for (int p = 0; p < size && !status; p++) {
    const struct feint_dist_source *s = &r->from[p];
    const int64_t count = matrix ? s->nnz : s->n_rows;
    const double *values = local + first[rank];
    if (p != rank) {
      int64_t h[2];
      if (in_bytes[p] < sizeof h) {
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's sums are cut short", p);
        break;
      }
      memcpy(h, in[p], sizeof h);
      if (h[0]) {
        status = feint_dist_peer_failed(p);
        break;
      }
      if (h[1] != count || in_bytes[p] != sizeof h + (size_t)count * sizeof(double)) {
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d sent %lld values for %lld", p,
                                 (long long)h[1], (long long)count);
        break;
      }
      values = (const double *)(const void *)((const char *)in[p] + sizeof h);
    }
    add_job j = {values, s, matrix ? r->indptr : NULL, r->row0, owned, r->complete};
    /* the matrix added by rows (each a slice of the source's entries), unless copied whole */
    const int64_t items = matrix && !r->complete ? s->n_rows : count;
    if (!(r->complete && owned == values)) /* the block may be its own rows' slice of the results already */
      feint_parallel_for(items, matrix && !r->complete ? 1 << 10 : 1 << 16, add_range, &j);
  }
  exchange_buffers_destroy(&x, size);
  return status;
}

/* ---- element matrices to their cells' owners ---- */

typedef struct {
  const int64_t *cells; /* whole numbers */
  const double *from;   /* nbc x nbc each */
  int nbc, nbc_whole;
  int64_t cell0;
  double *owned;
  char *placed; /* a cell's matrix is taken from the first rank that gives it */
} place_job;

static void place_range(int64_t a, int64_t b, void *arg) {
  const place_job *j = arg;
  const size_t row = (size_t)j->nbc_whole * (size_t)j->nbc_whole;
  for (int64_t i = a; i < b; i++) {
    if (j->placed[j->cells[i] - j->cell0]) continue;
    j->placed[j->cells[i] - j->cell0] = 1;
    double *to = j->owned + (size_t)(j->cells[i] - j->cell0) * row;
    const double *from = j->from + (size_t)i * (size_t)j->nbc * (size_t)j->nbc;
    for (int r = 0; r < j->nbc; r++)
      memcpy(to + (size_t)r * (size_t)j->nbc_whole, from + (size_t)r * (size_t)j->nbc, (size_t)j->nbc * sizeof *from);
  }
}

int feint_dist_cells_to_owners(feint_comm *comm, int status_in, int64_t n_whole, int64_t n_cells,
                               const int64_t *whole_cell, int nbc, const double *local, int nbc_whole,
                               int64_t *cell0, int64_t *n_owned, double **owned) {
  const int size = feint_comm_size(comm), rank = feint_comm_rank(comm);
  *owned = NULL;
  *cell0 = feint_dist_row_start(n_whole, 1, size, rank);
  *n_owned = (rank + 1 == size ? n_whole : feint_dist_row_start(n_whole, 1, size, rank + 1)) - *cell0;
  if (!status_in && nbc > nbc_whole)
    status_in = feint_error_set(FEINT_ERR_COMPUTE, "internal: element matrices of %d dofs in rows of %d", nbc, nbc_whole);
  exchange_buffers x;
  FEINT_CALL(exchange_buffers_create(comm, size, 3, &x));
  /* the part's cells ascend: those of owner q are one slice */
  int64_t *first = NULL;
  int status = status_in;
  if (!status) status = feint_malloc((size_t)size + 1, sizeof *first, &first, "the cells' owners");
  for (int q = 0; q <= size && !status; q++)
    first[q] = q == size ? n_cells
                         : feint_dist_lower_bound(whole_cell, n_cells, feint_dist_row_start(n_whole, 1, size, q));
  const size_t matrix = (size_t)nbc * (size_t)nbc * sizeof(double);
  for (int q = 0; q < size; q++) {
    int64_t *h = x.heads + 3 * q;
    h[0] = status != FEINT_OK;
    h[1] = status ? 0 : first[q + 1] - first[q];
    h[2] = nbc;
    x.msgs[q].pieces[0] = h;
    x.msgs[q].sizes[0] = sizeof(int64_t) * 3;
    x.msgs[q].n = 1;
    if (!status && h[1] && q != rank) {
      x.msgs[q].pieces[1] = whole_cell + first[q];
      x.msgs[q].sizes[1] = (size_t)h[1] * sizeof(int64_t);
      x.msgs[q].pieces[2] = local + (size_t)first[q] * (size_t)nbc * (size_t)nbc;
      x.msgs[q].sizes[2] = (size_t)h[1] * matrix;
      x.msgs[q].n = 3;
    }
  }
  FEINT_CALL(exchange(comm, &x));
  /* zeroed: a mixed mesh's narrower cells leave padding in the whole's rows */
  const size_t row = (size_t)nbc_whole * (size_t)nbc_whole;
  if (!status) status = feint_calloc((size_t)*n_owned * row + 1, sizeof **owned, owned, "the owned element matrices");
  char *placed = NULL;
  if (!status) status = feint_calloc((size_t)*n_owned + 1, 1, &placed, "the owned element matrices");
  for (int p = 0; p < size && !status; p++) {
    place_job j = {NULL, NULL, nbc, nbc_whole, *cell0, *owned, placed};
    int64_t count = 0;
    if (p == rank) {
      count = first[rank + 1] - first[rank];
      j.cells = whole_cell + first[rank];
      j.from = local + (size_t)first[rank] * (size_t)nbc * (size_t)nbc;
    } else {
      int64_t h[3];
      if (x.in_bytes[p] < sizeof h) {
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's element matrices are cut short", p);
        break;
      }
      memcpy(h, x.in[p], sizeof h);
      if (h[0]) {
        status = feint_dist_peer_failed(p);
        break;
      }
      count = h[1];
      j.nbc = (int)h[2];
      const size_t m = (size_t)j.nbc * (size_t)j.nbc * sizeof(double);
      if (h[1] < 0 || h[2] < 1 || h[2] > nbc_whole || x.in_bytes[p] != sizeof h + (size_t)count * (8 + m)) {
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's element matrices are malformed", p);
        break;
      }
      j.cells = (const int64_t *)(const void *)((const char *)x.in[p] + sizeof h);
      j.from = (const double *)(const void *)((const char *)x.in[p] + sizeof h + (size_t)count * 8);
    }
    for (int64_t i = 0; i < count && !status; i++)
      if (j.cells[i] < *cell0 || j.cells[i] >= *cell0 + *n_owned)
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d sent cell %lld, not this rank's", p,
                                 (long long)j.cells[i]);
    if (!status) feint_parallel_for(count, 1 << 12, place_range, &j);
  }
  exchange_buffers_destroy(&x, size);
  free(first);
  free(placed);
  if (status) {
    free(*owned);
    *owned = NULL;
  }
  return status;
}

/* ---- element matrices written where they were computed ---- */

int feint_dist_cells_in_place(feint_comm *comm, int status_in, int64_t n_cells, const int64_t *whole_cell,
                              const unsigned char *writes, int nbc, int nbc_whole, int64_t **ranges,
                              int64_t *n_ranges, int *all) {
  const int size = feint_comm_size(comm), rank = feint_comm_rank(comm);
  *ranges = NULL;
  *n_ranges = 0;
  *all = 0;
  int status = status_in;
  /* the ranges of consecutive whole cells this rank writes, counted, then listed */
  int64_t n = 0;
  for (int64_t i = 0; i < n_cells && !status; i++)
    if ((!writes || writes[i]) && (i == 0 || (writes && !writes[i - 1]) || whole_cell[i] != whole_cell[i - 1] + 1))
      n++;
  const char *hook = getenv("FEINT_DIST_ELEMENTS");
  const int owners = hook && !strcmp(hook, "owners"), any_ranges = hook && !strcmp(hook, "place");
  int can = !status && nbc == nbc_whole && (n <= 1 + n_cells / 64 || any_ranges) && !owners;
  if (can) status = feint_malloc((size_t)n * 3 + 1, sizeof **ranges, ranges, "the element matrices' ranges");
  if (status) can = 0;
  const int64_t row = (int64_t)nbc * nbc;
  for (int64_t i = 0, k = -1; can && i < n_cells; i++) {
    if (writes && !writes[i]) continue;
    if (k < 0 || (*ranges)[3 * k + 1] + (*ranges)[3 * k + 2] != i * row ||
        (*ranges)[3 * k] + (*ranges)[3 * k + 2] != whole_cell[i] * row) {
      k++;
      (*ranges)[3 * k] = whole_cell[i] * row;
      (*ranges)[3 * k + 1] = i * row;
      (*ranges)[3 * k + 2] = 0;
    }
    (*ranges)[3 * k + 2] += row;
  }
  /* every rank's vote (and status) to every other */
  exchange_buffers x;
  FEINT_CALL(exchange_buffers_create(comm, size, 2, &x));
  for (int q = 0; q < size; q++) {
    int64_t *h = x.heads + 2 * q;
    h[0] = status != FEINT_OK;
    h[1] = can;
    x.msgs[q].pieces[0] = h;
    x.msgs[q].sizes[0] = sizeof(int64_t) * 2;
    x.msgs[q].n = 1;
  }
  FEINT_CALL(exchange(comm, &x));
  int every = can;
  for (int p = 0; p < size && !status; p++) {
    if (p == rank) continue;
    int64_t h[2];
    if (x.in_bytes[p] != sizeof h) {
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's vote is malformed", p);
      break;
    }
    memcpy(h, x.in[p], sizeof h);
    if (h[0]) status = feint_dist_peer_failed(p);
    every = every && h[1];
  }
  exchange_buffers_destroy(&x, size);
  if (status || !every) {
    free(*ranges);
    *ranges = NULL;
    return status;
  }
  *n_ranges = n;
  *all = 1;
  return FEINT_OK;
}
