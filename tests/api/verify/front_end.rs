//! Front ends for the attacks on `deniable verify`: an HTTP proxy in front of a real server
//! that rewrites some answers, and a TLS terminator with a certificate authority made for
//! the test.

use std::sync::Arc;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};

/// What the front end sees of a request.
pub struct Asked {
    pub path: String,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
}

impl Asked {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(served, _)| served == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The server's answer, as the front end may rewrite it before sending it on.
pub struct Answer {
    pub status: u16,
    /// Lower-case names, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }

    pub fn set_text(&mut self, text: &str) {
        self.body = text.as_bytes().to_vec();
    }

    /// Replaces `from` in the body, which must hold it.
    pub fn replace(&mut self, from: &str, to: &str) {
        let text = self.text();
        assert!(text.contains(from), "{from:?} is not in the answer");
        self.set_text(&text.replace(from, to));
    }

    pub fn remove_header(&mut self, name: &str) {
        self.headers.retain(|(served, _)| served != name);
    }
}

type Rewrite = dyn Fn(&Asked, &mut Answer) + Send + Sync;

#[derive(Clone)]
struct Relay {
    upstream: String,
    client: reqwest::Client,
    rewrite: Arc<Rewrite>,
}

/// Headers of one hop only, which a proxy does not pass on.
const HOP: [&str; 6] = [
    "host",
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
    "date",
];

/// A proxy on 127.0.0.1 that passes every request on to `upstream` (`http://…`) and lets
/// `rewrite` change each answer; its address (`http://127.0.0.1:PORT`).
pub fn proxy(
    upstream: &str,
    rewrite: impl Fn(&Asked, &mut Answer) + Send + Sync + 'static,
) -> String {
    let relay = Relay {
        upstream: upstream.to_owned(),
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        rewrite: Arc::new(rewrite),
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(relay.clone()))
            .default_service(web::to(forward))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    address
}

async fn forward(request: HttpRequest, body: web::Bytes, relay: web::Data<Relay>) -> HttpResponse {
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |path| path.as_str())
        .to_owned();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .filter(|(name, _)| !HOP.contains(&name.as_str()))
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                value.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let mut upstream = relay.client.request(
        reqwest::Method::from_bytes(request.method().as_str().as_bytes()).unwrap(),
        format!("{}{path}", relay.upstream),
    );
    for (name, value) in &headers {
        upstream = upstream.header(name, value);
    }
    let response = upstream.body(body.to_vec()).send().await.unwrap();
    let mut answer = Answer {
        status: response.status().as_u16(),
        headers: response
            .headers()
            .iter()
            .filter(|(name, _)| !HOP.contains(&name.as_str()))
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    value.to_str().unwrap_or_default().to_owned(),
                )
            })
            .collect(),
        body: response.bytes().await.unwrap().to_vec(),
    };
    (relay.rewrite)(&Asked { path, headers }, &mut answer);
    let mut response =
        HttpResponse::build(actix_web::http::StatusCode::from_u16(answer.status).unwrap());
    for (name, value) in answer.headers {
        response.append_header((name, value));
    }
    response.body(answer.body)
}

/// An HTTPS front end: a certificate authority made for the test, a certificate for
/// 127.0.0.1 that it signed, and a listener that decrypts each connection and relays it to
/// a plain-HTTP server.
pub struct TlsFrontEnd {
    /// `https://127.0.0.1:PORT`.
    pub address: String,
    /// The authority's certificate (PEM): what `--ca-file` is given.
    pub authority_pem: String,
}

/// A TLS front end for the server at `upstream` (`http://127.0.0.1:PORT`).
pub async fn tls_front_end(upstream: &str) -> TlsFrontEnd {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    };
    use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    use tokio_rustls::rustls::{crypto, ServerConfig};

    let mut authority = CertificateParams::new(Vec::<String>::new()).unwrap();
    authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    authority
        .distinguished_name
        .push(DnType::CommonName, "Deniable test authority");
    authority.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let authority_key = KeyPair::generate().unwrap();
    let authority_pem = authority.self_signed(&authority_key).unwrap().pem();
    let issuer = Issuer::new(authority, authority_key);
    let mut server = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
    server
        .distinguished_name
        .push(DnType::CommonName, "127.0.0.1");
    let server_key = KeyPair::generate().unwrap();
    let certificate = server.signed_by(&server_key, &issuer).unwrap();

    let mut config =
        ServerConfig::builder_with_provider(Arc::new(crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![certificate.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der())),
            )
            .unwrap();
    // The relay passes bytes to an HTTP/1.1 server: offer nothing else.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("https://{}", listener.local_addr().unwrap());
    let upstream = upstream.trim_start_matches("http://").to_owned();
    tokio::spawn(async move {
        while let Ok((connection, _)) = listener.accept().await {
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                // A client that refuses the certificate ends the handshake: nothing to relay.
                let Ok(mut decrypted) = acceptor.accept(connection).await else {
                    return;
                };
                let mut server = tokio::net::TcpStream::connect(&upstream).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut decrypted, &mut server).await;
            });
        }
    });
    TlsFrontEnd {
        address,
        authority_pem,
    }
}
