extension Chain {
    /// The size of the image at each of `positions` (0 is the input, n the image after step
    /// n) for an input of `size`, as a render makes them (geometry steps change it), without
    /// rendering anything: what an editor shows as a step's full size while it previews a
    /// smaller copy. Throws `RenderError.noSuchStep` for a position outside the chain,
    /// `RenderError.stepFailed` for a step that cannot apply to the size it gets (a crop
    /// reaching outside), and `RenderError.imageNotLoaded` for an image of the chain without
    /// its pixels.
    public func sizes(at positions: [Int], input size: ImageSize) throws(RenderError) -> [ImageSize] {
        for position in positions where !(0...steps.count).contains(position) {
            throw RenderError(.noSuchStep(position, count: steps.count))
        }
        let layers = try images.map { image throws(RenderError) -> (size: ImageSize, alpha: Bool) in
            guard let raster = image.image else { throw RenderError(.imageNotLoaded(image.label)) }
            return (ImageSize(width: raster.width, height: raster.height), raster.format.channels.hasAlpha)
        }
        do throws(Plan.StepFailure) {
            let plan = try Plan(chain: ResolvedChain(self), size: size, hasAlpha: false, images: layers, taps: positions, stripHeight: 32)
            return positions.indices.map(plan.size(ofOutput:))
        } catch {
            throw RenderError(.stepFailed(position: error.position, label: steps[error.position - 1].label, reason: error.error.reason))
        }
    }
}
