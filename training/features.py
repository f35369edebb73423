"""The cell models' second output, `features`: the pooled features their head reads.

    python -m training.features MODEL.onnx [...]

adds it to ONNX cell models in place (the shipped ones were exported before it existed; `export`
and `quantize` add it to every model they write). The tensor already exists in the graph, the
input of the last node (the classifier head, a Gemm): it is renamed `features` and listed as a
graph output, so the weights, the logits and the int8 arithmetic are unchanged. The reader
compares a doubtful cell's features with those of the tiles the game already knows in the same
photo (`vision.exemplars`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import onnx

FEATURES = "features"


def expose_features(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with the head's input tensor named `features` and listed as an output (in place;
    a model that already has it is returned as it is)."""
    graph = model.graph
    if any(output.name == FEATURES for output in graph.output):
        return model
    head = graph.node[-1]
    if head.op_type not in {"Gemm", "MatMul"}:
        raise ValueError(f"the last node is a {head.op_type}, not the classifier head")
    tensor = head.input[0]
    for node in graph.node:
        node.input[:] = [FEATURES if name == tensor else name for name in node.input]
        node.output[:] = [FEATURES if name == tensor else name for name in node.output]
    for info in graph.value_info:
        if info.name == tensor:
            info.name = FEATURES
    width = _width(graph, head)
    graph.output.append(
        onnx.helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT, ["n", width])
    )
    return model


def _width(graph: onnx.GraphProto, head: onnx.NodeProto) -> int:
    """The number of features: the head's weight matrix's input side."""
    weights = {tensor.name: tensor for tensor in graph.initializer}[head.input[1]]
    transposed = any(a.name == "transB" and a.i for a in head.attribute)
    return int(weights.dims[1] if transposed else weights.dims[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=Path)
    for path in parser.parse_args().models:
        onnx.save(expose_features(onnx.load(str(path))), str(path))
        print(f"{path}: output {FEATURES!r}")


if __name__ == "__main__":
    main()
