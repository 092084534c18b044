package cli

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeUsage: wrong command lines end with status 1 and one line
// naming the problem.
func TestServeUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.tif")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "serve needs at least one SRC"},
		{[]string{"serve", "--compress", "lz4", "a.tif"}, "--compress must be none or zstd"},
		{[]string{"serve", "--addr", "8000", "a.tif"}, "--addr: 8000 is not HOST:PORT"},
		{[]string{"serve", "--budget", "lots", "a.tif"}, "--budget"},
		{[]string{"serve", "--bogus", "a.tif"}, "unknown option --bogus"},
		{[]string{"serve", "--addr", "127.0.0.1:0", missing}, missing},
	} {
		var out, errb bytes.Buffer
		if code := Run(c.args, &out, &errb); code != 1 {
			t.Errorf("%v: exit %d, want 1", c.args, code)
		}
		if s := errb.String(); strings.Count(s, "\n") != 1 || !strings.Contains(s, c.want) {
			t.Errorf("%v: stderr %q, want one line with %q", c.args, s, c.want)
		}
	}
}

// TestServeCommand runs `vastview serve` on a PNG file: it prints the
// image's URL, answers with the token only, never logs the token, and
// ends cleanly when its context (the signals) ends.
func TestServeCommand(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	img := image.NewGray16(image.Rect(0, 0, 30, 20))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 13)
	}
	var pb bytes.Buffer
	if err := png.Encode(&pb, img); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(src, pb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- serveUntil(ctx, []string{"--addr", "127.0.0.1:0", "--token", "tok3n", src}, pw, &errb)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url, from, _ := strings.Cut(strings.TrimSpace(line), "  ")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/shot.ome.zarr") || from != src {
		t.Fatalf("printed %q", line)
	}
	fetch := func(key, auth string) (int, []byte) {
		req, _ := http.NewRequest("GET", url+"/"+key, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, _ := fetch(".zattrs", ""); code != 401 {
		t.Errorf("without the token: %d", code)
	}
	code, b := fetch("0/0/0", "Bearer tok3n")
	if code != 200 || len(b) != 30*20*2 {
		t.Fatalf("chunk: %d, %d bytes", code, len(b))
	}
	for y := 0; y < 20; y++ {
		for x := 0; x < 30; x++ {
			got := uint16(b[2*(y*30+x)]) | uint16(b[2*(y*30+x)+1])<<8
			if want := img.Gray16At(x, y); (color.Gray16{Y: got}) != want {
				t.Fatalf("sample (%d,%d) = %d, want %d", x, y, got, want.Y)
			}
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve ended with %v", err)
	}
	if s := errb.String(); strings.Contains(s, "tok3n") || !strings.Contains(s, "served 1 chunks") {
		t.Fatalf("stderr %q", s)
	}
}

// startServe runs `vastview serve` with args in the background until the
// test ends, and returns the URL it printed for its first image.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- serveUntil(ctx, args, pw, &errb)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve ended with %v: %s", err, errb.String())
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
	return url
}

// TestServeReadableOnlyByWhomItSays: `vastview serve` refuses a request
// whose Host header is not its address or a loopback name (a page on
// another site that made its own name point at 127.0.0.1) and sends no
// CORS header, so a page open in the user's browser cannot read the
// images; --cors and --allow-host name the origins and hosts that may.
func TestServeReadableOnlyByWhomItSays(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := filepath.Join(t.TempDir(), "shot.png")
	var pb bytes.Buffer
	png.Encode(&pb, image.NewGray(image.Rect(0, 0, 8, 8)))
	os.WriteFile(src, pb.Bytes(), 0o644)
	const ng = "https://neuroglancer-demo.appspot.com"
	get := func(url, host, origin string) (int, http.Header) {
		t.Helper()
		req, _ := http.NewRequest("GET", url+"/.zattrs", nil)
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	plain := startServe(t, "--addr", "127.0.0.1:0", src)
	port, _, _ := strings.Cut(strings.TrimPrefix(plain, "http://127.0.0.1:"), "/")
	if code, _ := get(plain, "evil.example:"+port, ""); code != http.StatusForbidden {
		t.Errorf("Host evil.example: status %d, want 403", code)
	}
	for _, o := range []string{"https://evil.example", ng} {
		if code, h := get(plain, "", o); code != 200 || h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("Origin %s without --cors: status %d, Access-Control-Allow-Origin %q", o, code, h.Get("Access-Control-Allow-Origin"))
		}
	}
	if code, _ := get(plain, "localhost:"+port, ""); code != 200 {
		t.Errorf("Host localhost: status %d", code)
	}

	named := startServe(t, "--addr", "127.0.0.1:0", "--cors", ng, "--cors", "http://localhost:8080",
		"--allow-host", "data.lab", src)
	if code, h := get(named, "", ng); code != 200 || h.Get("Access-Control-Allow-Origin") != ng {
		t.Errorf("Origin %s with --cors: status %d, headers %v", ng, code, h)
	}
	if _, h := get(named, "", "https://evil.example"); h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin with --cors: headers %v", h)
	}
	if code, _ := get(named, "data.lab", ""); code != 200 {
		t.Errorf("Host data.lab with --allow-host: status %d", code)
	}
	if code, _ := get(named, "evil.example", ""); code != http.StatusForbidden {
		t.Errorf("Host evil.example with --allow-host data.lab: status %d", code)
	}

	for _, args := range [][]string{{"--cors", "neuroglancer-demo.appspot.com"}, {"--cors", ng + "/path"}, {"--allow-host", "a/b"}} {
		var out, errb bytes.Buffer
		code := Run(append(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), src), &out, &errb)
		if s := errb.String(); code != 1 || strings.Count(s, "\n") != 1 || !strings.Contains(s, args[0]) {
			t.Errorf("%v: exit %d, stderr %q", args, code, s)
		}
	}
}
