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
