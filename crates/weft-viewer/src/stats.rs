//! Rolling statistics for the panel's timings and scalar plots.

use std::collections::VecDeque;

/// The last `capacity` samples of a series.
#[derive(Clone, Debug)]
pub(crate) struct Rolling {
    values: VecDeque<f32>,
    capacity: usize,
}

impl Rolling {
    pub(crate) fn new(capacity: usize) -> Self {
        Rolling {
            values: VecDeque::with_capacity(capacity),
            capacity,
        }
    }

    pub(crate) fn push(&mut self, v: f32) {
        if self.values.len() == self.capacity {
            self.values.pop_front();
        }
        self.values.push_back(v);
    }

    pub(crate) fn last(&self) -> Option<f32> {
        self.values.back().copied()
    }

    /// Mean of the last `n` samples.
    pub(crate) fn mean_last(&self, n: usize) -> Option<f32> {
        let k = n.min(self.values.len());
        (k > 0).then(|| self.values.iter().rev().take(k).sum::<f32>() / k as f32)
    }

    pub(crate) fn values(&self) -> impl ExactSizeIterator<Item = f32> + '_ {
        self.values.iter().copied()
    }

    pub(crate) fn clear(&mut self) {
        self.values.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_samples() {
        let mut r = Rolling::new(3);
        for v in [1.0, 2.0, 3.0, 4.0] {
            r.push(v);
        }
        assert_eq!(r.values().collect::<Vec<_>>(), vec![2.0, 3.0, 4.0]);
        assert_eq!(r.last(), Some(4.0));
        assert_eq!(r.mean_last(2), Some(3.5));
        r.clear();
        assert_eq!(r.mean_last(2), None);
    }
}
