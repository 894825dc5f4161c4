/// A colour conversion lcms2 does itself, as a point kernel over planes: for LUT-based RGB
/// or grey profiles (an AToB sRGB, printer and camera profiles). The planes are interleaved
/// into a scratch row, transformed by lcms2 in float, and spread back; grey is read from the
/// red plane and written to all three. Alpha is untouched. CMYK sources, which have four
/// planes of colour, are converted from interleaved rows with `LCMSTransform.run`.
package struct LCMSKernel: PointKernel {
    public let transform: LCMSTransform

    public init(_ transform: LCMSTransform) {
        precondition([1, 3].contains(transform.inputChannels) && [1, 3].contains(transform.outputChannels),
                     "planes hold RGB or grey")
        self.transform = transform
    }

    /// The input leg of a LUT-based profile: into the working space with `intent` and
    /// black-point compensation.
    public static func input(from profile: ColorProfile, to space: WorkingSpace,
                             intent: RenderingIntent) throws(ColorProfileError) -> LCMSKernel {
        LCMSKernel(try LCMSTransform(from: profile, to: ColorProfile(workingSpace: space), intent: intent,
                                     blackPointCompensation: true))
    }

    /// The output leg to a profile lcms2 converts with (intent, black-point compensation).
    public static func output(from space: WorkingSpace, to profile: ColorProfile,
                              intent: RenderingIntent) throws(ColorProfileError) -> LCMSKernel {
        LCMSKernel(try LCMSTransform(from: ColorProfile(workingSpace: space), to: profile, intent: intent,
                                     blackPointCompensation: true))
    }

    public func apply(_ p: PlanarPixels, count: Int) {
        let nIn = transform.inputChannels, nOut = transform.outputChannels
        let piece = 1024
        withUnsafeTemporaryAllocation(of: Float.self, capacity: piece * (nIn + nOut)) { scratch in
            let src = scratch.baseAddress!, dst = src + piece * nIn
            var start = 0
            while start < count {
                let n = min(piece, count - start)
                for x in 0..<n {
                    let i = start + x
                    if nIn == 3 {
                        src[3 * x] = p.red[i]; src[3 * x + 1] = p.green[i]; src[3 * x + 2] = p.blue[i]
                    } else {
                        src[x] = p.red[i]
                    }
                }
                transform.run(src, into: dst, count: n)
                for x in 0..<n {
                    let i = start + x
                    if nOut == 3 {
                        p.red[i] = dst[3 * x]; p.green[i] = dst[3 * x + 1]; p.blue[i] = dst[3 * x + 2]
                    } else {
                        p.red[i] = dst[x]; p.green[i] = dst[x]; p.blue[i] = dst[x]
                    }
                }
                start += n
            }
        }
    }
}
