/// A lookup from the few names of a JSON schema (an intent's fields, the keys of `aps`) to values,
/// for keys read from every message: the names are grouped by UTF-8 length, and a key is compared
/// with the one to four names of its length. For short keys that costs a fraction of hashing them
/// into a `Dictionary`, and far less than comparing with every name in turn.
///
/// A key may also be looked up by its UTF-8 bytes, as a parser reads them (``subscript(utf8:)``):
/// no `String` is made for it.
///
/// Names are ASCII. A key is found exactly when a `Dictionary` would find it, except for the three
/// code points Unicode makes canonically equivalent to ASCII characters (U+212A for `K`, U+037E for
/// `;`, U+1FEF for `` ` ``): spelled with those, a key has another UTF-8 length than the name.
public struct NameTable<Value: Sendable>: Sendable {
    @usableFromInline typealias Entry = (name: String, utf8: [UInt8], value: Value)

    /// Entries by the UTF-8 length of their names.
    @usableFromInline let byLength: [[Entry]]

    /// A table of `entries`; each name must be ASCII and appear once.
    public init(_ entries: [(String, Value)]) {
        var byLength = Array(repeating: [Entry](), count: (entries.map(\.0.utf8.count).max() ?? 0) + 1)
        for (name, value) in entries {
            precondition(name.utf8.allSatisfy { $0 < 0x80 }, "\"\(name)\" is not ASCII")
            precondition(!byLength[name.utf8.count].contains { $0.name == name }, "\"\(name)\" appears twice in a NameTable")
            byLength[name.utf8.count].append((name, Array(name.utf8), value))
        }
        self.byLength = byLength
    }

    /// The value of `name`, or nil when the table does not hold it. Inlinable, so that it is
    /// specialized for the caller's value type instead of running generic code per key.
    @inlinable
    public subscript(name: String) -> Value? {
        let length = name.utf8.count
        guard length < byLength.count else { return nil }
        return byLength[length].first { $0.name == name }?.value
    }

    /// The value of the name whose UTF-8 is `utf8`, or nil when the table does not hold it: the
    /// same answer as ``subscript(_:)`` for the `String` of these bytes, which need not be made.
    @inlinable
    public subscript(utf8 name: UnsafeBufferPointer<UInt8>) -> Value? {
        guard name.count < byLength.count else { return nil }
        return byLength[name.count].first { $0.utf8.elementsEqual(name) }?.value
    }
}
