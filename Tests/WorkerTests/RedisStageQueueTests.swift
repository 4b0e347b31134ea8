import Testing
@testable import Worker

/// The order in which the ``RedisStage`` runs its queued jobs: a claim of the lanes above the
/// lightest first, then the others in submission order, adjacent records joined into one.
@Suite("Worker: the Redis stage's queue")
struct RedisStageQueueTests {
    typealias Fixture = StateMachineFixture

    private static func describe(_ job: RedisStage.Job) -> String {
        switch job {
        case .claim(let planned, let ahead): "claim \(planned.count)\(ahead ? " ahead" : "")"
        case .record(let sent): "record \(sent.count)"
        }
    }

    @Test("a claim ahead runs before the jobs queued in front of it; the rest run in order, adjacent records as one")
    func claimAheadRunsNext() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0, 1, 2]), offset: 0)])
        _ = f.tick(1)
        let planned = f.claimJobs[0]
        _ = try f.answerClaim()
        _ = try f.answerSend()
        let sent = f.recordJobs[0]
        var queued: [RedisStage.Job] = [.record(sent), .record(Array(sent.prefix(1))), .claim(planned, ahead: false),
                                        .claim(Array(planned.prefix(2)), ahead: true), .record(sent),
                                        .claim(Array(planned.prefix(1)), ahead: true)]
        var order: [String] = []
        while let job = RedisStage.next(from: &queued) { order.append(Self.describe(job)) }
        #expect(order == ["claim 2 ahead", "claim 1 ahead", "record 4", "claim 3", "record 3"])
    }
}
