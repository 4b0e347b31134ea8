/// A lookup from the few names of a JSON schema (an intent's fields, the keys of `aps`) to values,
/// for keys read from every message: the names are grouped by UTF-8 length, and a key's bytes are
/// compared with those of the one to four names of its length. For short keys that costs a
/// fraction of hashing them into a `Dictionary`, and far less than comparing with every name in
/// turn.
///
/// A key may also be looked up by its UTF-8 bytes, as a parser reads them (``subscript(utf8:)``):
/// no `String` is made for it.
///
/// Names are ASCII. A key is found exactly when a `Dictionary` would find it, except for the three
/// code points Unicode makes canonically equivalent to ASCII characters (U+212A for `K`, U+037E for
/// `;`, U+1FEF for `` ` ``): spelled with those, a key has another UTF-8 length than the name, and
/// no other spelling of an ASCII name is canonically equivalent to it, so comparing bytes finds
/// what comparing `String`s would.
public struct NameTable<Value: Sendable>: Sendable {
    /// Every name's UTF-8, one after another, shortest names first: the names of length `n` are the
    /// `n`-byte pieces from `firstByte[n]` on. Flat arrays of plain values, so a lookup touches no
    /// reference count.
    @usableFromInline let names: [UInt8]
    /// The values, in the order of ``names``: those of the names of length `n` from `firstValue[n]`
    /// to `firstValue[n + 1]`.
    @usableFromInline let values: [Value]
    /// Per length (0 to the longest name's + 1), the first name at least that long: its place in
    /// ``values`` and where its bytes begin in ``names``.
    @usableFromInline let firstValue: [Int]
    @usableFromInline let firstByte: [Int]

    /// A table of `entries`; each name must be ASCII and appear once.
    public init(_ entries: [(String, Value)]) {
        for (index, (name, _)) in entries.enumerated() {
            precondition(name.utf8.allSatisfy { $0 < 0x80 }, "\"\(name)\" is not ASCII")
            precondition(!entries[..<index].contains { $0.0 == name }, "\"\(name)\" appears twice in a NameTable")
        }
        // Shortest first, in the given order within a length.
        let sorted = entries.enumerated().sorted { ($0.element.0.utf8.count, $0.offset) < ($1.element.0.utf8.count, $1.offset) }.map(\.element)
        let longest = sorted.last?.0.utf8.count ?? 0
        names = sorted.flatMap { Array($0.0.utf8) }
        values = sorted.map(\.1)
        var firstValue: [Int] = []
        var firstByte: [Int] = []
        var index = 0
        var byte = 0
        for length in 0...(longest + 1) {
            while index < sorted.count, sorted[index].0.utf8.count < length {
                byte += sorted[index].0.utf8.count
                index += 1
            }
            firstValue.append(index)
            firstByte.append(byte)
        }
        self.firstValue = firstValue
        self.firstByte = firstByte
    }

    /// The value of `name`, or nil when the table does not hold it.
    @inlinable
    public subscript(name: String) -> Value? {
        if let found = name.utf8.withContiguousStorageIfAvailable({ self[utf8: $0] }) { return found }
        var contiguous = name
        return contiguous.withUTF8 { self[utf8: $0] }
    }

    /// The value of the name whose UTF-8 is `utf8`, or nil when the table does not hold it: the
    /// same answer as ``subscript(_:)`` for the `String` of these bytes, which need not be made.
    /// Inlinable, so that it is specialized for the caller's value type instead of running generic
    /// code per key.
    @inlinable
    public subscript(utf8 name: UnsafeBufferPointer<UInt8>) -> Value? {
        let length = name.count
        guard length + 1 < firstValue.count else { return nil }
        let first = firstValue[length]
        let end = firstValue[length + 1]
        guard length > 0 else { return first < end ? values[first] : nil }
        let key = name.baseAddress!
        return names.withUnsafeBufferPointer { names in
            var candidate = names.baseAddress! + firstByte[length]
            for index in first..<end {
                var offset = 0
                while offset < length, candidate[offset] == key[offset] { offset += 1 }
                if offset == length { return values[index] }
                candidate += length
            }
            return nil
        }
    }
}
