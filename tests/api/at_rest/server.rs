//! The server process: `deniable serve` as a child, its log watched for compaction epochs.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Contract, QUIET_MARGIN};

#[derive(Default)]
struct ServerLog {
    text: String,
    epochs: usize,
    last_epoch: Option<Instant>,
}

/// `deniable serve` as a child process, with its log watched for compaction epochs.
pub(super) struct Server {
    child: Child,
    address: String,
    contract: Contract,
    compact_every: Duration,
    log: Arc<Mutex<ServerLog>>,
    log_reader: Option<JoinHandle<()>>,
}

impl Server {
    pub(super) fn start(
        binary: &Path,
        db: &Path,
        contract: Contract,
        compact_every_seconds: u64,
    ) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--workers", "2"])
            .args(["--submissions-per-minute", "0"])
            .arg("--db")
            .arg(db)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if contract == Contract::Current {
            command.args(["--compact-every", &compact_every_seconds.to_string()]);
        }
        let mut child = command.spawn().expect("the binary starts");
        let log = Arc::new(Mutex::new(ServerLog::default()));
        let stderr = child.stderr.take().unwrap();
        let written = Arc::clone(&log);
        let log_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut log = written.lock().unwrap_or_else(PoisonError::into_inner);
                if line.contains("compaction epoch") {
                    log.epochs += 1;
                    log.last_epoch = Some(Instant::now());
                }
                log.text.push_str(&line);
                log.text.push('\n');
            }
        });
        let address = crate::common::serving_address(child.stdout.take().unwrap());
        Self {
            child,
            address,
            contract,
            compact_every: Duration::from_secs(compact_every_seconds),
            log,
            log_reader: Some(log_reader),
        }
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    fn log(&self) -> std::sync::MutexGuard<'_, ServerLog> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn epochs_logged(&self) -> usize {
        self.log().epochs
    }

    /// Returns once an epoch has run after the last write, which was sent when
    /// `epochs_before` epochs had been logged and acknowledged at `acknowledged_at`.
    ///
    /// The first epoch logged after the write was sent may have begun before its commit
    /// (an epoch in progress). But the writer runs an epoch within `--compact-every` of
    /// any commit, so once no epoch has been logged for `--compact-every` plus a margin
    /// since both the last epoch line and the acknowledgement, the last epoch logged is
    /// one that followed the write.
    pub(super) async fn wait_for_epoch_after_last_write(
        &self,
        epochs_before: usize,
        acknowledged_at: Instant,
    ) {
        if self.contract != Contract::Current {
            return; // No epochs to wait for.
        }
        let quiet = self.compact_every + QUIET_MARGIN;
        let deadline = Instant::now() + quiet * 5;
        loop {
            let (epochs, last_epoch) = {
                let log = self.log();
                (log.epochs, log.last_epoch)
            };
            if let Some(last_epoch) = last_epoch {
                let since = last_epoch.max(acknowledged_at).elapsed();
                if epochs > epochs_before && since >= quiet {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "no compaction epoch logged within {quiet:?} after the last write"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Returns once the first epoch of this process is logged: the server counts the
    /// files it found as written, so that epoch follows every write of earlier runs.
    pub(super) async fn wait_for_first_epoch(&self) {
        if self.contract != Contract::Current {
            return;
        }
        let deadline = Instant::now() + (self.compact_every + QUIET_MARGIN) * 5;
        while self.epochs_logged() == 0 {
            assert!(
                Instant::now() < deadline,
                "no compaction epoch after start-up"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGTERM, then waits for exit status 0; returns the log.
    pub(super) async fn terminate(mut self) -> String {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        let exit = loop {
            if let Some(exit) = self.child.try_wait().unwrap() {
                break exit;
            }
            assert!(Instant::now() < deadline, "no exit within 30 s of SIGTERM");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(exit.code(), Some(0), "SIGTERM: exit status {exit}");
        self.finish_log()
    }

    /// SIGKILL: the process gets no chance to tidy its files. Returns the log.
    pub(super) fn kill(mut self) -> String {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        self.finish_log()
    }

    fn finish_log(&mut self) -> String {
        if let Some(reader) = self.log_reader.take() {
            reader.join().unwrap();
        }
        std::mem::take(&mut self.log().text)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A failed assertion must not leave a server running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
