package loader

import (
	"fmt"
	"strings"
)

// Projection is how the samples along the axis normal to a plane are
// reduced to one.
type Projection uint8

// The projections.
const (
	NoProjection Projection = iota
	ProjectMax
	ProjectMin
	ProjectMean
)

// String names the projection as ParseProjection reads it ("none" for
// NoProjection).
func (p Projection) String() string {
	switch p {
	case ProjectMax:
		return "max"
	case ProjectMin:
		return "min"
	case ProjectMean:
		return "mean"
	}
	return "none"
}

// ParseProjection reads "max", "min" or "mean".
func ParseProjection(s string) (Projection, error) {
	switch strings.ToLower(s) {
	case "max":
		return ProjectMax, nil
	case "min":
		return ProjectMin, nil
	case "mean":
		return ProjectMean, nil
	}
	return NoProjection, fmt.Errorf("unknown projection %q (want max, min or mean)", s)
}
