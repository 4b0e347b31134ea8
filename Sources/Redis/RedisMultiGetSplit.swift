/// `MGET`s split by slot for a Redis Cluster, where one command's keys must share a slot (the server
/// answers `CROSSSLOT` otherwise): an `MGET` whose keys lie in several slots becomes one `MGET` per
/// slot, its keys in their order, and the parts' replies are joined into one array in the order of
/// the keys, as cluster clients commonly do. Every other command passes through as it is.
struct RedisMultiGetSplit {
    /// The commands to route: the given ones, each split `MGET` replaced by its parts.
    let commands: [RedisCommand]
    /// Per given command, where its reply comes from; `nil` when nothing was split.
    private let layouts: [Layout]?

    private static let multiGet = Array("MGET".utf8)

    /// Where one given command's reply is in the replies to ``commands``.
    private enum Layout {
        /// The reply at this index, as it is.
        case whole(Int)
        /// An array of `keyCount` values gathered from the parts' replies.
        case split(keyCount: Int, parts: [Part])
    }

    /// One slot's `MGET`: its index in ``commands`` and the positions of its keys in the given `MGET`.
    private struct Part {
        let command: Int
        let keyPositions: [Int]
    }

    init(_ given: [RedisCommand]) {
        // Most pipelines hold no MGET: they are neither copied nor looked into further.
        guard given.contains(where: Self.isMultiGet) else {
            commands = given
            layouts = nil
            return
        }
        var commands: [RedisCommand] = []
        var layouts: [Layout] = []
        commands.reserveCapacity(given.count)
        layouts.reserveCapacity(given.count)
        var splitAny = false
        for command in given {
            // Where the arguments lie, read once and only for an MGET.
            let arguments = Self.isMultiGet(command) ? command.argumentRanges : []
            let groups = arguments.isEmpty ? [] : Self.keyPositionsBySlot(command, arguments: arguments)
            guard groups.count > 1 else {
                layouts.append(.whole(commands.count))
                commands.append(command)
                continue
            }
            splitAny = true
            var parts: [Part] = []
            parts.reserveCapacity(groups.count)
            for keyPositions in groups {
                let bytes = keyPositions.reduce(Self.multiGet.count) { $0 + arguments[$1 + 1].count }
                var part = RedisCommand(reservingBytes: bytes, arguments: 1 + keyPositions.count)
                part.append(bytes: Self.multiGet)
                for position in keyPositions { part.append(bytes: command.bytes(in: arguments[position + 1])) }
                parts.append(Part(command: commands.count, keyPositions: keyPositions))
                commands.append(part)
            }
            layouts.append(.split(keyCount: command.count - 1, parts: parts))
        }
        self.commands = splitAny ? commands : given
        self.layouts = splitAny ? layouts : nil
    }

    /// The replies to the given commands, in their order, from `replies` to ``commands``. A split
    /// `MGET` whose part was answered with an error reply (a `CLUSTERDOWN`, a redirect past the
    /// router's limit) has that error as its reply.
    func joined(_ replies: [RedisReply]) -> [RedisReply] {
        guard let layouts else { return replies }
        return layouts.map { layout in
            switch layout {
            case .whole(let index):
                return replies[index]
            case .split(let keyCount, let parts):
                var values = [RedisReply](repeating: .null, count: keyCount)
                for part in parts {
                    let reply = replies[part.command]
                    if case .error = reply { return reply }
                    guard let partValues = reply.array, partValues.count == part.keyPositions.count else {
                        return .error(RedisError(.protocolError, "a cluster node answered an MGET with other than a value per key"))
                    }
                    for (position, value) in zip(part.keyPositions, partValues) { values[position] = value }
                }
                return .array(values)
            }
        }
    }

    private static func isMultiGet(_ command: RedisCommand) -> Bool {
        command.count > 1 && RedisSlot.matches(command.argument(0), multiGet)
    }

    /// The positions of the command's keys (0 is the first key), grouped by slot in the order each
    /// slot first appears; `arguments` is where the command's arguments lie (``RedisCommand/argumentRanges``).
    private static func keyPositionsBySlot(_ command: RedisCommand, arguments: [Range<Int>]) -> [[Int]] {
        var groups: [[Int]] = []
        var groupOfSlot: [Int: Int] = [:]
        for position in 0..<(command.count - 1) {
            let slot = RedisSlot.of(key: command.bytes(in: arguments[position + 1]))
            if let group = groupOfSlot[slot] {
                groups[group].append(position)
            } else {
                groupOfSlot[slot] = groups.count
                groups.append([position])
            }
        }
        return groups
    }
}
