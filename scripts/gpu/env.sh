# Sourced by the GPU scripts: cuDNN 9.19 from the PyTorch venv (it matches
# our headers) plus the NVRTC and cuBLAS its runtime-fusion engines load.
cudnn_lib="${GRAPH_CUDNN_LIB:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib}"
extra=""
for d in "$cudnn_lib/../../cuda_nvrtc/lib" "$cudnn_lib/../../cublas/lib"; do
  [[ -d "$d" ]] && extra="$extra:$(cd "$d" && pwd)"
done
export LD_LIBRARY_PATH="$cudnn_lib$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The carried binaries may come xz-compressed (scripts/gpu/build-carry.sh).
carry_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/carry"
for packed in "$carry_dir"/bin/*.xz "$carry_dir"/lib/*.xz; do
  [[ -f "$packed" && ! -e "${packed%.xz}" ]] && xz -dk "$packed"
done
