import PushlineTestKit
import Testing

/// Every intent `e2e-0..<total` has exactly one `accepted` outcome — two at most for the deliveries
/// of `window` (claim keys) — and every other outcome is a `suppressed` `DuplicateIntent` (a
/// redelivered message whose delivery had already been sent).
func expectOneAcceptedPerDelivery(_ outcomes: [OutcomeLog.Outcome], total: Int, toleratingTwiceFor window: Set<String> = [],
                                  sourceLocation: SourceLocation = #_sourceLocation) {
    expectAcceptedAtMostOnce(outcomes, total: total, toleratingTwiceFor: window, sourceLocation: sourceLocation)
    expectEveryDeliveryAccepted(outcomes, total: total, sourceLocation: sourceLocation)
}

/// No intent `e2e-0..<total` has more than one `accepted` outcome (two for the deliveries of
/// `window`), and every outcome that is not `accepted` is a `suppressed` `DuplicateIntent`.
func expectAcceptedAtMostOnce(_ outcomes: [OutcomeLog.Outcome], total: Int, toleratingTwiceFor window: Set<String> = [],
                              sourceLocation: SourceLocation = #_sourceLocation) {
    let accepted = Dictionary(grouping: outcomes.filter { $0.status == "accepted" }, by: \.intentID)
    let excess = (0..<total).filter { (accepted["e2e-\($0)"]?.count ?? 0) > (window.contains(claimKey($0)) ? 2 : 1) }
    #expect(excess.isEmpty, "\(excess.count) intents have too many accepted outcomes, e.g. e2e-\(excess.prefix(5))",
            sourceLocation: sourceLocation)
    let others = outcomes.filter { $0.status != "accepted" }
    #expect(others.allSatisfy { $0.status == "suppressed" && $0.reason == "DuplicateIntent" },
            "unexpected outcomes: \(others.filter { $0.reason != "DuplicateIntent" }.prefix(5))", sourceLocation: sourceLocation)
}

/// Every intent `e2e-0..<total` has an `accepted` outcome.
func expectEveryDeliveryAccepted(_ outcomes: [OutcomeLog.Outcome], total: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let accepted = Set(outcomes.filter { $0.status == "accepted" }.map(\.intentID))
    let missing = (0..<total).filter { !accepted.contains("e2e-\($0)") }
    #expect(missing.isEmpty, "\(missing.count) intents have no accepted outcome, e.g. e2e-\(missing.prefix(5))", sourceLocation: sourceLocation)
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

/// The idempotency claim of intent `e2e-<index>` to its one device (docs/pipeline-stores.md).
func claimKey(_ index: Int) -> String {
    "pushline:claim:\(EndToEndStack.token(index)):e2e-\(index)"
}
