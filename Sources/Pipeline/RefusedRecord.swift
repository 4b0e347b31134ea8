import APNsCore

/// The stand-in for a record Kafka refused for good (too large, malformed): the same record, every
/// text in it cut to its first ``fieldLimit`` bytes, with a `replaced` object that says what
/// happened — the refused record's size and Kafka's error code. It is produced to the same topic,
/// so an outcome is still an outcome (status, reason, source, the start of its intent id and
/// token) and readers of each topic see one schema, in which `replaced` is an optional field.
public enum RefusedRecord {
    /// Bytes kept of each text: ids, tokens (64 hex digits), topics and reasons are whole at this
    /// size; what is longer came from pathological input, and its start is enough to find it.
    public static let fieldLimit = 128

    /// The stand-in's value for a refused record `value` (one of Pipeline's records, a JSON object)
    /// refused with `error` (librdkafka's name for the code, such as `MSG_SIZE_TOO_LARGE`). A value
    /// that is not a JSON object gets a stand-in with the `replaced` object alone.
    public static func standIn(for value: [UInt8], error: String) -> [UInt8] {
        var kept = JSONObject()
        if case .object(let object)? = try? JSONParser.parse(value) {
            kept.members = object.members.map { JSONObject.Member($0.key, cut($0.value)) }
        }
        kept.members.append(JSONObject.Member("replaced", .object([
            "size": .integer(Int64(value.count)),
            "error": .string(error.utf8Prefix(maxBytes: fieldLimit)),
        ])))
        return kept.encoded
    }

    /// The stand-in's key: the refused record's, cut to ``fieldLimit`` bytes (a key only places
    /// the record in a partition).
    public static func standIn(forKey key: [UInt8]?) -> [UInt8]? {
        key.map { Array($0.prefix(fieldLimit)) }
    }

    /// `value` with every text cut to ``fieldLimit`` bytes (on a character boundary; base64 and hex
    /// stay valid, being ASCII and the limit a multiple of 4).
    private static func cut(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text.utf8Prefix(maxBytes: fieldLimit))
        case .object(let object): .object(JSONObject(object.members.map { JSONObject.Member($0.key, cut($0.value)) }))
        case .array(let elements): .array(elements.map(cut))
        case .null, .bool, .integer, .double: value
        }
    }
}
