import Testing
@testable import Worker

/// The ledger's table of values by ids handed out in order: lookups, removal in and out of order,
/// ids before the oldest held, and the array given back as its front empties.
@Suite("SequentialTable")
struct SequentialTableTests {
    @Test("values set in order are found by id, removed once, and unknown ids give nil")
    func inOrder() {
        var table = SequentialTable<String>()
        for id in 10..<20 { table.set("v\(id)", at: id) }
        #expect(table.count == 10)
        #expect(table[10] == "v10")
        #expect(table[19] == "v19")
        #expect(table[9] == nil)
        #expect(table[20] == nil)
        #expect(table.remove(10) == "v10")
        #expect(table.remove(10) == nil, "removed once")
        #expect(table[10] == nil)
        #expect(table.count == 9)
    }

    @Test("removal out of order leaves holes that the front skips once it gets there")
    func outOfOrder() {
        var table = SequentialTable<Int>()
        for id in 0..<5 { table.set(id * 100, at: id) }
        #expect(table.remove(2) == 200)
        #expect(table.remove(1) == 100)
        #expect(table[2] == nil)
        #expect(table.remove(0) == 0)
        #expect(table[3] == 300)
        #expect(table[4] == 400)
        #expect(table.count == 2)
        table.set(500, at: 5)
        #expect(table.remove(4) == 400)
        #expect(table.remove(3) == 300)
        #expect(table.remove(5) == 500)
        #expect(table.isEmpty)
    }

    @Test("gaps between ids, ids before the oldest held, and replacing a value")
    func gapsAndEarlierIDs() {
        var table = SequentialTable<String>()
        table.set("a", at: 5)
        table.set("b", at: 9)
        #expect(table[7] == nil)
        #expect(table.count == 2)
        table.set("c", at: 2)
        #expect(table[2] == "c")
        #expect(table[5] == "a")
        #expect(table[9] == "b")
        table.set("a2", at: 5)
        #expect(table[5] == "a2")
        #expect(table.count == 3, "replacing does not count twice")
        #expect(table.remove(9) == "b")
        #expect(table.remove(2) == "c")
        #expect(table.remove(5) == "a2")
        #expect(table.isEmpty)
        table.set("d", at: 100)
        #expect(table[100] == "d")
        #expect(table.count == 1)
    }

    @Test("a long run where one early id stays held keeps every later value findable")
    func longRunWithStragglers() {
        var table = SequentialTable<Int>()
        table.set(-1, at: 0)
        for id in 1...10_000 {
            table.set(id, at: id)
            if id > 3 { #expect(table.remove(id - 3) == id - 3) }
        }
        #expect(table[0] == -1)
        #expect(table.count == 4)
        #expect(table.remove(0) == -1)
        for id in 9_998...10_000 { #expect(table.remove(id) == id) }
        #expect(table.isEmpty)
        // After the front emptied beyond 1,024 slots the array is compacted; ids keep working.
        for id in 20_000..<22_000 { table.set(id, at: id) }
        for id in 20_000..<21_500 { table.remove(id) }
        #expect(table[21_500] == 21_500)
        #expect(table[21_999] == 21_999)
        #expect(table.count == 500)
    }
}
