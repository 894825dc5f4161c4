import FuzzSupport

/// The WebP decoder (container, incremental still decoding, animations), strict and
/// lenient, on any bytes that begin as a WebP does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: Array("RIFF".utf8)) else { return -1 }  // not kept in the corpus
    decodeBothWays(bytes)
    decodeFrames(bytes)
    return 0
}
