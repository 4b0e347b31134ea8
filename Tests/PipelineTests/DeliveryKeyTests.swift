import APNsCore
import Pipeline
import Testing

@Suite("Delivery keys")
struct DeliveryKeyTests {
    @Test("the same intent and token make equal keys with equal hashes; another intent or token makes another key")
    func equalityAndHashing() throws {
        let token = try DeviceToken(String(repeating: "ab", count: 32))
        let other = try DeviceToken(String(repeating: "cd", count: 32))
        let key = DeliveryKey(intentID: "intent-1", deviceToken: token)
        let same = DeliveryKey(intentID: "intent-" + String(1), deviceToken: try DeviceToken(String(repeating: "AB", count: 32)))
        #expect(key == same)
        #expect(key.hashValue == same.hashValue)
        #expect(key != DeliveryKey(intentID: "intent-2", deviceToken: token))
        #expect(key != DeliveryKey(intentID: "intent-1", deviceToken: other))
        // A colon in the intent id cannot make two deliveries share a key: the token is fixed-format hex.
        #expect(DeliveryKey(intentID: "a:b", deviceToken: token) != DeliveryKey(intentID: "b", deviceToken: token))
        #expect(Set([key, same, DeliveryKey(intentID: "intent-2", deviceToken: token)]).count == 2)
    }
}
