package demo

import (
	"context"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

func TestConformance(t *testing.T) {
	loadertest.Conformance(t, "demo", func(context.Context) (loader.Source, error) { return NewSized(2, 3, 300, 270), nil })
}
