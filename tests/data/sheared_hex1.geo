// One parallelepiped: a parallelogram extruded along (0.3, -0.2, 1.1), so
// the cell is affine (constant Jacobian) but no box: polynomials of degree
// p are integrated exactly and lie in the space of order p, which the
// exact-reproduction checks need (on a twisted cell the stiffness
// integrand is rational). mesh.refine = 1 splits it into 8. Physical
// volume "domain", physical surface "boundary" (all six faces).
// t24-tensor-high-order.sh.
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1.2, 0.9, 0};
Point(4) = {0.2, 0.9, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 2, 3, 4} = 2;
Transfinite Surface{1};
Recombine Surface{1};
v[] = Extrude {0.3, -0.2, 1.1} { Surface{1}; Layers{1}; Recombine; };
Physical Volume("domain") = {v[1]};
Physical Surface("boundary") = {1, v[0], v[2], v[3], v[4], v[5]};
