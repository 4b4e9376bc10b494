//! `gtsim inspect --serve`: the report's folder over HTTP/1.1, GET and HEAD only, one
//! connection at a time, on 127.0.0.1 unless told otherwise.
//!
//! What it will not do: serve anything but the report's pages and pictures (`*.html`,
//! `*.png`) inside the folder (no `..`, no absolute paths); answer a request whose Host is
//! not this machine's loopback or the address it listens on (a web page elsewhere cannot
//! read the report through DNS rebinding); let one connection hold it for more than
//! [`DEADLINE`] (reading and writing together).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

/// The longest request line or header read.
const MAX_LINE: usize = 8192;
/// The most header lines read.
const MAX_HEADERS: usize = 100;
/// How long one connection may take, request and answer.
pub const DEADLINE: Duration = Duration::from_secs(10);

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

/// Answers one connection; `local` is the address the server listens on.
pub fn answer(root: &Path, stream: TcpStream, local: &str) -> std::io::Result<()> {
    let mut io = Timed {
        stream: &stream,
        deadline: Instant::now() + DEADLINE,
    };
    let mut reader = BufReader::new(Timed {
        stream: &stream,
        deadline: io.deadline,
    });
    let mut line = String::new();
    (&mut reader).take(MAX_LINE as u64).read_line(&mut line)?;
    let mut host = None;
    for _ in 0..MAX_HEADERS {
        let mut h = String::new();
        let n = (&mut reader).take(MAX_LINE as u64).read_line(&mut h)?;
        if n == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((name, value)) = h.split_once(':')
            && name.trim().eq_ignore_ascii_case("host")
        {
            host = Some(value.trim().to_string());
        }
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let status = |io: &mut Timed, code: &str, extra: &str| {
        io.write_all(
            format!("HTTP/1.1 {code}\r\n{extra}Content-Length: 0\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
    };
    if method != "GET" && method != "HEAD" {
        return status(&mut io, "405 Method Not Allowed", "Allow: GET, HEAD\r\n");
    }
    if !host_allowed(host.as_deref(), local) {
        return status(&mut io, "403 Forbidden", "");
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

/// Serves `root` on `listener` until the process ends; a failed connection is logged
/// and the server goes on.
pub fn serve(root: &Path, listener: TcpListener) -> std::io::Result<()> {
    let local = listener.local_addr()?.to_string();
    for stream in listener.incoming() {
        match stream {
            Ok(s) => {
                if let Err(e) = answer(root, s, &local) {
                    tracing::warn!("a connection failed: {e}");
                }
            }
            Err(e) => tracing::warn!("accept failed: {e}"),
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
