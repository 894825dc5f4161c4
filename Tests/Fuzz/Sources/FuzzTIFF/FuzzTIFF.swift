import FilterChain
import FuzzSupport

/// The TIFF decoder (libtiff through fc_tiff: directories, strips and tiles, every codec it
/// allows, the directory walk, the EXIF gathered from IFD0 and the Exif and GPS sub-IFDs,
/// Orientation applied), strict and lenient, on any bytes that begin as a classic TIFF does,
/// from memory and from a file (read with pread as libtiff asks);
/// then a small decoded image written back as TIFF with its metadata (the EXIF spread over
/// IFD0 and sub-IFDs again) and read once more.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) else {
        return -1  // not kept in the corpus
    }
    decodeBothWays(bytes)
    decodeFromFile(bytes)
    writeBack(bytes)
    return 0
}

/// A decoded image of at most 2^16 pixels, written as TIFF and read back; the write must
/// not fail (the image and metadata came from a file read), the read must give the same size.
func writeBack(_ bytes: [UInt8]) {
    guard let reader = try? ImageReader.open(.bytes(bytes, name: "fuzz"), options: DecodeOptions(maxPixels: 1 << 16, lenient: true)),
          let pixels = try? reader.readAll() else { return }
    let info = reader.info
    if info.format.depth.isFloat {
        // TIFF holds float: through the renderer, which writes float rows as float (its colour
        // legs may refuse a fuzzed profile: an error, not a crash).
        guard let image = try? RasterImage(width: info.width, height: info.height, format: info.format,
                                           metadata: info.metadata, pixels: pixels),
              let written = try? image.encoded(as: .tiff) else { return }
        guard let again = try? RasterImage(decoding: written, name: "again"), again.format.depth == .float32,
              (again.width, again.height) == (info.width, info.height) else {
            fatalError("a float image written as TIFF does not read back as float of its size")
        }
        return
    }
    let buffer = OutputBuffer()
    do {
        let writer = try ImageWriter(.memory(buffer), format: .tiff,
                                     header: EncodeHeader(width: info.width, height: info.height, format: info.format, metadata: info.metadata))
        try pixels.withUnsafeBytes { try writer.writeNow(rows: $0.baseAddress!, stride: info.rowBytes, count: info.height) }
        try writer.finish()
    } catch {
        fatalError("writing a decoded image as TIFF failed: \(error)")
    }
    guard let again = try? ImageReader.open(.bytes(buffer.bytes, name: "again")), again.info.format == info.format,
          (again.info.width, again.info.height) == (info.width, info.height) || again.info.appliedOrientation != nil
    else { fatalError("a TIFF written from a decoded image does not read back") }
}
