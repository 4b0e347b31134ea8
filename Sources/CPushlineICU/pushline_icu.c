#include "pushline_icu.h"

#include <unicode/uloc.h>
#include <unicode/upluralrules.h>
#include <unicode/ustring.h>

void *pushline_plural_rules_open(const char *locale) {
    // ICU takes its own locale ids ("zh_Hant_TW"); convert from BCP 47 ("zh-Hant-TW").
    char icuLocale[ULOC_FULLNAME_CAPACITY];
    UErrorCode status = U_ZERO_ERROR;
    uloc_forLanguageTag(locale, icuLocale, (int32_t)sizeof icuLocale, NULL, &status);
    if (U_FAILURE(status)) {
        return NULL;
    }
    UPluralRules *rules = uplrules_openForType(icuLocale, UPLURAL_TYPE_CARDINAL, &status);
    if (U_FAILURE(status)) {
        return NULL;
    }
    return rules;
}

int32_t pushline_plural_rules_select(const void *rules, double number, char *category, int32_t capacity) {
    UChar keyword[32];
    UErrorCode status = U_ZERO_ERROR;
    int32_t length = uplrules_select((const UPluralRules *)rules, number, keyword, 32, &status);
    if (U_FAILURE(status) || length >= capacity) {
        return -1;
    }
    u_UCharsToChars(keyword, category, length);
    category[length] = '\0';
    return length;
}

void pushline_plural_rules_close(void *rules) {
    uplrules_close((UPluralRules *)rules);
}
