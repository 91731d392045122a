// HostArray objects (host_array.h), text parsed into native columns
// (wm/text_columns.h) and the digest of a typed array's bytes: what the
// dataset loader and its binary cache build on.
#include <napi.h>

#include <cstring>
#include <memory>
#include <string>

#include "host_array.h"
#include "napi_args.h"
#include "wm/status.h"
#include "wm/text_columns.h"

namespace wmnapi {

namespace {

using wm::host::PageArray;

Napi::FunctionReference* hostArrayCtor = nullptr;
Napi::FunctionReference* textColumnsCtor = nullptr;

size_t elementBytes(const std::string& dtype) {
  if (dtype == "uint8") return 1;
  if (dtype == "float16") return 2;
  if (dtype == "int32" || dtype == "float32") return 4;
  if (dtype == "float64" || dtype == "int64") return 8;
  wm::fail("HostArray: dtype must be uint8, float16, int32, int64, float32 or float64, got '" + dtype + "'");
}

// The largest external ArrayBuffer Node 20 makes: 4 GiB (buffer.constants.MAX_LENGTH). Past it
// napi_create_external_arraybuffer fails after taking the finalizer, and node-addon-api frees its
// data twice, so the size is checked here, before the call.
constexpr int64_t kMaxViewBytes = int64_t{1} << 32;

// What a view's finalizer releases, and what a new HostArray object receives.
struct Held {
  std::shared_ptr<const PageArray> pages;
};
struct Made {
  std::shared_ptr<PageArray> pages;
};

class HostArrayWrap : public Napi::ObjectWrap<HostArrayWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "HostArray",
                       {
                           InstanceAccessor("length", &HostArrayWrap::Length, nullptr),
                           InstanceAccessor("dtype", &HostArrayWrap::Dtype, nullptr),
                           InstanceMethod("view", &HostArrayWrap::View),
                           InstanceMethod("free", &HostArrayWrap::Free),
                       });
  }

  explicit HostArrayWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostArrayWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal())
      throw Napi::TypeError::New(info.Env(), "HostArray: made by textColumns or hostArrayMap, not by new");
    Made* m = info[0].As<Napi::External<Made>>().Data();
    pages_ = std::move(m->pages);
    delete m;
  }

  void set(const std::string& dtype, int64_t length) {
    dtype_ = dtype;
    length_ = length;
  }

  PageArray take(const std::string& dtype, const std::string& what, int64_t* length) {
    if (!pages_) wm::fail(what + ": the HostArray was freed or taken");
    if (dtype_ != dtype) wm::fail(what + ": a HostArray of " + dtype + " is needed, got " + dtype_);
    *length = length_;
    std::shared_ptr<PageArray> p = std::move(pages_);
    if (p.use_count() == 1) return std::move(*p);
    // Typed arrays still view these pages: they keep them, and the taker gets a copy.
    PageArray copy = PageArray::allocate(p->bytes(), what);
    if (p->bytes()) std::memcpy(copy.data(), p->data(), p->bytes());
    return copy;
  }

 private:
  Napi::Value Length(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(length_)); }
  Napi::Value Dtype(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), dtype_); }

  // view(first = 0, count = length - first) -> a typed array over those elements of the pages (no copy)
  Napi::Value View(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      if (!pages_) wm::fail("HostArray.view: the array was freed or taken");
      Args a(info, "HostArray.view");
      const int64_t first = a.present(0) ? a.count(0, "first") : 0;
      if (first > length_) a.reject(0, "first", "must be at most the length (" + std::to_string(length_) + ")");
      const int64_t count = a.present(1) ? a.count(1, "count") : length_ - first;
      if (count > length_ - first) a.reject(1, "count", "must be at most length - first (" + std::to_string(length_ - first) + ")");
      return viewPages(info.Env(), pages_, dtype_, count, first);
    });
  }

  // free(): drops this object's hold on the pages (typed arrays viewing them keep them).
  Napi::Value Free(const Napi::CallbackInfo& info) {
    pages_.reset();
    return info.Env().Undefined();
  }

  std::shared_ptr<PageArray> pages_;
  std::string dtype_;
  int64_t length_ = 0;
};

class TextColumnsWrap : public Napi::ObjectWrap<TextColumnsWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "TextColumns",
                       {
                           InstanceMethod("push", &TextColumnsWrap::Push),
                           InstanceMethod("finish", &TextColumnsWrap::Finish),
                           InstanceMethod("summary", &TextColumnsWrap::Summary),
                           InstanceMethod("ids", &TextColumnsWrap::Ids),
                           InstanceMethod("values", &TextColumnsWrap::Values),
                       });
  }

  explicit TextColumnsWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<TextColumnsWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) throw Napi::TypeError::New(info.Env(), "TextColumns: made by textColumns, not by new");
    parser_.reset(info[0].As<Napi::External<wm::host::TextColumns>>().Data());
  }

 private:
  wm::host::TextColumns& get() {
    if (!parser_) wm::fail("TextColumns: already done");
    return *parser_;
  }

  // push(bytes: Uint8Array)
  Napi::Value Push(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "TextColumns.push");
      Napi::TypedArray t = a.typed(0, "bytes");
      if (t.TypedArrayType() != napi_uint8_array) a.reject(0, "bytes", "must be a Uint8Array (a Buffer)");
      get().push(reinterpret_cast<const char*>(typedBytes(t)), t.ByteLength());
      return info.Env().Undefined();
    });
  }

  Napi::Value Finish(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      get().finish();
      return info.Env().Undefined();
    });
  }

  // summary() -> {rows, lines, width, maxId, maxIdLine, comments}
  Napi::Value Summary(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      const wm::host::TextColumns& p = get();
      Napi::Object o = Napi::Object::New(info.Env());
      o.Set("rows", static_cast<double>(p.rows()));
      o.Set("lines", static_cast<double>(p.lines()));
      o.Set("width", p.width());
      o.Set("maxId", static_cast<double>(p.maxId()));
      o.Set("maxIdLine", static_cast<double>(p.maxIdLine()));
      o.Set("extraRows", static_cast<double>(p.extraRows()));
      o.Set("extraLine", static_cast<double>(p.extraLine()));
      Napi::Array c = Napi::Array::New(info.Env(), p.comments().size());
      for (size_t i = 0; i < p.comments().size(); ++i) c.Set(static_cast<uint32_t>(i), p.comments()[i]);
      o.Set("comments", c);
      return o;
    });
  }

  // ids(column) -> HostArray of int32 (taken from the parser)
  Napi::Value Ids(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "TextColumns.ids");
      wm::host::TextColumns& p = get();
      return wrapHostArray(info.Env(), p.takeIds(static_cast<int>(a.count(0, "column"))), "int32", p.rows());
    });
  }

  // values() -> HostArray of float32, or float64 when the spec said doubles; rows * width (taken from the parser)
  Napi::Value Values(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      wm::host::TextColumns& p = get();
      return wrapHostArray(info.Env(), p.takeValues(), p.doubles() ? "float64" : "float32", p.rows() * p.width());
    });
  }

  std::unique_ptr<wm::host::TextColumns> parser_;
};

// textColumns(name, {ids, values, doubles, nanValues, blankRows, comments, extraFields, idBound}) -> TextColumns
Napi::Value MakeTextColumns(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "textColumns");
    const std::string name = a.string(0, "name");
    Napi::Object o = a.object(1, "spec");
    const auto num = [&](const char* k, double otherwise) {
      Napi::Value v = o.Get(k);
      if (v.IsUndefined()) return otherwise;
      if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue()) ||
          v.As<Napi::Number>().DoubleValue() != std::floor(v.As<Napi::Number>().DoubleValue()))
        a.reject(1, "spec", std::string(k) + " must be an integer");
      return v.As<Napi::Number>().DoubleValue();
    };
    const auto flag = [&](const char* k) { return o.Get(k).ToBoolean().Value(); };
    wm::host::TextColumnsSpec s;
    s.ids = static_cast<int>(num("ids", 0));
    s.values = static_cast<int>(num("values", 0));
    s.idBound = static_cast<int64_t>(num("idBound", -1));
    s.doubles = flag("doubles");
    s.nanValues = flag("nanValues");
    s.blankRows = flag("blankRows");
    s.comments = flag("comments");
    s.extraFields = flag("extraFields");
    auto p = std::make_unique<wm::host::TextColumns>(s, name);
    Napi::Value ext = Napi::External<wm::host::TextColumns>::New(info.Env(), p.get());
    Napi::Object out = textColumnsCtor->New({ext});
    p.release();
    return out;
  });
}

// hostArrayMap(path, offset, length, dtype) -> HostArray over that part of the file (copy-on-write)
Napi::Value HostArrayMap(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "hostArrayMap");
    const std::string path = a.string(0, "path"), dtype = a.string(3, "dtype");
    const int64_t offset = a.count(1, "offset"), length = a.count(2, "length");
    const size_t bytes = static_cast<size_t>(length) * elementBytes(dtype);
    if (offset % static_cast<int64_t>(elementBytes(dtype)) != 0) a.reject(1, "offset", "must be a multiple of the element size");
    return wrapHostArray(info.Env(), PageArray::mapPath(path, static_cast<size_t>(offset), bytes), dtype, length);
  });
}

// digest(bytes: any typed array, seed) -> 16 hex digits: wm::host::digest of its bytes
Napi::Value Digest(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "digest");
    Napi::TypedArray t = a.typed(0, "bytes");
    const uint64_t h = wm::host::digest(typedBytes(t), t.ByteLength(), static_cast<uint64_t>(a.count(1, "seed")));
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return Napi::String::New(info.Env(), hex);
  });
}

}  // namespace

Napi::Value viewPages(Napi::Env env, std::shared_ptr<const PageArray> pages, const std::string& dtype, int64_t length, int64_t first) {
  const size_t bytes = static_cast<size_t>(length) * elementBytes(dtype), skip = static_cast<size_t>(first) * elementBytes(dtype);
  if (static_cast<int64_t>(bytes) > kMaxViewBytes)
    wm::fail("a typed array viewing native memory spans at most 4 GiB; this one would span " + std::to_string(bytes) + " bytes (" +
             std::to_string(length) + " " + dtype + " elements): keep it native (a table or a NativeCsr) or view it in parts");
  WM_REQUIRE(first >= 0 && skip + bytes <= pages->bytes(), "viewPages: the pages are shorter than the view");
  void* data = static_cast<char*>(pages->data()) + skip;  // read before the pages move into the finalizer's hold
  Napi::ArrayBuffer buffer = length == 0 ? Napi::ArrayBuffer::New(env, 0)
                                         : Napi::ArrayBuffer::New(
                                               env, data, bytes, [](Napi::Env, void*, Held* h) { delete h; }, new Held{std::move(pages)});
  if (dtype == "int32") return Napi::Int32Array::New(env, static_cast<size_t>(length), buffer, 0);
  if (dtype == "float32") return Napi::Float32Array::New(env, static_cast<size_t>(length), buffer, 0);
  if (dtype == "int64") return Napi::BigInt64Array::New(env, static_cast<size_t>(length), buffer, 0);
  if (dtype == "float16") return Napi::Uint16Array::New(env, static_cast<size_t>(length), buffer, 0, napi_uint16_array);
  if (dtype == "uint8") return Napi::Uint8Array::New(env, static_cast<size_t>(length), buffer, 0, napi_uint8_array);
  return Napi::Float64Array::New(env, static_cast<size_t>(length), buffer, 0);
}

Napi::Value wrapHostArray(Napi::Env env, PageArray&& pages, const std::string& dtype, int64_t length) {
  WM_REQUIRE(static_cast<size_t>(length) * elementBytes(dtype) <= pages.bytes() || length == 0, "HostArray: the pages are too short");
  Napi::Value ext = Napi::External<Made>::New(env, new Made{std::make_shared<PageArray>(std::move(pages))});
  Napi::Object o = hostArrayCtor->New({ext});
  HostArrayWrap::Unwrap(o)->set(dtype, length);
  return o;
}

PageArray takeHostArray(const Napi::Value& v, const std::string& dtype, const std::string& what, int64_t* length) {
  if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(hostArrayCtor->Value())) wm::fail(what + " must be a HostArray");
  return HostArrayWrap::Unwrap(v.As<Napi::Object>())->take(dtype, what, length);
}

}  // namespace wmnapi

void InitHostArrays(Napi::Env env, Napi::Object exports) {
  using namespace wmnapi;
  Napi::Function h = HostArrayWrap::Define(env);
  hostArrayCtor = new Napi::FunctionReference(Napi::Persistent(h));
  Napi::Function t = TextColumnsWrap::Define(env);
  textColumnsCtor = new Napi::FunctionReference(Napi::Persistent(t));
  exports.Set("HostArray", h);
  exports.Set("textColumns", Napi::Function::New(env, MakeTextColumns, "textColumns"));
  exports.Set("hostArrayMap", Napi::Function::New(env, HostArrayMap, "hostArrayMap"));
  exports.Set("digest", Napi::Function::New(env, Digest, "digest"));
}
