# feint bench --csv / --svg (issue 23): the table as CSV and a roofline
# picture. Checked against the run's --json (phases, times, sizes), against
# the text table of a run that prints it, and against themselves: GB/s =
# fewest bytes / time, fraction = GB/s / copy GB/s, GF/s = flops / time; in
# the SVG one point per phase with a flop and a byte count, placed on log
# axes where its intensity and GF/s put it, at its distance below the copy
# bandwidth's roof, and one bar per phase with a byte count, as long as its
# GB/s against the copy line. A file that cannot be written is refused
# before the run and leaves nothing; feint run has no --csv.
source "$(dirname "$0")/lib.sh"
write_case c.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.5}
physics: {kind: poisson, kappa: "1 + x", source: "x*y"}
state: {u: "x*y + z"}
output: {residual: true, rhs: true, matrix: true}
EOF
"$FEINT" bench "$WORK/c.yaml" --repeat 3 --backend cpu -o "$WORK/b.h5" --csv "$WORK/b.csv" --svg "$WORK/b.svg" \
  --json > "$WORK/b.json" 2> /dev/null || fail "bench --csv --svg --json"
[ -s "$WORK/b.csv" ] && [ -s "$WORK/b.svg" ] || fail "no CSV or SVG file"
! ls "$WORK"/*.tmp-* > /dev/null 2>&1 || fail "a temporary file left behind"
$PY - "$WORK" <<'EOF' || fail "the CSV or SVG file is wrong"
import csv, json, math, re, sys
import xml.etree.ElementTree as ET
w = sys.argv[1]
js = json.load(open(f"{w}/b.json"))
rows = list(csv.DictReader(open(f"{w}/b.csv", newline="")))
head = ("device,backend,copy_gb_per_s,case,cells,dofs,nnz,repeat,phase,time_ms,h2d_ms,d2h_ms,kernel_ms,"
        "mcells_per_s,min_bytes,gb_per_s,fraction_of_copy,gflop_per_s,flops").split(",")
assert list(rows[0].keys()) == head, list(rows[0].keys())
# no quoting (commas in names are semicolons): numpy's reader, which takes no quotes, reads it too
lines = open(f"{w}/b.csv").read().splitlines()
assert all(l.count(",") == len(head) - 1 and '"' not in l for l in lines), lines
# one row per phase bench reports (those that ran), in the table's order
want = [p for p, s in js["seconds"].items() if s > 0]
assert [r["phase"] for r in rows] == want, ([r["phase"] for r in rows], want)
num = lambda r, k: float(r[k]) if r[k] != "" else None
close = lambda a, b, rel=1e-6, ab=0.0: abs(a - b) <= ab + rel * max(abs(a), abs(b))
copy = num(rows[0], "copy_gb_per_s")
assert copy > 0
for r in rows:  # the run's facts, the same on every row
    assert (r["device"], r["backend"], r["case"]) == (js["device"].replace(",", ";"), "cpu", js["case"]), r
    assert (int(r["cells"]), int(r["dofs"]), int(r["nnz"]), int(r["repeat"])) == \
        (js["cells"], js["dofs"], js["nonzeros"], 3), r
    assert num(r, "copy_gb_per_s") == copy
n_bytes = n_flops = 0
for r in rows:
    p = r["phase"]
    # times: the JSON's (seconds to 1e-9 s: 1e-6 ms)
    assert close(num(r, "time_ms"), 1e3 * js["seconds"][p], 1e-7, 2e-6), (p, r["time_ms"], js["seconds"][p])
    assert r["h2d_ms"] == r["d2h_ms"] == "", "no copies on the cpu backend: " + p
    k = js["kernel_seconds"][p]
    assert (r["kernel_ms"] == "") == (k == 0) and (k == 0 or close(num(r, "kernel_ms"), 1e3 * k, 1e-7, 2e-6)), p
    t = 1e-3 * (num(r, "kernel_ms") or num(r, "time_ms"))
    over_cells = p not in ("case", "setup", "write")
    assert (r["mcells_per_s"] != "") == over_cells, p
    if over_cells:
        assert close(num(r, "mcells_per_s"), 1e-6 * js["cells"] / t), p
    b, f = num(r, "min_bytes"), num(r, "flops")
    assert (b is None) == (r["gb_per_s"] == "") == (r["fraction_of_copy"] == ""), p
    assert (f is None) == (r["gflop_per_s"] == ""), p
    if b is not None:
        n_bytes += 1
        assert b > 0 and close(num(r, "gb_per_s"), 1e-9 * b / t), (p, r)
        assert close(num(r, "fraction_of_copy"), num(r, "gb_per_s") / copy), (p, r)
    if f is not None:
        n_flops += 1
        assert f > 0 and close(num(r, "gflop_per_s"), 1e-9 * f / t), (p, r)
# residual, rhs and assembly have bytes and flops: something to draw
assert n_bytes >= 3 and n_flops >= 3, (n_bytes, n_flops)

# the SVG
S = "{http://www.w3.org/2000/svg}"
svg = ET.parse(f"{w}/b.svg").getroot()
assert svg.tag == S + "svg"
title = "".join(svg.find(S + "text[@id='title']").itertext())
assert js["device"] in title and "backend cpu" in title and js["case"] in title, title
texts = ["".join(t.itertext()) for t in svg.iter(S + "text")]
assert any("[flop/byte]" in t for t in texts) and any("[GFLOP/s]" in t for t in texts), "axis labels"
assert any("[GB/s]" in t for t in texts), "the bars' axis label"
both = [r for r in rows if r["min_bytes"] and r["flops"]]
pts = {c.get("id"): (float(c.get("cx")), float(c.get("cy"))) for c in svg.iter(S + "circle")
       if c.get("class") == "point"}
assert sorted(pts) == sorted("point-" + r["phase"] for r in both), (sorted(pts), [r["phase"] for r in both])
labels = [t for t in svg.iter(S + "text") if t.get("class") == "point-label"]
assert sorted(t.text.split()[0] for t in labels) == sorted(r["phase"] for r in both), [t.text for t in labels]
# log axes: one scale (pixels per decade) fits every point in x and in y
I = {r["phase"]: num(r, "flops") / num(r, "min_bytes") for r in both}
G = {r["phase"]: num(r, "gflop_per_s") for r in both}
def scale(val, coord, sign):
    a, b = min(val, key=val.get), max(val, key=val.get)
    s = sign * (coord[b] - coord[a]) / math.log10(val[b] / val[a])
    for p in val:  # every point where the scale puts it
        assert abs(coord[p] - (coord[a] + sign * s * math.log10(val[p] / val[a]))) < 0.05, (p, coord[p])
    return s
X = {p: pts["point-" + p][0] for p in I}
Y = {p: pts["point-" + p][1] for p in I}
sx, sy = scale(I, X, 1), scale(G, Y, -1)
assert sx > 0 and sy > 0, (sx, sy)
# the memory roof: GFLOP/s = copy x intensity, a line of slope 1 in decades; each point lies
# log10(1 / fraction of copy) decades below it
roof = svg.find(S + "line[@id='roof']")
assert roof is not None, "no copy bandwidth roof"
x1, y1, x2, y2 = (float(roof.get(k)) for k in ("x1", "y1", "x2", "y2"))
assert x2 > x1 and abs((y1 - y2) / sy - (x2 - x1) / sx) < 1e-3, "the roof's slope"
assert "%.4g GB/s" % copy in "".join(roof.itertext()), "the roof's bandwidth"
frac = {r["phase"]: num(r, "fraction_of_copy") for r in both}
for p in I:
    y_roof = y1 + (X[p] - x1) * (y2 - y1) / (x2 - x1)
    below = (Y[p] - y_roof) / sy
    assert abs(below + math.log10(frac[p])) < 2e-3, (p, below, frac[p])
# the bars: one per phase with bytes, lengths in proportion to GB/s, the copy line where copy GB/s is
bytes_rows = [r for r in rows if r["min_bytes"]]
bars = {b.get("id"): b for b in svg.iter(S + "rect") if b.get("class") == "bar"}
assert sorted(bars) == sorted("bar-" + r["phase"] for r in bytes_rows), sorted(bars)
line = svg.find(S + "line[@id='copy-line']")
assert line is not None, "no copy bandwidth line"
x0 = float(next(iter(bars.values())).get("x"))
k = (float(line.get("x1")) - x0) / copy  # pixels per GB/s
assert k > 0
for r in bytes_rows:  # coordinates to 0.01 px
    assert abs(float(bars["bar-" + r["phase"]].get("width")) - k * num(r, "gb_per_s")) < 0.011, r["phase"]
print(f"  csv: {len(rows)} phases (as --json), {n_bytes} with bytes, {n_flops} with flops; "
      f"svg: {len(pts)} points, {len(bars)} bars, roof at {copy:.1f} GB/s")
EOF

# a run that prints the table: the CSV says what the table says
"$FEINT" bench "$WORK/c.yaml" --repeat 3 --backend cpu -o "$WORK/b.h5" --csv "$WORK/t.csv" > "$WORK/table" \
  2> /dev/null || fail "bench --csv"
$PY - "$WORK" <<'EOF' || fail "the CSV differs from the table: $(cat "$WORK/table")"
import csv, sys
w = sys.argv[1]
rows = {r["phase"]: r for r in csv.DictReader(open(f"{w}/t.csv", newline=""))}
lines = open(f"{w}/table").read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("phase "))
table = {}
for l in lines[start + 1:]:
    if not l.strip():
        break
    table[l.split()[0]] = l.split("   (")[0].split()
assert list(table) == list(rows), (list(table), list(rows))
copy = float(lines[2].split("measured now: ")[1].split()[0])
near = lambda text, v, d: abs(float(text.rstrip("%")) - v) <= 0.5 * 10 ** -d + 1e-9
for p, f in table.items():
    r = rows[p]
    assert near(f[1], float(r["time_ms"]), 3), (p, f, r)
    assert near(str(copy), float(r["copy_gb_per_s"]), 1)
    if r["min_bytes"]:
        assert near(f[6], 1e-6 * float(r["min_bytes"]), 1) and near(f[7], float(r["gb_per_s"]), 1), (p, f, r)
        assert near(f[8], 100 * float(r["fraction_of_copy"]), 1), (p, f, r)
    if r["flops"]:
        assert near(f[9], float(r["gflop_per_s"]), 1), (p, f, r)
print(f"  table: {len(table)} phases, the CSV's figures")
EOF

# files that cannot be written: refused before the run, nothing left
expect_nothing() { # NAME MESSAGE feint-args...: exit 2, the message, no output and no file beside
  expect_bad "$@"
  ! ls "$WORK"/nodir* "$WORK"/x.csv* "$WORK"/x.svg* > /dev/null 2>&1 || fail "$1: a file left behind"
}
expect_nothing "--csv in a missing folder" "cannot write --csv file '$WORK/nodir/b.csv': the folder '$WORK/nodir' does not exist" \
  bench "$WORK/c.yaml" --repeat 1 -o "$WORK/out.h5" --csv "$WORK/nodir/b.csv" --svg "$WORK/x.svg"
expect_nothing "--svg in a missing folder" "cannot write --svg file '$WORK/nodir/b.svg': the folder '$WORK/nodir' does not exist" \
  bench "$WORK/c.yaml" --repeat 1 -o "$WORK/out.h5" --csv "$WORK/x.csv" --svg "$WORK/nodir/b.svg"
expect_nothing "--svg a directory" "cannot write --svg file '$WORK': it is a directory" \
  bench "$WORK/c.yaml" --repeat 1 -o "$WORK/out.h5" --svg "$WORK"
expect_nothing "--csv twice" "--csv $WORK/x.csv: already $WORK/b.csv; give --csv once" \
  bench "$WORK/c.yaml" -o "$WORK/out.h5" --csv "$WORK/b.csv" --csv "$WORK/x.csv"
expect_nothing "--csv without a name" "--csv needs a file name" bench "$WORK/c.yaml" -o "$WORK/out.h5" --csv
# bench options only
expect_nothing "run --csv" "unknown option '--csv'" run "$WORK/c.yaml" -o "$WORK/out.h5" --csv "$WORK/x.csv"
expect_nothing "run --svg" "unknown option '--svg'" run "$WORK/c.yaml" -o "$WORK/out.h5" --svg "$WORK/x.svg"
echo "ok: bench --csv and --svg"
