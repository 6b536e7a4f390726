//! The Rust peer for `make bench-peer`: jsonwebtoken 8 on ring verifies the same corpus
//! `jwtbench --write-corpus` wrote, with the same checks JWTVerify makes (signature by `kid`,
//! `iss`, `aud`, `exp`/`iat` against a fixed time, nonce = hex SHA-256 of the raw nonce), on one
//! thread, and prints one JSON line: {"peer", "n", "valid", "tokens_per_sec"}.
//!
//! Usage: jwt-peer CORPUS_DIR NOW_UNIX [ROUNDS]
use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use std::collections::HashMap;
use std::time::Instant;

#[derive(Deserialize)]
struct Claims {
    exp: f64,
    iat: f64,
    nonce: Option<String>,
}

fn hex_sha256(raw: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, raw.as_bytes());
    digest.as_ref().iter().map(|b| format!("{:02x}", b)).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = &args[1];
    let now: f64 = args[2].parse().expect("NOW_UNIX");
    let rounds: usize = args.get(3).map(|r| r.parse().unwrap()).unwrap_or(3);
    let jwks: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/jwks.json")).unwrap()).unwrap();
    let mut keys: HashMap<String, (DecodingKey, Algorithm)> = HashMap::new();
    for key in jwks["keys"].as_array().unwrap() {
        let kid = key["kid"].as_str().unwrap().to_string();
        let (decoding, alg) = match key["kty"].as_str().unwrap() {
            "RSA" => (DecodingKey::from_rsa_components(key["n"].as_str().unwrap(), key["e"].as_str().unwrap()).unwrap(), Algorithm::RS256),
            _ => (DecodingKey::from_ec_components(key["x"].as_str().unwrap(), key["y"].as_str().unwrap()).unwrap(), Algorithm::ES256),
        };
        keys.insert(kid, (decoding, alg));
    }
    let tokens: Vec<String> = std::fs::read_to_string(format!("{dir}/tokens.txt")).unwrap().lines().map(String::from).collect();
    let nonces: Vec<String> = std::fs::read_to_string(format!("{dir}/nonces.txt")).unwrap().lines().map(String::from).collect();
    let mut validations: HashMap<Algorithm, Validation> = HashMap::new();
    for alg in [Algorithm::RS256, Algorithm::ES256] {
        let mut v = Validation::new(alg);
        v.set_issuer(&["https://appleid.apple.com"]);
        v.set_audience(&["com.example.app"]);
        v.validate_exp = false; // checked below against the corpus's fixed time
        v.required_spec_claims.clear();
        validations.insert(alg, v);
    }
    let verify = |index: usize| -> bool {
        let token = &tokens[index];
        let Ok(header) = decode_header(token) else { return false };
        let Some((key, alg)) = header.kid.as_ref().and_then(|kid| keys.get(kid)) else { return false };
        if header.alg != *alg { return false; }
        let Ok(data) = decode::<Claims>(token, key, &validations[alg]) else { return false };
        let c = data.claims;
        if c.exp + 60.0 <= now || c.iat - 60.0 > now { return false; }
        match (&c.nonce, nonces.get(index)) {
            (Some(claim), Some(raw)) if !raw.is_empty() => *claim == hex_sha256(raw),
            (None, Some(raw)) if !raw.is_empty() => false,
            _ => true,
        }
    };
    let mut valid = (0..tokens.len()).filter(|&i| verify(i)).count(); // warm-up
    let mut rates = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        valid = (0..tokens.len()).filter(|&i| verify(i)).count();
        rates.push(tokens.len() as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{{\"peer\":\"rust jsonwebtoken 8 (ring 0.16)\",\"n\":{},\"valid\":{},\"tokens_per_sec\":{:.1}}}",
        tokens.len(), valid, rates[rates.len() / 2]
    );
}
