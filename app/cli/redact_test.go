package cli

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"vastview/base/testtool"
)

// The secret put in every address; the access key ID too is left out.
const (
	addrSecret = "pa55-SeCrEt-9q7"
	addrKeyID  = "AKIDVASTVIEWTEST"
)

// plainZarr writes an 8x8 uint8 Zarr v2 array in one chunk under
// dir/img.zarr.
func plainZarr(t *testing.T, dir string) {
	t.Helper()
	root := filepath.Join(dir, "img.zarr")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	zarray := `{"zarr_format":2,"shape":[8,8],"chunks":[8,8],"dtype":"|u1","compressor":null,` +
		`"fill_value":0,"order":"C","filters":null}`
	os.WriteFile(filepath.Join(root, ".zarray"), []byte(zarray), 0o644)
	os.WriteFile(filepath.Join(root, "0.0"), bytes.Repeat([]byte{7}, 64), 0o644)
}

// TestAddressSecretsNeverShown runs every command that can name an
// address with one carrying a password, an access key and a signature or
// token, through each way it can fail (an address refused, a server not
// listening, one refusing, one serving), and looks for the secret in all
// it prints: stdout, stderr, and what `serve` prints while it serves.
func TestAddressSecretsNeverShown(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	plainZarr(t, dir)
	files := http.FileServer(http.Dir(dir))
	served := httptest.NewServer(files)
	defer served.Close()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer refusing.Close()
	host := func(u string) string { return strings.TrimPrefix(u, "http://") }
	creds := addrKeyID + ":" + addrSecret + "@"
	sig := "?X-Amz-Credential=" + addrKeyID + "&X-Amz-Signature=" + addrSecret + "&X-Amz-Security-Token=" + addrSecret
	srcs := []string{
		"s3+http://" + creds + dead + "/bkt/x.ome.zarr",
		"s3+https://" + addrKeyID + ":" + addrSecret + "/with/slash@" + dead + "/bkt/x.ome.zarr",
		"https://" + creds + dead + "/x.ome.zarr",
		"http://" + creds + dead + "/x.ome.zarr" + sig,
		"http://" + dead + "/x.ome.zarr?token=" + addrSecret,
		"http://" + creds + host(refusing.URL) + "/x.ome.zarr?access_token=" + addrSecret,
		"gs://" + creds + "bkt/x.ome.zarr",
		"http://" + creds + host(served.URL) + "/missing.zarr" + sig,
	}
	out := filepath.Join(t.TempDir(), "o")
	var outputs []string
	check := func(args []string, code int, stdout, stderr string) {
		t.Helper()
		outputs = append(outputs, stdout+stderr)
		if code != 1 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want 1 and one line", args, code, stderr)
		}
	}
	for _, src := range srcs {
		for _, args := range [][]string{
			{"info", src},
			{"info", "--json", src},
			{"plane", src, "--out", out + ".raw"},
			{"pyramid", src, out + ".ome.zarr"},
			{"movie", src, out + ".mp4"},
			{"serve", "--addr", "127.0.0.1:0", src},
		} {
			code, o, e := vv(args...)
			check(args, code, o, e)
		}
	}
	// An output address.
	local := filepath.Join(dir, "img.zarr")
	for _, dst := range []string{"s3+http://" + creds + dead + "/bkt/out.ome.zarr", "s3://" + creds + "bkt/out.ome.zarr" + sig} {
		args := []string{"pyramid", local, dst}
		code, o, e := vv(args...)
		check(args, code, o, e)
	}

	// serve, serving: what it prints on stdout and stderr.
	src := "http://" + creds + host(served.URL) + "/img.zarr?token=" + addrSecret
	cmd := exec.Command(os.Args[0], "-test.run=^TestAddressSecretsNeverShown$")
	cmd.Env = childEnviron(testtool.CLIEnv+"=serve\n--addr\n127.0.0.1:0\n"+src, "XDG_CACHE_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(pipe).ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("serve printed no URL: %v: %s", err, stderr.String())
	}
	url, from, _ := strings.Cut(strings.TrimSpace(line), "  ")
	if !strings.HasSuffix(url, "/img.ome.zarr") || !strings.Contains(from, host(served.URL)+"/img.zarr") {
		t.Errorf("serve printed %q", line)
	}
	resp, err := http.Get(url + "/0/0/0")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, bytes.Repeat([]byte{7}, 64)) {
		t.Errorf("served chunk: %s, %d bytes", resp.Status, len(body))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(pipe)
	cmd.Wait()
	outputs = append(outputs, line+string(rest)+stderr.String())

	for _, o := range outputs {
		if strings.Contains(o, addrSecret) || strings.Contains(o, addrKeyID) {
			t.Errorf("a secret printed: %q", o)
		}
	}
}
