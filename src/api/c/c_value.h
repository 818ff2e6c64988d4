// Internal to the C API: what a VtValue handle holds.
#pragma once

#include "vtensor/tensor/value.h"
#include "vtensor/vtensor_c.h"

struct VtValue {
  vt::Value value;
};
