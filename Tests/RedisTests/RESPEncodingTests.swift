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
}
