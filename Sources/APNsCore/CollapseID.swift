/// The `apns-collapse-id` header: notifications with the same id replace each other on the device.
public struct CollapseID: Hashable, Sendable, CustomStringConvertible {
    /// APNs answers `BadCollapseId` above this many UTF-8 bytes.
    public static let maximumBytes = 64

    public let value: String

    public var description: String { value }

    /// Accepts at most 64 UTF-8 bytes; throws a ``Violation`` with reason `BadCollapseId` otherwise.
    public init(_ value: String) throws(Violation) {
        if let violation = Self.violation(value) { throw violation }
        self.value = value
    }

    /// The rule behind the header, shared with the validator.
    static func violation(_ value: String) -> Violation? {
        let bytes = value.utf8.count
        guard bytes > maximumBytes else { return nil }
        return Violation(.badCollapseID, "collapse id is \(bytes) bytes; APNs allows at most \(maximumBytes)")
    }
}
