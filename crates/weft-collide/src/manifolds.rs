//! [`Manifolds`]: the contacts of each candidate pair, grouped, so that a
//! solver can treat a pair's contacts together (one thread per manifold).

use weft::geom::DeviceScan;
use weft::prelude::*;

use crate::Contacts;
use crate::error::Result;

/// The contacts of each broad-phase pair slot `m` (a manifold): contact
/// indices `contacts[start[m] .. start[m] + len[m]]`, in the order the narrow
/// phase found them (ascending slots: the same order on every run, although
/// the slots themselves depend on thread timing). Rebuilt by
/// [`CollisionPipeline::collide`](crate::CollisionPipeline::collide) after the
/// narrow phase, by a counting sort on the device.
#[weft::structure]
pub struct Manifolds {
    /// First entry of manifold `m` in `contacts`.
    pub start: Array<u32>,
    /// Number of contacts of manifold `m` (0 for an unused slot).
    pub len: Array<u32>,
    /// Contact indices grouped by manifold.
    pub contacts: Array<i32>,
}

/// A thread per contact slot: counts the contacts of each manifold.
#[weft::kernel]
pub fn manifold_count(contacts: &Contacts, len: &mut Array<u32>) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        atomic_add(&mut len[contacts.pair[c]], 1);
    }
}

/// A thread per contact slot: puts the contact into its manifold's range
/// (`fill` counts arrivals per manifold, zeroed before).
#[weft::kernel]
pub fn manifold_scatter(
    contacts: &Contacts,
    start: &Array<u32>,
    fill: &mut Array<u32>,
    grouped: &mut Array<i32>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let m = contacts.pair[c];
        let k = atomic_add(&mut fill[m], 1);
        grouped[(start[m] + k) as i32] = c;
    }
}

/// A thread per manifold: sorts its contact indices ascending (insertion sort;
/// a manifold holds a few), which is the order its pair's thread found them.
#[weft::kernel]
pub fn manifold_order(start: &Array<u32>, len: &Array<u32>, grouped: &mut Array<i32>) {
    let m = tid();
    let s = start[m] as i32;
    let n = len[m] as i32;
    for i in 1..n {
        let v = grouped[s + i];
        let mut j = i - 1;
        while j >= 0 && grouped[s + j] > v {
            grouped[s + j + 1] = grouped[s + j];
            j -= 1;
        }
        grouped[s + j + 1] = v;
    }
}

/// [`Manifolds`] with the scratch of their counting sort.
pub(crate) struct ManifoldBuilder {
    pub(crate) manifolds: Manifolds,
    ends: Array<u32>,
    fill: Array<u32>,
    scan: DeviceScan,
}

impl ManifoldBuilder {
    /// Room for `pairs` manifolds of `capacity` contacts in all.
    pub(crate) fn new(device: Device, pairs: usize, capacity: usize) -> Result<Self> {
        Ok(ManifoldBuilder {
            manifolds: Manifolds::new(device, pairs, capacity)?,
            ends: Array::try_zeros(device, [pairs])?,
            fill: Array::try_zeros(device, [pairs])?,
            scan: DeviceScan::new(device, pairs)?,
        })
    }

    /// Groups `contacts` by pair slot (launches only), the pairs' slots
    /// being below `pairs` (at most the slot count: a GPU's launch covers
    /// them all, a CPU's the pairs the broad phase stored, and its contact
    /// launches the stored contacts: see [`Contacts::launch_threads`]).
    pub(crate) fn build(&mut self, contacts: &Contacts, pairs: usize) -> Result<()> {
        let m = &mut self.manifolds;
        let nc = contacts.launch_threads()?;
        m.len.try_fill(0)?;
        self.fill.try_fill(0)?;
        manifold_count::launch(nc, contacts, &mut m.len)?;
        self.scan.run(&m.len, &mut m.start, &mut self.ends)?;
        manifold_scatter::launch(nc, contacts, &m.start, &mut self.fill, &mut m.contacts)?;
        if pairs > 0 {
            manifold_order::launch(pairs.min(m.len.len()), &m.start, &m.len, &mut m.contacts)?;
        }
        Ok(())
    }
}

impl Manifolds {
    /// Empty manifolds for `pairs` pair slots and `capacity` contacts.
    pub fn new(device: Device, pairs: usize, capacity: usize) -> Result<Manifolds> {
        Ok(Manifolds {
            start: Array::try_zeros(device, [pairs])?,
            len: Array::try_zeros(device, [pairs])?,
            contacts: Array::try_zeros(device, [capacity])?,
        })
    }

    /// How many manifold slots there are (the pair capacity).
    pub fn slots(&self) -> usize {
        self.len.len()
    }

    /// Another handle on the same arrays.
    pub fn share(&self) -> Manifolds {
        Manifolds {
            start: self.start.share(),
            len: self.len.share(),
            contacts: self.contacts.share(),
        }
    }

    /// The contact indices of each non-empty manifold, copied to the host (for
    /// tests and tools).
    pub fn to_host(&self) -> Result<Vec<Vec<i32>>> {
        let (start, len) = (self.start.try_to_vec()?, self.len.try_to_vec()?);
        let grouped = self.contacts.try_to_vec()?;
        Ok(start
            .iter()
            .zip(&len)
            .filter(|(_, n)| **n > 0)
            .map(|(s, n)| grouped[*s as usize..(*s + *n) as usize].to_vec())
            .collect())
    }
}
