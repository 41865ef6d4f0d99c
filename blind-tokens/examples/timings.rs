//! Rough native timings of each step, for the README (no assertion anywhere):
//! `cargo run --release -p blind-tokens --example timings`.

use std::hint::black_box;
use std::time::Instant;

use blind_tokens::{blind, evaluate, finalize, verify_token, PrivateKey};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn time(name: &str, rounds: u32, mut step: impl FnMut()) {
    step();
    let started = Instant::now();
    for _ in 0..rounds {
        step();
    }
    let each = started.elapsed() / rounds;
    println!("{name:<28} {:>8.1} µs", each.as_secs_f64() * 1e6);
}

fn main() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let key_bytes = key.to_bytes();
    let input = [7u8; 32];
    let (state, blinded) = blind(&input, &mut rng).unwrap();
    let evaluated = evaluate(&key, &blinded, &mut rng).unwrap();
    let public_key = key.public_key();
    let output = finalize(&state, &evaluated.evaluation, &evaluated.proof, &public_key).unwrap();
    let rounds = 2000;

    time("generate a key pair", rounds, || {
        black_box(PrivateKey::generate(&mut rng).unwrap());
    });
    time("parse the private key", rounds, || {
        black_box(PrivateKey::from_bytes(&key_bytes).unwrap());
    });
    time("evaluate (redeem)", rounds, || {
        black_box(evaluate(&key, &blinded, &mut rng).unwrap());
    });
    time("parse key + evaluate", rounds, || {
        let key = PrivateKey::from_bytes(&key_bytes).unwrap();
        black_box(evaluate(&key, &blinded, &mut rng).unwrap());
    });
    time("verify_token (spend)", rounds, || {
        assert!(verify_token(&key, black_box(&input), &output));
    });
    time("blind (client)", rounds, || {
        black_box(blind(&input, &mut rng).unwrap());
    });
    time("finalize (client)", rounds, || {
        black_box(finalize(&state, &evaluated.evaluation, &evaluated.proof, &public_key).unwrap());
    });
}
