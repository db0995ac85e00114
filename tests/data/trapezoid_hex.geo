// The trapezoid of trapezoid.geo extruded by 1 in z in 3 layers of
// hexahedra (volume 1.75; every cell has trapezoidal faces, a non-affine
// trilinear map). Physical volume "domain". t22-tensor-cells.sh.
n = 4;
Point(1) = {0, 0, 0};
Point(2) = {2, 0, 0};
Point(3) = {1.5, 1, 0};
Point(4) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 2, 3, 4} = n + 1;
Transfinite Surface{1};
Recombine Surface{1};
v[] = Extrude {0, 0, 1} { Surface{1}; Layers{3}; Recombine; };
Physical Volume("domain") = {v[1]};
