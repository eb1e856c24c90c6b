//! Launch grids of 1–4 dimensions.

/// The shape of a launch grid (row-major: the last dimension varies fastest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    shape: [usize; 4],
    ndim: usize,
    total: usize,
}

impl Dims {
    /// A grid of the given shape (1–4 dimensions).
    ///
    /// # Panics
    /// If `shape` is empty or has more than 4 entries.
    pub fn new(shape: &[usize]) -> Dims {
        assert!(
            (1..=4).contains(&shape.len()),
            "a launch grid has 1 to 4 dimensions, got {}",
            shape.len()
        );
        let mut s = [1; 4];
        s[..shape.len()].copy_from_slice(shape);
        Dims {
            shape: s,
            ndim: shape.len(),
            total: shape.iter().product(),
        }
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.ndim
    }

    /// Total number of threads.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape[..self.ndim]
    }

    /// Component `d` of the multi-dimensional index of flat thread `tid`.
    #[inline(always)]
    pub fn index(&self, tid: usize, d: usize) -> usize {
        let mut stride = 1;
        for k in (d + 1)..self.ndim {
            stride *= self.shape[k];
        }
        (tid / stride) % self.shape[d]
    }
}

impl From<usize> for Dims {
    fn from(n: usize) -> Dims {
        Dims::new(&[n])
    }
}

impl From<(usize, usize)> for Dims {
    fn from((a, b): (usize, usize)) -> Dims {
        Dims::new(&[a, b])
    }
}

impl From<(usize, usize, usize)> for Dims {
    fn from((a, b, c): (usize, usize, usize)) -> Dims {
        Dims::new(&[a, b, c])
    }
}

impl From<(usize, usize, usize, usize)> for Dims {
    fn from((a, b, c, d): (usize, usize, usize, usize)) -> Dims {
        Dims::new(&[a, b, c, d])
    }
}

impl<const N: usize> From<[usize; N]> for Dims {
    fn from(s: [usize; N]) -> Dims {
        Dims::new(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_indices() {
        let d = Dims::from((2, 3, 4));
        assert_eq!(d.total(), 24);
        let t = 12 + 2 * 4 + 3; // index (1, 2, 3)
        assert_eq!((d.index(t, 0), d.index(t, 1), d.index(t, 2)), (1, 2, 3));
    }
}
