@testable import HTTP2
import HTTPFields
import Testing

/// A client's response keeps its regular fields packed as received (``HTTP2Response/fields``): the
/// names it was told to keep, or all of them, in arrival order, readable in place.
@Suite("HTTP/2 client: response fields")
struct ResponseFieldTests {
    private static let id = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"

    /// The response of stream 1 after `frames`, or nil when none came.
    private static func response(keeping names: [String]?, _ frames: [[UInt8]]) throws -> HTTP2Response? {
        let (events, _) = try ClientUnderTest(keepingResponseFields: names).answer(frames)
        for case .response(1, let response) in events { return response }
        return nil
    }

    @Test("only the kept names are kept, in arrival order, read as text and in place; a 1xx's fields are dropped")
    func keptNames() throws {
        let response = try #require(try Self.response(keeping: ["apns-id", "apns-unique-id"], [
            RawFrame.headers([(":status", "100"), ("apns-id", "interim")], endStream: false),
            RawFrame.headers([(":status", "200"), ("apns-unique-id", "u-1"), ("server", "sim"), ("apns-id", Self.id)], endStream: true),
        ]))
        #expect(response.status == 200)
        #expect(response.headers == [HTTP2Header("apns-unique-id", "u-1"), HTTP2Header("apns-id", Self.id)])
        #expect(response.header("apns-id") == Self.id)
        #expect(response.header("server") == nil)
        let bytes = response.withHeaderValue("apns-id") { $0.map(Array.init) }
        #expect(bytes == Array(Self.id.utf8))
        #expect(response.withHeaderValue("apns-channel-id") { $0 == nil })
    }

    @Test("without a list every regular field is kept, repeated names too; header(_:) gives the first")
    func everyField() throws {
        let response = try #require(try Self.response(keeping: nil, [
            RawFrame.headers([(":status", "400"), ("x-a", "1"), ("x-b", ""), ("x-a", "2")], endStream: false),
            RawFrame.data(#"{"reason":"BadDeviceToken"}"#, endStream: true),
        ]))
        #expect(response.status == 400)
        #expect(response.headers == [HTTP2Header("x-a", "1"), HTTP2Header("x-b", ""), HTTP2Header("x-a", "2")])
        #expect(response.header("x-a") == "1")
        #expect(response.header("x-b") == "")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
    }

    @Test("a response made from headers and one made from their packed fields are equal whatever their indexing, and read the same")
    func madeEitherWay() {
        let headers = [HTTP2Header("apns-id", Self.id), HTTP2Header("x-a", "1")]
        var response = HTTP2Response(status: 200, headers: headers)
        #expect(response == HTTP2Response(status: 200, fields: HTTP2FieldBlock(headers)))
        var neverIndexed = HTTP2FieldBlock()
        for header in headers { neverIndexed.append(header.name, header.value, indexing: .never) }
        #expect(response == HTTP2Response(status: 200, fields: neverIndexed), "indexing is a hint to the encoder, not part of the response")
        #expect(response != HTTP2Response(status: 200, headers: headers.reversed()))
        #expect(response.headers == headers)
        response.headers = [HTTP2Header("x-b", "2")]
        #expect(response.header("x-b") == "2")
        #expect(response.header("apns-id") == nil)
    }
}
