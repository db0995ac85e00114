/* Matrix Market export of a CSR matrix (coordinate real general, 1-based),
 * written under a temporary name and renamed when complete. */
#include <stdio.h>
#include <string.h>

#include "feint/error.h"
#include "feint/h5.h"
#include "feint/text_file.h"

int feint_write_matrix_market(const char *path, int64_t n_rows, int64_t n_cols, const int64_t *indptr,
                              const int32_t *indices, const int64_t *indices64, const double *values,
                              const char *comment) {
  feint_text_file f;
  FEINT_CALL(feint_text_file_open(&f, "Matrix Market file", path));
  feint_text_file_printf(&f, "%%%%MatrixMarket matrix coordinate real general\n");
  /* one comment line per line of the text */
  for (const char *line = comment; line && *line && !f.err;) {
    const char *end = strchr(line, '\n');
    const int len = end ? (int)(end - line) : (int)strlen(line);
    feint_text_file_printf(&f, "%% %.*s\n", len, line);
    line += len + (end ? 1 : 0);
  }
  feint_text_file_printf(&f, "%lld %lld %lld\n", (long long)n_rows, (long long)n_cols, (long long)indptr[n_rows]);
  for (int64_t i = 0; !f.err && i < n_rows; i++)
    for (int64_t k = indptr[i]; k < indptr[i + 1]; k++)
      feint_text_file_printf(&f, "%lld %lld %.17g\n", (long long)i + 1,
                             (long long)(indices64 ? indices64[k] : indices[k]) + 1, values[k]);
  return feint_text_file_commit(&f);
}
