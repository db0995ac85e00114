"""Checks of an output.xdmf file (t61) against independent truth: meshio
reads the XDMF file; VTK's own cells say where each node of a second-order
cell lies; the HDF5 file says what the fields and the dof map are.

check(name, order, nc, domain_measure) checks NAME.xdmf beside NAME.h5:
- the points are /dofs/coordinates;
- every drawn cell belongs to one cell of the file's dof map (its nodes
  are that cell's dofs), in the cells' order, p^dim pieces a cell where
  cells are cut (order >= 3, or a mixed mesh at order 2);
- every drawn cell has positive measure, the measures sum to the domain's,
  and on affine cells a cell's pieces are equal (a wrong lattice gives
  folded or uneven pieces);
- a second-order cell's node j lies where VTK's linear cell of its corners
  puts VTK's parametric point j;
- point fields equal their datasets (vectors: the first component's rows);
  cell fields have one value per drawn cell.
"""
import sys

import h5py
import meshio
import numpy as np

LINEAR = {"triangle": 3, "tetra": 4, "quad": 4, "hexahedron": 8, "wedge": 6}
QUADRATIC = {"triangle6": "triangle", "tetra10": "tetra", "quad9": "quad", "hexahedron27": "hexahedron",
             "wedge18": "wedge"}
DIM = {"triangle": 2, "quad": 2, "tetra": 3, "hexahedron": 3, "wedge": 3}


def scalar_dofs(order, dim):
    """Scalar dofs a cell -> its shape, for order `order`."""
    p = order
    shapes = {"triangle": (p + 1) * (p + 2) // 2, "quad": (p + 1) ** 2} if dim == 2 else \
        {"tetra": (p + 1) * (p + 2) * (p + 3) // 6, "hexahedron": (p + 1) ** 3, "wedge": (p + 1) ** 2 * (p + 2) // 2}
    return {n: s for s, n in shapes.items()}


def gll(p):
    """The p+1 Gauss-Lobatto-Legendre points on [-1, 1]."""
    inner = np.polynomial.legendre.Legendre.basis(p).deriv().roots() if p > 1 else []
    return np.concatenate([[-1.0], np.sort(np.real(inner)), [1.0]])


def tet_volume(a, b, c, d):
    return np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0


def measure(kind, P):
    """Signed measure of linear cells P (cells x nodes x 3) in VTK's order."""
    if kind == "triangle":
        return 0.5 * np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])[:, 2]
    if kind == "quad":  # shoelace: exact for a plane quadrilateral
        x, y = P[:, :, 0], P[:, :, 1]
        return 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)
    if kind == "tetra":
        return tet_volume(*(P[:, k] for k in range(4)))
    if kind == "wedge":  # three tetrahedra (exact on affine prisms)
        return sum(tet_volume(*(P[:, k] for k in t)) for t in ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5)))
    if kind == "hexahedron":  # six tetrahedra round the diagonal 0-6 (exact on parallelepipeds)
        t = ((0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6))
        return sum(tet_volume(*(P[:, k] for k in q)) for q in t)
    raise ValueError(kind)


def vtk_node_positions(kind, corners):
    """Where VTK's cell `kind` (second order) puts its nodes on cells whose
    corners are `corners` (cells x nv x 3): VTK's parametric points mapped
    by VTK's linear cell of the corners."""
    import vtk
    quadratic = {"triangle6": vtk.vtkQuadraticTriangle, "tetra10": vtk.vtkQuadraticTetra,
                 "quad9": vtk.vtkBiQuadraticQuad, "hexahedron27": vtk.vtkTriQuadraticHexahedron,
                 "wedge18": vtk.vtkBiQuadraticQuadraticWedge}[kind]()
    linear = {"triangle": vtk.vtkTriangle, "tetra": vtk.vtkTetra, "quad": vtk.vtkQuad,
              "hexahedron": vtk.vtkHexahedron, "wedge": vtk.vtkWedge}[QUADRATIC[kind]]()
    pc = quadratic.GetParametricCoords()
    n, nv = quadratic.GetNumberOfPoints(), linear.GetNumberOfPoints()
    W = np.zeros((n, nv))
    for j in range(n):
        w = [0.0] * nv
        linear.InterpolateFunctions([pc[3 * j], pc[3 * j + 1], pc[3 * j + 2]], w)
        W[j] = w
    return np.einsum("jv,cvd->cjd", W, corners)


def drawn_cells(m):
    """The drawn cells in the file's order: (kind, nodes) pairs of blocks."""
    return [(b.type, b.data) for b in m.cells]


def check(name, order, nc, domain_measure, affine=True):
    m = meshio.read(name + ".xdmf")
    f = h5py.File(name + ".h5", "r")
    X, cd = f["dofs/coordinates"][()], f["dofs/cell_dofs"][()]
    assert np.array_equal(m.points, X), "points"
    blocks = drawn_cells(m)
    dim = DIM[QUADRATIC.get(blocks[0][0], blocks[0][0])]
    shape_of = scalar_dofs(order, dim)
    # each file cell's shape, pieces and dofs (first component's)
    nb = np.sum(cd[:, ::nc] >= 0, axis=1)
    shapes = [shape_of[k] for k in nb]
    kinds = [(k, c) for k, data in blocks for c in data]
    mixed = len(set(shapes)) > 1
    cut = order >= 3 or (order == 2 and mixed)
    at, total, measures = 0, 0.0, []
    for c, shape in enumerate(shapes):
        n = order ** DIM[shape] if cut else 1
        piece_kinds = {k for k, _ in kinds[at:at + n]}
        want = shape if cut or order == 1 else {v: k for k, v in QUADRATIC.items()}[shape]
        assert piece_kinds == {want}, (c, shape, piece_kinds, want)
        own = set(cd[c, ::nc][cd[c, ::nc] >= 0].tolist())
        for k, nodes in kinds[at:at + n]:
            assert set(nodes.tolist()) <= own, ("a drawn cell outside its cell", c)
        at += n
    assert at == len(kinds), ("drawn cells", at, len(kinds))
    # measures: positive, summing to the domain's, even pieces on affine cells
    at = 0
    for k, data in blocks:
        lin = QUADRATIC.get(k, k)
        P = X[data[:, :LINEAR[lin]]]
        v = measure(lin, P)
        assert np.all(v > 0), (k, "a drawn cell turned over", v.min())
        total += v.sum()
        if k in QUADRATIC and affine:  # VTK's node positions
            assert np.allclose(X[data], vtk_node_positions(k, P), atol=1e-12), (k, "node positions")
        measures.append(v)
    if affine:  # (a curved cell's measure is not its corners')
        assert abs(total - domain_measure) < 1e-10, ("measure", total, domain_measure)
    if cut and affine:
        # the pieces of a cell on equispaced nodes are equal; on Gauss-Lobatto
        # nodes (quadrilaterals, hexahedra) they are the spacings' products
        lobatto = {"quad", "hexahedron"} & set(shapes)
        gaps = np.diff(gll(order)) / 2
        v = np.concatenate(measures)
        at = 0
        for shape in shapes:
            n = order ** DIM[shape]
            piece = v[at:at + n]
            if shape in ("quad", "hexahedron"):
                want = np.prod(np.meshgrid(*[gaps] * DIM[shape], indexing="ij"), axis=0).ravel()
                assert np.allclose(np.sort(piece / piece.sum()), np.sort(want), rtol=1e-9), ("pieces", shape)
            elif not lobatto:
                assert np.allclose(piece, piece.mean(), rtol=1e-9), ("uneven pieces", shape)
            at += n
    n_drawn = len(kinds)
    fields = [(k, f[k][()]) for k in ("residual", "rhs") if k in f]
    if "operator" in f:  # an operator run: its vectors x and y
        fields += [(k, f["operator"][k][()]) for k in ("x", "y")]
    if "near_null_space" in f:
        fields += [("near_null_space_%d" % k, row) for k, row in enumerate(f["near_null_space"][()])]
    assert sorted(m.point_data) == sorted(k for k, _ in fields), (sorted(m.point_data), [k for k, _ in fields])
    for field, ref in fields:
        v = m.point_data[field]
        if nc == 1:
            assert np.array_equal(v, ref), field
        else:
            assert v.shape == (len(X), nc), v.shape
            assert np.array_equal(v[::nc], ref.reshape(-1, nc)), field
            assert not np.any(v[np.arange(len(X)) % nc != 0]), field
    cell_data = {k: np.concatenate(v) for k, v in m.cell_data.items()}
    for k, v in cell_data.items():
        assert len(v) == n_drawn, (k, len(v), n_drawn)
    print("  %s: %d cells drawn as %s, %d points, point fields %s, cell fields %s" % (
        name, len(cd), "+".join("%d %s" % (len(d), k) for k, d in blocks), len(X), sorted(m.point_data),
        sorted(cell_data)))
    return m, f, cell_data


def boundary_edge_nodes(m):
    """The edge nodes of a triangle6 mesh's boundary edges (edges of one cell)."""
    t = m.cells[0].data
    edges = np.concatenate([np.sort(t[:, [a, b]], axis=1) for a, b in ((0, 1), (1, 2), (2, 0))])
    mids = np.concatenate([t[:, 3], t[:, 4], t[:, 5]])
    _, inverse, counts = np.unique(edges, axis=0, return_inverse=True, return_counts=True)
    return mids[counts[inverse.ravel()] == 1]


def centroids(m):
    return np.concatenate([m.points[b.data].mean(axis=1) for b in m.cells])


if __name__ == "__main__":
    name, order, nc, measure_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    check(name, order, nc, measure_, affine=len(sys.argv) < 6 or sys.argv[5] != "curved")
