// The unit ball in curved second-order tetrahedra (10 nodes).
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Physical Volume("domain") = {1};
Physical Surface("boundary") = {1};
Mesh.MeshSizeMax = 0.6;
Mesh.ElementOrder = 2;
Mesh.HighOrderOptimize = 0;
