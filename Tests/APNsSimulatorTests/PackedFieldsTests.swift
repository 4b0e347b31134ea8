import APNsCore
import APNsSimulator
import HTTPFields
import Testing

@Suite("Requests and responses as packed fields")
struct PackedFieldsTests {
    @Test("a request made of the transport's field block is checked as one made of headers")
    func requestFromFieldBlock() throws {
        let harness = try SimulatorHarness()
        let id = "6f2c6ab1-6a3c-4a2b-9c2e-0d7f1a1b2c3d"
        var fields = HTTPFieldBlock()
        fields.append(":method", "POST")
        fields.append(":scheme", "https")
        fields.append(":path", "/3/device/\(Fixture.deviceToken)")
        fields.append(":authority", "localhost")
        for header in try harness.pushHeaders(["apns-id": id]) { fields.append(header.name, header.value) }
        let request = SimulatorRequest(fields: fields, body: Fixture.payload)
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/\(Fixture.deviceToken)")
        #expect(request.headers == (try harness.pushHeaders(["apns-id": id])))
        let response = try harness.send(request)
        #expect(response.status == 200)
        #expect(response.header("apns-id") == id)
        #expect(harness.simulator.inbox().last?.apnsID == id)
    }

    @Test("a field block with a repeated apns-topic is DuplicateHeaders; repeated pseudo-headers are the transport's to refuse")
    func repeatedNamesInFieldBlock() throws {
        let harness = try SimulatorHarness()
        var fields = HTTPFieldBlock()
        fields.append(":method", "POST")
        fields.append(":path", "/3/device/\(Fixture.deviceToken)")
        for header in try harness.pushHeaders() { fields.append(header.name, header.value) }
        fields.append("apns-topic", Fixture.topic)
        let response = try harness.send(SimulatorRequest(fields: fields, body: Fixture.payload))
        #expect(response.status == 400)
        #expect(response.reason == "DuplicateHeaders")
    }

    @Test("ids unique to one answer are packed never to be indexed; the other fields may be")
    func responseIndexing() throws {
        let harness = try SimulatorHarness()
        let accepted = try harness.push()
        let rejected = try harness.push(["apns-push-type": "bogus"])
        for response in [accepted, rejected] {
            let indexing = response.fields.withUnsafeFields { fields in
                fields.map { (String(decoding: $0.name, as: UTF8.self), $0.indexing) }
            }
            #expect(!indexing.isEmpty)
            for (name, mode) in indexing {
                let unique = ["apns-id", "apns-unique-id", "apns-request-id"].contains(name)
                #expect(mode == (unique ? .never : .allowed), "\(name)")
            }
        }
        #expect(rejected.header("content-type") == "application/json")
        #expect(accepted.header("apns-unique-id") != nil)
    }

    @Test("responses compare by status, headers and body")
    func responseEquality() {
        let headers = [HTTPHeader("apns-id", "x"), HTTPHeader("content-type", "application/json")]
        let response = SimulatorResponse(status: 400, headers: headers, body: [1])
        #expect(response == SimulatorResponse(status: 400, headers: headers, body: [1]))
        #expect(response != SimulatorResponse(status: 400, headers: [headers[1], headers[0]], body: [1]))
        var changed = response
        changed.headers = [HTTPHeader("apns-id", "y")]
        #expect(changed.headers == [HTTPHeader("apns-id", "y")])
        #expect(changed != response)
    }
}
