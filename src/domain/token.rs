//! Blind invitation tokens (issue 20; docs/design.md, invariant 10): a survey's key pair,
//! a redemption (an invitation exchanged for the evaluation of a blinded element) and a
//! token spent with a response. The cryptography is the `blind-tokens` crate's (RFC 9497,
//! VOPRF, ristretto255-SHA512); this file fixes what the HTTP API sends and the database
//! keeps.
//!
//! What links a redemption to a response: nothing they contain. The server sees the
//! blinded element `r·H(input)` at redemption and `(input, output)` at spending; `r` never
//! leaves the device, and for every input there is exactly one `r` that explains any
//! blinded element, so even the private key cannot tell which redemption bought a token.

use blind_tokens::{PrivateKey, PublicKey, TokenError};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use super::DomainError;
use super::{InvitationCode, InvitationHash};
use crate::crypto::{random_bytes, sha256};

/// Bytes of a token's input: what the form draws (`DeniableTokens.randomInput`).
pub const TOKEN_INPUT_BYTES: usize = 32;

/// A generator for one operation on the key, seeded from the operating system (ring), as
/// every other secret of the server is.
fn fresh_rng() -> Result<ChaCha20Rng, DomainError> {
    Ok(ChaCha20Rng::from_seed(random_bytes::<32>()?))
}

fn internal(error: TokenError) -> DomainError {
    DomainError::internal(format!("blind tokens: {error}"))
}

/// A survey's private key: it evaluates redemptions and checks spent tokens. Stored while
/// the survey can collect, erased when it closes.
pub struct SurveyKey(PrivateKey);

impl SurveyKey {
    pub fn generate() -> Result<Self, DomainError> {
        PrivateKey::generate(&mut fresh_rng()?)
            .map(Self)
            .map_err(internal)
    }

    pub fn from_stored(bytes: &[u8]) -> Result<Self, DomainError> {
        PrivateKey::from_bytes(bytes)
            .map(Self)
            .map_err(|_| DomainError::internal("a stored survey key is malformed"))
    }

    /// The 32 secret bytes to store.
    pub fn to_stored(&self) -> [u8; blind_tokens::PRIVATE_KEY_BYTES] {
        self.0.to_bytes()
    }

    pub fn public_key(&self) -> InvitationKey {
        InvitationKey(self.0.public_key())
    }

    /// `BlindEvaluate` with a fresh proof. A blinded value that is not a canonical group
    /// element (other than the identity) is a 400.
    pub fn evaluate(&self, blinded: &Blinded) -> Result<Evaluation, DomainError> {
        let evaluated =
            blind_tokens::evaluate(&self.0, &blinded.0, &mut fresh_rng()?).map_err(|error| {
                match error {
                    TokenError::MalformedBlinded => malformed_blinded(),
                    other => internal(other),
                }
            })?;
        Ok(Evaluation {
            evaluation: evaluated.evaluation,
            proof: evaluated.proof,
        })
    }

    /// Whether `token` is one this key issued: the PRF recomputed on its input and compared
    /// in constant time.
    pub fn issued(&self, token: &Token) -> bool {
        blind_tokens::verify_token(&self.0, &token.input, &token.output)
    }
}

/// A survey's public key, as the anonymous definition publishes it and every invitation
/// link pins it by its fingerprint.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct InvitationKey(PublicKey);

impl InvitationKey {
    pub fn from_stored(bytes: &[u8]) -> Result<Self, DomainError> {
        PublicKey::from_bytes(bytes)
            .map(Self)
            .map_err(|_| DomainError::internal("a stored public key is malformed"))
    }

    pub fn to_bytes(self) -> [u8; blind_tokens::PUBLIC_KEY_BYTES] {
        self.0.to_bytes()
    }

    /// 64 lowercase hex characters of SHA-256 of the public key's 32 bytes.
    pub fn fingerprint(self) -> String {
        blind_tokens::fingerprint(&self.0)
    }

    pub fn body(self) -> InvitationKeyBody {
        InvitationKeyBody {
            public_key: blind_tokens::to_base64url(&self.to_bytes()),
            fingerprint: self.fingerprint(),
        }
    }
}

impl std::fmt::Debug for InvitationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InvitationKey({})", self.fingerprint())
    }
}

/// The survey's public key as the definition carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct InvitationKeyBody {
    /// The ristretto255 public key (32 bytes, base64url without padding): the form checks
    /// every evaluation's proof against it.
    #[schema(pattern = "^[A-Za-z0-9_-]{43}$")]
    pub public_key: String,
    /// Hex SHA-256 of the public key's 32 bytes: every invitation link carries it (`key`)
    /// and the form refuses to redeem unless the two are equal.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    pub fingerprint: String,
}

fn malformed_blinded() -> DomainError {
    DomainError::invalid(
        "invalid_blinded",
        "blinded must be a ristretto255 element: 32 bytes in base64url without padding \
         (43 characters)",
    )
}

/// A blinded element `r·H(input)` (32 bytes); whether it is a valid element is checked when
/// it is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blinded([u8; blind_tokens::BLINDED_BYTES]);

impl Blinded {
    /// 32 bytes of a canonical ristretto255 element other than the identity, checked here,
    /// before anything looks at the invitation it comes with: a malformed element gets the
    /// same 400 whether the invitation is unused, used or unknown (issue 31).
    pub fn parse(text: &str) -> Result<Self, DomainError> {
        let bytes: [u8; blind_tokens::BLINDED_BYTES] = blind_tokens::from_base64url(text)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(malformed_blinded)?;
        blind_tokens::check_blinded(&bytes).map_err(|_| malformed_blinded())?;
        Ok(Self(bytes))
    }

    pub fn from_stored(bytes: &[u8]) -> Result<Self, DomainError> {
        bytes
            .try_into()
            .map(Self)
            .map_err(|_| DomainError::internal("a stored blinded element is not 32 bytes"))
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The server's answer to a redemption, kept with the used invitation so that a retry gets
/// the same bytes (the proof is fresh at every evaluation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evaluation {
    pub evaluation: [u8; blind_tokens::EVALUATION_BYTES],
    pub proof: [u8; blind_tokens::PROOF_BYTES],
}

impl Evaluation {
    pub fn from_stored(evaluation: &[u8], proof: &[u8]) -> Result<Self, DomainError> {
        let corrupt = || DomainError::internal("a stored evaluation is malformed");
        Ok(Self {
            evaluation: evaluation.try_into().map_err(|_| corrupt())?,
            proof: proof.try_into().map_err(|_| corrupt())?,
        })
    }

    pub fn body(&self) -> EvaluationBody {
        EvaluationBody {
            evaluation: blind_tokens::to_base64url(&self.evaluation),
            proof: blind_tokens::to_base64url(&self.proof),
        }
    }
}

/// `POST /api/surveys/{slug}/redemptions`: an invitation and a blinded element.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RedemptionRequest)]
pub struct RedemptionInput {
    /// The single-use code from the invitation link (64 lowercase hex characters).
    #[schema(pattern = "^[0-9a-f]{64}$")]
    invitation: String,
    /// The device's blinded element `r·H(input)`: 32 bytes, base64url without padding.
    #[schema(pattern = "^[A-Za-z0-9_-]{43}$")]
    blinded: String,
}

/// A redemption, checked.
#[derive(Debug)]
pub struct Redemption {
    pub invitation: InvitationHash,
    pub blinded: Blinded,
}

impl Redemption {
    /// A malformed blinded element is a 400; a code that is no invitation's (whatever it
    /// looks like) a 403, as an unknown one.
    pub fn parse(input: RedemptionInput) -> Result<Self, DomainError> {
        let blinded = Blinded::parse(&input.blinded)?;
        let invitation = InvitationCode::parse(&input.invitation)?.hash();
        Ok(Self {
            invitation,
            blinded,
        })
    }
}

/// The evaluation of a blinded element and its proof (RFC 9497, section 3.3.2).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Evaluation)]
pub struct EvaluationBody {
    /// `skS·blinded` (32 bytes, base64url without padding).
    #[schema(pattern = "^[A-Za-z0-9_-]{43}$")]
    pub evaluation: String,
    /// The DLEQ proof that the same key is behind the survey's public key (64 bytes,
    /// base64url without padding).
    #[schema(pattern = "^[A-Za-z0-9_-]{86}$")]
    pub proof: String,
}

/// A token as a response carries it.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Token)]
pub struct TokenInput {
    /// The PRF input the device drew: 32 bytes, base64url without padding.
    #[schema(pattern = "^[A-Za-z0-9_-]{43}$")]
    input: String,
    /// The PRF output the device finalized: 64 bytes, base64url without padding.
    #[schema(pattern = "^[A-Za-z0-9_-]{86}$")]
    output: String,
}

/// A token, well-formed (whether the key issued it is [`SurveyKey::issued`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    input: [u8; TOKEN_INPUT_BYTES],
    output: [u8; blind_tokens::OUTPUT_BYTES],
}

impl Token {
    pub fn parse(input: &TokenInput) -> Result<Self, DomainError> {
        let malformed = || {
            DomainError::invalid(
                "invalid_token",
                "token is {\"input\": 32 bytes, \"output\": 64 bytes}, each in base64url \
                 without padding",
            )
        };
        let bytes = |text: &str| blind_tokens::from_base64url(text).map_err(|_| malformed());
        Ok(Self {
            input: bytes(&input.input)?.try_into().map_err(|_| malformed())?,
            output: bytes(&input.output)?.try_into().map_err(|_| malformed())?,
        })
    }

    /// What the database keeps of a spent token: SHA-256 of its input.
    pub fn spent(&self) -> SpentToken {
        SpentToken(sha256(&self.input))
    }
}

/// A token that its survey's key was checked to have issued, by the hash of its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpentToken([u8; 32]);

impl SpentToken {
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// 403 for a token the survey's key did not issue.
pub fn token_invalid() -> DomainError {
    DomainError::refused(
        "token_invalid",
        "this token was not issued for this survey (its output does not match its input \
         under the survey's key)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_through_the_server_and_the_client() {
        let key = SurveyKey::generate().unwrap();
        let again = SurveyKey::from_stored(&key.to_stored()).unwrap();
        assert!(key.public_key() == again.public_key());
        let mut rng = ChaCha20Rng::from_seed([7; 32]);
        let input = [3u8; TOKEN_INPUT_BYTES];
        let (state, blinded) = blind_tokens::blind(&input, &mut rng).unwrap();
        let blinded = Blinded::parse(&blind_tokens::to_base64url(&blinded)).unwrap();
        let evaluated = again.evaluate(&blinded).unwrap();
        let public = PublicKey::from_bytes(&key.public_key().to_bytes()).unwrap();
        let output =
            blind_tokens::finalize(&state, &evaluated.evaluation, &evaluated.proof, &public)
                .unwrap();
        let token = Token::parse(&TokenInput {
            input: blind_tokens::to_base64url(&input),
            output: blind_tokens::to_base64url(&output),
        })
        .unwrap();
        assert!(key.issued(&token));
        assert!(!SurveyKey::generate().unwrap().issued(&token));
        assert_eq!(key.public_key().fingerprint().len(), 64);
    }

    #[test]
    fn malformed_bytes_are_refused_with_a_400() {
        for bad in ["", "AAAA", &"A".repeat(44), "not base64!"] {
            assert!(matches!(
                Blinded::parse(bad),
                Err(DomainError::Invalid {
                    code: "invalid_blinded",
                    ..
                })
            ));
        }
        // The identity, and bytes that encode no element, are well-formed base64url but no
        // element to evaluate: refused when parsed, before any invitation is looked at.
        for not_an_element in [[0; 32], [0xff; 32]] {
            assert!(matches!(
                Blinded::parse(&blind_tokens::to_base64url(&not_an_element)),
                Err(DomainError::Invalid {
                    code: "invalid_blinded",
                    ..
                })
            ));
        }
        let short = TokenInput {
            input: blind_tokens::to_base64url(&[1; 31]),
            output: blind_tokens::to_base64url(&[1; 64]),
        };
        assert!(matches!(
            Token::parse(&short),
            Err(DomainError::Invalid {
                code: "invalid_token",
                ..
            })
        ));
    }
}
