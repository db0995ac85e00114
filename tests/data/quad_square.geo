// Unit square meshed with quadrangles (rejected by feint in this version).
Include "../../cases/square.geo";
Mesh.RecombineAll = 1;
