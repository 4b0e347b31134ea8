import ICU
import Testing

@Suite("Plural categories from ICU")
struct PluralRulesTests {
    @Test("categories per locale", arguments: [
        ("en", 0.0, "other"), ("en", 1, "one"), ("en", 2, "other"), ("en", 1.5, "other"),
        ("ja", 0, "other"), ("ja", 1, "other"), ("ja", 100, "other"),
        ("ar", 0, "zero"), ("ar", 1, "one"), ("ar", 2, "two"), ("ar", 3, "few"), ("ar", 10, "few"),
        ("ar", 11, "many"), ("ar", 99, "many"), ("ar", 100, "other"),
        ("ru", 1, "one"), ("ru", 21, "one"), ("ru", 2, "few"), ("ru", 24, "few"), ("ru", 5, "many"),
        ("ru", 11, "many"), ("ru", 12, "many"), ("ru", 1.5, "other"),
    ] as [(String, Double, String)])
    func category(locale: String, number: Double, expected: String) throws {
        let rules = try #require(PluralRules.forLocale(locale))
        #expect(rules.category(of: number) == expected)
    }

    @Test("BCP 47 region tags use their language's rules")
    func regionTag() throws {
        #expect(try #require(PluralRules.forLocale("ru-RU")).category(of: 3) == "few")
    }

    @Test("rules are opened once per locale")
    func cached() throws {
        let first = try #require(PluralRules.forLocale("ar"))
        let second = try #require(PluralRules.forLocale("ar"))
        #expect(first === second)
    }
}
