import APNsCore
@testable import Pipeline
import Testing

@Suite("A settled claim's text")
struct ClaimValueTextTests {
    private static let key = DeliveryKey(intentID: "intent-1", deviceToken: try! DeviceToken(String(repeating: "ab", count: 32)))
    private static let source = SourcePosition(topic: "pushline.intents", partition: 3, offset: 42)

    @Test("an outcome's fields in the documented order, null where absent, text escaped, the release time only when there is one")
    func outcomeText() {
        let full = SettledOutcome(source: Self.source, status: .rejected, completedAt: 1_700_000_000_123, reason: "Bad\"Device\\Token",
                                  apnsUniqueID: "5f1c", apnsStatus: 400, apnsTimestamp: -1, attempts: 2, latencyMilliseconds: 12.5)
        #expect(String(decoding: ClaimValue.encoded(SettledClaim(Self.key, outcome: full)), as: UTF8.self)
            == #"failed ["pushline.intents",3,42,"rejected",1700000000123,2,"Bad\"Device\\Token","5f1c",400,-1,12.5]"#)
        let bare = SettledOutcome(source: Self.source, status: .accepted, completedAt: 0)
        #expect(String(decoding: ClaimValue.encoded(SettledClaim(Self.key, outcome: bare)), as: UTF8.self)
            == #"sent ["pushline.intents",3,42,"accepted",0,0,null,null,null,null,null]"#)
        let deferred = SettledOutcome(source: Self.source, status: .deferred, completedAt: 5, latencyMilliseconds: .infinity,
                                      releaseAt: Int64.max)
        #expect(String(decoding: ClaimValue.encoded(SettledClaim(Self.key, outcome: deferred)), as: UTF8.self)
            == #"failed ["pushline.intents",3,42,"deferred",5,0,null,null,null,null,null,9223372036854775807]"#)
        let escaped = SettledOutcome(source: Self.source, status: .failed, completedAt: 1, reason: "line\nbreak\u{01}é", apnsUniqueID: "")
        #expect(String(decoding: ClaimValue.encoded(SettledClaim(Self.key, outcome: escaped)), as: UTF8.self)
            == #"failed ["pushline.intents",3,42,"failed",1,0,"line\nbreak\u0001é","",null,null,null]"#)
        #expect(String(decoding: ClaimValue.encoded(SettledClaim(Self.key, state: .sent)), as: UTF8.self) == "sent")
    }

    @Test("a long reason goes on past the writer's room, byte for byte, and reads back")
    func longReason() {
        let reason = String(repeating: "the notification could not be handed to APNs \"quoted\"; ", count: 40)
        let outcome = SettledOutcome(source: Self.source, status: .failed, completedAt: 7, reason: reason)
        let text = ClaimValue.encoded(SettledClaim(Self.key, outcome: outcome))
        let escapedReason = String(repeating: #"the notification could not be handed to APNs \"quoted\"; "#, count: 40)
        #expect(String(decoding: text, as: UTF8.self)
            == #"failed ["pushline.intents",3,42,"failed",7,0,""# + escapedReason + #"",null,null,null,null]"#)
        #expect(ClaimValue.decode(text)?.outcome == outcome)
        var appended = Array("prefix".utf8)
        ClaimValue.encode(SettledClaim(Self.key, outcome: outcome), into: &appended)
        #expect(appended == Array("prefix".utf8) + text)
    }

    @Test("a deferral's prefix is a deferred outcome's text up to its status, and a comma")
    func deferralPrefix() {
        var prefix: [UInt8] = []
        ClaimValue.appendDeferral(by: Self.source, to: &prefix)
        #expect(String(decoding: prefix, as: UTF8.self) == #"failed ["pushline.intents",3,42,"deferred","#)
        let deferred = ClaimValue.encoded(SettledClaim(Self.key, outcome: SettledOutcome(source: Self.source, status: .deferred, completedAt: 1)))
        #expect(deferred.starts(with: prefix))
    }
}
