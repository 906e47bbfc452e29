//===- Npy.cpp - Reading and writing numpy .npy files ---------------------===//
//
// See Npy.h for the formats and the raw-bits convention of the element types
// numpy cannot name.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/Npy.h"
#include "GraphDialect/Support/CheckedMath.h"
#include "GraphDialect/Support/Memory.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>

namespace graph {

const char *npyDescr(DType type) { return dtypeInfo(type).npyDescr; }

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// A cursor over the header dictionary (a Python literal).
struct HeaderParser {
  const std::string &text;
  size_t pos = 0;

  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseWord(std::string &out) {
    skipSpace();
    size_t begin = pos;
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '_'))
      ++pos;
    out = text.substr(begin, pos - begin);
    return !out.empty();
  }
};

std::string parseHeader(const std::string &header, std::string &descr,
                        bool &fortranOrder, Shape &shape) {
  HeaderParser p{header};
  bool haveDescr = false, haveOrder = false, haveShape = false;
  if (!p.consume('{'))
    return "the header is not a dictionary";
  while (!p.consume('}')) {
    std::string key;
    if (!p.parseString(key) || !p.consume(':'))
      return "malformed header dictionary";
    if (key == "descr") {
      if (!p.parseString(descr))
        return "the dtype descriptor is not a simple type (structured dtypes "
               "are not supported)";
      haveDescr = true;
    } else if (key == "fortran_order") {
      std::string word;
      if (!p.parseWord(word) || (word != "True" && word != "False"))
        return "fortran_order is neither True nor False";
      fortranOrder = word == "True";
      haveOrder = true;
    } else if (key == "shape") {
      if (!p.consume('('))
        return "the shape is not a tuple";
      shape.clear();
      while (!p.consume(')')) {
        std::string word;
        if (!p.parseWord(word))
          return "malformed shape tuple";
        // Python 2 wrote 'L' suffixes on longs.
        if (!word.empty() && (word.back() == 'L' || word.back() == 'l'))
          word.pop_back();
        if (word.empty() || word.size() > 18 ||
            !std::all_of(word.begin(), word.end(),
                         [](char c) { return std::isdigit(c); }))
          return "malformed shape tuple";
        shape.push_back(std::stoll(word));
        p.consume(',');
      }
      haveShape = true;
    } else {
      return "unknown header key '" + key + "'";
    }
    p.consume(',');
  }
  if (!haveDescr || !haveOrder || !haveShape)
    return "the header lacks 'descr', 'fortran_order' or 'shape'";
  return "";
}

/// Normalizes a descriptor to little-endian form; fills the item size and
/// whether the data must be byte-swapped.
std::string normalizeDescr(const std::string &descr, std::string &normalized,
                           size_t &itemSize, bool &swap) {
  if (descr.size() < 2)
    return "unsupported dtype '" + descr + "'";
  char order = '=';
  size_t i = 0;
  if (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' ||
      descr[0] == '=') {
    order = descr[0];
    i = 1;
  }
  if (descr.size() < i + 2)
    return "unsupported dtype '" + descr + "'";
  char kind = descr[i];
  std::string digits = descr.substr(i + 1);
  if (std::string("fiub").find(kind) == std::string::npos ||
      (digits != "1" && digits != "2" && digits != "4" && digits != "8"))
    return "unsupported dtype '" + descr +
           "' (only bool, integer and float arrays are read)";
  itemSize = static_cast<size_t>(digits[0] - '0');
  swap = order == '>' && itemSize > 1;
  if (kind == 'b' && itemSize != 1)
    return "unsupported dtype '" + descr + "'";
  normalized = std::string(itemSize == 1 ? "|" : "<") + kind + digits;
  return "";
}

bool multiplyChecked(int64_t a, int64_t b, int64_t &out) {
  if (a != 0 && b > INT64_MAX / a)
    return false;
  out = a * b;
  return true;
}

} // namespace

std::string parseNpy(const uint8_t *bytes, size_t size, NpyArray &out) {
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return "not a .npy file (bad magic string)";
  uint8_t major = bytes[kMagicSize];
  size_t headerLenSize;
  if (major == 1)
    headerLenSize = 2;
  else if (major == 2 || major == 3)
    headerLenSize = 4;
  else
    return "unsupported .npy format version " + std::to_string(major) + "." +
           std::to_string(bytes[kMagicSize + 1]);
  size_t prefix = kMagicSize + 2 + headerLenSize;
  if (size < prefix)
    return "truncated .npy header";
  size_t headerLen = 0;
  for (size_t i = 0; i < headerLenSize; ++i)
    headerLen |= static_cast<size_t>(bytes[kMagicSize + 2 + i]) << (8 * i);
  if (size - prefix < headerLen)
    return "truncated .npy header";
  std::string header(reinterpret_cast<const char *>(bytes) + prefix, headerLen);

  std::string descr;
  bool fortranOrder = false;
  Shape shape;
  if (std::string err = parseHeader(header, descr, fortranOrder, shape);
      !err.empty())
    return err;
  std::string normalized;
  size_t itemSize = 0;
  bool swap = false;
  if (std::string err = normalizeDescr(descr, normalized, itemSize, swap);
      !err.empty())
    return err;

  int64_t count = 1;
  for (int64_t d : shape)
    if (!multiplyChecked(count, d, count))
      return "the shape is too large";
  int64_t dataBytes;
  if (!multiplyChecked(count, static_cast<int64_t>(itemSize), dataBytes))
    return "the shape is too large";
  size_t available = size - prefix - headerLen;
  if (available != static_cast<size_t>(dataBytes))
    return "the data holds " + std::to_string(available) +
           " bytes, the header announces " + std::to_string(dataBytes);

  const uint8_t *data = bytes + prefix + headerLen;
  out.descr = normalized;
  out.itemSize = itemSize;
  out.shape = shape;
  out.data.assign(data, data + dataBytes);
  if (swap)
    for (int64_t e = 0; e < count; ++e)
      std::reverse(out.data.begin() + e * itemSize,
                   out.data.begin() + (e + 1) * itemSize);

  if (fortranOrder && shape.size() > 1 && count > 0) {
    // Element at C index (i0..in-1) sits at sum(ik * prod(d0..dk-1)).
    std::vector<uint8_t> cOrder(out.data.size());
    size_t rank = shape.size();
    Shape fStrides(rank);
    int64_t stride = 1;
    for (size_t k = 0; k < rank; ++k) {
      fStrides[k] = stride;
      stride *= shape[k];
    }
    Shape index(rank, 0);
    int64_t src = 0;
    for (int64_t e = 0; e < count; ++e) {
      std::memcpy(&cOrder[e * itemSize], &out.data[src * itemSize], itemSize);
      for (size_t k = rank; k-- > 0;) {
        ++index[k];
        src += fStrides[k];
        if (index[k] < shape[k])
          break;
        src -= fStrides[k] * shape[k];
        index[k] = 0;
      }
    }
    out.data = std::move(cOrder);
  }
  return "";
}

std::string readNpyFile(const std::string &path, NpyArray &out) {
  // C stdio, not an ifstream: reading a directory through a filebuf throws
  // std::ios_failure, which nothing here can catch (no exceptions).
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return "cannot open '" + path + "': " + std::strerror(errno);
  if (S_ISDIR(info.st_mode))
    return "cannot read '" + path + "': it is a directory, not a .npy file";
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return "cannot open '" + path + "': " + std::strerror(errno);
  // The file's bytes and the array parsed from them are both held.
  if (S_ISREG(info.st_mode) && info.st_size > 0)
    if (std::string err = checkHostAllocation(
            checkedMul(static_cast<int64_t>(info.st_size), 2),
            "reading '" + path + "' (" + std::to_string(info.st_size) +
                " bytes)");
        !err.empty()) {
      std::fclose(file);
      return err;
    }
  std::vector<uint8_t> contents;
  if (S_ISREG(info.st_mode))
    contents.reserve(static_cast<size_t>(info.st_size));
  uint8_t chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    contents.insert(contents.end(), chunk, chunk + got);
  bool failed = std::ferror(file);
  int readErrno = errno;
  std::fclose(file);
  if (failed)
    return "cannot read '" + path + "': " + std::strerror(readErrno);
  if (std::string err = parseNpy(contents.data(), contents.size(), out);
      !err.empty())
    return "'" + path + "': " + err;
  return "";
}

std::string checkNpyDType(const NpyArray &array, DType type) {
  std::string expected = npyDescr(type);
  if (array.descr != expected) {
    std::string msg =
        std::string("expected ") + dtypeName(type) + " ('" + expected + "'";
    if (type == DType::BF16 || type == DType::F8E4M3FN ||
        type == DType::F8E5M2 || type == DType::F8E8M0FNU ||
        type == DType::F4E2M1FN)
      msg += ": the raw bits as unsigned integers";
    return msg + "), given '" + array.descr + "'";
  }
  int64_t count = array.numElements();
  if (type == DType::F4E2M1FN) {
    for (int64_t i = 0; i < count; ++i)
      if (array.data[i] & 0xF0)
        return "element " + std::to_string(i) + " (0x" +
               [](unsigned v) {
                 char buf[8];
                 std::snprintf(buf, sizeof(buf), "%02x", v);
                 return std::string(buf);
               }(array.data[i]) +
               ") is not an f4E2M1FN code: the high nibble must be zero "
               "(one value per byte)";
  }
  if (type == DType::I1) {
    for (int64_t i = 0; i < count; ++i)
      if (array.data[i] > 1)
        return "element " + std::to_string(i) +
               " of a bool array is neither "
               "0 nor 1";
  }
  return "";
}

std::vector<uint8_t> serializeNpy(DType type, const Shape &shape,
                                  const void *data) {
  std::ostringstream dict;
  dict << "{'descr': '" << npyDescr(type) << "', 'fortran_order': False, "
       << "'shape': (";
  for (size_t i = 0; i < shape.size(); ++i)
    dict << shape[i] << (shape.size() == 1 || i + 1 < shape.size() ? "," : "")
         << (i + 1 < shape.size() ? " " : "");
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces and a newline so that the data starts 64-byte aligned.
  size_t prefix = kMagicSize + 2 + 2;
  bool v2 = false;
  size_t total = prefix + header.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  if (padded - prefix > 0xFFFF) {
    v2 = true;
    prefix = kMagicSize + 2 + 4;
    total = prefix + header.size() + 1;
    padded = (total + 63) / 64 * 64;
  }
  header.append(padded - total, ' ');
  header.push_back('\n');

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  size_t len = header.size();
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  size_t dataBytes = static_cast<size_t>(numElements(shape)) * byteWidth(type);
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  out.insert(out.end(), bytes, bytes + dataBytes);
  return out;
}

std::string writeNpyFile(const std::string &path, DType type,
                         const Shape &shape, const void *data) {
  std::vector<uint8_t> image = serializeNpy(type, shape, data);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return "cannot write '" + path + "': " + std::strerror(errno);
  out.write(reinterpret_cast<const char *>(image.data()),
            static_cast<std::streamsize>(image.size()));
  out.close();
  if (!out)
    return "cannot write '" + path + "'";
  return "";
}

} // namespace graph
