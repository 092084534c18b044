package testtool

import "testing"

// Long skips t under go test -short, saying why it is left out of the
// quick loop (what makes it slow: a large file, many peer runs). The
// packages keep fast cases of the same behaviour for -short; the full run
// (.ci/test) runs every test.
func Long(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("left out by -short: " + why)
	}
}

// Quick returns cases, or under go test -short only the first n of them:
// the quick loop runs a few cases of a table (put the one that covers most
// first), the full run all of them.
func Quick[T any](cases []T, n int) []T {
	if testing.Short() && len(cases) > n {
		return cases[:n]
	}
	return cases
}
