/// The bytes of the notifications an inbox holds (texts and bodies), copied one after another into
/// large chunks and let go a chunk at a time, oldest first.
///
/// Why not keep each notification's own strings and body: those are heap blocks allocated while a
/// request was read, and an inbox of 100,000 kept them alive for 100,000 requests, so the allocator
/// served every request from a large, fragmented, cache-cold heap (about a fifth of the simulator's
/// CPU per request). Copied here, the request's blocks are freed as soon as it is answered and
/// reused for the next one.
struct InboxChunks {
    /// Where one run of bytes lies within its notification's chunk.
    struct Span {
        var start: Int32
        var count: Int32
    }

    /// Bytes per chunk; a notification larger than that gets a chunk of its own size.
    static let chunkSize = 1 << 20

    /// Chunk `firstChunk + i`, and the newest notification sequence number written into it.
    private var chunks: [(bytes: [UInt8], lastSequence: Int)] = []
    private var firstChunk = 0
    /// The storage of the last chunk let go, emptied and reused for the next one (no page faults on
    /// fresh memory for every megabyte written).
    private var spare: [UInt8] = []

    /// Makes room for the `byteCount` bytes of notification `sequence` (sequences only grow), which
    /// the following ``append(_:)`` calls copy; returns the chunk they go into.
    mutating func startNotification(byteCount: Int, sequence: Int) -> Int {
        if chunks.isEmpty || chunks[chunks.count - 1].bytes.capacity - chunks[chunks.count - 1].bytes.count < byteCount {
            startChunk(holding: byteCount)
        }
        chunks[chunks.count - 1].lastSequence = sequence
        return firstChunk + chunks.count - 1
    }

    /// Copies `bytes` into the chunk of the current notification.
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Span {
        let start = chunks[chunks.count - 1].bytes.count
        chunks[chunks.count - 1].bytes.append(contentsOf: bytes)
        return Span(start: Int32(start), count: Int32(bytes.count))
    }

    /// Lends the bytes of `span` in `chunk` to `body`.
    func withBytes<Result>(_ span: Span, inChunk chunk: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        chunks[chunk - firstChunk].bytes.withUnsafeBufferPointer { chunk in
            body(UnsafeBufferPointer(rebasing: chunk[Int(span.start)..<Int(span.start + span.count)]))
        }
    }

    /// Lets go of the chunks that hold only notifications older than `sequence`.
    mutating func release(before sequence: Int) {
        while chunks.count > 1, chunks[0].lastSequence < sequence {
            spare = chunks.removeFirst().bytes
            spare.removeAll(keepingCapacity: true)
            firstChunk += 1
        }
    }

    /// Lets go of every chunk.
    mutating func removeAll() {
        firstChunk += chunks.count
        chunks.removeAll()
        spare = []
    }

    private mutating func startChunk(holding byteCount: Int) {
        var bytes: [UInt8] = []
        if spare.capacity >= byteCount {
            swap(&bytes, &spare)
        } else {
            bytes.reserveCapacity(max(Self.chunkSize, byteCount))
        }
        chunks.append((bytes, -1))
    }
}
