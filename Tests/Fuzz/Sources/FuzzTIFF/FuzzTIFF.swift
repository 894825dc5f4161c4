import FuzzSupport

/// The TIFF decoder (libtiff through fc_tiff: directories, strips and tiles, every codec it
/// allows, the directory walk and the Exif copy), strict and lenient, on any bytes that
/// begin as a classic TIFF does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) else {
        return -1  // not kept in the corpus
    }
    decodeBothWays(bytes)
    return 0
}
