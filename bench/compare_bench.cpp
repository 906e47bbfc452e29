// Times graph::compare() on one output the size of the Llama backward's
// largest (8192 x 5632 bf16, 46M elements), normwise, as the plan ranking
// checks each candidate against the first, and decode() and encode() of
// every element of it in one loop (what the CPU reference, buffer readers and
// random inputs pay). Built and run by bench/run_compare.sh.
#include "GraphDialect/Support/Compare.h"

#include <chrono>
#include <cstdio>

int main() {
  using namespace graph;
  const int64_t n = int64_t(8192) * 5632;
  std::vector<uint8_t> got(n * 2), want(n * 2);
  for (int64_t i = 0; i < n; ++i) {
    double value = (i % 1000) * 0.001;
    encode(DType::BF16, value, &want[2 * i]);
    encode(DType::BF16, value + (i % 3 ? 0.0 : 1e-3), &got[2 * i]);
  }
  for (int run = 0; run < 3; ++run) {
    auto start = std::chrono::steady_clock::now();
    Comparison c = compare(got, want, DType::BF16, n, 2e-2, 2e-2, true);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    std::printf("compare of %lld bf16 elements: %.3f s (ok %d, relative "
                "error %.3g)\n",
                static_cast<long long>(n), seconds, c.ok, c.relativeError);
  }
  for (int run = 0; run < 3; ++run) {
    auto start = std::chrono::steady_clock::now();
    double sum = 0;
    for (int64_t i = 0; i < n; ++i)
      sum += decode(DType::BF16, &got[2 * i]);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("decode() of %lld bf16 elements, one thread: %.3f s (sum "
                "%.6g)\n",
                static_cast<long long>(n), seconds, sum);
  }
  for (int run = 0; run < 3; ++run) {
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i)
      encode(DType::BF16, (i % 4093) * 0.000489 - 1.0, &got[2 * i]);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    std::printf("encode() of %lld bf16 elements, one thread: %.3f s\n",
                static_cast<long long>(n), seconds);
  }
}
