//! A response's names: the respondent's secret receipt, the response id the device sends
//! (a hash of the receipt), the record id that is stored and exported (a hash of the
//! response id), and the tag that a withdrawal leaves behind.
//!
//! Each is a one-way function of the one before it, so whoever holds a later name cannot
//! go back: an exported row (record id) cannot be re-submitted (that needs the response
//! id), and a submission (response id) cannot be looked up or withdrawn (that needs the
//! receipt). See docs/design.md, invariants 3 and 9.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::hmac;

use super::DomainError;
use crate::crypto::{random_bytes, sha256};

/// A respondent's secret receipt: 32 random bytes, base64url without padding (43
/// characters). Drawn by the device (or by the server for a device that sends no response
/// id); never stored, never in a URL.
pub struct Receipt(String);

impl Receipt {
    const BYTES: usize = 32;

    pub fn generate() -> Result<Self, DomainError> {
        Ok(Self(
            URL_SAFE_NO_PAD.encode(random_bytes::<{ Self::BYTES }>()?),
        ))
    }

    pub fn parse(text: &str) -> Result<Self, DomainError> {
        let text = text.trim();
        match URL_SAFE_NO_PAD.decode(text) {
            Ok(bytes) if bytes.len() == Self::BYTES => Ok(Self(text.to_owned())),
            // A malformed receipt belongs to no response.
            _ => Err(DomainError::NotFound("response")),
        }
    }

    /// Hex SHA-256 of the receipt's 43 characters, so `printf %s RECEIPT | sha256sum`
    /// gives it too.
    pub fn response_id(&self) -> ResponseId {
        ResponseId(hex::encode(sha256(self.0.as_bytes())))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// 64 lowercase hex characters: how response ids (a SHA-256) and invitation codes (32 random
/// bytes) are written.
pub(super) fn is_64_lowercase_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// What a device sends with its reports: 64 lowercase hex characters. Submissions are
/// idempotent by it (invariant 9).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ResponseId(String);

impl ResponseId {
    pub fn parse(text: &str) -> Result<Self, DomainError> {
        if is_64_lowercase_hex(text) {
            Ok(Self(text.to_owned()))
        } else {
            Err(DomainError::invalid(
                "invalid_response_id",
                "response_id must be the 64 lowercase hex characters of the SHA-256 of the receipt",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The stored and exported name: SHA-256 of the response id's 64 hex characters.
    pub fn record_id(&self) -> RecordId {
        RecordId(sha256(self.0.as_bytes()))
    }
}

/// A stored response's key and its name in exports (hex there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordId([u8; 32]);

impl RecordId {
    pub fn from_stored(bytes: &[u8]) -> Result<Self, DomainError> {
        <[u8; 32]>::try_from(bytes)
            .map(Self)
            .map_err(|_| DomainError::internal("a stored record id is not 32 bytes"))
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn to_hex(self) -> String {
        hex::encode(self.0)
    }
}

/// The per-database secret behind [`WithdrawalTag`]s.
#[derive(Clone)]
pub struct WithdrawalKey(hmac::Key);

impl WithdrawalKey {
    pub const BYTES: usize = 32;

    pub fn from_stored(bytes: &[u8]) -> Result<Self, DomainError> {
        if bytes.len() != Self::BYTES {
            return Err(DomainError::internal(
                "the stored withdrawal key is not 32 bytes",
            ));
        }
        Ok(Self(hmac::Key::new(hmac::HMAC_SHA256, bytes)))
    }

    pub fn tag(&self, response_id: &ResponseId) -> WithdrawalTag {
        let mut tag = [0u8; 32];
        tag.copy_from_slice(hmac::sign(&self.0, response_id.as_str().as_bytes()).as_ref());
        WithdrawalTag(tag)
    }
}

impl std::fmt::Debug for WithdrawalKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WithdrawalKey(…)")
    }
}

/// What a withdrawn response leaves: HMAC-SHA-256(withdrawal key, response id). Enough to
/// refuse a replayed submission; neither the record id of an old export nor the reports
/// can be matched with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WithdrawalTag([u8; 32]);

impl WithdrawalTag {
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receipt_round_trips_and_hashes_to_64_hex_characters() {
        let receipt = Receipt::generate().unwrap();
        let parsed = Receipt::parse(receipt.expose()).unwrap();
        assert_eq!(parsed.response_id(), receipt.response_id());
        assert_eq!(receipt.response_id().as_str().len(), 64);
        assert!(Receipt::parse("short").is_err());
    }

    #[test]
    fn the_record_id_is_the_sha256_of_the_response_ids_text() {
        // printf %s abc | sha256sum, then that hex through sha256sum again.
        let response_id =
            ResponseId::parse("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
                .unwrap();
        assert_eq!(
            response_id.record_id().to_hex(),
            hex::encode(sha256(response_id.as_str().as_bytes()))
        );
    }

    #[test]
    fn response_ids_are_exactly_64_lowercase_hex_characters() {
        assert!(ResponseId::parse(&"a".repeat(64)).is_ok());
        for bad in [
            "",
            "A".repeat(64).as_str(),
            &"a".repeat(63),
            &"g".repeat(64),
        ] {
            assert!(ResponseId::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn withdrawal_tags_depend_on_the_key() {
        let id = ResponseId::parse(&"b".repeat(64)).unwrap();
        let one = WithdrawalKey::from_stored(&[1; 32]).unwrap();
        let two = WithdrawalKey::from_stored(&[2; 32]).unwrap();
        assert_eq!(one.tag(&id), one.tag(&id));
        assert_ne!(one.tag(&id), two.tag(&id));
        assert_ne!(one.tag(&id).as_bytes(), id.record_id().as_bytes());
    }
}
