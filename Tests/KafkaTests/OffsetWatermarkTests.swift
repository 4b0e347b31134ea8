import Kafka
import Testing

@Suite("OffsetWatermark")
struct OffsetWatermarkTests {
    @Test("nothing tracked means nothing to store")
    func nothingTracked() {
        let watermark = OffsetWatermark()
        #expect(watermark.watermark == nil)
        #expect(watermark.inFlight == 0)
    }

    @Test("tracked but unfinished work holds the watermark at the first offset")
    func unfinishedHoldsWatermark() {
        var watermark = OffsetWatermark()
        for offset in Int64(5)...9 { watermark.track(offset) }
        #expect(watermark.watermark == 5)
        #expect(watermark.inFlight == 5)
    }

    @Test("completing in order moves the watermark one past the last completed offset")
    func inOrder() {
        var watermark = OffsetWatermark()
        for offset in Int64(0)...3 { watermark.track(offset) }
        for offset in Int64(0)...3 {
            let moved = watermark.complete(offset)
            #expect(moved)
        }
        #expect(watermark.watermark == 4)
        #expect(watermark.inFlight == 0)
    }

    @Test("completing out of order never passes the lowest unfinished offset")
    func outOfOrder() {
        var watermark = OffsetWatermark()
        for offset in Int64(10)...14 { watermark.track(offset) }
        let movedBy12And14 = [watermark.complete(12), watermark.complete(14)]
        #expect(movedBy12And14 == [false, false])
        #expect(watermark.watermark == 10)
        let movedBy10 = watermark.complete(10)
        #expect(movedBy10)
        #expect(watermark.watermark == 11)
        let movedBy11 = watermark.complete(11)
        #expect(movedBy11)
        #expect(watermark.watermark == 13)
        let movedBy13 = watermark.complete(13)
        #expect(movedBy13)
        #expect(watermark.watermark == 15)
    }

    @Test("gaps between offsets (compaction, transaction markers) are stepped over")
    func gaps() {
        var watermark = OffsetWatermark()
        for offset: Int64 in [3, 7, 8, 20] { watermark.track(offset) }
        watermark.complete(3)
        #expect(watermark.watermark == 7)
        watermark.complete(8)
        watermark.complete(7)
        #expect(watermark.watermark == 20)
        watermark.complete(20)
        #expect(watermark.watermark == 21)
    }

    @Test("completing twice, or an offset never tracked, changes nothing")
    func idempotentCompletion() {
        var watermark = OffsetWatermark()
        for offset in Int64(0)...2 { watermark.track(offset) }
        let moved = [watermark.complete(1), watermark.complete(1), watermark.complete(99)]
        #expect(moved == [false, false, false])
        #expect(watermark.inFlight == 2)
        #expect(watermark.watermark == 0)
    }

    @Test("an offset at or below one already tracked is ignored")
    func redeliveryIgnored() {
        var watermark = OffsetWatermark()
        watermark.track(5)
        let tracked = [watermark.track(5), watermark.track(2)]
        #expect(tracked == [false, false])
        #expect(watermark.inFlight == 1)
        watermark.complete(5)
        #expect(watermark.watermark == 6)
    }

    @Test("over many random completion orders the watermark is always the lowest unfinished offset (seeded)",
          arguments: [UInt64(1), 2, 3, 0x5eed, 0xC0FFEE])
    func randomOrders(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for trial in 0..<200 {
            // Sizes up to 3000 also exercise the compaction of completed offsets.
            let count = Int(random.next() % (trial.isMultiple(of: 20) ? 3000 : 60)) + 1
            var offsets: [Int64] = []
            var offset = Int64(random.next() % 1000)
            for _ in 0..<count {
                offsets.append(offset)
                offset += Int64(random.next() % 3) + 1  // gaps of 0 to 2
            }
            var watermark = OffsetWatermark()
            for offset in offsets { watermark.track(offset) }
            var unfinished = Set(offsets)
            var order = offsets
            order.shuffle(using: &random)
            var previous = watermark.watermark!
            for completed in order {
                watermark.complete(completed)
                unfinished.remove(completed)
                let expected = unfinished.min() ?? offsets.last! + 1
                #expect(watermark.watermark == expected, "seed \(seed) trial \(trial): completed \(completed)")
                #expect(watermark.watermark! >= previous, "seed \(seed) trial \(trial): the watermark moved back")
                #expect(watermark.inFlight == unfinished.count)
                previous = watermark.watermark!
                if watermark.watermark != expected { return }
            }
        }
    }
}
