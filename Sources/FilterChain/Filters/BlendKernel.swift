/// The blend modes' arithmetic (placeholder until the SIMD kernels land).
struct BlendKernel: LayerKernel {
    let mode: BlendMode
    let opacity: Float

    var changesOpaqueAlpha: Bool { false }

    func blend(backdrop: PlanarPixels, layer: PlanarPixels, count: Int) {
        fatalError("BlendKernel is not written yet")
    }
}
