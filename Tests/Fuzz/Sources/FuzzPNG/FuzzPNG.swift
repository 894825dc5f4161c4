import FuzzSupport

/// The PNG decoder, strict and lenient, on any bytes that begin as a PNG does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return -1 }  // not kept in the corpus
    decodeBothWays(bytes)
    return 0
}
