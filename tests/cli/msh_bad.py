"""Writes the malformed .msh files of t32-msh-malformed.sh into a folder:
NAME.msh for each hand-made case (listed in cases.txt as NAME<TAB>regex of
the expected message), and mutants mNNN.msh (seeded random byte flips of
the small binary 4.1 and 2.2 meshes in tests/data/msh/)."""
import os, random, struct, sys

out, data = sys.argv[1], sys.argv[2]
A41 = """$MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
1
3 1 "domain"
$EndPhysicalNames
$Entities
0 0 0 1
1 0 0 0 1 1 1 1 1 0
$EndEntities
$Nodes
1 5 1 5
3 1 0 5
1
2
3
4
5
0 0 0
1 0 0
0 1 0
0 0 1
1 1 1
$EndNodes
$Elements
1 2 1 2
3 1 4 2
1 1 2 3 4
2 2 3 4 5
$EndElements
"""
A22 = """$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
4
1 0 0 0
2 1 0 0
3 0 1 0
4 0 0 1
$EndNodes
$Elements
1
1 4 2 1 1 1 2 3 4
$EndElements
"""
cases = []

def put(name, text, want):
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(os.path.join(out, name + ".msh"), mode) as f:
        f.write(text)
    cases.append((name, want))

def sub(name, old, new, want, base=A41):
    assert old in base, old
    put(name, base.replace(old, new, 1), want)

put("ok41", A41, "OK")
put("ok22", A22, "OK")
# truncated at many points (every 9 characters)
for k, cut in enumerate(range(0, len(A41) - 14, 9)):
    put("trunc%03d" % k, A41[:cut], r"\.msh")
sub("node_count_more", "1 5 1 5", "1 6 1 6", r":25: expected more node blocks \(fewer nodes than declared\), got '\$EndNodes'")
sub("node_count_less", "1 5 1 5", "1 4 1 4", r":14: .*more than the 4 nodes")
sub("node_block_neg", "3 1 0 5", "3 1 0 -5", r":14: .*negative")
sub("node_block_huge", "3 1 0 5", "3 1 0 99999999999", r":14: the node blocks hold more than the 5 nodes declared")
sub("node_count_abc", "1 5 1 5", "1 abc 1 5", r":13: expected the number of nodes, got 'abc'")
sub("node_tag0", "\n1\n2\n3\n", "\n0\n2\n3\n", r":15: node tag 0")
sub("node_tag_neg", "\n1\n2\n3\n", "\n-1\n2\n3\n", r":15: node tag -1")
sub("node_tag_dup", "\n1\n2\n3\n", "\n2\n2\n3\n", r"node 2 is defined twice")
sub("elem_missing_node", "2 2 3 4 5", "2 2 3 4 9", r"refers to node 9")
sub("elem_node_huge", "2 2 3 4 5", "2 2 3 4 999999999999999", r"refers to node 999999999999999")
sub("elem_bad_type", "3 1 4 2", "3 1 999 2", r":28: unknown element type 999")
sub("elem_type_dim", "3 1 4 2", "3 1 2 2", r":28: element type 2 \(Triangle 3, dimension 2\) in a block of dimension 3")
sub("elem_polygon", "3 1 4 2", "3 1 34 2", r"without a fixed node count")
sub("elem_count_more", "1 2 1 2\n", "1 3 1 2\n", r"more element blocks")
sub("elem_count_huge", "1 2 1 2\n", "1 99999999999999 1 2\n", r":27: the number of elements 99999999999999 is more than the [0-9]+ bytes left")
sub("elem_blocks_huge", "1 2 1 2\n", "4000000000 2 1 2\n", r":27: the number of element blocks 4000000000 is more than")
sub("elem_garbage", "1 1 2 3 4", "1 1 2 x 4", r":29: expected an element's node tag, got 'x'")
sub("missing_end_nodes", "$EndNodes\n", "", r"expected \"\$EndNodes\", got '\$Elements'")
sub("missing_end_elements", "$EndElements\n", "", r"expected \"\$EndElements\", got end of file")
sub("dup_nodes", "$Elements", A41[A41.index("$Nodes"):A41.index("$Elements")] + "$Elements", r"a second \$Nodes section")
sub("dup_format", "$PhysicalNames", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames", r"a second \$MeshFormat")
sub("no_elements", A41[A41.index("$Elements"):], "", r"no \$Elements section")
sub("no_nodes", A41[A41.index("$Nodes"):A41.index("$Elements")], "", r"no \$Nodes section")
sub("version40", "4.1 0 8", "4 0 8", r":2: MSH version '4' is not supported")
sub("version30", "4.1 0 8", "3.0 0 8", r"MSH version '3.0' is not supported")
sub("data_size4", "4.1 0 8", "4.1 0 4", r":2: data size 4 is not supported")
sub("file_type", "4.1 0 8", "4.1 7 8", r"file type")
sub("name_no_quote", '3 1 "domain"', '3 1 "domain', r":6: the physical name has no closing quote")
sub("entities_huge", "0 0 0 1\n", "0 0 0 123456789012\n", r":9: .*bytes left")
sub("phys_huge", "1 0 0 0 1 1 1 1 1 0", "1 0 0 0 1 1 1 99999999 1 0", r"bytes left")
sub("partitioned", "$Nodes", "$PartitionedEntities\n1\n$EndPartitionedEntities\n$Nodes", r"partitioned meshes")
sub("unknown_no_end", "$Nodes", "$NodeData\n1\n2\n$Nodes", r"the \$NodeData section has no \$EndNodeData")
sub("stray_end", "$Nodes", "$EndFoo\n$Nodes", r"\$EndFoo without its section")
sub("not_a_section", "$Nodes", "Nodes\n$Nodes", r"expected a section")
put("empty", "", r"not a Gmsh mesh \(expected \"\$MeshFormat\" on line 1\)")
put("text24", "this is not a mesh file\n", r"not a Gmsh mesh")
put("geo_script", 'System "touch %s/pwned";\nPoint(1) = {0, 0, 0};\n' % out, r"not a Gmsh mesh")
put("meshformat_late", "\n$MeshFormat\n4.1 0 8\n$EndMeshFormat\n", r"not a Gmsh mesh")
sub("skip_ok", "$Nodes", "$Comments\nanything $Nodes here\n$EndComments\n$Nodes", "OK")
# MSH 2.2 text
sub("m22_ntags_huge", "1 4 2 1 1 1 2 3 4", "1 4 99999999999 1 1 1 2 3 4", r"bytes left", A22)
sub("m22_bad_type", "1 4 2 1 1 1 2 3 4", "1 0 2 1 1 1 2 3 4", r"unknown element type 0", A22)
sub("m22_missing_node", "1 4 2 1 1 1 2 3 4", "1 4 2 1 1 1 2 3 7", r"refers to node 7", A22)
sub("m22_node_count", "$Nodes\n4\n", "$Nodes\n5\n", r"expected a node tag, got '\$EndNodes'", A22)
sub("m22_elem_count", "$Elements\n1\n", "$Elements\n-1\n", r"negative", A22)

# binary
b41 = open(os.path.join(data, "cube41.bin.msh"), "rb").read()
b22 = open(os.path.join(data, "cube22.bin.msh"), "rb").read()
put("ok_b41", b41, "OK")
put("ok_b22", b22, "OK")
nodes41 = b41.index(b"$Nodes\n") + 7
elems41 = b41.index(b"$Elements\n") + 10
elems22 = b22.index(b"$Elements\n") + 10
put("b41_bigendian", b41.replace(b"4.1 1 8\n\x01\x00\x00\x00", b"4.1 1 8\n\x00\x00\x00\x01", 1), r"big-endian")
put("b41_nodes_ff", b41[:nodes41] + b"\xff" * 64 + b41[nodes41 + 64:], r"byte [0-9]+: ")
put("b41_elems_ff", b41[:elems41] + b"\xff" * 40 + b41[elems41 + 40:], r"byte [0-9]+: ")
put("b41_middle_garbage", b41[:elems41 + 32] + os.urandom(0) + b"\x7f" * 200 + b41[elems41 + 232:], r"\.msh")
put("b41_truncated", b41[:elems41 + 100], r"byte [0-9]+: the number of element blocks 7 is more than the 92 bytes left")
huge = struct.pack("<QQQQ", 1, 2**62, 1, 2**62)
put("b41_huge_elements", b41[:elems41] + huge + b41[elems41 + 32:], r"byte %d: the number of elements" % (elems41 + 8))
put("b41_tag_2p63", b41[:elems41] + struct.pack("<Q", 2**63) + b41[elems41 + 8:], r"out of range")
put("b22_truncated", b22[:elems22 + 50], r":17: the number of elements 198 is more than the 47 bytes left")
h22 = b22.index(b"\n", elems22) + 1  # the first binary element block header
put("b22_block_count", b22[:h22 + 4] + struct.pack("<i", 2**31 - 1) + b22[h22 + 8:], r"byte %d: element block count 2147483647 is not 1..198" % (h22 + 4))
put("b22_block_type", b22[:h22] + struct.pack("<i", 77) + b22[h22 + 4:], r"byte %d: unknown element type 77" % h22)
put("b22_ntags", b22[:h22 + 8] + struct.pack("<i", -3) + b22[h22 + 12:], r"number of element tags -3")

with open(os.path.join(out, "cases.txt"), "w") as f:
    for name, want in cases:
        f.write("%s\t%s\n" % (name, want))

# mutants: seeded, deterministic byte flips
rng = random.Random(20240601)
with open(os.path.join(out, "mutants.txt"), "w") as f:
    for k in range(int(sys.argv[3]) if len(sys.argv) > 3 else 300):
        base = bytearray(b41 if k % 2 == 0 else b22)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(base))
            base[i] = rng.choice([rng.randrange(256), 0, 0xff, ord("\n"), ord("$")])
        with open(os.path.join(out, "m%03d.msh" % k), "wb") as g:
            g.write(bytes(base))
        f.write("m%03d\n" % k)
