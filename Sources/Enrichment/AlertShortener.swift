import APNsCore

/// Fits an oversized payload under its limit by shortening the alert text — the body first, then
/// the subtitle, then the title — at a grapheme boundary, ending in an ellipsis.
enum AlertShortener {
    static let ellipsis = "…"

    /// The payload's bytes within `limit`, and whether text had to be shortened. Throws
    /// `PayloadTooLarge` when even the shortest alert leaves it too large: the rest (custom data,
    /// Live Activity state) is too large on its own.
    static func encode(_ payload: inout APNsPayload, limit: Int) throws(EnrichmentError) -> (bytes: [UInt8], shortened: Bool) {
        let bytes = payload.encoded()
        guard bytes.count > limit else { return (bytes, false) }
        guard case .content(var content) = payload.alert else { throw tooLarge(bytes.count, limit: limit) }
        var smallest = bytes.count
        let fieldsInOrder: [WritableKeyPath<AlertContent, String?>] = [\.body, \.subtitle, \.title]
        for field in fieldsInOrder {
            guard let text = content[keyPath: field] else { continue }
            let characters = Array(text)
            // The longest prefix that fits, by binary search over grapheme counts.
            var low = 0
            var high = characters.count - 1
            var fitting: (text: String, bytes: [UInt8])?
            while low <= high {
                let middle = (low + high) / 2
                content[keyPath: field] = shortened(characters, keeping: middle)
                payload.alert = .content(content)
                let candidate = payload.encoded()
                smallest = min(smallest, candidate.count)
                if candidate.count <= limit {
                    fitting = (shortened(characters, keeping: middle), candidate)
                    low = middle + 1
                } else {
                    high = middle - 1
                }
            }
            if let fitting {
                content[keyPath: field] = fitting.text
                payload.alert = .content(content)
                return (fitting.bytes, true)
            }
            content[keyPath: field] = ellipsis
            payload.alert = .content(content)
        }
        throw tooLarge(smallest, limit: limit)
    }

    /// The first `count` characters without trailing white space, and an ellipsis.
    static func shortened(_ characters: [Character], keeping count: Int) -> String {
        var prefix = characters[..<count]
        while let last = prefix.last, last.isWhitespace { prefix.removeLast() }
        return String(prefix) + ellipsis
    }

    private static func tooLarge(_ size: Int, limit: Int) -> EnrichmentError {
        EnrichmentError(.payloadTooLarge,
                        "the payload is \(size) bytes with its alert text shortened as far as it goes; the limit is \(limit), so the custom data and other keys alone are too large")
    }
}
