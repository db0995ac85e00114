// Unit square [0,1]^2. Physical surface "domain"; physical curves "left"
// (x = 0), "right" (x = 1), "bottom" (y = 0), "top" (y = 1) and "boundary"
// (all four). lc is the default mesh size; feint's mesh.size option
// overrides it (Mesh.MeshSizeMax, ignoring the point sizes).
lc = 0.1;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; // bottom
Line(2) = {2, 3}; // right
Line(3) = {3, 4}; // top
Line(4) = {4, 1}; // left
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Surface("domain") = {1};
Physical Curve("left") = {4};
Physical Curve("right") = {2};
Physical Curve("bottom") = {1};
Physical Curve("top") = {3};
Physical Curve("boundary") = {1, 2, 3, 4};
