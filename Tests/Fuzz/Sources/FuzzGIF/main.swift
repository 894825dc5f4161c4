import FuzzSupport

/// The GIF decoder (giflib through fc_gif: the scan, then frames composited on a canvas),
/// as a still and frame by frame, on any bytes that begin as a GIF does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: Array("GIF8".utf8)) else { return -1 }  // not kept in the corpus
    decodeBothWays(bytes)
    decodeFrames(bytes)
    return 0
}
