/// A payload's JSON tree and the bytes ``JSONWriter`` wrote from it, made together.
///
/// The bytes say exactly what the tree says, so ``NotificationValidator`` can check the tree
/// instead of parsing the bytes back: a payload built in this process is validated without a
/// second parse, by the same rules as any other payload.
public struct WrittenPayload: Sendable, Equatable {
    /// The payload as a tree: the root object, members in the order they are written.
    public let document: JSONObject
    /// The body as it goes on the wire.
    public let bytes: [UInt8]

    /// Writes `document` into fresh bytes.
    public init(_ document: JSONObject) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        JSONWriter.appendValue(.object(document), to: &bytes)
        self.document = document
        self.bytes = bytes
    }
}
