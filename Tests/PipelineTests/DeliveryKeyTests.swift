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
        // A colon in the intent id cannot make two deliveries share a key: the id's name holds the
        // intent id, a NUL byte and the token's hex.
        #expect(DeliveryKey(intentID: "a:b", deviceToken: token) != DeliveryKey(intentID: "b", deviceToken: token))
        #expect(Set([key, same, DeliveryKey(intentID: "intent-2", deviceToken: token)]).count == 2)
    }

    @Test("the claim key is `pushline:claim:` and the delivery's derived apns-id, 51 bytes whatever the intent id's and token's lengths")
    func claimKeyFormat() throws {
        let token = try DeviceToken(String(repeating: "ab", count: 32))
        let key = DeliveryKey(intentID: "intent-1", deviceToken: token)
        let id = NotificationID.derived(intentID: "intent-1", deviceToken: token)
        #expect(key.claimKey == "pushline:claim:" + id.description)
        let long = DeliveryKey(intentID: String(repeating: "x", count: 500), deviceToken: try DeviceToken(String(repeating: "0f", count: 100)))
        #expect(long.claimKey.utf8.count == 51)
        #expect(long.claimKey.hasPrefix("pushline:claim:"))
    }

    @Test("a key made from a delivery's derived apns-id is the key of its intent and token")
    func keyFromDerivedID() throws {
        let token = try DeviceToken(String(repeating: "12", count: 32))
        let id = NotificationID.derived(intentID: "intent-9", deviceToken: token)
        #expect(DeliveryKey(derivedID: id) == DeliveryKey(intentID: "intent-9", deviceToken: token))
        #expect(DeliveryKey(derivedID: id).claimKey == DeliveryKey(intentID: "intent-9", deviceToken: token).claimKey)
    }
}
