package cli

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vastview/base/testtool"
)

// movieChildEnv makes the test binary run `vastview movie SRC OUT`, SRC
// and OUT given in the variable, one per line.
const movieChildEnv = "VASTVIEW_CLI_MOVIE"

// runMovieChild is the child process of TestMovieKilledIsTidiedByTheNextRun,
// if this is one.
func runMovieChild() {
	if v := os.Getenv(movieChildEnv); v != "" {
		src, out, _ := strings.Cut(v, "\n")
		os.Exit(Run([]string{"movie", src, out}, os.Stdout, os.Stderr))
	}
}

// TestMovieKilledIsTidiedByTheNextRun kills `vastview movie` (SIGKILL to
// it and its ffmpeg, which they cannot catch) once it has written some of
// its frames, for an MP4 and for a series of PNGs: nothing it wrote has
// the output's name (no frame looks finished), and the same command run
// again removes what the killed one left, says so in one line, and writes
// the whole output, with nothing else beside it.
func TestMovieKilledIsTidiedByTheNextRun(t *testing.T) {
	runMovieChild()
	const planes = 120
	for _, c := range []struct {
		name, out string
		want      func(dir string) []string // the names the output's folder holds at the end, sorted
	}{
		{"mp4", "m.mp4", func(string) []string { return []string{"m.mp4", "vol.nrrd"} }},
		{"series", "fr.png", func(string) []string {
			var names []string
			for i := range planes {
				names = append(names, fmt.Sprintf("fr_z%04d.png", i))
			}
			return append(names, "vol.nrrd")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "mp4" {
				testtool.Require(t, "ffmpeg")
			}
			dir := t.TempDir()
			src := filepath.Join(dir, "vol.nrrd")
			data := make([]byte, planes*256*256)
			for i := range data {
				data[i] = byte(i*7 + i/251)
			}
			hdr := fmt.Sprintf("NRRD0004\ntype: uint8\ndimension: 3\nsizes: 256 256 %d\nencoding: raw\n\n", planes)
			if err := os.WriteFile(src, append([]byte(hdr), data...), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, c.out)
			cmd := exec.Command(os.Args[0], "-test.run=^TestMovieKilledIsTidiedByTheNextRun$")
			cmd.Env = childEnviron(movieChildEnv+"="+src+"\n"+out, "XDG_CACHE_HOME="+filepath.Join(t.TempDir(), "cache"))
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			// Wait until the child has written something of its output:
			// a frame of the series, or encoded frames of the MP4.
			for !wroteSome(dir, src) {
				select {
				case err := <-done:
					t.Fatalf("the child ended before it was killed: %v: %s", err, stderr.String())
				case <-time.After(5 * time.Millisecond):
				}
			}
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			if _, err := os.Stat(filepath.Join(dir, strings.Replace(c.out, ".png", "_z0000.png", 1))); err == nil {
				t.Errorf("after SIGKILL, %s is there under its name, as if finished", c.out)
			}

			t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
			code, _, errs := vv("movie", src, out)
			if code != 0 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "vastview: removed ") ||
				!strings.Contains(errs, "left by an earlier export that was killed") {
				t.Errorf("the next run: exit %d, stderr %q; want one line saying what it removed", code, errs)
			}
			ents, _ := os.ReadDir(dir)
			var got []string
			for _, e := range ents {
				got = append(got, e.Name())
			}
			if want := c.want(dir); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("the folder holds %d names %.300v…, want %d: %.300v…", len(got), got, len(want), want)
			}
		})
	}
}

// wroteSome reports whether dir (or a folder in it) holds a file other
// than src with data in it.
func wroteSome(dir, src string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == src {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() > 0 {
			found = true
		}
		return nil
	})
	return found
}
