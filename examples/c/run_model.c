/* run_model: runs an ONNX model through the vtensor C API (vtensor/vtensor_c.h).
 *
 *   run_model MODEL [DATA_DIR] [--threads N] [--save-outputs DIR]
 *
 * Prints every input and output: name, element type and shape (a symbolic dim prints as its
 * name), and the compiled-tensor cache report (HIT or MISS(reason) per entry). Inputs are DATA_DIR/input_N.pb (ONNX backend-test layout, N in input order) or, without
 * DATA_DIR, zeros of the declared shapes with symbolic dims set to 1. Where
 * DATA_DIR/output_N.pb exists, a float32 output is compared with it
 * (|got - want| <= 1e-4 + 1e-3 |want|) and PASS or FAIL is printed with the largest difference.
 * With --save-outputs, each numeric tensor output is also written to DIR/output_N.npy (numpy's
 * .npy format 1.0: dtype, shape and the bytes as the run gave them; bfloat16 as uint16 bit
 * patterns; string and non-tensor outputs are skipped with a note), so that another API's
 * outputs can be compared byte for byte.
 * Exit status: 0 ok, 1 an output differs, 2 any error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vtensor/vtensor_c.h"

/* Prints the status's message and frees it; returns 1 when it was an error. */
static int Failed(VtStatus* st) {
  if (st == NULL) return 0;
  fprintf(stderr, "error: %s: %s\n", VtStatusCodeName(VtStatusGetCode(st)),
          VtStatusGetMessage(st));
  VtStatusRelease(st);
  return 1;
}

static int FileExists(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return 0;
  fclose(f);
  return 1;
}

/* "name float32[batch,3]" for input (is_output 0) or output `i`. */
static int PrintIo(const VtSession* s, int is_output, size_t i) {
  const char* name = NULL;
  VtDType dtype = VT_UNDEFINED;
  int64_t rank = 0;
  if (Failed(is_output ? VtSessionOutputName(s, i, &name) : VtSessionInputName(s, i, &name)))
    return 1;
  if (Failed(is_output ? VtSessionOutputType(s, i, &dtype, &rank)
                       : VtSessionInputType(s, i, &dtype, &rank)))
    return 1;
  printf("%s %s %s", is_output ? "output" : "input", name, VtDTypeName(dtype));
  if (rank < 0) {
    printf("[?]\n");
    return 0;
  }
  printf("[");
  for (int64_t a = 0; a < rank; ++a) {
    int64_t size = 0;
    const char* symbol = NULL;
    if (Failed(is_output ? VtSessionOutputDim(s, i, a, &size, &symbol)
                         : VtSessionInputDim(s, i, a, &size, &symbol)))
      return 1;
    if (size >= 0) printf("%s%lld", a ? "," : "", (long long)size);
    else printf("%s%s", a ? "," : "", symbol[0] ? symbol : "?");
  }
  printf("]\n");
  return 0;
}

/* "cache entry 0: W HIT" or "... MISS(reason)" per compiled-tensor entry. */
static int PrintCacheReport(const VtSession* s) {
  size_t n = 0;
  if (Failed(VtSessionCacheEntryCount(s, &n))) return 1;
  for (size_t i = 0; i < n; ++i) {
    const char* source = NULL;
    const char* reason = NULL;
    int hit = 0;
    if (Failed(VtSessionCacheEntry(s, i, &source, &hit, &reason))) return 1;
    if (hit) printf("cache entry %zu: %s HIT\n", i, source);
    else printf("cache entry %zu: %s MISS(%s)\n", i, source, reason);
  }
  return 0;
}

/* Zeros of input `i`'s declared shape (symbolic dims 1). */
static int ZeroInput(const VtSession* s, size_t i, VtValue** out) {
  VtDType dtype = VT_UNDEFINED;
  int64_t rank = 0;
  if (Failed(VtSessionInputType(s, i, &dtype, &rank))) return 1;
  if (dtype == VT_UNDEFINED || dtype == VT_STRING || rank < 0) {
    fprintf(stderr, "error: input %zu has no declared numeric tensor type; give DATA_DIR\n", i);
    return 1;
  }
  int64_t dims[16];
  size_t count = 1;
  if (rank > 16) return 1;
  for (int64_t a = 0; a < rank; ++a) {
    if (Failed(VtSessionInputDim(s, i, a, &dims[a], NULL))) return 1;
    if (dims[a] < 0) dims[a] = 1;
    count *= (size_t)dims[a];
  }
  const size_t bytes = count * VtDTypeSize(dtype);
  void* zeros = calloc(bytes ? bytes : 1, 1);
  if (zeros == NULL) return 1;
  int failed = Failed(VtValueCreateCopy(dtype, dims, (size_t)rank, zeros, bytes, out));
  free(zeros);
  return failed;
}

/* numpy's dtype string of `dtype` ("<f4"), NULL where numpy has none (strings, undefined). */
static const char* NpyDescr(VtDType dtype) {
  switch (dtype) {
    case VT_FLOAT32: return "<f4";
    case VT_UINT8: return "|u1";
    case VT_INT8: return "|i1";
    case VT_UINT16: return "<u2";
    case VT_INT16: return "<i2";
    case VT_INT32: return "<i4";
    case VT_INT64: return "<i8";
    case VT_BOOL: return "|b1";
    case VT_FLOAT16: return "<f2";
    case VT_FLOAT64: return "<f8";
    case VT_UINT32: return "<u4";
    case VT_UINT64: return "<u8";
    case VT_COMPLEX64: return "<c8";
    case VT_COMPLEX128: return "<c16";
    case VT_BFLOAT16: return "<u2";
    default: return NULL;
  }
}

/* Writes `value` to `path` in .npy format 1.0 (the header padded so that the data starts at a
 * multiple of 64 bytes, as numpy writes it). Little-endian hosts only, as the dtype strings
 * say. Returns 0 ok, 2 error (printed). */
static int SaveNpy(const char* path, const VtValue* value) {
  VtDType dtype = VT_UNDEFINED;
  const int64_t* dims = NULL;
  size_t rank = 0;
  const void* data = NULL;
  size_t bytes = 0;
  if (Failed(VtValueGetDType(value, &dtype))) return 2;
  const char* descr = NpyDescr(dtype);
  if (descr == NULL) {
    fprintf(stderr, "note: %s not written: a %s output has no .npy form\n", path,
            VtDTypeName(dtype));
    return 0;
  }
  if (Failed(VtValueGetShape(value, &dims, &rank)) || Failed(VtValueGetData(value, &data, &bytes)))
    return 2;
  char header[1024];
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   descr);
  for (size_t a = 0; a < rank && n > 0 && (size_t)n < sizeof header; ++a)
    n += snprintf(header + n, sizeof header - (size_t)n, "%lld,%s", (long long)dims[a],
                  a + 1 < rank ? " " : "");
  if (n > 0 && (size_t)n < sizeof header)
    n += snprintf(header + n, sizeof header - (size_t)n, "), }");
  if (n <= 0 || (size_t)n + 64 >= sizeof header) {
    fprintf(stderr, "error: %s: shape too long for the .npy header\n", path);
    return 2;
  }
  while ((10 + n + 1) % 64 != 0) header[n++] = ' '; /* 10: magic, version, header length */
  header[n++] = '\n';
  const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                      (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
  FILE* f = fopen(path, "wb");
  if (f == NULL) {
    fprintf(stderr, "error: %s: cannot open for writing\n", path);
    return 2;
  }
  int ok = fwrite(preamble, 1, sizeof preamble, f) == sizeof preamble &&
           fwrite(header, 1, (size_t)n, f) == (size_t)n &&
           (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
  if (fclose(f) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "error: %s: write failed\n", path);
    return 2;
  }
  return 0;
}

/* Prints output `name` and, when `want` is given, compares it. Returns 0 ok, 1 differs, 2 error. */
static int CheckOutput(const char* name, const VtValue* got, const VtValue* want) {
  VtDType dtype = VT_UNDEFINED;
  const int64_t* dims = NULL;
  size_t rank = 0;
  const void* data = NULL;
  size_t bytes = 0;
  if (Failed(VtValueGetDType(got, &dtype))) return 2;
  if (dtype == VT_UNDEFINED || dtype == VT_STRING) {
    printf("%s: not a numeric tensor\n", name);
    return 0;
  }
  if (Failed(VtValueGetShape(got, &dims, &rank)) || Failed(VtValueGetData(got, &data, &bytes)))
    return 2;
  printf("%s: %s[", name, VtDTypeName(dtype));
  for (size_t a = 0; a < rank; ++a) printf("%s%lld", a ? "," : "", (long long)dims[a]);
  printf("]");
  if (want == NULL || dtype != VT_FLOAT32) {
    printf("\n");
    return 0;
  }
  const void* wdata = NULL;
  size_t wbytes = 0;
  if (Failed(VtValueGetData(want, &wdata, &wbytes))) return 2;
  if (wbytes != bytes) {
    printf(" FAIL (%zu bytes, reference has %zu)\n", bytes, wbytes);
    return 1;
  }
  const float* g = (const float*)data;
  const float* w = (const float*)wdata;
  double max_diff = 0;
  int ok = 1;
  for (size_t k = 0; k < bytes / sizeof(float); ++k) {
    const double d = fabs((double)g[k] - (double)w[k]);
    if (d > max_diff || d != d) max_diff = d;
    if (!(d <= 1e-4 + 1e-3 * fabs((double)w[k]))) ok = 0;
  }
  printf(" max_abs_diff %.3g %s\n", max_diff, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* model = NULL;
  const char* data_dir = NULL;
  const char* save_dir = NULL;
  int threads = 1;
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) threads = atoi(argv[++a]);
    else if (strcmp(argv[a], "--save-outputs") == 0 && a + 1 < argc) save_dir = argv[++a];
    else if (model == NULL) model = argv[a];
    else if (data_dir == NULL) data_dir = argv[a];
    else {
      model = NULL;  /* too many arguments: print the usage */
      break;
    }
  }
  if (model == NULL) {
    fprintf(stderr,
            "usage: run_model MODEL [DATA_DIR] [--threads N] [--save-outputs DIR]\n");
    return 2;
  }

  VtSessionOptions* options = NULL;
  VtSession* session = NULL;
  if (Failed(VtSessionOptionsCreate(&options)) ||
      Failed(VtSessionOptionsSetThreads(options, threads)) ||
      Failed(VtSessionCreate(model, options, &session))) {
    VtSessionOptionsRelease(options);
    return 2;
  }
  VtSessionOptionsRelease(options);

  size_t n_in = 0, n_out = 0;
  int rc = 2;
  const char** names = NULL;
  VtValue** inputs = NULL;
  VtValue** outputs = NULL;
  if (Failed(VtSessionInputCount(session, &n_in)) || Failed(VtSessionOutputCount(session, &n_out)))
    goto done;
  names = calloc(n_in + 1, sizeof *names);
  inputs = calloc(n_in + 1, sizeof *inputs);
  outputs = calloc(n_out + 1, sizeof *outputs);
  if (names == NULL || inputs == NULL || outputs == NULL) goto done;
  for (size_t i = 0; i < n_in; ++i) {
    char path[4096];
    if (PrintIo(session, 0, i) || Failed(VtSessionInputName(session, i, &names[i]))) goto done;
    if (data_dir != NULL) {
      snprintf(path, sizeof path, "%s/input_%zu.pb", data_dir, i);
      if (Failed(VtValueReadFile(path, &inputs[i]))) goto done;
    } else if (ZeroInput(session, i, &inputs[i])) {
      goto done;
    }
  }
  for (size_t i = 0; i < n_out; ++i)
    if (PrintIo(session, 1, i)) goto done;
  if (PrintCacheReport(session)) goto done;

  if (Failed(VtSessionRun(session, names, (const VtValue* const*)inputs, n_in, NULL, outputs,
                          n_out)))
    goto done;
  rc = 0;
  for (size_t i = 0; i < n_out && rc != 2; ++i) {
    const char* name = NULL;
    char path[4096];
    VtValue* want = NULL;
    if (Failed(VtSessionOutputName(session, i, &name))) {
      rc = 2;
      break;
    }
    snprintf(path, sizeof path, "%s/output_%zu.pb", data_dir ? data_dir : ".", i);
    if (data_dir != NULL && FileExists(path) && Failed(VtValueReadFile(path, &want))) {
      rc = 2;
      break;
    }
    int r = CheckOutput(name, outputs[i], want);
    VtValueRelease(want);
    if (save_dir != NULL && r != 2) {
      snprintf(path, sizeof path, "%s/output_%zu.npy", save_dir, i);
      if (SaveNpy(path, outputs[i]) != 0) r = 2;
    }
    if (r > rc) rc = r;
  }

done:
  for (size_t i = 0; inputs != NULL && i < n_in; ++i) VtValueRelease(inputs[i]);
  for (size_t i = 0; outputs != NULL && i < n_out; ++i) VtValueRelease(outputs[i]);
  free(names);
  free(inputs);
  free(outputs);
  VtSessionRelease(session);
  return rc;
}
