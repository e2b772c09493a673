//! Test support: a global allocator that counts the allocations of each
//! thread, for tests that check a hot path allocates nothing (tests run in
//! parallel, so the count is per thread). A test binary installs it once:
//!
//! ```
//! use passivity_dynamics::testing::{allocations, CountingAllocator};
//!
//! #[global_allocator]
//! static ALLOCATOR: CountingAllocator = CountingAllocator;
//!
//! let mut buffer = Vec::with_capacity(4);
//! assert_eq!(allocations(|| buffer.push(1.0)), 0);
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting allocations and reallocations per thread.
pub struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// count is a thread-local cell that never allocates.
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

/// The allocations this thread made so far (with [`CountingAllocator`]
/// installed; zero otherwise).
pub fn allocation_count() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// The allocations `f` makes on this thread.
pub fn allocations(f: impl FnOnce()) -> usize {
    let before = allocation_count();
    f();
    allocation_count() - before
}
