import FilterChain

/// The .cube parser: any text it accepts is a table of the declared size with finite values
/// and a domain whose minimum is below its maximum on each channel.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lut: CubeLUT
    do { lut = try CubeLUT(parsing: bytes) } catch {
        _ = error.description  // the message is part of what is fuzzed
        return 0
    }
    if lut.shaper == nil && lut.cube == nil { fatalError("an accepted .cube file has no table") }
    if let shaper = lut.shaper {
        if shaper.values.count != 3 * shaper.size || !shaper.values.allSatisfy(\.isFinite) {
            fatalError("a 1D table of \(shaper.size) entries holds \(shaper.values.count) values or a non-finite one")
        }
        for c in 0..<3 where !(shaper.domainMin[c] < shaper.domainMax[c]) { fatalError("an empty 1D domain") }
    }
    if let cube = lut.cube {
        let n = cube.size
        for c in 0..<3 where !(cube.domainMin[c] < cube.domainMax[c]) { fatalError("an empty 3D domain") }
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n where !cube.entry(r, g, b).x.isFinite || !cube.entry(r, g, b).y.isFinite || !cube.entry(r, g, b).z.isFinite {
                    fatalError("a non-finite 3D entry at \(r), \(g), \(b)")
                }
            }
        }
    }
    return 0
}
