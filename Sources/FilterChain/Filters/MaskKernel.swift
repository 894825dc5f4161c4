/// Placeholder until the mask kernels land.
struct MaskKernel: Sendable {
    let mask: Mask
    init(_ mask: Mask) { self.mask = mask }
    func values(into m: UnsafeMutablePointer<Float>, count: Int, row: Int, column: Int, size: ImageSize,
                input: PlanarPixels, layer: PlanarPixels?) { fatalError("not yet") }
    static func mix(input: PlanarPixels, result: PlanarPixels, mask m: UnsafePointer<Float>, count: Int, opaque: Bool) { fatalError("not yet") }
}
