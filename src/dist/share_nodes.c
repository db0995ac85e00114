/* The nodes of a mesh read in shares (feint_mesh_read_share), numbered
 * by the ranks together: each rank reads its range of the file's nodes,
 * and none holds more than its rows' range of their coordinates unless it
 * asks for every node (rank 0, which writes the whole's node datasets).
 * Any carrier of messages (share_exchange_fn: MPI's under mpirun, a test's
 * threads). Kept apart from the rest of the shares' read (share.c) so
 * that the mesh reader's fuzz harness can link it alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist/slab.h"
#include "feint/error.h"
#include "feint/parallel.h"

/* ---- The nodes numbered by the shares together ----
 *
 * Four rounds, each every rank's message to every other, each opening with
 * its sender's state (a failed rank still sends, so that none waits for
 * it; every rank sees every state, and all stop after the same round):
 * 1. the heads: read, failed or none read; the file's node count; the
 *    largest tag read; whether the rank holds every node;
 * 2. to each tag owner (a range of 64-tag words a rank) the nodes read
 *    with its tags (tag and coordinates) and the marks of its tags (a bit
 *    a tag: a cell's, a facet's);
 * 3. from each owner to every rank: its tags' used bits (the ORed marks),
 *    its counts and its nodes' z extent (a 2D mesh must be planar);
 * 4. from each owner the coordinates of its used nodes, numbered in tag
 *    order after the used tags of the owners before it, to the ranks that
 *    hold them.
 * A rank sends and keeps O(its nodes), and two bits a tag of the whole. */

enum { NODES_READ, NODES_FAILED, NODES_DECLINED };

typedef struct {
  int64_t tag;
  double xyz[3];
} node_record;

typedef struct {
  int64_t state, n_file, max_tag, all_nodes;
} nodes_head;

typedef struct {
  int64_t state, n_used, in_cells, has_z;
  double zlo, zhi, scale;
} owner_head;

/* One rank's numbering: its rounds' messages and what it builds. */
typedef struct {
  share_round R;       /* the rounds' messages */
  feint_mesh_share_nodes *job;
  nodes_head *heads;   /* every rank's (round 1) */
  int64_t W, *word0;   /* 64-tag words of the tags 0 .. max_tag; rank q owns [word0[q], word0[q + 1]) */
  unsigned char *named; /* 64 W: 1 where a cell names the tag, else 2 where a facet does (plain stores: bit ORs
                           from every core contend for the words) */
  uint64_t *marks[2];  /* W words: the same as bits, a cell's, a facet's */
  int64_t *sent_at;    /* size + 1: each owner's run of records */
  node_record *records;
  int64_t *counts;     /* the read nodes counted by range and owner, then where each range's go */
  int64_t *heads2;     /* round 2's heads: state, records */
  /* as an owner of the tags [t0, t0 + 64 nw) */
  int64_t w0, nw, t0, n_rec;
  node_record *rec;    /* every rank's records for it, in rank order (file order) */
  int64_t *slot;       /* tag - t0 -> its record, or -1 */
  uint64_t *used, *in_cells;
  owner_head own;
  double *ox, *oy, *oz; /* its used nodes' coordinates, in number order */
  int64_t base;        /* their first number */
  /* every rank's */
  uint64_t *all_used;  /* W words */
  int64_t *before;     /* W + 1: the used tags before each word */
  int64_t n_nodes, nodes_in_cells;
  int64_t *heads4;
} numbering;

void share_round_free_in(share_round *R) {
  for (int p = 0; R->in && p < R->size; p++) {
    free(R->in[p]);
    R->in[p] = NULL;
    R->in_bytes[p] = 0;
  }
}

void share_round_destroy(share_round *R) {
  share_round_free_in(R);
  free(R->out);
  free(R->in);
  free(R->in_bytes);
  memset(R, 0, sizeof *R); /* (destroying again is harmless) */
}

int share_round_start(share_round *R, share_exchange_fn exchange, void *ctx, int rank, int size) {
  *R = (share_round){.exchange = exchange, .ctx = ctx, .rank = rank, .size = size};
  int st = feint_calloc((size_t)size, sizeof *R->out, &R->out, "a round's messages");
  if (!st) st = feint_calloc((size_t)size, sizeof *R->in, &R->in, "a round's messages");
  if (!st) st = feint_calloc((size_t)size, sizeof *R->in_bytes, &R->in_bytes, "a round's messages");
  if (st) share_round_destroy(R);
  return st;
}

static const int64_t failed_state = NODES_FAILED;
int share_round_run(share_round *R, int status) {
  if (status)
    for (int q = 0; q < R->size; q++) R->out[q] = (feint_comm_message){{&failed_state}, {sizeof failed_state}, 1};
  share_round_free_in(R);
  const int sent = R->exchange(R->ctx, R->out, R->in, R->in_bytes);
  if (status) return status;
  if (sent) return sent;
  for (int p = 0; p < R->size; p++) {
    int64_t state = NODES_FAILED;
    if (p != R->rank && R->in[p] && R->in_bytes[p] >= sizeof state) memcpy(&state, R->in[p], sizeof state);
    if (p != R->rank && state != NODES_READ) return feint_dist_peer_failed(p);
  }
  return FEINT_OK;
}

static void numbering_destroy(numbering *N) {
  share_round_destroy(&N->R);
  free(N->heads);
  free(N->word0);
  free(N->named);
  free(N->marks[0]);
  free(N->marks[1]);
  free(N->sent_at);
  free(N->records);
  free(N->counts);
  free(N->heads2);
  free(N->rec);
  free(N->slot);
  free(N->used);
  free(N->in_cells);
  free(N->ox);
  free(N->oy);
  free(N->oz);
  free(N->all_used);
  free(N->before);
  free(N->heads4);
  memset(N, 0, sizeof *N); /* (destroying again is harmless) */
}

/* 1. The heads, and the outcome: a rank failed, one read none, their files differ. */
static int round_heads(numbering *N, int status) {
  feint_mesh_share_nodes *job = N->job;
  nodes_head mine = {.state = status ? NODES_FAILED : job ? NODES_READ : NODES_DECLINED};
  if (mine.state == NODES_READ) {
    mine.n_file = job->n_file;
    mine.all_nodes = job->all_nodes;
    for (int64_t i = 0; i < job->count; i++) mine.max_tag = job->tags[i] > mine.max_tag ? job->tags[i] : mine.max_tag;
  }
  for (int q = 0; q < N->R.size; q++) N->R.out[q] = (feint_comm_message){{&mine}, {sizeof mine}, 1};
  share_round_free_in(&N->R);
  const int sent = N->R.exchange(N->R.ctx, N->R.out, N->R.in, N->R.in_bytes);
  int failed = -1, declined = mine.state == NODES_DECLINED, differ = -1;
  for (int p = 0; p < N->R.size; p++) {
    nodes_head h = {.state = NODES_FAILED};
    if (p == N->R.rank) h = mine;
    else if (N->R.in[p] && N->R.in_bytes[p] == sizeof h) memcpy(&h, N->R.in[p], sizeof h);
    else if (N->R.in[p] && N->R.in_bytes[p] >= sizeof h.state) memcpy(&h.state, N->R.in[p], sizeof h.state);
    if (h.state == NODES_DECLINED) declined = 1;
    else if (h.state != NODES_READ && failed < 0) failed = p;
    else if (h.state == NODES_READ && mine.state == NODES_READ && h.n_file != mine.n_file && differ < 0) differ = p;
    N->heads[p] = h;
  }
  if (status) return status;
  if (sent) return sent;
  if (failed >= 0) return feint_dist_peer_failed(failed);
  if (declined) return FEINT_MESH_SHARE_DECLINED; /* no error: the whole is read instead */
  if (differ >= 0) /* the file changed between the ranks' reads */
    return feint_error_set(FEINT_ERR_INPUT, "the mesh file read by rank %d has other nodes than rank %d's", differ,
                           N->R.rank);
  int64_t max_tag = 0;
  for (int p = 0; p < N->R.size; p++) max_tag = N->heads[p].max_tag > max_tag ? N->heads[p].max_tag : max_tag;
  if ((uint64_t)max_tag > 2 * (uint64_t)job->n_file + ((uint64_t)1 << 20)) /* an owner's table of its tags: too big */
    return FEINT_MESH_SHARE_SPARSE;
  N->W = (max_tag >> 6) + 1;
  return FEINT_OK;
}

/* The owner of a word: the last q with word0[q] <= word (its range holds it). */
static int word_owner(const int64_t *word0, int size, int64_t word) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (word0[mid] <= word) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Round 2's work on every core: the entries' marks (atomic ORs of bits),
 * the nodes read counted by owner, then placed in their owners' runs. */
typedef struct {
  numbering *N;
  int list;
  int64_t max_tag;
  int64_t bad[FEINT_PARALLEL_MAX_RANGES];
} mark_job;

static void mark_range(int64_t a, int64_t b, int t, void *arg) {
  mark_job *j = arg;
  const int64_t *e = j->N->job->entries[j->list];
  unsigned char *named = j->N->named;
  const unsigned char mark = (unsigned char)(j->list + 1);
  j->bad[t] = -1;
  for (int64_t i = a; i < b; i++) {
    const int64_t tag = e[i];
    if (tag == -1) continue; /* padding */
    if (tag < 1 || tag > j->max_tag) {
      j->bad[t] = i;
      return;
    }
    /* a cell's 1; a facet's 2 unless a cell's (the cells are marked first, in a pass of their own) */
    if (mark == 1 || !__atomic_load_n(&named[tag], __ATOMIC_RELAXED)) __atomic_store_n(&named[tag], mark, __ATOMIC_RELAXED);
  }
}

/* The marks as bits, word by word. */
static void mark_bits_range(int64_t a, int64_t b, void *arg) {
  numbering *N = arg;
  for (int64_t w = a; w < b; w++) {
    uint64_t cells = 0, facets = 0;
    const unsigned char *m = N->named + 64 * w;
    for (int k = 0; k < 64; k++) {
      cells |= (uint64_t)(m[k] == 1) << k;
      facets |= (uint64_t)(m[k] == 2) << k;
    }
    N->marks[0][w] = cells;
    N->marks[1][w] = facets;
  }
}

static void owner_count_range(int64_t a, int64_t b, int t, void *arg) {
  numbering *N = arg;
  int64_t *c = N->counts + (size_t)t * (size_t)N->R.size;
  for (int64_t i = a; i < b; i++) c[word_owner(N->word0, N->R.size, N->job->tags[i] >> 6)]++;
}

static void owner_place_range(int64_t a, int64_t b, int t, void *arg) {
  numbering *N = arg;
  int64_t *at = N->counts + (size_t)t * (size_t)N->R.size;
  for (int64_t i = a; i < b; i++) {
    const int64_t tag = N->job->tags[i];
    node_record *r = &N->records[at[word_owner(N->word0, N->R.size, tag >> 6)]++];
    r->tag = tag;
    memcpy(r->xyz, N->job->xyz + 3 * i, sizeof r->xyz);
  }
}

/* Round 2's messages: the marks made, the nodes read sorted by owner. */
static int to_owners(numbering *N) {
  feint_mesh_share_nodes *job = N->job;
  const int size = N->R.size;
  FEINT_CALL(feint_malloc((size_t)size + 1, sizeof *N->word0, &N->word0, "the tags' owners"));
  for (int q = 0; q <= size; q++) N->word0[q] = N->W * q / size;
  int st = feint_calloc(64 * (size_t)N->W, 1, &N->named, "the nodes' marks");
  if (!st) st = feint_malloc((size_t)N->W, sizeof *N->marks[0], &N->marks[0], "the cells' node marks");
  if (!st) st = feint_malloc((size_t)N->W, sizeof *N->marks[1], &N->marks[1], "the facets' node marks");
  mark_job mj = {.N = N, .max_tag = 64 * N->W - 1};
  for (int l = 0; l < 2 && !st; l++) {
    mj.list = l;
    const int n = job->n_entries[l] ? feint_parallel_for_indexed(job->n_entries[l], 1 << 16, mark_range, &mj) : 0;
    for (int t = 0; t < n && !st; t++)
      if (mj.bad[t] >= 0)
        st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: an element refers to node %lld, which the mesh does not "
                             "define", job->pre, job->path, (long long)job->entries[l][mj.bad[t]]);
  }
  if (!st) {
    feint_parallel_for(N->W, 1 << 10, mark_bits_range, N);
    free(N->named);
    N->named = NULL;
  }
  const int ranges = feint_parallel_ranges(job->count, 1 << 16);
  if (!st) st = feint_calloc((size_t)ranges * (size_t)size + 1, sizeof *N->counts, &N->counts, "the nodes' owners");
  if (!st) st = feint_malloc((size_t)size + 1, sizeof *N->sent_at, &N->sent_at, "the nodes' owners");
  if (!st) st = feint_malloc((size_t)job->count + 1, sizeof *N->records, &N->records, "the nodes read");
  if (!st) st = feint_malloc(2 * (size_t)size + 1, sizeof *N->heads2, &N->heads2, "the nodes' messages");
  if (!st) {
    if (job->count) feint_parallel_for_indexed(job->count, 1 << 16, owner_count_range, N);
    int64_t n = 0;
    for (int q = 0; q < size; q++) { /* owner by owner, range by range: each owner's run in file order */
      N->sent_at[q] = n;
      for (int t = 0; t < ranges; t++) {
        int64_t *c = &N->counts[(size_t)t * (size_t)size + (size_t)q];
        const int64_t k = *c;
        *c = n;
        n += k;
      }
    }
    N->sent_at[size] = n;
    if (job->count) feint_parallel_for_indexed(job->count, 1 << 16, owner_place_range, N); /* the same ranges */
    for (int q = 0; q < size; q++) {
      const int64_t nw = N->word0[q + 1] - N->word0[q], n_q = N->sent_at[q + 1] - N->sent_at[q];
      N->heads2[2 * q] = NODES_READ;
      N->heads2[2 * q + 1] = n_q;
      N->R.out[q] = (feint_comm_message){
          {N->heads2 + 2 * q, N->records + N->sent_at[q], N->marks[0] + N->word0[q], N->marks[1] + N->word0[q]},
          {2 * sizeof *N->heads2, (size_t)n_q * sizeof *N->records, (size_t)nw * 8, (size_t)nw * 8},
          4};
    }
  }
  return st;
}

/* An owner's work on its tags on every core. */
typedef struct {
  numbering *N;
  int64_t twice[FEINT_PARALLEL_MAX_RANGES], missing[FEINT_PARALLEL_MAX_RANGES];
  int64_t used[FEINT_PARALLEL_MAX_RANGES], cells[FEINT_PARALLEL_MAX_RANGES];
  double zlo[FEINT_PARALLEL_MAX_RANGES], zhi[FEINT_PARALLEL_MAX_RANGES], scale[FEINT_PARALLEL_MAX_RANGES];
  int has[FEINT_PARALLEL_MAX_RANGES];
} owner_job;

static void slot_clear_range(int64_t a, int64_t b, void *arg) {
  const numbering *N = arg;
  for (int64_t i = a; i < b; i++) N->slot[i] = -1;
}

static void slot_place_range(int64_t a, int64_t b, int t, void *arg) {
  owner_job *j = arg;
  numbering *N = j->N;
  j->twice[t] = 0;
  for (int64_t i = a; i < b; i++) {
    int64_t none = -1;
    if (!__atomic_compare_exchange_n(&N->slot[N->rec[i].tag - N->t0], &none, i, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED) &&
        !j->twice[t])
      j->twice[t] = N->rec[i].tag;
  }
}

/* The used tags counted, the first without a node found, and the z extent of those with one. */
static void owner_check_range(int64_t a, int64_t b, int t, void *arg) {
  owner_job *j = arg;
  const numbering *N = j->N;
  int64_t used = 0, cells = 0, missing = 0;
  int has = 0;
  double zlo = 0, zhi = 0, scale = 0;
  for (int64_t w = a; w < b; w++) {
    used += __builtin_popcountll(N->used[w]);
    cells += __builtin_popcountll(N->in_cells[w]);
    for (uint64_t bits = N->used[w]; bits; bits &= bits - 1) {
      const int64_t k = 64 * w + __builtin_ctzll(bits), s = N->slot[k];
      if (s < 0) {
        if (!missing) missing = N->t0 + k;
        continue;
      }
      const double *p = N->rec[s].xyz;
      zlo = !has || p[2] < zlo ? p[2] : zlo;
      zhi = !has || p[2] > zhi ? p[2] : zhi;
      scale = fabs(p[0]) + fabs(p[1]) > scale ? fabs(p[0]) + fabs(p[1]) : scale;
      has = 1;
    }
  }
  j->used[t] = used;
  j->cells[t] = cells;
  j->missing[t] = missing;
  j->has[t] = has;
  j->zlo[t] = zlo;
  j->zhi[t] = zhi;
  j->scale[t] = scale;
}

/* Round 2's messages taken by their owner: its records, its tags' nodes (each tag once), the used tags (every
 * rank's marks ORed), each with a node; then its counts and z extent, round 3's messages. */
static int owner_take(numbering *N) {
  feint_mesh_share_nodes *job = N->job;
  N->w0 = N->word0[N->R.rank];
  N->nw = N->word0[N->R.rank + 1] - N->w0;
  N->t0 = 64 * N->w0;
  const size_t mark_bytes = (size_t)N->nw * 8;
  int64_t n = 0;
  for (int p = 0; p < N->R.size; p++) {
    int64_t h[2] = {NODES_READ, -1};
    if (p == N->R.rank) h[1] = N->heads2[2 * p + 1];
    else if (N->R.in_bytes[p] >= sizeof h) memcpy(h, N->R.in[p], sizeof h);
    if (h[1] < 0 || (p != N->R.rank && N->R.in_bytes[p] != sizeof h + (size_t)h[1] * sizeof *N->rec + 2 * mark_bytes))
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's nodes for rank %d are malformed", p, N->R.rank);
    n += h[1];
  }
  N->n_rec = n;
  FEINT_CALL(feint_malloc((size_t)n + 1, sizeof *N->rec, &N->rec, "the owned nodes"));
  FEINT_CALL(feint_malloc(64 * (size_t)N->nw + 1, sizeof *N->slot, &N->slot, "the owned tags"));
  FEINT_CALL(feint_calloc((size_t)N->nw + 1, sizeof *N->used, &N->used, "the owned tags' marks"));
  FEINT_CALL(feint_calloc((size_t)N->nw + 1, sizeof *N->in_cells, &N->in_cells, "the owned tags' marks"));
  int64_t k = 0;
  for (int p = 0; p < N->R.size; p++) {
    const char *m = p == N->R.rank ? NULL : (const char *)N->R.in[p] + 2 * sizeof(int64_t);
    const int64_t c = p == N->R.rank ? N->heads2[2 * p + 1] : ((const int64_t *)N->R.in[p])[1];
    const void *records = p == N->R.rank ? (const void *)(N->records + N->sent_at[p]) : m;
    const char *cells = p == N->R.rank ? (const char *)(N->marks[0] + N->w0) : m + (size_t)c * sizeof *N->rec;
    const char *facets = p == N->R.rank ? (const char *)(N->marks[1] + N->w0) : cells + mark_bytes;
    feint_parallel_memcpy(N->rec + k, records, (size_t)c * sizeof *N->rec);
    k += c;
    for (int64_t w = 0; w < N->nw; w++) {
      uint64_t cw, fw;
      memcpy(&cw, cells + 8 * w, 8);
      memcpy(&fw, facets + 8 * w, 8);
      N->in_cells[w] |= cw;
      N->used[w] |= cw | fw;
    }
  }
  share_round_free_in(&N->R);
  free(N->records); /* sent */
  N->records = NULL;
  for (int64_t i = 0; i < n; i++)
    if (N->rec[i].tag < N->t0 || N->rec[i].tag >= N->t0 + 64 * N->nw)
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: node %lld sent to the owner of tags %lld..%lld",
                             (long long)N->rec[i].tag, (long long)N->t0, (long long)(N->t0 + 64 * N->nw));
  owner_job oj = {.N = N};
  feint_parallel_for(64 * N->nw, 1 << 16, slot_clear_range, N);
  const int placed = n ? feint_parallel_for_indexed(n, 1 << 16, slot_place_range, &oj) : 0;
  int64_t twice = 0;
  for (int t = 0; t < placed; t++) twice = oj.twice[t] && (!twice || oj.twice[t] < twice) ? oj.twice[t] : twice;
  if (twice)
    return feint_error_set(FEINT_ERR_INPUT, "%smesh %s: node %lld is defined twice", job->pre, job->path,
                           (long long)twice);
  const int checked = N->nw ? feint_parallel_for_indexed(N->nw, 1 << 12, owner_check_range, &oj) : 0;
  owner_head *o = &N->own;
  *o = (owner_head){.state = NODES_READ};
  int64_t missing = 0;
  for (int t = 0; t < checked; t++) {
    o->n_used += oj.used[t];
    o->in_cells += oj.cells[t];
    missing = missing ? missing : oj.missing[t];
    if (!oj.has[t]) continue;
    o->zlo = !o->has_z || oj.zlo[t] < o->zlo ? oj.zlo[t] : o->zlo;
    o->zhi = !o->has_z || oj.zhi[t] > o->zhi ? oj.zhi[t] : o->zhi;
    o->scale = oj.scale[t] > o->scale ? oj.scale[t] : o->scale;
    o->has_z = 1;
  }
  if (missing)
    return feint_error_set(FEINT_ERR_INPUT, "%smesh %s: an element refers to node %lld, which the mesh does not define",
                           job->pre, job->path, (long long)missing);
  for (int q = 0; q < N->R.size; q++)
    N->R.out[q] = (feint_comm_message){{&N->own, N->used}, {sizeof N->own, (size_t)N->nw * sizeof *N->used}, 2};
  return FEINT_OK;
}

static int to_holders(numbering *N);

/* Every rank's view of the used tags: the words, and the used tags before each. */
typedef struct {
  numbering *N;
  int64_t sums[FEINT_PARALLEL_MAX_RANGES + 1];
  int64_t *entries;
} used_job;

static void used_sum_range(int64_t a, int64_t b, int t, void *arg) {
  used_job *j = arg;
  int64_t n = 0;
  for (int64_t w = a; w < b; w++) n += __builtin_popcountll(j->N->all_used[w]);
  j->sums[t + 1] = n;
}

static void used_before_range(int64_t a, int64_t b, int t, void *arg) {
  used_job *j = arg;
  int64_t n = j->sums[t];
  for (int64_t w = a; w < b; w++) {
    j->N->before[w] = n;
    n += __builtin_popcountll(j->N->all_used[w]);
  }
}

static void renumber_range(int64_t a, int64_t b, void *arg) {
  const used_job *j = arg;
  const uint64_t *used = j->N->all_used;
  const int64_t *before = j->N->before;
  for (int64_t i = a; i < b; i++) {
    const int64_t t = j->entries[i];
    if (t != -1) j->entries[i] = before[t >> 6] + __builtin_popcountll(used[t >> 6] & (((uint64_t)1 << (t & 63)) - 1));
  }
}

static void owner_number_range(int64_t a, int64_t b, void *arg) {
  const numbering *N = arg;
  for (int64_t w = a; w < b; w++) {
    int64_t k = N->before[N->w0 + w] - N->base;
    for (uint64_t bits = N->used[w]; bits; bits &= bits - 1, k++) {
      const node_record *r = &N->rec[N->slot[64 * w + __builtin_ctzll(bits)]];
      N->ox[k] = r->xyz[0];
      N->oy[k] = r->xyz[1];
      N->oz[k] = N->job->dim == 2 ? 0 : r->xyz[2]; /* a 2D mesh lies in a plane z = const: stored 0 */
    }
  }
}

/* Round 3's messages taken (every owner's used bits and counts): this
 * rank's entries renumbered, the owner's nodes put in number order, and
 * round 4's messages. */
static int used_take(numbering *N) {
  feint_mesh_share_nodes *job = N->job;
  FEINT_CALL(feint_malloc((size_t)N->W + 1, sizeof *N->all_used, &N->all_used, "the used tags"));
  FEINT_CALL(feint_malloc((size_t)N->W + 1, sizeof *N->before, &N->before, "the used tags"));
  owner_head all = {0};
  for (int p = 0; p < N->R.size; p++) {
    owner_head h = N->own;
    const int64_t pw = N->word0[p + 1] - N->word0[p];
    const void *words = N->used;
    if (p != N->R.rank) {
      if (N->R.in_bytes[p] != sizeof h + (size_t)pw * 8)
        return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's used tags are malformed", p);
      memcpy(&h, N->R.in[p], sizeof h);
      words = (const char *)N->R.in[p] + sizeof h;
    }
    if (pw) memcpy(N->all_used + N->word0[p], words, (size_t)pw * 8);
    N->nodes_in_cells += h.in_cells;
    if (!h.has_z) continue;
    all.zlo = !all.has_z || h.zlo < all.zlo ? h.zlo : all.zlo;
    all.zhi = !all.has_z || h.zhi > all.zhi ? h.zhi : all.zhi;
    all.scale = h.scale > all.scale ? h.scale : all.scale;
    all.has_z = 1;
  }
  share_round_free_in(&N->R);
  used_job uj = {.N = N};
  const int ranges = feint_parallel_for_indexed(N->W, 1 << 14, used_sum_range, &uj);
  for (int t = 0; t < ranges; t++) uj.sums[t + 1] += uj.sums[t];
  feint_parallel_for_indexed(N->W, 1 << 14, used_before_range, &uj); /* the same ranges */
  N->before[N->W] = N->n_nodes = uj.sums[ranges];
  if (job->dim == 2 && N->n_nodes > 0 && all.zhi - all.zlo > 1e-10 * (all.scale > 1 ? all.scale : 1))
    return feint_error_set(FEINT_ERR_INPUT, "%smesh %s: the 2D mesh is not planar (z from %g to %g); feint needs 2D "
                           "meshes in a plane z = const", job->pre, job->path, all.zlo, all.zhi);
  for (int l = 0; l < 2; l++) {
    uj.entries = job->entries[l];
    feint_parallel_for(job->n_entries[l], 1 << 16, renumber_range, &uj);
  }
  N->base = N->before[N->w0];
  const size_t n = (size_t)N->own.n_used;
  FEINT_CALL(feint_malloc(n + 1, sizeof *N->ox, &N->ox, "the owned nodes' x"));
  FEINT_CALL(feint_malloc(n + 1, sizeof *N->oy, &N->oy, "the owned nodes' y"));
  FEINT_CALL(feint_malloc(n + 1, sizeof *N->oz, &N->oz, "the owned nodes' z"));
  feint_parallel_for(N->nw, 1 << 12, owner_number_range, N);
  free(N->slot);
  N->slot = NULL;
  free(N->rec);
  N->rec = NULL;
  return to_holders(N);
}

/* Rank r's held nodes: every one, or its rows' range. */
static void held_range(int64_t n, int size, int r, int all, int64_t *lo, int64_t *hi) {
  if (all) {
    *lo = 0;
    *hi = n;
  } else {
    feint_dist_rows_scalar_range(n, size, r, lo, hi);
  }
}

/* Round 4's messages: the owner's coordinates to the ranks that hold them. */
static int to_holders(numbering *N) {
  const int size = N->R.size;
  FEINT_CALL(feint_malloc(3 * (size_t)size + 1, sizeof *N->heads4, &N->heads4, "the coordinates' messages"));
  for (int q = 0; q < size; q++) {
    int64_t lo, hi;
    held_range(N->n_nodes, size, q, (int)N->heads[q].all_nodes, &lo, &hi);
    const int64_t a = lo > N->base ? lo : N->base, e = N->base + N->own.n_used, b = hi < e ? hi : e;
    int64_t *h = N->heads4 + 3 * q;
    h[0] = NODES_READ;
    h[1] = a < b ? a : 0;
    h[2] = a < b ? b : 0;
    const size_t bytes = (size_t)(h[2] - h[1]) * sizeof *N->ox, at = (size_t)(h[1] - N->base);
    N->R.out[q] = bytes ? (feint_comm_message){{h, N->ox + at, N->oy + at, N->oz + at}, {3 * sizeof *h, bytes, bytes, bytes}, 4}
                      : (feint_comm_message){{h}, {3 * sizeof *h}, 1};
  }
  return FEINT_OK;
}

/* Round 4's messages taken: this rank's held coordinates, into the job. */
static int coordinates_take(numbering *N) {
  feint_mesh_share_nodes *job = N->job;
  const int size = N->R.size;
  int64_t lo, hi;
  held_range(N->n_nodes, size, N->R.rank, job->all_nodes, &lo, &hi);
  double *xyz[3] = {NULL, NULL, NULL};
  int st = FEINT_OK;
  for (int a = 0; a < 3 && !st; a++) st = feint_malloc((size_t)(hi - lo) + 1, sizeof *xyz[a], &xyz[a], "mesh nodes");
  int64_t got = 0;
  for (int p = 0; p < size && !st; p++) {
    int64_t h[3];
    const double *from[3] = {N->ox, N->oy, N->oz};
    if (p == N->R.rank) {
      memcpy(h, N->heads4 + 3 * p, sizeof h);
      for (int a = 0; a < 3; a++) from[a] += h[1] - N->base;
    } else if (N->R.in_bytes[p] >= sizeof h) {
      memcpy(h, N->R.in[p], sizeof h);
      for (int a = 0; a < 3; a++) from[a] = (const double *)((const char *)N->R.in[p] + sizeof h) + a * (h[2] - h[1]);
    } else {
      h[1] = 0, h[2] = -1;
    }
    const int64_t n = h[2] - h[1];
    if (n < 0 || (n > 0 && (h[1] < lo || h[2] > hi)) ||
        (p != N->R.rank && N->R.in_bytes[p] != sizeof h + 3 * (size_t)n * sizeof(double))) {
      st = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's coordinates are malformed", p);
      break;
    }
    for (int a = 0; a < 3 && n > 0; a++) feint_parallel_memcpy(xyz[a] + (h[1] - lo), from[a], (size_t)n * sizeof(double));
    got += n;
  }
  if (!st && got != hi - lo)
    st = feint_error_set(FEINT_ERR_COMPUTE, "internal: %lld of the %lld nodes held came", (long long)got,
                         (long long)(hi - lo));
  share_round_free_in(&N->R);
  if (st) {
    for (int a = 0; a < 3; a++) free(xyz[a]);
    return st;
  }
  job->n_nodes = N->n_nodes;
  job->nodes_in_cells = N->nodes_in_cells;
  job->node0 = lo;
  job->held = hi - lo;
  job->x = xyz[0];
  job->y = xyz[1];
  job->z = xyz[2];
  return FEINT_OK;
}

int share_nodes_number(share_exchange_fn exchange, void *ctx, int rank, int size, int status,
                       feint_mesh_share_nodes *job) {
  numbering N = {0};
  if (share_round_start(&N.R, exchange, ctx, rank, size) ||
      feint_calloc((size_t)size, sizeof *N.heads, &N.heads, "the ranks' heads")) {
    numbering_destroy(&N);
    return FEINT_ERR_COMPUTE; /* the others hear of it as a lost rank */
  }
  N.job = job;
  /* every rank leaves after the same round (each sees every other's state in each); a rank's failure between two
   * rounds goes in the next round's messages */
  int st = round_heads(&N, status);
  if (!st) {
    const int local = to_owners(&N);
    feint_dist_timeline("nodes: marked, sorted by owner");
    st = share_round_run(&N.R, local);
    feint_dist_timeline("nodes: sent to owners");
  }
  if (!st) {
    const int local = owner_take(&N);
    feint_dist_timeline("nodes: owned");
    st = share_round_run(&N.R, local);
  }
  if (!st) {
    const int local = used_take(&N);
    feint_dist_timeline("nodes: renumbered");
    st = share_round_run(&N.R, local);
    feint_dist_timeline("nodes: coordinates sent");
  }
  if (!st) st = coordinates_take(&N);
  numbering_destroy(&N);
  return st;
}

int share_comm_exchange(void *ctx, const feint_comm_message *out, void **in, size_t *in_bytes) {
  return feint_comm_exchange(ctx, out, in, in_bytes);
}

int feint_dist_share_nodes(void *comm, int status, feint_mesh_share_nodes *job) {
  return share_nodes_number(share_comm_exchange, comm, feint_comm_rank(comm), feint_comm_size(comm), status, job);
}

/* ---- Every node's coordinates on every rank ---- */

int share_rows_view(const feint_mesh *m, const feint_mesh_share *sh, int64_t *lo, int64_t *hi,
                           const double *xyz[3]) {
  feint_dist_rows_scalar_range(m->n_nodes, sh->size, sh->rank, lo, hi);
  if (*lo < sh->node0 || *hi > sh->node0 + sh->held_nodes)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d holds nodes %lld..%lld, not its rows' %lld..%lld",
                           sh->rank, (long long)sh->node0, (long long)(sh->node0 + sh->held_nodes), (long long)*lo,
                           (long long)*hi);
  xyz[0] = m->x + (*lo - sh->node0);
  xyz[1] = m->y + (*lo - sh->node0);
  xyz[2] = m->z + (*lo - sh->node0);
  return FEINT_OK;
}

int share_all_nodes(share_exchange_fn exchange, void *ctx, int rank, int size, int status, feint_mesh *m,
                    feint_mesh_share *sh) {
  share_round R;
  int st = share_round_start(&R, exchange, ctx, rank, size);
  if (st) return st;
  if (!status && !m) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
  unsigned char *lacks = NULL; /* each rank's: it lacks some */
  if (!status) status = feint_malloc((size_t)size + 1, 1, &lacks, "the ranks' nodes");
  /* 1. who lacks them */
  const int64_t all = !status && sh->node0 == 0 && sh->held_nodes == m->n_nodes;
  const int64_t head[2] = {NODES_READ, all};
  for (int q = 0; q < size; q++) R.out[q] = (feint_comm_message){{head}, {sizeof head}, 1};
  st = share_round_run(&R, status);
  for (int p = 0; p < size && !st; p++) {
    int64_t h[2] = {NODES_READ, all};
    if (p != rank && R.in_bytes[p] == sizeof h) memcpy(h, R.in[p], sizeof h);
    lacks[p] = !h[1];
  }
  if (st) {
    free(lacks);
    share_round_destroy(&R);
    return st;
  }
  /* 2. every rank's rows' range to those that lack them */
  int64_t lo = 0, hi = 0, range[3] = {NODES_READ, 0, 0};
  const double *xyz[3] = {NULL, NULL, NULL};
  int local = share_rows_view(m, sh, &lo, &hi, xyz);
  range[1] = lo;
  range[2] = hi;
  const size_t bytes = (size_t)(hi - lo) * sizeof(double);
  for (int q = 0; q < size; q++)
    R.out[q] = lacks[q] ? (feint_comm_message){{range, xyz[0], xyz[1], xyz[2]}, {sizeof range, bytes, bytes, bytes}, 4}
                        : (feint_comm_message){{range}, {sizeof range}, 1};
  double *whole[3] = {NULL, NULL, NULL};
  for (int a = 0; a < 3 && !local && lacks[rank]; a++)
    local = feint_malloc((size_t)m->n_nodes + 1, sizeof *whole[a], &whole[a], "mesh nodes");
  st = share_round_run(&R, local);
  int64_t got = 0;
  for (int p = 0; p < size && !st && lacks[rank]; p++) {
    int64_t h[3] = {NODES_READ, lo, hi};
    const double *from[3] = {xyz[0], xyz[1], xyz[2]};
    if (p != rank) {
      if (R.in_bytes[p] >= sizeof h) memcpy(h, R.in[p], sizeof h);
      const int64_t n = h[2] - h[1];
      if (R.in_bytes[p] < sizeof h || n < 0 || h[1] < 0 || h[2] > m->n_nodes ||
          R.in_bytes[p] != sizeof h + 3 * (size_t)n * sizeof(double)) {
        st = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's nodes are malformed", p);
        break;
      }
      for (int a = 0; a < 3; a++) from[a] = (const double *)((const char *)R.in[p] + sizeof h) + a * n;
    }
    for (int a = 0; a < 3 && h[2] > h[1]; a++)
      memcpy(whole[a] + h[1], from[a], (size_t)(h[2] - h[1]) * sizeof(double));
    got += h[2] - h[1];
  }
  if (!st && lacks[rank] && got != m->n_nodes)
    st = feint_error_set(FEINT_ERR_COMPUTE, "internal: %lld of the %lld nodes came", (long long)got,
                         (long long)m->n_nodes);
  if (!st && lacks[rank]) {
    free(m->x);
    free(m->y);
    free(m->z);
    m->x = whole[0];
    m->y = whole[1];
    m->z = whole[2];
    whole[0] = whole[1] = whole[2] = NULL;
    sh->node0 = 0;
    sh->held_nodes = m->n_nodes;
  }
  for (int a = 0; a < 3; a++) free(whole[a]);
  free(lacks);
  share_round_destroy(&R);
  return st;
}

int feint_dist_share_all_nodes(feint_comm *comm, int status, feint_mesh *mesh, feint_mesh_share *share) {
  return share_all_nodes(share_comm_exchange, comm, feint_comm_rank(comm), feint_comm_size(comm), status, mesh, share);
}


/* ---- The nodes a share's cells use ----
 *
 * Two rounds: every rank sends each rows' owner its state, its held
 * nodes' extent and the bits of the nodes it needs in that owner's range
 * (the words covering it); each owner answers with their coordinates in
 * node order. A rank needs the nodes its cells use outside what it holds. */

typedef struct {
  int64_t state, has;
  double lo[3], hi[3];
} extent_head;

typedef struct {
  const feint_mesh *m;
  const feint_mesh_share *sh;
  unsigned char *need;
  uint64_t *bits;
  int64_t *before;
  int64_t sums[FEINT_PARALLEL_MAX_RANGES + 1];
  double lo[FEINT_PARALLEL_MAX_RANGES][3], hi[FEINT_PARALLEL_MAX_RANGES][3];
} need_job;

static void need_mark_range(int64_t a, int64_t b, void *arg) {
  const need_job *j = arg;
  const int64_t lo = j->sh->node0, hi = lo + j->sh->held_nodes;
  for (int64_t i = a; i < b; i++) {
    const int64_t n = j->m->cells[i];
    if (n >= 0 && (n < lo || n >= hi)) __atomic_store_n(&j->need[n], 1, __ATOMIC_RELAXED);
  }
}

static void need_bits_range(int64_t a, int64_t b, int t, void *arg) {
  need_job *j = arg;
  int64_t count = 0;
  for (int64_t w = a; w < b; w++) {
    uint64_t bits = 0;
    for (int k = 0; k < 64; k++) bits |= (uint64_t)(j->need[64 * w + k] != 0) << k;
    j->bits[w] = bits;
    count += __builtin_popcountll(bits);
  }
  j->sums[t + 1] = count;
}

static void need_before_range(int64_t a, int64_t b, int t, void *arg) {
  need_job *j = arg;
  int64_t n = j->sums[t];
  for (int64_t w = a; w < b; w++) {
    j->before[w] = n;
    n += __builtin_popcountll(j->bits[w]);
  }
}

static void held_extent_range(int64_t a, int64_t b, int t, void *arg) {
  need_job *j = arg;
  const double *xs[3] = {j->m->x, j->m->y, j->m->z};
  for (int c = 0; c < 3; c++) {
    double lo = xs[c][a], hi = xs[c][a];
    for (int64_t i = a; i < b; i++) {
      lo = xs[c][i] < lo ? xs[c][i] : lo;
      hi = xs[c][i] > hi ? xs[c][i] : hi;
    }
    j->lo[t][c] = lo;
    j->hi[t][c] = hi;
  }
}

/* The words of the whole's node bits that cover rank q's rows' range [*lo, *hi): [*w0, *w1). */
static void rows_words(int64_t n_nodes, int size, int q, int64_t *lo, int64_t *hi, int64_t *w0, int64_t *w1) {
  feint_dist_rows_scalar_range(n_nodes, size, q, lo, hi);
  *w0 = *lo >> 6;
  *w1 = *hi > *lo ? ((*hi - 1) >> 6) + 1 : *w0;
}

/* The set bits of words (the words [w0, w1) of the whole's) within [lo, hi), ascending: their count, and
 * (xyz not NULL) their coordinates from the held range of m (node0). */
static int64_t bits_in_range(const uint64_t *words, int64_t w0, int64_t w1, int64_t lo, int64_t hi,
                             const feint_mesh *m, int64_t node0, double *xyz) {
  int64_t k = 0;
  for (int64_t w = w0; w < w1; w++) {
    uint64_t bits;
    memcpy(&bits, words + (w - w0), sizeof bits);
    for (; bits; bits &= bits - 1) {
      const int64_t n = 64 * w + __builtin_ctzll(bits);
      if (n < lo || n >= hi) continue;
      if (xyz) {
        xyz[3 * k] = m->x[n - node0];
        xyz[3 * k + 1] = m->y[n - node0];
        xyz[3 * k + 2] = m->z[n - node0];
      }
      k++;
    }
  }
  return k;
}

void feint_dist_nodes_release(feint_dist_nodes *nodes) {
  free(nodes->bits);
  free(nodes->before);
  free(nodes->xyz);
  memset(nodes, 0, sizeof *nodes);
}

int share_cell_nodes(share_exchange_fn exchange, void *ctx, int rank, int size, int status, const feint_mesh *m,
                     const feint_mesh_share *sh, feint_dist_nodes *out) {
  memset(out, 0, sizeof *out);
  share_round R;
  int st = share_round_start(&R, exchange, ctx, rank, size);
  if (st) return st;
  if (!status && !m) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
  need_job j = {.m = m, .sh = sh};
  const int64_t n_nodes = m ? m->n_nodes : 0, W = (n_nodes >> 6) + 1;
  int64_t lo = 0, hi = 0;
  const double *own[3];
  if (!status) status = share_rows_view(m, sh, &lo, &hi, own); /* (it holds its rows: it answers for them) */
  if (!status) status = feint_calloc(64 * (size_t)W, 1, &j.need, "the nodes a share uses");
  if (!status) status = feint_malloc((size_t)W, sizeof *j.bits, &j.bits, "the nodes a share uses");
  if (!status) status = feint_malloc((size_t)W + 1, sizeof *j.before, &j.before, "the nodes a share uses");
  extent_head head = {.state = NODES_READ};
  int64_t *span = NULL; /* each rank's rows' words: w0, w1 */
  if (!status) status = feint_malloc(2 * (size_t)size + 1, sizeof *span, &span, "the nodes' owners");
  if (!status) {
    feint_parallel_for(m->n_cells * m->nv, 1 << 16, need_mark_range, &j);
    const int ranges = feint_parallel_for_indexed(W, 1 << 10, need_bits_range, &j);
    for (int t = 0; t < ranges; t++) j.sums[t + 1] += j.sums[t];
    feint_parallel_for_indexed(W, 1 << 10, need_before_range, &j); /* the same ranges */
    j.before[W] = j.sums[ranges];
    free(j.need);
    j.need = NULL;
    const int held = sh->held_nodes ? feint_parallel_for_indexed(sh->held_nodes, 1 << 16, held_extent_range, &j) : 0;
    for (int t = 0; t < held; t++)
      for (int c = 0; c < 3; c++) {
        head.lo[c] = t == 0 || j.lo[t][c] < head.lo[c] ? j.lo[t][c] : head.lo[c];
        head.hi[c] = t == 0 || j.hi[t][c] > head.hi[c] ? j.hi[t][c] : head.hi[c];
      }
    head.has = held > 0;
    for (int q = 0; q < size; q++) {
      int64_t qlo, qhi;
      rows_words(n_nodes, size, q, &qlo, &qhi, &span[2 * q], &span[2 * q + 1]);
      const size_t words = (size_t)(span[2 * q + 1] - span[2 * q]);
      R.out[q] = (feint_comm_message){{&head, j.bits + span[2 * q]}, {sizeof head, words * sizeof *j.bits}, 2};
    }
  }
  /* 1. the needs to their owners, and the extents */
  st = share_round_run(&R, status);
  double *answers = NULL;
  int64_t *heads2 = NULL, *counts = NULL;
  int local = FEINT_OK;
  if (!st) {
    const int64_t mine = span[2 * rank + 1] - span[2 * rank];
    local = feint_malloc(2 * (size_t)size + 1, sizeof *heads2, &heads2, "the nodes' answers");
    if (!local) local = feint_calloc((size_t)size + 1, sizeof *counts, &counts, "the nodes' answers");
    int64_t total = 0;
    for (int p = 0; p < size && !local; p++) {
      if (p == rank) continue;
      extent_head h;
      if (R.in_bytes[p] != sizeof h + (size_t)mine * 8) {
        local = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's needs are malformed", p);
        break;
      }
      memcpy(&h, R.in[p], sizeof h);
      counts[p] = bits_in_range((const uint64_t *)((const char *)R.in[p] + sizeof h), span[2 * rank],
                                span[2 * rank + 1], lo, hi, m, sh->node0, NULL);
      total += counts[p];
      if (h.has)
        for (int c = 0; c < 3; c++) {
          head.lo[c] = !head.has || h.lo[c] < head.lo[c] ? h.lo[c] : head.lo[c];
          head.hi[c] = !head.has || h.hi[c] > head.hi[c] ? h.hi[c] : head.hi[c];
        }
      head.has |= h.has;
    }
    memcpy(out->lo, head.lo, sizeof out->lo);
    memcpy(out->hi, head.hi, sizeof out->hi);
    if (!local) local = feint_malloc(3 * (size_t)total + 1, sizeof *answers, &answers, "the nodes' answers");
    int64_t at = 0;
    for (int p = 0; p < size && !local; p++) {
      heads2[2 * p] = NODES_READ;
      heads2[2 * p + 1] = p == rank ? 0 : counts[p];
      if (p != rank)
        bits_in_range((const uint64_t *)((const char *)R.in[p] + sizeof head), span[2 * rank], span[2 * rank + 1],
                      lo, hi, m, sh->node0, answers + 3 * at);
      R.out[p] = (feint_comm_message){{heads2 + 2 * p, answers + 3 * at},
                                      {2 * sizeof *heads2, 3 * (size_t)heads2[2 * p + 1] * sizeof *answers},
                                      2};
      at += heads2[2 * p + 1];
    }
  }
  /* 2. the answers */
  if (!st) st = share_round_run(&R, local);
  if (!st) st = feint_malloc(3 * (size_t)j.before[W] + 1, sizeof *out->xyz, &out->xyz, "the nodes a share uses");
  for (int q = 0; q < size && !st; q++) {
    if (q == rank) continue;
    int64_t h[2] = {NODES_READ, -1}, qlo, qhi, w0, w1;
    if (R.in_bytes[q] >= sizeof h) memcpy(h, R.in[q], sizeof h);
    rows_words(n_nodes, size, q, &qlo, &qhi, &w0, &w1);
    /* q's answers go where its range's first needed node does: the needed nodes before qlo */
    const int64_t first = qlo >= n_nodes ? j.before[W]
                                         : j.before[qlo >> 6] +
                                               __builtin_popcountll(j.bits[qlo >> 6] & (((uint64_t)1 << (qlo & 63)) - 1));
    const int64_t want = bits_in_range(j.bits + w0, w0, w1, qlo, qhi, m, 0, NULL);
    if (h[1] != want || R.in_bytes[q] != sizeof h + 3 * (size_t)want * sizeof(double)) {
      st = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d answered %lld nodes of %lld", q, (long long)h[1],
                           (long long)want);
      break;
    }
    if (want) memcpy(out->xyz + 3 * first, (const char *)R.in[q] + sizeof h, 3 * (size_t)want * sizeof(double));
  }
  free(answers);
  free(heads2);
  free(counts);
  free(span);
  free(j.need);
  share_round_destroy(&R);
  if (st) {
    free(j.bits);
    free(j.before);
    feint_dist_nodes_release(out);
    return st;
  }
  out->node0 = sh->node0;
  out->held = sh->held_nodes;
  out->x = m->x;
  out->y = m->y;
  out->z = m->z;
  out->bits = j.bits;
  out->before = j.before;
  return FEINT_OK;
}

int feint_dist_share_cell_nodes(feint_comm *comm, int status, const feint_mesh *mesh, const feint_mesh_share *share,
                                feint_dist_nodes *out) {
  return share_cell_nodes(share_comm_exchange, comm, feint_comm_rank(comm), feint_comm_size(comm), status, mesh, share, out);
}
