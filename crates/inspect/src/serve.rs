//! `gtsim inspect --serve`: the report's folder over HTTP/1.1, GET and HEAD only, one
//! connection at a time, on 127.0.0.1 unless told otherwise. Paths are resolved inside
//! the folder (no `..`, no absolute paths); anything else is a 404.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// The longest request line or header read.
const MAX_LINE: usize = 8192;
/// The most header lines read.
const MAX_HEADERS: usize = 100;
/// How long a connection may take to send its request.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The file `request_path` names inside `root`, or `None` when it would leave it.
pub fn resolve(root: &Path, request_path: &str) -> Option<PathBuf> {
    let path = request_path.split(['?', '#']).next().unwrap_or("");
    let mut out = root.to_path_buf();
    for c in Path::new(path.trim_start_matches('/')).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("png") => "image/png",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        _ => "application/octet-stream",
    }
}

/// Answers one connection.
pub fn answer(root: &Path, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_write_timeout(Some(TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.by_ref().take(MAX_LINE as u64).read_line(&mut line)?;
    // Skip the headers.
    for _ in 0..MAX_HEADERS {
        let mut h = String::new();
        let n = reader.by_ref().take(MAX_LINE as u64).read_line(&mut h)?;
        if n == 0 || h == "\r\n" || h == "\n" {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut out = stream;
    if method != "GET" && method != "HEAD" {
        return out.write_all(
            b"HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
    let file = resolve(root, target).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b)));
    match file {
        Some((p, body)) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                content_type(&p),
                body.len()
            );
            out.write_all(head.as_bytes())?;
            if method == "GET" {
                out.write_all(&body)?;
            }
            Ok(())
        }
        None => {
            let body = b"not found\n";
            let head = format!(
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            out.write_all(head.as_bytes())?;
            out.write_all(body)
        }
    }
}

/// Serves `root` on `listener` until the process ends; a failed connection is logged
/// and the server goes on.
pub fn serve(root: &Path, listener: TcpListener) -> std::io::Result<()> {
    for stream in listener.incoming() {
        match stream {
            Ok(s) => {
                if let Err(e) = answer(root, s) {
                    eprintln!("gtsim inspect: a connection failed: {e}");
                }
            }
            Err(e) => eprintln!("gtsim inspect: accept failed: {e}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_folder() {
        let root = Path::new("/srv/report");
        assert_eq!(
            resolve(root, "/draw-1.html?x=1"),
            Some(PathBuf::from("/srv/report/draw-1.html"))
        );
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/img/../../x"), None);
    }

    /// A real socket: the index comes back with its type, a missing file is a 404 and
    /// a POST a 405.
    #[test]
    fn serves_files_over_http() {
        let dir = std::env::temp_dir().join(format!("gtsim-serve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<p>hello</p>").unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let root = dir.clone();
        std::thread::spawn(move || serve(&root, listener));
        let get = |req: &str| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(req.as_bytes()).unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).unwrap();
            out
        };
        let r = get("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
        assert!(
            r.contains("text/html") && r.ends_with("<p>hello</p>"),
            "{r}"
        );
        assert!(get("GET /nothing.png HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get("POST / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
