// Unit square of triangles (x < 0.4) and a transfinite grid of
// quadrilaterals (x > 0.4) sharing the edges on x = 0.4: a 2D mixed mesh of
// two blocks (mesh.h). Physical surface "domain", curves "left" (x = 0),
// "right", "bottom", "top". cases/poisson-mixed-p3.yaml.
lc = 0.2;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.4, 0, 0, lc};
Point(3) = {1, 0, 0, lc};
Point(4) = {1, 1, 0, lc};
Point(5) = {0.4, 1, 0, lc};
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
Transfinite Curve{2, 4} = 4;
Transfinite Curve{3, 7} = 6;
Transfinite Surface{2};
Recombine Surface{2};
Physical Surface("domain") = {1, 2};
Physical Curve("left") = {6};
Physical Curve("right") = {3};
Physical Curve("bottom") = {1, 2};
Physical Curve("top") = {4, 5};
