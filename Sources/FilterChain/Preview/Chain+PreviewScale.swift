extension StepGraph {
    /// The chain as it should run on a copy of the image scaled by `scale` (0.25: a quarter
    /// of the width), so that the result looks like the full-size result scaled: every
    /// parameter declared in pixels (`ParameterUnit.pixels`: a blur's sigma, a crop
    /// rectangle, a size) has each of its numbers multiplied by `scale`, then clamped to the
    /// parameter's range; a value its parameter refuses that way (an integer) is rounded,
    /// at least 1, and a value still refused keeps its full-size setting. Ids, names and
    /// enabled flags are unchanged. The chain's images are scaled alike (a logo keeps its
    /// size relative to the picture), and so are an image mask's placement offsets.
    public func scaledForPreview(by scale: Double) -> Self {
        guard scale != 1 else { return self }
        var copy = self
        for (i, step) in steps.enumerated() {
            copy.steps[i].filter = step.filter.scaled(by: scale)
            if var mask = step.mask, case .image(let source, let channel, var placement) = mask.shape {
                placement.offsetX = Int((Double(placement.offsetX) * scale).rounded())
                placement.offsetY = Int((Double(placement.offsetY) * scale).rounded())
                mask.shape = .image(source: source, channel: channel, placement: placement)
                copy.steps[i].mask = mask
            }
        }
        for (i, image) in images.enumerated() where scale < 1 {
            guard let raster = image.image else { continue }
            let side = max(1, Int((Double(max(raster.width, raster.height)) * scale).rounded()))
            copy.images[i].image = (try? raster.downscaled(toFit: side)) ?? raster
        }
        return copy
    }

}

extension Chain {
    static func scaledParameters<F: Filter>(_ filter: F, by scale: Double) -> F {
        var result = filter
        for parameter in F.declaration.parameters where parameter.unit == .pixels {
            guard let access = parameter.numbers, let values = access.get(filter) else { continue }
            let range: ClosedRange<Double>? = if case .number(let r) = parameter.kind { r } else { nil }
            for rounded in [false, true] {
                var candidate = result
                if (try? access.set(&candidate, values.map { multiplied($0, by: scale, range: range, rounded: rounded) })) != nil {
                    result = candidate
                    break
                }
            }
        }
        return result
    }

    /// `v` multiplied by `scale`; `rounded`: to a whole number, at least 1 unless 0; then
    /// clamped to `range`.
    static func multiplied(_ v: Double, by scale: Double, range: ClosedRange<Double>?, rounded: Bool) -> Double {
        var scaled = v * scale
        if rounded { scaled = v == 0 ? 0 : max(1, scaled.rounded()) }
        if let range { scaled = min(max(scaled, range.lowerBound), range.upperBound) }
        return scaled
    }
}

extension Filter {
    /// Every parameter declared in pixels, each of its numbers multiplied by `scale`.
    public func scaled(by scale: Double) -> Self { Chain.scaledParameters(self, by: scale) }
}
