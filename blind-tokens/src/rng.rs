//! Generators for voprf 0.5, which takes `rand_core` 0.6 ones.
//!
//! Callers pass `rand_core` 0.9 generators, like the rest of this workspace (`rand` 0.9,
//! ChaCha20 in `randomized-response`): [`Compat`] forwards every call to them. The buffer
//! interface seeds ChaCha20 (the `chacha20` crate, a `rand_core` 0.10 generator) from the
//! page's 32 bytes: [`SeededChaCha20`]. Neither draws anything of its own. Both go away once
//! voprf and the workspace agree on one `rand_core`.

use chacha20::ChaCha20Rng;
use rand_core_010::{Rng, SeedableRng};

/// A `rand_core` 0.9 cryptographic generator seen as a `rand_core` 0.6 one.
pub(crate) struct Compat<'a, R: ?Sized>(pub(crate) &'a mut R);

impl<R: rand_core::CryptoRng + ?Sized> rand_core_06::RngCore for Compat<'_, R> {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest);
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core_06::Error> {
        // rand_core 0.9's `CryptoRng` is infallible.
        self.0.fill_bytes(dest);
        Ok(())
    }
}

/// Only cryptographic generators cross the bridge: `R: CryptoRng` above and here.
impl<R: rand_core::CryptoRng + ?Sized> rand_core_06::CryptoRng for Compat<'_, R> {}

/// ChaCha20 (RFC 8439 rounds, 64-bit counter, stream 0) keyed with a 32-byte seed, as a
/// `rand_core` 0.6 generator.
pub(crate) struct SeededChaCha20(ChaCha20Rng);

impl SeededChaCha20 {
    pub(crate) fn from_seed(seed: [u8; 32]) -> Self {
        Self(ChaCha20Rng::from_seed(seed))
    }
}

impl rand_core_06::RngCore for SeededChaCha20 {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest);
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core_06::Error> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

impl rand_core_06::CryptoRng for SeededChaCha20 {}
