import FilterChain
import FuzzSupport

/// The JPEG decoder, strict and lenient (EXIF orientation applied), and the gain map search
/// (GainMap.search), on any bytes that begin
/// as a JPEG does; and, differentially, Huffman decoding on a thread of its own (3 MCUs
/// handed over at a time; this project's Huffman decoder for a plain scan, its second
/// thread taking the second half from 4 MCUs) against libjpeg on one thread: the same pixels,
/// warnings and notices, or the same error, else the run stops.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: [0xFF, 0xD8]) else { return -1 }  // not kept in the corpus
    decodeBothWays(bytes)
    // The gain map's search reads the same bytes: it must end, found, damaged or none.
    _ = GainMap.search(jpeg: bytes)
    for lenient in [false, true] {
        let one = outcome(bytes, lenient: lenient, parallel: false)
        let two = outcome(bytes, lenient: lenient, parallel: true)
        if one != two { fatalError("two-thread decoding differs (lenient \(lenient)): \(two.summary) against \(one.summary)") }
    }
    return 0
}

struct Outcome: Equatable {
    var pixels: [UInt8] = []
    var reports: [String] = []
    var summary: String { "\(pixels.count) bytes, \(reports)" }
}

func outcome(_ bytes: [UInt8], lenient: Bool, parallel: Bool) -> Outcome {
    do {
        let reader = try ImageReader.open(.bytes(bytes, name: "fuzz"), options: DecodeOptions(maxPixels: 1 << 22, lenient: lenient))
        if parallel { reader.decodeInParallel(minimumMCUs: 1, chunkMCUs: 3, splitMCUs: 4) }
        let pixels = try reader.readAll()
        return Outcome(pixels: pixels, reports: reader.warnings + reader.notices)
    } catch {
        return Outcome(reports: ["\(error)"])
    }
}
