"""Draw a field of an XDMF file headless, as a user's viewer would: meshio
reads the XDMF file, VTK draws the field on the mesh's surface (second-order
cells subdivided) with a blue-to-red colour map over the field's range and
a colour bar, off screen, into a PNG file.

usage: render_xdmf.py FILE.xdmf FIELD OUT.png
Prints the colour range and, for the test (t64), the share of the mesh's
pixels whose colour is within 5% of the range of each end's colour."""
import os
import sys
import tempfile

import meshio
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

xdmf, field, png = sys.argv[1:4]
m = meshio.read(xdmf)
with tempfile.TemporaryDirectory() as tmp:  # meshio -> VTK through a .vtu file
    vtu = os.path.join(tmp, "mesh.vtu")
    meshio.write(vtu, meshio.Mesh(m.points, m.cells, point_data={field: m.point_data[field]}))
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(vtu)
    reader.Update()
grid = reader.GetOutput()
values = grid.GetPointData().GetArray(field)
lo, hi = values.GetRange()
surface = vtk.vtkDataSetSurfaceFilter()
surface.SetInputData(grid)
surface.SetNonlinearSubdivisionLevel(3)
lut = vtk.vtkLookupTable()
lut.SetHueRange(0.667, 0.0)  # blue (low) to red (high)
lut.SetTableRange(lo, hi)
lut.Build()
mapper = vtk.vtkPolyDataMapper()
mapper.SetInputConnection(surface.GetOutputPort())
mapper.SetScalarModeToUsePointFieldData()
mapper.SelectColorArray(field)
mapper.SetLookupTable(lut)
mapper.SetScalarRange(lo, hi)
mapper.SetInterpolateScalarsBeforeMapping(True)
actor = vtk.vtkActor()
actor.SetMapper(mapper)
flat = grid.GetBounds()[5] == grid.GetBounds()[4]
if flat:  # 2D: the map's colours as they are
    actor.GetProperty().LightingOff()
view = vtk.vtkRenderer()
view.SetViewport(0, 0, 0.8, 1)
view.SetBackground(1, 1, 1)
view.AddActor(actor)
bar = vtk.vtkScalarBarActor()
bar.SetLookupTable(lut)
bar.SetTitle(field)
bar.GetTitleTextProperty().SetColor(0, 0, 0)
bar.GetLabelTextProperty().SetColor(0, 0, 0)
bar.SetPosition(0.1, 0.1)
bar.SetWidth(0.8)
bar.SetHeight(0.8)
legend = vtk.vtkRenderer()
legend.SetViewport(0.8, 0, 1, 1)
legend.SetBackground(1, 1, 1)
legend.AddActor2D(bar)
window = vtk.vtkRenderWindow()
window.SetOffScreenRendering(1)
window.SetSize(800, 640)
window.AddRenderer(view)
window.AddRenderer(legend)
if not flat:  # 3D: an oblique view
    view.GetActiveCamera().Elevation(25)
    view.GetActiveCamera().Azimuth(35)
view.ResetCamera()
window.Render()
image = vtk.vtkWindowToImageFilter()
image.SetInput(window)
image.Update()
writer = vtk.vtkPNGWriter()
writer.SetFileName(png)
writer.SetInputConnection(image.GetOutputPort())
writer.Write()
# the picture where the field is lowest and highest: the map's two ends
img = image.GetOutput()
w, h, _ = img.GetDimensions()
rgb = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[:, :, :3].astype(float)


def colour(t):
    c = [0.0, 0.0, 0.0]
    lut.GetColor(t, c)
    return np.array(c) * 255


def seen(point, value, step):
    """Distance from the colour of `value` to the nearest pixel's colour
    round where `point` is drawn, in units of the colour change of `step`."""
    at = vtk.vtkCoordinate()
    at.SetCoordinateSystemToWorld()
    at.SetValue(*point)
    x, y = at.GetComputedDisplayValue(view)
    near = rgb[max(y - 2, 0) : y + 3, max(x - 2, 0) : x + 3].reshape(-1, 3)
    return np.min(np.linalg.norm(near - colour(value), axis=1)) / np.linalg.norm(colour(value + step) - colour(value))


v = vtk_to_numpy(values)
X = vtk_to_numpy(grid.GetPoints().GetData())
print("range %.17g %.17g" % (lo, hi))
print("ends %.3f %.3f" % (seen(X[np.argmin(v)], lo, 0.1 * (hi - lo)), seen(X[np.argmax(v)], hi, -0.1 * (hi - lo))))
