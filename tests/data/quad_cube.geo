// Unit cube of hexahedra that are not parallelepipeds: the unstructured
// recombined quadrilaterals of quad_square.geo (mesh.size applies)
// extruded in 2 layers. Physical volume "domain". t22-tensor-cells.sh.
lc = 0.25;
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
Recombine Surface{1};
v[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };
Physical Volume("domain") = {v[1]};
