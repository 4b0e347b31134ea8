#ifndef PUSHLINE_CICU_SHIM_H
#define PUSHLINE_CICU_SHIM_H
// ICU's C API. Swift code never imports this module: its versioned symbols and its types clash
// with Foundation's own ICU, so `CPushlineICU` wraps what Pushline needs behind plain C types.
#include <unicode/upluralrules.h>
#endif
