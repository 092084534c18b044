package czi

import (
	"os"
	"testing"

	"vastview/base/subproc"
)

// TestMain lets the test binary serve as the JPEG XR decoder's child
// process, as vastview does.
func TestMain(m *testing.M) {
	subproc.Main()
	os.Exit(m.Run())
}
