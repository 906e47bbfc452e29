//===- NpyTest.cpp - Tests of the .npy codec ------------------------------===//

#include "GraphDialect/Support/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

using namespace graph;

namespace {

/// Builds a .npy image with a hand-written header, as numpy would.
std::vector<uint8_t> makeNpy(const std::string &dict,
                             const std::vector<uint8_t> &data, int major = 1) {
  std::string header = dict;
  size_t lenBytes = major == 1 ? 2 : 4;
  size_t prefix = 8 + lenBytes;
  while ((prefix + header.size() + 1) % 64)
    header.push_back(' ');
  header.push_back('\n');
  std::vector<uint8_t> out = {
      0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < lenBytes; ++i)
    out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <typename T>
std::vector<uint8_t> bytesOf(std::initializer_list<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

template <typename T> T elementAt(const NpyArray &a, int64_t i) {
  T v;
  std::memcpy(&v, a.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

TEST(NpyTest, ReadsVersion1COrder) {
  auto file =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              bytesOf<float>({1, 2, 3, 4, 5, 6}));
  NpyArray a;
  ASSERT_EQ(parseNpy(file.data(), file.size(), a), "");
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.itemSize, 4u);
  EXPECT_EQ(a.shape, (Shape{2, 3}));
  EXPECT_EQ(elementAt<float>(a, 4), 5.0f);
  EXPECT_EQ(checkNpyDType(a, DType::F32), "");
}

TEST(NpyTest, ReadsVersion2AndScalarShapes) {
  auto file = makeNpy("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                      bytesOf<int64_t>({-7}), 2);
  NpyArray a;
  ASSERT_EQ(parseNpy(file.data(), file.size(), a), "");
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.numElements(), 1);
  EXPECT_EQ(elementAt<int64_t>(a, 0), -7);

  auto one =
      makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
              bytesOf<int32_t>({1, 2, 3}), 3);
  ASSERT_EQ(parseNpy(one.data(), one.size(), a), "");
  EXPECT_EQ(a.shape, (Shape{3}));
}

TEST(NpyTest, TransposesFortranOrder) {
  // Logical [[1 2 3] [4 5 6]] stored column-major: 1 4 2 5 3 6.
  auto file =
      makeNpy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
              bytesOf<double>({1, 4, 2, 5, 3, 6}));
  NpyArray a;
  ASSERT_EQ(parseNpy(file.data(), file.size(), a), "");
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(elementAt<double>(a, i), i + 1.0);

  // Rank 3: element (i, j, k) of a 2x3x2 Fortran array sits at i + 2j + 6k.
  std::vector<double> fdata(12);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        fdata[i + 2 * j + 6 * k] = 100 * i + 10 * j + k;
  std::vector<uint8_t> raw(12 * 8);
  std::memcpy(raw.data(), fdata.data(), raw.size());
  auto file3 = makeNpy(
      "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3, 2), }", raw);
  ASSERT_EQ(parseNpy(file3.data(), file3.size(), a), "");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(elementAt<double>(a, i * 6 + j * 2 + k),
                  100 * i + 10 * j + k);
}

TEST(NpyTest, SwapsBigEndian) {
  std::vector<uint8_t> raw = {0x00, 0x00, 0x01, 0x02, 0xFF, 0xFF, 0xFF, 0xFE};
  auto file =
      makeNpy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", raw);
  NpyArray a;
  ASSERT_EQ(parseNpy(file.data(), file.size(), a), "");
  EXPECT_EQ(a.descr, "<i4");
  EXPECT_EQ(elementAt<int32_t>(a, 0), 0x0102);
  EXPECT_EQ(elementAt<int32_t>(a, 1), -2);
}

TEST(NpyTest, RejectsMalformedFiles) {
  NpyArray a;
  std::vector<uint8_t> junk = {'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 0};
  EXPECT_NE(parseNpy(junk.data(), junk.size(), a).find("magic"),
            std::string::npos);
  auto shortData =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
              bytesOf<float>({1, 2}));
  EXPECT_NE(parseNpy(shortData.data(), shortData.size(), a).find("8 bytes"),
            std::string::npos);
  auto complexType =
      makeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
              bytesOf<float>({1, 2}));
  EXPECT_NE(parseNpy(complexType.data(), complexType.size(), a)
                .find("unsupported dtype '<c8'"),
            std::string::npos);
  auto structured = makeNpy(
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
      bytesOf<float>({1}));
  EXPECT_NE(
      parseNpy(structured.data(), structured.size(), a).find("structured"),
      std::string::npos);
  std::vector<uint8_t> v9 =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              bytesOf<float>({1}));
  v9[6] = 9;
  EXPECT_NE(parseNpy(v9.data(), v9.size(), a).find("version 9.0"),
            std::string::npos);
}

TEST(NpyTest, DescriptorsFollowTheConvention) {
  EXPECT_STREQ(npyDescr(DType::F32), "<f4");
  EXPECT_STREQ(npyDescr(DType::F16), "<f2");
  EXPECT_STREQ(npyDescr(DType::F64), "<f8");
  EXPECT_STREQ(npyDescr(DType::I8), "|i1");
  EXPECT_STREQ(npyDescr(DType::U8), "|u1");
  EXPECT_STREQ(npyDescr(DType::I32), "<i4");
  EXPECT_STREQ(npyDescr(DType::I64), "<i8");
  EXPECT_STREQ(npyDescr(DType::I1), "|b1");
  EXPECT_STREQ(npyDescr(DType::BF16), "<u2");
  EXPECT_STREQ(npyDescr(DType::F8E4M3FN), "|u1");
  EXPECT_STREQ(npyDescr(DType::F8E5M2), "|u1");
  EXPECT_STREQ(npyDescr(DType::F8E8M0FNU), "|u1");
  EXPECT_STREQ(npyDescr(DType::F4E2M1FN), "|u1");
}

TEST(NpyTest, ChecksDTypes) {
  auto file =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              bytesOf<float>({1}));
  NpyArray a;
  ASSERT_EQ(parseNpy(file.data(), file.size(), a), "");
  EXPECT_EQ(checkNpyDType(a, DType::BF16),
            "expected bf16 ('<u2': the raw bits as unsigned integers), given "
            "'<f4'");
  EXPECT_EQ(checkNpyDType(a, DType::F16), "expected f16 ('<f2'), given '<f4'");

  auto fp4 =
      makeNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }",
              {0x0F, 0x1F});
  ASSERT_EQ(parseNpy(fp4.data(), fp4.size(), a), "");
  EXPECT_EQ(checkNpyDType(a, DType::F8E4M3FN), "");
  EXPECT_NE(checkNpyDType(a, DType::F4E2M1FN).find("element 1 (0x1f)"),
            std::string::npos);

  auto b = makeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                   {0, 2});
  ASSERT_EQ(parseNpy(b.data(), b.size(), a), "");
  EXPECT_NE(checkNpyDType(a, DType::I1), "");
}

/// Every dtype survives serialize -> parse bit-exactly, with numpy's header.
TEST(NpyTest, RoundTripsEveryDType) {
  const DType all[] = {DType::F32,      DType::F16,    DType::BF16,
                       DType::F64,      DType::I8,     DType::U8,
                       DType::I32,      DType::I64,    DType::I1,
                       DType::F8E4M3FN, DType::F8E5M2, DType::F8E8M0FNU,
                       DType::F4E2M1FN};
  for (DType type : all) {
    SCOPED_TRACE(dtypeName(type));
    Shape shape = {2, 3, 5};
    size_t width = byteWidth(type);
    std::vector<uint8_t> data(30 * width);
    for (size_t i = 0; i < 30; ++i)
      encode(type, type == DType::I1 ? double(i % 2) : double(i % 7) * 0.5,
             &data[i * width]);
    std::vector<uint8_t> image = serializeNpy(type, shape, data.data());
    EXPECT_EQ(image.size() % 64, data.size() % 64);
    std::string header(image.begin() + 10, image.begin() + 10 + 118);
    EXPECT_NE(header.find(std::string("'descr': '") + npyDescr(type) + "'"),
              std::string::npos);
    EXPECT_NE(header.find("'shape': (2, 3, 5)"), std::string::npos);
    NpyArray a;
    ASSERT_EQ(parseNpy(image.data(), image.size(), a), "");
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(a.data, data);
    EXPECT_EQ(checkNpyDType(a, type), "");
  }
}

TEST(NpyTest, SerializesRankZeroAndOne) {
  float v = 2.5f;
  auto image = serializeNpy(DType::F32, {}, &v);
  std::string text(image.begin(), image.end());
  EXPECT_NE(text.find("'shape': ()"), std::string::npos);
  float w[3] = {1, 2, 3};
  image = serializeNpy(DType::F32, {3}, w);
  text.assign(image.begin(), image.end());
  EXPECT_NE(text.find("'shape': (3,)"), std::string::npos);
  NpyArray a;
  ASSERT_EQ(parseNpy(image.data(), image.size(), a), "");
  EXPECT_EQ(elementAt<float>(a, 2), 3.0f);
}

TEST(NpyTest, WritesAndReadsFiles) {
  std::string path = ::testing::TempDir() + "/npy_test_roundtrip.npy";
  uint16_t bits[4] = {0x3F80, 0x4000, 0xBF80, 0x0000}; // bf16 1, 2, -1, 0
  ASSERT_EQ(writeNpyFile(path, DType::BF16, {2, 2}, bits), "");
  NpyArray a;
  ASSERT_EQ(readNpyFile(path, a), "");
  EXPECT_EQ(a.descr, "<u2");
  EXPECT_EQ(elementAt<uint16_t>(a, 2), 0xBF80);
  std::remove(path.c_str());
  EXPECT_NE(readNpyFile(path, a).find("cannot open"), std::string::npos);
}

} // namespace
