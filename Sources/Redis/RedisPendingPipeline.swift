import Runtime

/// A pipeline on its way through one connection: how many of its commands are encoded, how much of
/// the encoded output is written, and the replies read so far, within the call's deadline.
/// ``RedisConnection/start(_:)`` makes one, ``RedisConnection/finish(_:)`` completes it.
struct RedisPendingPipeline {
    let commands: [RedisCommand]
    let deadline: Deadline
    var replies: [RedisReply] = []
    /// How many commands are encoded into the connection's output.
    var encoded = 0
    /// How many bytes of the current output are written.
    var written = 0
    /// How many commands the next chunk of output may carry.
    var chunk: Int

    init(commands: [RedisCommand], deadline: Deadline, firstChunk: Int) {
        self.commands = commands
        self.deadline = deadline
        chunk = firstChunk
        replies.reserveCapacity(commands.count)
    }

    var isComplete: Bool {
        replies.count == commands.count
    }
}
