/* vtensor C API: load an ONNX model, inspect its inputs and outputs, run it.
 *
 * Plain C (C99 and later; also valid C++). No C++ type and no exception crosses this header:
 * every failure is returned as a VtStatus object, and NULL means success.
 *
 * Conventions (they hold for every function below unless its comment says otherwise):
 *  - Errors. A function returning VtStatus* returns NULL on success, or a new status the
 *    caller frees with VtStatusRelease. Its message names the function, the argument and the
 *    cause (for a model: the file, the node or tensor, and the field). On error, out-parameters
 *    are set to NULL / 0 where the function documents it and are otherwise left unchanged.
 *    Passing NULL for a required pointer is an error (VT_INVALID_ARGUMENT), never a crash.
 *    Allocation failure is VT_OUT_OF_MEMORY.
 *  - Ownership. Objects made by a ...Create function (or returned by VtSessionRun) are owned by
 *    the caller and freed by the matching ...Release function, which accepts NULL. Strings and
 *    arrays returned through `const` pointers are owned by the object they came from and stay
 *    valid until that object is released.
 *  - Threads. VtSessionRun may be called on one session from any number of threads at once.
 *    Every other function on one object must not race with its release. A session's
 *    `threads` option sets the intra-op threads of each call: N concurrent callers use up to
 *    N x threads threads, so keep N x threads <= cores (threads = 1 for a service that runs
 *    many requests at once).
 *  - Shapes are arrays of int64_t dims, outermost first; element counts and byte sizes are
 *    size_t, bytes = product(dims) x VtDTypeSize(dtype); data is dense, row-major.
 *
 * Example (examples/c/run_model.c is the complete program):
 *
 *   VtSession* s = NULL;
 *   VtStatus* st = VtSessionCreate("model.onnx", NULL, &s);
 *   int64_t dims[2] = {1, 4};  float x[4] = {1, 2, 3, 4};
 *   VtValue* in = NULL;  VtValueCreateBorrowed(VT_FLOAT32, dims, 2, x, sizeof x, &in);
 *   const char* name = NULL;  VtSessionInputName(s, 0, &name);
 *   VtValue* out = NULL;  st = VtSessionRun(s, &name, &in, 1, NULL, &out, 1);
 */
#ifndef VTENSOR_VTENSOR_C_H_
#define VTENSOR_VTENSOR_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define VT_API __attribute__((visibility("default")))
#else
#define VT_API
#endif

/* In C++ the API's enums take every int (a fixed underlying type), as they do in C: a value a
 * caller passes outside the listed ones is then an error the library reports, not undefined
 * behaviour when the library reads it. */
#ifdef __cplusplus
#define VT_ENUM_INT : int
#else
#define VT_ENUM_INT
#endif

/* ---- Status --------------------------------------------------------------------------- */

typedef enum VtStatusCode VT_ENUM_INT {
  VT_OK = 0,
  VT_INVALID_ARGUMENT = 1,  /* bad argument or malformed model / value */
  VT_NOT_FOUND = 2,         /* missing file */
  VT_UNIMPLEMENTED = 3,     /* operator, element type or feature not supported */
  VT_OUT_OF_RANGE = 4,      /* index or size outside bounds */
  VT_IO_ERROR = 5,          /* operating-system read / map failure */
  VT_FAILED_PRECONDITION = 6, /* the object cannot do this (e.g. a prepare-only session) */
  VT_INTERNAL = 7,          /* a bug in vtensor */
  VT_OUT_OF_MEMORY = 8      /* an allocation failed */
} VtStatusCode;

typedef struct VtStatus VtStatus;

/* The status's code; VT_OK for NULL (success). */
VT_API VtStatusCode VtStatusGetCode(const VtStatus* status);
/* The status's message (UTF-8, NUL-terminated, owned by the status); "" for NULL. */
VT_API const char* VtStatusGetMessage(const VtStatus* status);
/* Frees a status; NULL is allowed. */
VT_API void VtStatusRelease(VtStatus* status);
/* Name of a code: "OK", "INVALID_ARGUMENT", ... ("UNKNOWN" for other values). Static string. */
VT_API const char* VtStatusCodeName(VtStatusCode code);

/* The library version, "MAJOR.MINOR.PATCH" (static string). */
VT_API const char* VtVersion(void);

/* ---- Element types -------------------------------------------------------------------- */

/* Values are ONNX TensorProto.DataType numbers. */
typedef enum VtDType VT_ENUM_INT {
  VT_UNDEFINED = 0, /* unknown (an undeclared input type), or not a tensor */
  VT_FLOAT32 = 1,
  VT_UINT8 = 2,
  VT_INT8 = 3,
  VT_UINT16 = 4,
  VT_INT16 = 5,
  VT_INT32 = 6,
  VT_INT64 = 7,
  VT_STRING = 8, /* output only: read with VtValueGetString */
  VT_BOOL = 9,   /* one byte per element, 0 or 1 */
  VT_FLOAT16 = 10,
  VT_FLOAT64 = 11,
  VT_UINT32 = 12,
  VT_UINT64 = 13,
  VT_COMPLEX64 = 14,
  VT_COMPLEX128 = 15,
  VT_BFLOAT16 = 16,
  /* One byte per element in a VtValue's data (docs/dtypes.md): the code of a float8 or
   * float4e2m1 value; int4 / uint4 values as int8 / uint8 (a value outside -8..7 / 0..15 is
   * VT_INVALID_ARGUMENT when a value is created). */
  VT_FLOAT8E4M3FN = 17,
  VT_FLOAT8E4M3FNUZ = 18,
  VT_FLOAT8E5M2 = 19,
  VT_FLOAT8E5M2FNUZ = 20,
  VT_UINT4 = 21,
  VT_INT4 = 22,
  VT_FLOAT4E2M1 = 23
} VtDType;

/* Bytes per element of `dtype`; 0 for VT_UNDEFINED, VT_STRING and unknown values. */
VT_API size_t VtDTypeSize(VtDType dtype);
/* Lower-case name ("float32", "int64", ...; "undefined" for unknown values). Static string. */
VT_API const char* VtDTypeName(VtDType dtype);

/* ---- Session options ------------------------------------------------------------------ */

typedef enum VtWeightProfile VT_ENUM_INT {
  VT_PROFILE_EXACT = 0,  /* lossless packed weights (default) */
  VT_PROFILE_COMPACT = 1 /* also requantized forms (int4 MatMul, int8 Gemm weights) */
} VtWeightProfile;

typedef enum VtVerifyPolicy VT_ENUM_INT {
  VT_VERIFY_ALWAYS = 0, /* hash every compiled-tensor payload at every load */
  VT_VERIFY_MEMO = 1,   /* hash once per file identity, then trust a memo (default) */
  VT_VERIFY_NEVER = 2   /* trust payloads unhashed */
} VtVerifyPolicy;

typedef struct VtSessionOptions VtSessionOptions;

/* Default options: threads 1, exact profile, verify memo, compiled-tensor cache on.
 * `*out` is set to the new options (NULL on error). */
VT_API VtStatus* VtSessionOptionsCreate(VtSessionOptions** out);
VT_API void VtSessionOptionsRelease(VtSessionOptions* options);
/* Intra-op (OpenMP) threads of each run, >= 1. Errors: VT_INVALID_ARGUMENT for < 1. */
VT_API VtStatus* VtSessionOptionsSetThreads(VtSessionOptions* options, int threads);
/* Which packed weight forms are allowed. Errors: VT_INVALID_ARGUMENT for another value. */
VT_API VtStatus* VtSessionOptionsSetProfile(VtSessionOptions* options, VtWeightProfile profile);
/* How compiled-tensor payloads are checked at load. Errors: VT_INVALID_ARGUMENT for another
 * value. */
VT_API VtStatus* VtSessionOptionsSetVerify(VtSessionOptions* options, VtVerifyPolicy verify);
/* Use (non-zero, default) or ignore (0) the model's compiled tensors; when ignored every
 * entry is reported as a MISS "not-selected". */
VT_API VtStatus* VtSessionOptionsSetCache(VtSessionOptions* options, int enabled);
/* Write (non-zero, default) or not (0) one warning line to standard error when the model's
 * compiled tensors left weights to be packed at load (payload file missing or damaged, entries
 * for another profile or CPU, stale entries). Either way VtSessionCacheEntry reports every
 * entry. */
VT_API VtStatus* VtSessionOptionsSetCacheWarning(VtSessionOptions* options, int enabled);

/* ---- Session -------------------------------------------------------------------------- */

typedef struct VtSession VtSession;

/* Loads the ONNX model at `path` (UTF-8) and prepares it; `options` NULL = defaults (the
 * options are copied: they may be released afterwards). `*out` is set to the new session (NULL
 * on error). Errors: VT_NOT_FOUND / VT_IO_ERROR for the file; VT_INVALID_ARGUMENT for a
 * malformed model; VT_UNIMPLEMENTED naming every unsupported operator. */
VT_API VtStatus* VtSessionCreate(const char* path, const VtSessionOptions* options,
                                 VtSession** out);
/* As VtSessionCreate, from the `size` bytes of a model file at `data` (copied while loading;
 * free them once this returns). External data is relative to `base_dir` (UTF-8), or to the
 * current directory when `base_dir` is NULL or "". */
VT_API VtStatus* VtSessionCreateFromBytes(const void* data, size_t size, const char* base_dir,
                                          const VtSessionOptions* options, VtSession** out);
/* Frees a session; NULL is allowed. Call it once every VtSessionRun on the session has
 * returned; a run still in flight keeps the session's state alive until it returns. Any later
 * call with the released handle fails with VT_INVALID_ARGUMENT "session ... was released". */
VT_API void VtSessionRelease(VtSession* session);

/* Number of inputs the caller feeds (initializer-backed inputs are not counted) and of
 * outputs. */
VT_API VtStatus* VtSessionInputCount(const VtSession* session, size_t* count);
VT_API VtStatus* VtSessionOutputCount(const VtSession* session, size_t* count);
/* Name of input / output `index` (0-based, in graph order). Errors: VT_OUT_OF_RANGE. */
VT_API VtStatus* VtSessionInputName(const VtSession* session, size_t index, const char** name);
VT_API VtStatus* VtSessionOutputName(const VtSession* session, size_t index, const char** name);
/* Declared element type and rank of input / output `index`. `*dtype` is VT_UNDEFINED when the
 * model does not declare it or the value is not a tensor; `*rank` is -1 when the shape is not
 * declared. Errors: VT_OUT_OF_RANGE. */
VT_API VtStatus* VtSessionInputType(const VtSession* session, size_t index, VtDType* dtype,
                                    int64_t* rank);
VT_API VtStatus* VtSessionOutputType(const VtSession* session, size_t index, VtDType* dtype,
                                     int64_t* rank);
/* Declared dim `axis` of input / output `index`: `*size` is its extent, or -1 when it is
 * symbolic or unknown; `*symbol` is the symbolic dim's name ("batch"), "" when the dim is
 * fixed or unnamed. `symbol` may be NULL when not wanted. Errors: VT_OUT_OF_RANGE for an index
 * or axis outside the declared rank (including an undeclared shape). */
VT_API VtStatus* VtSessionInputDim(const VtSession* session, size_t index, int64_t axis,
                                   int64_t* size, const char** symbol);
VT_API VtStatus* VtSessionOutputDim(const VtSession* session, size_t index, int64_t axis,
                                    int64_t* size, const char** symbol);

/* ---- Values --------------------------------------------------------------------------- */

typedef struct VtValue VtValue;

/* A tensor over caller memory, without a copy: `data` holds `bytes` = product(dims) x
 * VtDTypeSize(dtype) bytes. The caller keeps the bytes valid and unchanged while a run that
 * reads the value is in flight; the value itself may outlive them if it is not run again.
 * `dims` (rank entries, each >= 0; may be NULL when rank is 0) is copied. `*out` is set to the
 * new value (NULL on error). Errors: VT_INVALID_ARGUMENT for VT_STRING or an unknown dtype, a
 * negative dim, a `bytes` that does not match, NULL data with bytes > 0. */
VT_API VtStatus* VtValueCreateBorrowed(VtDType dtype, const int64_t* dims, size_t rank,
                                       const void* data, size_t bytes, VtValue** out);
/* As VtValueCreateBorrowed, but the value owns a copy of the bytes. */
VT_API VtStatus* VtValueCreateCopy(VtDType dtype, const int64_t* dims, size_t rank,
                                   const void* data, size_t bytes, VtValue** out);
/* Reads a tensor file in the ONNX backend-test layout (input_N.pb / output_N.pb: one serialized
 * TensorProto, path in UTF-8). `*out` is set to a new value owning its bytes (NULL on error).
 * Errors: VT_NOT_FOUND / VT_IO_ERROR for the file, VT_INVALID_ARGUMENT naming the file and
 * field for a malformed tensor, VT_UNIMPLEMENTED for an element type vtensor lacks. */
VT_API VtStatus* VtValueReadFile(const char* path, VtValue** out);
/* Frees a value (an input made above or an output of VtSessionRun); NULL is allowed. */
VT_API void VtValueRelease(VtValue* value);

/* Element type, or VT_UNDEFINED for a value that is not a tensor (a sequence or an empty
 * optional output). */
VT_API VtStatus* VtValueGetDType(const VtValue* value, VtDType* dtype);
/* The tensor's shape: `*dims` points at `*rank` dims owned by the value. Errors:
 * VT_INVALID_ARGUMENT when the value is not a tensor. */
VT_API VtStatus* VtValueGetShape(const VtValue* value, const int64_t** dims, size_t* rank);
/* The tensor's bytes, to read in place: `*data` (dense, row-major; not to be dereferenced
 * when `*bytes` is 0) and `*bytes`, valid until the value is released. Errors: VT_INVALID_ARGUMENT when the value is not
 * a tensor or holds strings (use VtValueGetString). */
VT_API VtStatus* VtValueGetData(const VtValue* value, const void** data, size_t* bytes);
/* Element `index` (flat, row-major) of a VT_STRING tensor: `*str` (NUL-terminated, owned by the
 * value) and its length in bytes `*length` (the string may hold NUL bytes); `length` may be
 * NULL. Errors: VT_INVALID_ARGUMENT for another dtype, VT_OUT_OF_RANGE for the index. */
VT_API VtStatus* VtValueGetString(const VtValue* value, size_t index, const char** str,
                                  size_t* length);

/* ---- Run ------------------------------------------------------------------------------ */

/* Runs the model once. Inputs by name: `input_names[i]` is fed `inputs[i]`, i < num_inputs,
 * and every model input must be given exactly once (VtSessionInputName lists them). Outputs
 * by name: `outputs[i]` receives the output `output_names[i]`, i < num_outputs; with
 * `output_names` NULL, num_outputs must equal VtSessionOutputCount and outputs come in model
 * order. Each `outputs[i]` is set to a new value the caller releases (all NULL on error).
 * Outputs are dense and read in place (VtValueGetData); they never share memory with a
 * borrowed input, so the caller's input buffers may be freed once this returns.
 * Safe to call from many threads at once on one session.
 * Errors: VT_INVALID_ARGUMENT naming a NULL pointer, a released session, an unknown, missing or
 * repeated input name, an input whose dtype or shape contradicts the model's declaration
 * (which dim), an unknown output name, a wrong num_outputs; any error of a kernel (naming the
 * node, operator and opset). */
VT_API VtStatus* VtSessionRun(VtSession* session, const char* const* input_names,
                              const VtValue* const* inputs, size_t num_inputs,
                              const char* const* output_names, VtValue** outputs,
                              size_t num_outputs);

/* ---- Compiled-tensor cache report ------------------------------------------------------ */

/* Number of compiled-tensor entries in the model (0 without any). */
VT_API VtStatus* VtSessionCacheEntryCount(const VtSession* session, size_t* count);
/* Entry `index` in file order: the initializer it replaces (`*source_name`), whether the
 * session used it (`*hit` 1) or not (0), and for a miss the reason code ("not-selected",
 * "digest-mismatch", "incompatible-device", ...; "" for a hit). Strings are owned by the
 * session or static. Any of the three out-pointers may be NULL when not wanted. Errors:
 * VT_OUT_OF_RANGE. */
VT_API VtStatus* VtSessionCacheEntry(const VtSession* session, size_t index,
                                     const char** source_name, int* hit, const char** reason);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* VTENSOR_VTENSOR_C_H_ */
