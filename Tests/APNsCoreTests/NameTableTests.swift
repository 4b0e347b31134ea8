import APNsCore
import Testing

/// The lookup behind intent fields and `aps` key types: every name finds its value, anything else
/// finds nothing.
@Suite("NameTable")
struct NameTableTests {
    static let table = NameTable([("id", 1), ("app", 2), ("user", 3), ("args", 4), ("interruption-level", 5)])

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

    @Test("a key's UTF-8 bytes find what its String finds", arguments: [
        "id", "app", "user", "args", "interruption-level", "", "i", "ID", "apq", "users", "interruption_level", "ïd", "app\u{301}",
    ])
    func findsByBytes(name: String) {
        let found = Array(name.utf8).withUnsafeBufferPointer { Self.table[utf8: $0] }
        #expect(found == Self.table[name])
    }

    @Test("an empty table finds nothing")
    func emptyTable() {
        #expect(NameTable<Int>([])["id"] == nil)
        #expect(NameTable<Int>([])[""] == nil)
    }
}
