//! Host operations on an array that another handle is using return
//! `Error::InUse` (naming the operation and which array) instead of panicking;
//! `Clone`, which cannot return an error, panics with that message.

use weft_runtime::{Array, Device, Error};

fn array(values: &[f32]) -> Array<f32> {
    Array::from_slice(Device::Cpu, values)
}

/// Asserts `r` is `Error::InUse` for operation `what` on `which`.
fn assert_in_use<R: std::fmt::Debug>(r: Result<R, Error>, what: &str, which: &str) {
    match r {
        Err(Error::InUse {
            what: w, array: a, ..
        }) => {
            assert_eq!((w, a), (what, which));
        }
        other => panic!("expected InUse from {what} on the {which}, got {other:?}"),
    }
}

#[test]
fn copy_from_reports_a_destination_being_read() {
    let src = array(&[1.0, 2.0]);
    let mut dst = array(&[0.0, 0.0]);
    let other = dst.share();
    let reading = other.as_slice();
    assert_in_use(dst.copy_from(&src), "Array::copy_from", "destination");
    drop(reading);
    dst.copy_from(&src).unwrap();
    assert_eq!(dst.to_vec(), vec![1.0, 2.0]);
}

#[test]
fn copy_from_reports_a_source_being_written() {
    let src = array(&[1.0, 2.0]);
    let mut writer = src.share();
    let mut dst = array(&[0.0, 0.0]);
    let writing = writer.as_mut_slice();
    let e = dst.copy_from(&src).unwrap_err();
    assert!(e.to_string().contains("being written"), "{e}");
    assert_in_use(Err::<(), _>(e), "Array::copy_from", "source");
    drop(writing);
    dst.copy_from(&src).unwrap();
}

#[test]
fn set_grad_and_fill_grad_report_a_gradient_being_read() {
    let mut a = array(&[1.0, 2.0]).requires_grad();
    let other = a.share();
    let reading = other.grad().unwrap();
    assert_in_use(a.set_grad(&[1.0, 1.0]), "Array::set_grad", "gradient");
    assert_in_use(a.fill_grad(1.0), "Array::fill_grad", "gradient");
    drop(reading);
    a.set_grad(&[3.0, 4.0]).unwrap();
    assert_eq!(a.grad_to_vec(), Some(vec![3.0, 4.0]));
}

#[test]
fn fallible_reads_and_writes_report_conflicts() {
    let mut a = array(&[1.0, 2.0]);
    let mut other = a.share();
    {
        let _writing = other.as_mut_slice();
        assert_in_use(a.try_to_vec(), "Array::to_vec", "array");
        assert_in_use(a.try_to_device(Device::Cpu), "Array::to_device", "array");
    }
    {
        let _reading = other.as_slice();
        assert_in_use(
            a.copy_from_slice(&[5.0, 6.0]),
            "Array::copy_from_slice",
            "array",
        );
        assert_in_use(a.try_fill(7.0), "Array::fill", "array");
        // Reading alongside another reader is fine.
        assert_eq!(a.try_to_vec().unwrap(), vec![1.0, 2.0]);
    }
    a.try_fill(7.0).unwrap();
    assert_eq!(a.to_vec(), vec![7.0, 7.0]);
}

#[test]
#[should_panic(expected = "Array::clone: cannot use the array: it is being written")]
fn clone_panics_naming_the_conflict() {
    let a = array(&[1.0, 2.0]);
    let mut other = a.share();
    let _writing = other.as_mut_slice();
    let _ = a.clone();
}
