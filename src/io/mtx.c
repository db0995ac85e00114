/* Matrix Market export of a CSR matrix (coordinate real general, 1-based),
 * written under a temporary name and renamed when complete. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "feint/error.h"
#include "feint/h5.h"

int feint_write_matrix_market(const char *path, int64_t n_rows, int64_t n_cols, const int64_t *indptr,
                              const int32_t *indices, const int64_t *indices64, const double *values,
                              const char *comment) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return feint_error_set(FEINT_ERR_INPUT, "cannot write Matrix Market file '%s': %s", path, strerror(errno));
  int ok = fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n") > 0;
  if (comment && ok) {
    /* one comment line per line of the text */
    const char *line = comment;
    while (ok && *line) {
      const char *end = strchr(line, '\n');
      int len = end ? (int)(end - line) : (int)strlen(line);
      ok = fprintf(f, "%% %.*s\n", len, line) > 0;
      line += len + (end ? 1 : 0);
    }
  }
  ok = ok && fprintf(f, "%lld %lld %lld\n", (long long)n_rows, (long long)n_cols, (long long)indptr[n_rows]) > 0;
  for (int64_t i = 0; ok && i < n_rows; i++)
    for (int64_t k = indptr[i]; ok && k < indptr[i + 1]; k++)
      ok = fprintf(f, "%lld %lld %.17g\n", (long long)i + 1,
                   (long long)(indices64 ? indices64[k] : indices[k]) + 1, values[k]) > 0;
  if (fclose(f) != 0) ok = 0;
  if (!ok) {
    int e = errno;
    remove(tmp);
    return feint_error_set(FEINT_ERR_COMPUTE, "cannot write Matrix Market file '%s': %s", path, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    return feint_error_set(FEINT_ERR_COMPUTE, "cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
  }
  return FEINT_OK;
}
