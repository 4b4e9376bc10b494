//! `gtsim inspect --serve`: the report's folder over HTTP/1.1, GET and HEAD only, on
//! 127.0.0.1 unless told otherwise.
//!
//! Requests are parsed by `httparse` (the parser hyper is built on); this module keeps
//! only the server's policy, which the ready-made servers considered do not offer as a
//! whole: `tiny_http` 0.12 sets no socket deadline (its issue #143), and `axum::serve`
//! has no header-read timeout without a hyper timer, while a report server must not let
//! a client that sends nothing hold it.
//!
//! Besides the folder's files it answers the pages a [`Pages`] source makes on request
//! (the pixel history page, `crate::trace_page`), one at a time, each given its own
//! [`DEADLINE`] to be sent in once made.
//!
//! What it will not do: serve anything but the report's pages and pictures (`*.html`,
//! `*.png`) inside the folder (no `..`, no absolute paths); answer a request whose Host is
//! not this machine's loopback or the address it listens on (a web page elsewhere cannot
//! read the report through DNS rebinding); let one connection take more than
//! [`DEADLINE`] (reading and writing together); hold more than [`MAX_CONNECTIONS`]
//! connections at once (each on its own thread; the next ones get a 503).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The most bytes of a request head (request line and headers) read.
const MAX_HEAD: usize = 16 * 1024;
/// The most header lines parsed.
const MAX_HEADERS: usize = 100;
/// How long one connection may take, request and answer.
pub const DEADLINE: Duration = Duration::from_secs(10);
/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 8;

/// Pages made on request rather than read from the folder.
pub trait Pages: Send + Sync {
    /// The page at `path` with query `query` (the text after `?`): `None` when this
    /// source makes no such page, the page, or a bad request's reason.
    fn page(&self, path: &str, query: &str) -> Option<Result<String, String>>;
}

/// The file `request_path` names inside `root`, or `None` when it would leave it or is
/// not a page or a picture.
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
    content_type(&out).map(|_| out)
}

fn content_type(p: &Path) -> Option<&'static str> {
    match p.extension().and_then(|e| e.to_str()) {
        Some("html") => Some("text/html; charset=utf-8"),
        Some("png") => Some("image/png"),
        _ => None,
    }
}

/// A stream whose reads and writes all end by one deadline.
struct Timed<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Timed<'_> {
    fn remaining(&self) -> std::io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        Ok(left)
    }
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.set_read_timeout(Some(self.remaining()?))?;
        (&*self.stream).read(buf)
    }
}

impl Write for Timed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.set_write_timeout(Some(self.remaining()?))?;
        (&*self.stream).write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        (&*self.stream).flush()
    }
}

/// Whether a request's Host (with its port, if any) names this machine's loopback or
/// `local`, the address the server listens on. A request without one (HTTP/1.0) is let
/// through.
pub fn host_allowed(host: Option<&str>, local: &str) -> bool {
    let Some(h) = host else {
        return true;
    };
    let name = match h.rsplit_once(':') {
        // "[::1]:8000", "localhost:8000"; a bare IPv6 literal is bracketed.
        Some((n, port)) if port.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => h,
    };
    let local_name = local.rsplit_once(':').map_or(local, |(n, _)| n);
    ["127.0.0.1", "localhost", "[::1]", local_name].contains(&name.to_ascii_lowercase().as_str())
}

/// A parsed request head: its method, target and Host header.
struct Head {
    method: String,
    target: String,
    host: Option<String>,
}

/// Reads a request head from `io` (until its blank line, at most [`MAX_HEAD`] bytes)
/// and parses it, or gives the status to answer a request that does not parse.
fn read_head(io: &mut Timed) -> std::io::Result<Result<Head, &'static str>> {
    let mut buf = vec![0u8; MAX_HEAD];
    let mut len = 0;
    loop {
        let n = io.read(&mut buf[len..])?;
        if n == 0 {
            return Ok(Err("400 Bad Request"));
        }
        len += n;
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf[..len]) {
            Ok(httparse::Status::Complete(_)) => {
                let host = req
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("host"))
                    .map(|h| String::from_utf8_lossy(h.value).trim().to_string());
                return Ok(Ok(Head {
                    method: req.method.unwrap_or("").to_string(),
                    target: req.path.unwrap_or("").to_string(),
                    host,
                }));
            }
            Ok(httparse::Status::Partial) if len < MAX_HEAD => {}
            Ok(httparse::Status::Partial) | Err(httparse::Error::TooManyHeaders) => {
                return Ok(Err("431 Request Header Fields Too Large"));
            }
            Err(_) => return Ok(Err("400 Bad Request")),
        }
    }
}

/// Answers one connection; `local` is the address the server listens on.
pub fn answer(root: &Path, stream: TcpStream, local: &str) -> std::io::Result<()> {
    answer_with(root, stream, local, None)
}

/// [`answer`], with the pages `pages` makes.
pub fn answer_with(
    root: &Path,
    stream: TcpStream,
    local: &str,
    pages: Option<&dyn Pages>,
) -> std::io::Result<()> {
    let mut io = Timed {
        stream: &stream,
        deadline: Instant::now() + DEADLINE,
    };
    let status = |io: &mut Timed, code: &str, extra: &str| {
        io.write_all(
            format!("HTTP/1.1 {code}\r\n{extra}Content-Length: 0\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
    };
    let Head {
        method,
        target,
        host,
    } = match read_head(&mut io)? {
        Ok(head) => head,
        Err(code) => {
            status(&mut io, code, "")?;
            // A lingering close: the rest of what the client sent (up to another
            // MAX_HEAD bytes, within the deadline) is read before the socket closes,
            // so that unread bytes do not turn the close into a reset that discards
            // the answer.
            stream.shutdown(std::net::Shutdown::Write)?;
            let _ = std::io::copy(&mut (&mut io).take(MAX_HEAD as u64), &mut std::io::sink());
            return Ok(());
        }
    };
    let (method, target) = (method.as_str(), target.as_str());
    if method != "GET" && method != "HEAD" {
        return status(&mut io, "405 Method Not Allowed", "Allow: GET, HEAD\r\n");
    }
    if !host_allowed(host.as_deref(), local) {
        return status(&mut io, "403 Forbidden", "");
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if let Some(made) = pages.and_then(|p| p.page(path, query)) {
        // Making the page is the server's time, not the client's: the answer gets a
        // deadline of its own.
        io.deadline = Instant::now() + DEADLINE;
        let (code, body) = match made {
            Ok(page) => ("200 OK", page),
            Err(why) => (
                "400 Bad Request",
                format!(
                    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bad request</title></head><body><p>{}</p></body></html>\n",
                    crate::html::esc(&why)
                ),
            ),
        };
        io.write_all(
            format!(
                "HTTP/1.1 {code}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        )?;
        if method == "GET" {
            io.write_all(body.as_bytes())?;
        }
        return Ok(());
    }
    let file = resolve(root, target).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b)));
    match file {
        Some((p, body)) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                content_type(&p).unwrap_or("application/octet-stream"),
                body.len()
            );
            io.write_all(head.as_bytes())?;
            if method == "GET" {
                io.write_all(&body)?;
            }
            Ok(())
        }
        None => status(&mut io, "404 Not Found", ""),
    }
}

/// Serves `root` on `listener` until the process ends, each connection on a thread of
/// its own, at most [`MAX_CONNECTIONS`] at once; a failed connection is logged and the
/// server goes on.
pub fn serve(root: &Path, listener: TcpListener) -> std::io::Result<()> {
    serve_with(root, listener, None)
}

/// [`serve`], with the pages `pages` makes.
pub fn serve_with(
    root: &Path,
    listener: TcpListener,
    pages: Option<Arc<dyn Pages>>,
) -> std::io::Result<()> {
    let local = Arc::new(listener.local_addr()?.to_string());
    let root = Arc::new(root.to_path_buf());
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let s = match stream {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("accept failed: {e}");
                continue;
            }
        };
        if open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::AcqRel);
            let _ = s.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = (&s).write_all(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            continue;
        }
        let (root, local, done) = (root.clone(), local.clone(), open.clone());
        let pages = pages.clone();
        let spawned = std::thread::Builder::new()
            .name("gtsim-serve".into())
            .spawn(move || {
                if let Err(e) = answer_with(&root, s, &local, pages.as_deref()) {
                    tracing::warn!("a connection failed: {e}");
                }
                done.fetch_sub(1, Ordering::AcqRel);
            });
        if let Err(e) = spawned {
            open.fetch_sub(1, Ordering::AcqRel);
            tracing::warn!("no thread for a connection: {e}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_folder_and_are_pages_or_pictures() {
        let root = Path::new("/srv/report");
        assert_eq!(
            resolve(root, "/draw-1.html?x=1"),
            Some(PathBuf::from("/srv/report/draw-1.html"))
        );
        assert_eq!(
            resolve(root, "/img/ab.png"),
            Some(PathBuf::from("/srv/report/img/ab.png"))
        );
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/img/../../x.html"), None);
        assert_eq!(resolve(root, "/.bashrc"), None);
        assert_eq!(resolve(root, "/notes.txt"), None);
    }

    #[test]
    fn only_this_machine_may_be_the_host() {
        let local = "127.0.0.1:8000";
        for ok in [
            None,
            Some("127.0.0.1:8000"),
            Some("localhost:8000"),
            Some("[::1]:8000"),
            Some("LOCALHOST"),
        ] {
            assert!(host_allowed(ok, local), "{ok:?}");
        }
        for bad in [
            "evil.example:8000",
            "evil.example",
            "127.0.0.1.evil.example",
        ] {
            assert!(!host_allowed(Some(bad), local), "{bad}");
        }
        assert!(host_allowed(Some("192.168.1.5:9000"), "192.168.1.5:9000"));
    }

    /// A real socket: the index comes back with its type, a missing file is a 404, a
    /// POST a 405, a foreign Host a 403.
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
        let r = get(&format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
        assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
        assert!(
            r.contains("text/html") && r.ends_with("<p>hello</p>"),
            "{r}"
        );
        assert!(get("GET /nothing.png HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get("POST / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        assert!(get("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n").starts_with("HTTP/1.1 403"));
        assert!(get("GARBAGE\r\n\r\n").starts_with("HTTP/1.1 400"));
        let long = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert!(get(&long).starts_with("HTTP/1.1 431"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Clients that send nothing do not hold the server: the next request is answered
    /// while they wait, and past [`MAX_CONNECTIONS`] open ones a new connection gets a
    /// 503 at once.
    #[test]
    fn idle_connections_neither_block_nor_pile_up() {
        let dir = std::env::temp_dir().join(format!("gtsim-serve-idle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "ok").unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let root = dir.clone();
        std::thread::spawn(move || serve(&root, listener));
        let read_all = |mut s: TcpStream| {
            let mut out = String::new();
            s.read_to_string(&mut out).unwrap();
            out
        };
        // One silent client, a partial request line: a full request still gets its page.
        let mut idle = vec![TcpStream::connect(addr).unwrap()];
        idle[0].write_all(b"GET / HT").unwrap();
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        let r = read_all(s);
        assert!(r.starts_with("HTTP/1.1 200 OK") && r.ends_with("ok"), "{r}");
        // Fill the remaining places with silent clients; the next one is turned away.
        while idle.len() < MAX_CONNECTIONS {
            idle.push(TcpStream::connect(addr).unwrap());
        }
        let r = read_all(TcpStream::connect(addr).unwrap());
        assert!(r.starts_with("HTTP/1.1 503"), "{r}");
        drop(idle);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
