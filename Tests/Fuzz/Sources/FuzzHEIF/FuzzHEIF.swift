import FilterChain
import FuzzSupport

/// The renderer the third pass uses: two threads, so that an image alone with a fast resize is
/// decoded on two threads and reduced on load, as `filterchain apply` does it.
let renderer = Renderer(threads: 2)

/// A fast resize by 0.45, 0.2, 0.1 or 0.05: shrink-on-load by 1, 2, 4 or 8.
let chains: [Chain] = [0.45, 0.2, 0.1, 0.05].map { scale in
    try! Chain.parse(Array("""
    {"version": 1, "filters": [{"id": "00000000-0000-4000-8000-000000000001", "type": "resize",
     "parameters": {"scale": \(scale), "fast": true}}]}
    """.utf8), file: "fast.json")
}

/// The HEIF decoder (libheif through fc_heif: the container, the SPS probe, the primary image
/// and its tiles through fc_heif's libde265 plugin, the transformations, alpha, the metadata
/// blocks and the EXIF offset), strict and lenient, and once more through the renderer with a
/// fast resize (two decoding threads, block averages), on any bytes that begin with an ftyp box.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) else {
        return -1  // not kept in the corpus
    }
    decodeBothWays(bytes)
    do {
        _ = try renderer.render(chains[Int(bytes[bytes.count - 1]) % chains.count], source: .bytes(bytes, name: "fuzz"),
                                decode: DecodeOptions(maxPixels: 1 << 22), outputs: [RenderOutput(step: 1, .memory())])
    } catch {
        _ = "\(error)"
    }
    return 0
}
