"""ParaView's own reader (pvpython) on feint's XDMF files: each file opens,
every time step's mesh has the cells and points the HDF5 file says, of the
VTK cell types expected, and its point fields equal the datasets.

usage: pvpython paraview_read.py NAME:VTK_TYPES[:H5_OF_STEP_0,...] ...
(absolute paths: ParaView's XDMF reader (Xdmf3) joins a bare file name's
HDF5 references to the XDMF file's own name)."""
import sys

import h5py
import numpy as np
from paraview import servermanager as sm
from paraview.simple import OpenDataFile
from vtk.numpy_interface import dataset_adapter as dsa

for arg in sys.argv[1:]:
    name, types, *steps = arg.split(":")
    reader = OpenDataFile(name + ".xdmf")
    times = list(reader.TimestepValues) or [None]
    if steps:
        steps = steps[0].split(",")
        assert len(times) == len(steps), (name, times, steps)
    for k, t in enumerate(times):
        reader.UpdatePipeline(t) if t is not None else reader.UpdatePipeline()
        d = sm.Fetch(reader)
        w = dsa.WrapDataObject(d)
        h5, group = (steps[k].split("@") + [""])[:2] if steps else (name + ".h5", "")
        f = h5py.File(h5, "r")
        g = f[group] if group else f
        got = sorted(set(np.asarray(w.CellTypes).tolist()))
        assert got == sorted(map(int, types.split(","))), (name, "cell types", got, types)
        assert np.array_equal(np.asarray(w.Points), g["dofs/coordinates"][()]), (name, "points")
        for field in ("residual", "rhs", "operator/y"):
            if field not in g:
                continue
            v, ref = np.asarray(w.PointData[field.split("/")[-1]]), g[field][()]
            nc = 1 if v.ndim == 1 else v.shape[1]  # a vector: on the first component's rows
            assert np.array_equal(v[::nc], ref.reshape(-1, nc) if nc > 1 else ref), (name, field)
        print("  %s%s: %d cells of VTK types %s, %d points, fields %s" % (
            name.rsplit("/", 1)[-1], "" if t is None else " at time %g" % t, d.GetNumberOfCells(), got,
            d.GetNumberOfPoints(), sorted(w.PointData.keys()) + sorted(w.CellData.keys())))
