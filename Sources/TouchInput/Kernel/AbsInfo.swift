import TouchSystem

/// The range of an absolute axis (`struct input_absinfo`).
public struct AbsInfo: Equatable, Sendable, CustomStringConvertible {
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (0: unknown); for ABS_MT_ORIENTATION, units per radian.
    public var resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// maximum − minimum + 1: the number of distinct values, as libinput scales axes.
    public var span: Double { Double(Int64(maximum) - Int64(minimum) + 1) }

    public var description: String {
        "\(minimum)…\(maximum)\(resolution > 0 ? " (\(resolution)/mm)" : "")"
    }
}
