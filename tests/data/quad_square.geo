// Unit square meshed with quadrangles (read as quadrilateral cells; only the
// operator section takes them in this version).
Include "../../cases/square.geo";
Mesh.RecombineAll = 1;
