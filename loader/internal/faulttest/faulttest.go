// Package faulttest runs the body of a test in a child process: a test of
// reads from a mapped file that shrinks underneath must see a crash of the
// reader (SIGBUS kills the whole process) as the failure of one test, not
// lose the test binary. It is for tests only.
package faulttest

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// env names the test the child process runs the body of.
const env = "VASTVIEW_FAULTTEST_CHILD"

// Run runs body in a child process (the test binary again, running only
// t's test, with body called there) and fails t if the child does not pass:
// it died of a signal (a crash), or body failed; t is skipped if body
// skips. In the child, Run calls body(t) and returns.
func Run(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(env) == t.Name() {
		body(t)
		return
	}
	var pattern []string
	for _, p := range strings.Split(t.Name(), "/") {
		pattern = append(pattern, "^"+regexp.QuoteMeta(p)+"$")
	}
	cmd := exec.Command(os.Args[0], "-test.run="+strings.Join(pattern, "/"), "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil && bytes.Contains(out.Bytes(), []byte("--- SKIP: "+t.Name())) {
		t.Skipf("skipped in the child process:\n%s", out.Bytes())
	}
	if err == nil && !bytes.Contains(out.Bytes(), []byte("--- PASS: "+t.Name())) {
		t.Fatalf("the child process did not run the test:\n%s", out.Bytes())
	}
	if err != nil {
		t.Fatalf("the child process failed (%v):\n%s", err, head(out.Bytes(), 40))
	}
}

// head returns the first n lines of b (a crash's trace is long).
func head(b []byte, n int) []byte {
	lines := bytes.SplitAfterN(b, []byte("\n"), n+1)
	if len(lines) > n {
		lines = append(lines[:n], []byte("...\n"))
	}
	return bytes.Join(lines, nil)
}
