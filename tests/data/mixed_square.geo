// Unit square of triangles (x < 0.5) and unstructured recombined
// quadrilaterals (x > 0.5) sharing the edges on x = 0.5: a mixed mesh of
// two blocks. Physical surface "domain", curves left, right, bottom, top.
// t23-mixed-meshes.sh.
lc = 0.25;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.5, 0, 0, lc};
Point(3) = {1, 0, 0, lc};
Point(4) = {1, 1, 0, lc};
Point(5) = {0.5, 1, 0, lc};
Point(6) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};
Plane Surface(2) = {2};
Recombine Surface{2};
Physical Surface("domain") = {1, 2};
Physical Curve("left") = {6};
Physical Curve("right") = {3};
Physical Curve("bottom") = {1, 2};
Physical Curve("top") = {4, 5};
