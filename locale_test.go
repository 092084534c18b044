package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/lang"

	"vastview/app/cli"
	"vastview/base/testtool"
)

// localeEnvs are the environments, as containers and desktops have them,
// under which the program's stderr must hold only what it prints itself.
var localeEnvs = map[string][]string{
	"LANG=C.UTF-8":   {"LANG=C.UTF-8"},
	"LC_ALL=C.UTF-8": {"LC_ALL=C.UTF-8", "LANG=en_US.UTF-8"},
	"no LANG":        nil,
}

// localeEnviron is the test's environment without any locale variable,
// plus extra.
func localeEnviron(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "LANGUAGE" || k == "LANG" || strings.HasPrefix(k, "LC_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// TestStderrUnderCLocale runs the built program's commands (help, info of
// a picture, info of a file that is no image, and the window when there is
// a display) under the C locale and without one: stderr holds exactly the
// lines the command line prints (none, or its one-line error), nothing
// from the libraries' start-up.
func TestStderrUnderCLocale(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "vastview")
	testtool.Run(t, "go", "build", "-o", bin, ".")
	good := filepath.Join(dir, "small.png")
	f, err := os.Create(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, image.NewGray(image.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	bad := filepath.Join(dir, "notes.tif")
	if err := os.WriteFile(bad, []byte("not an image at all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, extra := range localeEnvs {
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{{"help"}, {"info", good}, {"info", "--json", good}, {"info", bad}} {
				var wantOut, wantErr bytes.Buffer
				wantCode := cli.Run(args, &wantOut, &wantErr)
				cmd := exec.Command(bin, args...)
				cmd.Env = localeEnviron(extra...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := cmd.ProcessState.ExitCode()
				if code != wantCode || stderr.String() != wantErr.String() || stdout.String() != wantOut.String() {
					t.Errorf("vastview %v: exit %d (%v), stderr %q; want exit %d, stderr %q (stdout equal: %v)",
						args, code, err, stderr.String(), wantCode, wantErr.String(), stdout.String() == wantOut.String())
				}
			}
			if os.Getenv("DISPLAY") == "" {
				return
			}
			// The window: its first image drawn (fonts chosen, menus made),
			// nothing on stderr.
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			home := t.TempDir()
			cmd := exec.Command(bin, "--trace", trace, good)
			cmd.Env = localeEnviron(append(extra, "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
				"XDG_CONFIG_HOME="+filepath.Join(home, "config"))...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "first_image", 60*time.Second, func() bool {
				for _, e := range traceEvents(t, trace) {
					if e["event"] == "first_image" {
						return true
					}
				}
				return false
			})
			cmd.Process.Kill()
			cmd.Wait()
			if stderr.Len() != 0 {
				t.Errorf("the window wrote on stderr:\n%s", stderr.String())
			}
		})
	}
}

// TestLanguageUnderCLocale runs this test binary again under each locale:
// under C and without a locale, Fyne's texts are English and its locale
// "en"; a real locale keeps its language.
func TestLanguageUnderCLocale(t *testing.T) {
	if os.Getenv("VASTVIEW_LANGUAGE_CHILD") != "" {
		os.Stdout.WriteString(string(lang.SystemLocale()) + " " + lang.L("Cancel") + "\n")
		return
	}
	cases := map[string][]string{"fr": {"LANG=fr_FR.UTF-8"}, "fr, LANGUAGE kept": {"LANG=C.UTF-8", "LANGUAGE=fr"}}
	for name, env := range localeEnvs {
		cases[name] = env
	}
	want := map[string]string{"fr": "fr-FR Annuler", "fr, LANGUAGE kept": "fr Annuler", "no LANG": "en Cancel"}
	for name, env := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLanguageUnderCLocale$")
		cmd.Env = localeEnviron(append(env, "VASTVIEW_LANGUAGE_CHILD=1")...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr.String())
		}
		w, ok := want[name]
		if !ok {
			w = "en Cancel"
		}
		got, _, _ := strings.Cut(stdout.String(), "\n")
		if got != w || stderr.Len() != 0 {
			t.Errorf("%s: locale and text %q, stderr %q; want %q and nothing", name, got, stderr.String(), w)
		}
	}
}
