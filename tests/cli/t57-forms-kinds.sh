# Every built-in physics kind re-expressed as a user form (issue 19) gives
# bitwise the residual, load vector, element matrices and CSR matrix of the
# kind on the cpu backend: poisson, mass, helmholtz, advection, diffusion
# and elasticity, on P1, P2 and P4 (the wide element-matrix loop)
# tetrahedra, with nodal coefficients and a state u that make every output
# nonzero. Each f0/f1 is written as the same sums in the same order as
# feint_physics_f0/f1 (include/feint/physics.h): f0 starts from -f and adds
# the kind's terms left to right. The order matters past two terms:
# advection's f0 written "b0*u_x + b1*u_y + b2*u_z - f" differs in the
# last bits (a - b and -b + a round alike, so "u - f" would do for mass).
# The Jacobian blocks are derived; their entries are the coefficients
# themselves (elasticity: 2 mu + lam on the diagonal, the kind's (mu + mu) + lam).
source "$(dirname "$0")/lib.sh"
S='"sin(pi*x)*y + 0.5"' # the source f (nowhere 0 at the points, so -f + 0 is -f, not +0 for -0)
K='"1 + x*y"'
grad() { echo "[\"$1*u_x\", \"$1*u_y\", \"$1*u_z\"]"; } # kappa grad u, one entry per direction
# the anisotropic tensor K (not symmetric) of kind diffusion and, row d,
# f1[d] = K_d0 u_x + K_d1 u_y + K_d2 u_z, the order of feint_physics_f1
TENSOR='[["2 + x", "0.3*y", "0.1"], ["-0.2*z", "1 + y*z", "0.4*x"], ["0.2", "0.1*x*y", "1.5 + z"]]'
KCOEF='K00: "2 + x", K01: "0.3*y", K02: 0.1, K10: "-0.2*z", K11: "1 + y*z", K12: "0.4*x", K20: 0.2, K21: "0.1*x*y", K22: "1.5 + z"'
krow() { echo "\"K${1}0*u_x + K${1}1*u_y + K${1}2*u_z\""; }
# pair NAME ORDER SIZE COMPONENTS STATE BUILTIN-PHYSICS FORM-PHYSICS: the
# same problem as the built-in kind and as kind form, compared
pair() { form_pair "$1 P$2" "{file: $(geo cube.geo), size: $3}" "$2" "$4" "$5" "$6" "$7"; }
U='"x*y + sin(z + x)"'
for o in 1 2 4; do
  h=$([ $o = 4 ] && echo 0.6 || echo 0.35)
  pair poisson $o $h 1 "$U" "{kind: poisson, kappa: $K, source: $S}" \
    "  coefficients: {kappa: $K, f: $S}
  f0: \"-f\"
  f1: $(grad kappa)"
  pair mass $o $h 1 "$U" "{kind: mass, source: $S}" \
    "  coefficients: {f: $S}
  f0: \"-f + u\""
  pair helmholtz $o $h 1 "$U" "{kind: helmholtz, kappa: $K, lambda: \"2 + y*z\", source: $S}" \
    "  coefficients: {kappa: $K, lambda: \"2 + y*z\", f: $S}
  f0: \"-f + lambda*u\"
  f1: $(grad kappa)"
  pair advection $o $h 1 "$U" "{kind: advection, velocity: [\"1 + y\", \"x*z - 0.5\", \"0.3 + x\"], source: $S}" \
    "  coefficients: {b0: \"1 + y\", b1: \"x*z - 0.5\", b2: \"0.3 + x\", f: $S}
  f0: \"-f + b0*u_x + b1*u_y + b2*u_z\""
  pair diffusion $o $h 1 "$U" "{kind: diffusion, tensor: $TENSOR, source: $S}" \
    "  coefficients: {$KCOEF, f: $S}
  f0: \"-f\"
  f1: [$(krow 0), $(krow 1), $(krow 2)]"
  pair elasticity $o $h 3 '["x*y", "sin(z)", "x + y*z"]' \
    '{kind: elasticity, lame_lambda: "1 + x", lame_mu: "0.7 + y*z", source: ["sin(x) + 1", "y*z - 2", "-1 - x"]}' \
    "  coefficients: {lam: \"1 + x\", mu: \"0.7 + y*z\", fx: \"sin(x) + 1\", fy: \"y*z - 2\", fz: \"-1 - x\"}
  f0: [\"-fx\", \"-fy\", \"-fz\"]
  f1: [$(form_sigma 0 3), $(form_sigma 1 3), $(form_sigma 2 3)]"
done
