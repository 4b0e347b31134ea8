internal import CPushlineICU
import Synchronization

/// ICU's cardinal plural rules for one locale: which CLDR category (`zero`, `one`, `two`, `few`,
/// `many`, `other`) a count falls into. Opened once per locale and cached.
public final class PluralRules: @unchecked Sendable {
    // Sendable because the ICU object is never mutated after opening; uplrules_select is const.
    private let rules: UnsafeMutableRawPointer

    private static let cache = Mutex<[String: PluralRules]>([:])

    /// The rules for a BCP 47 locale; ICU falls back to the root rules (everything is `other`)
    /// for a language it does not know.
    public static func forLocale(_ locale: String) -> PluralRules? {
        if let cached = cache.withLock({ $0[locale] }) { return cached }
        guard let rules = PluralRules(locale: locale) else { return nil }
        return cache.withLock { cache in
            if let raced = cache[locale] { return raced }
            cache[locale] = rules
            return rules
        }
    }

    private init?(locale: String) {
        guard let rules = pushline_plural_rules_open(locale) else { return nil }
        self.rules = rules
    }

    deinit {
        pushline_plural_rules_close(rules)
    }

    /// The plural category of `number`, or `other` if ICU cannot tell.
    public func category(of number: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 16) { buffer in
            let length = pushline_plural_rules_select(rules, number, buffer.baseAddress, 16)
            guard length > 0 else { return "other" }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(length)), as: UTF8.self)
        }
    }
}
