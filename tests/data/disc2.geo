// The unit disc in curved second-order triangles (6 nodes): the edge
// nodes on the boundary lie on the circle.
SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 1};
Physical Surface("domain") = {1};
Physical Curve("boundary") = {1};
Mesh.MeshSizeMax = 0.4;
Mesh.ElementOrder = 2;
Mesh.HighOrderOptimize = 0;
