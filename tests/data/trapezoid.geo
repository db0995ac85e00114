// Trapezoid (0,0) (2,0) (1.5,1) (0,1), area 1.75, meshed with a transfinite
// grid of quadrilaterals that are trapezoids themselves (not
// parallelograms: the bilinear map is not affine). Physical surface
// "domain", curve "boundary". t22-tensor-cells.sh.
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
Physical Surface("domain") = {1};
Physical Curve("boundary") = {1, 2, 3, 4};
