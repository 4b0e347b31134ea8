/// Sends a connection's commands to the right servers of a Sentinel or Cluster deployment, over
/// connections of its own. Confined like its ``RedisConnection``.
protocol RedisRouter: AnyObject {
    /// Replies in the order of `commands`, as ``RedisConnection/pipeline(_:)`` returns them.
    func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply]
    /// Whether any of its connections is open.
    var isConnected: Bool { get }
    /// Closes every connection; the next call connects again.
    func close()
}
