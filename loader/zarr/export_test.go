package zarr

import (
	"testing"

	"vastview/loader"
)

// For the tests of package zarr_test, which may import packages that
// import this one (app/cli).
const ZarrPyFixtures = zarrPyFixtures

func CheckPyData(t *testing.T, src loader.Source, path string, wantMissing int) {
	t.Helper()
	checkPyData(t, src, path, wantMissing)
}
