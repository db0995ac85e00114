/* Text files written whole or not at all (feint/text_file.h). */
#include "feint/text_file.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "feint/error.h"

int feint_text_file_open(feint_text_file *t, const char *what, const char *path) {
  memset(t, 0, sizeof *t);
  t->what = what;
  t->path = path;
  if (snprintf(t->tmp, sizeof t->tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof t->tmp)
    return feint_error_set(FEINT_ERR_INPUT, "cannot write %s '%s': the path is too long", what, path);
  t->f = fopen(t->tmp, "w");
  if (!t->f) return feint_error_set(FEINT_ERR_INPUT, "cannot write %s '%s': %s", what, path, strerror(errno));
  return FEINT_OK;
}

void feint_text_file_printf(feint_text_file *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(t->f, fmt, ap) < 0 && !t->err) t->err = errno ? errno : EIO;
  va_end(ap);
}

int feint_text_file_commit(feint_text_file *t) {
  int e = t->err;
  if (!e && ferror(t->f)) e = errno ? errno : EIO;
  if (fclose(t->f) && !e) e = errno ? errno : EIO;
  t->f = NULL;
  if (!e && rename(t->tmp, t->path)) e = errno;
  if (!e) return FEINT_OK;
  remove(t->tmp);
  return feint_error_set(FEINT_ERR_COMPUTE, "cannot write %s '%s': %s", t->what, t->path, strerror(e));
}
