/// Counts requests per device token in one-second windows, for the per-device rate fault
/// (APNs answers 429 `TooManyRequests` to "too many consecutive requests to the same device").
struct DeviceRateLimiter {
    private var windows: [String: (start: Int64, count: Int)] = [:]
    /// Above this many tracked tokens, windows that have ended are forgotten.
    private static let pruneThreshold = 100_000

    /// Counts a request to `token` at `now` (ms); false when it is over `limit` for its window.
    mutating func admits(token: String, now: Int64, limit: Int) -> Bool {
        if windows.count > Self.pruneThreshold { windows = windows.filter { now - $0.value.start < 1000 } }
        var window = windows[token] ?? (start: now, count: 0)
        if now - window.start >= 1000 { window = (start: now, count: 0) }
        window.count += 1
        windows[token] = window
        return window.count <= limit
    }
}
