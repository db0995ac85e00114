// Unit cube of prisms (x < 0.5) and hexahedra (x > 0.5): the mixed square
// of mixed_square.geo (triangles | recombined quadrilaterals) extruded in
// 2 layers, so prisms and hexahedra share the quadrilateral faces on
// x = 0.5. Physical volume "cube", surfaces "boundary" (all six sides:
// triangles at z = 0 and 1 under the prisms, quadrilaterals elsewhere) and
// "left" (x = 0; mixed_square.geo's curve groups keep their names: left,
// right, bottom, top; and its surface "domain"). t23-mixed-meshes.sh.
Include "mixed_square.geo";
a[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };
b[] = Extrude {0, 0, 1} { Surface{2}; Layers{2}; Recombine; };
Physical Volume("cube") = {a[1], b[1]};
eps = 1e-6;
s[] = Abs(CombinedBoundary{ Volume{a[1], b[1]}; }); // not the shared interior faces
Physical Surface("boundary") = s[];
Physical Surface("left") = Surface In BoundingBox {-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
