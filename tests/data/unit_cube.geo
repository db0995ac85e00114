// Unit cube for the mesh tests: physical volume "domain", physical surfaces
// "left" (x = 0) and "walls" (all six faces), and a physical point "origin".
SetFactory("OpenCASCADE");
lc = 0.3;
Box(1) = {0, 0, 0, 1, 1, 1};
MeshSize{ PointsOf{ Volume{1}; } } = lc;
eps = 1e-6;
Physical Volume("domain") = {1};
Physical Surface("left") = Surface In BoundingBox {-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
Physical Surface("walls") = Surface In BoundingBox {-eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Physical Point("origin") = Point In BoundingBox {-eps, -eps, -eps, eps, eps, eps};
