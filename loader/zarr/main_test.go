package zarr

import (
	"os"
	"testing"
)

// TestMain keeps the chunk cache of remote stores in a folder of its own,
// removed at the end, rather than the user's cache directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vastview-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
