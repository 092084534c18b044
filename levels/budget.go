package levels

import (
	"fmt"
	"strconv"
	"strings"
)

// The memory budget bounds the chunk caches a process holds (Options.CacheBytes):
// the --budget of pyramid and serve, the chunk cache of the viewer's
// Preferences. It is given as a size (ParseBudget); 0 stands for
// DefaultCacheBytes. Every caller divides it by one rule, Part(budget, n):
// a pyramid gets budget/n, at least MinPart, n being
//
//	PartWhole  1  the image a command reads or the viewer shows
//	PartExport 2  the cache of pyramid, which keeps the other half for the
//	              chunks in flight (read, downsampled, being written)
//	PartLayer  2  each layer laid over the image the viewer shows
//	PartAhead  8  each file of a browsing list opened ahead of need, so that
//	              the two neighbours and the file shown fit
//
// and, for serve, the number of images served (they share the budget).
const (
	PartWhole  = 1
	PartExport = 2
	PartLayer  = 2
	PartAhead  = 8
)

// MinPart is the smallest part of a budget a pyramid gets.
const MinPart = 1 << 20

// Part returns the n-th part of budget (0 or less: DefaultCacheBytes())
// as the policy above gives it.
func Part(budget int64, n int) int64 {
	if budget <= 0 {
		budget = DefaultCacheBytes()
	}
	return max(budget/int64(max(n, 1)), MinPart)
}

// sizeUnits are the units ParseBudget reads, longest first.
var sizeUnits = []struct {
	suffix string
	m      float64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}

// ParseBudget reads a size such as 1073741824, 1GiB, 512MiB, 2G or 1.5GB
// (any case, a space before the unit allowed; K, M, G, T are powers of
// 1024, KB, MB, GB, TB of 1000). With zero allowed, "0" is 0 (the
// default budget); otherwise a size must be positive. Anything else is an
// error naming s.
func ParseBudget(s string, zero bool) (int64, error) {
	t := strings.TrimSpace(s)
	mult := float64(1)
	for _, u := range sizeUnits {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v == 0 && !zero || v*mult > 1<<62 || v != v {
		return 0, fmt.Errorf("%q is not a size such as 1GiB", s)
	}
	return int64(v * mult), nil
}

// FormatBudget writes n as ParseBudget reads it back: in the largest of
// GiB, MiB and KiB that divides it, else in bytes.
func FormatBudget(n int64) string {
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
