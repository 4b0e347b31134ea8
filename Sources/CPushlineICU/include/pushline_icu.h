#ifndef PUSHLINE_ICU_H
#define PUSHLINE_ICU_H
// ICU behind plain C types: ICU's symbols carry its version (`uplrules_open_72`) and its types
// clash with the ICU inside Foundation, so Swift sees only these functions.

#include <stdint.h>

/// Opens the cardinal plural rules of a BCP 47 / ICU locale id ("ar", "zh-Hant-TW").
/// Returns NULL on failure. Release with `pushline_plural_rules_close`.
void *pushline_plural_rules_open(const char *locale);

/// Writes the plural category of `number` ("zero", "one", "two", "few", "many", "other") into
/// `category` as a NUL-terminated ASCII string. Returns its length, or -1 on failure.
int32_t pushline_plural_rules_select(const void *rules, double number, char *category, int32_t capacity);

void pushline_plural_rules_close(void *rules);

#endif
