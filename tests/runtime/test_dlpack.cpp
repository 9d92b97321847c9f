// DLPack: zero-copy export/import, the deleter contract (called exactly once, when the
// last view dies, also on rejected tensors), dtype codes (bool = 6), strides in
// elements, byte_offset, and rejection of non-CPU devices and vector lanes.
#include <complex>

#include <doctest/doctest.h>

#include "theano/runtime/dlpack.h"

using namespace theano;

namespace {

// A producer-owned tensor whose deleter counts calls.
struct Producer {
  static inline int deleted = 0;
  std::vector<double> storage{0, 1, 2, 3, 4, 5, 6, 7};
  int64_t shape[2] = {2, 4};
  DLManagedTensor managed{};

  static DLManagedTensor* make(DLDeviceType device = kDLCPU, DLDataType type = {kDLFloat, 64, 1}) {
    auto* p = new Producer;
    DLTensor& t = p->managed.dl_tensor;
    t.data = p->storage.data();
    t.device = {device, 0};
    t.ndim = 2;
    t.dtype = type;
    t.shape = p->shape;
    t.strides = nullptr;
    t.byte_offset = 0;
    p->managed.manager_ctx = p;
    p->managed.deleter = [](DLManagedTensor* self) {
      ++deleted;
      delete static_cast<Producer*>(self->manager_ctx);
    };
    return &p->managed;
  }
};

}  // namespace

TEST_CASE("to_dlpack describes the array without copying") {
  NDArray a = NDArray::arange(0, 12, 1, DType::Float32).reshape({3, 4});
  DLManagedTensor* t = to_dlpack(a.transpose());
  CHECK(t->dl_tensor.data == a.data());
  CHECK(t->dl_tensor.device.device_type == kDLCPU);
  CHECK(t->dl_tensor.ndim == 2);
  CHECK(t->dl_tensor.shape[0] == 4);
  CHECK(t->dl_tensor.shape[1] == 3);
  CHECK(t->dl_tensor.strides[0] == 1);  // elements, not bytes
  CHECK(t->dl_tensor.strides[1] == 4);
  CHECK(t->dl_tensor.dtype.code == kDLFloat);
  CHECK(t->dl_tensor.dtype.bits == 32);
  CHECK(t->dl_tensor.dtype.lanes == 1);
  CHECK(t->dl_tensor.byte_offset == 0);
  // The export keeps the buffer alive after the last NDArray handle is gone.
  a = NDArray();
  CHECK(static_cast<float*>(t->dl_tensor.data)[5] == 5.0f);
  t->deleter(t);
}

TEST_CASE("round trip is zero-copy and keeps the buffer alive") {
  NDArray a = NDArray::arange(0, 6, 1, DType::Int64).reshape({2, 3});
  NDArray b = from_dlpack(to_dlpack(a));
  CHECK(b.data() == a.data());
  CHECK(b.shape() == a.shape());
  CHECK(b.strides() == a.strides());
  CHECK(b.dtype() == DType::Int64);
  CHECK(b.shares_buffer(a));
  b.at<int64_t>({1, 1}) = 42;
  CHECK(a.at<int64_t>({1, 1}) == 42);
  const void* data = a.data();
  a = NDArray();  // b's owner (the DLPack export) still holds the buffer
  CHECK(b.data() == data);
  CHECK(b.at<int64_t>({1, 2}) == 5);

  // Negative strides and 0-d arrays survive the trip.
  NDArray r = NDArray::arange(0, 5).slice(0, std::nullopt, std::nullopt, -1);
  NDArray rb = from_dlpack(to_dlpack(r));
  CHECK(rb.strides() == std::vector<int64_t>{-8});
  CHECK(array_equal(rb, r));
  NDArray s = from_dlpack(to_dlpack(NDArray::scalar(std::complex<float>(1, -1))));
  CHECK(s.ndim() == 0);
  CHECK(s.item<std::complex<float>>() == std::complex<float>(1, -1));
}

TEST_CASE("every dtype maps to a DLPack type and back") {
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto dt = static_cast<DType>(i);
    CAPTURE(dtype_name(dt));
    CHECK(from_dlpack_dtype(to_dlpack_dtype(dt)) == dt);
    NDArray a = NDArray::ones({2}, dt);
    NDArray b = from_dlpack(to_dlpack(a));
    CHECK(b.dtype() == dt);
    CHECK(array_equal(a, b));
  }
  CHECK(to_dlpack_dtype(DType::Bool).code == 6);
  CHECK(to_dlpack_dtype(DType::Bool).bits == 8);
  CHECK(to_dlpack_dtype(DType::Complex128).code == kDLComplex);
  CHECK(to_dlpack_dtype(DType::Complex128).bits == 128);
  CHECK(to_dlpack_dtype(DType::Float16).bits == 16);
  CHECK(from_dlpack_dtype({kDLUInt, 8, 1}) == DType::UInt8);  // not bool
  CHECK_THROWS_WITH_AS(from_dlpack_dtype({kDLBfloat, 16, 1}),
                       doctest::Contains("unsupported data type (code 4, bits 16)"), ValueError);
  CHECK_THROWS_WITH_AS(from_dlpack_dtype({kDLFloat, 32, 4}),
                       "DLPack: vector types are not supported (expected lanes == 1, got 4)", ValueError);
}

TEST_CASE("producer deleter runs exactly once, when the last view dies") {
  Producer::deleted = 0;
  {
    NDArray a = from_dlpack(Producer::make());
    CHECK(a.shape() == std::vector<int64_t>{2, 4});
    CHECK(a.is_c_contiguous());  // NULL strides mean compact C order
    CHECK(a.at<double>({1, 2}) == 6.0);
    NDArray v = a.slice(1, 1, 3).transpose();
    NDArray c = a.copy();
    a = NDArray();
    CHECK(Producer::deleted == 0);
    CHECK(v.at<double>({1, 1}) == 6.0);
    v = NDArray();
    CHECK(Producer::deleted == 1);
    CHECK(c.at<double>({0, 3}) == 3.0);  // a copy does not hold the producer
  }
  CHECK(Producer::deleted == 1);
}

TEST_CASE("byte_offset and explicit strides are honoured") {
  Producer::deleted = 0;
  DLManagedTensor* t = Producer::make();
  static int64_t strides[2] = {1, 2};  // read as a (2, 4) Fortran view of the storage
  t->dl_tensor.strides = strides;
  t->dl_tensor.shape[1] = 3;
  t->dl_tensor.byte_offset = sizeof(double);
  NDArray a = from_dlpack(t);
  CHECK(a.strides() == std::vector<int64_t>{8, 16});
  CHECK(a.at<double>({0, 0}) == 1.0);
  CHECK(a.at<double>({1, 2}) == 6.0);
  a = NDArray();
  CHECK(Producer::deleted == 1);
}

TEST_CASE("rejected tensors are still released exactly once") {
  Producer::deleted = 0;
  CHECK_THROWS_WITH_AS(from_dlpack(Producer::make(kDLROCM)),
                       "from_dlpack: unsupported device type 10; expected kDLCPU (1), kDLCUDA (2) or kDLCUDAHost (3)",
                       ValueError);
  CHECK(Producer::deleted == 1);
  // An extension-device tensor is read only from our own export (the emulated GPU).
  CHECK_THROWS_AS(from_dlpack(Producer::make(kDLExtDev)), ValueError);
  CHECK(Producer::deleted == 2);
  Producer::deleted = 1;
  CHECK_THROWS_AS(from_dlpack(Producer::make(kDLCPU, {kDLFloat, 64, 2})), ValueError);
  CHECK(Producer::deleted == 2);
  CHECK_THROWS_AS(from_dlpack(nullptr), ValueError);
}

TEST_CASE("device arrays: kDLCUDA imports wrap device memory that the host never reads, and export back as kDLCUDA") {
  Producer::deleted = 0;
  {
    NDArray g = from_dlpack(Producer::make(kDLCUDA));
    CHECK(g.device() == Device::cuda(0));
    CHECK_FALSE(g.on_host());
    CHECK_THROWS_AS((void)g.data(), ValueError);
    CHECK_THROWS_AS((void)g.at<double>({0, 0}), ValueError);
    CHECK_THROWS_AS(g.fill(0), ValueError);
    CHECK_THROWS_AS((void)g.copy(), ValueError);  // no GPU back end in this program: says so
    CHECK(g.str().find("device='cuda0'") != std::string::npos);
    NDArray v = g.transpose();
    CHECK(v.device() == Device::cuda(0));
    DLManagedTensor* back = to_dlpack(v);  // this process never opened cuda0: nothing to wait for
    CHECK(back->dl_tensor.device.device_type == kDLCUDA);
    CHECK(back->dl_tensor.device.device_id == 0);
    CHECK(back->dl_tensor.data == g.address());
    back->deleter(back);
    CHECK(Producer::deleted == 0);
  }
  CHECK(Producer::deleted == 1);
  // Pinned host memory is host memory.
  NDArray pinned = from_dlpack(Producer::make(kDLCUDAHost));
  CHECK(pinned.on_host());
  CHECK(pinned.at<double>({0, 1}) == 1.0);
}

TEST_CASE("device names: cpu, cuda<N>, emulated") {
  Device d;
  CHECK(Device::parse("cuda0", &d));
  CHECK(d == Device::cuda(0));
  CHECK(Device::parse("cuda12", &d));
  CHECK(d.str() == "cuda12");
  CHECK(Device::parse("emulated", &d));
  CHECK(d == Device::emulated());
  CHECK(Device::parse("cpu", &d));
  CHECK(d.is_cpu());
  for (const char* bad : {"cuda", "cuda01", "cuda1234", "gpu0", "cudax", ""}) CHECK_FALSE(Device::parse(bad, &d));
}

TEST_CASE("to_dlpack rejects strides that are not whole elements") {
  NDArray bytes = NDArray::zeros({16}, DType::UInt8);
  NDArray odd = NDArray::from_strided(bytes.owner(), bytes.data(), DType::Int16, {3}, {3});
  CHECK_THROWS_WITH_AS(to_dlpack(odd),
                       "to_dlpack: stride 3 bytes on axis 0 is not a multiple of the item size 2; DLPack strides "
                       "count elements",
                       ValueError);
  CHECK_THROWS_AS(to_dlpack(NDArray()), ValueError);
}

TEST_CASE("a stride whose byte count overflows 64 bits is refused, not wrapped") {
  // 2^61 float64 elements is 2^64 bytes: unchecked, it wrapped to a 0-byte stride.
  Producer::deleted = 0;
  DLManagedTensor* t = Producer::make();
  static int64_t strides[2] = {int64_t{1} << 61, 1};
  t->dl_tensor.strides = strides;
  CHECK_THROWS_WITH_AS(from_dlpack(t),
                       "from_dlpack: stride 2305843009213693952 elements on axis 0 of a float64 tensor is "
                       "2305843009213693952 * 8 bytes, which does not fit in 64 bits",
                       ValueError);
  CHECK(Producer::deleted == 1);
  static int64_t negative[2] = {-(int64_t{1} << 61) - 1, 1};
  t = Producer::make();
  t->dl_tensor.strides = negative;
  CHECK_THROWS_AS(from_dlpack(t), ValueError);
  CHECK(Producer::deleted == 2);
}
