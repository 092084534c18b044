package testtool

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// S3Gateway runs the versitygw S3 gateway ($VERSITYGW, on PATH, or in
// $GOPATH/bin or ~/go/bin, as .ci/deps installs it) with its posix
// backend over the folder root, path-style on 127.0.0.1, with the root
// account access/secret; it returns the gateway's host:port. The gateway
// stops when the test ends.
func S3Gateway(t testing.TB, root, access, secret string) string {
	t.Helper()
	bin := os.Getenv("VERSITYGW")
	if bin == "" {
		if p, err := exec.LookPath("versitygw"); err == nil {
			bin = p
		}
	}
	if bin == "" {
		home, _ := os.UserHomeDir()
		for _, d := range []string{os.Getenv("GOPATH"), filepath.Join(home, "go")} {
			if p := filepath.Join(d, "bin", "versitygw"); d != "" && fileExists(p) {
				bin = p
				break
			}
		}
	}
	if bin == "" {
		bin = Require(t, "versitygw")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--access", access, "--secret", secret, "--port", addr, "--quiet", "posix", root)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not listen on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
