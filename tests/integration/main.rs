//! The integration tests, one module per area, built as a single test
//! binary: one link and one instantiation of the library's generic code
//! instead of one per file. Run one area with its module path, e.g.
//! `cargo test --test integration spectra::`.

mod common;

mod app_session;
mod app_window;
mod armature;
mod balance;
mod cli;
mod closed_chain_scenarios;
mod cluster_algorithms;
mod contact;
mod contact_plant;
mod control;
mod factorizations;
mod fuzz_regressions;
mod hostile_inputs;
mod humanoid_balance;
mod interaction;
mod lessons;
mod mimic;
mod natural_adaptation;
mod number_limits;
mod properties;
mod rapier_plant;
mod reference_pinocchio;
mod rotors;
mod run_outputs;
mod scenarios;
mod spectra;
mod step_stability;
mod sweep_scale;
mod task_control;
mod task_scenarios;
mod transport;
mod urdf_errors;
mod urdf_robustness;

/// Counts allocations per thread for the tests that check a hot path
/// allocates nothing (`common::allocations`).
#[global_allocator]
static ALLOCATOR: common::CountingAllocator = common::CountingAllocator;
