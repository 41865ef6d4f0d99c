//! GET /static/{file}: the form's and the workspace's script, style, WebAssembly and icon,
//! built into the binary, so an operator deploys one file. Each answer carries an ETag (a
//! hash of the file, computed when the binary is built) and `Cache-Control: no-cache`: a
//! browser always revalidates, and gets a bodiless 304 while the binary is unchanged.

use std::borrow::Cow;
use std::path::PathBuf;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use rust_embed::RustEmbed;

use crate::error::AppError;

#[derive(RustEmbed)]
#[folder = "static/"]
struct Embedded;

/// A file built into this binary, by name (`form.js`): what `deniable verify` compares a
/// server's copy with.
pub fn built_in(file: &str) -> Option<Cow<'static, [u8]>> {
    Embedded::get(file).map(|embedded| embedded.data)
}

/// The names of every file built into this binary, sorted.
pub fn built_in_names() -> Vec<String> {
    let mut names: Vec<String> = Embedded::iter().map(String::from).collect();
    names.sort();
    names
}

/// Where the files come from: the binary, or (for development only) a directory.
pub struct StaticFiles(pub Option<PathBuf>);

/// One of our plain file names, never a path, so no traversal can reach past the directory
/// (and every miss is our JSON 404).
fn is_plain_name(file: &str) -> bool {
    file.len() <= 64
        && !file.starts_with('.')
        && file
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

fn content_type(file: &str) -> &'static str {
    match file.rsplit_once('.').map(|(_, extension)| extension) {
        // `instantiateStreaming` accepts nothing else.
        Some("wasm") => "application/wasm",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("html") => "text/html; charset=utf-8",
        // The third-party notices of the modules served here.
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// GET /static/{file}
///
/// The form's and the workspace's script, style, WebAssembly and icon, with an ETag.
#[utoipa::path(
    get,
    path = "/static/{file}",
    tag = "service",
    params(
        ("file" = String, Path, description = "A file name such as `form.js`, `form.css`, \
            `randomized_response.wasm` or `favicon.svg`.", example = "form.js"),
    ),
    responses(
        (status = 200, description = "The file (`Cache-Control: no-cache`).",
            headers(("ETag" = String, description = "A hash of the file.")),
            content(
                (String = "text/javascript; charset=utf-8"),
                (String = "text/css; charset=utf-8"),
                (Vec<u8> = "application/wasm"),
                (String = "image/svg+xml"),
                (String = "text/html; charset=utf-8"),
                (Vec<u8> = "application/octet-stream"),
            )),
        (status = 304, description = "Unchanged: the request's `If-None-Match` names this \
            ETag (a conditional request, RFC 9110).",
            headers(("ETag" = String, description = "A hash of the file."))),
        (status = 404, description = "`not_found`: no such file.", body = crate::error::ErrorBody),
    )
)]
pub async fn static_file(
    request: HttpRequest,
    source: web::Data<StaticFiles>,
    file: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    if !is_plain_name(&file) {
        return Err(AppError::NotFound("file"));
    }
    if let Some(directory) = &source.0 {
        let named = actix_files::NamedFile::open_async(directory.join(file.as_str()))
            .await
            .map_err(|_| AppError::NotFound("file"))?;
        return Ok(named.prefer_utf8(true).into_response(&request));
    }
    let embedded = Embedded::get(&file).ok_or(AppError::NotFound("file"))?;
    let etag = format!(
        "\"{}\"",
        hex::encode(&embedded.metadata.sha256_hash()[..16])
    );
    let unchanged = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .map(str::trim)
                .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
        });
    let mut response = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::ETAG, etag));
    if unchanged {
        return Ok(response.finish());
    }
    let body = match embedded.data {
        Cow::Borrowed(bytes) => Bytes::from_static(bytes),
        Cow::Owned(bytes) => Bytes::from(bytes),
    };
    Ok(response.content_type(content_type(&file)).body(body))
}

#[cfg(test)]
mod tests {
    use super::{content_type, is_plain_name, Embedded};

    #[test]
    fn every_file_of_the_static_directory_is_built_into_the_binary() {
        let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/static");
        let mut on_disk: Vec<String> = std::fs::read_dir(directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = Embedded::iter().map(String::from).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk, "a new file needs a rebuild (build.rs)");
        for name in &embedded {
            assert!(is_plain_name(name), "{name} is not reachable by /static/");
        }
    }

    #[test]
    fn scripts_styles_and_webassembly_get_their_own_content_types() {
        assert_eq!(content_type("randomized_response.wasm"), "application/wasm");
        assert!(content_type("form.js").starts_with("text/javascript"));
        assert!(content_type("workspace.css").starts_with("text/css"));
        assert_eq!(content_type("favicon.svg"), "image/svg+xml");
    }
}
