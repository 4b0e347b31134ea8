/// Checks a ``NotificationRequest`` against the APNs rules and returns every violation, not just
/// the first, each with a detail naming the key and the value at fault.
public enum NotificationValidator {
    /// All violations of `request`, in a stable order: headers and path, then the body.
    public static func violations(in request: NotificationRequest) -> [Violation] {
        violations(in: request, writtenFrom: nil)
    }

    /// All violations of `request`, whose body is `payload`'s bytes: the same checks in the same
    /// order, but the body's rules run on the tree the bytes were written from instead of on the
    /// bytes parsed back. The size is still the bytes' exact size.
    public static func violations(in request: NotificationRequest, payload: WrittenPayload) -> [Violation] {
        precondition(request.payload == payload.bytes, "the request's body must be the written payload's bytes")
        return violations(in: request, writtenFrom: payload.document)
    }

    /// The violations of `request`'s headers and path alone: for a body whose rules were checked
    /// once for its shape, such as an enrichment template's payload written into its skeleton.
    public static func headerViolations(in request: NotificationRequest) -> [Violation] {
        var found: [Violation] = []
        checkHeaders(request, into: &found)
        return found
    }

    private static func violations(in request: NotificationRequest, writtenFrom document: JSONObject?) -> [Violation] {
        var found: [Violation] = []
        checkHeaders(request, into: &found)
        checkBody(request, writtenFrom: document, into: &found)
        return found
    }

    // MARK: Headers and path

    private static func checkHeaders(_ request: NotificationRequest, into found: inout [Violation]) {
        if case .device(let token?) = request.destination, let violation = DeviceToken.violation(token) {
            found.append(violation)
        }
        if let topic = request.topic {
            if topic.isEmpty {
                found.append(Violation(.missingTopic, "apns-topic is empty"))
            } else if request.destination == .broadcast {
                // A broadcast is published to the bare bundle id whatever its push type; APNs answers
                // a suffixed one with TopicDisallowed (spec §6.1).
                if let suffixed = PushType.owningSuffix(of: topic) {
                    found.append(Violation(.topicSuffixMismatch, "broadcasts go to the bare bundle id, but \"\(topic)\" is a \(suffixed.rawValue) topic"))
                }
            } else if let mismatch = request.pushType.topicMismatch(topic) {
                found.append(Violation(.topicSuffixMismatch, mismatch))
            }
        }
        if let collapseID = request.collapseID, let violation = CollapseID.violation(collapseID) {
            found.append(violation)
        }
        let priority = request.effectivePriority
        if request.pushType == .background, priority != .powerConsiderate {
            found.append(Violation(.backgroundPriority, "background pushes must use priority 5, got \(priority)"))
        }
        if request.pushType == .liveActivity, priority == .lowPower {
            found.append(Violation(.badPriority, "liveactivity pushes use priority 5 or 10, got \(priority)"))
        }
    }

    // MARK: Body

    /// The body's rules: its size, then its document, parsed from the bytes unless the tree they
    /// were written from is given.
    private static func checkBody(_ request: NotificationRequest, writtenFrom document: JSONObject?,
                                  into found: inout [Violation]) {
        let size = request.payload.count
        guard size > 0 else {
            found.append(Violation(.payloadEmpty, "the payload is empty"))
            return
        }
        if size > request.payloadLimit {
            found.append(Violation(
                .payloadTooLarge,
                "payload is \(size) bytes; the limit for \(limitName(request)) is \(request.payloadLimit)"
            ))
        }
        guard let root = document ?? parsedRoot(request.payload, into: &found) else { return }
        for key in root.repeatedKeys {
            if key == PayloadKey.aps {
                found.append(Violation(.customKeyNamedAps, "a custom key is named \"aps\", which APNs reserves"))
            } else {
                found.append(Violation(.duplicateKey, "key \"\(key)\" appears more than once"))
            }
        }
        guard let apsValue = root[PayloadKey.aps] else {
            found.append(Violation(.missingAps, "payload has no \"aps\" dictionary"))
            return
        }
        guard case .object(let aps) = apsValue else {
            found.append(Violation(.apsNotObject, "\"aps\" is a \(apsValue.typeName), not a dictionary"))
            return
        }
        ApsChecker(aps: aps, request: request).check(into: &found)
    }

    /// The payload's root object parsed from its bytes, or nil with the violation that stops it.
    private static func parsedRoot(_ payload: [UInt8], into found: inout [Violation]) -> JSONObject? {
        let document: JSONValue
        do {
            document = try JSONParser.parse(payload)
        } catch {
            found.append(Violation(.malformedJSON, "payload is not JSON: \(error)"))
            return nil
        }
        guard case .object(let root) = document else {
            found.append(Violation(.payloadNotObject, "payload is a JSON \(document.typeName), not an object"))
            return nil
        }
        return root
    }

    private static func limitName(_ request: NotificationRequest) -> String {
        request.destination == .broadcast ? "broadcast" : "push type \(request.pushType)"
    }
}

/// The rules inside `aps`: value types, then the rules that span keys and push types.
private struct ApsChecker {
    let aps: JSONObject
    let request: NotificationRequest

    func check(into found: inout [Violation]) {
        for key in aps.repeatedKeys {
            found.append(Violation(.duplicateKey, "key \"aps.\(key)\" appears more than once"))
        }
        checkTypes(into: &found)
        checkBackground(into: &found)
        checkContentRules(into: &found)
        if request.pushType == .liveActivity { checkLiveActivity(into: &found) }
    }

    private var hasAlert: Bool { aps[PayloadKey.alert] != nil }

    private func checkTypes(into found: inout [Violation]) {
        for member in aps.members {
            guard let expected = Self.expectedTypes[member.key] else { continue }
            if !expected.accepts(member.value) {
                found.append(wrongType("aps.\(member.key)", member.value, expected))
            }
        }
        if case .object(let alert) = aps[PayloadKey.alert] {
            for member in alert.members {
                let expected: ExpectedType = member.key.hasSuffix("loc-args") ? .stringArray : .string
                if !expected.accepts(member.value) {
                    found.append(wrongType("aps.alert.\(member.key)", member.value, expected))
                }
            }
        }
        if case .object(let sound) = aps[PayloadKey.sound] {
            let expectations: [(String, ExpectedType)] = [
                (PayloadKey.critical, .integer), (PayloadKey.name, .string), (PayloadKey.volume, .number),
            ]
            for (key, expected) in expectations {
                if let value = sound[key], !expected.accepts(value) {
                    found.append(wrongType("aps.sound.\(key)", value, expected))
                }
            }
        }
    }

    private func wrongType(_ path: String, _ value: JSONValue, _ expected: ExpectedType) -> Violation {
        Violation(.wrongValueType, "\(path) must be \(expected.name), got \(value.typeName)")
    }

    private func checkBackground(into found: inout [Violation]) {
        guard request.pushType == .background else { return }
        let forbidden = [PayloadKey.alert, PayloadKey.sound, PayloadKey.badge].filter { aps[$0] != nil }
        if !forbidden.isEmpty {
            let keys = forbidden.map { "aps.\($0)" }.joined(separator: ", ")
            found.append(Violation(.backgroundWithAlertSoundOrBadge, "background pushes carry no alert, sound or badge; found \(keys)"))
        }
        if aps[PayloadKey.contentAvailable] != .integer(1) {
            found.append(Violation(.backgroundWithoutContentAvailable, "background pushes need aps.content-available = 1"))
        }
    }

    private func checkContentRules(into found: inout [Violation]) {
        if aps[PayloadKey.mutableContent] == .integer(1), !hasAlert {
            found.append(Violation(.mutableContentWithoutAlert, "aps.mutable-content = 1 needs an aps.alert for the extension to modify"))
        }
        if let level = aps[PayloadKey.interruptionLevel]?.stringValue, InterruptionLevel(rawValue: level) == nil {
            let known = InterruptionLevel.all.map(\.rawValue).joined(separator: ", ")
            found.append(Violation(.unknownInterruptionLevel, "aps.interruption-level \"\(level)\" is not one of \(known)"))
        }
        // Live Activities may use any relevance score to order several activities (spec §4.2).
        if request.pushType != .liveActivity, let score = aps[PayloadKey.relevanceScore]?.numberValue, !(0...1).contains(score) {
            found.append(Violation(.relevanceScoreOutOfRange, "aps.relevance-score \(score) is outside 0…1"))
        }
        if case .object(let sound) = aps[PayloadKey.sound], let volume = sound[PayloadKey.volume]?.numberValue,
           !(0...1).contains(volume) {
            found.append(Violation(.criticalSoundVolumeOutOfRange, "aps.sound.volume \(volume) is outside 0…1"))
        }
    }

    private func checkLiveActivity(into found: inout [Violation]) {
        if aps[PayloadKey.timestamp] == nil {
            found.append(Violation(.liveActivityMissingTimestamp, "Live Activity pushes need aps.timestamp (UNIX seconds)"))
        }
        guard let eventValue = aps[PayloadKey.event] else {
            found.append(Violation(.liveActivityMissingEvent, "Live Activity pushes need aps.event (start, update or end)"))
            return
        }
        guard let name = eventValue.stringValue else { return }
        guard let event = LiveActivityEvent(rawValue: name) else {
            found.append(Violation(.liveActivityUnknownEvent, "aps.event \"\(name)\" is not start, update or end"))
            return
        }
        if event == .start {
            let missing = [PayloadKey.attributesType, PayloadKey.attributes, PayloadKey.contentState, PayloadKey.alert]
                .filter { aps[$0] == nil }
            if !missing.isEmpty {
                let keys = missing.map { "aps.\($0)" }.joined(separator: ", ")
                found.append(Violation(.liveActivityIncompleteStart, "a start event needs \(keys)"))
            }
        } else if aps[PayloadKey.contentState] == nil {
            found.append(Violation(.liveActivityMissingContentState, "an \(event) event needs aps.content-state"))
        }
    }

    /// The JSON type each documented `aps` key must have.
    private static let expectedTypes = NameTable<ExpectedType>([
        (PayloadKey.alert, .stringOrObject),
        (PayloadKey.badge, .integer),
        (PayloadKey.sound, .stringOrObject),
        (PayloadKey.threadID, .string),
        (PayloadKey.category, .string),
        (PayloadKey.contentAvailable, .integer),
        (PayloadKey.mutableContent, .integer),
        (PayloadKey.targetContentID, .string),
        (PayloadKey.interruptionLevel, .string),
        (PayloadKey.relevanceScore, .number),
        (PayloadKey.filterCriteria, .string),
        (PayloadKey.timestamp, .number),
        (PayloadKey.event, .string),
        (PayloadKey.contentState, .object),
        (PayloadKey.staleDate, .number),
        (PayloadKey.dismissalDate, .number),
        (PayloadKey.attributesType, .string),
        (PayloadKey.attributes, .object),
        (PayloadKey.inputPushToken, .integer),
        (PayloadKey.inputPushChannel, .string),
    ])
}

/// A JSON type a key must have.
private enum ExpectedType {
    case string, integer, number, object, stringOrObject, stringArray

    var name: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .number: "a number"
        case .object: "an object"
        case .stringOrObject: "a string or an object"
        case .stringArray: "an array of strings"
        }
    }

    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.integer, .integer), (.number, .integer), (.number, .double),
             (.object, .object), (.stringOrObject, .string), (.stringOrObject, .object):
            true
        case (.stringArray, .array(let elements)):
            elements.allSatisfy { $0.stringValue != nil }
        default:
            false
        }
    }
}
