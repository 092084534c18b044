package loader

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMembers: of a folder's files, those that are links leading out of
// it (or named by "../") make one note ending with OutsideNote, so the
// status bar shows it, and under Confine an error naming the first; a
// link within the folder is read under Confine as the file it names.
func TestMembers(t *testing.T) {
	root := t.TempDir()
	dir, out := filepath.Join(root, "ds"), filepath.Join(root, "out")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(out, 0o755)
	for _, p := range []string{filepath.Join(dir, "a"), filepath.Join(out, "b"), filepath.Join(out, "c")} {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	os.Symlink(filepath.Join(out, "b"), filepath.Join(dir, "b"))
	os.Symlink("a", filepath.Join(dir, "in"))
	names := []string{"a", "b", "in", "../out/c"}
	files, note, err := Members(context.Background(), dir, "the file", names)
	if err != nil {
		t.Fatal(err)
	}
	if want := "the file b (and 1 more) " + OutsideNote; note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	if files[1] != filepath.Join(dir, "b") || files[3] != filepath.Join(out, "c") {
		t.Errorf("files %q", files)
	}
	files, _, err = Members(Confine(context.Background()), dir, "the file", names[:3])
	var oe *OutsideError
	if !errors.As(err, &oe) || oe.Name != "b" || !strings.Contains(err.Error(), "the file b lies outside") {
		t.Errorf("confined: %q, %v", files, err)
	}
	files, note, err = Members(Confine(context.Background()), dir, "the file", []string{"a", "in"})
	rdir, _ := filepath.EvalSymlinks(dir)
	if err != nil || note != "" || files[0] != filepath.Join(dir, "a") || files[1] != filepath.Join(rdir, "a") {
		t.Errorf("confined, within: %q %q %v", files, note, err)
	}
}
