import FilterChain
import FuzzSupport

/// The HEIF decoder (libheif through fc_heif: the container, the SPS probe, the primary image
/// and its tiles through fc_heif's libde265 plugin, the transformations, alpha, the metadata
/// blocks and the EXIF offset), strict and lenient, and once more on two threads as the
/// renderer asks for it, on any bytes that begin with an ftyp box.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) else {
        return -1  // not kept in the corpus
    }
    decodeBothWays(bytes)
    do {
        let reader = try ImageReader.open(.bytes(bytes, name: "fuzz"), options: DecodeOptions(maxPixels: 1 << 22))
        reader.decodeInParallel()
        _ = try reader.readAll()
    } catch {
        _ = "\(error)"
    }
    return 0
}
