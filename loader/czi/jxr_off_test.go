//go:build nojxr || !cgo

package czi

import "testing"

// addJXRSeed adds nothing in a build without libjxr.
func addJXRSeed(*testing.F) {}
