//! [`ArticulationLayout`]: where each articulation's dense blocks (mass
//! matrix, Jacobians) and degrees of freedom lie in flat arrays.

use std::ops::Range;

use weft::{Array, Device};
use weft_sim::Model;

use crate::Result;
use weft_sim::SimError;

/// Offsets of each articulation's blocks in flat arrays: its mass matrix
/// (`n × n`, row-major, `n` its degrees of freedom) and its Jacobians
/// (`joints × n` spatial vectors, row-major). Made once per model.
///
/// ```
/// # use weft_sim::ModelBuilder;
/// let model = ModelBuilder::new().finalize(weft::Device::Cpu)?;
/// let layout = weft_articulation::ArticulationLayout::new(&model)?;
/// assert_eq!((layout.articulation_count(), layout.mass_len()), (0, 0));
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub struct ArticulationLayout {
    /// First entry of each articulation's mass matrix; one more at the end.
    pub m_start: Array<i32>,
    /// First entry of each articulation's Jacobian block; one more at the end.
    pub jac_start: Array<i32>,
    /// Articulation of each degree of freedom.
    pub dof_articulation: Array<i32>,
    dofs: Vec<Range<usize>>,
    joints: Vec<Range<usize>>,
    m_offsets: Vec<usize>,
    jac_offsets: Vec<usize>,
}

impl ArticulationLayout {
    /// The layout of `model`'s articulations, on its device.
    pub fn new(model: &Model) -> Result<Self> {
        let art: Vec<usize> = model
            .articulation_start
            .to_vec()
            .iter()
            .map(|&x| x as usize)
            .collect();
        let qd_start: Vec<usize> = model
            .joint_qd_start
            .to_vec()
            .iter()
            .map(|&x| x as usize)
            .collect();
        let (mut dofs, mut joints) = (Vec::new(), Vec::new());
        let (mut m_offsets, mut jac_offsets) = (vec![0usize], vec![0usize]);
        let mut dof_articulation = Vec::new();
        for a in 0..art.len().saturating_sub(1) {
            let d = qd_start[art[a]]..qd_start[art[a + 1]];
            let n = d.len();
            dof_articulation.extend(std::iter::repeat_n(a as i32, n));
            m_offsets.push(m_offsets[a] + n * n);
            jac_offsets.push(jac_offsets[a] + (art[a + 1] - art[a]) * n);
            dofs.push(d);
            joints.push(art[a]..art[a + 1]);
        }
        let device: Device = model.device();
        let ints = |v: &[usize]| -> Vec<i32> { v.iter().map(|&x| x as i32).collect() };
        Ok(ArticulationLayout {
            m_start: Array::try_from_slice(device, &ints(&m_offsets))?,
            jac_start: Array::try_from_slice(device, &ints(&jac_offsets))?,
            dof_articulation: Array::try_from_slice(device, &dof_articulation)?,
            dofs,
            joints,
            m_offsets,
            jac_offsets,
        })
    }

    /// Number of articulations.
    pub fn articulation_count(&self) -> usize {
        self.dofs.len()
    }

    /// The degrees of freedom of articulation `a` (indices into `joint_qd`).
    pub fn dofs(&self, a: usize) -> Range<usize> {
        self.dofs[a].clone()
    }

    /// The joints of articulation `a`.
    pub fn joints(&self, a: usize) -> Range<usize> {
        self.joints[a].clone()
    }

    /// Articulation `a`'s mass matrix in a flat mass-matrix array.
    pub fn mass_range(&self, a: usize) -> Range<usize> {
        self.m_offsets[a]..self.m_offsets[a + 1]
    }

    /// Articulation `a`'s Jacobian block in a flat Jacobian array.
    pub fn jacobian_range(&self, a: usize) -> Range<usize> {
        self.jac_offsets[a]..self.jac_offsets[a + 1]
    }

    /// Length of a flat array of every articulation's mass matrix.
    pub fn mass_len(&self) -> usize {
        *self.m_offsets.last().expect("one entry at least")
    }

    /// `Err` unless this layout was made for a model shaped like `model`
    /// (the same articulations, joints and degrees of freedom).
    pub fn check(&self, model: &Model) -> Result<()> {
        let joints = self.joints.last().map_or(0, |r| r.end);
        let dofs = self.dofs.last().map_or(0, |r| r.end);
        let na = model.articulation_start.len().saturating_sub(1);
        if (self.articulation_count(), joints, dofs)
            == (na, model.joint_count(), model.joint_dof_count())
        {
            Ok(())
        } else {
            Err(SimError::Mismatch(format!(
                "the articulation layout was made for {} articulations, {joints} joints and {dofs} degrees of freedom; the model has {na}, {} and {} (make the layout from this model)",
                self.articulation_count(),
                model.joint_count(),
                model.joint_dof_count()
            )))
        }
    }

    /// Length of a flat array of every articulation's Jacobians.
    pub fn jacobian_len(&self) -> usize {
        *self.jac_offsets.last().expect("one entry at least")
    }
}
