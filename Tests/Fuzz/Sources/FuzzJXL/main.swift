import FuzzSupport

/// The JPEG XL decoder (libjxl through fc_jxl: basic information, colour, boxes, frames), as a
/// still and frame by frame, on any bytes that begin as a codestream or its container does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: [0xFF, 0x0A]) || bytes.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) else { return -1 }
    decodeBothWays(bytes)
    decodeFrames(bytes)
    return 0
}
