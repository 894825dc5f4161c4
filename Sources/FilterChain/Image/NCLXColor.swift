/// A colour description by code points (ITU-T H.273, ISO/IEC 23091-2), as HEIF and AVIF
/// files carry it in an `nclx` colour box: which primaries, which transfer curve, which
/// YCbCr matrix, and whether samples use the full range. Kept from input to output for
/// colour management; the pixels a decoder hands over are already RGB.
public struct NCLXColor: Hashable, Sendable, CustomStringConvertible {
    /// Colour primaries (1: BT.709/sRGB, 9: BT.2020, 12: Display P3, 2: unspecified).
    public var colourPrimaries: UInt16
    /// Transfer characteristics (13: sRGB, 1: BT.709, 16: PQ, 18: HLG, 8: linear, 2: unspecified).
    public var transferCharacteristics: UInt16
    /// Matrix coefficients (0: identity/RGB, 1: BT.709, 6: BT.601, 9: BT.2020 NCL).
    public var matrixCoefficients: UInt16
    /// Samples span the full range (else the limited "video" range).
    public var fullRange: Bool

    public init(colourPrimaries: UInt16, transferCharacteristics: UInt16, matrixCoefficients: UInt16, fullRange: Bool) {
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }

    /// "nclx 1/13/6 full".
    public var description: String {
        "nclx \(colourPrimaries)/\(transferCharacteristics)/\(matrixCoefficients) \(fullRange ? "full" : "limited")"
    }
}
