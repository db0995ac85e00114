// Unit cube split at x = 0.3 into physical volumes "inner" (x < 0.3, volume
// 0.3) and "outer" (x > 0.3, volume 0.7); physical surface "cut" (x = 0.3).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.3, 1, 1};
Box(2) = {0.3, 0, 0, 0.7, 1, 1};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
MeshSize{ PointsOf{ Volume{:}; } } = 0.3;
eps = 1e-6;
Physical Volume("inner") = Volume In BoundingBox {-eps, -eps, -eps, 0.3 + eps, 1 + eps, 1 + eps};
Physical Volume("outer") = Volume In BoundingBox {0.3 - eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Physical Surface("cut") = Surface In BoundingBox {0.3 - eps, -eps, -eps, 0.3 + eps, 1 + eps, 1 + eps};
// "all" overlaps "inner" and "outer" (MSH 2 files then repeat each element)
Physical Volume("all") = Volume In BoundingBox {-eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
