#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CCommon

/// The rows of a whole image, gathered for an encoder that takes the picture at once
/// (libwebp, libavif). Its size is counted before anything is written, and the memory comes
/// from malloc, so that an image too large for memory is an error naming the file, where
/// Swift's allocation would end the process.
final class WholeImageRows {
    let rowBytes: Int
    private let pixels: UnsafeMutableRawPointer
    private var rows = 0

    init(_ header: EncodeHeader, file: String) throws(CodecError) {
        rowBytes = header.width * header.format.bytesPerPixel
        let (total, overflow) = rowBytes.multipliedReportingOverflow(by: header.height)
        guard !overflow, let memory = malloc(max(1, total)) else { throw CodecError(file, .outOfMemory) }
        pixels = memory
    }

    deinit { free(pixels) }

    /// Copies `count` rows, `stride` bytes apart, after the rows already gathered.
    func append(_ source: UnsafeRawPointer, stride: Int, count: Int) {
        for r in 0..<count {
            (pixels + (rows + r) * rowBytes).copyMemory(from: source + r * stride, byteCount: rowBytes)
        }
        rows += count
    }

    var bytes: UnsafePointer<UInt8> { UnsafePointer(pixels.assumingMemoryBound(to: UInt8.self)) }
}

extension ImageMetadata {
    /// Leaves out EXIF data that does not start with a TIFF header (libavif refuses the whole
    /// file for it; libheif and libjxl place it wrongly), and says so.
    mutating func keepTIFFExifOnly() -> [String] {
        guard let exif, !Exif.isTIFF(exif) else { return [] }
        self.exif = nil
        return ["the EXIF data does not start with a TIFF header; not written"]
    }

    /// The ICC profile, EXIF and XMP as the shims' encoders take them, valid inside `body`.
    func withEmbedded<T>(_ body: (fc_metadata) -> T) -> T {
        let icc = iccProfile ?? [], exif = exif ?? [], xmp = xmp ?? []
        return icc.withUnsafeBufferPointer { i in
            exif.withUnsafeBufferPointer { e in
                xmp.withUnsafeBufferPointer { x in
                    body(fc_metadata(icc: icc.isEmpty ? nil : i.baseAddress, icc_length: icc.count,
                                     exif: exif.isEmpty ? nil : e.baseAddress, exif_length: exif.count,
                                     xmp: xmp.isEmpty ? nil : x.baseAddress, xmp_length: xmp.count))
                }
            }
        }
    }
}

/// An encoder whose library takes the picture at once (libwebp, libavif): the rows are
/// gathered in `pixels` as they are handed over and encoded in `finish()`.
protocol WholeImageEncoder: RowEncoder {
    var pixels: WholeImageRows { get }
}

extension WholeImageEncoder {
    func write(rows source: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob] {
        pixels.append(source, stride: stride, count: count)
        return []
    }

    func flush() throws {}
}
