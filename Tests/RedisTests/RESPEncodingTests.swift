import PushlineTestKit
import Redis
import Testing

@Suite("Encoding commands to RESP")
struct RESPEncodingTests {
    @Test("empty arguments and arguments whose lengths take one to seven digits reach the server byte for byte")
    func argumentLengths() async throws {
        let server = try await RedisServer.start()
        let lengths = [0, 1, 9, 10, 99, 100, 999, 1000, 65_535, 65_536, 1_000_000]
        let values = lengths.map { length in (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ length) } }
        let replies = try await withConnection(server.configuration()) { redis in
            var commands: [RedisCommand] = []
            for (index, value) in values.enumerated() {
                var set = RedisCommand("SET", "value-\(index)")
                set.append(bytes: value)
                commands.append(set)
            }
            // An empty key among the arguments, and a command of more than ten arguments.
            commands.append(RedisCommand("SET", "", "empty key"))
            commands.append(RedisCommand("RPUSH", ["list"] + (0..<12).map { String(repeating: "x", count: $0) }))
            return try redis.pipeline(commands + values.indices.map { RedisCommand("GET", "value-\($0)") }
                + [RedisCommand("GET", ""), RedisCommand("LRANGE", "list", "0", "-1")])
        }
        let gets = replies.dropFirst(values.count + 2)
        #expect(Array(replies.prefix(values.count + 1)) == Array(repeating: .status("OK"), count: values.count + 1))
        #expect(replies[values.count + 1] == .integer(12))
        #expect(Array(gets.prefix(values.count)) == values.map { .bulk($0) })
        #expect(gets.dropFirst(values.count).first == .bulk(Array("empty key".utf8)))
        #expect(gets.last == .array((0..<12).map { .bulk(Array(repeating: UInt8(ascii: "x"), count: $0)) }))
    }

    @Test("arguments written into the command and integers in decimal reach the server as given, among text ones")
    func writtenAndIntegerArguments() async throws {
        let server = try await RedisServer.start()
        var set = RedisCommand(reservingBytes: 8, arguments: 5)  // less room than needed: the buffer grows
        set.append("SET")
        set.append(writing: { $0.append(contentsOf: "written-key".utf8) })
        set.append(writing: { _ in })  // an empty value
        set.append("PX")
        set.append(60_000)
        #expect(set.name == "SET")
        #expect(set.count == 5)
        let command = set
        let replies = try await withConnection(server.configuration()) { redis in
            try redis.pipeline([command, RedisCommand("GET", "written-key"), RedisCommand("PTTL", "written-key")])
        }
        #expect(replies[0] == .status("OK"))
        #expect(replies[1] == .bulk([]))
        #expect((replies[2].integer ?? 0) > 59_000)
    }

    @Test("a command before its name is appended has an empty name and no arguments")
    func emptyCommand() {
        let command = RedisCommand(reservingBytes: 16, arguments: 2)
        #expect(command.name == "")
        #expect(command.count == 0)
    }
}
