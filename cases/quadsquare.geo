// Unit square [0,1]^2 meshed with unstructured quadrilaterals (Gmsh's
// recombination of a triangulation; the cells are general convex quads, so
// the bilinear map is not affine). Physical surface "domain"; physical
// curves "left" (x = 0) and "boundary" (all four sides). feint's mesh.size
// sets the target size (Mesh.MeshSizeMax).
lc = 0.1;
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
Physical Surface("domain") = {1};
Physical Curve("left") = {4};
Physical Curve("boundary") = {1, 2, 3, 4};
