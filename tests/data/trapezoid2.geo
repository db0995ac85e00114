// trapezoid.geo's domain, (0,0) (2,0) (1.5,1) (0,1), as two quadrilaterals
// stacked in y: trapezoids whose bilinear map is not affine, with the whole
// bottom side (length 2) one edge, so a polynomial in x keeps its top
// Legendre component on it. Physical surface "domain", curve "boundary".
// t532-facets-quad.c.
Point(1) = {0, 0, 0};
Point(2) = {2, 0, 0};
Point(3) = {1.5, 1, 0};
Point(4) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 2;
Transfinite Curve{2, 4} = 3;
Transfinite Surface{1};
Recombine Surface{1};
Physical Surface("domain") = {1};
Physical Curve("boundary") = {1, 2, 3, 4};
