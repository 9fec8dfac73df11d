"""Tiny GraphDef builder for tests (no TensorFlow): uses the protoc-generated Python module of
frontends/tf/tf_graph.proto (generated on first use into a temporary folder)."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_SRC = os.path.dirname(os.path.dirname(_HERE))
_pb = None


def pb():
    global _pb
    if _pb is None:
        out = tempfile.mkdtemp(prefix="tfgen_")
        atexit.register(shutil.rmtree, out, True)
        subprocess.check_call(["protoc", "--python_out=" + out, "-I" + os.path.join(_SRC, "frontends/tf"),
                               os.path.join(_SRC, "frontends/tf/tf_graph.proto")])
        sys.path.insert(0, out)
        import tf_graph_pb2
        _pb = tf_graph_pb2
    return _pb


DT = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3, np.dtype(np.uint8): 4,
      np.dtype(np.int16): 5, np.dtype(np.int8): 6, np.dtype(np.int64): 9, np.dtype(np.bool_): 10,
      np.dtype(np.float16): 19}


class Graph:
    def __init__(self):
        self.gd = pb().GraphDef()
        self.gd.versions.producer = 27

    def _node(self, op, name, inputs=()):
        n = self.gd.node.add()
        n.name = name
        n.op = op
        n.input.extend(inputs)
        return n

    def placeholder(self, name, shape, dtype=np.float32):
        n = self._node("Placeholder", name)
        n.attr["dtype"].type = DT[np.dtype(dtype)]
        if shape is None:
            n.attr["shape"].shape.unknown_rank = True
        else:
            n.attr["shape"].shape.SetInParent()  # a scalar's shape has no dims but is known
            for d in shape:
                n.attr["shape"].shape.dim.add().size = d
        return name

    def const(self, name, value, encoding="content", dtype=None, tf_type=None):
        """tf_type: a TF DataType number stored instead of the array's (quint8 12, qint8 11)."""
        a = np.asarray(value, dtype=dtype)
        if a.dtype == np.float64 and dtype is None:
            a = a.astype(np.float32)
        n = self._node("Const", name)
        n.attr["dtype"].type = tf_type or DT[a.dtype]
        t = n.attr["value"].tensor
        t.dtype = tf_type or DT[a.dtype]
        for d in a.shape:
            t.tensor_shape.dim.add().size = d
        flat = a.reshape(-1)
        if encoding == "splat":  # one value for all elements
            flat = flat[:1]
        if encoding == "content":
            t.tensor_content = a.tobytes()
        elif a.dtype == np.float32:
            t.float_val.extend(flat.tolist())
        elif a.dtype == np.float64:
            t.double_val.extend(flat.tolist())
        elif a.dtype == np.int64:
            t.int64_val.extend(flat.tolist())
        elif a.dtype == np.bool_:
            t.bool_val.extend(flat.tolist())
        else:
            t.int_val.extend(flat.tolist())
        return name

    def op(self, op, name, inputs, T=np.float32, **attrs):
        n = self._node(op, name, inputs)
        if isinstance(T, int):  # a raw TF DataType number (quantized types)
            n.attr["T"].type = T
        elif T is not None:
            n.attr["T"].type = DT[np.dtype(T)]
        for k, v in attrs.items():
            a = n.attr[k]
            if isinstance(v, bool):
                a.b = v
            elif isinstance(v, int):
                a.i = v
            elif isinstance(v, float):
                a.f = v
            elif isinstance(v, str):
                a.s = v.encode()
            elif isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
                a.type = DT[np.dtype(v)]
            elif isinstance(v, (list, tuple)):
                a.list.i.extend([int(x) for x in v])
            else:
                raise TypeError(k)
        return name

    def save(self, path, text=False):
        if text:
            from google.protobuf import text_format
            with open(path, "w") as f:
                f.write(text_format.MessageToString(self.gd))
        else:
            with open(path, "wb") as f:
                f.write(self.gd.SerializeToString())
