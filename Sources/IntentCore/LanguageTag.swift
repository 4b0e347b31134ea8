/// BCP 47 language tags as Pushline needs them: a well-formedness check and the lookup fallback
/// chain of RFC 4647 §3.4 (`zh-Hant-TW` → `zh-Hant` → `zh`).
public enum LanguageTag {
    /// Subtags of 1 to 8 ASCII letters or digits joined by `-` (or `_`, as Apple writes locales),
    /// starting with a 2–3 or 5–8 letter language subtag.
    public static func isWellFormed(_ tag: String) -> Bool {
        var subtagLength = 0
        var isFirstSubtag = true
        for byte in tag.utf8 {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") {
                guard isValidSubtag(length: subtagLength, first: isFirstSubtag) else { return false }
                subtagLength = 0
                isFirstSubtag = false
            } else {
                guard isFirstSubtag ? isASCIILetter(byte) : isASCIIAlphanumeric(byte) else { return false }
                subtagLength += 1
            }
        }
        return isValidSubtag(length: subtagLength, first: isFirstSubtag)
    }

    private static func isValidSubtag(length: Int, first: Bool) -> Bool {
        first ? [2, 3, 5, 6, 7, 8].contains(length) : (1...8).contains(length)
    }

    /// The tag, then each shorter prefix, in the canonical form used for lookups (lower case,
    /// `-` separators). A single-letter subtag left at the end (an extension's introducer, `-u`)
    /// is dropped with the subtag after it.
    public static func fallbackChain(_ tag: String) -> [String] {
        var subtags = normalized(tag).split(separator: "-").map(String.init)
        var chain: [String] = []
        while !subtags.isEmpty {
            chain.append(subtags.joined(separator: "-"))
            subtags.removeLast()
            while let last = subtags.last, last.utf8.count == 1 { subtags.removeLast() }
        }
        return chain
    }

    /// Lower case with `-` separators: the key under which catalogs store their locales. A tag in
    /// that form already (most are: `en`, `de`, a resolved locale) is returned as it is, with no
    /// copy: locales are resolved per notification, and whether one fell back is asked per outcome.
    public static func normalized(_ tag: String) -> String {
        guard tag.utf8.contains(where: { $0 == UInt8(ascii: "_") || isASCIIUpper($0) }) else { return tag }
        return String(decoding: tag.utf8.map { byte in
            byte == UInt8(ascii: "_") ? UInt8(ascii: "-") : (isASCIIUpper(byte) ? byte + 32 : byte)
        }, as: UTF8.self)
    }

    private static func isASCIIUpper(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        isASCIIUpper(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        isASCIILetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
