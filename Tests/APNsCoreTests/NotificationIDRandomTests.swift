import APNsCore
import Testing

@Suite("Random apns-id and device-token checks")
struct NotificationIDRandomTests {
    /// A generator that repeats for a seed (SplitMix64).
    struct Repeatable: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    @Test("a random id from a generator is a version-4 UUID, the same for the same generator state")
    func randomUsingGenerator() {
        var first = Repeatable(state: 42)
        var second = Repeatable(state: 42)
        let id = NotificationID.random(using: &first)
        #expect(id == NotificationID.random(using: &second))
        #expect(id != NotificationID.random(using: &first))
        #expect(id.bytes[6] >> 4 == 4)
        #expect(id.bytes[8] >> 6 == 2)
        #expect(NotificationID(id.description) == id)
    }

    @Test("a non-hex device token still names the offending character")
    func badTokenNamesCharacter() throws {
        let error = #expect(throws: Violation.self) { try DeviceToken("abzd") }
        #expect(error?.reason == .badDeviceToken)
        #expect(error?.detail.contains("'z'") == true)
        #expect(try DeviceToken("ABCD").hex == "abcd")
    }
}
