"""The hostile suite in every contest language (issue 48): a fork bomb, a /tmp filler and a
network probe written in Kotlin, Haskell, Rust, Go and PyPy (C, C++, Python and Java have
theirs in test_sandbox_hostile.py and test_sandbox_state.py). Each ends in bounded time
with a verdict of its own, leaves no process behind, never reaches the network, and the
next run in the same slot finds the slot as clean as before. Inside the outer safety net
(``hostile_fixtures``); a language not installed here skips, saying so."""

from __future__ import annotations

import time

import pytest

from hostile_fixtures import assert_net_untouched, cpp, needs_full_v1, net, sandbox_uids, survivors, uid_processes
from tczoo.sandbox import Limits, Sandbox, Verdict
from tczoo.sandbox.languages import installed, missing_message
from tczoo.schema import Language, Program

pytestmark = [needs_full_v1, pytest.mark.e2e]
__all__ = ["net"]

FORK_BOMB = {
    Language.KOTLIN: """fun main() {
    val kids = mutableListOf<Process>()
    while (true) kids.add(ProcessBuilder("/bin/sh", "-c", "while :; do sleep 100 & done").start())
}
""",
    Language.HASKELL: """import Control.Monad
import System.Process
main :: IO ()
main = forever (spawnProcess "/proc/self/exe" [])
""",
    Language.RUST: """use std::process::Command;
fn main() { let mut kids = Vec::new(); loop { if let Ok(c) = Command::new("/proc/self/exe").spawn() { kids.push(c); } } }
""",
    Language.GO: """package main
import "os/exec"
func main() { for { exec.Command("/proc/self/exe").Start() } }
""",
    Language.PYPY: "import os\nwhile True:\n    os.fork()\n",
}

TMP_FILLER = {
    Language.KOTLIN: """import java.io.File
fun main() {
    val block = ByteArray(1 shl 20) { 120 }
    var i = 0
    while (true) { File("/tmp/fill" + i).writeBytes(block); File("/dev/shm/fill" + i).writeBytes(block); i++ }
}
""",
    Language.HASKELL: """import qualified Data.ByteString as B
main :: IO ()
main = mapM_ (\\i -> B.writeFile ("/tmp/fill" ++ show i) (B.replicate (1024 * 1024) 120)) [0 :: Int ..]
""",
    Language.RUST: """fn main() { let block = vec![b'x'; 1 << 20]; let mut i = 0;
  loop { std::fs::write(format!("/tmp/fill{}", i), &block).unwrap(); i += 1; } }
""",
    Language.GO: """package main
import ("fmt"; "os")
func main() { block := make([]byte, 1<<20)
  for i := 0; ; i++ { if err := os.WriteFile(fmt.Sprintf("/tmp/fill%d", i), block, 0600); err != nil { panic(err) } } }
""",
    Language.PYPY: "i = 0\nwhile True:\n    open(f'/tmp/fill{i}', 'wb').write(b'x' * (1 << 20))\n    i += 1\n",
}

NETWORK = {
    Language.KOTLIN: """import java.net.*
fun main() {
    try { Socket().use { it.connect(InetSocketAddress("1.1.1.1", 80), 2000); println("CONNECTED") } }
    catch (e: Exception) { println("blocked " + e.javaClass.simpleName) }
}
""",
    Language.HASKELL: """{-# LANGUAGE ForeignFunctionInterface #-}
import Foreign
import Foreign.C.Types
foreign import ccall "socket" c_socket :: CInt -> CInt -> CInt -> IO CInt
foreign import ccall "connect" c_connect :: CInt -> Ptr Word8 -> CInt -> IO CInt
main :: IO ()
main = do
  fd <- c_socket 2 1 0
  r <- allocaBytes 16 $ \\p -> do
    mapM_ (\\i -> pokeByteOff p i (0 :: Word8)) [0 .. 15]
    pokeByteOff p 0 (2 :: Word8)
    pokeByteOff p 3 (80 :: Word8)
    mapM_ (\\i -> pokeByteOff p (4 + i) (1 :: Word8)) [0 .. 3]
    c_connect fd p 16
  putStrLn (if fd >= 0 && r == 0 then "CONNECTED" else "blocked")
""",
    Language.RUST: """use std::net::TcpStream; use std::time::Duration;
fn main() { match TcpStream::connect_timeout(&"1.1.1.1:80".parse().unwrap(), Duration::from_secs(2)) {
  Ok(_) => println!("CONNECTED"), Err(e) => println!("blocked {:?}", e.kind()) } }
""",
    Language.GO: """package main
import ("fmt"; "net"; "time")
func main() { if c, err := net.DialTimeout("tcp", "1.1.1.1:80", 2*time.Second); err == nil { c.Close(); fmt.Println("CONNECTED") } else { fmt.Println("blocked", err) } }
""",
    Language.PYPY: """import socket
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2).close(); print("CONNECTED")
except OSError as e:
    print("blocked", type(e).__name__)
""",
}

# What the next run in the same slot sees: entries left in /tmp (the run folder is its own)
# and in /dev/shm.
PROBE = cpp(r"""#include <dirent.h>
#include <stdio.h>
#include <string.h>
int count(const char *p) { int n = 0; DIR *d = opendir(p); struct dirent *e;
  while (d && (e = readdir(d))) if (e->d_name[0] != '.' && strcmp(e->d_name, "run")) n++; return n; }
int main() { printf("%d %d\n", count("/tmp"), count("/dev/shm")); }
""")


@pytest.fixture(scope="module")
def box(net, tmp_path_factory):
    # one slot: the probe after an attack runs where the attack ran
    sb = Sandbox(workers=1, cache_dir=tmp_path_factory.mktemp("languages-hostile"), isolation="full")
    try:
        yield sb
    finally:
        uids = sandbox_uids(sb)
        sb.close()
        time.sleep(0.05)
        assert not uid_processes(uids), "sandbox-uid processes survived close()"


@pytest.fixture
def clean(box, net):
    yield
    assert not survivors(net, [box]), "processes survived their run"
    assert_net_untouched(net)
    r = box.run(PROBE, "", Limits(time_ms=2000))
    assert r.verdict is Verdict.AC and r.stdout.split() == ["0", "0"], r


def _run(box: Sandbox, language: Language, code: str, limits: Limits):
    if not installed(language):
        pytest.skip(missing_message(language))
    program = Program(code=code, language=language)
    built = box.compile(program)
    assert built.ok, built.message[:2000]
    start = time.monotonic()
    r = box.run(program, "", limits)
    return r, time.monotonic() - start


@pytest.mark.parametrize("language", list(FORK_BOMB), ids=lambda lang: lang.value)
def test_fork_bomb(box, clean, language):
    r, secs = _run(box, language, FORK_BOMB[language], Limits(time_ms=2000, processes=16))
    assert r.verdict in (Verdict.RE, Verdict.TLE, Verdict.MLE) and secs < 30, (r.verdict, r.message, r.stderr[-300:])


@pytest.mark.parametrize("language", list(TMP_FILLER), ids=lambda lang: lang.value)
def test_tmp_filler(box, clean, language):
    r, secs = _run(box, language, TMP_FILLER[language], Limits(time_ms=5000, memory_mb=256))
    # the memory cgroup charges tmpfs pages (MLE), or the filesystem says no (the program's RE)
    assert r.verdict in (Verdict.MLE, Verdict.RE, Verdict.OLE) and secs < 30, (r.verdict, r.message, r.stderr[-300:])


@pytest.mark.parametrize("language", list(NETWORK), ids=lambda lang: lang.value)
def test_network_probe(box, clean, language):
    r, secs = _run(box, language, NETWORK[language], Limits(time_ms=5000, memory_mb=512))
    assert r.verdict is Verdict.AC and "CONNECTED" not in r.stdout and "blocked" in r.stdout and secs < 30, r
