//! A hash of text that is the same on every machine, run and Rust version
//! (unlike `std`'s `DefaultHasher`): 64-bit FNV-1a, written as 16 hex
//! digits. It identifies, it does not protect: not a cryptographic hash.

/// FNV-1a (64 bits) of `text`, as 16 lowercase hex digits.
pub fn stable_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}
