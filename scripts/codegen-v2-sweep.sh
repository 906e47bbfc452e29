#!/usr/bin/env bash
# Byte-identity sweep of the codegen engine's direct kernel generator
# (codegen_v2): every test/**/*.mlir and examples/**/*.mlir with a
# graph.graph, each chunk (-split-input-file), through
#   gen-<plan>: graph-prepare, graph-fuse, graph-select-engines=engines=codegen,
#               graph-generate-kernels=plan=<plan>, graph-kernels-to-ptx
#               (the pass's gpu.modules, then their PTX)
#   kern-<plan>: gen-<plan> without graph-kernels-to-ptx (the gpu.modules
#               as MLIR: quicker, and it sees what PTX would not)
#   exe-<plan>: graph-prepare, graph-fuse, graph-select-engines=engines=codegen,
#               every codegen plan list cut to ["<plan>"], then
#               graph-lower-to-executable=kernels=prefer      (compilePlan)
# for every codegen_v2 plan of the engine's list ($PLANS overrides it;
# $KINDS="gen exe" by default; "kern" on request). Saves stdout (the PTX
# serializer's LLVMIRToISATimeInMs, a timing, blanked), stderr and exit
# status.
#
#   scripts/codegen-v2-sweep.sh run GRAPH_OPT OUTDIR
#   scripts/codegen-v2-sweep.sh compare OLD_OUTDIR NEW_OUTDIR
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
plans=${PLANS:-"codegen_v2_t128_i4 codegen_v2_t256_i2 codegen_v2_t256_i4
  codegen_v2_t512_i1 codegen_v2_t512_i2 codegen_v2_t1024_i1
  codegen_v2_t256_i2_p codegen_v2_t512_i2_p"}
kinds=${KINDS:-"gen exe"}
shopt -s globstar
files=()
for f in "$root"/test/**/*.mlir "$root"/examples/**/*.mlir; do
  grep -q 'graph\.graph' "$f" && files+=("${f#$root/}")
done
variants=()
for k in $kinds; do for p in $plans; do variants+=("$k-$p"); done; done

one() { # one BIN VARIANT FILE OUTPREFIX
  local bin=$1 variant=$2 file=$3 out=$4 kind=${2%%-*} plan=${2#*-}
  local front=(-split-input-file --graph-prepare --graph-fuse
               "--graph-select-engines=engines=codegen")
  case $kind in
  kern) timeout 300 "$bin" "$root/$file" "${front[@]}" \
         "--graph-generate-kernels=plan=$plan" ;;
  gen) timeout 300 "$bin" "$root/$file" "${front[@]}" \
         "--graph-generate-kernels=plan=$plan" --graph-kernels-to-ptx ;;
  exe) timeout 300 "$bin" "$root/$file" "${front[@]}" |
         sed -E "s/#graph\.engine<codegen, plans = \[[^]]*\]>/#graph.engine<codegen, plans = [\"$plan\"]>/g" |
         timeout 300 "$bin" -split-input-file \
           --graph-lower-to-executable=kernels=prefer ;;
  esac >"$out.raw" 2>"$out.err"
  echo $? >"$out.rc"
  sed -E 's/LLVMIRToISATimeInMs = [0-9]+ : i64/LLVMIRToISATimeInMs = _/g' \
    "$out.raw" >"$out.out" && rm "$out.raw"
}
export -f one
export root

key() { echo "$1.$2" | tr '/,' '__'; }

case ${1:-} in
run)
  bin=$(realpath "$2") dir=$3
  mkdir -p "$dir"
  for f in "${files[@]}"; do
    for v in "${variants[@]}"; do
      echo "$bin $v $f $dir/$(key "$f" "$v")"
    done
  done | xargs -P "${JOBS:-2}" -L 1 bash -c 'one "$@"' _
  ;;
compare)
  a=$2 b=$3
  same=0 differ=0 errsame=0 errdiffer=0 failed=0 kernels=0 funcs=0 missing=0
  for f in "${files[@]}"; do
    for v in "${variants[@]}"; do
      k=$(key "$f" "$v")
      # A file added since one side ran: not compared.
      if [ ! -e "$a/$k.rc" ] || [ ! -e "$b/$k.rc" ]; then
        missing=$((missing + 1)); continue
      fi
      if cmp -s "$a/$k.out" "$b/$k.out" && cmp -s "$a/$k.rc" "$b/$k.rc"; then
        same=$((same + 1))
      else
        differ=$((differ + 1)); echo "DIFFERENT: $f $v"
      fi
      if cmp -s "$a/$k.err" "$b/$k.err"; then errsame=$((errsame + 1))
      else errdiffer=$((errdiffer + 1)); echo "stderr differs: $f $v"; fi
      [ "$(cat "$a/$k.rc")" != 0 ] && failed=$((failed + 1))
      kernels=$((kernels + $(grep -o '\.entry ' "$a/$k.out" | wc -l)))
      funcs=$((funcs + $(grep -o 'gpu\.func @' "$a/$k.out" | wc -l)))
    done
  done
  echo "files ${#files[@]}, runs $((same + differ)): stdout+status identical $same," \
       "different $differ; stderr identical $errsame, different $errdiffer;" \
       "runs failing (both) $failed; PTX .entry kernels $kernels, gpu.func" \
       "kernels $funcs (old side); not run on one side $missing"
  ;;
*) sed -n '2,19p' "$0"; exit 2 ;;
esac
