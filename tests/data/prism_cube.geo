// Unit cube of prisms (wedges): an unstructured triangulation of the unit
// square extruded in 3 layers (Extrude ... Layers, Recombine: prisms).
// Physical volume "domain". t22-tensor-cells.sh.
lc = 0.4;
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
v[] = Extrude {0, 0, 1} { Surface{1}; Layers{3}; Recombine; };
Physical Volume("domain") = {v[1]};
Physical Surface("boundary") = {1, v[0], v[2], v[3], v[4], v[5]};
