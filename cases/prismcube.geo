// Unit cube [0,1]^3 of prisms (wedges): an unstructured triangulation of
// the unit square (feint's mesh.size applies) extruded in 4 layers with
// Recombine. Physical volume "domain"; physical surfaces "boundary" (all
// six faces: triangles on top and bottom, quadrilaterals on the sides) and
// "left" (x = 0).
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
v[] = Extrude {0, 0, 1} { Surface{1}; Layers{4}; Recombine; };
Physical Volume("domain") = {v[1]};
eps = 1e-6;
Physical Surface("boundary") = Surface In BoundingBox {-eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Physical Surface("left") = Surface In BoundingBox {-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
