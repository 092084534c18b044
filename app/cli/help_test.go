package cli

import (
	"strings"
	"testing"

	"vastview/loader"
)

// TestHelpNamesEveryFormat checks `vastview help` against the formats that
// register: each is named in the paragraph on SRC, so the list cannot fall
// behind a new reader.
func TestHelpNamesEveryFormat(t *testing.T) {
	out := mustRun(t, "help")
	_, src, ok := strings.Cut(out, "\nSRC is ")
	if !ok {
		t.Fatalf("help has no paragraph on SRC:\n%s", out)
	}
	src = strings.Join(strings.Fields(src), " ")
	fs := loader.Formats()
	if len(fs) == 0 {
		t.Fatal("no format registered")
	}
	for _, f := range fs {
		if len(f.Titles) == 0 {
			t.Errorf("format %q registers without the words help names it by", f.Name)
		}
		for _, w := range f.Titles {
			if !strings.Contains(src, w) {
				t.Errorf("help's SRC list does not name %s (format %q)", w, f.Name)
			}
		}
	}
}
