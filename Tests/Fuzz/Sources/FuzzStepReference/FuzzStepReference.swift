import FilterChain

/// The step-reference parser (positions, ids, id prefixes, names) against a fixed chain. A
/// reference that resolves must name a position in the chain.
let chain = Chain(steps: [
    Step(id: "04908702-BC30-49BF-A527-3BDED83C7570", name: "colour", filter: ColorControls()),
    Step(id: "7B6B4855-224C-467F-9CC8-234278CCF634", filter: GaussianBlur()),
    Step(id: "0490AAAA-0000-4000-8000-000000000000", name: "0490", filter: ToneCurve()),
    Step(id: "12345678-1234-4234-8234-123456789ABC", name: "caf\u{E9}", enabled: false, filter: GaussianBlur()),
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let position = try StepReference(text).resolve(in: chain)
        if !(0...chain.steps.count).contains(position) {
            fatalError("'\(text)' resolved to \(position), outside 0...\(chain.steps.count)")
        }
    } catch {
        _ = error.description  // the message is part of what is fuzzed
    }
    return 0
}
