//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The UR5 shipped in assets/, relative to the repository.
pub const UR5: &str = "assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";

/// The Panda shipped in assets/, relative to the repository.
pub const PANDA: &str = "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf";

/// PD+ holding the Panda's fingers pressed into a table on `plant` for 3 s
/// (1 ms steps and samples): the scene of the passive-table tests; with
/// `mimic`, the fingers' mimic tag is honoured (8 coordinates, not 9).
pub fn panda_press_and_hold(plant: &str, mimic: bool) -> String {
    // With the mimic tag honoured the two fingers are one coordinate.
    let fingers = |x: &str| {
        if mimic {
            x.to_string()
        } else {
            format!("{x}, {x}")
        }
    };
    format!(
        r#"name = "press_and_hold"
[robot]
urdf = "{}"
mimic = {mimic}
[controller]
kind = "pd_plus"
kp = [200.0, 200.0, 200.0, 200.0, 50.0, 50.0, 20.0, {}]
kd = [20.0, 20.0, 20.0, 20.0, 5.0, 5.0, 2.0, {}]
[reference]
kind = "hold"
q = [0.0, 0.2, 0.0, -2.3, 0.0, 2.5, 0.785, {}]
[initial]
q = [0.0, 0.0, 0.0, -2.4, 0.0, 2.4, 0.785, {}]
[simulation]
plant = "{plant}"
duration = 3.0
step = 0.001
record_period = 0.001
[[environment.boxes]]
center = [0.5, 0.0, 0.09]
size = [0.4, 0.8, 0.18]
friction = 0.4
"#,
        repo_path(PANDA).display(),
        fingers("5.0"),
        fingers("0.5"),
        fingers("0.02"),
        fingers("0.02"),
    )
}

/// The passive-table checks on a [`panda_press_and_hold`] run: no
/// divergence; the storage V = 1/2 e_dot^T H e_dot + 1/2 e^T K_p e never
/// rises by more than 1e-6 J between samples; it falls from above 5 J and
/// settles in (0.1, 1) J; at the end the table carries 10 to 30 N on at
/// least `min_contacts` points. Returns V's largest rise between samples.
pub fn assert_pressed_passively(
    r: &passivity_lab::scenario::VariantResult,
    min_contacts: usize,
) -> f64 {
    assert!(r.divergence.is_none(), "{:?}", r.divergence);
    let v: Vec<f64> = r.samples.iter().map(|s| s.lyapunov.value).collect();
    let rise = v.windows(2).map(|w| w[1] - w[0]).fold(f64::MIN, f64::max);
    assert!(rise < 1e-6, "V rose by {rise}");
    let (first, last_v) = (v[0], v[v.len() - 1]);
    assert!(
        first > 5.0 && (0.1..1.0).contains(&last_v),
        "{first} -> {last_v}"
    );
    assert!((last_v - v[2000]).abs() < 1e-4, "not settled");
    let last = r.samples.last().unwrap();
    assert!(
        last.contacts >= min_contacts && (10.0..30.0).contains(&last.contact_force),
        "{} points, {} N",
        last.contacts,
        last.contact_force
    );
    rise
}

/// PD+ pulling the Panda's fingers towards 0.08 m (their URDF limit is
/// 0.04 m) on `plant`.
pub fn panda_fingers_past_their_limits(plant: &str) -> String {
    format!(
        r#"name = "limits"
[robot]
urdf = "{}"
mimic = false
[controller]
kind = "pd_plus"
kp = 100.0
kd = 10.0
[reference]
kind = "hold"
q = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.08, 0.08]
[initial]
q = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02]
[simulation]
plant = "{plant}"
"#,
        repo_path(PANDA).display()
    )
}

/// Path inside the repository.
pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs the built binary in the repository folder and waits for it.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .current_dir(repo_path(""))
        .output()
        .expect("binary runs")
}

/// Counts the allocations of the current thread (tests run in parallel);
/// the test binary installs it (main.rs), tests measure with [`allocations`].
pub struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, size) }
    }
}

/// Allocations made by `f` on this thread.
pub fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// A fresh, empty folder for one test, `passivity-lab-<area>-<pid>-<name>`
/// under the system's temporary folder. It is removed when dropped, unless
/// the test is failing: then it stays, to be inspected.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(area: &str, name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "passivity-lab-{area}-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}
