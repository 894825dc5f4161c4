import FuzzSupport

/// The JPEG decoder, strict and lenient (EXIF orientation applied), on any bytes that begin
/// as a JPEG does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: [0xFF, 0xD8]) else { return -1 }  // not kept in the corpus
    decodeBothWays(bytes)
    return 0
}
