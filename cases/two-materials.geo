// Unit cube [0,1]^3 in two materials: the slab x < 0.5 is the physical
// volume "inner", x > 0.5 is "outer"; they share the face x = 0.5, which
// the mesh conforms to (BooleanFragments), so a coefficient per group
// jumps exactly on a mesh face (cases/two-materials.yaml). Physical
// surfaces "left" (x = 0) and "right" (x = 1). lc is the default mesh
// size; feint's mesh.size overrides it.
SetFactory("OpenCASCADE");
lc = 0.25;
Box(1) = {0, 0, 0, 0.5, 1, 1};
Box(2) = {0.5, 0, 0, 0.5, 1, 1};
v() = BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; };
MeshSize{ PointsOf{ Volume{:}; } } = lc;
eps = 1e-6;
Physical Volume("inner") = Volume In BoundingBox {-eps, -eps, -eps, 0.5 + eps, 1 + eps, 1 + eps};
Physical Volume("outer") = Volume In BoundingBox {0.5 - eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Physical Surface("left") = Surface In BoundingBox {-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
Physical Surface("right") = Surface In BoundingBox {1 - eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
