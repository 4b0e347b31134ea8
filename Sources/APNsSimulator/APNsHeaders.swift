#if canImport(Glibc)
import Glibc
#endif
import HTTPFields

/// Where the fields APNs reads lie in a request's field block, found in one pass over the fields as
/// the transport received them: the checks of one push read them about ten times, and each is read
/// in place (``withBytes(_:_:)``) or made a `String` only when a check needs one.
///
/// Only these names count for `DuplicateHeaders`: the simulator ignores every other header (spec
/// §7.5), repeated or not. Each value is the first one sent.
struct APNsHeaders: Sendable {
    /// The request's fields, pseudo-headers included; the ranges below point into them.
    let fields: HTTPFieldBlock
    private(set) var methodRange: Range<Int>?
    private(set) var pathRange: Range<Int>?
    private(set) var authorizationRange: Range<Int>?
    private(set) var idRange: Range<Int>?
    private(set) var expirationRange: Range<Int>?
    private(set) var priorityRange: Range<Int>?
    private(set) var topicRange: Range<Int>?
    private(set) var pushTypeRange: Range<Int>?
    private(set) var collapseIDRange: Range<Int>?
    private(set) var channelIDRange: Range<Int>?
    private(set) var requestIDRange: Range<Int>?
    /// Whether one of these names appears more than once.
    private(set) var hasRepeatedName = false

    init(_ fields: HTTPFieldBlock) {
        self.fields = fields
        fields.forEachField { name, value in read(name, value) }
    }

    var method: String? { text(methodRange) }
    var path: String? { text(pathRange) }
    var authorization: String? { text(authorizationRange) }
    var id: String? { text(idRange) }
    var expiration: String? { text(expirationRange) }
    var priority: String? { text(priorityRange) }
    var topic: String? { text(topicRange) }
    var pushType: String? { text(pushTypeRange) }
    var collapseID: String? { text(collapseIDRange) }
    var channelID: String? { text(channelIDRange) }
    var requestID: String? { text(requestIDRange) }

    /// Lends the bytes of a value found above.
    func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        fields.withValue(in: range, body)
    }

    private func text(_ range: Range<Int>?) -> String? {
        range.map(fields.value(in:))
    }

    /// Names are told apart by their length first, so most fields are compared with one name.
    private mutating func read(_ name: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) {
        let isNew: Bool
        switch name.count {
        case 5 where Self.is(name, ":path"): isNew = Self.keep(value, in: &pathRange, counting: false)
        case 7 where Self.is(name, ":method"): isNew = Self.keep(value, in: &methodRange, counting: false)
        case 7 where Self.is(name, "apns-id"): isNew = Self.keep(value, in: &idRange)
        case 10 where Self.is(name, "apns-topic"): isNew = Self.keep(value, in: &topicRange)
        case 13 where Self.is(name, "authorization"): isNew = Self.keep(value, in: &authorizationRange)
        case 13 where Self.is(name, "apns-priority"): isNew = Self.keep(value, in: &priorityRange)
        case 14 where Self.is(name, "apns-push-type"): isNew = Self.keep(value, in: &pushTypeRange)
        case 15 where Self.is(name, "apns-expiration"): isNew = Self.keep(value, in: &expirationRange)
        case 15 where Self.is(name, "apns-channel-id"): isNew = Self.keep(value, in: &channelIDRange)
        case 15 where Self.is(name, "apns-request-id"): isNew = Self.keep(value, in: &requestIDRange)
        case 16 where Self.is(name, "apns-collapse-id"): isNew = Self.keep(value, in: &collapseIDRange)
        default: isNew = true
        }
        if !isNew { hasRepeatedName = true }
    }

    /// Keeps `value` unless the slot holds one already; false when it did and the name counts as
    /// repeated (pseudo-headers do not: HTTP/2 refuses repeated ones before they get here).
    private static func keep(_ value: Range<Int>, in slot: inout Range<Int>?, counting: Bool = true) -> Bool {
        guard slot == nil else { return !counting }
        slot = value
        return true
    }

    /// Whether `name` is `expected`, of the same length already.
    private static func `is`(_ name: UnsafeBufferPointer<UInt8>, _ expected: StaticString) -> Bool {
        memcmp(name.baseAddress!, expected.utf8Start, name.count) == 0
    }
}
