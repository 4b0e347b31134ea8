import APNsCore
import Enrichment
import Foundation

/// What `pushline-dev bench enrichment` compares against: the same intents decoded with Foundation's
/// `JSONDecoder` and their payloads written with `JSONEncoder`, around the same template rendering.
enum FoundationBaseline {
    /// Decodes an intent with `JSONDecoder` into the Codable mirror, then into an ``Intent``.
    static func decode(_ data: Data, with decoder: JSONDecoder) throws -> Intent {
        let mirror = try decoder.decode(IntentMirror.self, from: data)
        guard let tokens = mirror.tokens, let template = mirror.template else { throw BaselineError.unsupportedIntent }
        let overrides = Intent.Overrides(priority: mirror.priority.flatMap(APNsPriority.init(rawValue:)), collapseID: mirror.collapseID,
                                         threadID: mirror.threadID, badge: mirror.badge, sound: mirror.sound, category: mirror.category)
        return Intent(
            id: mirror.id, app: mirror.app,
            environment: mirror.environment.flatMap(Intent.Environment.init(rawValue:)) ?? .production,
            recipients: .tokens(try tokens.map { try DeviceToken($0) }),
            content: .template(template), args: mirror.args?.value.objectValue ?? JSONObject(), locale: mirror.locale,
            overrides: overrides, custom: mirror.custom?.value.objectValue ?? JSONObject(),
            dedupeWindow: mirror.dedupeWindow, createdAt: mirror.createdAt
        )
    }

    /// Writes a payload with `JSONEncoder`.
    static func encode(_ payload: APNsPayload, with encoder: JSONEncoder) throws -> Data {
        try encoder.encode(PayloadMirror(payload: payload))
    }

    enum BaselineError: Error {
        /// The benchmark's intents use tokens and templates only.
        case unsupportedIntent
    }

    /// The schema v1 fields the benchmark's intents use, for `JSONDecoder`.
    private struct IntentMirror: Decodable {
        let id: String
        let app: String
        let environment: String?
        let tokens: [String]?
        let template: String?
        let args: CodableValue?
        let locale: String?
        let priority: Int?
        let collapseID: String?
        let threadID: String?
        let badge: Int?
        let sound: String?
        let category: String?
        let custom: CodableValue?
        let dedupeWindow: Int64?
        let createdAt: Int64?

        enum CodingKeys: String, CodingKey {
            case id, app, environment, tokens, template, args, locale, priority, badge, sound, category, custom
            case collapseID = "collapse_id", threadID = "thread_id", dedupeWindow = "dedupe_window", createdAt = "created_at"
        }
    }

    /// A ``JSONValue`` through Codable.
    private struct CodableValue: Codable {
        let value: JSONValue

        init(_ value: JSONValue) {
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // The likeliest types first: every failed attempt costs a thrown DecodingError.
            if container.decodeNil() {
                value = .null
            } else if let text = try? container.decode(String.self) {
                value = .string(text)
            } else if let integer = try? container.decode(Int64.self) {
                value = .integer(integer)
            } else if let number = try? container.decode(Double.self) {
                value = .double(number)
            } else if let flag = try? container.decode(Bool.self) {
                value = .bool(flag)
            } else if let members = try? container.decode([String: CodableValue].self) {
                value = .object(JSONObject(members.map { JSONObject.Member($0.key, $0.value.value) }))
            } else {
                value = .array(try container.decode([CodableValue].self).map(\.value))
            }
        }

        func encode(to encoder: any Encoder) throws {
            func single(_ encode: (inout any SingleValueEncodingContainer) throws -> Void) throws {
                var container = encoder.singleValueContainer()
                try encode(&container)
            }
            switch value {
            case .null: try single { try $0.encodeNil() }
            case .bool(let flag): try single { try $0.encode(flag) }
            case .integer(let integer): try single { try $0.encode(integer) }
            case .double(let number): try single { try $0.encode(number) }
            case .string(let text): try single { try $0.encode(text) }
            case .array(let elements):
                var container = encoder.unkeyedContainer()
                for element in elements { try container.encode(CodableValue(element)) }
            case .object(let object):
                var container = encoder.container(keyedBy: Key.self)
                for member in object.members { try container.encode(CodableValue(member.value), forKey: Key(member.key)) }
            }
        }
    }

    /// Any string as a coding key.
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ string: String) {
            stringValue = string
        }

        init?(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }

    /// An ``APNsPayload`` through Codable: `aps` with every key the builder writes, then the custom keys.
    private struct PayloadMirror: Encodable {
        let payload: APNsPayload

        func encode(to encoder: any Encoder) throws {
            var root = encoder.container(keyedBy: Key.self)
            var aps = root.nestedContainer(keyedBy: Key.self, forKey: Key("aps"))
            switch payload.alert {
            case .body(let text)?:
                try aps.encode(text, forKey: Key("alert"))
            case .content(let content)?:
                var alert = aps.nestedContainer(keyedBy: Key.self, forKey: Key("alert"))
                try alert.encodeIfPresent(content.title, forKey: Key("title"))
                try alert.encodeIfPresent(content.subtitle, forKey: Key("subtitle"))
                try alert.encodeIfPresent(content.body, forKey: Key("body"))
                try alert.encodeIfPresent(content.titleLocKey, forKey: Key("title-loc-key"))
                try alert.encodeIfPresent(content.titleLocArgs, forKey: Key("title-loc-args"))
                try alert.encodeIfPresent(content.subtitleLocKey, forKey: Key("subtitle-loc-key"))
                try alert.encodeIfPresent(content.subtitleLocArgs, forKey: Key("subtitle-loc-args"))
                try alert.encodeIfPresent(content.locKey, forKey: Key("loc-key"))
                try alert.encodeIfPresent(content.locArgs, forKey: Key("loc-args"))
            case nil:
                break
            }
            try aps.encodeIfPresent(payload.badge, forKey: Key("badge"))
            switch payload.sound {
            case .named(let name)?:
                try aps.encode(name, forKey: Key("sound"))
            case .critical(let name, let volume)?:
                var sound = aps.nestedContainer(keyedBy: Key.self, forKey: Key("sound"))
                try sound.encode(1, forKey: Key("critical"))
                try sound.encode(name, forKey: Key("name"))
                try sound.encode(volume, forKey: Key("volume"))
            case nil:
                break
            }
            try aps.encodeIfPresent(payload.threadID, forKey: Key("thread-id"))
            try aps.encodeIfPresent(payload.category, forKey: Key("category"))
            if payload.contentAvailable { try aps.encode(1, forKey: Key("content-available")) }
            if payload.mutableContent { try aps.encode(1, forKey: Key("mutable-content")) }
            try aps.encodeIfPresent(payload.interruptionLevel?.rawValue, forKey: Key("interruption-level"))
            try aps.encodeIfPresent(payload.relevanceScore, forKey: Key("relevance-score"))
            for member in payload.custom.members {
                try root.encode(CodableValue(member.value), forKey: Key(member.key))
            }
        }
    }
}
