@testable import HTTP2
import Testing

@Suite("StreamTable: values by stream id")
struct StreamTableTests {
    @Test("scrambled inserts, replacements and removals leave the same entries as a Dictionary")
    func matchesDictionary() {
        var table = StreamTable<Int>()
        var reference: [Int32: Int] = [:]
        // Ids mostly as a client opens them (odd, rising); removals and replacements among the last 200
        // opened, so runs of neighbours wrap around the slots and the table grows and shrinks.
        var nextID: Int32 = 1
        for step in 0..<20_000 {
            let scrambled = (step &* 2_654_435_761) >> 7 & 0xFFFF
            let recent = max(nextID - 2 * Int32(scrambled % 200) - 2, 1)
            switch scrambled % 3 {
            case 0 where scrambled % 5 == 0:
                // Now and then an id far from the others, so entries collide and get displaced.
                let farID = Int32(scrambled) * 2 + 1_000_001
                table[farID] = step
                reference[farID] = step
            case 0:
                table[nextID] = step
                reference[nextID] = step
                nextID += 2
            case 1:
                #expect(table.removeValue(forKey: recent) == reference.removeValue(forKey: recent))
            default:
                table[recent] = table[recent].map { _ in -step }
                reference[recent] = reference[recent].map { _ in -step }
            }
            #expect(table.count == reference.count)
        }
        for streamID in Array(stride(from: Int32(1), to: nextID, by: 2)) + reference.keys.filter({ $0 > 1_000_000 }) {
            #expect(table[streamID] == reference[streamID], "stream \(streamID)")
        }
        for farID in reference.keys.filter({ $0 > 1_000_000 }) {
            #expect(table.removeValue(forKey: farID) == reference.removeValue(forKey: farID))
        }
        #expect(table.count == reference.count)
        #expect(table.sortedEntries().map(\.streamID) == reference.keys.sorted())
    }

    @Test("removing every entry in stream order hands them all back and leaves it empty")
    func removeAllInOrder() {
        var table = StreamTable<String>()
        for streamID in stride(from: Int32(99), through: 1, by: -2) { table[streamID] = "s\(streamID)" }
        let entries = table.removeAll()
        #expect(entries.map(\.streamID) == Array(stride(from: Int32(1), through: 99, by: 2)))
        #expect(entries.allSatisfy { $0.value == "s\($0.streamID)" })
        #expect(table.isEmpty)
        #expect(table[1] == nil)
    }
}
