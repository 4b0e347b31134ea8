import Glibc
import Runtime
import TLS

/// A connection to one Redis server, speaking RESP2 over a socket of its own (TCP or Unix): commands
/// encoded by ``RESPEncoder``, replies decoded by hiredis.
///
/// **Threading.** Every call blocks its thread until the replies are in or a timeout passes, so a
/// connection belongs to one thread at a time and must never be used from Swift's cooperative
/// thread pool (async tasks): give it a thread of its own (an event loop, a `Thread`, the main
/// thread of a command-line tool). It is not `Sendable`; the compiler keeps it where it is.
///
/// **Failures.** A call that fails on the connection (lost, timed out, garbled) closes it and throws;
/// the next call connects again, retrying with ``RedisReconnectPolicy`` backoff and re-running
/// `AUTH` and `SELECT`. A failed call is never re-sent by the connection, because the server may
/// have run it; callers decide (``RedisError/isRetryable``). A connection the server closed while
/// idle (a restart) is noticed before the next call writes, and replaced then.
public final class RedisConnection {
    public let configuration: RedisConfiguration
    /// The TLS settings every link of this connection shares (cluster nodes and sentinels included).
    private let tlsContext: TLSContext?
    /// Where commands go in Sentinel and Cluster modes (over connections of their own); `nil` for one server.
    private let router: (any RedisRouter)?
    private var link: RedisLink?
    /// The encoded commands of the current call, reused from call to call. Written in place once
    /// per command; its accesses never overlap (one thread, no callbacks), so the runtime's
    /// exclusivity check is left out (docs/BENCHMARKS.md, "Exclusivity checks").
    @exclusivity(unchecked) private var output: [UInt8] = []
    /// Where bytes from the socket land before hiredis copies them.
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    private var random = SystemRandomNumberGenerator()
    /// How many commands a call's first write carries, so the server starts on them while the rest
    /// is encoded (in `pushline-dev bench redis`, a median about 15% higher than one write per batch).
    /// Each later write may carry four times as many as the one before: encoding is several times
    /// faster than the server's work, so the server stays busy while the next chunk is encoded, and a
    /// deep pipeline takes few writes.
    private static let commandsInFirstWrite = 16
    /// How many encoded bytes one write carries at most, so a huge pipeline streams through a bounded buffer.
    private static let bytesPerWrite = 64 * 1024

    /// Connects, authenticates and selects the database, retrying as ``RedisConfiguration/reconnect`` says.
    /// In Sentinel mode it finds the master first; in Cluster mode it reads the slot map from a seed
    /// node (``RedisConfiguration/topology``).
    public init(configuration: RedisConfiguration) throws(RedisError) {
        self.configuration = configuration
        let tlsContext = try configuration.tls?.makeContext()
        self.tlsContext = tlsContext
        switch configuration.topology {
        case .standalone:
            router = nil
            link = try connect()
        case .sentinel(let sentinel):
            router = try RedisSentinelRouter(configuration: configuration, sentinel: sentinel, tlsContext: tlsContext)
        case .cluster(let seeds):
            router = try RedisClusterRouter(configuration: configuration, seeds: seeds, tlsContext: tlsContext)
        }
    }

    /// A connection to one server of a Sentinel or Cluster deployment, with the deployment's
    /// credentials and TLS (none of them for a sentinel, when `authenticate` is false). It connects
    /// once, without retries: its router decides where to go after a failure.
    init(node endpoint: RedisConfiguration.Endpoint, of deployment: RedisConfiguration, tlsContext: TLSContext?,
         authenticate: Bool = true) throws(RedisError) {
        var configuration = deployment
        configuration.endpoint = endpoint
        configuration.topology = .standalone
        configuration.reconnect = .never
        if !authenticate {
            configuration.password = nil
            configuration.username = nil
            configuration.database = 0
        }
        self.configuration = configuration
        self.tlsContext = tlsContext
        router = nil
        link = try connect()
    }

    deinit {
        input.deallocate()
    }

    /// Whether a socket is open (the server may still have closed it without our knowing yet).
    public var isConnected: Bool {
        router?.isConnected ?? (link != nil)
    }

    /// Whether the socket is open and the server has not closed it or sent anything unasked.
    var hasUsableLink: Bool {
        link.map { !$0.isStale } ?? false
    }

    /// Closes the socket (every socket, in Sentinel and Cluster modes) now. A later call connects again.
    public func close() {
        router?.close()
        link = nil
    }

    /// Sends one command and returns its reply; an error reply is thrown as a ``RedisError`` with
    /// code ``RedisError/Code/serverError``.
    public func send(_ command: RedisCommand) throws(RedisError) -> RedisReply {
        let reply = try pipeline([command])[0]
        if case .error(let error) = reply { throw error }
        return reply
    }

    /// Runs `script` with `EVALSHA`, loading it first if the server does not know it; an error reply
    /// is thrown, as in ``send(_:)``.
    public func evaluate(_ script: RedisScript, keys: [String] = [], arguments: [String] = []) throws(RedisError) -> RedisReply {
        try send(.evalSHA(script, keys: keys, arguments: arguments))
    }

    /// Sends every command and reads every reply: one round trip for the lot (the server starts on
    /// the first commands while the rest are still being encoded and written).
    ///
    /// Replies come back in the order of `commands`, error replies in place as ``RedisReply/error(_:)``.
    /// An `EVALSHA` built with ``RedisCommand/evalSHA(_:keys:arguments:)`` that meets `NOSCRIPT`
    /// (a restarted server, `SCRIPT FLUSH`) has its script loaded and is run again in one more round
    /// trip; its reply takes the same place. Throws only when the connection fails or the whole call
    /// does not finish within ``RedisConfiguration/commandTimeout``.
    ///
    /// In Cluster mode each command goes to the master of its key's slot, one pipeline per node,
    /// `MOVED` and `ASK` followed; in Sentinel mode, to the master the sentinels name.
    public func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply] {
        if let router { return try router.pipeline(commands) }
        return try finish(try start(commands))
    }

    /// Starts a pipeline on this server — connecting first if need be — and writes as much of it as
    /// the socket takes without waiting; ``finish(_:)`` writes the rest and reads the replies. A
    /// cluster router starts one on every node before finishing any, so the nodes work at once.
    func start(_ commands: [RedisCommand]) throws(RedisError) -> RedisPendingPipeline {
        guard !commands.isEmpty else {
            return RedisPendingPipeline(commands: commands, deadline: Deadline(after: .zero), firstChunk: Self.commandsInFirstWrite)
        }
        let link = try readyLink()
        // The call's clock starts once connected: a reconnect has its own timeout and backoff.
        var pending = RedisPendingPipeline(commands: commands, deadline: Deadline(after: configuration.commandTimeout),
                                           firstChunk: Self.commandsInFirstWrite)
        output.removeAll(keepingCapacity: true)
        do {
            try advance(&pending, on: link, waiting: false, while: "waiting for replies from")
        } catch {
            self.link = nil
            throw error
        }
        return pending
    }

    /// Completes a pipeline ``start(_:)`` began: its replies, in order, with `NOSCRIPT` handled as
    /// ``pipeline(_:)`` says.
    func finish(_ started: RedisPendingPipeline) throws(RedisError) -> [RedisReply] {
        var pending = started
        try complete(&pending)
        let commands = pending.commands
        var replies = pending.replies
        let unknownScripts = replies.indices.filter { index in
            if case .error(let error) = replies[index], error.serverErrorPrefix == "NOSCRIPT" { commands[index].script != nil } else { false }
        }
        if !unknownScripts.isEmpty {
            try loadScriptsAndRetry(commands, at: unknownScripts, replies: &replies)
        }
        return replies
    }

    /// Loads each missing script once, then re-runs the commands that needed them, in one round trip.
    /// A script that does not compile leaves its `SCRIPT LOAD` error as the reply of its commands.
    private func loadScriptsAndRetry(_ commands: [RedisCommand], at indices: [Int], replies: inout [RedisReply]) throws(RedisError) {
        var scripts: [RedisScript] = []
        for index in indices {
            if let script = commands[index].script, !scripts.contains(script) { scripts.append(script) }
        }
        let loads = scripts.map { RedisCommand("SCRIPT", "LOAD", $0.source) }
        let retried = try roundTrip(loads + indices.map { commands[$0] })
        for (offset, index) in indices.enumerated() {
            let load = scripts.firstIndex { $0 == commands[index].script }.map { retried[$0] }
            replies[index] = load?.error.map(RedisReply.error) ?? retried[loads.count + offset]
        }
    }

    /// Writes `commands` and reads as many replies, on a connection that is connected first if need be.
    /// Any failure drops the connection: its state is unknown.
    private func roundTrip(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply] {
        var pending = try start(commands)
        try complete(&pending)
        return pending.replies
    }

    /// Writes the rest of a started pipeline and reads its replies. Any failure drops the connection.
    private func complete(_ pending: inout RedisPendingPipeline) throws(RedisError) {
        guard !pending.isComplete else { return }
        guard let link else { throw RedisError(.connectionLost, "the connection to \(configuration.endpoint) was closed mid-call") }
        do {
            try advance(&pending, on: link, waiting: true, while: "waiting for replies from")
        } catch {
            self.link = nil
            throw error
        }
    }

    /// The open link, or a new one when there is none or the server has closed it.
    private func readyLink() throws(RedisError) -> RedisLink {
        if let link, !link.isStale { return link }
        link = nil
        let fresh = try connect()
        link = fresh
        return fresh
    }

    /// Opens a link, retrying retryable failures with backoff as the policy allows.
    private func connect() throws(RedisError) -> RedisLink {
        try configuration.reconnect.retrying(using: &random) { () throws(RedisError) in try openLink() }
    }

    /// Connects the socket, then `AUTH`, `SELECT` and `PING` in one round trip, all within the connect timeout.
    private func openLink() throws(RedisError) -> RedisLink {
        let deadline = Deadline(after: configuration.connectTimeout)
        let link = try RedisLink.open(to: configuration.endpoint, tls: tlsContext, deadline: deadline)
        var handshake: [RedisCommand] = []
        if let password = configuration.password {
            handshake.append(configuration.username.map { RedisCommand("AUTH", $0, password) } ?? RedisCommand("AUTH", password))
        }
        if configuration.database != 0 {
            var select = RedisCommand("SELECT")
            select.append(configuration.database)
            handshake.append(select)
        }
        handshake.append(RedisCommand("PING"))
        let replies = try exchange(handshake, on: link, until: deadline, while: "connecting to")
        if let refusal = replies.lazy.compactMap(\.error).first { throw refusal }
        return link
    }

    /// Writes `commands` and reads their replies on `link`, before `deadline`.
    private func exchange(_ commands: [RedisCommand], on link: RedisLink, until deadline: Deadline, while step: String) throws(RedisError) -> [RedisReply] {
        var pending = RedisPendingPipeline(commands: commands, deadline: deadline, firstChunk: Self.commandsInFirstWrite)
        output.removeAll(keepingCapacity: true)
        try advance(&pending, on: link, waiting: true, while: step)
        return pending.replies
    }

    /// Encodes and writes the pipeline's commands in growing chunks (16, 64, 256, … commands, at most
    /// ``bytesPerWrite`` bytes each) and reads replies until there is one per command. While the socket
    /// refuses more bytes, replies are read, so a large pipeline never fills both socket buffers and
    /// stalls. Without `waiting`, it returns as soon as the socket takes no more (or all is written),
    /// before reading any reply.
    private func advance(_ pending: inout RedisPendingPipeline, on link: RedisLink, waiting: Bool, while step: String) throws(RedisError) {
        let commands = pending.commands
        while !pending.isComplete {
            if pending.written == output.count, pending.encoded < commands.count {
                output.removeAll(keepingCapacity: true)
                pending.written = 0
                let chunkEnd = pending.encoded + min(commands.count - pending.encoded, pending.chunk)
                while pending.encoded < chunkEnd, output.count < Self.bytesPerWrite {
                    RESPEncoder.encode(commands[pending.encoded], into: &output)
                    pending.encoded += 1
                }
                pending.chunk = min(pending.chunk, commands.count) * 4
            }
            if pending.written < output.count {
                pending.written += try link.writeSome(output, from: pending.written)
                if pending.written == output.count, pending.encoded < commands.count { continue }
            }
            guard waiting else { return }
            try link.wait(forWriting: pending.written < output.count, until: pending.deadline, while: step)
            guard try link.receive(into: input) > 0 else { continue }
            while !pending.isComplete, let reply = try link.reader.next() {
                pending.replies.append(reply)
            }
        }
    }
}
