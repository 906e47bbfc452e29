#!/usr/bin/env bash
# Byte-identity sweep of the codegen engine's linalg route (codegen_v1)
# between two graph-opt binaries: every test/**/*.mlir with a graph.graph,
# each chunk (-split-input-file), through
#   lin-<e>: graph-prepare, graph-fuse, graph-select-engines=engines=<e>,
#            graph-lower-to-linalg                      (the pass)
#   ptx-<e>: the above, then graph-codegen-to-ptx        (its PTX)
#   exe-<e>: graph-prepare, graph-fuse, graph-select-engines=engines=<e>,
#            every codegen plan list cut to ["codegen_v1"], then
#            graph-lower-to-executable=kernels=prefer     (compileToPtx)
# for <e> in cudnn,codegen and codegen. Compares stdout (with the PTX
# serializer's LLVMIRToISATimeInMs property, a timing, blanked) and exit
# status; stderr is compared too and reported separately.
#
#   scripts/codegen-linalg-sweep.sh OLD_GRAPH_OPT NEW_GRAPH_OPT [WORKDIR]
set -u
old=$1 new=$2 work=${3:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
shopt -s globstar
files=()
for f in "$root"/test/**/*.mlir; do
  grep -q 'graph\.graph' "$f" && files+=("${f#$root/}")
done

run() { # run BIN VARIANT FILE OUTPREFIX
  local bin=$1 variant=$2 file=$3 out=$4 engines=${2#*-} kind=${2%%-*}
  local front=(-split-input-file --graph-prepare --graph-fuse
               "--graph-select-engines=engines=$engines")
  case $kind in
  lin) timeout 300 "$bin" "$root/$file" "${front[@]}" --graph-lower-to-linalg ;;
  ptx) timeout 300 "$bin" "$root/$file" "${front[@]}" --graph-lower-to-linalg \
         --graph-codegen-to-ptx ;;
  exe) timeout 300 "$bin" "$root/$file" "${front[@]}" |
         sed -E 's/#graph\.engine<codegen, plans = \[[^]]*\]>/#graph.engine<codegen, plans = ["codegen_v1"]>/g' |
         timeout 300 "$bin" -split-input-file \
           --graph-lower-to-executable=kernels=prefer ;;
  esac >"$out.raw" 2>"$out.err"
  echo $? >"$out.rc"
  sed -E 's/LLVMIRToISATimeInMs = [0-9]+ : i64/LLVMIRToISATimeInMs = _/g' \
    "$out.raw" >"$out.out" && rm "$out.raw"
}
export -f run
export root

jobs=()
for f in "${files[@]}"; do
  for v in lin-cudnn,codegen lin-codegen ptx-cudnn,codegen ptx-codegen \
           exe-cudnn,codegen exe-codegen; do
    key=$(echo "$f.$v" | tr '/,' '__')
    jobs+=("$old $v $f $work/old.$key" "$new $v $f $work/new.$key")
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P "${JOBS:-2}" -L 1 bash -c 'run "$@"' _

same=0 differ=0 errsame=0 errdiffer=0 failed=0 funcs=0 kernels=0
for f in "${files[@]}"; do
  for v in lin-cudnn,codegen lin-codegen ptx-cudnn,codegen ptx-codegen \
           exe-cudnn,codegen exe-codegen; do
    key=$(echo "$f.$v" | tr '/,' '__')
    a=$work/old.$key b=$work/new.$key
    if cmp -s "$a.out" "$b.out" && cmp -s "$a.rc" "$b.rc"; then
      same=$((same + 1))
    else
      differ=$((differ + 1)); echo "DIFFERENT: $f $v"
    fi
    if cmp -s "$a.err" "$b.err"; then errsame=$((errsame + 1))
    else errdiffer=$((errdiffer + 1)); echo "stderr differs: $f $v"; fi
    [ "$(cat "$a.rc")" != 0 ] && failed=$((failed + 1))
    case $v in
    lin-*) funcs=$((funcs + $(grep -c '^  func.func @' "$a.out"))) ;;
    ptx-*|exe-*) kernels=$((kernels + $(grep -o '\.entry ' "$a.out" | wc -l))) ;;
    esac
  done
done
echo "files ${#files[@]}, runs $((same + differ)): stdout+status identical $same, different $differ;" \
     "stderr identical $errsame, different $errdiffer; runs failing (both) $failed;" \
     "linalg funcs $funcs, PTX .entry kernels $kernels (old side)"
echo "outputs in $work"
