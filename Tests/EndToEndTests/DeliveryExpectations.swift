import APNsCore
import PushlineTestKit
import Testing

/// Every intent `e2e-0..<total` has exactly one outcome event, `accepted` (or another of
/// `statuses`), and the topic holds no other outcome. The one tolerated exception is the documented window of a crash
/// (docs/worker.md): a delivery of a message at or above its partition's recorded watermark in
/// `copiesAbove` (read from Redis when the worker died; a partition without one has none) may show
/// its outcome twice, byte for byte the same — the redelivery emitted again an outcome Kafka
/// already had but the watermark did not yet cover. `crashes`: how many times the run killed a
/// worker; each restarted owner may emit such an outcome again, so up to one copy per crash.
func expectOneOutcomePerDelivery(_ outcomes: [OutcomeLog.Outcome], total: Int, toleratingCopiesAbove copiesAbove: [Int32: Int64]? = nil,
                                 crashes: Int = 1,
                                 statuses: Set<String> = ["accepted"], sourceLocation: SourceLocation = #_sourceLocation) {
    let byIntent = Dictionary(grouping: outcomes, by: \.intentID)
    let missing = (0..<total).filter { byIntent["e2e-\($0)"] == nil }
    #expect(missing.isEmpty, "\(missing.count) intents have no outcome, e.g. e2e-\(missing.prefix(5))", sourceLocation: sourceLocation)
    let unexpected = Set(byIntent.keys).subtracting((0..<total).map { "e2e-\($0)" })
    #expect(unexpected.isEmpty, "outcomes of unknown intents: \(unexpected.prefix(5))", sourceLocation: sourceLocation)
    let wrong = byIntent.values.filter { copies in
        guard let first = copies.first, statuses.contains(first.status), Set(copies.map(\.raw)).count == 1 else { return true }
        guard copies.count > 1 else { return false }
        guard let copiesAbove, copies.count <= 1 + crashes else { return true }
        return first.offset < copiesAbove[first.partition, default: 0]
    }
    let examples = wrong.prefix(3).map { copies in copies.map(\.raw) }
    #expect(wrong.isEmpty, "\(wrong.count) intents do not have exactly one \(statuses.sorted()) outcome, e.g. \(examples)",
            sourceLocation: sourceLocation)
}

/// At most once (`dedupe.on_uncertain: skip`): no token received its notification twice; those
/// with an `accepted` outcome received it once, those with `unknown` (uncertain after a crash, only
/// claims of `window`) at most once.
func expectInboxAtMostOnce(_ inbox: [String: Int], outcomes: [OutcomeLog.Outcome], total: Int, uncertainWithin window: Set<String>,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    let status = Dictionary(outcomes.map { ($0.intentID, $0.status) }, uniquingKeysWith: { first, _ in first })
    let wrong = (0..<total).filter { index in
        let count = inbox[EndToEndStack.token(index)] ?? 0
        switch status["e2e-\(index)"] {
        case "accepted": return count != 1
        case "unknown": return count > 1 || !window.contains(claimKey(index))
        default: return true
        }
    }
    let examples = wrong.prefix(5).map { "e2e-\($0) (\(status["e2e-\($0)"] ?? "no outcome")): \(inbox[EndToEndStack.token($0)] ?? 0) times" }
    #expect(wrong.isEmpty, "\(wrong.count) tokens were not notified at most once as their outcome says, e.g. \(examples)",
            sourceLocation: sourceLocation)
    #expect(inbox.values.allSatisfy { $0 == 1 }, "a token was notified twice", sourceLocation: sourceLocation)
}

/// The simulator received each token's notification once (twice at most for the claims of `window`).
func expectInboxOnce(_ stack: EndToEndStack, total: Int, toleratingTwiceFor window: Set<String> = [],
                     sourceLocation: SourceLocation = #_sourceLocation) {
    expectInboxOnce(stack.inboxCounts(), total: total, toleratingTwiceFor: window, sourceLocation: sourceLocation)
}

/// `inbox` (notifications per token) holds each token's notification once (twice at most for the
/// claims of `window`).
func expectInboxOnce(_ inbox: [String: Int], total: Int, toleratingTwiceFor window: Set<String> = [],
                     sourceLocation: SourceLocation = #_sourceLocation) {
    let wrong = (0..<total).filter { index in
        let count = inbox[EndToEndStack.token(index)] ?? 0
        return !(window.contains(claimKey(index)) ? 1...2 : 1...1).contains(count)
    }
    let examples = wrong.prefix(5).map { "e2e-\($0): \(inbox[EndToEndStack.token($0)] ?? 0) times" }
    #expect(wrong.isEmpty, "\(wrong.count) tokens received their notification not exactly once, e.g. \(examples)",
            sourceLocation: sourceLocation)
    #expect(inbox.count == total, "the inbox holds notifications for \(inbox.count) tokens", sourceLocation: sourceLocation)
}

/// The idempotency claim of intent `e2e-<index>` to its one device (docs/pipeline-stores.md: keyed
/// by the delivery's derived `apns-id`).
func claimKey(_ index: Int) -> String {
    // The stack's tokens are 64 hex digits by construction.
    let token = try! DeviceToken(EndToEndStack.token(index))
    return "pushline:claim:\(NotificationID.derived(intentID: "e2e-\(index)", deviceToken: token))"
}
