import FuzzSupport

/// The AVIF decoder (libavif's container parsing, dav1d, the clap/irot/imir delivery), strict
/// and lenient, on any bytes that begin as an ISO media file does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 12, bytes[4..<8].elementsEqual(Array("ftyp".utf8)) else { return -1 }  // not kept in the corpus
    decodeBothWays(bytes)
    decodeFrames(bytes)
    return 0
}
