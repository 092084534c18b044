package testtool

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// StartS3Gateway runs the versitygw S3 gateway ($VERSITYGW, on PATH, or in
// $GOPATH/bin or ~/go/bin, as .ci/deps installs it) with its posix
// backend over the folder root on 127.0.0.1, with the root account
// access/secret; with virtual, it also takes virtual-hosted addresses
// under "localhost". It returns the gateway's host:port and a function
// that stops it (also called when the test ends).
func StartS3Gateway(t testing.TB, root, access, secret string, virtual bool) (string, func()) {
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
	args := []string{"--access", access, "--secret", secret, "--port", addr}
	if virtual {
		_, port, _ := net.SplitHostPort(addr)
		args = append(args, "--virtual-domain", "localhost:"+port)
	}
	cmd := exec.Command(bin, append(args, "--quiet", "posix", root)...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not listen on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// S3Gateway runs the versitygw S3 gateway (see StartS3Gateway) over the
// folder root, path-style on 127.0.0.1, with the root account
// access/secret, and creates the buckets named; it returns the gateway's
// host:port. The gateway stops when the test ends.
func S3Gateway(t testing.TB, root, access, secret string, buckets ...string) string {
	t.Helper()
	addr, _ := StartS3Gateway(t, root, access, secret, false)
	empty := sha256.Sum256(nil)
	hash := hex.EncodeToString(empty[:])
	for _, b := range buckets {
		req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/"+b, nil)
		req.Header.Set("X-Amz-Content-Sha256", hash)
		creds := aws.Credentials{AccessKeyID: access, SecretAccessKey: secret}
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hash, "s3", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("creating bucket %s: %v", b, err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("creating bucket %s: %s", b, resp.Status)
		}
	}
	return addr
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
