//! The closed set of types of the kernel language and their memory layout.

use std::fmt;

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `i64`
    I64,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl Scalar {
    /// Whether this is `f32` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }
    /// Whether this is one of the integer types.
    pub fn is_int(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
    }
    /// Whether this is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I64)
    }
    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Scalar::Bool => 1,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }
    /// The Rust spelling (`f32`, `u64`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::I64 => "i64",
            Scalar::U64 => "u64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }
    /// Parses a Rust scalar type name.
    pub fn from_name(s: &str) -> Option<Scalar> {
        Some(match s {
            "bool" => Scalar::Bool,
            "i32" => Scalar::I32,
            "u32" => Scalar::U32,
            "i64" => Scalar::I64,
            "u64" => Scalar::U64,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            _ => return None,
        })
    }
}

/// Whether a kernel may write an array parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// `&Array<T>`: loads only.
    Read,
    /// `&mut Array<T>`: loads, stores and atomics.
    Write,
}

/// The most elements a kernel-language tuple may hold (the runtime's gradient
/// helpers are implemented for tuples up to this size).
pub const MAX_TUPLE: usize = 16;

/// A type of the kernel language.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `()`: the result of statements and of functions without a return value.
    Unit,
    /// A scalar.
    Scalar(Scalar),
    /// A vector of 2–4 scalars (`Vec3`, `DVec3`, `IVec3`, `UVec3`), glam layout.
    Vector(u8, Scalar),
    /// A square N×N matrix (`Mat3`, `DMat3`), column-major as in glam.
    Matrix(u8, Scalar),
    /// A rotation quaternion (x, y, z, w) as in glam.
    Quat(Scalar),
    /// A rigid transform: position `p` then rotation `q`.
    Transform(Scalar),
    /// A spatial 6-vector, ordered (linear, angular).
    SpatialVector(Scalar),
    /// A 6×6 spatial matrix.
    SpatialMatrix(Scalar),
    /// An array parameter with `ndim` dimensions.
    Array {
        /// Element type.
        elem: Box<Type>,
        /// Number of dimensions, 1–4.
        ndim: u8,
        /// Read-only or writable.
        access: Access,
    },
    /// A user struct declared with `#[weft::structure]`.
    Struct(String),
    /// A tuple (function results, `tid()` in 2–4-D launches) of at most
    /// [`MAX_TUPLE`] elements.
    Tuple(Vec<Type>),
    /// A fixed-size array of scalars in the thread's own memory (`[0i32; 32]`):
    /// only the type of a local variable, indexed with `a[i]`; never a value that
    /// is copied, passed or returned.
    LocalArray {
        /// Element type.
        elem: Scalar,
        /// Number of elements.
        len: u32,
    },
}

impl Type {
    /// `f32`.
    pub const F32: Type = Type::Scalar(Scalar::F32);
    /// `f64`.
    pub const F64: Type = Type::Scalar(Scalar::F64);
    /// `i32`.
    pub const I32: Type = Type::Scalar(Scalar::I32);
    /// `u32`.
    pub const U32: Type = Type::Scalar(Scalar::U32);
    /// `bool`.
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);

    /// The scalar type of this type's components, if it is numeric.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s)
            | Type::Vector(_, s)
            | Type::Matrix(_, s)
            | Type::Quat(s)
            | Type::Transform(s)
            | Type::SpatialVector(s)
            | Type::SpatialMatrix(s) => Some(*s),
            _ => None,
        }
    }
    /// Whether this is a scalar of the given kind.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Scalar(_))
    }
    /// Whether this is a float scalar.
    pub fn is_float_scalar(&self) -> bool {
        matches!(self, Type::Scalar(s) if s.is_float())
    }
    /// Whether this is an integer scalar.
    pub fn is_int_scalar(&self) -> bool {
        matches!(self, Type::Scalar(s) if s.is_int())
    }
    /// Whether values of this type have float components (and so can carry gradients).
    pub fn is_float_based(&self) -> bool {
        self.scalar().is_some_and(|s| s.is_float())
    }
    /// Number of scalar components of a numeric value type.
    pub fn components(&self) -> Option<usize> {
        Some(match self {
            Type::Scalar(_) => 1,
            Type::Vector(n, _) => *n as usize,
            Type::Matrix(n, _) => (*n as usize) * (*n as usize),
            Type::Quat(_) => 4,
            Type::Transform(_) => 7,
            Type::SpatialVector(_) => 6,
            Type::SpatialMatrix(_) => 36,
            _ => return None,
        })
    }
    /// Whether a value of this type can be stored in a local variable or array.
    pub fn is_value(&self) -> bool {
        !matches!(
            self,
            Type::Array { .. } | Type::Unit | Type::LocalArray { .. }
        )
    }

    /// The Rust spelling used in generated code and error messages.
    pub fn rust_name(&self) -> String {
        use Scalar::*;
        match self {
            Type::Unit => "()".into(),
            Type::Scalar(s) => s.name().into(),
            Type::Vector(n, s) => {
                let p = match s {
                    F32 => "",
                    F64 => "D",
                    I32 => "I",
                    U32 => "U",
                    I64 => "I64",
                    U64 => "U64",
                    Bool => "B",
                };
                format!("{p}Vec{n}")
            }
            Type::Matrix(n, s) => format!("{}Mat{n}", prefix(*s)),
            Type::Quat(s) => format!("{}Quat", prefix(*s)),
            Type::Transform(s) => format!("{}Transform", prefix(*s)),
            Type::SpatialVector(s) => format!("{}SpatialVector", prefix(*s)),
            Type::SpatialMatrix(s) => format!("{}SpatialMatrix", prefix(*s)),
            Type::Array { elem, ndim, access } => {
                let r = if *access == Access::Write {
                    "&mut "
                } else {
                    "&"
                };
                if *ndim == 1 {
                    format!("{r}Array<{}>", elem.rust_name())
                } else {
                    format!("{r}Array<{}, {ndim}>", elem.rust_name())
                }
            }
            Type::Struct(n) => n.clone(),
            Type::Tuple(ts) => {
                let parts: Vec<_> = ts.iter().map(|t| t.rust_name()).collect();
                format!("({})", parts.join(", "))
            }
            Type::LocalArray { elem, len } => format!("[{}; {len}]", elem.name()),
        }
    }

    /// Parses a builtin (non-struct, non-array) type name such as `Vec3` or `DMat4`.
    pub fn from_builtin_name(s: &str) -> Option<Type> {
        use Scalar::*;
        if let Some(sc) = Scalar::from_name(s) {
            return Some(Type::Scalar(sc));
        }
        let (prefix, rest) = if let Some(r) = s.strip_prefix("I64") {
            (I64, r)
        } else if let Some(r) = s.strip_prefix("U64") {
            (U64, r)
        } else if let Some(r) = s.strip_prefix('D') {
            (F64, r)
        } else if let Some(r) = s.strip_prefix('I') {
            (I32, r)
        } else if let Some(r) = s.strip_prefix('U') {
            (U32, r)
        } else {
            (F32, s)
        };
        let t = match rest {
            "Vec2" => Type::Vector(2, prefix),
            "Vec3" => Type::Vector(3, prefix),
            "Vec4" => Type::Vector(4, prefix),
            _ if !prefix.is_float() => return None,
            "Mat2" | "Mat22" => Type::Matrix(2, prefix),
            "Mat3" | "Mat33" => Type::Matrix(3, prefix),
            "Mat4" | "Mat44" => Type::Matrix(4, prefix),
            "Quat" => Type::Quat(prefix),
            "Transform" => Type::Transform(prefix),
            "SpatialVector" => Type::SpatialVector(prefix),
            "SpatialMatrix" => Type::SpatialMatrix(prefix),
            _ => return None,
        };
        Some(t)
    }
}

fn prefix(s: Scalar) -> &'static str {
    if s == Scalar::F64 { "D" } else { "" }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rust_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for n in [
            "f32",
            "Vec3",
            "DVec2",
            "IVec4",
            "UVec3",
            "Mat3",
            "DMat4",
            "Quat",
            "DQuat",
            "Transform",
            "SpatialVector",
            "DSpatialMatrix",
        ] {
            let t = Type::from_builtin_name(n).unwrap();
            assert_eq!(t.rust_name(), n);
        }
        assert_eq!(
            Type::from_builtin_name("Mat33"),
            Some(Type::Matrix(3, Scalar::F32))
        );
        assert_eq!(Type::from_builtin_name("IMat3"), None);
        assert_eq!(Type::from_builtin_name("Foo"), None);
    }
}
