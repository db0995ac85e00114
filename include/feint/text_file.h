/* A text file written whole or not at all: under a temporary name in its
 * folder (<path>.tmp-<pid>), renamed into place by feint_text_file_commit
 * when every write succeeded, removed otherwise, so a failed write leaves
 * no file (the XDMF, Matrix Market, bench CSV and SVG files). */
#ifndef FEINT_TEXT_FILE_H
#define FEINT_TEXT_FILE_H

#include <stdio.h>

typedef struct {
  FILE *f;
  const char *what, *path; /* "XDMF file", and where it goes (not copied) */
  char tmp[4200];
  int err; /* the first failure (errno) of a write */
} feint_text_file;

/* Open t for `path`; messages say "cannot write <what> '<path>': ...". */
int feint_text_file_open(feint_text_file *t, const char *what, const char *path);
/* fprintf into t; a failure is kept for the commit. */
void feint_text_file_printf(feint_text_file *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Close and rename into place; on any failure (of a write too) remove the
 * temporary file and return the error. */
int feint_text_file_commit(feint_text_file *t);

#endif
