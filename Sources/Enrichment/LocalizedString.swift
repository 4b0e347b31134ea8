import ICU

/// One key's text in one locale: a single format string or plural variants, plus the String
/// Catalog substitutions (`%#@name@`) it uses, each with its own plural variants.
struct LocalizedString: Sendable, Equatable {
    /// A substitution: which argument it counts, how `%arg` prints it, and its plural variants.
    struct Substitution: Sendable, Equatable {
        /// 0-based.
        let argument: Int
        let integer: Bool
        let variants: [String: FormatString]
    }

    enum Variants: Sendable, Equatable {
        case single(FormatString)
        /// CLDR category → text; `argument` (0-based) is the count that selects.
        case plural(argument: Int, [String: FormatString])
    }

    let variants: Variants
    let substitutions: [String: Substitution]

    /// The text for `args` in `locale`, plural categories chosen by ICU for that locale.
    func render(_ args: [String], locale: String) throws(EnrichmentError) -> String {
        let text: FormatString
        switch variants {
        case .single(let single):
            text = single
        case .plural(let argument, let forms):
            text = try Self.variant(forms, count: argument, args, locale: locale)
        }
        return try text.format(args) { (segment) throws(EnrichmentError) -> String in
            guard case .substitution(let name) = segment, let substitution = substitutions[name] else {
                throw EnrichmentError(.missingLocalization, "the string uses %#@\(segment)@ but defines no such substitution")
            }
            let variant = try Self.variant(substitution.variants, count: substitution.argument, args, locale: locale)
            return try variant.format(args) { (inner) throws(EnrichmentError) -> String in
                guard case .substitutionArgument = inner else {
                    throw EnrichmentError(.missingLocalization, "substitution \(name) nests another substitution")
                }
                return try FormatString.argument(args, substitution.argument, integer: substitution.integer)
            }
        }
    }

    /// The variant for the plural category of argument `count`, or `other` when the catalog has
    /// no variant for that category.
    private static func variant(_ forms: [String: FormatString], count: Int, _ args: [String],
                                locale: String) throws(EnrichmentError) -> FormatString {
        guard count < args.count, let number = Double(args[count]) else {
            let value = count < args.count ? "\"\(args[count])\"" : "missing"
            throw EnrichmentError(.badFormatArgument, "plural count (argument \(count + 1)) is \(value), not a number")
        }
        let category = PluralRules.forLocale(locale)?.category(of: number) ?? "other"
        guard let form = forms[category] ?? forms["other"] else {
            throw EnrichmentError(.missingLocalization, "no plural variant \"\(category)\" or \"other\" for \(locale)")
        }
        return form
    }
}
