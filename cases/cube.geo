// Unit cube [0,1]^3. Physical volume "domain"; physical surfaces "boundary"
// (all six faces) and "left" (x = 0). lc is the default mesh size; feint's
// mesh.size option overrides it (Mesh.MeshSizeMax, ignoring the point sizes).
lc = 0.2;
Point(1) = {0, 0, 0, lc};
a[] = Extrude {1, 0, 0} { Point{1}; };
b[] = Extrude {0, 1, 0} { Line{a[1]}; };
c[] = Extrude {0, 0, 1} { Surface{b[1]}; };
Physical Volume("domain") = {c[1]};
eps = 1e-6;
Physical Surface("boundary") = Surface In BoundingBox {-eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Physical Surface("left") = Surface In BoundingBox {-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
