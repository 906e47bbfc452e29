"""Small .npy helper for the graph-run lit tests.

  npy_tool.py write FILE DTYPE SHAPE V0 V1 ...   (SHAPE like 2x3, or '' for ())
  npy_tool.py fortran FILE DTYPE SHAPE V0 ...    (same data, Fortran order)
  npy_tool.py show FILE                          (dtype, shape, values)
  npy_tool.py same A B                           (exit 1 unless bit-identical)
  npy_tool.py differ A B                         (exit 1 if bit-identical)
DTYPE is a numpy name (float32, uint16, ...); for bf16/fp8 write the raw
bits as uint16/uint8.
"""
import sys

import numpy as np


def shape_of(text):
    return tuple(int(d) for d in text.split("x")) if text else ()


def main(argv):
    cmd = argv[1]
    if cmd in ("write", "fortran"):
        path, dtype, shape = argv[2], argv[3], shape_of(argv[4])
        values = [float(v) if "." in v or "e" in v or "n" in v else int(v,0)
                  for v in argv[5:]]
        a = np.array(values, dtype=dtype).reshape(shape)
        if cmd == "fortran":
            a = np.asfortranarray(a)
        np.save(path, a)
    elif cmd == "show":
        a = np.load(argv[2])
        print(a.dtype.str, "x".join(str(d) for d in a.shape),
              " ".join(str(v) for v in a.reshape(-1).tolist()))
    elif cmd in ("same", "differ"):
        a, b = np.load(argv[2]), np.load(argv[3])
        same = a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        if same != (cmd == "same"):
            print(f"{argv[2]} and {argv[3]} are {'identical' if same else 'different'}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
