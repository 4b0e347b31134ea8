import Enrichment
import Testing

@Suite("BCP 47 language tags")
struct LanguageTagTests {
    @Test("the fallback chain drops one subtag at a time", arguments: [
        ("zh-Hant-TW", ["zh-hant-tw", "zh-hant", "zh"]),
        ("en_GB", ["en-gb", "en"]),
        ("ar", ["ar"]),
        ("de-DE-u-co-phonebk", ["de-de-u-co-phonebk", "de-de-u-co", "de-de", "de"]),
    ])
    func fallbackChain(tag: String, chain: [String]) {
        #expect(LanguageTag.fallbackChain(tag) == chain)
    }

    @Test("normalized is lower case with - separators, a tag in that form already unchanged", arguments: [
        ("en", "en"), ("pt-br", "pt-br"), ("pt-BR", "pt-br"), ("en_GB", "en-gb"), ("zh-Hant-TW", "zh-hant-tw"), ("", ""),
        ("es-419", "es-419"), ("ja-日本", "ja-日本"), ("JA-日本", "ja-日本"),
    ])
    func normalized(tag: String, expected: String) {
        #expect(LanguageTag.normalized(tag) == expected)
    }

    @Test("well-formed tags", arguments: ["en", "zh-Hant-TW", "es-419", "pt_BR", "gsw"])
    func wellFormed(tag: String) {
        #expect(LanguageTag.isWellFormed(tag))
    }

    @Test("malformed tags", arguments: ["", "e", "englishlanguage", "en--US", "en-", "12", "en US", "ja-日本"])
    func malformed(tag: String) {
        #expect(!LanguageTag.isWellFormed(tag))
    }
}
