import APNsCore
import Testing

/// The lookup behind intent fields and `aps` key types: every name finds its value, anything else
/// finds nothing.
@Suite("NameTable")
struct NameTableTests {
    static let entries = [("id", 1), ("app", 2), ("user", 3), ("args", 4), ("interruption-level", 5)]
    static let table = NameTable(entries)

    @Test("each name finds its own value, also among names of the same length",
          arguments: [("id", 1), ("app", 2), ("user", 3), ("args", 4), ("interruption-level", 5)])
    func findsEachName(name: String, value: Int) {
        #expect(Self.table[name] == value)
    }

    @Test("a name not in the table finds nothing, whatever its length",
          arguments: ["", "i", "ID", "apq", "users", "arg", "interruption_level", "interruption-levels",
                      String(repeating: "x", count: 100), "ïd", "app\u{301}"])
    func unknownNames(name: String) {
        #expect(Self.table[name] == nil)
    }

    @Test("a key's UTF-8 bytes find what a Dictionary finds for its String", arguments: [
        "id", "app", "user", "args", "interruption-level", "", "i", "ID", "apq", "users", "interruption_level", "ïd", "app\u{301}",
    ])
    func findsByBytes(name: String) {
        let found = Array(name.utf8).withUnsafeBufferPointer { Self.table[utf8: $0] }
        #expect(found == Dictionary(uniqueKeysWithValues: Self.entries)[name])
    }

    @Test("names given in any order of lengths, the empty name among them, each find their own value")
    func namesInAnyOrder() {
        let entries = [("interruption-level", 1), ("", 2), ("badge", 3), ("id", 4), ("sound", 5), ("a", 6)]
        let table = NameTable(entries)
        for (name, value) in entries {
            #expect(table[name] == value, "\(name)")
            #expect(Array(name.utf8).withUnsafeBufferPointer { table[utf8: $0] } == value, "\(name)")
        }
        #expect(table["sounds"] == nil)
        #expect(table["b"] == nil)
    }

    @Test("an empty table finds nothing")
    func emptyTable() {
        #expect(NameTable<Int>([])["id"] == nil)
        #expect(NameTable<Int>([])[""] == nil)
    }
}
