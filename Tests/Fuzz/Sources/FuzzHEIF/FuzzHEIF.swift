import FuzzSupport

/// The HEIF decoder (libheif through fc_heif: the container, the primary image and its
/// tiles, the transformations, alpha, the metadata blocks and the EXIF offset), strict and
/// lenient, on any bytes that begin with an ftyp box.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) else {
        return -1  // not kept in the corpus
    }
    decodeBothWays(bytes)
    return 0
}
