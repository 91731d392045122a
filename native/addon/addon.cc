// The addon's module set-up: each domain's bindings, then every op of the
// core's table (op_bindings.cc). Bindings live in *_bindings.cc by domain.
#include <napi.h>

void InitRuntime(Napi::Env env, Napi::Object exports);      // runtime_bindings.cc
void InitOps(Napi::Env env, Napi::Object exports);          // op_bindings.cc
void InitComm(Napi::Env env, Napi::Object exports);         // comm_bindings.cc
void InitEmbedding(Napi::Env env, Napi::Object exports);    // embedding_bindings.cc
void InitShare(Napi::Env env, Napi::Object exports);        // share_bindings.cc
void InitGraph(Napi::Env env, Napi::Object exports);        // graph_bindings.cc
void InitNativeGraph(Napi::Env env, Napi::Object exports);  // native_graph_bindings.cc
void InitHostArrays(Napi::Env env, Napi::Object exports);   // host_array_bindings.cc
void InitKgText(Napi::Env env, Napi::Object exports);       // kg_text_bindings.cc
void InitOptimizers(Napi::Env env, Napi::Object exports);   // optimizer_bindings.cc

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  InitRuntime(env, exports);
  InitOps(env, exports);
  InitComm(env, exports);
  InitEmbedding(env, exports);
  InitShare(env, exports);
  InitGraph(env, exports);
  InitNativeGraph(env, exports);
  InitHostArrays(env, exports);
  InitKgText(env, exports);
  InitOptimizers(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(wholememory, Init)
