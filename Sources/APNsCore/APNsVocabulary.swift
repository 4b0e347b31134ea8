/// A closed list of documented wire values (push types, priorities, interruption levels, events)
/// modelled as a struct with static members, so a value Apple adds later can be added without
/// breaking callers' `switch` statements.
public protocol APNsVocabulary: Hashable, Sendable, CustomStringConvertible {
    associatedtype RawValue: Hashable & CustomStringConvertible
    /// The value on the wire.
    var rawValue: RawValue { get }
    /// Every documented value.
    static var all: [Self] { get }
}

extension APNsVocabulary {
    /// The documented value with this wire form, or nil for one Apple does not document.
    /// Inlinable, so callers get a lookup specialised for the concrete vocabulary.
    @inlinable
    public init?(rawValue: RawValue) {
        guard let known = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    public var description: String { rawValue.description }
}
