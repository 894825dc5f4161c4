import FilterChain

/// The chain file parser: bytes -> JSON -> chain model -> JSON text -> chain again. Any
/// chain it accepts must write out as text it accepts again, unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let chain: Chain
    do { chain = try Chain.parse(bytes, file: "fuzz.json") } catch {
        _ = error.description  // the message is part of what is fuzzed
        return 0
    }
    let text = chain.jsonText
    guard let again = try? Chain.parse(Array(text.utf8), file: "again.json") else {
        fatalError("an accepted chain wrote text that does not read back:\n\(text)")
    }
    if again.jsonText != text { fatalError("a chain changed on its way through its own text:\n\(text)") }
    return 0
}
