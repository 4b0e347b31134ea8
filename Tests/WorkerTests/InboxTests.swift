import Foundation
import Testing
@testable import Worker

/// The hand-off from other threads to the worker's: every item arrives once, in order, and a take
/// leaves the inbox empty.
@Suite("Inbox")
struct InboxTests {
    @Test("items appended in several hand-offs are taken once, in the order they arrived, and a second take is empty")
    func takenOnceInOrder() {
        let inbox = Inbox<Int>()
        inbox.append(contentsOf: [1, 2])
        inbox.append(contentsOf: [3])
        inbox.append(contentsOf: [])
        inbox.append(contentsOf: [4, 5])
        #expect(inbox.take() == [1, 2, 3, 4, 5])
        #expect(inbox.take() == [])
        inbox.append(contentsOf: [6])
        #expect(inbox.take() == [6])
    }

    @Test("an array handed over stays the sender's: appending to the inbox afterwards does not change it")
    func handedArrayUnchanged() {
        let inbox = Inbox<Int>()
        let arrived = [1, 2, 3]
        inbox.append(contentsOf: arrived)
        inbox.append(contentsOf: [4])
        #expect(arrived == [1, 2, 3])
        #expect(inbox.take() == [1, 2, 3, 4])
    }

    @Test("items from eight threads at once all arrive, each once")
    func concurrentHandOffs() async {
        let inbox = Inbox<Int>()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for item in 0..<1_000 { inbox.append(contentsOf: [thread * 1_000 + item]) }
                }
            }
        }
        let taken = inbox.take()
        #expect(taken.count == 8_000)
        #expect(taken.sorted() == Array(0..<8_000))
        for thread in 0..<8 {
            let own = taken.filter { $0 / 1_000 == thread }
            #expect(own == Array(thread * 1_000..<(thread + 1) * 1_000), "thread \(thread)'s items in the order it sent them")
        }
    }
}
