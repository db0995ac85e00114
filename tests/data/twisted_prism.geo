// A triangulated unit square extruded by 1 in z while turning by 40
// degrees about x = y = 1/2: prisms with twisted (non-planar)
// quadrilateral faces. Physical volume "domain". t22-tensor-cells.sh.
lc = 0.5;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
v[] = Extrude {{0, 0, 1}, {0, 0, 1}, {0.5, 0.5, 0}, 40 * Pi / 180} { Surface{1}; Layers{3}; Recombine; };
Physical Volume("domain") = {v[1]};
