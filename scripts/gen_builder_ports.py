#!/usr/bin/env python3
"""Generates the MLIR-free tables of the graph dialect's ops from GraphOps.td:

- lib/CAPI/BuilderPorts.inc, the C graph builder's table of every
  graph-dialect op: its ODS operand and result ports (name and single /
  optional / variadic, in ODS order), whether it carries operand / result
  segment sizes, its enum "mode" attribute, and its other attribute names;
- include/GraphDialect/Support/OpKinds.inc, one GRAPH_OP_KIND(Enum,
  "mnemonic") line per op, sorted by mnemonic (GRAPH_NODE_OP_KIND for the
  node ops, those a runtime spec may name): the OpKind enum and its name
  tables of Support/OpKind.h (the runtime's specs);
- include/GraphDialect/Support/Ports.inc, one GRAPH_PORT(name) line per
  distinct operand or result name of the node ops (plus the pointwise
  inputs' spec names in0..in2), sorted by name: the Port enum and its name
  tables of Support/Port.h (the ports of the runtime's specs);
- include/GraphDialect/Support/OpPorts.inc, each node op's operand and
  result ports in ODS order, GRAPH_OP_OPERAND(OpKind enumerator, port) and
  GRAPH_OP_RESULT(OpKind enumerator, port) lines, sorted by mnemonic: what
  a spec built from the op names its ports (lib/Conversion/GraphToCudnn);
- include/GraphDialect/Support/RaggedPorts.inc, one GRAPH_RAGGED_PORT(port,
  offsets port) line per port a node op pairs with a ragged_offset_<port>
  operand;
- include/GraphDialect/Support/ByValuePorts.inc, one
  GRAPH_BY_VALUE_PORT(OpKind enumerator, port) line per node-op operand
  whose type carries the Graph_ByValue mark (cuDNN reads it by value),
  sorted by mnemonic, in ODS order: Support/ByValuePorts.h, which the cuDNN
  engine and the runtime read.

    scripts/gen_builder_ports.py [--tblgen mlir-tblgen] [--check] [-o FILE]
                                 [--kinds-o FILE] [--ports-o FILE]
                                 [--op-ports-o FILE] [--by-value-o FILE]

The tables are read from `mlir-tblgen --print-records` of GraphOps.td;
--check compares with the checked-in files instead of writing them (a
ctest runs it)."""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Ops the builder does not expose through graphBuilderOp (graph.group and
# graph.yield are formed by graph-fuse, not built by users).
SKIP = {"graph", "output", "scalar", "group", "yield"}
# A pointwise op's variadic `inputs` travel in a runtime spec as one port per
# input (lib/Conversion/GraphToCudnn names them).
SPEC_ONLY_PORTS = ["in0", "in1", "in2"]
# Enum attribute storage type -> how its value prints (%s: the keyword).
ENUM_FORMAT = {
    "::mlir::graph::PointwiseModeAttr": "#graph<pointwise_mode %s>",
    "::mlir::graph::NormPhaseAttr": "#graph<phase %s>",
    "::mlir::graph::ReductionModeAttr": "#graph<reduction_mode %s>",
    "::mlir::graph::MoeModeAttr": "#graph.moe_mode<%s>",
}


def parse_records(text):
    records = {}
    for m in re.finditer(r"^def (\S+) \{\t// ([^\n]*)\n(.*?)^\}$", text, re.M | re.S):
        records[m.group(1)] = (m.group(2).split(), m.group(3))
    return records


def field(body, name):
    m = re.search(r"^  \S.*? " + re.escape(name) + r" = (.*);$", body, re.M)
    return m.group(1) if m else None


def dag_args(value):
    inner = value[value.index(" ") + 1 : -1] if " " in value else ""
    out = []
    for part in inner.split(", "):
        if part:
            typ, name = part.split(":$")
            out.append((typ, name))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tblgen", default="mlir-tblgen")
    ap.add_argument("--mlir-include", default=None)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("-o", default=os.path.join(ROOT, "lib/CAPI/BuilderPorts.inc"))
    ap.add_argument("--kinds-o", default=os.path.join(
        ROOT, "include/GraphDialect/Support/OpKinds.inc"))
    ap.add_argument("--ports-o", default=os.path.join(
        ROOT, "include/GraphDialect/Support/Ports.inc"))
    ap.add_argument("--op-ports-o", default=os.path.join(
        ROOT, "include/GraphDialect/Support/OpPorts.inc"))
    ap.add_argument("--by-value-o", default=os.path.join(
        ROOT, "include/GraphDialect/Support/ByValuePorts.inc"))
    ap.add_argument("--ragged-o", default=os.path.join(
        ROOT, "include/GraphDialect/Support/RaggedPorts.inc"))
    args = ap.parse_args()
    tblgen = args.tblgen
    inc = args.mlir_include or os.path.join(
        os.path.dirname(os.path.dirname(os.path.realpath(subprocess.check_output(
            ["sh", "-c", "command -v " + tblgen], text=True).strip()))), "include")
    text = subprocess.check_output(
        [tblgen, "--print-records", "-I", os.path.join(ROOT, "include"), "-I", inc,
         os.path.join(ROOT, "include/GraphDialect/GraphOps.td")], text=True)
    records = parse_records(text)

    def kind_of(typ):
        if typ == "AnyRankedTensor":
            return "single"
        classes = records.get(typ, ([], ""))[0]
        if "Optional" in classes:
            return "optional"
        if "Variadic" in classes:
            return "variadic"
        if "TypeConstraint" in classes:
            return "single"
        return None  # an attribute

    def by_value(typ):
        # The Graph_ByValue mark, on the type or on an Optional's/Variadic's
        # base type.
        classes, body = records.get(typ, ([], ""))
        if "Graph_ByValue" in classes:
            return True
        base = field(body, "baseType")
        return bool(base) and "Graph_ByValue" in records.get(base, ([], ""))[0]

    def enum_format(typ):
        classes, body = records.get(typ, ([], ""))
        storage = field(body, "storageType")
        if storage:
            storage = storage.strip('"').strip("[{ }]").strip()
        return ENUM_FORMAT.get(storage), "OptionalAttr" not in classes

    lines = [
        "// Generated by scripts/gen_builder_ports.py from GraphOps.td; do not edit.",
        "// {kind, operands, results, operand segments, result segments, mode",
        "//  attribute, its format, mode required, attribute names}",
        "",
    ]
    specs = []
    op_kinds = []
    by_value_ports = []  # (mnemonic, operand name), ODS order per op
    for name, (classes, body) in records.items():
        if "Op" not in classes or field(body, "opDialect") != "Graph_Dialect":
            continue
        mnemonic = field(body, "opName").strip('"')
        op_kinds.append((mnemonic, re.sub(r"^Graph_(.*)Op$", r"\1", name)))
        if mnemonic in SKIP:
            continue
        traits = field(body, "traits") or ""
        ins = dag_args(field(body, "arguments"))
        outs = dag_args(field(body, "results"))
        operands, attrs, mode = [], [], None
        for typ, arg in ins:
            k = kind_of(typ)
            if k:
                operands.append((arg, k))
                if by_value(typ):
                    by_value_ports.append((mnemonic, arg))
                continue
            fmt, required = enum_format(typ)
            if fmt and arg in ("mode", "phase"):
                mode = (arg, fmt, required)
            else:
                attrs.append(arg)
        results = [(arg, kind_of(typ)) for typ, arg in outs]
        specs.append((mnemonic, operands, results,
                      "AttrSizedOperandSegments" in traits,
                      "AttrSizedResultSegments" in traits, mode, attrs))
    specs.sort()
    kinds = {"single": "PortKind::Single", "optional": "PortKind::Optional",
             "variadic": "PortKind::Variadic"}
    for mnemonic, operands, results, oseg, rseg, mode, attrs in specs:
        ports = lambda ps: "{" + ", ".join(f'{{"{n}", {kinds[k]}}}' for n, k in ps) + "}"
        m = f'"{mode[0]}", "{mode[1]}", {str(mode[2]).lower()}' if mode else 'nullptr, nullptr, false'
        lines.append(f'{{"{mnemonic}", {ports(operands)},')
        lines.append(f'  {ports(results)},')
        lines.append(f'  {str(oseg).lower()}, {str(rseg).lower()}, {m},')
        lines.append("  {" + ", ".join(f'"{a}"' for a in attrs) + "}},")
    out = "\n".join(lines) + "\n"
    op_kinds.sort()
    kinds_out = "\n".join(
        ["// Generated by scripts/gen_builder_ports.py from GraphOps.td; do not edit.",
         "// GRAPH_OP_KIND(OpKind enumerator, mnemonic), one per graph-dialect op,",
         "// sorted by mnemonic; the node ops (all but the graph container, its",
         "// terminator, by-value scalars and the fused-group region op with its",
         "// terminator) as GRAPH_NODE_OP_KIND, which defaults to GRAPH_OP_KIND.",
         "",
         "#ifndef GRAPH_NODE_OP_KIND",
         "#define GRAPH_NODE_OP_KIND(Enum, mnemonic) GRAPH_OP_KIND(Enum, mnemonic)",
         "#endif",
         ""]
        + [f'{"GRAPH_OP_KIND" if mnemonic in SKIP else "GRAPH_NODE_OP_KIND"}'
           f'({enum}, "{mnemonic}")' for mnemonic, enum in op_kinds]
        + ["", "#undef GRAPH_NODE_OP_KIND"]) + "\n"
    port_names = sorted({n for spec in specs for n, _ in spec[1] + spec[2]}
                        | set(SPEC_ONLY_PORTS))
    ports_out = "\n".join(
        ["// Generated by scripts/gen_builder_ports.py from GraphOps.td; do not edit.",
         "// GRAPH_PORT(name), one per distinct operand or result name of the",
         "// graph dialect's node ops plus the pointwise inputs' spec names",
         "// (in0..in2), sorted by name (byte order).", ""]
        + [f"GRAPH_PORT({n})" for n in port_names]) + "\n"
    enum_of = dict(op_kinds)
    op_ports = ["// Generated by scripts/gen_builder_ports.py from GraphOps.td; do not edit.",
                "// Each graph-dialect node op's operand and result names in ODS order:",
                "// GRAPH_OP_OPERAND(OpKind enumerator, Port enumerator) and",
                "// GRAPH_OP_RESULT(OpKind enumerator, Port enumerator), sorted by",
                "// mnemonic.", ""]
    for mnemonic, operands, results, *_ in specs:
        op_ports += [f"GRAPH_OP_OPERAND({enum_of[mnemonic]}, {n})" for n, _ in operands]
        op_ports += [f"GRAPH_OP_RESULT({enum_of[mnemonic]}, {n})" for n, _ in results]
    op_ports_out = "\n".join(op_ports) + "\n"
    by_value_out = "\n".join(
        ["// Generated by scripts/gen_builder_ports.py from GraphOps.td; do not edit.",
         "// GRAPH_BY_VALUE_PORT(OpKind enumerator, Port enumerator): each node-op",
         "// operand whose type has the Graph_ByValue mark (cuDNN reads it by",
         "// value on the host), sorted by mnemonic, in ODS order per op.", ""]
        + [f"GRAPH_BY_VALUE_PORT({enum_of[m]}, {n})"
           for m, n in sorted(by_value_ports, key=lambda e: e[0])]) + "\n"
    # A ragged-capable port is one an op pairs with a `ragged_offset_<port>`
    # operand (its packed layout's offsets); that name must name a port of
    # the same op.
    ragged = set()
    for mnemonic, operands, results, *_ in specs:
        names = {n for n, _ in operands + results}
        for n, _ in operands:
            if n.startswith("ragged_offset_"):
                port = n[len("ragged_offset_"):]
                if port not in names:
                    sys.exit(f"graph.{mnemonic}: operand {n} names no port '{port}' of the op")
                ragged.add((port, n))
    ragged_out = "\n".join(
        ["// Generated by scripts/gen_builder_ports.py from GraphOps.td; do not edit.",
         "// GRAPH_RAGGED_PORT(Port enumerator, its offsets' Port enumerator): each",
         "// port some node op pairs with a ragged_offset_<port> operand (the",
         "// offsets of its packed layout), sorted by name (byte order).", ""]
        + [f"GRAPH_RAGGED_PORT({p}, {o})" for p, o in sorted(ragged)]) + "\n"
    outputs = [(args.o, out), (args.kinds_o, kinds_out), (args.ports_o, ports_out),
               (args.op_ports_o, op_ports_out), (args.by_value_o, by_value_out),
               (args.ragged_o, ragged_out)]
    if args.check:
        for path, text in outputs:
            with open(path) as f:
                if f.read() != text:
                    sys.exit(f"{path} is stale: rerun scripts/gen_builder_ports.py")
        return
    for path, text in outputs:
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
