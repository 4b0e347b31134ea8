/// Redis Cluster's key → hash slot mapping: CRC16 (XModem) of the key, or of its hash tag — the
/// bytes between the first `{` and the next `}`, when not empty — modulo 16384. Keys that share a
/// hash tag share a slot, so one script or transaction may touch them all.
enum RedisSlot {
    static let count = 16_384

    /// Commands whose arguments name no key, in capitals: sent to any master.
    private static let keyless: [[UInt8]] = [
        "PING", "ECHO", "SCRIPT", "CLUSTER", "ROLE", "INFO", "ASKING", "AUTH", "SELECT", "CLIENT", "HELLO",
        "FLUSHALL", "FLUSHDB", "DBSIZE", "KEYS", "SCAN", "TIME", "COMMAND", "CONFIG", "ACL", "READONLY", "READWRITE", "WAIT",
    ].map { Array($0.utf8) }
    private static let evalSHA = Array("EVALSHA".utf8)
    private static let eval = Array("EVAL".utf8)

    private static let table: [UInt16] = (0..<256).map { byte in
        var crc = UInt16(byte) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }

    /// The slot of `key`.
    static func of(key: some Collection<UInt8>) -> Int {
        var hashed = key[...]
        if let open = key.firstIndex(of: UInt8(ascii: "{")) {
            let afterOpen = key.index(after: open)
            if let close = key[afterOpen...].firstIndex(of: UInt8(ascii: "}")), close != afterOpen {
                hashed = key[afterOpen..<close]
            }
        }
        var crc: UInt16 = 0
        for byte in hashed {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return Int(crc) % count
    }

    /// The slot of the command's first key: its first argument, or for `EVAL`/`EVALSHA` the first of
    /// its declared keys; `nil` for a command without keys (a script with none, `PING`, `SCRIPT LOAD`…).
    /// A command with several keys must keep them in one slot (hash tags), as Cluster requires; an
    /// `MGET` across slots is split by the cluster router (``RedisMultiGetSplit``).
    static func of(_ command: RedisCommand) -> Int? {
        // Compared byte by byte, without making a String of the name: this runs once per command.
        let name = command.argument(0)
        let keyArgument: Int
        if matches(name, evalSHA) || matches(name, eval) {
            guard command.count > 3, command.argument(2).elementsEqual("0".utf8) == false else { return nil }
            keyArgument = 3
        } else {
            guard command.count > 1, !keyless.contains(where: { matches(name, $0) }) else { return nil }
            keyArgument = 1
        }
        return of(key: command.argument(keyArgument))
    }

    /// Whether `name` is `capitals`, in any case.
    static func matches(_ name: ArraySlice<UInt8>, _ capitals: [UInt8]) -> Bool {
        name.count == capitals.count && zip(name, capitals).allSatisfy { $0 & 0xDF == $1 }
    }
}
