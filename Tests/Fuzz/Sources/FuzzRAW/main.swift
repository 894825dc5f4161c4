import FuzzSupport

/// Camera RAW (LibRaw through fc_raw: its parsers of TIFF-structured and other containers, the
/// raw data's decoders, the development), from bytes and from a file (the TIFF claim asks LibRaw
/// to identify a file by its path), strictly and leniently. LibRaw has a long CVE history: every
/// input is hostile. Inputs must begin as a TIFF or one of the RAW signatures.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let tiff = bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
    let own = bytes.starts(with: Array("FUJIFILMCCD-RAW".utf8)) || bytes.starts(with: Array("IIRO".utf8))
        || bytes.starts(with: [0x49, 0x49, 0x55, 0x00]) || bytes.starts(with: [0x00, 0x4D, 0x52, 0x4D])
    guard tiff || own else { return -1 }
    decodeBothWays(bytes)
    decodeFromFile(bytes)
    return 0
}
