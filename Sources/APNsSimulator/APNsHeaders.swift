#if canImport(Glibc)
import Glibc
#endif
import HTTPFields

/// Where the fields APNs reads lie in a request's field block (``SimulatorRequest/fields``), found
/// in one pass over the fields as the transport received them: the checks of one push read them
/// about ten times, each in place (``SimulatorRequest/withBytes(_:_:)``) or made a `String` only
/// where a check needs one (``SimulatorRequest/text(_:)``). Ranges only, so passing it around
/// copies no reference.
///
/// Only these names count for `DuplicateHeaders`: the simulator ignores every other header (spec
/// §7.5), repeated or not. Each value is the first one sent.
struct APNsHeaders: Sendable {
    private(set) var method: Range<Int>?
    private(set) var path: Range<Int>?
    private(set) var authorization: Range<Int>?
    private(set) var id: Range<Int>?
    private(set) var expiration: Range<Int>?
    private(set) var priority: Range<Int>?
    private(set) var topic: Range<Int>?
    private(set) var pushType: Range<Int>?
    private(set) var collapseID: Range<Int>?
    private(set) var channelID: Range<Int>?
    private(set) var requestID: Range<Int>?
    /// Whether one of these names appears more than once.
    private(set) var hasRepeatedName = false

    init(_ fields: HTTPFieldBlock) {
        fields.forEachField { name, value in read(name, value) }
    }

    /// Names are told apart by their length first, so most fields are compared with one name.
    private mutating func read(_ name: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) {
        let isNew: Bool
        switch name.count {
        case 5 where Self.is(name, ":path"): isNew = Self.keep(value, in: &path, counting: false)
        case 7 where Self.is(name, ":method"): isNew = Self.keep(value, in: &method, counting: false)
        case 7 where Self.is(name, "apns-id"): isNew = Self.keep(value, in: &id)
        case 10 where Self.is(name, "apns-topic"): isNew = Self.keep(value, in: &topic)
        case 13 where Self.is(name, "authorization"): isNew = Self.keep(value, in: &authorization)
        case 13 where Self.is(name, "apns-priority"): isNew = Self.keep(value, in: &priority)
        case 14 where Self.is(name, "apns-push-type"): isNew = Self.keep(value, in: &pushType)
        case 15 where Self.is(name, "apns-expiration"): isNew = Self.keep(value, in: &expiration)
        case 15 where Self.is(name, "apns-channel-id"): isNew = Self.keep(value, in: &channelID)
        case 15 where Self.is(name, "apns-request-id"): isNew = Self.keep(value, in: &requestID)
        case 16 where Self.is(name, "apns-collapse-id"): isNew = Self.keep(value, in: &collapseID)
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
