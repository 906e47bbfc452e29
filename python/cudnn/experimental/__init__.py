"""``cudnn.experimental``: the frontend's experimental namespace; its
``ops`` are PyTorch operators this package does not provide (see
cudnn.experimental.ops)."""

from . import ops  # noqa: F401
