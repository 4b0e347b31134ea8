/// Gathers a batch's outcomes (on the pool's loop) and resumes the waiting task once all are in.
final class OutcomeCollector: @unchecked Sendable {
    // Safe to share: `set` is only called on the pool's loop.
    private var results: [RequestOutcome?]
    private var remaining: Int
    private let continuation: CheckedContinuation<[RequestOutcome], Never>

    init(count: Int, continuation: CheckedContinuation<[RequestOutcome], Never>) {
        results = Array(repeating: nil, count: count)
        remaining = count
        self.continuation = continuation
    }

    func set(_ index: Int, _ result: RequestOutcome) {
        guard results[index] == nil else { return }
        results[index] = result
        remaining -= 1
        if remaining == 0 { continuation.resume(returning: results.map { $0! }) }
    }
}
