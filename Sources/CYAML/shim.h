#ifndef PUSHLINE_CYAML_SHIM_H
#define PUSHLINE_CYAML_SHIM_H
// libyaml's event parser, for the per-app template files.
#include <yaml.h>
#endif
