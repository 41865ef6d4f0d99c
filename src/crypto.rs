//! Randomness, hashing and password derivation, all from `ring`.

use std::num::NonZeroU32;

use ring::rand::{SecureRandom, SystemRandom};
use ring::{digest, pbkdf2};

use crate::error::AppError;

/// OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256.
const PBKDF2_ITERATIONS: NonZeroU32 = match NonZeroU32::new(600_000) {
    Some(iterations) => iterations,
    None => unreachable!(),
};
const SALT_BYTES: usize = 16;
const PASSWORD_HASH_BYTES: usize = 32;

/// `N` bytes from the operating system's CSPRNG.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], RandomnessFailed> {
    let mut bytes = [0u8; N];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| RandomnessFailed)?;
    Ok(bytes)
}

/// The operating system's random generator failed: nothing secret can be made.
#[derive(Debug)]
pub struct RandomnessFailed;

impl std::fmt::Display for RandomnessFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the operating system's random generator failed")
    }
}

impl std::error::Error for RandomnessFailed {}

pub fn sha256(data: &[u8]) -> [u8; 32] {
    let digest = digest::digest(&digest::SHA256, data);
    let mut out = [0u8; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

/// A salted PBKDF2-HMAC-SHA256 password hash, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordHash {
    salt: [u8; SALT_BYTES],
    hash: [u8; PASSWORD_HASH_BYTES],
}

impl PasswordHash {
    pub fn derive(password: &str) -> Result<Self, AppError> {
        let salt = random_bytes::<SALT_BYTES>()?;
        let mut hash = [0u8; PASSWORD_HASH_BYTES];
        pbkdf2::derive(
            pbkdf2::PBKDF2_HMAC_SHA256,
            PBKDF2_ITERATIONS,
            &salt,
            password.as_bytes(),
            &mut hash,
        );
        Ok(Self { salt, hash })
    }

    /// Rebuilds a stored hash; `None` when the stored bytes have the wrong length.
    pub fn from_stored(salt: &[u8], hash: &[u8]) -> Option<Self> {
        Some(Self {
            salt: salt.try_into().ok()?,
            hash: hash.try_into().ok()?,
        })
    }

    /// Constant-time comparison (ring's verify).
    pub fn verify(&self, password: &str) -> bool {
        pbkdf2::verify(
            pbkdf2::PBKDF2_HMAC_SHA256,
            PBKDF2_ITERATIONS,
            &self.salt,
            password.as_bytes(),
            &self.hash,
        )
        .is_ok()
    }

    pub fn salt(&self) -> &[u8] {
        &self.salt
    }

    pub fn hash(&self) -> &[u8] {
        &self.hash
    }
}
