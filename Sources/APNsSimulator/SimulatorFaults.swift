import APNsCore

/// The faults the simulator injects, changeable at run time (`POST /faults`). All off by default.
///
/// Rates are probabilities from 0 to 1, drawn per request from the simulator's seeded generator.
public struct SimulatorFaults: Sendable, Equatable {
    /// Added to every answer, in milliseconds (a WAN round trip).
    public var latencyMilliseconds = 0
    /// A uniformly random extra delay from 0 to this many milliseconds.
    public var jitterMilliseconds = 0
    /// Of pushes that would be accepted: the share answered 429 `TooManyRequests`.
    public var tooManyRequestsRate = 0.0
    /// … answered 500 `InternalServerError`.
    public var internalServerErrorRate = 0.0
    /// … answered 503 `ServiceUnavailable`.
    public var serviceUnavailableRate = 0.0
    /// … answered 503 `Shutdown`.
    public var shutdownRate = 0.0
    /// Every N-th stream on a connection is answered and followed by GOAWAY `Shutdown`; 0 = never.
    public var goAwayEveryStreams = 0
    /// The `SETTINGS_MAX_CONCURRENT_STREAMS` every authenticated connection advertises from its next
    /// answered request on, in place of the configured limit (1 = the limit collapsing, as APNs does
    /// under trouble); 0 = the configured limit.
    public var maxConcurrentStreams = 0
    /// Of all requests: the share never answered (a stuck stream).
    public var neverRespondRate = 0.0
    /// Of all requests: the share whose connection is dropped instead of answered.
    public var resetConnectionRate = 0.0
    /// Above this many requests in one second for one device token, that token gets 429
    /// `TooManyRequests`; 0 = no limit.
    public var deviceRequestsPerSecond = 0

    /// No faults.
    public init() {}

    /// The names used in JSON (`POST /faults`, `GET /faults`) and by the `apns-sim` flags.
    static let integerFields: [(name: String, path: WritableKeyPath<SimulatorFaults, Int> & Sendable)] = [
        ("latency_ms", \.latencyMilliseconds),
        ("jitter_ms", \.jitterMilliseconds),
        ("goaway_every_streams", \.goAwayEveryStreams),
        ("max_concurrent_streams", \.maxConcurrentStreams),
        ("device_requests_per_second", \.deviceRequestsPerSecond),
    ]

    static let rateFields: [(name: String, path: WritableKeyPath<SimulatorFaults, Double> & Sendable)] = [
        ("too_many_requests_rate", \.tooManyRequestsRate),
        ("internal_server_error_rate", \.internalServerErrorRate),
        ("service_unavailable_rate", \.serviceUnavailableRate),
        ("shutdown_rate", \.shutdownRate),
        ("never_respond_rate", \.neverRespondRate),
        ("reset_connection_rate", \.resetConnectionRate),
    ]

    /// The sum of the rates that replace an acceptance with an error; at most 1.
    var injectedErrorRate: Double {
        tooManyRequestsRate + internalServerErrorRate + serviceUnavailableRate + shutdownRate
    }

    /// The setting names, as JSON keys and as `name=value` flag arguments.
    public static var settingNames: [String] { integerFields.map(\.name) + rateFields.map(\.name) }

    /// These faults with the members of a JSON object applied; members not named keep their value.
    /// Unknown names, wrong types and out-of-range values are errors, and then nothing changes.
    public func applying(json: [UInt8], source: String) throws(SimulatorConfigurationError) -> SimulatorFaults {
        guard case .object(let object)? = try? JSONParser.parse(json) else {
            throw SimulatorConfigurationError(source: source, message: "expected a JSON object of fault settings")
        }
        return try applying(object.members, source: source)
    }

    /// These faults with one setting changed, from a command-line `name=value` (`latency_ms=40`,
    /// `shutdown_rate=0.01`), checked like ``applying(json:source:)``.
    public func applying(setting: String, source: String) throws(SimulatorConfigurationError) -> SimulatorFaults {
        let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let value = try? JSONParser.parse(Array(parts[1].utf8)) else {
            throw SimulatorConfigurationError(source: source, key: parts.first, message: "expected name=number, got \"\(setting)\"")
        }
        return try applying([JSONObject.Member(parts[0], value)], source: source)
    }

    private func applying(_ members: [JSONObject.Member], source: String) throws(SimulatorConfigurationError) -> SimulatorFaults {
        var updated = self
        for member in members {
            if let field = Self.integerFields.first(where: { $0.name == member.key }) {
                guard case .integer(let value) = member.value, value >= 0, value <= Int64(Int32.max) else {
                    throw SimulatorConfigurationError(source: source, key: member.key, message: "expected a non-negative integer")
                }
                updated[keyPath: field.path] = Int(value)
            } else if let field = Self.rateFields.first(where: { $0.name == member.key }) {
                guard let value = member.value.numberValue, value >= 0, value <= 1 else {
                    throw SimulatorConfigurationError(source: source, key: member.key, message: "expected a rate from 0 to 1")
                }
                updated[keyPath: field.path] = value
            } else {
                throw SimulatorConfigurationError(source: source, key: member.key,
                                                  message: "unknown fault; known: \(Self.settingNames.joined(separator: ", "))")
            }
        }
        guard updated.injectedErrorRate <= 1 else {
            throw SimulatorConfigurationError(source: source, message: "the error rates add up to more than 1")
        }
        guard updated.neverRespondRate + updated.resetConnectionRate <= 1 else {
            throw SimulatorConfigurationError(source: source, message: "never_respond_rate + reset_connection_rate is more than 1")
        }
        return updated
    }

    /// Every setting as one JSON object, with the names ``applying(json:source:)`` reads.
    public var json: JSONValue {
        var object = JSONObject()
        for field in Self.integerFields { object.members.append(.init(field.name, .integer(Int64(self[keyPath: field.path])))) }
        for field in Self.rateFields { object.members.append(.init(field.name, .double(self[keyPath: field.path]))) }
        return .object(object)
    }
}
