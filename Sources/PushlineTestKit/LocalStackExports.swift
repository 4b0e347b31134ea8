// The tests use the local components (redis-server, the simulator, LocalPipeline, deadlines) beside
// the test-only helpers of this module; importing PushlineTestKit brings both.
@_exported import LocalStack

/// A test-support failure with a message that says what is missing: the same type the local
/// components throw, under the name the tests use.
public typealias TestKitError = LocalStackError
