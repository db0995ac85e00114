// One hexahedron: the unit square extruded by 1 in z while turning by 40
// degrees about the axis x = y = 1/2, so its four lateral faces are
// non-planar (twisted) bilinear patches and the Jacobian varies inside the
// cell; mesh.refine = 1 splits it into 8 of the same trilinear geometry.
// Physical volume "domain", physical surfaces "boundary" (all six faces),
// "top" (z = 1, a unit square turned by 40 degrees).
// t24-tensor-high-order.sh (orders 7..15).
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1, 1, 0};
Point(4) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 2, 3, 4} = 2;
Transfinite Surface{1};
Recombine Surface{1};
v[] = Extrude {{0, 0, 1}, {0, 0, 1}, {0.5, 0.5, 0}, 40 * Pi / 180} { Surface{1}; Layers{1}; Recombine; };
Physical Volume("domain") = {v[1]};
Physical Surface("boundary") = {1, v[0], v[2], v[3], v[4], v[5]};
Physical Surface("top") = {v[0]};
