//! The server's public key `pkS = skS·G`, as the client pins it, and its fingerprint.

use voprf::Group;

use crate::{Suite, TokenError, PUBLIC_KEY_BYTES};

type Element = <<Suite as voprf::CipherSuite>::Group as Group>::Elem;

/// A ristretto255 element other than the identity: the key a client checks proofs against.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey {
    pub(crate) element: Element,
    bytes: [u8; PUBLIC_KEY_BYTES],
}

impl PublicKey {
    /// Parses the 32-byte canonical encoding (RFC 9496, section 4.3.1); refuses any other
    /// length, a non-canonical encoding and the identity.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TokenError> {
        let bytes: [u8; PUBLIC_KEY_BYTES] = bytes
            .try_into()
            .map_err(|_| TokenError::MalformedPublicKey)?;
        let element = <voprf::Ristretto255 as Group>::deserialize_elem(&bytes)
            .map_err(|_| TokenError::MalformedPublicKey)?;
        Ok(Self { element, bytes })
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn from_element(element: Element) -> Self {
        let mut bytes = [0u8; PUBLIC_KEY_BYTES];
        bytes.copy_from_slice(&<voprf::Ristretto255 as Group>::serialize_elem(element));
        Self { element, bytes }
    }

    /// The canonical encoding, `SerializeElement(pkS)`.
    pub fn to_bytes(&self) -> [u8; PUBLIC_KEY_BYTES] {
        self.bytes
    }

    /// SHA-256 of [`Self::to_bytes`]: what invitation links carry and owners print, so that
    /// everyone can check that they were all given the same key (issue 20, key consistency).
    pub fn fingerprint_bytes(&self) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        Sha256::digest(self.bytes).into()
    }
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PublicKey(")?;
        for byte in self.bytes {
            write!(f, "{byte:02x}")?;
        }
        f.write_str(")")
    }
}

/// [`PublicKey::fingerprint_bytes`] as 64 lowercase hexadecimal characters.
#[cfg(not(target_arch = "wasm32"))]
pub fn fingerprint(public_key: &PublicKey) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(64);
    for byte in public_key.fingerprint_bytes() {
        let _ = write!(text, "{byte:02x}");
    }
    text
}
