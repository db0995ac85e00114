// twisted_hex.geo with boundary groups: the unit square extruded by 1 in z
// while turning by 40 degrees about x = y = 1/2, 3 x 3 x 3 hexahedra whose
// lateral faces are non-planar bilinear patches. Physical volume "domain",
// physical surfaces "sides" (the four twisted lateral faces), "top" and
// "bottom". t531-facets-3d.c.
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
Transfinite Curve{1, 2, 3, 4} = 4;
Transfinite Surface{1};
Recombine Surface{1};
v[] = Extrude {{0, 0, 1}, {0, 0, 1}, {0.5, 0.5, 0}, 40 * Pi / 180} { Surface{1}; Layers{3}; Recombine; };
Physical Volume("domain") = {v[1]};
Physical Surface("sides") = {v[2], v[3], v[4], v[5]};
Physical Surface("top") = {v[0]};
Physical Surface("bottom") = {1};
