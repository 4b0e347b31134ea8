import APNsCore
@testable import Enrichment

/// One fuzz input (`make fuzz`): fed to the intent decoder, the template parser, the template
/// text compiler or the worker's planning and records (``WorkerPlanningFuzz``), chosen by its first byte. Any crash, trap or sanitizer report is a bug; thrown
/// errors are the expected answer to bad input. Exported under libFuzzer's name as well, which its
/// archive expects even though `main.swift` starts the driver.
@_cdecl("LLVMFuzzerTestOneInput")
public func enrichmentFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 4 {
    case 0:
        fuzzIntent(bytes)
    case 1:
        _ = try? TemplateFile(bytes, file: "fuzz.yaml")
    case 2:
        fuzzTemplateText(bytes)
    default:
        WorkerPlanningFuzz.run(bytes)
    }
    return 0
}

/// Decodes an intent; when it decodes, renders its args through a template that reaches into them.
private func fuzzIntent(_ bytes: [UInt8]) {
    guard let intent = try? IntentDecoder.decode(bytes) else { return }
    _ = try? TemplateText(compiling: "{{a}}{{#b.c}}{{b.c}}{{/b.c}}{{^d}}-{{/d}}").render(intent.args)
    var payload = APNsPayload(alert: .content(AlertContent(body: intent.id)), custom: intent.custom)
    _ = try? AlertShortener.encode(&payload, limit: 512)
}

/// Compiles text as a template and renders it with a fixed set of arguments.
private func fuzzTemplateText(_ bytes: [UInt8]) {
    let source = String(decoding: bytes, as: UTF8.self)
    let args: JSONObject = ["a": "x", "b": .object(["c": 1]), "d": [], "e": .object([:])]
    _ = try? TemplateText(compiling: source).render(args)
    _ = try? FormatString(compiling: source)
}
