// Three shapes in one region: hex_prism_cube.geo's prisms (x < 0.5) and
// hexahedra (x > 0.5) on z in [0, 1], and tetrahedra on top of the prisms
// (z in [1, 1.5], x < 0.5) sharing the prisms' top triangles: a mixed mesh
// of three blocks (mesh.h). Lobatto nodes (fe.h) must match on the
// triangles (tetrahedra | prisms) and the quadrilaterals (prisms |
// hexahedra). Physical volume "domain". t300-space.c.
Include "mixed_square.geo";
a[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };
b[] = Extrude {0, 0, 1} { Surface{2}; Layers{2}; Recombine; };
c[] = Extrude {0, 0, 0.5} { Surface{a[0]}; };
Physical Volume("domain") = {a[1], b[1], c[1]};
