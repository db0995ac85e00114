// Unit cube of prisms (x < 0.5) and hexahedra (x > 0.5): the mixed square
// of mixed_square.geo (triangles | recombined quadrilaterals) extruded in
// 2 layers, so prisms and hexahedra share the quadrilateral faces on
// x = 0.5. Physical volume "domain". t23-mixed-meshes.sh.
Include "mixed_square.geo";
a[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };
b[] = Extrude {0, 0, 1} { Surface{2}; Layers{2}; Recombine; };
Physical Volume("cube") = {a[1], b[1]};
