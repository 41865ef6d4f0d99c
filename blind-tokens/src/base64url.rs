//! base64url without padding (RFC 4648, section 5), the encoding of every byte string in
//! the HTTP API. Decoding is strict: no padding, no other alphabet, no stray trailing bits,
//! so each byte string has exactly one text.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::TokenError;

/// `bytes` as base64url without padding.
pub fn to_base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The bytes of base64url text without padding.
///
/// # Errors
/// [`TokenError::Base64`] for any other text, including padded or non-canonical text.
pub fn from_base64url(text: &str) -> Result<Vec<u8>, TokenError> {
    URL_SAFE_NO_PAD.decode(text).map_err(|_| TokenError::Base64)
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 4648, section 10, in the URL alphabet without padding.
    #[test]
    fn the_rfc_4648_examples_round_trip() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(to_base64url(bytes), text);
            assert_eq!(from_base64url(text).unwrap(), bytes);
        }
        assert_eq!(to_base64url(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn other_texts_are_refused() {
        for text in ["Zg==", "Zm8=", "+/8", "Zh", "Z", "Zm9v\n", "Zm 9v"] {
            assert_eq!(from_base64url(text), Err(TokenError::Base64), "{text:?}");
        }
    }
}
