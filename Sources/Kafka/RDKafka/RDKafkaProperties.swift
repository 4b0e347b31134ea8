internal import CRdKafka

/// librdkafka configuration properties as text, the form `rd_kafka_conf_set` takes, with the rule
/// that keeps secrets out of descriptions and error messages.
struct RDKafkaProperties: Sendable, CustomStringConvertible {
    private var values: [String: String] = [:]

    init(_ values: [String: String] = [:]) {
        self.values = values
    }

    subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Adds `overrides` on top (the configurations' passthrough wins over their typed fields).
    mutating func merge(_ overrides: [String: String]) {
        values.merge(overrides) { _, override in override }
    }

    /// Whether a property holds a secret: passwords, client secrets, private keys, OAuth settings.
    static func isSecret(_ key: String) -> Bool {
        let key = key.lowercased()
        return key.contains("password") || key.contains("secret") || key == "ssl.key.pem"
            || key == "sasl.oauthbearer.config"
    }

    /// `text` with the value of every secret property replaced, for errors that quote librdkafka.
    func redact(_ text: String) -> String {
        values.filter { Self.isSecret($0.key) && !$0.value.isEmpty }.reduce(text) { text, secret in
            text.replacing(secret.value, with: "[redacted]")
        }
    }

    /// `key=value` pairs in key order, secrets shown as `[redacted]`.
    var description: String {
        values.keys.sorted().map { "\($0)=\(Self.isSecret($0) ? "[redacted]" : values[$0]!)" }.joined(separator: " ")
    }

    /// A new `rd_kafka_conf_t` holding these properties; the caller owns it.
    func makeConf() throws(KafkaError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        for key in values.keys.sorted() {
            let (result, message) = withErrorString { rd_kafka_conf_set(conf, key, values[key]!, $0, $1) }
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                throw KafkaError.configuration("property \(key): \(redact(message))")
            }
        }
        return conf
    }
}

/// Calls `body` with a buffer for a librdkafka error string and returns its result and the string.
func withErrorString<Result>(_ body: (UnsafeMutablePointer<CChar>, Int) -> Result) -> (Result, String) {
    let capacity = 512
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    buffer.initialize(repeating: 0, count: capacity)
    let result = body(buffer, capacity)
    return (result, String(cString: buffer))
}
