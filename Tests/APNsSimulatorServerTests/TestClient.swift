import HTTP2
import PushlineTestKit
import Runtime
import Synchronization
import TLS

/// A blocking HTTP/2 client over Pushline's own transport, for tests that look at one connection's
/// behaviour: stream limits, GOAWAY, several requests in order.
final class TestClient: HTTP2ConnectionDelegate, @unchecked Sendable {
    // Safe to share: connection state is touched on `loop`; the test thread reads it through
    // `onLoop`, which waits for the loop.
    private let loop: EventLoop
    private var connection: HTTP2Connection?
    private let ready = Semaphore()
    private let closedSignal = Semaphore()
    private(set) var goAways: [HTTP2GoAway] = []
    private(set) var isClosed = false

    init(port: UInt16, caFile: String) throws {
        loop = try EventLoop(name: "test-client")
        let tls = try TLSContext.client(alpn: ["h2"], verification: .certificateAuthorities(file: caFile))
        let failure = Mutex<String?>(nil)
        loop.execute { [self] in
            do {
                connection = try HTTP2Connection(connectingTo: "localhost", port: port, loop: loop, tls: tls, delegate: self)
            } catch {
                failure.withLock { $0 = "\(error)" }
                ready.signal()
            }
        }
        guard ready.wait(milliseconds: 10_000) else { throw TestKitError("the client did not get the server's SETTINGS") }
        if let message = failure.withLock({ $0 }) { throw TestKitError("connect failed: \(message)") }
    }

    deinit {
        loop.shutdown()
    }

    func connectionReady(_ connection: HTTP2Connection) { ready.signal() }
    func connection(_ connection: HTTP2Connection, receivedGoAway goAway: HTTP2GoAway) { goAways.append(goAway) }
    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {
        isClosed = true
        closedSignal.signal()
    }

    /// Runs `body` on the loop and returns its result.
    func onLoop<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> Value {
        let result = Mutex<Value?>(nil)
        let done = Semaphore()
        loop.execute {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }!
    }

    /// The server's current stream limit.
    var maxConcurrentStreams: Int { onLoop { [self] in connection?.remoteMaxConcurrentStreams ?? 0 } }

    /// Waits until the server's stream limit is `expected`; returns the last value seen.
    func waitForMaxConcurrentStreams(_ expected: Int) -> Int {
        var seen = maxConcurrentStreams
        for _ in 0..<200 where seen != expected {
            usleepMilliseconds(10)
            seen = maxConcurrentStreams
        }
        return seen
    }

    /// Sends one request and waits for its outcome.
    func send(path: String, headers: [HTTP2Header], body: String) -> Result<HTTP2Response, HTTP2StreamFailure> {
        let outcome = Mutex<Result<HTTP2Response, HTTP2StreamFailure>?>(nil)
        let done = Semaphore()
        loop.execute { [self] in
            guard let connection else {
                outcome.withLock { $0 = .failure(.connectionClosed) }
                done.signal()
                return
            }
            do {
                try connection.send(path: path, authority: "localhost", headers: headers, body: Array(body.utf8)) { result in
                    outcome.withLock { $0 = result }
                    done.signal()
                }
            } catch {
                outcome.withLock { $0 = .failure(.connectionClosed) }
                done.signal()
            }
        }
        guard done.wait(milliseconds: 10_000) else { return .failure(.cancelled) }
        return outcome.withLock { $0 }!
    }

    /// Waits for the connection to close.
    func waitForClose(milliseconds: Int = 10_000) -> Bool {
        closedSignal.wait(milliseconds: milliseconds)
    }

    func close() {
        loop.execute { [self] in connection?.close() }
    }
}

func usleepMilliseconds(_ milliseconds: Int) {
    let done = Semaphore()
    _ = done.wait(milliseconds: milliseconds)
}
