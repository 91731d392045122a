// A knowledge graph's text files read natively (wm/kg_text.h): one reader object per graph, fed a file at
// a time, its names interned in native memory and handed over as one block of bytes with their offsets.
#include <napi.h>

#include <memory>
#include <string>

#include "host_array.h"
#include "napi_args.h"
#include "wm/kg_text.h"
#include "wm/status.h"

namespace wmnapi {

namespace {

Napi::FunctionReference* kgTextCtor = nullptr;

bool entitiesNamed(Args& a, size_t i) {
  const std::string which = a.string(i, "which");
  if (which != "entities" && which != "relations") a.reject(i, "which", "must be 'entities' or 'relations'");
  return which == "entities";
}

class KgTextWrap : public Napi::ObjectWrap<KgTextWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "KgText",
                       {
                           InstanceMethod("begin", &KgTextWrap::Begin),
                           InstanceMethod("push", &KgTextWrap::Push),
                           InstanceMethod("finish", &KgTextWrap::Finish),
                           InstanceMethod("column", &KgTextWrap::Column),
                           InstanceMethod("names", &KgTextWrap::Names),
                       });
  }

  explicit KgTextWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<KgTextWrap>(info) {}

 private:
  // begin(name, kind: 'triples' | 'entities' | 'relations'): the next file; dictionaries fill and fix their names.
  Napi::Value Begin(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "KgText.begin");
      const std::string name = a.string(0, "name"), kind = a.string(1, "kind");
      if (kind != "triples" && kind != "entities" && kind != "relations")
        a.reject(1, "kind", "must be 'triples', 'entities' or 'relations'");
      text_.begin(name, kind == "triples"    ? wm::host::KgFile::kTriples
                        : kind == "entities" ? wm::host::KgFile::kEntityDictionary
                                             : wm::host::KgFile::kRelationDictionary);
      return info.Env().Undefined();
    });
  }

  // push(bytes: Uint8Array)
  Napi::Value Push(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "KgText.push");
      Napi::TypedArray t = a.typed(0, "bytes");
      if (t.TypedArrayType() != napi_uint8_array) a.reject(0, "bytes", "must be a Uint8Array (a Buffer)");
      text_.push(reinterpret_cast<const char*>(typedBytes(t)), t.ByteLength());
      return info.Env().Undefined();
    });
  }

  // finish() -> the rows of a triple file (0 for a dictionary)
  Napi::Value Finish(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      text_.finish();
      return Napi::Number::New(info.Env(), static_cast<double>(text_.rows()));
    });
  }

  // column(k) -> HostArray of int32: the triple file's heads (0), relations (1) or tails (2), taken once
  Napi::Value Column(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "KgText.column");
      const int64_t k = a.count(0, "column");
      return wrapHostArray(info.Env(), text_.takeColumn(static_cast<int>(k)), "int32", text_.rows());
    });
  }

  // names(which: 'entities' | 'relations') -> {bytes: Uint8Array (each name then '\n'), starts: Float64Array (count + 1)}
  Napi::Value Names(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "KgText.names");
      const wm::host::NameIndex& m = text_.index(entitiesNamed(a, 0));
      auto bytes = std::make_shared<const wm::host::PageArray>(m.copyBytes());
      auto starts = std::make_shared<const wm::host::PageArray>(m.copyStarts());
      const int64_t n = static_cast<int64_t>(bytes->bytes());
      Napi::Object o = Napi::Object::New(info.Env());
      o.Set("bytes", viewPages(info.Env(), std::move(bytes), "uint8", n));
      o.Set("starts", viewPages(info.Env(), std::move(starts), "float64", m.size() + 1));
      return o;
    });
  }

  wm::host::KgText text_;
};

// kgText() -> a reader of one knowledge graph's files
Napi::Value MakeKgText(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value { return kgTextCtor->New({}); });
}

}  // namespace

}  // namespace wmnapi

void InitKgText(Napi::Env env, Napi::Object exports) {
  using namespace wmnapi;
  Napi::Function t = KgTextWrap::Define(env);
  kgTextCtor = new Napi::FunctionReference(Napi::Persistent(t));
  exports.Set("kgText", Napi::Function::New(env, MakeKgText, "kgText"));
}
