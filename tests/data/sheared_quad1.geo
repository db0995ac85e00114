// One parallelogram (affine, no rectangle): the quadrilateral counterpart
// of sheared_hex1.geo for the exact-reproduction checks of
// t24-tensor-high-order.sh. Physical surface "domain", physical curve
// "boundary".
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1.3, 0.8, 0};
Point(4) = {0.3, 0.8, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 2, 3, 4} = 2;
Transfinite Surface{1};
Recombine Surface{1};
Physical Surface("domain") = {1};
Physical Curve("boundary") = {1, 2, 3, 4};
