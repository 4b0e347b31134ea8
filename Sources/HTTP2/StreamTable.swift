/// Values by HTTP/2 stream id, for the streams of one connection.
///
/// A `Dictionary` hashes every key with SipHash; stream ids need none of that: those of one side are
/// consecutive odd (or even) numbers, so `id / 2` spreads them over the slots as they are. Open
/// addressing with linear probing, at most half full; removal shifts the entries after it back, so
/// no slot is ever marked deleted.
struct StreamTable<Value> {
    /// 0 marks an empty slot: stream 0 is the connection itself, never a stream.
    private var keys: [Int32]
    private var values: [Value?]
    private(set) var count = 0

    init() {
        keys = Array(repeating: 0, count: 16)
        values = Array(repeating: nil, count: 16)
    }

    var isEmpty: Bool { count == 0 }

    subscript(streamID: Int32) -> Value? {
        get { slot(of: streamID).map { values[$0]! } }
        set {
            if let newValue {
                insert(newValue, for: streamID)
            } else {
                removeValue(forKey: streamID)
            }
        }
    }

    /// Removes the stream's value and returns it.
    @discardableResult
    mutating func removeValue(forKey streamID: Int32) -> Value? {
        guard var hole = slot(of: streamID) else { return nil }
        let removed = values[hole]
        let mask = keys.count - 1
        // Backward-shift deletion: move later entries of the run into the hole when their home
        // slot does not lie between the hole and them.
        var next = (hole + 1) & mask
        while keys[next] != 0 {
            let home = Self.home(of: keys[next], mask: mask)
            if (next - home) & mask >= (next - hole) & mask {
                keys[hole] = keys[next]
                values[hole] = values[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        keys[hole] = 0
        values[hole] = nil
        count -= 1
        return removed
    }

    /// Empties the table and returns its entries in stream order.
    mutating func removeAll() -> [(streamID: Int32, value: Value)] {
        let entries = sortedEntries()
        self = StreamTable()
        return entries
    }

    /// The entries in stream order.
    func sortedEntries() -> [(streamID: Int32, value: Value)] {
        keys.indices.compactMap { index in keys[index] == 0 ? nil : (keys[index], values[index]!) }.sorted { $0.streamID < $1.streamID }
    }

    private mutating func insert(_ value: Value, for streamID: Int32) {
        if let existing = slot(of: streamID) {
            values[existing] = value
            return
        }
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var index = Self.home(of: streamID, mask: mask)
        while keys[index] != 0 { index = (index + 1) & mask }
        keys[index] = streamID
        values[index] = value
        count += 1
    }

    private func slot(of streamID: Int32) -> Int? {
        let mask = keys.count - 1
        var index = Self.home(of: streamID, mask: mask)
        while keys[index] != 0 {
            if keys[index] == streamID { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    private mutating func grow() {
        let entries = keys.indices.compactMap { keys[$0] == 0 ? nil : (keys[$0], values[$0]!) }
        keys = Array(repeating: 0, count: keys.count * 2)
        values = Array(repeating: nil, count: keys.count)
        count = 0
        for (streamID, value) in entries { insert(value, for: streamID) }
    }

    private static func home(of streamID: Int32, mask: Int) -> Int {
        Int(streamID >> 1) & mask
    }
}
