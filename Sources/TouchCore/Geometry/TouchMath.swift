/// Trigonometry for TouchCore, which may import neither Glibc nor Foundation.
///
/// The kernels are fdlibm's (FreeBSD msun `k_sin.c`, `k_cos.c`, `s_atan.c`): minimax polynomials on
/// [−π/4, π/4] after a Cody–Waite reduction by π/2. Accurate to about 1 ulp for the angles a touch
/// screen produces (|x| < 2^20·π/2); tests compare them against Glibc.
public enum TouchMath {
    // π/2 split so that n·pio2Hi is exact for |n| < 2^20 (fdlibm pio2_1, pio2_1t).
    private static let pio2Hi = 1.57079632673412561417e+00
    private static let pio2Lo = 6.07710050650619224932e-11
    private static let twoOverPi = 6.36619772367581382433e-01

    public static func sin(_ x: Double) -> Double {
        guard x.isFinite else { return .nan }
        if abs(x) <= 0.7853981633974483 { return kernelSin(x) }
        let (n, r) = reduce(x)
        switch n & 3 {
        case 0: return kernelSin(r)
        case 1: return kernelCos(r)
        case 2: return -kernelSin(r)
        default: return -kernelCos(r)
        }
    }

    public static func cos(_ x: Double) -> Double {
        guard x.isFinite else { return .nan }
        if abs(x) <= 0.7853981633974483 { return kernelCos(x) }
        let (n, r) = reduce(x)
        switch n & 3 {
        case 0: return kernelCos(r)
        case 1: return -kernelSin(r)
        case 2: return -kernelCos(r)
        default: return kernelSin(r)
        }
    }

    /// x = n·π/2 + r with |r| ≤ ~π/4.
    private static func reduce(_ x: Double) -> (Int, Double) {
        let fn = (x * twoOverPi).rounded(.toNearestOrEven)
        let r = (x - fn * pio2Hi) - fn * pio2Lo
        return (Int(fn), r)
    }

    private static func kernelSin(_ x: Double) -> Double {
        let s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03
        let s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06
        let s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10
        let z = x * x, v = z * x
        let r = s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)))
        return x + v * (s1 + z * r)
    }

    private static func kernelCos(_ x: Double) -> Double {
        let c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03
        let c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07
        let c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11
        let z = x * x
        let r = z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))))
        let hz = 0.5 * z, w = 1.0 - hz
        return w + (((1.0 - w) - hz) + z * r)
    }

    private static let atanHi: [Double] = [4.63647609000806093515e-01, 7.85398163397448278999e-01,
                                           9.82793723247329054082e-01, 1.57079632679489655800e+00]
    private static let atanLo: [Double] = [2.26987774529616870924e-17, 3.06161699786838301793e-17,
                                           1.39033110312309984516e-17, 6.12323399573676603587e-17]

    /// The arc tangent of `x`, in (−π/2, π/2).
    public static func atan(_ x: Double) -> Double {
        if x.isNaN { return x }
        let negative = x < 0
        var t = abs(x)
        if t >= 7.378697629483821e19 {  // 2^66: atan(x) = ±π/2 to double precision
            return negative ? -(atanHi[3] + atanLo[3]) : atanHi[3] + atanLo[3]
        }
        var id = -1
        if t >= 0.4375 {
            if t < 1.1875 {
                if t < 0.6875 { id = 0; t = (2.0 * t - 1.0) / (2.0 + t) } else { id = 1; t = (t - 1.0) / (t + 1.0) }
            } else {
                if t < 2.4375 { id = 2; t = (t - 1.5) / (1.0 + 1.5 * t) } else { id = 3; t = -1.0 / t }
            }
        }
        let z = t * t, w = z * z
        let s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01 + w * (9.09088713343650656196e-02
                 + w * (6.66107313738753120669e-02 + w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))))
        let s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01 + w * (-7.69187620504482999495e-02
                 + w * (-5.83357013379057348645e-02 + w * -3.65315727442169155270e-02))))
        if id < 0 {
            let r = t - t * (s1 + s2)
            return negative ? -r : r
        }
        let r = atanHi[id] - ((t * (s1 + s2) - atanLo[id]) - t)
        return negative ? -r : r
    }

    /// The angle of the vector (x, y) in (−π, π], as C's atan2.
    public static func atan2(_ y: Double, _ x: Double) -> Double {
        if x.isNaN || y.isNaN { return .nan }
        if y == 0 {
            if x > 0 || (x == 0 && x.sign == .plus) { return y }      // ±0
            return y.sign == .minus ? -Double.pi : Double.pi
        }
        if x == 0 { return y > 0 ? Double.pi / 2 : -Double.pi / 2 }
        if x.isInfinite {
            if y.isInfinite {
                let q = x > 0 ? Double.pi / 4 : 3 * Double.pi / 4
                return y > 0 ? q : -q
            }
            if x > 0 { return y > 0 ? 0.0 : -0.0 }
            return y > 0 ? Double.pi : -Double.pi
        }
        if y.isInfinite { return y > 0 ? Double.pi / 2 : -Double.pi / 2 }
        let z = atan(abs(y / x))
        if x > 0 { return y > 0 ? z : -z }
        return y > 0 ? Double.pi - z : z - Double.pi
    }

    /// `angle` folded into (−π, π].
    public static func normalizedAngle(_ angle: Double) -> Double {
        var a = angle
        while a > Double.pi { a -= 2 * Double.pi }
        while a <= -Double.pi { a += 2 * Double.pi }
        return a
    }
}
