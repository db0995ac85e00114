// Unit cube [0,1]^3 of prisms below z = 0.5 and tetrahedra above: an
// unstructured triangulation of the unit square (feint's mesh.size applies)
// extruded in 2 layers with Recombine (prisms), then extruded again without
// layers (a volume Gmsh fills with tetrahedra), so tetrahedra and prisms
// share the triangles on z = 0.5. A mixed mesh of two blocks (mesh.h).
// Physical volume "domain", surfaces "boundary" (all six sides: triangles
// and quadrilaterals) and "left" (x = 0: quadrilaterals below z = 0.5,
// triangles above).
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
a[] = Extrude {0, 0, 0.5} { Surface{1}; Layers{2}; Recombine; };
b[] = Extrude {0, 0, 0.5} { Surface{a[0]}; };
Physical Volume("domain") = {a[1], b[1]};
eps = 1e-6;
s[] = Abs(CombinedBoundary{ Volume{a[1], b[1]}; }); // not the shared interior faces
Physical Surface("boundary") = s[];
Physical Surface("left") = Surface In BoundingBox {-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
