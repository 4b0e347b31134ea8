import APNsCore

/// The JSON body of an APNs rejection: `{"reason": …}` and, for 410, `"timestamp"` in milliseconds.
struct APNsResponseBody {
    var reason: RejectionReason?
    var timestamp: Int64?

    init(_ body: [UInt8]) {
        guard !body.isEmpty, case .object(let object)? = try? JSONParser.parse(body) else { return }
        reason = object["reason"]?.stringValue.map(RejectionReason.init)
        if let value = object["timestamp"] {
            switch value {
            case .integer(let milliseconds): timestamp = milliseconds
            case .double(let milliseconds): timestamp = Int64(milliseconds)
            case .string(let text): timestamp = Int64(text)
            default: break
            }
        }
    }
}
