/// Exponential back-off with full jitter: attempt n waits a random time in [base·2ⁿ⁻¹ / 2, base·2ⁿ⁻¹],
/// capped, so many clients that failed together do not retry together.
struct Backoff {
    let baseMilliseconds: Int
    let maximumMilliseconds: Int

    func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Int {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maximumMilliseconds, baseMilliseconds << exponent)
        return Int.random(in: (ceiling / 2)...max(ceiling, 1), using: &generator)
    }
}
