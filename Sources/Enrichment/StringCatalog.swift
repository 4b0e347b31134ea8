import APNsCore

/// An app's localized strings, by locale and key: read from Apple String Catalogs (`.xcstrings`,
/// the file the app ships) and from plain JSON files named after their locale (`de.json`).
///
/// Locales are stored in ``LanguageTag/normalized(_:)`` form.
struct StringCatalog: Sendable {
    private var strings: [String: [String: LocalizedString]] = [:]
    /// The `sourceLanguage` of the String Catalog, when there is one.
    private(set) var sourceLanguage: String?

    /// Every locale with at least one string, normalized.
    private(set) var locales: Set<String> = []
    /// Every key of any locale: client-localized alerts check theirs for every intent.
    private var keys: Set<String> = []

    /// The string for `key` in `locale` (normalized), if that locale has it.
    func lookup(_ key: String, locale: String) -> LocalizedString? {
        strings[locale]?[key]
    }

    /// Whether any locale has `key`.
    func contains(_ key: String) -> Bool {
        keys.contains(key)
    }

    private mutating func add(_ string: LocalizedString, key: String, locale: String) {
        let normalized = LanguageTag.normalized(locale)
        strings[normalized, default: [:]][key] = string
        locales.insert(normalized)
        keys.insert(key)
    }

    // MARK: Plain JSON: {"key": "text", "plural.key": {"one": "…", "other": "…"}}

    /// Adds a plain JSON file for one locale: each value is a format string or an object of
    /// plural variants by CLDR category (`other` required).
    mutating func addPlainJSON(_ bytes: [UInt8], locale: String, file: String) throws(CatalogLoadError) {
        let root = try Self.parseObject(bytes, file: file)
        for member in root.members {
            let string: LocalizedString
            switch member.value {
            case .string(let text):
                string = LocalizedString(variants: .single(try Self.compile(text, file: file, key: member.key)), substitutions: [:])
            case .object(let forms):
                string = LocalizedString(variants: try Self.plural(forms, file: file, key: member.key), substitutions: [:])
            default:
                throw CatalogLoadError(.invalidStrings, file: file, key: member.key,
                                       "must be a string or an object of plural variants, got \(member.value.typeName)")
            }
            add(string, key: member.key, locale: locale)
        }
    }

    // MARK: String Catalog (.xcstrings)

    /// Adds every localization of a String Catalog. A key with no localization in the source
    /// language is its own source text, as in Xcode.
    mutating func addStringCatalog(_ bytes: [UInt8], file: String) throws(CatalogLoadError) {
        let root = try Self.parseObject(bytes, file: file)
        guard let source = root["sourceLanguage"]?.stringValue else {
            throw CatalogLoadError(.invalidStrings, file: file, key: "sourceLanguage", "a String Catalog needs a sourceLanguage")
        }
        sourceLanguage = source
        guard let entries = root["strings"]?.objectValue else {
            throw CatalogLoadError(.invalidStrings, file: file, key: "strings", "a String Catalog needs a strings object")
        }
        for entry in entries.members {
            let key = entry.key
            let localizations = entry.value.objectValue?["localizations"]?.objectValue ?? JSONObject()
            for localization in localizations.members {
                let path = "strings.\(key).localizations.\(localization.key)"
                guard let body = localization.value.objectValue else {
                    throw CatalogLoadError(.invalidStrings, file: file, key: path, "must be an object")
                }
                add(try Self.catalogString(body, file: file, path: path), key: key, locale: localization.key)
            }
            if localizations[source] == nil {
                let string = LocalizedString(variants: .single(try Self.compile(key, file: file, key: "strings.\(key)")),
                                             substitutions: [:])
                add(string, key: key, locale: source)
            }
        }
    }

    /// One localization: `stringUnit` or `variations.plural`, plus `substitutions`.
    private static func catalogString(_ body: JSONObject, file: String, path: String) throws(CatalogLoadError) -> LocalizedString {
        var substitutions: [String: LocalizedString.Substitution] = [:]
        for substitution in body["substitutions"]?.objectValue?.members ?? [] {
            let subPath = "\(path).substitutions.\(substitution.key)"
            guard let fields = substitution.value.objectValue,
                  case .integer(let argNum)? = fields["argNum"], argNum >= 1, argNum <= 99 else {
                throw CatalogLoadError(.invalidStrings, file: file, key: subPath, "needs argNum, a whole number from 1")
            }
            let specifier = fields["formatSpecifier"]?.stringValue ?? "@"
            guard let pluralForms = fields["variations"]?.objectValue?["plural"]?.objectValue else {
                throw CatalogLoadError(.invalidStrings, file: file, key: subPath, "needs variations.plural")
            }
            substitutions[substitution.key] = LocalizedString.Substitution(
                argument: Int(argNum) - 1,
                integer: specifier != "@",
                variants: try catalogPluralForms(pluralForms, file: file, path: "\(subPath).variations.plural")
            )
        }
        if let unit = body["stringUnit"]?.objectValue {
            return LocalizedString(variants: .single(try unitText(unit, file: file, path: "\(path).stringUnit")),
                                   substitutions: substitutions)
        }
        if let pluralForms = body["variations"]?.objectValue?["plural"]?.objectValue {
            let forms = try catalogPluralForms(pluralForms, file: file, path: "\(path).variations.plural")
            return LocalizedString(variants: .plural(argument: countArgument(forms), forms), substitutions: substitutions)
        }
        throw CatalogLoadError(.invalidStrings, file: file, key: path, "needs a stringUnit or variations.plural")
    }

    private static func catalogPluralForms(_ forms: JSONObject, file: String,
                                           path: String) throws(CatalogLoadError) -> [String: FormatString] {
        var compiled: [String: FormatString] = [:]
        for form in forms.members {
            let formPath = "\(path).\(form.key)"
            guard let unit = form.value.objectValue?["stringUnit"]?.objectValue else {
                throw CatalogLoadError(.invalidStrings, file: file, key: formPath, "needs a stringUnit")
            }
            compiled[form.key] = try unitText(unit, file: file, path: "\(formPath).stringUnit")
        }
        guard compiled["other"] != nil else {
            throw CatalogLoadError(.invalidStrings, file: file, key: path, "plural variants need \"other\"")
        }
        return compiled
    }

    private static func unitText(_ unit: JSONObject, file: String, path: String) throws(CatalogLoadError) -> FormatString {
        guard let value = unit["value"]?.stringValue else {
            throw CatalogLoadError(.invalidStrings, file: file, key: path, "needs a string value")
        }
        return try compile(value, file: file, key: path)
    }

    // MARK: Shared

    private static func plural(_ forms: JSONObject, file: String, key: String) throws(CatalogLoadError) -> LocalizedString.Variants {
        var compiled: [String: FormatString] = [:]
        for form in forms.members {
            guard let text = form.value.stringValue else {
                throw CatalogLoadError(.invalidStrings, file: file, key: "\(key).\(form.key)", "must be a string")
            }
            compiled[form.key] = try compile(text, file: file, key: "\(key).\(form.key)")
        }
        guard compiled["other"] != nil else {
            throw CatalogLoadError(.invalidStrings, file: file, key: key, "plural variants need \"other\"")
        }
        return .plural(argument: countArgument(compiled), compiled)
    }

    /// The argument a plural counts: the first integer specifier of its `other` text, else the first.
    private static func countArgument(_ forms: [String: FormatString]) -> Int {
        forms["other"]?.firstIntegerArgument ?? 0
    }

    private static func compile(_ text: String, file: String, key: String) throws(CatalogLoadError) -> FormatString {
        do {
            return try FormatString(compiling: text)
        } catch {
            throw CatalogLoadError(.invalidStrings, file: file, key: key, error.message)
        }
    }

    private static func parseObject(_ bytes: [UInt8], file: String) throws(CatalogLoadError) -> JSONObject {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw CatalogLoadError(.syntax, file: file, error.description)
        }
        guard case .object(let object) = document else {
            throw CatalogLoadError(.syntax, file: file, "the file must hold a JSON object, got \(document.typeName)")
        }
        return object
    }
}
