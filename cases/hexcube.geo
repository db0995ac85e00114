// Unit cube [0,1]^3 of hexahedra: a transfinite 3 x 3 x 3 grid, recombined
// (the operator section's mesh; cases/bp-hex.yaml). Physical volume "domain";
// physical surfaces "boundary" (all six faces, quadrilaterals) and "left"
// (x = 0). Transfinite meshes ignore feint's mesh.size; use mesh.refine
// (each refinement splits every hexahedron into 8).
n = 3;
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
Transfinite Curve{1, 2, 3, 4} = n + 1;
Transfinite Surface{1};
Recombine Surface{1};
v[] = Extrude {0, 0, 1} { Surface{1}; Layers{n}; Recombine; };
Physical Volume("domain") = {v[1]};
eps = 1e-6;
Physical Surface("boundary") = Surface In BoundingBox {-eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Physical Surface("left") = Surface In BoundingBox {-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
