/// Values by HTTP/2 stream id, for the streams of one connection.
///
/// A `Dictionary` hashes every key with SipHash; stream ids need none of that: those of one side are
/// consecutive odd (or even) numbers, so `id / 2` spreads them over the slots as they are. Open
/// addressing with Robin Hood linear probing, at most half full: an entry never sits further from
/// its home slot than the one it displaced, so a lookup stops at the first entry closer to home
/// than itself, and a removal shifts back only the entries after it that are not at home. With
/// rising ids nearly every entry is at home, and each operation touches a slot or two.
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

    /// The stream's object, not retained: for a caller that uses it only while the table holds it,
    /// so that a lookup does not write to the object's reference count (a cache line the lookup
    /// would not otherwise dirty; a server's streams are looked up on every DATA frame).
    func unretainedValue(forKey streamID: Int32) -> Unmanaged<Value>? where Value: AnyObject {
        guard let index = slot(of: streamID) else { return nil }
        return values.withUnsafeBufferPointer { Unmanaged.passUnretained($0[index].unsafelyUnwrapped) }
    }

    /// Removes the stream's value and returns it.
    @discardableResult
    mutating func removeValue(forKey streamID: Int32) -> Value? {
        guard var hole = slot(of: streamID) else { return nil }
        let removed = values[hole].take() // moved out: no retain and release of the value
        let mask = keys.count - 1
        var next = (hole + 1) & mask
        while keys[next] != 0, Self.distance(of: keys[next], at: next, mask: mask) > 0 {
            keys[hole] = keys[next]
            values[hole] = values[next].take()
            hole = next
            next = (next + 1) & mask
        }
        keys[hole] = 0
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
        var key = streamID
        var carried: Value? = value
        var index = Self.home(of: key, mask: mask)
        var distance = 0
        while keys[index] != 0 {
            // Robin Hood: the entry further from its home takes the slot; the other moves on.
            let occupantDistance = Self.distance(of: keys[index], at: index, mask: mask)
            if occupantDistance < distance {
                swap(&keys[index], &key)
                swap(&values[index], &carried)
                distance = occupantDistance
            }
            index = (index + 1) & mask
            distance += 1
        }
        keys[index] = key
        values[index] = carried
        count += 1
    }

    private func slot(of streamID: Int32) -> Int? {
        let mask = keys.count - 1
        var index = Self.home(of: streamID, mask: mask)
        var distance = 0
        while keys[index] != 0 {
            if keys[index] == streamID { return index }
            // Closer to its home than the sought id would be here: the id is not in the table.
            if Self.distance(of: keys[index], at: index, mask: mask) < distance { return nil }
            index = (index + 1) & mask
            distance += 1
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

    /// How many slots past its home the entry at `index` sits.
    private static func distance(of streamID: Int32, at index: Int, mask: Int) -> Int {
        (index - home(of: streamID, mask: mask)) & mask
    }
}
