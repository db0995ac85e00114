/* feint bench --csv / --svg: the table as a CSV file (one rectangular
 * table: the run's facts repeated on every phase's row, so that csv,
 * pandas and numpy read it as it is) and a roofline picture in SVG, written
 * by hand (no plotting library). Each file is written under a temporary
 * name in its folder and renamed, so a failed write leaves nothing. The
 * figures come from cmd_bench_phase_figures, as the table's do. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "feint/error.h"
#include "feint/text_file.h"

/* the files are many lines of it */
#define put feint_text_file_printf

int cmd_bench_file_check(const char *option, const char *path) {
  if (!path[0]) return feint_error_set(FEINT_ERR_INPUT, "%s: the file name is empty", option);
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return feint_error_set(FEINT_ERR_INPUT, "cannot write %s file '%s': it is a directory (give a file name)",
                             option, path);
    if (!S_ISREG(st.st_mode)) /* renaming over a device or FIFO would replace it, not write into it */
      return feint_error_set(FEINT_ERR_INPUT, "cannot write %s file '%s': it is not a regular file", option, path);
  }
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == path) snprintf(dir, sizeof dir, "/");
  else if (snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path) >= (int)sizeof dir)
    return feint_error_set(FEINT_ERR_INPUT, "cannot write %s file '%s': the path is too long", option, path);
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return feint_error_set(FEINT_ERR_INPUT, "cannot write %s file '%s': the folder '%s' does not exist", option,
                           path, dir);
  if (access(dir, W_OK | X_OK) != 0)
    return feint_error_set(FEINT_ERR_INPUT, "cannot write %s file '%s': folder '%s': %s", option, path, dir,
                           strerror(errno));
  return FEINT_OK;
}

/* ---- CSV ---- */

/* A text field without quoting: numpy's genfromtxt does not take quotes, so a comma (the CPU's device name
 * has one) becomes a semicolon, a quote an apostrophe, a line break a space. */
static void csv_text(feint_text_file *o, const char *s) {
  for (; *s; s++) put(o, "%c", *s == ',' ? ';' : *s == '"' ? '\'' : (unsigned char)*s < 0x20 ? ' ' : *s);
}

/* ",value" or "," (an empty field: the table's "-" or blank) */
static void csv_number(feint_text_file *o, int has, double v) {
  if (has) put(o, ",%.9g", v);
  else put(o, ",");
}

static void write_csv(feint_text_file *o, const feint_run_options *opt, const feint_run_report *rep, int device,
                      double copy) {
  put(o, "device,backend,copy_gb_per_s,case,cells,dofs,nnz,repeat,phase,time_ms,h2d_ms,d2h_ms,kernel_ms,"
         "mcells_per_s,min_bytes,gb_per_s,fraction_of_copy,gflop_per_s,flops\n");
  for (int k = 0; k < FEINT_PHASE_COUNT; k++) {
    cmd_bench_phase p;
    if (!cmd_bench_phase_figures(rep, k, device, copy, &p)) continue;
    csv_text(o, rep->device);
    put(o, ",");
    csv_text(o, rep->backend);
    put(o, ",%.9g,", copy);
    csv_text(o, opt->case_path);
    put(o, ",%lld,%lld,%lld,%d,%s", (long long)rep->n_cells, (long long)rep->n_dofs, (long long)rep->nnz,
        opt->repeat, p.name);
    csv_number(o, 1, p.time_ms);
    csv_number(o, p.has_copies, p.h2d_ms);
    csv_number(o, p.has_copies, p.d2h_ms);
    csv_number(o, p.has_kernel, p.kernel_ms);
    csv_number(o, p.has_cells, p.mcells_per_s);
    csv_number(o, p.has_bytes, p.min_bytes);
    csv_number(o, p.has_bytes, p.gb_per_s);
    csv_number(o, p.has_fraction, p.fraction_of_copy);
    csv_number(o, p.has_flops, p.gflop_per_s);
    csv_number(o, p.has_flops, p.flops);
    put(o, "\n");
  }
}

/* ---- SVG ---- */

/* The picture: a title band, then two panels side by side. Left: the
 * roofline of the phases with a flop model (log-log, GFLOP/s against
 * flop/byte, under the memory roof copy GB/s x intensity; no compute roof:
 * the peak flop rate is not measured). Right: every phase with a byte
 * count as a bar of GB/s against a line at the copy bandwidth. */
enum { SVG_W = 1000, SVG_H = 545 };
static const double TOP = 140, BOTTOM = 470;  /* both panels' plot boxes */
static const double L_X0 = 80, L_X1 = 520;    /* the roofline's */
static const double R_X0 = 690, R_X1 = 860;   /* the bars' (names on their left, values on their right) */
static const char *const ROOF_COLOR = "#b2182b";
/* a white outline under a label's letters, so that lines it crosses do not hide them */
#define HALO "stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\""
/* one colour per phase, the same in both panels */
static const char *const PHASE_COLOR[FEINT_PHASE_COUNT] = {"#7f7f7f", "#8c564b", "#bcbd22", "#17becf",
                                                           "#9467bd", "#393b79", "#1f77b4", "#ff7f0e",
                                                           "#2ca02c", "#d62728", "#e377c2"};

static void xml_text(feint_text_file *o, const char *s) {
  for (; *s; s++) {
    if (*s == '<') put(o, "&lt;");
    else if (*s == '>') put(o, "&gt;");
    else if (*s == '&') put(o, "&amp;");
    else if (*s == '"') put(o, "&quot;");
    else if ((unsigned char)*s < 0x20) put(o, " "); /* not allowed in XML 1.0 */
    else put(o, "%c", *s);
  }
}

/* A decade's tick label (SVG text content): plain (0.001 ... 10000) when the whole axis [lo, hi] is, else
 * every decade as 10 with a raised exponent, one style along an axis. */
static void decade_label(char *s, size_t n, int e, int lo, int hi) {
  if (lo >= -3 && hi <= 4) snprintf(s, n, "%g", pow(10, e));
  else snprintf(s, n, "10<tspan dy=\"-6\" font-size=\"9\">%d</tspan>", e);
}

/* The decades [lo, hi] around values in [a, b] (a little margin), at least two of them. */
static void decades(double a, double b, int *lo, int *hi) {
  *lo = (int)floor(log10(a / 1.5));
  *hi = (int)ceil(log10(b * 1.5));
  while (*hi - *lo < 2) {
    ++*hi;
    if (*hi - *lo < 2) --*lo;
  }
}

/* A round tick step (1, 2 or 5 x 10^k) giving about n ticks up to max. */
static double nice_step(double max, int n) {
  const double raw = max / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

/* a rate in a label: 3 digits, whole numbers from 1000 on (no 1.23e+03) */
static const char *rate(char *s, size_t n, double v) {
  snprintf(s, n, v >= 1000 ? "%.0f" : "%.3g", v);
  return s;
}

typedef struct {
  double x0, y0, x1, y1;
} box;

static int overlaps(box a, box b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

static void roofline_panel(feint_text_file *o, const cmd_bench_phase *ph, int n, double copy) {
  double imin = INFINITY, imax = 0, gmin = INFINITY, gmax = 0;
  int points = 0;
  for (int i = 0; i < n; i++) {
    if (!ph[i].has_bytes || !ph[i].has_flops) continue;
    const double in = ph[i].flops / ph[i].min_bytes, g = ph[i].gflop_per_s;
    imin = fmin(imin, in);
    imax = fmax(imax, in);
    gmin = fmin(gmin, g);
    gmax = fmax(gmax, fmax(g, copy * in)); /* the roof above each point stays in view */
    points++;
  }
  put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\">Roofline: "
         "phases with a flop model</text>\n", (L_X0 + L_X1) / 2, TOP - 12);
  put(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", L_X0, TOP,
      L_X1 - L_X0, BOTTOM - TOP);
  if (!points) {
    put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\" fill=\"#555\">no phase has both "
           "a flop and a byte count</text>\n", (L_X0 + L_X1) / 2, (TOP + BOTTOM) / 2);
    return;
  }
  int xlo, xhi, ylo, yhi;
  decades(imin, imax, &xlo, &xhi);
  decades(gmin, gmax, &ylo, &yhi);
  const double sx = (L_X1 - L_X0) / (xhi - xlo), sy = (BOTTOM - TOP) / (yhi - ylo);
#define PX(v) (L_X0 + (log10(v) - xlo) * sx)
#define PY(v) (BOTTOM - (log10(v) - ylo) * sy)
  /* grid and ticks: decades, with 2..9 as faint lines */
  put(o, "<g class=\"grid\" stroke-width=\"1\">\n");
  for (int e = xlo; e <= xhi; e++) {
    char s[80];
    const double x = L_X0 + (e - xlo) * sx;
    put(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>\n", x, TOP, x, BOTTOM);
    for (int m = 2; m < 10 && e < xhi; m++)
      put(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x + log10(m) * sx, TOP,
          x + log10(m) * sx, BOTTOM);
    decade_label(s, sizeof s, e, xlo, xhi);
    put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" stroke=\"none\">%s</text>\n", x,
        BOTTOM + 16, s);
  }
  for (int e = ylo; e <= yhi; e++) {
    char s[80];
    const double y = BOTTOM - (e - ylo) * sy;
    put(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>\n", L_X0, y, L_X1, y);
    for (int m = 2; m < 10 && e < yhi; m++)
      put(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", L_X0, y - log10(m) * sy,
          L_X1, y - log10(m) * sy);
    decade_label(s, sizeof s, e, ylo, yhi);
    put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\" stroke=\"none\">%s</text>\n", L_X0 - 6,
        y + 4, s);
  }
  put(o, "</g>\n");
  put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">arithmetic intensity [flop/byte] "
         "(model flops / fewest bytes)</text>\n", (L_X0 + L_X1) / 2, BOTTOM + 38);
  put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">"
         "achieved [GFLOP/s]</text>\n", L_X0 - 50, (TOP + BOTTOM) / 2, L_X0 - 50, (TOP + BOTTOM) / 2);
  /* the memory roof, GFLOP/s = copy GB/s x intensity, clipped to the box (a line of slope 1 in decades) */
  if (copy > 0) {
    const double lc = log10(copy), a = fmax(xlo, ylo - lc), b = fmin(xhi, yhi - lc);
    if (a < b) {
      const double x0 = L_X0 + (a - xlo) * sx, y0 = BOTTOM - (a + lc - ylo) * sy;
      const double x1 = L_X0 + (b - xlo) * sx, y1 = BOTTOM - (b + lc - ylo) * sy;
      const double angle = atan2(y1 - y0, x1 - x0) * 180 / M_PI;
      char r[32];
      put(o, "<line id=\"roof\" class=\"roof\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
             "stroke-width=\"2\"><title>memory roof: %.4g GB/s x intensity</title></line>\n", x0, y0, x1, y1,
          ROOF_COLOR, copy);
      /* its label along it, near its upper end, above the line */
      const double lx = x0 + 0.7 * (x1 - x0), ly = y0 + 0.7 * (y1 - y0);
      put(o, "<text class=\"roof-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\" text-anchor=\"middle\" "
             "transform=\"rotate(%.2f %.1f %.1f)\">copy %s GB/s</text>\n", lx, ly - 6, ROOF_COLOR, angle, lx, ly,
          rate(r, sizeof r, copy));
    }
  }
  /* the points, then their labels: beside the point, right or left, else the nearest free place above or
   * below it with a leader line; a place is free when it is in the box and clear of points and labels */
  double px[FEINT_PHASE_COUNT], py[FEINT_PHASE_COUNT];
  box placed[2 * FEINT_PHASE_COUNT];
  int n_placed = 0;
  for (int i = 0; i < n; i++) {
    if (!ph[i].has_bytes || !ph[i].has_flops) continue;
    const double in = ph[i].flops / ph[i].min_bytes;
    px[i] = PX(in);
    py[i] = PY(ph[i].gflop_per_s);
    placed[n_placed++] = (box){px[i] - 6, py[i] - 6, px[i] + 6, py[i] + 6};
    put(o, "<circle id=\"point-%s\" class=\"point\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"%s\" stroke=\"#000\">"
           "<title>%s: %.4g flop/byte, %.4g GFLOP/s, %.4g GB/s</title></circle>\n", ph[i].name, px[i], py[i],
        PHASE_COLOR[ph[i].phase], ph[i].name, in, ph[i].gflop_per_s, ph[i].gb_per_s);
  }
  for (int i = 0; i < n; i++) {
    if (!ph[i].has_bytes || !ph[i].has_flops) continue;
    char label[96], r[32];
    snprintf(label, sizeof label, "%s %s GF/s", ph[i].name, rate(r, sizeof r, ph[i].gflop_per_s));
    const double w = 6.6 * (double)strlen(label), x = px[i], y = py[i];
    box bx = {x + 9, y - 9, x + 9 + w, y + 4};
    for (int c = 0; c < 24; c++) { /* c: 0 right, 1 left, 2 right one line up, 3 left up, 4 right down, ... */
      const int left = c & 1, step = (c / 2 + 1) / 2 * ((c / 2) % 2 ? -1 : 1);
      const box t = {left ? x - 9 - w : x + 9, y - 9 + 14 * step, left ? x - 9 : x + 9 + w, y + 4 + 14 * step};
      int free = t.x0 >= L_X0 + 2 && t.x1 <= L_X1 - 2 && t.y0 >= TOP + 2 && t.y1 <= BOTTOM - 2;
      for (int j = 0; j < n_placed && free; j++) free = !overlaps(t, placed[j]);
      if (free || c == 0) bx = t; /* nowhere free: beside it on the right */
      if (free) break;
    }
    placed[n_placed++] = bx;
    if (bx.y1 < y - 4 || bx.y0 > y + 4) /* moved off the point's line: a leader line to it */
      put(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x, y,
          bx.x0 > x ? bx.x0 - 1 : bx.x1 + 1, (bx.y0 + bx.y1) / 2);
    put(o, "<text class=\"point-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" %s>%s</text>\n", bx.x0, bx.y1 - 1,
        HALO, label);
  }
#undef PX
#undef PY
}

static void bars_panel(feint_text_file *o, const cmd_bench_phase *ph, int n, double copy) {
  int bars = 0;
  double gmax = copy;
  for (int i = 0; i < n; i++)
    if (ph[i].has_bytes) {
      bars++;
      gmax = fmax(gmax, ph[i].gb_per_s);
    }
  put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\">"
         "Bandwidth: phases with a byte count</text>\n", (R_X0 + R_X1) / 2, TOP - 12);
  put(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", R_X0, TOP,
      R_X1 - R_X0, BOTTOM - TOP);
  if (!bars || gmax <= 0) {
    put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\" fill=\"#555\">no phase has a byte "
           "count</text>\n", (R_X0 + R_X1) / 2, (TOP + BOTTOM) / 2);
    return;
  }
  const double step = nice_step(gmax, 4), xmax = step * ceil(gmax * 1.05 / step), sx = (R_X1 - R_X0) / xmax;
  for (int t = 0; t * step <= xmax * (1 + 1e-9); t++) {
    const double x = R_X0 + t * step * sx;
    put(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>\n", x, TOP, x, BOTTOM);
    put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%g</text>\n", x, BOTTOM + 16,
        t * step);
  }
  put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">achieved [GB/s] (fewest bytes / "
         "time)</text>\n", (R_X0 + R_X1) / 2, BOTTOM + 38);
  if (copy > 0) { /* before the bars: their labels' halos cover it */
    const double x = R_X0 + copy * sx;
    put(o, "<line id=\"copy-line\" class=\"copy-line\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\" "
           "stroke-width=\"2\" stroke-dasharray=\"6 3\"><title>copy bandwidth %.4g GB/s</title></line>\n", x, TOP,
        x, BOTTOM, ROOF_COLOR, copy);
    const int left = x + 100 > R_X1;
    char r[32]; /* the label inside the box, on the line's roomier side */
    put(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\" text-anchor=\"%s\">copy %s GB/s</text>\n",
        left ? x - 4 : x + 4, TOP + 14, ROOF_COLOR, left ? "end" : "start", rate(r, sizeof r, copy));
  }
  const double band = (BOTTOM - TOP) / bars, h = fmin(28, 0.6 * band);
  int b = 0;
  for (int i = 0; i < n; i++) {
    if (!ph[i].has_bytes) continue;
    const double yc = TOP + (b++ + 0.5) * band, w = ph[i].gb_per_s * sx;
    put(o, "<rect id=\"bar-%s\" class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
           "<title>%s: %.4g GB/s</title></rect>\n", ph[i].name, R_X0, yc - h / 2, w, h, PHASE_COLOR[ph[i].phase],
        ph[i].name, ph[i].gb_per_s);
    put(o, "<text class=\"bar-name\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%s</text>\n", R_X0 - 6,
        yc + 4, ph[i].name);
    char value[64], r[32];
    rate(r, sizeof r, ph[i].gb_per_s);
    if (ph[i].has_fraction) snprintf(value, sizeof value, "%s GB/s, %.3g%%", r, 100 * ph[i].fraction_of_copy);
    else snprintf(value, sizeof value, "%s GB/s", r);
    put(o, "<text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" %s>%s</text>\n", R_X0 + w + 4,
        yc + 4, HALO, value);
  }
}

static void write_svg(feint_text_file *o, const feint_run_options *opt, const feint_run_report *rep, int device,
                      double copy) {
  cmd_bench_phase ph[FEINT_PHASE_COUNT];
  char r[32];
  int n = 0;
  for (int k = 0; k < FEINT_PHASE_COUNT; k++)
    if (cmd_bench_phase_figures(rep, k, device, copy, &ph[n])) n++;
  put(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  put(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
         "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n", SVG_W, SVG_H, SVG_W, SVG_H);
  put(o, "<title>feint bench ");
  xml_text(o, opt->case_path);
  put(o, ": ");
  xml_text(o, rep->device);
  put(o, " (backend %s)</title>\n", rep->backend);
  put(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
  put(o, "<text id=\"title\" x=\"%d\" y=\"26\" font-size=\"17\" font-weight=\"bold\" text-anchor=\"middle\">"
         "feint bench ", SVG_W / 2);
  xml_text(o, opt->case_path);
  put(o, " on ");
  xml_text(o, rep->device);
  put(o, ", backend %s</text>\n", rep->backend);
  put(o, "<text x=\"%d\" y=\"48\" font-size=\"13\" text-anchor=\"middle\" fill=\"#333\">%lld cells, %lld dofs, "
         "%lld nonzeros; median of %d runs; copy bandwidth measured now %s GB/s (%s, read + write)</text>\n",
      SVG_W / 2, (long long)rep->n_cells, (long long)rep->n_dofs, (long long)rep->nnz, opt->repeat,
      rate(r, sizeof r, copy),
      device ? "device-to-device" : "host memcpy");
  /* the legend, a band of its own above the panels */
  put(o, "<g id=\"legend\" font-size=\"12\">\n");
  put(o, "<line x1=\"80\" y1=\"72\" x2=\"110\" y2=\"72\" stroke=\"%s\" stroke-width=\"2\"/>\n", ROOF_COLOR);
  put(o, "<text x=\"116\" y=\"76\">memory roof: copy bandwidth x intensity (left); the copy bandwidth (right, "
         "dashed); no compute roof: peak flop rate not measured</text>\n");
  double x = 80;
  for (int i = 0; i < n; i++) {
    if (!ph[i].has_bytes) continue;
    put(o, "<circle cx=\"%.1f\" cy=\"92\" r=\"5\" fill=\"%s\" stroke=\"#000\"/>\n", x + 5, PHASE_COLOR[ph[i].phase]);
    put(o, "<text x=\"%.1f\" y=\"96\">%s</text>\n", x + 14, ph[i].name);
    x += 30 + 6.6 * (double)strlen(ph[i].name);
  }
  put(o, "</g>\n");
  roofline_panel(o, ph, n, copy);
  bars_panel(o, ph, n, copy);
  put(o, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\" text-anchor=\"middle\">time: kernel time, or wall "
         "time where there is none; flops: the quadrature algorithm's model (feint(1), bench); bytes: the fewest "
         "the phase must move</text>\n", SVG_W / 2, SVG_H - 14);
  put(o, "</svg>\n");
}

int cmd_bench_write_files(const feint_run_options *opt, const cmd_bench_files *files, const feint_run_report *rep,
                          int device, double copy_gbs) {
  feint_text_file o;
  if (files->csv) {
    FEINT_CALL(feint_text_file_open(&o, "--csv file", files->csv));
    write_csv(&o, opt, rep, device, copy_gbs);
    FEINT_CALL(feint_text_file_commit(&o));
  }
  if (files->svg) {
    FEINT_CALL(feint_text_file_open(&o, "--svg file", files->svg));
    write_svg(&o, opt, rep, device, copy_gbs);
    FEINT_CALL(feint_text_file_commit(&o));
  }
  return FEINT_OK;
}
